/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What stall.c and stall_holders.c share, nothing else includes it: the
 * holds judged for one stall and the walk that finds them.  stall.c turns
 * a WAIT_END into a stall; stall_holders.c finds, measures and merges the
 * holds that kept the waiter waiting and fills in the holders.
 */
#ifndef LOCKSTALL_ENGINE_STALL_H
#define LOCKSTALL_ENGINE_STALL_H

#include "engine/internal.h"

/* One hold judged for a stall.  The first of each tid's run is its group leader. */
struct stall_cand {
	struct hold *h;
	bool temp;		/* h was made from an open hold for this stall */
	__u64 from, to;		/* the hold inside the wait */
	__u64 overlap;
	__u64 offcpu;
	__u64 unseen;		/* of overlap: no record said where its task was */
	__u64 by_state[LS_STATE_N];
	struct cause_part cause[LS_CAUSE_N];
	__u64 blocked_longest;	/* longest blocked spell, and its waker */
	bool pi;		/* a PI futex's owner: unboosted is measured */
	__u64 unboosted;	/* runnable below the waiter's priority */
	bool has_waker;
	struct ls_task waker;
	__u32 n_group;		/* leader: holds of this tid, itself first */
};

struct queued_writer {
	bool found;
	struct ls_task task;
	__u64 start;
	__u64 end;
};

struct stall_ctx {
	const struct ls_rec_lock *r;
	const struct stall_pend *p;
	__u64 ws, we;		/* the wait */
	bool write;
	struct queued_writer qw;
	__u32 n;		/* candidates */
	__u32 dropped;		/* beyond ENGINE_MAX_CANDS */
};

/* The earliest write wait queued ahead of a read wait, into x->qw. */
void stall__find_queued_writer(struct lock *lk, struct stall_ctx *x);
/* The holds on lk that overlap the wait and conflict with it, into e->cands. */
void stall__collect(struct engine *e, struct lock *lk, struct stall_ctx *x);
/* For a lock without hold records: the owner the waiter named, or its waker. */
void stall__collect_owner(struct engine *e, struct stall_ctx *x);
/* Measure the candidates, fold each tid's into its leader; the number of leaders. */
__u32 stall__group(struct engine *e, struct stall_ctx *x);
/* One holder, its spells and preemptors, from a group leader. */
void stall__fill_holder(struct engine *e, const struct stall_cand *lead,
			struct ls_holder *hd, struct ls_spell *spells);

#endif /* LOCKSTALL_ENGINE_STALL_H */
