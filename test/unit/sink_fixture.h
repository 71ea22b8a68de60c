/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Hand-built stalls and histograms for the sink tests (test_sink_text.c,
 * test_sink_json.c), and capture of what a sink writes.
 */
#ifndef LOCKSTALL_TEST_SINK_FIXTURE_H
#define LOCKSTALL_TEST_SINK_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/sinks.h"
#include "util.h"

/* Bytes a hostile process could give itself: newline, ESC, markup, non-UTF-8. */
#define FX_HOSTILE_COMM "\n\x1b[2J<script>\xff"

#define FX_MS(x) ((__u64)(x) * NSEC_PER_MSEC)
#define FX_T0 (1000 * NSEC_PER_SEC)	/* the run began at 1000 s monotonic */

struct fx_out {
	char *buf;
	size_t len;
	FILE *f;
};

static inline void fx_out_open(struct fx_out *o)
{
	memset(o, 0, sizeof(*o));
	o->f = open_memstream(&o->buf, &o->len);
}

/* Close the stream and keep the text it got (NUL-terminated by memstream). */
static inline const char *fx_out_close(struct fx_out *o)
{
	fclose(o->f);
	o->f = NULL;
	return o->buf;
}

static inline void fx_out_free(struct fx_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

/* comm is 16 bytes, not necessarily NUL-terminated: copy like the kernel */
static inline void fx_comm(char dst[LS_COMM_LEN], const char *src)
{
	memset(dst, 0, LS_COMM_LEN);
	memcpy(dst, src, strnlen(src, LS_COMM_LEN));
}

static inline void fx_task(struct ls_task *t, __u32 tgid, __u32 tid, const char *comm,
			   __u8 policy, __s8 nice, __u8 rt_prio)
{
	memset(t, 0, sizeof(*t));
	t->tgid = tgid;
	t->tid = tid;
	t->policy = policy;
	t->nice = nice;
	t->rt_prio = rt_prio;
	if (policy == LS_POLICY_FIFO || policy == LS_POLICY_RR)
		t->prio = 99 - rt_prio;
	else if (policy == LS_POLICY_DEADLINE)
		t->prio = -1;
	else
		t->prio = 120 + nice;
	fx_comm(t->comm, comm);
}

/*
 * The example stall: victim (SCHED_FIFO 50) waits 23.4ms in mmap() for
 * the write lock of its own mm while reader (SCHED_IDLE) holds it for read
 * and is preempted 22.9ms by hog.
 */
static inline void fx_holder_reader(struct ls_holder *h)
{
	memset(h, 0, sizeof(*h));
	fx_task(&h->task, 2001, 2001, "reader", LS_POLICY_IDLE, 0, 0);
	h->op.kind = LS_OP_SYSCALL;
	h->op.syscall = 11;	/* munmap */
	h->write = false;
	h->released = true;
	h->hold_start_ns = FX_T0 + FX_MS(1000);
	h->hold_end_ns = h->hold_start_ns + 25100000;
	h->held_ns = 25100000;
	h->overlap_ns = 23400000;
	h->offcpu_ns = 23000000;
	h->offcpu_by_state[LS_STATE_PREEMPTED] = 23000000;
	h->state = LS_STATE_PREEMPTED;
	fx_task(&h->preempted_by[0].task, 3001, 3001, "hog", LS_POLICY_NORMAL, 0, 0);
	h->preempted_by[0].ns = 22900000;
	h->n_preempted_by = 1;
}

/* rename r: the task st names tid comm had the other name (was) or has it now. */
static inline void fx_rename(struct ls_rename *r, __u32 tid, const char *comm, const char *other,
			     bool was)
{
	memset(r, 0, sizeof(*r));
	r->tid = tid;
	fx_comm(r->comm, comm);
	fx_comm(r->other, other);
	r->was = was;
}

static inline void fx_stall(struct ls_stall *st, const struct ls_holder *holders, unsigned int n)
{
	memset(st, 0, sizeof(*st));
	st->seq = 3;
	st->write = true;
	st->acquired = true;
	st->start_ns = FX_T0 + FX_MS(1234);
	st->wait_ns = 23400000;
	st->lock_wait_ns = st->wait_ns;	/* no handoff */
	st->end_ns = st->start_ns + st->wait_ns;
	st->lock.id = 0xffff888012345600ULL;
	st->lock.tgid = 1234;
	fx_comm(st->lock.comm, "victim");
	fx_task(&st->waiter, 1234, 1240, "victim", LS_POLICY_FIFO, 0, 50);
	st->op.kind = LS_OP_SYSCALL;
	st->op.syscall = 9;	/* mmap */
	st->holders = holders;
	st->n_holders = n;
	st->verdict = n ? LS_VERDICT_PRIORITY_INVERSION : LS_VERDICT_UNKNOWN;

	st->chain[0].task = st->waiter;
	st->chain[0].role = LS_ROLE_WAITER;
	st->chain[0].write = true;
	st->n_chain = 1;
	if (n) {
		st->chain[1].task = holders[0].task;
		st->chain[1].role = LS_ROLE_HOLDER;
		st->chain[1].write = holders[0].write;
		st->chain[1].ns = holders[0].offcpu_ns;
		st->n_chain = 2;
		if (holders[0].n_preempted_by) {
			st->chain[2].task = holders[0].preempted_by[0].task;
			st->chain[2].role = LS_ROLE_PREEMPTOR;
			st->chain[2].ns = holders[0].preempted_by[0].ns;
			st->n_chain = 3;
		}
	}
}

/*
 * The same wait still open at +4.234s, reported twice: the holder still
 * holds (which mm, not confirmed yet), preempted since +1s.
 */
/*
 * A futex owner the waiter named by TID 2002 that no record showed: only
 * the TID is known, where it was is not (the whole wait unseen).
 */
static inline void fx_stall_unseen_owner(struct ls_stall *st, struct ls_holder *h)
{
	memset(h, 0, sizeof(*h));
	h->task.tid = 2002;
	h->how = LS_OWNER_PTHREAD;
	h->write = true;
	h->released = true;
	fx_stall(st, h, 1);
	st->lock.kind = LS_LOCK_FUTEX;
	h->hold_start_ns = st->start_ns;
	h->hold_end_ns = st->end_ns;
	h->held_ns = h->overlap_ns = h->unseen_ns = st->lock_wait_ns;
	h->state = LS_STATE_UNKNOWN;
	st->verdict = LS_VERDICT_UNKNOWN;
	st->chain[1].task = h->task;
}

static inline void fx_stall_pending(struct ls_stall *st, struct ls_holder *h)
{
	fx_holder_reader(h);
	h->released = false;
	h->lock_unconfirmed = true;
	h->state_now = LS_STATE_PREEMPTED;
	h->state_since_ns = FX_T0 + FX_MS(1000);
	fx_stall(st, h, 1);
	st->seq = 0;
	st->pending = true;
	st->acquired = false;
	st->pending_reports = 2;
	st->pending_first_ns = FX_T0 + FX_MS(2234);
}

/*
 * fx_stall() with its holder's hop (chain[1]) holding a futex of the
 * waiter's process named name in module: a chain across locks.
 */
static inline void fx_stall_hop_lock(struct ls_stall *st, struct ls_holder *h, const char *name,
				     const char *module)
{
	fx_holder_reader(h);
	fx_stall(st, h, 1);
	st->chain[1].has_lock = true;
	st->chain[1].lock = st->lock;
	st->chain[1].lock.kind = LS_LOCK_FUTEX;
	st->chain[1].lock.id = 0x55d0c0de1040ULL;
	st->chain[1].lock_name = name;
	st->chain[1].lock_module = module;
}

/* A PI futex's stall whose owner (in the futex word) was not boosted in time. */
static inline void fx_stall_pi_late(struct ls_stall *st, struct ls_holder *h)
{
	fx_holder_reader(h);
	h->how = LS_OWNER_FUTEX_WORD;
	h->pi_unboosted_ns = 22900000;
	h->offcpu_by_state[LS_STATE_BLOCKED] = 0;
	h->pi_late = true;
	fx_stall(st, h, 1);
	st->lock.kind = LS_LOCK_PI_FUTEX;
}

static inline void fx_hist(struct ls_hist_entry *e, __u32 tgid, __u8 kind, __u8 write,
			   const char *comm, __u64 sum_ns)
{
	memset(e, 0, sizeof(*e));
	e->key.tgid = tgid;
	e->key.kind = kind;
	e->key.write = write;
	fx_comm(e->hist.comm, comm);
	e->hist.sum_ns = sum_ns;
	/* 3 values in [0,1) us and 6 in [4,8) us */
	e->hist.slots[0] = 3;
	e->hist.slots[3] = 6;
	e->hist.count = 9;
}

#endif /* LOCKSTALL_TEST_SINK_FIXTURE_H */
