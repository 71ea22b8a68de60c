/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Following a lock's owner while someone waits on it (futex.bpf.h,
 * klock.bpf.h): ls_owner_begin() as a wait names its owner, ls_owner_end()
 * or ls_owned_wait_end() as it ends.  The owner is found with
 * bpf_task_from_pid() (6.2+); its task storage counts the waiters that
 * named it (LS_TASK_F_OWNER: its switches are sent while one waits), and an
 * LS_REC_OWNER record says where it was as the wait began.  Without the
 * kfunc (before 6.2) it is followed by its TID instead (owner_tid.bpf.h).
 * Task storage only: the hash object (5.10) follows no owners.
 */
#ifndef LOCKSTALL_OWNER_BPF_H
#define LOCKSTALL_OWNER_BPF_H

#include "compat.bpf.h"
#include "io.bpf.h"
#include "mmap_lock.bpf.h"
#include "owner_tid.bpf.h"
#include "task_cgroup.bpf.h"
#include "watch.bpf.h"

/*
 * Set by user space once the scan that finds long quiet waits runs
 * (ls_quiet_waits, prior.bpf.h): futex and kernel lock waits then start
 * quiet (LS_W_QUIET) and send nothing unless they last min_wait_ns.
 */
bool quiet_waits = false;

/* The flags a futex or kernel lock wait starts with. */
static __always_inline __u8 ls_owned_wait_flags(void)
{
	return LS_W_ACTIVE | (quiet_waits ? LS_W_QUIET : 0);
}

#ifndef LS_TASK_STATE_HASH
/* Weak: the object still loads where they are missing (the loader turns the programs off). */
extern struct task_struct *bpf_task_from_pid(__s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;

/* Where the owner is now, for the engine; 0..2 as enum ls_owner_state. */
static __always_inline __u8 ls_owner_state(struct task_struct *t)
{
	return ls_task_where(t->on_cpu, t->on_rq, ls_task_sched_state(t));
}

/*
 * The OWNER record of t, the owner st's wait names (os its state), where
 * it was (state on cpu) as the wait began; late: sent as a quiet wait
 * turned out long, with the state it had then (LS_OWNER_F_LATE).
 */
static __always_inline void ls_owner_tell(struct task_struct *waiter, struct ls_task_state *st,
					  struct task_struct *t, struct ls_task_state *os,
					  __u32 cpu, __u8 state, __u64 now, bool late)
{
	bool io = state == LS_OWNER_BLOCKED && ls_in_io_wait(t, ls_task_sched_state(t));
	struct ls_rec_owner *r = ls_emit_reserve(LS_REC_OWNER, sizeof(*r), now);

	if (!r)
		return;
	ls_task_fill(&r->waiter, waiter);
	ls_task_fill(&r->owner, t);
	if (!late)
		ls_task_fill_cpu_curr(&r->cpu_curr, cpu);
	ls_lock_fill(&r->lock, &st->wait, waiter);
	r->start_ns = st->wait.start_ns;
	r->owner_cpu = cpu;
	r->owner_state = state;
	r->how = st->wait.owner_how;
	r->owner_flags = ls_state_flags(os) | (late ? LS_OWNER_F_LATE : 0);
	r->owner_cause = io ? LS_CAUSE_F_IO : 0;
	ls_emit_submit(r);
	if (io)
		ls_emit_io_dev(t, os, now);
	ls_emit_task_cgroup(t, now);
	if (state == LS_OWNER_RUNNABLE)
		ls_emit_cpu_curr_cgroup(cpu, now);
	os->seen = 1;
	st->seen = 1;
	st->wait.flags |= LS_W_OWNER_SENT;
}

/*
 * Mark the owner followed and tell the engine where it is.  false: no
 * such thread in the waiter's process (for a plain futex), so no owner.
 * known: the owner's task_struct if the lock said it (a kernel lock),
 * for owners followed by TID (owner_tid.bpf.h); else NULL.  A quiet wait
 * (LS_W_QUIET) whose owner runs tells nothing yet: most such waits end
 * short (ls_wait_promote() tells it if not).  An owner off CPU is told
 * now, where it is being the one thing a later record cannot say, and
 * the wait then owes its WAIT_END even if short.
 */
static __always_inline bool ls_owner_begin(struct task_struct *cur, struct ls_task_state *st,
					   struct task_struct *known, __u64 now)
{
	struct task_struct *t;
	struct ls_task_state *os;
	bool ok = false;
	__u32 cpu;
	__u8 state;

	if (cfg.owner_by_tid)
		return ls_owner_begin_tid(cur, st, known, now);
	t = bpf_task_from_pid(st->wait.owner_tid);
	if (!t)
		return false;
	if (st->wait.kind == LS_LOCK_FUTEX && t->tgid != cur->tgid)
		goto out;
	os = task_state__get(t);
	if (!os)
		goto out;
	ok = true;
	/* Both: the owner's own switch may be disarming it on another CPU right now. */
	ls_owner_filter_add(st->wait.owner_tid, 1);
	task_state__arm(t, os);
	if (os->pend.owner_waiters < 255)
		os->pend.owner_waiters++;
	cpu = ls_task_cpu(t);
	state = ls_owner_state(t);
	/* Off CPU from now on as far as its off-CPU sums go; a runnable one is watched. */
	if (state != LS_OWNER_RUNNING && !os->offcpu_start_ns)
		os->offcpu_start_ns = now;
	if (state == LS_OWNER_RUNNABLE)
		ls_watch_raise(os, cpu);
	if (!(st->wait.flags & LS_W_QUIET) || state != LS_OWNER_RUNNING)
		ls_owner_tell(cur, st, t, os, cpu, state, now, false);
out:
	bpf_task_release(t);
	return ok;
}

/* The OWNER record a quiet wait of waiter (state st) still owes, if it named one. */
static __always_inline void ls_owner_tell_late(struct task_struct *waiter,
					       struct ls_task_state *st, __u64 now)
{
	struct task_struct *t;
	struct ls_task_state *os;

	/* rodata: by TID (no kfunc) no wait is quiet, and the verifier drops the call */
	if (cfg.owner_by_tid || !st->wait.owner_tid || (st->wait.flags & LS_W_OWNER_SENT))
		return;
	t = bpf_task_from_pid(st->wait.owner_tid);
	if (!t)
		return;
	os = task_state__lookup(t);
	if (os)
		ls_owner_tell(waiter, st, t, os, ls_task_cpu(t), LS_OWNER_RUNNING, now, true);
	bpf_task_release(t);
}

/*
 * A quiet wait of t (state st) turned out long (it lasted min_wait_ns, or
 * the scan found it so): what an ordinary wait would have sent by now,
 * its OWNER and WAIT_BEGIN, with the times they would have had; from here
 * on it is an ordinary wait.
 */
static __always_inline void ls_wait_promote(struct ls_task_state *st, struct task_struct *t,
					    __u64 now)
{
	if (!(st->wait.flags & LS_W_QUIET))
		return;
	st->wait.flags &= ~LS_W_QUIET;
	ls_owner_tell_late(t, st, now);
	ls_wait_begin(st, t, now);
}

static __always_inline void ls_owner_end(struct ls_task_state *st, __u32 tid)
{
	struct task_struct *t;
	struct ls_task_state *os;

	if (cfg.owner_by_tid) {
		ls_owner_end_tid(st, tid);
		return;
	}
	ls_owner_filter_add(tid, -1);
	t = bpf_task_from_pid(tid);
	if (!t)
		return;
	os = task_state__lookup(t);
	if (os && os->pend.owner_waiters)
		os->pend.owner_waiters--;
	bpf_task_release(t);
}

/* A futex or kernel lock wait of cur (current) ends: WAIT_END by the rules, its owner let go. */
static __always_inline void ls_owned_wait_end(void *ctx, struct ls_task_state *st,
					      struct task_struct *cur, bool success)
{
	__u32 owner = st->wait.owner_tid;
	__u64 now = bpf_ktime_get_ns();

	if (now - st->wait.start_ns >= cfg.min_wait_ns)
		ls_wait_promote(st, cur, now);
	ls_wait_end(ctx, st, cur, now, success);
	st->wait.kind = LS_LOCK_MMAP;
	st->wait.owner_tid = 0;
	st->wait.owner_how = LS_OWNER_NONE;
	if (owner)
		ls_owner_end(st, owner);
}
#else
/* The hash object's waits are never quiet (quiet_waits stays false). */
static __always_inline void ls_wait_promote(struct ls_task_state *st, struct task_struct *t,
					    __u64 now)
{
}
#endif /* !LS_TASK_STATE_HASH */

#endif /* LOCKSTALL_OWNER_BPF_H */
