// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A task's names over time, and the renames a stall names.
 *
 * A stall names each task by the record it learned it from, so a process
 * that exec'd ("bash" running "ps") shows under the name it had then,
 * while its histograms already carry the new one.  No record says "exec":
 * a task's comm changing between its records is the fact the engine has,
 * and it replays from a recording as it ran.  An exec and PR_SET_NAME
 * look the same in it, so a stall says "was" and "now", never "exec".
 */
#include <string.h>
#include "engine/internal.h"

void task__note_comm(struct task *tk, const char comm[LS_COMM_LEN], __u64 ts)
{
	if (!comm[0])
		return;		/* an id-only task, no name in it */
	if (!tk->comm[0] || !memcmp(tk->comm, comm, LS_COMM_LEN)) {
		if (!tk->comm[0])
			memcpy(tk->comm, comm, LS_COMM_LEN);
		tk->comm_ts = u64_max(tk->comm_ts, ts);
		return;
	}
	/* CPUs' streams interleave: a late record under an older name is no rename. */
	if (ts < tk->comm_ts) {
		if (!memcmp(tk->comm_was, comm, LS_COMM_LEN))
			tk->comm_was_ts = u64_max(tk->comm_was_ts, ts);
		return;
	}
	memcpy(tk->comm_was, tk->comm, LS_COMM_LEN);
	tk->comm_was_ts = tk->comm_ts;
	memcpy(tk->comm, comm, LS_COMM_LEN);
	tk->comm_ts = ts;
	tk->renamed_ns = ts;
}

const struct ls_rename *ls_stall__rename(const struct ls_stall *st, __u32 tid,
					 const char comm[LS_COMM_LEN])
{
	unsigned int i;

	for (i = 0; i < st->n_renames; i++)
		if (st->renames[i].tid == tid && !memcmp(st->renames[i].comm, comm, LS_COMM_LEN))
			return &st->renames[i];
	return NULL;
}

/*
 * st names tid (of process tgid) comm: a rename if the task table knows a
 * newer name ("now"), or if this one replaced another that records showed
 * within the stall's history, retain before its start ("was"): a process
 * that exec'd an hour ago is no news, one that was "bash" a moment before
 * its stall is the same process as the "bash" of the stalls just printed.
 */
static void renames__add(struct engine *e, struct ls_stall *st, __u32 tid, __u32 tgid,
			 const char comm[LS_COMM_LEN])
{
	const struct task *tk;
	struct ls_rename *r;
	bool was;

	if (!tid || !comm[0] || st->n_renames >= LS_MAX_RENAMES || ls_stall__rename(st, tid, comm))
		return;
	tk = map__get(&e->tasks, tid);
	if (!tk || tk->tgid != tgid || !tk->renamed_ns)
		return;
	was = !memcmp(tk->comm, comm, LS_COMM_LEN);
	if (was && tk->comm_was_ts < u64_sat_sub(st->start_ns, e->retain))
		return;
	r = &e->renames[st->n_renames++];
	r->tid = tid;
	memcpy(r->comm, comm, LS_COMM_LEN);
	memcpy(r->other, was ? tk->comm_was : tk->comm, LS_COMM_LEN);
	r->was = was;
	r->renamed_ns = tk->renamed_ns;
}

static void renames__task(struct engine *e, struct ls_stall *st, const struct ls_task *t)
{
	renames__add(e, st, t->tid, t->tgid, t->comm);
}

static void renames__holder(struct engine *e, struct ls_stall *st, const struct ls_holder *h)
{
	unsigned int i;

	renames__task(e, st, &h->task);
	for (i = 0; i < h->n_preempted_by && i < LS_MAX_PREEMPTORS; i++)
		renames__task(e, st, &h->preempted_by[i].task);
	if (h->has_waker)
		renames__task(e, st, &h->woken_by);
	for (i = 0; i < h->n_spells && i < LS_MAX_SPELLS; i++)
		renames__task(e, st, &h->spells[i].ran_instead);
}

/* Most important first: the waiter, the lock's process, the holders, the chain. */
void renames__stall(struct engine *e, struct ls_stall *st)
{
	unsigned int i;

	st->renames = e->renames;
	st->n_renames = 0;
	renames__task(e, st, &st->waiter);
	renames__add(e, st, st->lock.tgid, st->lock.tgid, st->lock.comm);
	for (i = 0; i < st->n_holders && i < LS_MAX_HOLDERS; i++)
		renames__holder(e, st, &st->holders[i]);
	for (i = 0; i < st->n_chain && i < LS_MAX_HOPS; i++) {
		renames__task(e, st, &st->chain[i].task);
		if (st->chain[i].has_lock)
			renames__add(e, st, st->chain[i].lock.tgid, st->chain[i].lock.tgid,
				     st->chain[i].lock.comm);
	}
}
