// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See screen.h.  The layout, top to bottom: two status lines, the stalls
 * in progress (the incident itself, so first and never crowded out), the
 * worst victims, the top culprits, and the footer.  Tables get the rows
 * they need; when both need more than there is, each gets half.
 */
#include <stdio.h>
#include <string.h>
#include "sinks/sink_common.h"
#include "top/screen.h"
#include "util.h"

/* Column widths: narrow fits 80 columns, wide from TOP_WIDE_COLS. */
struct cols {
	size_t task, lock, age, state, n, t;
};

static const struct cols narrow = { .task = 22, .lock = 10, .age = 6, .state = 9, .n = 6, .t = 7 };
static const struct cols wide = { .task = 32, .lock = 11, .age = 7, .state = 10, .n = 7, .t = 8 };

struct screen {
	const struct top_screen_in *in;
	const struct cols *w;
	size_t cols;		/* bytes of a line, at most TOP_LINE_MAX - 1 */
	struct top_line *out;
	size_t n, max;
};

static struct top_line *screen__line(struct screen *s, enum top_line_kind kind)
{
	struct top_line *l;

	if (s->n == s->max)
		return NULL;
	l = &s->out[s->n++];
	l->kind = kind;
	l->text[0] = '\0';
	return l;
}

/*
 * One cell: text cut (its last byte '~') or padded to width, then a blank;
 * width 0: the text as it is.  Nothing beyond the line's width.
 */
static void cell(struct screen *s, struct top_line *l, const char *text, size_t width, bool right)
{
	size_t used, len = strlen(text), room, pad = 0, i;
	char *p;

	if (!l)
		return;		/* no room for the line */
	used = strlen(l->text);
	p = l->text + used;
	if (used >= s->cols)
		return;
	room = s->cols - used;
	if (width && len > width) {
		len = width;
		pad = 0;
	} else if (width) {
		pad = width - len;
	}
	if (right) {
		for (i = 0; i < pad && room; i++, room--)
			*p++ = ' ';
		pad = 0;
	}
	for (i = 0; i < len && room; i++, room--)
		*p++ = width && i == width - 1 && strlen(text) > width ? '~' : text[i];
	for (i = 0; i < pad && room; i++, room--)
		*p++ = ' ';
	if (width && room) {
		*p++ = ' ';
		room--;
	}
	*p = '\0';
}

#define TASK_TEXT_LEN (LS_COMM_TEXT_LEN + SINK_RENAME_TEXT_LEN + 32)

/*
 * "comm[tid]" for a process's main thread, else "comm[tgid/tid]", escaped,
 * with " (was bash)" when rename r (tid 0: none) says its name changed.
 */
static const char *task_text(const struct ls_task *t, const struct ls_rename *r, char *buf,
			     size_t len)
{
	char comm[LS_COMM_TEXT_LEN], other[SINK_RENAME_TEXT_LEN];

	if (sink__unseen_text(t, buf, len))
		return buf;
	ls_comm_text(t->comm, comm, sizeof(comm));
	sink__rename_text(r->tid ? r : NULL, other, sizeof(other));
	if (t->tgid == t->tid)
		snprintf(buf, len, "%s[%u]%s", comm, t->tid, other);
	else
		snprintf(buf, len, "%s[%u/%u]%s", comm, t->tgid, t->tid, other);
	return buf;
}

/* "fifo 10", "normal", "nice -5", "idle" */
static const char *class_text(const struct ls_task *t, char *buf, size_t len)
{
	if (!ls_task_seen(t))
		snprintf(buf, len, "?");
	else if (t->policy == LS_POLICY_FIFO || t->policy == LS_POLICY_RR)
		snprintf(buf, len, "%s %u", ls_policy_name(t->policy), t->rt_prio);
	else if ((t->policy == LS_POLICY_NORMAL || t->policy == LS_POLICY_BATCH) && t->nice)
		snprintf(buf, len, "%snice %d", t->policy == LS_POLICY_BATCH ? "batch " : "",
			 t->nice);
	else
		snprintf(buf, len, "%s", ls_policy_name(t->policy));
	return buf;
}

static const char *state_text(enum ls_holder_state st)
{
	return st == LS_STATE_GRANTED_NOT_RUNNING ? "granted" : ls_state_name(st);
}

/* "mmap 1234", "futex 1234" (the process whose lock it is), "rwsem" (the kernel's). */
static const char *lock_text(__u8 kind, __u32 tgid, char *buf, size_t len)
{
	const struct ls_lock_kind_row *k = ls_lock_kind(kind);

	if (tgid)
		snprintf(buf, len, "%s %u", k->short_name, tgid);
	else if (k->space == LS_LOCK_IN_MM)
		snprintf(buf, len, "%s ?", k->short_name);
	else
		snprintf(buf, len, "%s", k->short_name);
	return buf;
}

static const char *dur(__u64 ns, char *buf, size_t len)
{
	return ns ? ls_format_duration(ns, buf, len) : "-";
}

static const char *count_text(__u64 n, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}

static void screen__status(struct screen *s)
{
	const struct top_screen_in *in = s->in;
	const struct top_view *v = in->view;
	char up[32], every[32], thr[32], filter[160], text[TOP_LINE_MAX], from[32];
	struct top_line *l = screen__line(s, TOP_LINE_STATUS);

	snprintf(text, sizeof(text), "lockstall top  up %s  every %s  threshold %s  sort %s%s",
		 ls_format_duration(u64_sat_sub(v->now_ns, in->t0_ns), up, sizeof(up)),
		 ls_format_duration(in->interval_ns, every, sizeof(every)),
		 ls_format_duration(in->threshold_ns, thr, sizeof(thr)), top_sort_name(in->sort),
		 in->paused ? "  PAUSED" : "");
	cell(s, l, text, 0, false);
	l = screen__line(s, TOP_LINE_STATUS);
	from[0] = '\0';
	if (v->history_from_ns)
		snprintf(from, sizeof(from), " (kept: last %s)",
			 ls_format_duration(u64_sat_sub(v->now_ns, v->history_from_ns), up, sizeof(up)));
	top_filter__text(in->filter, filter, sizeof(filter));
	snprintf(text, sizeof(text), "stalls %llu last %s, %llu since start%s  lost events %llu  filter %s",
		 (unsigned long long)v->iv_stalls, every, (unsigned long long)v->all_stalls, from,
		 (unsigned long long)in->lost, filter);
	cell(s, l, text, 0, false);
}

static void screen__pending(struct screen *s, size_t rows)
{
	const struct top_view *v = s->in->view;
	char title[64], age[32], dur[32], waiter[TASK_TEXT_LEN], lock[32], holder[TASK_TEXT_LEN];
	char why[TASK_TEXT_LEN + 40];
	struct top_line *l = screen__line(s, TOP_LINE_TITLE);
	size_t i;

	snprintf(title, sizeof(title), "STALLS IN PROGRESS: %zu", v->n_pending);
	if (!v->n_pending) {
		snprintf(title, sizeof(title), "STALLS IN PROGRESS: none");
		cell(s, l, title, 0, false);
		return;
	}
	cell(s, l, title, 0, false);
	l = screen__line(s, TOP_LINE_HEADER);
	cell(s, l, "AGE", s->w->age, true);
	cell(s, l, "WAITER", s->w->task, false);
	cell(s, l, "LOCK", s->w->lock, false);
	cell(s, l, "HOLDER", s->w->task, false);
	cell(s, l, "STATE", s->w->state, false);
	cell(s, l, "WHY", 0, false);
	for (i = 0; i < v->n_pending && i < rows; i++) {
		const struct top_pending *p = &v->pending[i];
		__u64 a = u64_sat_sub(v->now_ns, p->start_ns);

		l = screen__line(s, TOP_LINE_TEXT);
		/* began before tracing: older than that ('>'), its start unknown */
		snprintf(age, sizeof(age), "%s%s", p->began_before ? ">" : "",
			 ls_format_duration(a, dur, sizeof(dur)));
		cell(s, l, age, s->w->age, true);
		cell(s, l, task_text(&p->waiter, &p->waiter_rename, waiter, sizeof(waiter)),
		     s->w->task, false);
		cell(s, l, lock_text(p->lock_kind, p->lock_tgid, lock, sizeof(lock)), s->w->lock,
		     false);
		cell(s, l, p->has_holder ?
		     task_text(&p->holder, &p->holder_rename, holder, sizeof(holder)) : "?",
		     s->w->task, false);
		cell(s, l, p->has_holder ? state_text(p->holder_state) : "-", s->w->state, false);
		/* a cycle is the reason whoever ran meanwhile */
		if (p->has_preemptor && p->verdict != LS_VERDICT_DEADLOCK)
			snprintf(why, sizeof(why), "by %s",
				 task_text(&p->preemptor, &p->preemptor_rename, holder, sizeof(holder)));
		else
			snprintf(why, sizeof(why), "%s", ls_verdict_name(p->verdict));
		if (p->began_before)
			strncat(why, p->found_late ? ", found late" : ", began before tracing",
				sizeof(why) - strlen(why) - 1);
		cell(s, l, why, 0, false);
	}
}

/* The title line with the two groups' labels over their columns. */
static void table__title(struct screen *s, const char *title, size_t shown, size_t more)
{
	struct top_line *l = screen__line(s, TOP_LINE_TITLE);
	char text[64], every[32], label[48];
	const struct cols *w = s->w;

	if (more)
		snprintf(text, sizeof(text), "%s: %zu of %zu", title, shown, shown + more);
	else
		snprintf(text, sizeof(text), "%s%s", title, shown ? "" : ": none");
	cell(s, l, text, w->task + 1 + w->lock, false);
	if (!shown)
		return;
	snprintf(label, sizeof(label), "last %s",
		 ls_format_duration(s->in->interval_ns, every, sizeof(every)));
	cell(s, l, label, w->n + 1 + w->t, true);
	cell(s, l, "since start", w->n + 1 + w->t, true);
}

static void table__header(struct screen *s, const char *who, const char *what, const char *last)
{
	struct top_line *l = screen__line(s, TOP_LINE_HEADER);

	cell(s, l, who, s->w->task, false);
	cell(s, l, what, s->w->lock, false);
	cell(s, l, "STALLS", s->w->n, true);
	cell(s, l, "TIME", s->w->t, true);
	cell(s, l, "STALLS", s->w->n, true);
	cell(s, l, "TIME", s->w->t, true);
	cell(s, l, last, 0, false);
}

static void table__counts(struct screen *s, struct top_line *l, const struct top_row *r)
{
	char n[32], t[32];

	cell(s, l, count_text(r->iv_stalls, n, sizeof(n)), s->w->n, true);
	cell(s, l, dur(r->iv_ns, t, sizeof(t)), s->w->t, true);
	cell(s, l, count_text(r->all_stalls, n, sizeof(n)), s->w->n, true);
	cell(s, l, dur(r->all_ns, t, sizeof(t)), s->w->t, true);
}

static void screen__victims(struct screen *s, size_t rows)
{
	const struct top_view *v = s->in->view;
	size_t shown = v->n_victims < rows ? v->n_victims : rows, i;
	char task[TASK_TEXT_LEN], lock[32], worst[32], cls[32], last[96];

	table__title(s, "WORST VICTIMS", shown, v->n_victims + v->more_victims - shown);
	if (!shown)
		return;
	table__header(s, "WAITER", "LOCK", s->w == &wide ? "WORST    CLASS" : "WORST");
	for (i = 0; i < shown; i++) {
		const struct top_row *r = &v->victims[i];
		struct top_line *l = screen__line(s, TOP_LINE_TEXT);

		cell(s, l, task_text(&r->task, &r->rename, task, sizeof(task)), s->w->task, false);
		cell(s, l, lock_text(r->lock_kind, r->lock_tgid, lock, sizeof(lock)), s->w->lock,
		     false);
		table__counts(s, l, r);
		snprintf(last, sizeof(last), "%-8s %s", dur(r->max_ns, worst, sizeof(worst)),
			 s->w == &wide ? class_text(&r->task, cls, sizeof(cls)) : "");
		cell(s, l, last, 0, false);
	}
}

static void screen__culprits(struct screen *s, size_t rows)
{
	const struct top_view *v = s->in->view;
	size_t shown = v->n_culprits < rows ? v->n_culprits : rows, i;
	char task[TASK_TEXT_LEN], cls[32], last[96];

	table__title(s, "TOP CULPRITS", shown, v->n_culprits + v->more_culprits - shown);
	if (!shown)
		return;
	table__header(s, "TASK", "ROLE", "STATE, CLASS");
	for (i = 0; i < shown; i++) {
		const struct top_row *r = &v->culprits[i];
		struct top_line *l = screen__line(s, TOP_LINE_TEXT);

		cell(s, l, task_text(&r->task, &r->rename, task, sizeof(task)), s->w->task, false);
		cell(s, l, r->role == TOP_ROLE_HOLDER ? "holder" : "preemptor", s->w->lock, false);
		table__counts(s, l, r);
		if (r->role == TOP_ROLE_HOLDER)
			snprintf(last, sizeof(last), "%s, %s", state_text(r->state),
				 class_text(&r->task, cls, sizeof(cls)));
		else
			snprintf(last, sizeof(last), "%s", class_text(&r->task, cls, sizeof(cls)));
		cell(s, l, last, 0, false);
	}
}

static const char *const help_text[] = {
	"KEYS",
	"  q          quit (Ctrl-C too)",
	"  p, space   pause the display (tracing goes on)",
	"  s          sort by: time in the last interval, time since start,",
	"             stalls since start, longest single wait",
	"  f          filter by process: a PID, or a part of a command name",
	"  c          filter by cgroup: a cgroup v2 path, e.g. /system.slice",
	"             (an empty answer clears a filter)",
	"  h, ?       this help; any key goes back",
	"",
	"STALLS IN PROGRESS: waits that have not ended: how long so far, who",
	"waits, on which lock, who holds it, what the holder is doing, and who",
	"runs instead of it.  VICTIMS: the tasks that waited.  CULPRITS: the",
	"first holder of each stall (its lock wait) and the tasks that ran",
	"while a holder waited for its CPU (that time).",
};

static void screen__help(struct screen *s)
{
	size_t i;

	for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++) {
		struct top_line *l = screen__line(s, i ? TOP_LINE_TEXT : TOP_LINE_TITLE);

		cell(s, l, help_text[i], 0, false);
	}
}

/* Rows for each table: what it needs, or a fair share of what is left. */
static void screen__budget(const struct top_view *v, size_t avail, size_t *pend, size_t *vic,
			   size_t *cul)
{
	size_t need_v = v->n_victims, need_c = v->n_culprits, fixed;

	*pend = v->n_pending;
	if (*pend && *pend + 2 > avail / 2)
		*pend = avail / 2 > 2 ? avail / 2 - 2 : 1;
	fixed = (v->n_pending ? *pend + 2 : 1) + 4;
	avail = avail > fixed ? avail - fixed : 0;
	if (need_v + need_c <= avail) {
		*vic = need_v;
		*cul = need_c;
		return;
	}
	*vic = need_v < avail / 2 ? need_v : need_c < avail / 2 ? avail - need_c : avail / 2;
	*cul = avail - *vic;
}

static const char *const keys_text = "q quit  p pause  s sort  f process  c cgroup  h help";

size_t top_screen__render(const struct top_screen_in *in, unsigned int cols, unsigned int rows,
			  struct top_line *out, size_t max)
{
	struct screen s = {
		.in = in,
		.w = cols >= TOP_WIDE_COLS || !cols ? &wide : &narrow,
		.cols = cols && cols < TOP_LINE_MAX ? cols : TOP_LINE_MAX - 1,
		.out = out,
		.max = rows && rows < max ? rows : max,
	};
	size_t pend = (size_t)-1, vic = (size_t)-1, cul = (size_t)-1, i;
	char *p;

	if (rows && !in->batch)
		s.max--;	/* the footer's */
	screen__status(&s);
	if (in->help) {
		screen__help(&s);
	} else {
		if (rows)
			screen__budget(in->view, s.max - s.n, &pend, &vic, &cul);
		screen__pending(&s, pend);
		screen__victims(&s, vic);
		screen__culprits(&s, cul);
	}
	if (!in->batch) {
		s.max = max;
		if (rows && rows < max)
			while (s.n < rows - 1)
				screen__line(&s, TOP_LINE_TEXT);
		cell(&s, screen__line(&s, TOP_LINE_FOOTER), in->footer ? in->footer : keys_text, 0,
		     false);
	}
	for (i = 0; i < s.n; i++) {
		for (p = out[i].text; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				*p = '?';
		/* the cells' separators, at the end of a line */
		while (p > out[i].text && p[-1] == ' ')
			*--p = '\0';
	}
	return s.n;
}
