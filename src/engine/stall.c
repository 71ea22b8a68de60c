// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One WAIT_END past the threshold becomes one struct ls_stall: who held the
 * lock during the wait, why they were off CPU, the chain from the waiter to
 * the root cause, and a verdict (src/engine/DESIGN.md, "Stalls out").
 *
 * Steps: the holders, found, measured, merged per task and sorted by
 * off-CPU time (stall_holders.c); then the chain; then the verdict.  A
 * deadlock's cycle becomes a stall of its own the same way.
 */
#include <string.h>
#include "engine/internal.h"
#include "engine/sink.h"
#include "engine/stall.h"


/*
 * The wait of tk that kept it from running inside [from, to), on a lock
 * whose owner it named: the one in progress, else the last that ended.
 */
static bool stall__owner_wait(const struct task *tk, __u64 from, __u64 to,
			      struct past_wait *out)
{
	if (tk->wait_owner_tid && tk->wait_owner_start < to) {
		out->lock = tk->wait_lock;
		out->owner_tid = tk->wait_owner_tid;
		return true;
	}
	if (tk->last_wait.owner_tid && tk->last_wait.start < to && tk->last_wait.end > from) {
		*out = tk->last_wait;
		return true;
	}
	return false;
}

/* Append a hop to st's chain (the caller checks for room); it names no lock until given one. */
static struct ls_hop *chain__add(struct ls_stall *st, const struct ls_task *task, enum ls_role role,
				 bool write)
{
	struct ls_hop *hop = &st->chain[st->n_chain++];

	*hop = (struct ls_hop){ .task = *task, .role = role, .write = write,
				.lock = { .kind = LS_LOCK_NONE } };
	return hop;
}

/*
 * A holder asleep because it waited on another lock: follow that lock's
 * owner, and its owner's, while the hops last.  Returns whether one was added.
 */
static bool stall__chain_locks(struct engine *e, struct ls_stall *st, const struct ls_holder *h)
{
	const struct task *cur = map__get(&e->tasks, h->task.tid), *next;
	struct past_wait pw;
	struct ls_hop *hop;
	bool added = false;

	while (cur && st->n_chain < LS_MAX_HOPS &&
	       stall__owner_wait(cur, st->start_ns, st->start_ns + st->lock_wait_ns, &pw)) {
		next = map__get(&e->tasks, pw.owner_tid);
		if (!next || next->tid == h->task.tid || next->tid == st->waiter.tid)
			break;
		hop = chain__add(st, &next->info, LS_ROLE_HOLDER, true);
		hop->has_lock = true;
		hop->lock = pw.lock;
		added = true;
		cur = next;
	}
	return added;
}

/* The chain; the stall of an ended wait it went on through, or NULL. */
static const struct past_stall *stall__chain(struct engine *e, struct ls_stall *st,
					     const struct queued_writer *qw)
{
	const struct ls_holder *h = st->n_holders ? &st->holders[0] : NULL;
	const struct past_stall *via = NULL;
	struct ls_hop *hop;

	chain__add(st, &st->waiter, LS_ROLE_WAITER, st->write);
	if (qw->found)
		chain__add(st, &qw->task, LS_ROLE_QUEUED_WRITER, true);
	if (!h)
		return NULL;
	hop = chain__add(st, &h->task, LS_ROLE_HOLDER, h->write);
	hop->ns = h->offcpu_ns;
	if ((h->state == LS_STATE_PREEMPTED || h->state == LS_STATE_GRANTED_NOT_RUNNING) &&
	    h->n_preempted_by) {
		hop = chain__add(st, &h->preempted_by[0].task, LS_ROLE_PREEMPTOR, false);
		hop->ns = h->preempted_by[0].ns;
	} else if (h->state == LS_STATE_BLOCKED && (via = hops__chain(e, st, h))) {
		return via;
	} else if (h->state == LS_STATE_BLOCKED && stall__chain_locks(e, st, h)) {
		return NULL;
	} else if (h->state == LS_STATE_BLOCKED && h->has_waker) {
		chain__add(st, &h->woken_by, LS_ROLE_WAKER, false);
	}
	return NULL;
}

static enum ls_verdict stall__verdict(const struct ls_stall *st)
{
	const struct ls_holder *h = &st->holders[0];

	/*
	 * A releaser only woke the waiter, a reader hint is the last reader
	 * that took an rwsem: whether either held the lock is not known.
	 */
	if (st->lost_in_window || !st->n_holders || h->how == LS_OWNER_RELEASER ||
	    h->how == LS_OWNER_HINT || h->state == LS_STATE_UNKNOWN)
		return LS_VERDICT_UNKNOWN;
	if (h->offcpu_ns && h->offcpu_ns * 2 >= st->lock_wait_ns)
		return ls_task_importance_cmp(&h->task, &st->waiter) < 0 ?
			LS_VERDICT_PRIORITY_INVERSION : LS_VERDICT_HOLDER_OFF_CPU;
	return LS_VERDICT_CONTENTION;
}

/* filter_pid: the waiter's process, any holder's, or the lock's process. */
static bool stall__wanted(const struct engine *e, const struct ls_stall *st, __u32 n_groups)
{
	__u32 pid = e->opts.filter_pid, i;

	if (!pid || st->waiter.tgid == pid || st->lock.tgid == pid)
		return true;
	for (i = 0; i < n_groups; i++)
		if (e->order[i]->h->task.tgid == pid)
			return true;
	return false;
}

/* A stall gets its number; a pending report its pending fields, and no number. */
static void stall__count(struct engine *e, struct ls_stall *st, const struct stall_pend *p)
{
	st->pending = p->pending;
	st->at_exit = p->at_exit;
	st->pending_reports = p->reports;
	st->pending_first_ns = p->first_ns;
	if (p->pending) {
		st->acquired = false;
		e->sum.pending_reports++;
		e->sum.pending_at_exit += p->at_exit;
	} else {
		st->seq = ++e->sum.stalls;
		e->sum.stalls_by_verdict[st->verdict]++;
		e->sum.stalls_by_cause[st->cause]++;
		if (st->lock.kind < LS_LOCK_KIND_N)
			e->sum.stalls_by_lock[st->lock.kind]++;
	}
}

__u64 stall__lock_end(const struct ls_rec_lock *r)
{
	if (r->granted_ns > r->start_ns && r->granted_ns <= r->hdr.ts)
		return r->granted_ns;
	return r->hdr.ts;
}

/* The cycle from tk back to tk, as hops: each holder with the lock it holds. */
static void deadlock__chain(struct engine *e, struct task *tk, struct ls_stall *st)
{
	struct task *cur = tk, *next;
	struct ls_hop *hop;

	chain__add(st, &tk->info, LS_ROLE_WAITER, true);
	while (st->n_chain < LS_MAX_HOPS && cur->wait_owner_tid) {
		next = map__get(&e->tasks, cur->wait_owner_tid);
		if (!next)
			break;
		cur->deadlock_reported = true;
		cur->cycle_doubt = st->unknown_reason;
		hop = chain__add(st, &next->info, LS_ROLE_HOLDER, true);
		hop->has_lock = true;
		hop->lock = cur->wait_lock;
		if (next == tk)
			break;
		cur = next;
	}
}

/* The chain, verdict, cause and advice of st, its holders filled in. */
static void stall__judge(struct engine *e, struct ls_stall *st, const struct queued_writer *qw,
			 struct task *cycle)
{
	const struct past_stall *via = stall__chain(e, st, qw);

	st->verdict = stall__verdict(st);
	/* A wait of a deadlock reported already: the cycle, while it lasts. */
	if (cycle) {
		st->n_chain = 0;
		deadlock__chain(e, cycle, st);
		st->verdict = LS_VERDICT_DEADLOCK;
		via = NULL;
	}
	st->cause = st->n_holders ? st->holders[0].cause : LS_CAUSE_NONE;
	/* Through a wait that ended: the verdict, cause and advice of the chain's root. */
	if (via && hops__judge(st, via) && (e->features & LS_FEAT_CAUSES))
		st->advice = via->advice;
	if ((e->features & LS_FEAT_CAUSES) && !st->advice)
		st->advice = ls_advice(st);
}

int stall__emit(struct engine *e, const struct ls_rec_lock *r, struct lock *lk,
		const struct stall_pend *p)
{
	struct stall_ctx x = {
		.r = r,
		.p = p,
		.ws = r->start_ns,
		.we = stall__lock_end(r),
		.write = !!r->write,
	};
	struct ls_stall st;
	__u32 n_groups = 0, i;
	int err = 0;

	memset(&st, 0, sizeof(st));
	e->run_budget = ENGINE_STALL_RUN_BUDGET;
	e->stall_history_short = false;
	if (lk) {
		if (!x.write)
			stall__find_queued_writer(lk, &x);
		stall__collect(e, lk, &x);
		if (lk->kind != LS_LOCK_MMAP)
			stall__collect_owner(e, &x);
		n_groups = stall__group(e, &x);
	}

	st.write = x.write;
	st.acquired = !!r->success;
	st.start_ns = x.ws;
	st.end_ns = r->hdr.ts;
	st.wait_ns = st.end_ns - st.start_ns;
	st.lock_wait_ns = x.we - x.ws;
	if (x.we != st.end_ns) {
		st.granted_ns = x.we;
		st.run_delay_ns = st.end_ns - x.we;
	}
	st.began_before = r->flags & (LS_LOCK_F_PRIOR | LS_LOCK_F_LATE);
	st.found_late = r->flags & LS_LOCK_F_LATE;
	st.lock = r->lock;
	st.waiter = r->task;
	st.waiter_cgroup_id = r->cgroup_id;
	st.op = r->op;
	st.vma_lock_fallback = r->op.kind == LS_OP_PAGE_FAULT &&
			       (e->features & LS_FEAT_PER_VMA_LOCK);
	st.waiter_stack = e->wait_stack;
	st.n_holders = n_groups < LS_MAX_HOLDERS ? n_groups : LS_MAX_HOLDERS;
	st.holders_dropped = n_groups - st.n_holders + x.dropped;
	if (!stall__wanted(e, &st, n_groups))
		goto cleanup;

	st.lost_in_window = engine__lost_in(e, x.ws, x.we);
	for (i = 0; i < st.n_holders; i++) {
		stall__fill_holder(e, e->order[i], &e->holders[i], e->spells[i]);
		if (p->pending)
			pending__holder_now(e, &e->holders[i], r->lock.id, !st.lost_in_window);
		hops__waited(e, &e->holders[i], &r->lock, x.ws, x.we);
	}
	st.holders = e->holders;
	/* The stall says it lost detail; the summary counts such stalls once each. */
	st.history_short = e->stall_history_short;
	if (st.history_short && !p->pending)
		e->sum.stalls_short++;
	stall__judge(e, &st, &x.qw, p->cycle);

	stall__count(e, &st, p);
	task_cgroups__stall(e, &st);
	renames__stall(e, &st);
	err = sink__stall(e->sink, &st);
	hops__remember(e, &st);
	err = err < 0 ? err : 1;
cleanup:
	for (i = 0; i < x.n; i++)
		if (e->cands[i].temp)
			hold__free(e, e->cands[i].h);
	return err;
}

/* filter_pid for a deadlock: any task of the cycle. */
static bool deadlock__wanted(const struct engine *e, const struct ls_stall *st)
{
	unsigned int i;

	if (!e->opts.filter_pid)
		return true;
	for (i = 0; i < st->n_chain; i++)
		if (st->chain[i].task.tgid == e->opts.filter_pid)
			return true;
	return false;
}

int stall__deadlock(struct engine *e, struct task *tk, __u8 reason)
{
	struct ls_holder *hd = &e->holders[0];
	struct ls_stall st;

	memset(&st, 0, sizeof(st));
	memset(hd, 0, sizeof(*hd));
	st.write = true;
	st.start_ns = tk->wait_owner_start;
	st.end_ns = u64_max(e->now, st.start_ns);
	st.wait_ns = st.end_ns - st.start_ns;
	st.lock_wait_ns = st.wait_ns;
	st.lock = tk->wait_lock;
	st.waiter = tk->info;
	st.unknown_reason = reason;
	/* tk's wait began last: the cycle's start is its start, known or not */
	st.began_before = tk->wait_prior;
	st.found_late = tk->wait_prior & LS_LOCK_F_LATE;
	/* Its OWNER comes before its WAIT_BEGIN: what it waits in may not be known yet. */
	st.op.syscall = -1;
	if (tk->waiting) {
		st.op = tk->wait_op;
		st.waiter_cgroup_id = tk->wait_cgroup_id;
	}
	deadlock__chain(e, tk, &st);
	if (st.n_chain < 2 || !deadlock__wanted(e, &st))
		return 0;
	/* The holder: the owner the waiter named, asleep on the next lock of the cycle. */
	hd->task = st.chain[1].task;
	hd->how = tk->wait_owner_how;
	hd->write = true;
	hd->hold_start_ns = st.start_ns;
	hd->hold_end_ns = st.end_ns;
	hd->held_ns = hd->overlap_ns = hd->offcpu_ns = st.wait_ns;
	hd->offcpu_by_state[LS_STATE_BLOCKED] = st.wait_ns;
	hd->state = LS_STATE_BLOCKED;
	st.holders = e->holders;
	st.n_holders = 1;
	st.lost_in_window = engine__lost_in(e, st.start_ns, st.end_ns);
	st.verdict = reason ? LS_VERDICT_UNKNOWN : LS_VERDICT_DEADLOCK;
	if (e->features & LS_FEAT_CAUSES)
		st.advice = ls_advice(&st);
	stall__count(e, &st, &(struct stall_pend){ 0 });
	task_cgroups__stall(e, &st);
	renames__stall(e, &st);
	return sink__stall(e->sink, &st);
}
