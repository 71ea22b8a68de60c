// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The HTML report: one self-contained page (inline CSS and SVG, no script,
 * no font, no network; a Content-Security-Policy that forbids them too)
 * with what the Markdown report says, log2 histograms as bar charts, and
 * per worst stall a timeline: the waiter's wait, each holder's hold with
 * its off-CPU spells coloured by state, and who ran instead.
 *
 * Every string from the traced system (comm, metadata) goes through
 * rm_html_text(): a process named "<script>" shows as text and runs nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/report_model.h"
#include "sinks/sink_common.h"
#include "util.h"

#define TL_WIDTH	960	/* timeline SVG */
#define TL_LABEL	200	/* left column: who */
#define TL_ROW		34
#define TL_MAX_HOLDERS	8
#define HG_WIDTH	640	/* histogram SVG */
#define HG_HEIGHT	150

struct html_sink {
	struct sink base;
	const struct report_meta *meta;
	struct report_model m;
	int err;
};

/*
 * Text for HTML, in elements and in quoted attributes: the five markup
 * characters as entities, control bytes, DEL and bytes >= 0x80 as \xNN.
 * At most maxlen bytes, up to the first NUL.
 */
void rm_html_text(FILE *f, const char *s, size_t maxlen)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	for (i = 0; s && i < maxlen && p[i]; i++) {
		switch (p[i]) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if (p[i] < 0x20 || p[i] >= 0x7f)
				fprintf(f, "\\x%c%c", hex[p[i] >> 4], hex[p[i] & 0xf]);
			else
				putc(p[i], f);
		}
	}
}

/* A task st names, with its other name where it changed (st NULL: none). */
static void html_task(FILE *f, const struct ls_stall *st, const struct ls_task *t)
{
	char buf[RM_TASK_LEN];

	if (st)
		rm_stall_task(st, t, buf, sizeof(buf));
	else
		rm_task(t, NULL, buf, sizeof(buf));
	rm_html_text(f, buf, sizeof(buf));
}

static void html_comm(FILE *f, const struct ls_task *t)
{
	char buf[LS_COMM_TEXT_LEN];

	if (!sink__unseen_text(t, buf, sizeof(buf)))
		ls_comm_text(t->comm, buf, sizeof(buf));
	rm_html_text(f, buf, sizeof(buf));
}

static void html_dur(FILE *f, __u64 ns)
{
	char buf[32];

	fputs(ls_format_duration(ns, buf, sizeof(buf)), f);
}

const char rm_html_style[] =
"body{font-family:sans-serif;margin:2em auto;max-width:1000px;color:#222;line-height:1.4}\n"
"h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1.1em;margin-bottom:.3em}\n"
"table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}\n"
"th{background:#f3f3f3}td.n{text-align:right}.warn{background:#fff3cd;border:1px solid #e0c060;padding:.5em}\n"
".verdict-priority_inversion{color:#b00020;font-weight:bold}.verdict-holder_off_cpu{color:#a05000;font-weight:bold}\n"
".verdict-contention{color:#2060a0;font-weight:bold}.verdict-unknown{color:#666;font-weight:bold}\n"
"svg{display:block;margin:.5em 0}svg text{font-family:sans-serif;font-size:12px}\n"
"ul{margin:.3em 0}.stall{border:1px solid #ddd;border-radius:4px;padding:0 1em 1em;margin:1em 0}\n"
".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}\n"
".stacks{display:flex;flex-wrap:wrap;gap:.5em 1.5em;margin:.3em 0}.stacks details{flex:1 1 45%;min-width:300px}\n"
".stacks pre{font-size:11px;background:#f8f8f8;border:1px solid #eee;padding:.4em;margin:.2em 0;overflow-x:auto}\n";

static const char *state_color(enum ls_holder_state s)
{
	switch (s) {
	case LS_STATE_PREEMPTED:
		return "#d62728";
	case LS_STATE_BLOCKED:
		return "#1f77b4";
	case LS_STATE_GRANTED_NOT_RUNNING:
		return "#9467bd";
	default:
		return "#2ca02c";
	}
}

static void html_header(struct html_sink *h, const struct ls_summary *sum)
{
	const struct report_meta *meta = h->meta;
	FILE *f = h->base.out;
	char a[64], b[64];
	unsigned int v;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<title>lockstall report", f);
	if (meta->input) {
		fputs(": ", f);
		rm_html_text(f, meta->input, 256);
	}
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>lockstall report", rm_html_style);
	if (meta->input) {
		fputs(": ", f);
		rm_html_text(f, meta->input, 256);
	}
	fputs("</h1>\n<table class=\"meta\">\n<tr><th>Host</th><td>", f);
	rm_html_text(f, meta->host ? meta->host : "?", 256);
	fputs("</td></tr>\n<tr><th>Kernel</th><td>Linux ", f);
	rm_html_text(f, meta->kernel ? meta->kernel : "?", 256);
	fprintf(f, "</td></tr>\n<tr><th>CPUs</th><td>%llu</td></tr>\n<tr><th>Recorded</th><td>%s to %s (",
		(unsigned long long)meta->cpus,
		rm_when(meta, sum->start_ns, sum->start_ns, true, a, sizeof(a)),
		rm_when(meta, sum->end_ns, sum->start_ns, true, b, sizeof(b)));
	html_dur(f, sum->duration_ns);
	fputs(")</td></tr>\n<tr><th>Threshold</th><td>", f);
	html_dur(f, meta->threshold_ns);
	fprintf(f, "</td></tr>\n<tr><th>Records</th><td>%llu received, %llu lost, %llu malformed</td></tr>\n"
		"<tr><th>Stalls</th><td>%llu:", (unsigned long long)sum->events,
		(unsigned long long)sum->lost_events, (unsigned long long)sum->bad_records,
		(unsigned long long)sum->stalls);
	for (v = 0; v < LS_VERDICT_N; v++)
		if (sink__verdict_listed(sum, v))
			fprintf(f, "%s <span class=\"verdict-%s\">%s</span> %llu", v ? "," : "",
				ls_verdict_name(v), ls_verdict_text(v),
			(unsigned long long)sum->stalls_by_verdict[v]);
	fputs("</td></tr>\n<tr><th>Recorded by</th><td>lockstall ", f);
	rm_html_text(f, meta->version ? meta->version : "?", 256);
	fputs("</td></tr>\n</table>\n", f);
	if (sum->lost_events)
		fprintf(f, "<p class=\"warn\"><b>Warning:</b> %llu records were lost (ring buffer full, or runs the kernel skipped): stalls in those spans are marked unknown.</p>\n",
			(unsigned long long)sum->lost_events);
}

static void html_table(FILE *f, const struct rm_table *t, const char *who, const char *what)
{
	char sched[64], buf[RM_TASK_LEN];
	unsigned int i;
	__u64 ns, stalls;

	if (!t->n) {
		fputs("<p>None: no stalls.</p>\n", f);
		return;
	}
	fprintf(f, "<table>\n<tr><th>#</th><th>%s</th><th>Scheduling</th><th>Stalls</th><th>%s</th></tr>\n",
		who, what);
	for (i = 0; i < t->n && i < RM_SHOW_TASKS; i++) {
		fprintf(f, "<tr><td class=\"n\">%u</td><td>", i + 1);
		rm_html_text(f, rm_culprit_task(&t->v[i], buf, sizeof(buf)), sizeof(buf));
		fprintf(f, "</td><td>%s</td><td class=\"n\">%llu</td><td class=\"n\">",
			sink__sched_text(&t->v[i].task, sched, sizeof(sched)),
			(unsigned long long)t->v[i].stalls);
		html_dur(f, t->v[i].ns);
		fputs("</td></tr>\n", f);
	}
	if (t->n > RM_SHOW_TASKS || t->others) {
		ns = t->other_ns;
		stalls = t->others;
		for (; i < t->n; i++) {
			ns += t->v[i].ns;
			stalls += t->v[i].stalls;
		}
		fprintf(f, "<tr><td></td><td>others</td><td></td><td class=\"n\">%llu</td><td class=\"n\">",
			(unsigned long long)stalls);
		html_dur(f, ns);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The timeline's x for time ts: [lo, hi) onto [TL_LABEL, TL_WIDTH - 10). */
static double tl_x(__u64 ts, __u64 lo, __u64 hi)
{
	if (ts < lo)
		ts = lo;
	if (ts > hi)
		ts = hi;
	return TL_LABEL + (double)(ts - lo) * (TL_WIDTH - 10 - TL_LABEL) / (double)(hi - lo);
}

/* One band of a row, with a tooltip; label drawn inside when it fits. */
static void tl_band(FILE *f, double x0, double x1, int y, const char *color, const char *tip,
		    const struct ls_stall *st, const struct ls_task *ran)
{
	double w = x1 - x0 < 1 ? 1 : x1 - x0;

	fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s",
		x0, y, w, TL_ROW - 12, color, tip);
	if (ran && ran->tid) {
		fputs(": ", f);
		html_task(f, st, ran);
		fputs(" ran instead", f);
	}
	fputs("</title></rect>\n", f);
	if (ran && ran->tid && w >= 50) {
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"#fff\">", x0 + 3, y + TL_ROW / 2);
		html_comm(f, ran);
		fputs("</text>\n", f);
	}
}

static void html_timeline(FILE *f, const struct ls_stall *st)
{
	const unsigned int n = st->n_holders < TL_MAX_HOLDERS ? st->n_holders : TL_MAX_HOLDERS;
	const __u64 pad = st->wait_ns / 20 + 1;
	const __u64 lo = st->start_ns > pad ? st->start_ns - pad : 0, hi = st->end_ns + pad;
	const struct ls_holder *h;
	const struct ls_spell *sp;
	unsigned int i, k, tick;
	char tip[64], state[32];
	int y, height = (int)(n + 1) * TL_ROW + 40;
	__u64 lock_end = st->start_ns + st->lock_wait_ns;

	fprintf(f, "<svg class=\"timeline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n",
		TL_WIDTH, height, TL_WIDTH, height);
	/* time axis: from the wait's start */
	for (tick = 0; tick <= 4; tick++) {
		__u64 ts = st->start_ns + st->wait_ns * tick / 4;
		double x = tl_x(ts, lo, hi);

		fprintf(f, "<line x1=\"%.1f\" y1=\"4\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>\n"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">+",
			x, x, height - 20, x, height - 6);
		html_dur(f, ts - st->start_ns);
		fputs("</text>\n", f);
	}
	/* the waiter */
	y = 6;
	fprintf(f, "<text x=\"4\" y=\"%d\">waiter ", y + TL_ROW / 2);
	html_comm(f, &st->waiter);
	fprintf(f, "/%u</text>\n", st->waiter.tid);
	snprintf(tip, sizeof(tip), "waiting for %s (%s)", ls_lock_kind_name(st->lock.kind),
		 st->write ? "write" : "read");
	tl_band(f, tl_x(st->start_ns, lo, hi), tl_x(lock_end, lo, hi), y, "#ff7f0e", tip, st, NULL);
	if (st->run_delay_ns)
		tl_band(f, tl_x(lock_end, lo, hi), tl_x(st->end_ns, lo, hi), y, "#f2c744",
			"lock handed over, waiting for a CPU", st, NULL);
	/* each holder: held (on CPU) underneath, its off-CPU spells on top */
	for (i = 0; i < n; i++) {
		h = &st->holders[i];
		y = 6 + (int)(i + 1) * TL_ROW;
		fprintf(f, "<text x=\"4\" y=\"%d\">holder ", y + TL_ROW / 2);
		html_comm(f, &h->task);
		fprintf(f, "/%u</text>\n", h->task.tid);
		snprintf(tip, sizeof(tip), "holding %s (%s), on CPU",
			 ls_lock_kind_name(st->lock.kind), h->write ? "write" : "read");
		tl_band(f, tl_x(h->hold_start_ns, lo, hi), tl_x(h->hold_end_ns, lo, hi), y,
			"#98df8a", tip, st, NULL);
		for (k = 0; k < h->n_spells && k < LS_MAX_SPELLS; k++) {
			sp = &h->spells[k];
			snprintf(tip, sizeof(tip), "off CPU while holding: %s",
				 sink__words(ls_state_name(sp->state), false, state, sizeof(state)));
			tl_band(f, tl_x(sp->start_ns, lo, hi), tl_x(sp->end_ns, lo, hi), y,
				state_color(sp->state), tip, st, &sp->ran_instead);
		}
	}
	fputs("</svg>\n<div class=\"legend\"><span style=\"background:#ff7f0e\"></span>waiting for the lock"
	      "<span style=\"background:#f2c744\"></span>handed over, run queue"
	      "<span style=\"background:#98df8a\"></span>holding, on CPU"
	      "<span style=\"background:#d62728\"></span>preempted"
	      "<span style=\"background:#1f77b4\"></span>blocked"
	      "<span style=\"background:#9467bd\"></span>granted, not running</div>\n", f);
}

/* What the kernel said kept the holder from going on: the time by cause, and why. */
static void html_causes(FILE *f, const struct ls_holder *h)
{
	char why[SINK_CAUSE_TEXT_LEN];
	unsigned int c;

	for (c = LS_CAUSE_NONE + 1; c < LS_CAUSE_N; c++) {
		if (!h->cause_ns[c])
			continue;
		fprintf(f, "; %s ", ls_cause_name(c));
		html_dur(f, h->cause_ns[c]);
		if (sink__cause_text(h, c, why, sizeof(why))) {
			fputs(": ", f);
			rm_html_text(f, why, sizeof(why));
		}
	}
}

/* " (cgroup <code>/a/b</code>)" (a path worth printing, sink__holder_cgroup()); NULL: nothing. */
static void html_cgroup(FILE *f, const char *path)
{
	if (!path)
		return;
	fputs(" (cgroup <code>", f);
	rm_html_text(f, path, (size_t)-1);
	fputs("</code>)", f);
}

static void html_holder(FILE *f, const struct ls_stall *st, const struct ls_holder *h)
{
	__u64 lock_wait_ns = st->lock_wait_ns;
	char op[32], sched[64], state[32], what[RM_WAITED_LEN];
	unsigned int k;

	fputs("<li>holder <b>", f);
	html_task(f, st, &h->task);
	fprintf(f, "</b> (%s): %s lock in %s, held ", sink__sched_text(&h->task, sched, sizeof(sched)),
		h->write ? "write" : "read", ls_op_name(&h->op, op, sizeof(op)));
	html_dur(f, h->held_ns);
	fputs(", off CPU ", f);
	html_dur(f, h->offcpu_ns);
	fprintf(f, " (%u%%): %s", rm_pct(h->offcpu_ns, lock_wait_ns),
		sink__words(ls_state_name(h->state), false, state, sizeof(state)));
	if (h->unseen_ns) {
		fputs(", not seen ", f);
		html_dur(f, h->unseen_ns);
	}
	html_cgroup(f, sink__holder_cgroup(st, h));
	for (k = 0; k < h->n_preempted_by; k++) {
		fputs(k ? ", " : "; preempted by ", f);
		html_task(f, st, &h->preempted_by[k].task);
		fputs(" ", f);
		html_dur(f, h->preempted_by[k].ns);
		html_cgroup(f, sink__preemptor_cgroup(st, h, &h->preempted_by[k]));
	}
	for (k = 0; k < h->n_waited && k < LS_MAX_WAITED; k++) {
		fputs("; waited ", f);
		html_dur(f, h->waited[k].ns);
		fputs(" ", f);
		rm_html_text(f, rm_waited_text(st, &h->waited[k], what, sizeof(what)), sizeof(what));
	}
	if (h->has_waker) {
		fputs("; woken by ", f);
		html_task(f, st, &h->woken_by);
	}
	html_causes(f, h);
	fputs("</li>\n", f);
}

/* One task's stack, folded open, innermost first. */
static void html_stack(FILE *f, const char *role, const struct ls_stall *st,
		       const struct ls_task *t, const struct ls_frames *fr)
{
	char buf[512];
	unsigned int i;

	fprintf(f, "<details open><summary>%s <b>", role);
	html_task(f, st, t);
	fputs("</b> (user frames: ", f);
	rm_html_text(f, fr->user_method, (size_t)-1);
	fputs(")", f);
	if (fr->note) {
		fputs(": ", f);
		rm_html_text(f, fr->note, (size_t)-1);
	}
	fputs("</summary><pre>", f);
	for (i = 0; i < fr->n; i++) {
		if (i == fr->n_kernel && i)
			fputs("--\n", f);
		rm_html_text(f, sink__frame_text(&fr->v[i], buf, sizeof(buf)), sizeof(buf));
		fputs("\n", f);
	}
	fputs("</pre></details>\n", f);
}

/* Next to the timeline: where the waiter and the holders drawn in it were. */
static void html_stacks(FILE *f, const struct ls_stall *st)
{
	unsigned int i;
	bool any = st->waiter_frames;

	for (i = 0; i < st->n_holders && i < TL_MAX_HOLDERS; i++)
		any |= st->holders[i].frames != NULL;
	if (!any)
		return;
	fputs("<div class=\"stacks\">\n", f);
	if (st->waiter_frames)
		html_stack(f, "waiter", st, &st->waiter, st->waiter_frames);
	for (i = 0; i < st->n_holders && i < TL_MAX_HOLDERS; i++)
		if (st->holders[i].frames)
			html_stack(f, "holder", st, &st->holders[i].task, st->holders[i].frames);
	fputs("</div>\n", f);
}

/* "3. Stall #7: at least 2.1 s (began before tracing) for futex write, deadlock" */
static void html_stall_title(FILE *f, unsigned int n, const struct ls_stall *st)
{
	if (st->pending)
		fprintf(f, "<div class=\"stall\">\n<h3>%u. Still waiting at exit: ", n);
	else
		fprintf(f, "<div class=\"stall\">\n<h3>%u. Stall #%llu: ", n,
			(unsigned long long)st->seq);
	if (st->began_before)
		fputs("at least ", f);
	html_dur(f, st->lock_wait_ns);
	if (st->pending)
		fputs(" so far", f);
	fputs(sink__start_unknown(st->began_before, st->found_late), f);
	fprintf(f, " for %s %s, <span class=\"verdict-%s\">%s</span></h3>\n",
		ls_lock_kind_name(st->lock.kind), st->write ? "write" : "read",
		ls_verdict_name(st->verdict), ls_verdict_text(st->verdict));
}

static void html_stall(struct html_sink *hs, unsigned int n, const struct ls_stall *st, __u64 t0)
{
	FILE *f = hs->base.out;
	char when[64], rel[32], op[32], sched[64], role[32], lock[600];
	char who[RM_TASK_LEN];
	const struct ls_hop *hop;
	unsigned int i;

	html_stall_title(f, n, st);
	html_timeline(f, st);
	html_stacks(f, st);
	fprintf(f, "<ul>\n<li>%s (%s into the run)</li>\n",
		rm_when(hs->meta, st->start_ns, t0, true, when, sizeof(when)),
		rm_when(NULL, st->start_ns, t0, false, rel, sizeof(rel)));
	/* a futex or kernel lock: which one */
	if (st->lock.kind != LS_LOCK_MMAP) {
		fputs("<li>lock ", f);
		rm_html_text(f, sink__stall_lock_text(st, lock, sizeof(lock)), sizeof(lock));
		fputs("</li>\n", f);
	}
	fputs("<li>waiter <b>", f);
	html_task(f, st, &st->waiter);
	fprintf(f, "</b> (%s): %s%s, waited ", sink__sched_text(&st->waiter, sched, sizeof(sched)),
		ls_op_name(&st->op, op, sizeof(op)),
		st->vma_lock_fallback ? " (per-VMA lock fallback)" : "");
	html_dur(f, st->wait_ns);
	if (st->run_delay_ns) {
		fputs(" (handed over after ", f);
		html_dur(f, st->lock_wait_ns);
		fputs(", then ", f);
		html_dur(f, st->run_delay_ns);
		fputs(" on the run queue)", f);
	}
	/* where the holders' and preemptors' cgroups are said, the waiter's is too */
	if (st->task_cgroups)
		html_cgroup(f, st->waiter_cgroup);
	fputs("</li>\n", f);
	for (i = 0; i < st->n_holders && i < TL_MAX_HOLDERS; i++)
		html_holder(f, st, &st->holders[i]);
	if (st->n_holders + st->holders_dropped > i)
		fprintf(f, "<li>and %u more holders</li>\n", st->n_holders + st->holders_dropped - i);
	if (ls_unknown_reason_text(st->unknown_reason))
		fprintf(f, "<li>a cycle of waits, not known to be a deadlock: %s</li>\n",
			ls_unknown_reason_text(st->unknown_reason));
	if (st->lost_in_window)
		fprintf(f, "<li>%llu events lost during this wait: the verdict is unknown</li>\n",
			(unsigned long long)st->lost_in_window);
	fputs("<li>chain: ", f);
	for (i = 0; i < st->n_chain; i++) {
		hop = &st->chain[i];
		fputs(i ? " &larr; <b>" : "<b>", f);
		rm_html_text(f, rm_hop_task(st, &hop->task, who, sizeof(who)), sizeof(who));
		fprintf(f, "</b> (%s",
			sink__words(ls_role_name(hop->role), false, role, sizeof(role)));
		if (hop->role <= LS_ROLE_HOLDER)
			fprintf(f, ", %s", hop->write ? "write" : "read");
		if (hop->ns) {
			fputs(", ", f);
			html_dur(f, hop->ns);
		}
		if (hop->stall_seq) {
			fputs(", of ", f);
			rm_html_text(f, sink__hop_lock_text(hop, lock, sizeof(lock)), sizeof(lock));
			fputs(", waited ", f);
			html_dur(f, hop->wait_ns);
			fprintf(f, ", STALL #%llu", (unsigned long long)hop->stall_seq);
		}
		fputs(")", f);
	}
	fputs("</li>\n", f);
	if (st->advice) {
		fputs("<li>advice: ", f);
		rm_html_text(f, st->advice, (size_t)-1);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n</div>\n", f);
}

/* A log2 histogram as a bar chart: one bar per slot from the first to the last used. */
void rm_html_hist(void *ctx, const struct rm_hist *m)
{
	FILE *f = ctx;
	const struct ls_hist *h = m->h;
	unsigned int i, n;
	double bw, bh;

	fprintf(f, "<h3>%s, %s%s, ", m->title, m->lock, m->mode);
	rm_html_text(f, m->who, sizeof(m->who));
	fputs("</h3>\n", f);
	if (m->any) {
		n = m->last - m->first + 1;
		bw = (double)(HG_WIDTH - 20) / n;
		fprintf(f, "<svg class=\"hist\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n",
			HG_WIDTH, HG_HEIGHT + 40, HG_WIDTH, HG_HEIGHT + 40);
		fprintf(f, "<line x1=\"10\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n",
			HG_HEIGHT, HG_WIDTH - 10, HG_HEIGHT);
		for (i = m->first; i <= m->last; i++) {
			double x = 10 + (i - m->first) * bw;

			/* log-scaled, as in the text: the tail stays visible */
			bh = sink__bar_len(h->slots[i], m->max, HG_HEIGHT - 20);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4c78a8\"><title>",
				x + 2, HG_HEIGHT - bh, bw - 4, bh);
			html_dur(f, rm_slot_lo(i) * 1000);
			fputs(" to ", f);
			html_dur(f, rm_slot_hi(i) * 1000);
			fprintf(f, ": %llu</title></rect>\n", (unsigned long long)h->slots[i]);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%llu</text>\n",
				x + bw / 2, HG_HEIGHT - bh - 4, (unsigned long long)h->slots[i]);
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">&#8805;",
				x + bw / 2, HG_HEIGHT + 16);
			html_dur(f, rm_slot_lo(i) * 1000);
			fputs("</text>\n", f);
		}
		fputs("</svg>\n", f);
	}
	fprintf(f, "<p>%llu %s, total ", (unsigned long long)h->count, rm_count_noun(m->kind, h->count));
	html_dur(f, h->sum_ns);
	fputs(", avg ", f);
	html_dur(f, m->avg_ns);
	fputs("</p>\n", f);
}

static void html_hists_more(void *ctx, const char *text)
{
	fprintf(ctx, "<p>%s</p>\n", text);
}

static int html_hists(struct html_sink *hs, const struct ls_hist_set *set)
{
	fputs("<h2>Histograms</h2>\n<p>Bar heights are log-scaled, so that a few long waits stay "
	      "visible next to millions of short ones; the numbers above them are the counts.</p>\n",
	      hs->base.out);
	return rm_hists__each(set, &hs->base.opts, rm_html_hist, html_hists_more, hs->base.out);
}

static int html__stall(struct sink *s, const struct ls_stall *st)
{
	struct html_sink *h = (struct html_sink *)s;
	int err = report_model__stall(&h->m, st);

	if (err && !h->err)
		h->err = err;
	return 0;
}

static int html__summary(struct sink *s, const struct ls_summary *sum)
{
	struct html_sink *h = (struct html_sink *)s;
	FILE *f = s->out;
	unsigned int i;
	int err = 0;

	report_model__finish(&h->m);
	html_header(h, sum);
	fputs("<h2>Top culprits</h2>\n<h3>Holders, by the lock wait they caused</h3>\n", f);
	html_table(f, &h->m.holders, "Holder", "Lock wait");
	fputs("<h3>Preemptors, by the holder off-CPU time they caused</h3>\n", f);
	html_table(f, &h->m.preemptors, "Preemptor", "Off-CPU time");
	fputs("<h2>Worst stalls</h2>\n", f);
	if (!h->m.n_worst)
		fputs("<p>No stalls.</p>\n", f);
	for (i = 0; i < h->m.n_worst; i++)
		html_stall(h, i + 1, &h->m.worst[i].st, sum->start_ns);
	if (h->m.stalls > h->m.n_worst)
		fprintf(f, "<p>and %llu shorter stalls (--format text lists them all)</p>\n",
			(unsigned long long)(h->m.stalls - h->m.n_worst));
	if (h->m.n_open)
		fputs("<h2>Waits still open at exit</h2>\n", f);
	for (i = 0; i < h->m.n_open; i++)
		html_stall(h, i + 1, &h->m.open[i].st, sum->start_ns);
	if (h->m.open_dropped)
		fprintf(f, "<p>and %llu more</p>\n", (unsigned long long)h->m.open_dropped);
	if (sum->hists)
		err = html_hists(h, sum->hists);
	if (h->err)
		fputs("<p class=\"warn\">Out of memory: some stalls are missing from this report.</p>\n", f);
	fputs("</body>\n</html>\n", f);
	return err ?: sink__flush(f);
}

static void html__free(struct sink *s)
{
	struct html_sink *h = (struct html_sink *)s;

	report_model__free(&h->m);
	free(h);
}

static const struct sink_ops html_ops = {
	.name = "html",
	.stall = html__stall,
	.summary = html__summary,
	.free = html__free,
};

struct sink *sink_html__new(FILE *out, const struct sink_opts *opts, const struct report_meta *meta)
{
	struct html_sink *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->base.ops = &html_ops;
	h->base.out = out;
	h->base.opts = *opts;
	h->meta = meta;
	return &h->base;
}
