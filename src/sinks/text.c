// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The text sink: for the person on call.  One block per stall, read top to
 * bottom as the causal chain: who waited, on whose lock, who held it, and
 * why the holder was not running.  Histograms look like those of the bcc
 * tools so they read at a glance.
 *
 * Times in the first column are "+S.mmm s" since the run began
 * (sink_opts.t0_ns, else the first time this sink saw): the sink has no
 * clock, and a replayed recording prints the same text as the live run.
 * Every comm goes through ls_comm_text(): a process may name itself
 * "\e[2J" and must not get to drive the terminal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/report_model.h"
#include "sinks/sinks.h"
#include "sinks/sink_common.h"
#include "util.h"

/* Holders and preemptors shown in full per stall; the rest are summed up. */
#define TEXT_MAX_HOLDERS	4
#define TEXT_MAX_PREEMPTORS	3

#define HIST_BAR_WIDTH		40

struct text_sink {
	struct sink base;
	__u64 t0;		/* when opts.t0_ns is 0: the first time seen */
	/* the run's culprits, ranked in the summary (bounded, shared with the reports) */
	struct report_model rm;
	struct stack_seen seen;	/* stacks printed in full, by the stall they were first in */
	unsigned int explained;	/* 1 << enum text_jargon: said once already */
};

/* What text__hists() printed. */
struct text_hists {
	FILE *f;
	size_t printed;
	bool cut;	/* some were left out, and a line said so */
};

/* Words of ours a newcomer cannot guess, explained the first time they are printed. */
enum text_jargon {
	JARGON_PREEMPTED,
	JARGON_BLOCKED,
	JARGON_GRANTED_NOT_RUNNING,
	JARGON_HANDOFF,
	JARGON_DWARF,
	JARGON_FP,
	JARGON_KERNEL_FP,
};

static const char *const jargon_text[] = {
	[JARGON_PREEMPTED] = "preempted: runnable while holding the lock, but other tasks ran on its CPU",
	[JARGON_BLOCKED] = "blocked: asleep while holding the lock, on I/O or another lock",
	[JARGON_GRANTED_NOT_RUNNING] =
		"granted not running: a wakeup handed it the lock, but it had not run yet to use it",
	[JARGON_HANDOFF] = "handoff: its hold began when the releaser's wakeup handed it the lock",
	[JARGON_DWARF] = "user frames: dwarf: unwound here from a copy of the top of its stack",
	[JARGON_FP] = "user frames: fp: its frame pointers followed through a copy of its stack",
	[JARGON_KERNEL_FP] = "user frames: kernel-fp: the kernel's frame-pointer walk (no copy to unwind)",
};

static void text__explain(FILE *f, struct text_sink *t, enum text_jargon j)
{
	if (t->explained & (1u << j))
		return;
	t->explained |= 1u << j;
	fprintf(f, "           (%s)\n", jargon_text[j]);
}

static struct text_sink *to_text(struct sink *s)
{
	return (struct text_sink *)s;
}

static __u64 text__t0(struct text_sink *t, __u64 ts)
{
	if (t->base.opts.t0_ns)
		return t->base.opts.t0_ns;
	if (!t->t0)
		t->t0 = ts;
	return t->t0;
}

/* "+1.234s"; records from before the run began (still in the buffer) get "-". */
static const char *text__time(struct text_sink *t, __u64 ts, char *buf, size_t len)
{
	__u64 t0 = text__t0(t, ts);
	__u64 d = ts >= t0 ? ts - t0 : t0 - ts;

	snprintf(buf, len, "%c%llu.%03llus", ts >= t0 ? '+' : '-',
		 (unsigned long long)(d / NSEC_PER_SEC),
		 (unsigned long long)(d % NSEC_PER_SEC / NSEC_PER_MSEC));
	return buf;
}

/* "mmap", "page_fault (write) at 0x7f..." */
static const char *op_text(const struct ls_op *op, bool vma_fallback, char *buf, size_t len)
{
	char name[32];
	const char *access = "";

	ls_op_name(op, name, sizeof(name));
	if (op->kind != LS_OP_PAGE_FAULT) {
		snprintf(buf, len, "%s", name);
		return buf;
	}
	if (op->fault_flags & LS_PF_INSTR)
		access = " (exec)";
	else if (op->fault_flags & LS_PF_WRITE)
		access = " (write)";
	snprintf(buf, len, "%s%s at 0x%llx%s", name, access, (unsigned long long)op->addr,
		 vma_fallback ? " (per-VMA lock fallback)" : "");
	return buf;
}

static const char *mode_name(bool write)
{
	return write ? "write" : "read";
}

static unsigned int percent(__u64 part, __u64 whole)
{
	if (!whole)
		return 0;
	if (part >= whole)
		return 100;
	return (unsigned int)((unsigned __int128)part * 100 / whole);
}

static void text__preemptors(FILE *f, const struct ls_stall *st, const struct ls_holder *h)
{
	char ident[RM_TASK_LEN], sched[64], d[32];
	__u64 rest = h->preempted_other_ns;
	const char *cg;
	unsigned int i, n = h->n_preempted_by;

	if (n > LS_MAX_PREEMPTORS)
		n = LS_MAX_PREEMPTORS;
	for (i = 0; i < n; i++) {
		const struct ls_preemptor *p = &h->preempted_by[i];

		if (i >= TEXT_MAX_PREEMPTORS) {
			rest += p->ns;
			continue;
		}
		cg = sink__preemptor_cgroup(st, h, p);
		fprintf(f, "           preempted by %s %s %s%s%s\n",
			rm_stall_task(st, &p->task, ident, sizeof(ident)),
			sink__sched_text(&p->task, sched, sizeof(sched)),
			ls_format_duration(p->ns, d, sizeof(d)), cg ? "  cgroup " : "", cg ? cg : "");
	}
	if (rest)
		fprintf(f, "           preempted by others %s\n", ls_format_duration(rest, d, sizeof(d)));
}

/* "off CPU: 20.0ms preempted, 3.00ms blocked", only when it was more than one thing. */
static void text__offcpu_split(FILE *f, const struct ls_holder *h)
{
	char d[32], name[32];
	unsigned int s, parts = 0;
	const char *sep = "";

	for (s = LS_STATE_PREEMPTED; s < LS_STATE_N; s++)
		parts += h->offcpu_by_state[s] != 0;
	if (parts < 2)
		return;
	fprintf(f, "           off CPU:");
	for (s = LS_STATE_PREEMPTED; s < LS_STATE_N; s++) {
		if (!h->offcpu_by_state[s])
			continue;
		fprintf(f, "%s %s %s", sep, ls_format_duration(h->offcpu_by_state[s], d, sizeof(d)),
			sink__words(ls_state_name(s), false, name, sizeof(name)));
		sep = ",";
	}
	putc('\n', f);
}

/* "waited   46ms for mmap_lock ... of app[100], held by agent[300/301] preempted (STALL #1)" */
static void text__waited(FILE *f, const struct ls_stall *st, const struct ls_holder *h)
{
	char d[32], what[RM_WAITED_LEN];
	unsigned int i;

	for (i = 0; i < h->n_waited && i < LS_MAX_WAITED; i++)
		fprintf(f, "           waited   %s %s\n",
			ls_format_duration(h->waited[i].ns, d, sizeof(d)),
			rm_waited_text(st, &h->waited[i], what, sizeof(what)));
}

/* "throttled 40.0ms: /lsx (cgroup v1) quota 10.0ms per 100ms": what the kernel said. */
static void text__causes(FILE *f, const struct ls_holder *h)
{
	char d[32], why[SINK_CAUSE_TEXT_LEN];
	unsigned int c;

	for (c = LS_CAUSE_NONE + 1; c < LS_CAUSE_N; c++) {
		if (!h->cause_ns[c])
			continue;
		fprintf(f, "           %s %s", ls_cause_name(c),
			ls_format_duration(h->cause_ns[c], d, sizeof(d)));
		if (sink__cause_text(h, c, why, sizeof(why)))
			fprintf(f, ": %s", why);
		putc('\n', f);
	}
}

/*
 * A stack under its task, innermost first: kernel frames, then user ones.
 * One line when an earlier stall printed the same frames.
 */
static void text__stack(FILE *f, struct text_sink *t, const struct ls_stall *st,
			const struct ls_frames *fr)
{
	char buf[512];
	__u64 first;
	unsigned int i;

	if (!fr)
		return;
	/* A pending report has no number of its own: it never becomes the first. */
	first = st->pending ? 0 : stack_seen__check(&t->seen, fr->digest, st->seq);
	if (first && first != st->seq) {
		fprintf(f, "           stack    same as stall #%llu\n", (unsigned long long)first);
		return;
	}
	fprintf(f, "           stack    user frames: %s%s%s\n", fr->user_method,
		fr->note ? "; " : "", fr->note ? fr->note : "");
	if (!strcmp(fr->user_method, "dwarf"))
		text__explain(f, t, JARGON_DWARF);
	else if (!strcmp(fr->user_method, "fp"))
		text__explain(f, t, JARGON_FP);
	else if (!strcmp(fr->user_method, "kernel-fp"))
		text__explain(f, t, JARGON_KERNEL_FP);
	for (i = 0; i < fr->n; i++) {
		if (i == fr->n_kernel && i)
			fprintf(f, "             --\n");
		fprintf(f, "             %s\n", sink__frame_text(&fr->v[i], buf, sizeof(buf)));
	}
}

/* "now      preempted since +0.001s (1.1s)": a pending stall's holder as it is. */
static void text__holder_now(FILE *f, struct text_sink *t, const struct ls_stall *st,
			     const struct ls_holder *h)
{
	char state[32], since[32], d[32];

	fprintf(f, "           now      %s",
		h->state_now == LS_STATE_RUNNING ? "on CPU" :
		sink__words(ls_state_name(h->state_now), false, state, sizeof(state)));
	if (h->state_since_ns)
		fprintf(f, " since %s (%s)", text__time(t, h->state_since_ns, since, sizeof(since)),
			ls_format_duration(st->end_ns - h->state_since_ns, d, sizeof(d)));
	putc('\n', f);
}

/*
 * A PI futex's owner that the boost did not get running in time: below
 * the waiter's priority on a run queue, or asleep, where no boost helps.
 */
static void text__pi_late(FILE *f, const struct ls_holder *h)
{
	char low[32], asleep[32];

	if (!h->pi_late)
		return;
	fprintf(f, "           not boosted in time: %s runnable below the waiter's priority, %s asleep (no boost runs a sleeping owner)\n",
		ls_format_duration(h->pi_unboosted_ns, low, sizeof(low)),
		ls_format_duration(h->offcpu_by_state[LS_STATE_BLOCKED], asleep, sizeof(asleep)));
}

static void text__holder(FILE *f, struct text_sink *t, const struct ls_stall *st,
			 const struct ls_holder *h)
{
	char ident[RM_TASK_LEN], sched[64], op[96], held[32], off[32], state[32], how[112];

	/* a futex is held in user space: no mode, no kernel operation to name */
	if (h->lock_unconfirmed)
		snprintf(how, sizeof(how), "holds an mmap_lock");
	else if (st->lock.kind == LS_LOCK_MMAP)
		snprintf(how, sizeof(how), "%s lock in %s", mode_name(h->write),
			 op_text(&h->op, false, op, sizeof(op)));
	else
		snprintf(how, sizeof(how), "owner");
	fprintf(f, "  holder   %-20s  %-18s  %s  held %s  off CPU %s (%u%%)  %s",
		rm_stall_task(st, &h->task, ident, sizeof(ident)),
		sink__sched_text(&h->task, sched, sizeof(sched)), how,
		ls_format_duration(h->held_ns, held, sizeof(held)),
		ls_format_duration(h->offcpu_ns, off, sizeof(off)),
		percent(h->offcpu_ns, st->lock_wait_ns),
		sink__words(ls_state_name(h->state), false, state, sizeof(state)));
	/* no record said where it was: neither on CPU nor off (JSON "unseen_ns") */
	if (h->unseen_ns)
		fprintf(f, ", not seen %s", ls_format_duration(h->unseen_ns, held, sizeof(held)));
	/* the lock was handed over by the releaser's wakeup (JSON "granted") */
	if (h->granted)
		fprintf(f, ", handoff");
	if (h->downgraded)
		fprintf(f, ", downgraded");
	if (!h->released)
		fprintf(f, ", still held");
	if (h->lock_unconfirmed)
		fprintf(f, " (an mmap_lock: which one, not known yet)");
	/* how a waiter named the holder of a futex or kernel lock */
	if (ls_owner_how_name(h->how))
		fprintf(f, ", found by %s", ls_owner_how_name(h->how));
	if (h->how == LS_OWNER_HINT)
		fputs(" (the last reader to take it: it may have let go, others may hold it)", f);
	putc('\n', f);
	text__pi_late(f, h);
	/* the first holder's is on the stall's cgroup line */
	if (h != st->holders && sink__holder_cgroup(st, h))
		fprintf(f, "           cgroup   %s\n", sink__holder_cgroup(st, h));
	if (st->pending)
		text__holder_now(f, t, st, h);
	if (h->state == LS_STATE_PREEMPTED)
		text__explain(f, t, JARGON_PREEMPTED);
	else if (h->state == LS_STATE_BLOCKED)
		text__explain(f, t, JARGON_BLOCKED);
	else if (h->state == LS_STATE_GRANTED_NOT_RUNNING)
		text__explain(f, t, JARGON_GRANTED_NOT_RUNNING);
	if (h->granted)
		text__explain(f, t, JARGON_HANDOFF);
	text__offcpu_split(f, h);
	text__waited(f, st, h);
	text__causes(f, h);
	text__preemptors(f, st, h);
	if (h->has_waker)
		fprintf(f, "           woken by %s\n",
			rm_stall_task(st, &h->woken_by, ident, sizeof(ident)));
	text__stack(f, t, st, h->frames);
}

/*
 * "cgroup   /system.slice/db.service (waiter)  /backup.slice (holder)":
 * the waiter's and the first holder's, where known.  Paths are text
 * already (ls_cgroup_text): no byte needs escaping here.
 */
static void text__cgroups(FILE *f, const struct ls_stall *st)
{
	const char *h = st->n_holders ? st->holders[0].cgroup : NULL;

	if (!st->waiter_cgroup && !h)
		return;
	fputs("  cgroup  ", f);
	if (st->waiter_cgroup && h && !strcmp(st->waiter_cgroup, h)) {
		fprintf(f, " %s (waiter and holder)\n", h);
		return;
	}
	if (st->waiter_cgroup)
		fprintf(f, " %s (waiter)", st->waiter_cgroup);
	if (h)
		fprintf(f, "%s%s (holder)", st->waiter_cgroup ? "  " : " ", h);
	putc('\n', f);
}

/* "victim/1240 (waiter, write) <- reader/2001 (holder, read) <- hog/3001 (preemptor, 22.9ms)" */
static void text__chain(FILE *f, const struct ls_stall *st)
{
	char who[RM_TASK_LEN], role[32], d[32], lock[160];
	unsigned int i, n = st->n_chain;

	if (!n)
		return;
	if (n > LS_MAX_HOPS)
		n = LS_MAX_HOPS;
	fprintf(f, "  chain    ");
	for (i = 0; i < n; i++) {
		const struct ls_hop *hop = &st->chain[i];

		fprintf(f, "%s%s (%s", i ? " <- " : "", rm_hop_task(st, &hop->task, who, sizeof(who)),
			sink__words(ls_role_name(hop->role), false, role, sizeof(role)));
		switch (hop->role) {
		case LS_ROLE_WAITER:
		case LS_ROLE_QUEUED_WRITER:
		case LS_ROLE_HOLDER:
			if (hop->has_lock)
				fprintf(f, ", of %s", sink__hop_lock_text(hop, lock, sizeof(lock)));
			else
				fprintf(f, ", %s", mode_name(hop->write));
			/* the hop before waited on that lock, and got it, inside this wait */
			if (hop->stall_seq)
				fprintf(f, ", waited %s, STALL #%llu",
					ls_format_duration(hop->wait_ns, d, sizeof(d)),
					(unsigned long long)hop->stall_seq);
			break;
		default:
			if (hop->ns)
				fprintf(f, ", %s", ls_format_duration(hop->ns, d, sizeof(d)));
			break;
		}
		putc(')', f);
	}
	putc('\n', f);
}

/*
 * "pending  report 2 at +3.100s, first at +1.100s": when a pending report
 * was made; under a stall, that its wait was reported while it lasted.
 */
static void text__pending(FILE *f, struct text_sink *t, const struct ls_stall *st)
{
	char now[32], first[32];

	if (!st->pending_reports)
		return;
	text__time(t, st->pending_first_ns, first, sizeof(first));
	if (st->pending)
		fprintf(f, "  pending  report %u at %s%s%s%s\n", st->pending_reports,
			text__time(t, st->end_ns, now, sizeof(now)),
			st->at_exit ? ", the run ended while it waited" : "",
			st->pending_reports > 1 ? ", first at " : "",
			st->pending_reports > 1 ? first : "");
	else
		fprintf(f, "  pending  reported %u time%s while it lasted, first at %s\n",
			st->pending_reports, st->pending_reports == 1 ? "" : "s", first);
}

/* After the verdict: how a stall's wait ended, when not with the lock. */
static const char *text__wait_end(const struct ls_stall *st)
{
	if (st->acquired || st->pending)
		return "";
	/* Reported while it lasts: none of its waits will end by itself. */
	if (st->verdict == LS_VERDICT_DEADLOCK || st->unknown_reason)
		return "  (still waiting)";
	return "  (gave up without the lock)";
}

static int text__stall(struct sink *s, const struct ls_stall *st)
{
	struct text_sink *t = to_text(s);
	FILE *f = s->out;
	char when[32], wait[32], comm[LS_COMM_TEXT_LEN], verdict[32], ident[RM_TASK_LEN], sched[64];
	char op[128], lock[600], other[SINK_RENAME_TEXT_LEN];
	unsigned int i, shown, more;

	/* Out of memory only costs the ranking this stall: it is still printed. */
	report_model__stall(&t->rm, st);
	/* began before tracing: the wait is at least this long, its start unknown */
	if (st->pending)
		fprintf(f, "%s PENDING%s  %s%s so far%s  ",
			text__time(t, st->start_ns, when, sizeof(when)), st->at_exit ? " AT EXIT" : "",
			st->began_before ? ">= " : "", ls_format_duration(st->wait_ns, wait, sizeof(wait)),
			sink__start_unknown(st->began_before, st->found_late));
	else
		fprintf(f, "%s STALL #%llu  %s%s%s  ", text__time(t, st->start_ns, when, sizeof(when)),
			(unsigned long long)st->seq, st->began_before ? ">= " : "",
			ls_format_duration(st->wait_ns, wait, sizeof(wait)),
			sink__start_unknown(st->began_before, st->found_late));
	if (st->lock.kind != LS_LOCK_MMAP)
		fputs(sink__stall_lock_text(st, lock, sizeof(lock)), f);
	else if (st->lock.tgid)
		fprintf(f, "mmap_lock %s  of %s[%u]%s", mode_name(st->write),
			ls_comm_text(st->lock.comm, comm, sizeof(comm)), st->lock.tgid,
			sink__rename_text(ls_stall__rename(st, st->lock.tgid, st->lock.comm),
					  other, sizeof(other)));
	else
		fprintf(f, "mmap_lock %s  of mm 0x%llx", mode_name(st->write),
			(unsigned long long)st->lock.id);
	fprintf(f, "  verdict%s: %s%s\n", st->pending ? " so far" : "",
		sink__words(ls_verdict_text(st->verdict), true, verdict, sizeof(verdict)),
		text__wait_end(st));
	if (ls_unknown_reason_text(st->unknown_reason))
		fprintf(f, "  why      a cycle of waits, not known to be a deadlock: %s\n",
			ls_unknown_reason_text(st->unknown_reason));
	text__pending(f, t, st);

	fprintf(f, "  waiter   %-20s  %-18s  %s\n",
		rm_stall_task(st, &st->waiter, ident, sizeof(ident)),
		sink__sched_text(&st->waiter, sched, sizeof(sched)),
		op_text(&st->op, st->vma_lock_fallback, op, sizeof(op)));
	text__stack(f, t, st, st->waiter_frames);
	text__cgroups(f, st);

	/* Only when the waiter's own run delay is a real part of what it went through. */
	if (st->granted_ns && (st->run_delay_ns >= NSEC_PER_MSEC || st->run_delay_ns * 10 >= st->wait_ns)) {
		char lw[32], rd[32];

		fprintf(f, "  handoff  lock handed over after %s, ran %s later (its own run-queue wait)\n",
			ls_format_duration(st->lock_wait_ns, lw, sizeof(lw)),
			ls_format_duration(st->run_delay_ns, rd, sizeof(rd)));
	}

	shown = st->n_holders < TEXT_MAX_HOLDERS ? st->n_holders : TEXT_MAX_HOLDERS;
	for (i = 0; i < shown; i++)
		text__holder(f, t, st, &st->holders[i]);
	more = st->n_holders - shown + st->holders_dropped;
	if (more)
		fprintf(f, "  holder   and %u more, not shown\n", more);
	if (!st->n_holders && !st->holders_dropped)
		fprintf(f, "  holder   none seen (taken before tracing began, or its records were lost)\n");

	text__chain(f, st);
	if (st->advice)
		fprintf(f, "  advice   %s\n", st->advice);
	if (st->lost_in_window)
		fprintf(f, "  lost     %llu events during this wait: holders may be missing, so the verdict is unknown\n",
			(unsigned long long)st->lost_in_window);
	if (st->history_short)
		fputs("  partial  memory bounds overwrote part of this wait's history: time off CPU may be missing, who ran instead unnamed\n",
		      f);
	putc('\n', f);
	/* someone may be watching this live: do not sit in a buffer */
	return sink__flush(f);
}

/*
 * Slot i counts [2^(i-1), 2^i) us, slot 0 [0, 1) us: "low -> high" gives
 * that range.  Only the slots from the first to the last non-empty one.
 */
void rm_text_hist(void *ctx, const struct rm_hist *m)
{
	const struct ls_hist *h = m->h;
	char sum[32], avg[32], bar[HIST_BAR_WIDTH + 1];
	FILE *f = ctx;
	unsigned int i;

	fprintf(f, "%s, %s%s, %s:\n", m->title, m->lock, m->mode, m->who);
	if (m->any) {
		fprintf(f, "%10s%-14s : count    distribution (log scale)\n", "usecs", "");
		for (i = m->first; i <= m->last; i++) {
			unsigned int stars = sink__bar_len(h->slots[i], m->max, HIST_BAR_WIDTH);

			memset(bar, '*', stars);
			bar[stars] = '\0';
			fprintf(f, "%10llu -> %-10llu : %-8llu |%-*s|\n",
				(unsigned long long)rm_slot_lo(i), (unsigned long long)rm_slot_hi(i),
				(unsigned long long)h->slots[i], HIST_BAR_WIDTH, bar);
		}
	}
	fprintf(f, "%10s %llu %s  total %s  avg %s\n\n", "", (unsigned long long)h->count,
		rm_count_noun(m->kind, h->count), ls_format_duration(h->sum_ns, sum, sizeof(sum)),
		ls_format_duration(m->avg_ns, avg, sizeof(avg)));
}

static void text__hist(void *ctx, const struct rm_hist *m)
{
	struct text_hists *th = ctx;

	rm_text_hist(th->f, m);
	th->printed++;
}

static void text__hists_cut(void *ctx, const char *text)
{
	struct text_hists *th = ctx;

	fprintf(th->f, "(%s)\n\n", text);
	th->cut = true;
}

/* Every kind, most total time first, at most opts.top each. */
static int text__hists(struct sink *s, const struct ls_hist_set *set, struct text_hists *th)
{
	*th = (struct text_hists){ .f = s->out };
	return rm_hists__each(set, &s->opts, text__hist, text__hists_cut, th);
}

static int text__interval(struct sink *s, const struct ls_hist_set *h)
{
	struct text_sink *t = to_text(s);
	struct text_hists th;
	char a[32], b[32], d[32];
	int err;

	/* start first: it is what t0 falls back to */
	text__time(t, h->start_ns, a, sizeof(a));
	text__time(t, h->end_ns, b, sizeof(b));
	fprintf(s->out, "%s INTERVAL  since %s (%s)\n", b, a,
		ls_format_duration(h->end_ns - h->start_ns, d, sizeof(d)));
	err = text__hists(s, h, &th);
	if (err)
		return err;
	if (!th.printed && !th.cut)
		fprintf(s->out, "  no lock activity recorded\n\n");
	return sink__flush(s->out);
}

/*
 * The totals come last, under the histograms: they are what is left on the
 * screen when the run ends, with the lost-events warning at the very bottom.
 */
/*
 * "Who to talk to": holders by the lock wait they caused (each stall's to
 * its first holder), preemptors by the holder off-CPU time they caused.
 */
static void text__culprits(FILE *f, const char *title, const struct rm_table *tb)
{
	char ident[RM_TASK_LEN], sched[64], d[32];
	unsigned int i, n = tb->n < RM_SHOW_TASKS ? tb->n : RM_SHOW_TASKS;

	if (!tb->n)
		return;
	fprintf(f, "  %s\n", title);
	for (i = 0; i < n; i++)
		fprintf(f, "    %2u. %-24s  %-20s  %llu stall%s  %s\n", i + 1,
			rm_culprit_task(&tb->v[i], ident, sizeof(ident)),
			sink__sched_text(&tb->v[i].task, sched, sizeof(sched)),
			(unsigned long long)tb->v[i].stalls, tb->v[i].stalls == 1 ? "" : "s",
			ls_format_duration(tb->v[i].ns, d, sizeof(d)));
	if (tb->n > n || tb->others)
		fprintf(f, "        and others\n");
}

static int text__summary(struct sink *s, const struct ls_summary *sum)
{
	struct text_sink *t = to_text(s);
	FILE *f = s->out;
	char when[32], dur[32];
	struct text_hists th;
	unsigned int v;
	int err;

	fprintf(f, "%s SUMMARY  traced %s\n", text__time(t, sum->end_ns, when, sizeof(when)),
		ls_format_duration(sum->duration_ns, dur, sizeof(dur)));
	if (sum->hists) {
		err = text__hists(s, sum->hists, &th);
		if (err)
			return err;
	}
	report_model__finish(&t->rm);
	if (t->rm.stalls) {
		fprintf(f, "top culprits\n");
		text__culprits(f, "holders, by the lock wait they caused:", &t->rm.holders);
		text__culprits(f, "preemptors, by the holder off-CPU time they caused:", &t->rm.preemptors);
		putc('\n', f);
	}
	fprintf(f, "  stalls   %llu:", (unsigned long long)sum->stalls);
	/* the verdicts by the names the JSON uses: one vocabulary to grep for */
	for (v = 0; v < LS_VERDICT_N; v++)
		if (sink__verdict_listed(sum, v))
			fprintf(f, "%s %s %llu", v ? "," : "", ls_verdict_name(v),
			(unsigned long long)sum->stalls_by_verdict[v]);
	putc('\n', f);
	if (sum->pending_reports)
		fprintf(f, "  pending  %llu reports; waits still open at exit: %llu\n",
			(unsigned long long)sum->pending_reports,
			(unsigned long long)sum->pending_at_exit);
	/* records from the kernel, each a lock event or a context switch: not lock operations */
	fprintf(f, "  records  %llu received, %llu lost, %llu malformed\n",
		(unsigned long long)sum->events, (unsigned long long)sum->lost_events,
		(unsigned long long)sum->bad_records);
	if (sum->slo)
		fprintf(f, "  slo      %llu violations, %llu suppressed; hooks %llu run, %llu failed, %llu timed out, %llu skipped\n",
			(unsigned long long)sum->slo_violations,
			(unsigned long long)sum->slo_suppressed, (unsigned long long)sum->hook_runs,
			(unsigned long long)sum->hook_failures, (unsigned long long)sum->hook_timeouts,
			(unsigned long long)sum->hook_skipped);
	/* a warning only for what a reported stall lost; each of them says "partial" */
	if (sum->evicted)
		fprintf(f, "  memory   %llu entries dropped at the engine's bounds\n",
			(unsigned long long)sum->evicted);
	if (sum->stalls_short)
		fprintf(f, "  WARNING  %llu stall%s lost detail to memory bounds: see \"partial\" in %s\n",
			(unsigned long long)sum->stalls_short, sum->stalls_short == 1 ? "" : "s",
			sum->stalls_short == 1 ? "it" : "each");
	if (sum->stalls_unnamed)
		fprintf(f, "  WARNING  %llu stall%s printed without names: lockstall was busy naming others (frames as addresses)\n",
			(unsigned long long)sum->stalls_unnamed, sum->stalls_unnamed == 1 ? "" : "s");
	if (sum->lost_events)
		fprintf(f, "  WARNING  %llu records lost (ring buffer full, or runs the kernel skipped): findings in those spans are marked unknown\n",
			(unsigned long long)sum->lost_events);
	return sink__flush(f);
}

static void text__free(struct sink *s)
{
	struct text_sink *t = to_text(s);

	report_model__free(&t->rm);
	free(t);
}

static const struct sink_ops text_ops = {
	.name = "text",
	.stall = text__stall,
	.interval = text__interval,
	.summary = text__summary,
	.free = text__free,
};

struct sink *sink_text__new(FILE *out, const struct sink_opts *opts)
{
	struct text_sink *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	sink__init(&t->base, &text_ops, out, opts);
	return &t->base;
}
