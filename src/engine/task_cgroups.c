// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cgroup of each task as the kernel side last told it (LS_REC_TASK_CGROUP),
 * for the holders no lock record of theirs names (futex and kernel lock
 * owners) and for the tasks that ran instead of a holder.  A table of its
 * own, by tid: preemptors are seldom in the task table, and its entries
 * go with a task's lock state.
 *
 * The kernel side tells a task's id again at least every
 * LS_TASK_CGROUP_RESEND_NS while the task takes part in stalls, so when
 * the table is full, entries not told for a few of those periods go: the
 * tasks they name will be told again if they take part again.
 */
#include <stdlib.h>
#include "engine/internal.h"

/* An entry is stale after this many resend periods without news. */
#define TASK_CGROUP_STALE_PERIODS 4

struct task_cgroup {
	__u64 cgroup_id;
	__u64 ts;		/* the record that told it */
};

/* Drop the entries told before cut; backward-shift deletion may move one into slot i. */
static void task_cgroups__prune(struct engine *e, __u64 cut)
{
	struct task_cgroup *tc;
	__u32 i;

	for (i = 0; i < e->task_cgroups.cap; i++) {
		while ((tc = map__slot(&e->task_cgroups, i)) && tc->ts < cut) {
			map__del(&e->task_cgroups, e->task_cgroups.slots[i].key);
			free(tc);
		}
	}
}

void task_cgroups__record(struct engine *e, const struct ls_rec_task_cgroup *r)
{
	struct task_cgroup *tc = map__get(&e->task_cgroups, r->tid);
	__u64 stale = TASK_CGROUP_STALE_PERIODS * LS_TASK_CGROUP_RESEND_NS;

	if (tc) {
		/* records of one tid from two CPUs may cross: the newer stands */
		if (r->hdr.ts >= tc->ts) {
			tc->cgroup_id = r->cgroup_id;
			tc->ts = r->hdr.ts;
		}
		return;
	}
	if (e->task_cgroups.n >= e->task_cgroups.max)
		task_cgroups__prune(e, u64_sat_sub(e->now, stale));
	tc = malloc(sizeof(*tc));
	if (!tc || map__put(&e->task_cgroups, r->tid, tc)) {
		free(tc);
		e->sum.evicted++;
		return;
	}
	tc->cgroup_id = r->cgroup_id;
	tc->ts = r->hdr.ts;
}

__u64 task_cgroups__of(const struct engine *e, __u32 tid)
{
	const struct task_cgroup *tc = tid ? map__get(&e->task_cgroups, tid) : NULL;

	return tc ? tc->cgroup_id : 0;
}

/*
 * A stall's tasks without a cgroup from their own lock records (futex and
 * kernel lock owners, a deadlock's waiter) and its preemptors take the
 * table's.
 */
void task_cgroups__stall(struct engine *e, struct ls_stall *st)
{
	struct ls_holder *h;
	unsigned int i, k;

	st->task_cgroups = !!(e->features & LS_FEAT_TASK_CGROUP);
	if (!st->waiter_cgroup_id)
		st->waiter_cgroup_id = task_cgroups__of(e, st->waiter.tid);
	for (i = 0; i < st->n_holders; i++) {
		/* the engine's own array: st->holders points into it */
		h = &e->holders[i];
		if (!h->cgroup_id)
			h->cgroup_id = task_cgroups__of(e, h->task.tid);
		for (k = 0; k < h->n_preempted_by && k < LS_MAX_PREEMPTORS; k++)
			h->preempted_by[k].cgroup_id =
				task_cgroups__of(e, h->preempted_by[k].task.tid);
	}
}

void task_cgroups__free_all(struct engine *e)
{
	task_cgroups__prune(e, ~0ULL);
	map__free(&e->task_cgroups);
}
