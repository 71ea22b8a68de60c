// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Markdown report: to paste into a postmortem or a ticket.  Header,
 * top culprits, the worst stalls with their chains, histograms; written
 * at the summary from the run's report model (report_model.h).
 *
 * Every string from the traced system goes through rm_md_name() or rm_md_text():
 * a code span when that is safe, else markup characters as entities and
 * the other active ones backslash-escaped, so a comm cannot open a link,
 * an HTML tag, a code span or a table cell.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/report_model.h"
#include "sinks/sink_common.h"
#include "util.h"

#define MD_BAR_WIDTH	30
#define MD_MAX_HOLDERS	4	/* per stall shown; the rest counted */

struct md_sink {
	struct sink base;
	const struct report_meta *meta;
	struct report_model m;
	int err;		/* the model's, kept for the summary */
	struct stack_seen seen;	/* stacks printed in full, by stall */
};

/*
 * Printable text (already through ls_comm_text), Markdown-escaped for
 * inline use (never at a line's start, where - + # . would matter too):
 * markup characters as entities, so not even the raw text has a tag in
 * it, the other active ones backslash-escaped.
 */
void rm_md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (strchr("\\`*_[]|~!", *s))
			fprintf(f, "\\%c", *s);
		else
			putc(*s, f);
	}
}

/* Recording metadata: made printable first (any bytes may be in it). */
static void md_meta(FILE *f, const char *v)
{
	char part[LS_COMM_LEN], buf[LS_COMM_TEXT_LEN];
	size_t off = 0, n;

	if (!v) {
		fputs("?", f);
		return;
	}
	while (v[off] && off < 256) {
		n = strnlen(v + off, sizeof(part));
		memset(part, 0, sizeof(part));
		memcpy(part, v + off, n);
		rm_md_text(f, ls_comm_text(part, buf, sizeof(buf)));
		off += n;
	}
}

/*
 * A name from the trace as a code span, which shows it verbatim; escaped
 * text instead when it has a backtick (it would end the span), a pipe (it
 * would end a table cell, even in a span) or markup characters (a renderer
 * that is not CommonMark may not keep spans literal).
 */
void rm_md_name(FILE *f, const char *s)
{
	if (strpbrk(s, "`|<>&")) {
		rm_md_text(f, s);
		return;
	}
	fprintf(f, "`%s`", s);
}

/* A task st names, with its other name where it changed. */
static void md_task(FILE *f, const struct ls_stall *st, const struct ls_task *t)
{
	char buf[RM_TASK_LEN];

	rm_md_name(f, rm_stall_task(st, t, buf, sizeof(buf)));
}

static void md_dur(FILE *f, __u64 ns)
{
	char buf[32];

	fputs(ls_format_duration(ns, buf, sizeof(buf)), f);
}

static void md_header(struct md_sink *m, const struct ls_summary *sum)
{
	const struct report_meta *meta = m->meta;
	FILE *f = m->base.out;
	char a[64], b[64];
	unsigned int v;

	fputs("# lockstall report", f);
	if (meta->input) {
		fputs(": ", f);
		md_meta(f, meta->input);
	}
	fputs("\n\n| | |\n|---|---|\n| Host | ", f);
	md_meta(f, meta->host);
	fputs(" |\n| Kernel | Linux ", f);
	md_meta(f, meta->kernel);
	fprintf(f, " |\n| CPUs | %llu |\n| Recorded | %s to %s (", (unsigned long long)meta->cpus,
		rm_when(meta, sum->start_ns, sum->start_ns, true, a, sizeof(a)),
		rm_when(meta, sum->end_ns, sum->start_ns, true, b, sizeof(b)));
	md_dur(f, sum->duration_ns);
	fputs(") |\n| Threshold | ", f);
	md_dur(f, meta->threshold_ns);
	fprintf(f, " |\n| Records | %llu received, %llu lost, %llu malformed |\n| Stalls | %llu:",
		(unsigned long long)sum->events, (unsigned long long)sum->lost_events,
		(unsigned long long)sum->bad_records, (unsigned long long)sum->stalls);
	for (v = 0; v < LS_VERDICT_N; v++)
		if (sink__verdict_listed(sum, v))
			fprintf(f, "%s %s %llu", v ? "," : "", ls_verdict_text(v),
			(unsigned long long)sum->stalls_by_verdict[v]);
	fputs(" |\n| Recorded by | lockstall ", f);
	md_meta(f, meta->version);
	fputs(" |\n\n", f);
	if (sum->lost_events)
		fprintf(f, "> **Warning:** %llu records were lost (ring buffer full, or runs the kernel skipped): stalls in those spans are marked unknown.\n\n",
			(unsigned long long)sum->lost_events);
}

static void md_table(FILE *f, const struct rm_table *t, const char *who, const char *what)
{
	char sched[64], buf[RM_TASK_LEN];
	unsigned int i;

	if (!t->n) {
		fputs("None: no stalls.\n\n", f);
		return;
	}
	fprintf(f, "| # | %s | Scheduling | Stalls | %s |\n|---:|---|---|---:|---:|\n", who, what);
	for (i = 0; i < t->n && i < RM_SHOW_TASKS; i++) {
		fprintf(f, "| %u | ", i + 1);
		rm_md_name(f, rm_culprit_task(&t->v[i], buf, sizeof(buf)));
		fprintf(f, " | %s | %llu | ", sink__sched_text(&t->v[i].task, sched, sizeof(sched)),
			(unsigned long long)t->v[i].stalls);
		md_dur(f, t->v[i].ns);
		fputs(" |\n", f);
	}
	if (t->n > RM_SHOW_TASKS || t->others) {
		__u64 ns = t->other_ns, stalls = t->others;

		for (; i < t->n; i++) {
			ns += t->v[i].ns;
			stalls += t->v[i].stalls;
		}
		fprintf(f, "| | others | | %llu | ", (unsigned long long)stalls);
		md_dur(f, ns);
		fputs(" |\n", f);
	}
	fputs("\n", f);
}

/*
 * A stack as a fenced block under its list item, innermost first; one
 * line when a stall printed before has the same frames.  Backticks in
 * names (never in real ones) are replaced so they cannot close the fence.
 */
static void md_stack(struct md_sink *m, const struct ls_frames *fr, __u64 seq, const char *indent)
{
	FILE *f = m->base.out;
	char buf[512], *p;
	__u64 first;
	unsigned int i;

	if (!fr)
		return;
	first = stack_seen__check(&m->seen, fr->digest, seq);
	if (first && first != seq) {
		fprintf(f, "%s- Stack: same as stall #%llu\n", indent, (unsigned long long)first);
		return;
	}
	fprintf(f, "%s- Stack (user frames: %s)", indent, fr->user_method);
	if (fr->note) {
		fputs(": ", f);
		rm_md_text(f, fr->note);
	}
	fprintf(f, "\n\n%s  ```\n", indent);
	for (i = 0; i < fr->n; i++) {
		if (i == fr->n_kernel && i)
			fprintf(f, "%s  --\n", indent);
		sink__frame_text(&fr->v[i], buf, sizeof(buf));
		for (p = buf; *p; p++)
			if (*p == '`' || *p == '\n')
				*p = '\'';
		fprintf(f, "%s  %s\n", indent, buf);
	}
	fprintf(f, "%s  ```\n\n", indent);
}

/* What the kernel said kept the holder from going on: the time by cause, and why. */
static void md_causes(FILE *f, const struct ls_holder *h)
{
	char why[SINK_CAUSE_TEXT_LEN];
	unsigned int c;

	for (c = LS_CAUSE_NONE + 1; c < LS_CAUSE_N; c++) {
		if (!h->cause_ns[c])
			continue;
		fprintf(f, "  - %s ", ls_cause_name(c));
		md_dur(f, h->cause_ns[c]);
		if (sink__cause_text(h, c, why, sizeof(why))) {
			fputs(": ", f);
			rm_md_text(f, why);
		}
		fputs("\n", f);
	}
}

/* " (cgroup /a/b)" (a path worth printing, sink__holder_cgroup()); NULL: nothing. */
static void md_cgroup(FILE *f, const char *path)
{
	if (!path)
		return;
	fputs(" (cgroup ", f);
	rm_md_text(f, path);
	fputs(")", f);
}

static void md_holder(struct md_sink *m, const struct ls_stall *st, const struct ls_holder *h)
{
	__u64 lock_wait_ns = st->lock_wait_ns, seq = st->seq;
	FILE *f = m->base.out;
	char op[32], sched[64], state[32], what[RM_WAITED_LEN];
	unsigned int k;

	fputs("- Holder ", f);
	md_task(f, st, &h->task);
	fprintf(f, " (%s): %s lock in %s, held ", sink__sched_text(&h->task, sched, sizeof(sched)),
		h->write ? "write" : "read", ls_op_name(&h->op, op, sizeof(op)));
	md_dur(f, h->held_ns);
	fputs(", off CPU ", f);
	md_dur(f, h->offcpu_ns);
	fprintf(f, " (%u%%): %s", rm_pct(h->offcpu_ns, lock_wait_ns),
		sink__words(ls_state_name(h->state), false, state, sizeof(state)));
	if (h->unseen_ns) {
		fputs(", not seen ", f);
		md_dur(f, h->unseen_ns);
	}
	md_cgroup(f, sink__holder_cgroup(st, h));
	fputs("\n", f);
	for (k = 0; k < h->n_preempted_by; k++) {
		fputs("  - preempted by ", f);
		md_task(f, st, &h->preempted_by[k].task);
		fputs(" for ", f);
		md_dur(f, h->preempted_by[k].ns);
		md_cgroup(f, sink__preemptor_cgroup(st, h, &h->preempted_by[k]));
		fputs("\n", f);
	}
	for (k = 0; k < h->n_waited && k < LS_MAX_WAITED; k++) {
		fputs("  - waited ", f);
		md_dur(f, h->waited[k].ns);
		fputs(" ", f);
		rm_md_text(f, rm_waited_text(st, &h->waited[k], what, sizeof(what)));
		fputs("\n", f);
	}
	if (h->has_waker) {
		fputs("  - woken by ", f);
		md_task(f, st, &h->woken_by);
		fputs("\n", f);
	}
	md_causes(f, h);
	md_stack(m, h->frames, seq, "  ");
}

static void md_chain(FILE *f, const struct ls_stall *st)
{
	char buf[RM_TASK_LEN], role[32], lock[160];
	const struct ls_hop *hop;
	unsigned int i;

	fputs("- Chain: ", f);
	for (i = 0; i < st->n_chain; i++) {
		hop = &st->chain[i];
		if (i)
			fputs(" ← ", f);
		rm_md_name(f, rm_hop_task(st, &hop->task, buf, sizeof(buf)));
		fprintf(f, " (%s", sink__words(ls_role_name(hop->role), false, role, sizeof(role)));
		if (hop->role <= LS_ROLE_HOLDER)
			fprintf(f, ", %s", hop->write ? "write" : "read");
		if (hop->ns) {
			fputs(", ", f);
			md_dur(f, hop->ns);
		}
		if (hop->stall_seq) {
			fputs(", of ", f);
			rm_md_text(f, sink__hop_lock_text(hop, lock, sizeof(lock)));
			fputs(", waited ", f);
			md_dur(f, hop->wait_ns);
			fprintf(f, ", STALL #%llu", (unsigned long long)hop->stall_seq);
		}
		fputs(")", f);
	}
	fputs("\n", f);
}

static void md_stall(struct md_sink *m, unsigned int n, const struct ls_stall *st, __u64 t0)
{
	FILE *f = m->base.out;
	char when[64], rel[32], op[32], sched[64], lock[600];
	unsigned int i;

	if (st->pending)
		fprintf(f, "### %u. Still waiting at exit: ", n);
	else
		fprintf(f, "### %u. Stall #%llu: ", n, (unsigned long long)st->seq);
	if (st->began_before)
		fputs("at least ", f);
	md_dur(f, st->lock_wait_ns);
	if (st->pending)
		fputs(" so far", f);
	fputs(sink__start_unknown(st->began_before, st->found_late), f);
	fprintf(f, " for %s %s, %s\n\n", ls_lock_kind_name(st->lock.kind),
		st->write ? "write" : "read", ls_verdict_text(st->verdict));
	fprintf(f, "- When: %s (%s into the run)\n",
		rm_when(m->meta, st->start_ns, t0, true, when, sizeof(when)),
		rm_when(NULL, st->start_ns, t0, false, rel, sizeof(rel)));
	/* a futex or kernel lock: which one (mmap_lock's mm is in the title's process) */
	if (st->lock.kind != LS_LOCK_MMAP) {
		fputs("- Lock: ", f);
		rm_md_text(f, sink__stall_lock_text(st, lock, sizeof(lock)));
		fputc('\n', f);
	}
	fputs("- Waiter ", f);
	md_task(f, st, &st->waiter);
	fprintf(f, " (%s): %s%s, waited ", sink__sched_text(&st->waiter, sched, sizeof(sched)),
		ls_op_name(&st->op, op, sizeof(op)),
		st->vma_lock_fallback ? " (per-VMA lock fallback)" : "");
	md_dur(f, st->wait_ns);
	if (st->run_delay_ns) {
		fputs(" (lock handed over after ", f);
		md_dur(f, st->lock_wait_ns);
		fputs(", then ", f);
		md_dur(f, st->run_delay_ns);
		fputs(" on the run queue)", f);
	}
	/* where the holders' and preemptors' cgroups are said, the waiter's is too */
	if (st->task_cgroups)
		md_cgroup(f, st->waiter_cgroup);
	fputs("\n", f);
	md_stack(m, st->waiter_frames, st->seq, "  ");
	for (i = 0; i < st->n_holders && i < MD_MAX_HOLDERS; i++)
		md_holder(m, st, &st->holders[i]);
	if (st->n_holders + st->holders_dropped > i)
		fprintf(f, "- and %u more holders\n", st->n_holders + st->holders_dropped - i);
	if (ls_unknown_reason_text(st->unknown_reason))
		fprintf(f, "- a cycle of waits, not known to be a deadlock: %s\n",
			ls_unknown_reason_text(st->unknown_reason));
	if (st->lost_in_window)
		fprintf(f, "- %llu events lost during this wait: the verdict is unknown\n",
			(unsigned long long)st->lost_in_window);
	md_chain(f, st);
	if (st->advice) {
		fputs("- Advice: ", f);
		rm_md_text(f, st->advice);
		fputs("\n", f);
	}
	fputs("\n", f);
}

void rm_md_hist(void *ctx, const struct rm_hist *m)
{
	FILE *f = ctx;
	const struct ls_hist *h = m->h;
	unsigned int i, k, bars;

	fprintf(f, "#### %s, ", m->title);
	rm_md_text(f, m->lock);
	fprintf(f, "%s, ", m->mode);
	if (m->view->processes > 1 && m->view->exited < m->view->processes) {
		rm_md_name(f, m->comm);
		fprintf(f, " (%u processes)", m->view->processes);
	} else {
		rm_md_name(f, m->who);
	}
	fputs("\n\n", f);
	if (m->any) {
		fputs("| usecs | count | distribution (log scale) |\n|---:|---:|---|\n", f);
		for (i = m->first; i <= m->last; i++) {
			fprintf(f, "| %llu -> %llu | %llu | ", (unsigned long long)rm_slot_lo(i),
				(unsigned long long)rm_slot_hi(i), (unsigned long long)h->slots[i]);
			bars = sink__bar_len(h->slots[i], m->max, MD_BAR_WIDTH);
			for (k = 0; k < bars; k++)
				fputs("█", f);
			fputs(" |\n", f);
		}
		fputs("\n", f);
	}
	fprintf(f, "%llu %s, total ", (unsigned long long)h->count, rm_count_noun(m->kind, h->count));
	md_dur(f, h->sum_ns);
	fputs(", avg ", f);
	md_dur(f, m->avg_ns);
	fputs("\n\n", f);
}

static void md_hists_more(void *ctx, const char *text)
{
	fprintf(ctx, "%s\n\n", text);
}

static int md_hists(struct md_sink *m, const struct ls_hist_set *set)
{
	fputs("## Histograms\n\n", m->base.out);
	return rm_hists__each(set, &m->base.opts, rm_md_hist, md_hists_more, m->base.out);
}

static int md__stall(struct sink *s, const struct ls_stall *st)
{
	struct md_sink *m = (struct md_sink *)s;
	int err = report_model__stall(&m->m, st);

	if (err && !m->err)
		m->err = err;
	return 0;
}

static int md__summary(struct sink *s, const struct ls_summary *sum)
{
	struct md_sink *m = (struct md_sink *)s;
	FILE *f = s->out;
	unsigned int i;
	int err = 0;

	report_model__finish(&m->m);
	md_header(m, sum);
	fputs("## Top culprits\n\n### Holders, by the lock wait they caused\n\n", f);
	md_table(f, &m->m.holders, "Holder", "Lock wait");
	fputs("### Preemptors, by the holder off-CPU time they caused\n\n", f);
	md_table(f, &m->m.preemptors, "Preemptor", "Off-CPU time");
	fprintf(f, "## Worst stalls\n\n");
	if (!m->m.n_worst)
		fputs("No stalls.\n\n", f);
	for (i = 0; i < m->m.n_worst; i++)
		md_stall(m, i + 1, &m->m.worst[i].st, sum->start_ns);
	if (m->m.stalls > m->m.n_worst)
		fprintf(f, "and %llu shorter stalls (`--format text` lists them all)\n\n",
			(unsigned long long)(m->m.stalls - m->m.n_worst));
	if (m->m.n_open)
		fputs("## Waits still open at exit\n\n", f);
	for (i = 0; i < m->m.n_open; i++)
		md_stall(m, i + 1, &m->m.open[i].st, sum->start_ns);
	if (m->m.open_dropped)
		fprintf(f, "and %llu more\n\n", (unsigned long long)m->m.open_dropped);
	if (sum->hists)
		err = md_hists(m, sum->hists);
	if (!err && m->err)
		fputs("> **Warning:** out of memory: some stalls are missing from this report.\n", f);
	return err ?: sink__flush(f);
}

static void md__free(struct sink *s)
{
	struct md_sink *m = (struct md_sink *)s;

	report_model__free(&m->m);
	free(m);
}

static const struct sink_ops md_ops = {
	.name = "markdown",
	.stall = md__stall,
	.summary = md__summary,
	.free = md__free,
};

struct sink *sink_markdown__new(FILE *out, const struct sink_opts *opts,
				const struct report_meta *meta)
{
	struct md_sink *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->base.ops = &md_ops;
	m->base.out = out;
	m->base.opts = *opts;
	m->meta = meta;
	return &m->base;
}
