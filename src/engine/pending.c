// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pending stalls: waits that have not ended, reported as they stand.
 *
 * The engine's clock moves only by records, so a wait with no record of
 * its own is seen to last only by a TICK (user space sends them, and the
 * recording keeps them: a replay reports the same).  At a tick, a wait
 * open pending_after_ns gets its first report; the k-th follows at
 * start + pending_after_ns + (k - 1) * pending_every_ns, at the first tick
 * after that (a schedule from the wait's start, so reports do not drift
 * with the ticks).  LS_TICK_EXIT reports every wait open at least the
 * threshold, whatever the schedule: the run ends while it goes on.
 *
 * A report is the stall stall__emit would build had the wait ended at the
 * tick without the lock: the same holders, chain and verdict so far.
 */
#include <errno.h>
#include <stdlib.h>
#include "engine/internal.h"

/* When tk's next report is due (its wait's start is known). */
static __u64 pending__due_at(const struct engine *e, const struct task *tk)
{
	__u64 k = tk->pend_reports;

	if (k && !e->opts.pending_every_ns)
		return ~0ULL;	/* once */
	return tk->wait_start + e->opts.pending_after_ns + k * e->opts.pending_every_ns;
}

static bool pending__due(const struct engine *e, const struct task *tk, __u64 now, bool at_exit)
{
	/* A granted waiter owns the lock already: the rest is its run delay. */
	if (tk->flags & LS_TASK_F_GRANTED || now < tk->wait_start)
		return false;
	if (at_exit)
		return now - tk->wait_start >= e->opts.threshold_ns;
	return now >= pending__due_at(e, tk);
}

static int pending__cmp(const void *a, const void *b)
{
	const struct task *x = *(struct task *const *)a, *y = *(struct task *const *)b;

	if (x->wait_start != y->wait_start)
		return x->wait_start < y->wait_start ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int pending__push(struct engine *e, __u32 n, struct task *tk)
{
	struct task **v;
	__u32 alloc;

	if (n == e->pend_alloc) {
		alloc = e->pend_alloc ? e->pend_alloc * 2 : 16;
		v = realloc(e->pend_v, alloc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		e->pend_v = v;
		e->pend_alloc = alloc;
	}
	e->pend_v[n] = tk;
	return 0;
}

/* The waits due at now, oldest first (the map's order is no order). */
static __u32 pending__gather(struct engine *e, __u64 now, bool at_exit)
{
	struct task *tk;
	__u32 i, n = 0;

	for (i = 0; i < e->tasks.cap; i++) {
		tk = map__slot(&e->tasks, i);
		if (!tk || !tk->waiting || !tk->waiting_on || !pending__due(e, tk, now, at_exit))
			continue;
		if (pending__push(e, n, tk)) {
			e->sum.evicted++;
			break;
		}
		n++;
	}
	if (n > 1)
		qsort(e->pend_v, n, sizeof(*e->pend_v), pending__cmp);
	return n;
}

static int pending__report(struct engine *e, struct task *tk, __u64 now, bool at_exit)
{
	struct ls_rec_lock r = {
		.hdr = { .type = LS_REC_WAIT_END, .size = sizeof(r), .ts = now },
		.task = tk->info,
		.lock = tk->waiting_on->info,
		.op = tk->wait_op,
		.start_ns = tk->wait_start,
		.write = tk->wait_write,
		.flags = tk->wait_prior,
		.cgroup_id = tk->wait_cgroup_id,
	};
	struct stall_pend p = {
		.pending = true,
		.at_exit = at_exit,
		.reports = tk->pend_reports + 1,
		.first_ns = tk->pend_reports ? tk->pend_first : now,
		.cycle = locks__in_deadlock(e, tk, now) ? tk : NULL,
	};
	int err;

	/* As for its holders (pending__holder_now): a silent waiter is not stale. */
	if (!engine__lost_in(e, tk->wait_start, now))
		tk->last_ts = u64_max(tk->last_ts, now);
	err = stall__emit(e, &r, tk->waiting_on, &p);
	if (err < 0)
		return err;
	/* Filtered out by pid: it is not reported, so it does not count. */
	if (err > 0) {
		tk->pend_first = p.first_ns;
		tk->pend_reports = p.reports;
	}
	return 0;
}

int pending__tick(struct engine *e, const struct ls_rec_tick *r)
{
	bool at_exit = r->kind == LS_TICK_EXIT;
	__u64 now = e->now;
	__u32 i, n;
	int err;

	if (!e->opts.pending_after_ns)
		return 0;
	n = pending__gather(e, now, at_exit);
	for (i = 0; i < n; i++) {
		err = pending__report(e, e->pend_v[i], now, at_exit);
		if (err)
			return err;
	}
	return 0;
}

void pending__holder_now(struct engine *e, struct ls_holder *hd, __u64 lock_id, bool lossless)
{
	struct task *tk = map__get(&e->tasks, hd->task.tid);
	const struct spell *last;

	/* Where a task no record follows is now, nobody knows: never "on CPU" by default. */
	hd->state_now = LS_STATE_UNKNOWN;
	hd->state_since_ns = 0;
	if (!tk || tk->tgid != hd->task.tgid)
		return;
	/*
	 * Silent while it holds is what a stuck holder does: without losses
	 * its EXIT cannot have been missed, so it is not stale state.
	 */
	if (lossless)
		tk->last_ts = u64_max(tk->last_ts, e->now);
	if (tk->follow_from && !tk->follow_to)
		hd->state_now = LS_STATE_RUNNING;
	if (tk->spell_open) {
		hd->state_now = tk->open.state;
		hd->state_since_ns = tk->open.start;
	} else if (hd->state_now == LS_STATE_RUNNING && tk->cpu_state == TASK_CPU_ON &&
		   tk->spells.n) {
		/* Back on CPU since its latest spell ended, as far as the records say. */
		last = ring__at(&tk->spells, tk->spells.n - 1);
		hd->state_since_ns = last->end;
	}
	if (tk->now_stack && (!tk->now_stack->lock_id || tk->now_stack->lock_id == lock_id))
		hd->stack = tk->now_stack;
}

size_t engine__stuck_holders(const struct engine *e, __u64 now, __u32 *tids, size_t max)
{
	const struct task *tk;
	bool any = false;
	size_t n = 0;
	__u32 i;

	if (!e->opts.pending_after_ns)
		return 0;
	for (i = 0; i < e->tasks.cap && !any; i++) {
		tk = map__slot(&e->tasks, i);
		any = tk && tk->waiting && tk->waiting_on && now >= tk->wait_start &&
		      now - tk->wait_start >= e->opts.pending_after_ns;
	}
	/* Any off-CPU holder may be the one: holders are not known per wait until judged. */
	for (i = 0; any && i < e->tasks.cap && n < max; i++) {
		tk = map__slot(&e->tasks, i);
		if (tk && (tk->flags & LS_TASK_F_HOLDING) && tk->spell_open)
			tids[n++] = tk->tid;
	}
	return n;
}
