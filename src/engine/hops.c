// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Chains through waits that ended: a holder that waited on a second lock
 * while it held the first usually got it before the waiter's wait ended
 * (that is why it ended), so its wait is over when the waiter's stall is
 * judged.  The stall made of that wait says who held the second lock and
 * why; the later stall goes on through it, hop by hop, and is judged by
 * the task at the root (src/engine/locks.md, "Chains across
 * locks").
 */
#include <string.h>
#include "engine/internal.h"

static bool verdict__off_cpu(enum ls_verdict v)
{
	return v == LS_VERDICT_PRIORITY_INVERSION || v == LS_VERDICT_HOLDER_OFF_CPU;
}

void hops__remember(struct engine *e, const struct ls_stall *st)
{
	struct past_stall *ps = &e->past[e->past_next];
	unsigned int i;

	if (st->pending || !st->seq || !st->waiter.tid)
		return;
	e->past_next = (e->past_next + 1) % ENGINE_PAST_STALLS;
	memset(ps, 0, sizeof(*ps));
	ps->tid = st->waiter.tid;
	ps->seq = st->seq;
	ps->start = st->start_ns;
	ps->end = st->start_ns + st->lock_wait_ns;
	ps->lock = st->lock;
	ps->verdict = st->verdict;
	ps->cause = st->cause;
	ps->advice = st->advice;
	for (i = 1; i < st->n_chain && i < LS_MAX_HOPS; i++) {
		ps->chain[ps->n_chain] = st->chain[i];
		/* the resolver's strings live only as long as that stall */
		ps->chain[ps->n_chain].lock_name = NULL;
		ps->chain[ps->n_chain].lock_module = NULL;
		ps->n_chain++;
	}
	if (!st->n_holders)
		return;
	ps->has_culprit = true;
	ps->culprit = st->holders[0].task;
	ps->culprit_state = st->holders[0].state;
	/* The last holder of its chain: past its culprit when that chain went on. */
	ps->root = ps->culprit;
	for (i = 0; i < ps->n_chain; i++)
		if (ps->chain[i].role == LS_ROLE_HOLDER)
			ps->root = ps->chain[i].task;
}

/* The part of ps's wait inside [from, to), if ps is a wait of tid's on another lock. */
static __u64 past__overlap(const struct past_stall *ps, __u32 tid, const struct ls_lock_id *not,
			   __u64 from, __u64 to)
{
	if (ps->tid != tid || (ps->lock.id == not->id && ps->lock.kind == not->kind))
		return 0;
	return span_overlap(ps->start, ps->end, from, to);
}

/* Insert w into hd->waited, longest first, at most LS_MAX_WAITED. */
static void waited__insert(struct ls_holder *hd, const struct ls_waited *w)
{
	unsigned int i = hd->n_waited;

	if (i == LS_MAX_WAITED) {
		if (hd->waited[i - 1].ns >= w->ns)
			return;
		i--;
	} else {
		hd->n_waited++;
	}
	while (i > 0 && hd->waited[i - 1].ns < w->ns) {
		hd->waited[i] = hd->waited[i - 1];
		i--;
	}
	hd->waited[i] = *w;
}

void hops__waited(const struct engine *e, struct ls_holder *hd, const struct ls_lock_id *lock,
		  __u64 from, __u64 to)
{
	const struct past_stall *ps;
	struct ls_waited w;
	__u32 i;

	hd->n_waited = 0;
	from = u64_max(from, hd->hold_start_ns);
	to = u64_min(to, hd->hold_end_ns);
	for (i = 0; i < ENGINE_PAST_STALLS; i++) {
		ps = &e->past[i];
		memset(&w, 0, sizeof(w));
		w.ns = past__overlap(ps, hd->task.tid, lock, from, to);
		if (!w.ns)
			continue;
		w.lock = ps->lock;
		w.start_ns = u64_max(ps->start, from);
		w.end_ns = w.start_ns + w.ns;
		w.stall_seq = ps->seq;
		w.verdict = ps->verdict;
		if (ps->has_culprit) {
			w.holder = ps->culprit;
			w.holder_state = ps->culprit_state;
		}
		waited__insert(hd, &w);
	}
}

/*
 * The holder's waits inside [from, to) on the lock of ps: how long in all.
 * A lock taken and let go between waits (a reader of smaps_rollup backs
 * off when the lock is contended) is still what it slept on.
 */
static __u64 past__lock_overlap(const struct engine *e, const struct past_stall *ps, __u32 tid,
				const struct ls_lock_id *not, __u64 from, __u64 to)
{
	const struct past_stall *o;
	__u64 ns = 0;
	unsigned int i;

	for (i = 0; i < ENGINE_PAST_STALLS; i++) {
		o = &e->past[i];
		if (o->lock.id == ps->lock.id && o->lock.kind == ps->lock.kind)
			ns += past__overlap(o, tid, not, from, to);
	}
	return ns;
}

const struct past_stall *hops__chain(const struct engine *e, struct ls_stall *st,
				     const struct ls_holder *h)
{
	const struct past_stall *best = NULL;
	__u64 from = u64_max(st->start_ns, h->hold_start_ns);
	__u64 to = u64_min(st->start_ns + st->lock_wait_ns, h->hold_end_ns);
	__u64 ns, best_ns = 0, lock_ns;
	struct ls_hop *hop;
	unsigned int i;

	/* the holder's longest wait inside the window names the lock and the hop's stall */
	for (i = 0; i < ENGINE_PAST_STALLS; i++) {
		ns = past__overlap(&e->past[i], h->task.tid, &st->lock, from, to);
		if (ns > best_ns) {
			best_ns = ns;
			best = &e->past[i];
		}
	}
	if (!best || !best->n_chain)
		return NULL;
	lock_ns = past__lock_overlap(e, best, h->task.tid, &st->lock, from, to);
	/* A short wait in a long sleep on something else is not why it slept. */
	if (lock_ns * 2 < h->offcpu_by_state[LS_STATE_BLOCKED])
		return NULL;
	for (i = 0; i < best->n_chain && st->n_chain < LS_MAX_HOPS; i++) {
		hop = &st->chain[st->n_chain++];
		*hop = best->chain[i];
		if (i)
			continue;
		/* the first hop holds (or queued ahead on) the lock the holder waited on */
		hop->has_lock = true;
		hop->lock = best->lock;
		hop->stall_seq = best->seq;
		hop->wait_ns = lock_ns;
	}
	return best;
}

bool hops__judge(struct ls_stall *st, const struct past_stall *via)
{
	/* Its holder slept on that lock, and that lock's holder was kept off CPU. */
	if (!verdict__off_cpu(st->verdict) || !verdict__off_cpu(via->verdict) ||
	    !via->has_culprit)
		return false;
	st->verdict = ls_task_importance_cmp(&via->root, &st->waiter) < 0 ?
		LS_VERDICT_PRIORITY_INVERSION : LS_VERDICT_HOLDER_OFF_CPU;
	if (st->cause == LS_CAUSE_NONE)
		st->cause = via->cause;
	return true;
}
