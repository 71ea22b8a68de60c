/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Lock owners followed by TID, where the kernel lacks bpf_task_from_pid()
 * (before 6.2: Debian 12's 6.1) or the loader is told to (cfg.owner_by_tid,
 * LS_FEAT_OWNER_BY_TID).  A waiter there cannot reach its owner's task
 * storage, only its TID: it leaves a mark (owner_marks: TID -> waiters)
 * and the owner takes it into its own storage (pend.owner_waiters) at its
 * next switch, waking (so that its waker is kept), wakeup or migration,
 * the events an owner's following needs.  The marks are counted in
 * task_armed (task_state.bpf.h) by TID too, so a task
 * without a mark costs one array read on those paths, and with the kfunc
 * (owner_by_tid false, a constant to the verifier) nothing at all.
 *
 * The waiter's OWNER record still says where the owner is when it can:
 * a kernel lock's owner field points to its task_struct; a futex owner is
 * looked for among the waiter's own threads (the first
 * LS_OWNER_WALK_MAX).  Both are read with probe reads.  A runnable
 * owner's CPU is watched on the waiter's behalf (ls_task_state.owner_watch)
 * until its wait ends.  A futex owner not found (a PI futex of another
 * process, a process of many threads) is told as LS_OWNER_UNKNOWN: its
 * next switch or wakeup says where it is.
 */
#ifndef LOCKSTALL_OWNER_TID_BPF_H
#define LOCKSTALL_OWNER_TID_BPF_H

#include "compat.bpf.h"
#include "emit.bpf.h"
#include "io.bpf.h"
#include "watch.bpf.h"

#define LS_OWNER_MARKS_MAX	4096	/* owners waited on at once */
#define LS_OWNER_WALK_MAX	128	/* threads looked at for a futex owner */

/* Owners not followed: owner_marks was full. */
__u64 owner_marks_full = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LS_OWNER_MARKS_MAX);
	__type(key, __u32);
	__type(value, __u32);
} owner_marks SEC(".maps");

struct signal_struct___ls {
	struct list_head___ls {
		void *next;
	} thread_head;
} __attribute__((preserve_access_index));

struct task_struct___ls {
	struct list_head___ls thread_node;
	struct signal_struct___ls *signal;
} __attribute__((preserve_access_index));

/*
 * Owners waited on, however they are followed, count in task_armed by TID
 * as armed tasks do: the scheduler programs' one test sees them too, and
 * no task of a TID whose count is 0 is an owner.
 */
static __always_inline void ls_owner_filter_add(__u32 tid, __s32 delta)
{
	if (!LS_ARMING_OFF)
		__sync_fetch_and_add(&task_armed[tid & (LS_ARMED_N - 1)], delta);
}

static __always_inline bool ls_owner_mark_add(__u32 tid)
{
	__u32 one = 1, *n = bpf_map_lookup_elem(&owner_marks, &tid);

	if (!n && !bpf_map_update_elem(&owner_marks, &tid, &one, BPF_NOEXIST))
		goto filter;
	if (!n)
		n = bpf_map_lookup_elem(&owner_marks, &tid);	/* made meanwhile */
	if (!n) {
		__sync_fetch_and_add(&owner_marks_full, 1);
		return false;
	}
	__sync_fetch_and_add(n, 1);
filter:
	ls_owner_filter_add(tid, 1);
	return true;
}

/*
 * The last waiter deletes the mark.  A waiter that comes between its
 * count and the delete loses its mark: the owner then goes unfollowed
 * (its switches are not sent), never followed wrongly.
 */
static __always_inline void ls_owner_mark_del(__u32 tid)
{
	__u32 *n = bpf_map_lookup_elem(&owner_marks, &tid);

	ls_owner_filter_add(tid, -1);
	if (!n)
		return;
	__sync_fetch_and_add(n, -1);
	if (!*n)
		bpf_map_delete_elem(&owner_marks, &tid);
}

/*
 * t (a BTF pointer: a tracepoint's task) takes the marks left for it:
 * its owner_waiters become the count of waiters on it now.  Returns its
 * storage, made if it became an owner; st is its storage or NULL.  An
 * owner marked while off CPU is off CPU from now on, as far as its
 * off-CPU sums and watch go.
 */
static __always_inline struct ls_task_state *ls_owner_take_marks(struct task_struct *t,
								 struct ls_task_state *st)
{
	__u32 tid, n = 0, *marks;

	if (!cfg.owner_by_tid)
		return st;
	tid = LS_TASK_READ(t, pid);
	if (task_state__armed_tid(tid)) {
		marks = bpf_map_lookup_elem(&owner_marks, &tid);
		if (marks)
			n = *marks;
	}
	if (!n) {
		if (st && st->pend.owner_waiters)
			st->pend.owner_waiters = 0;
		return st;
	}
	if (!st)
		st = task_state__get(t);
	if (!st)
		return NULL;
	task_state__arm(t, st);
	if (!st->pend.owner_waiters && !st->offcpu_start_ns && !LS_TASK_READ(t, on_cpu))
		st->offcpu_start_ns = bpf_ktime_get_ns();
	st->pend.owner_waiters = n > 255 ? 255 : n;
	return st;
}

/*
 * An owner woken from an I/O wait: a waiter here could not reach its
 * storage, so its OWNER record named no device; the device the owner noted
 * before it slept goes now, before the WAKEUP that ends the wait.  At the
 * wakeup in_iowait is still set: the task clears it when it runs.
 */
static __always_inline void ls_owner_io_dev_at_wakeup(struct task_struct *t,
						      struct ls_task_state *st, __u64 now)
{
	struct task_struct___io *p = (void *)t;

	if (!cfg.owner_by_tid || !st->pend.owner_waiters || !st->io_dev)
		return;
	if (BPF_CORE_READ_BITFIELD_PROBED(p, in_iowait))
		ls_emit_io_dev(t, st, now);
}

/*
 * The thread of cur's process whose TID is tid (a task_struct address),
 * or 0 with *all set if cur's process has no such thread, 0 with *all
 * clear if it was not among the first LS_OWNER_WALK_MAX.
 */
static __always_inline __u64 ls_thread_of(struct task_struct *cur, __u32 tid, bool *all)
{
	struct task_struct___ls *c = (void *)cur;
	__u64 node_off = bpf_core_field_offset(struct task_struct___ls, thread_node);
	__u64 pid_off = bpf_core_field_offset(struct task_struct, pid);
	__u64 head = (__u64)BPF_CORE_READ(c, signal) +
		     bpf_core_field_offset(struct signal_struct___ls, thread_head);
	__u64 node, t;
	__u32 pid;
	int i;

	*all = false;
	if (bpf_probe_read_kernel(&node, sizeof(node), (void *)head))
		return 0;
	for (i = 0; i < LS_OWNER_WALK_MAX; i++) {
		if (node == head) {
			*all = true;
			return 0;
		}
		t = node - node_off;
		if (bpf_probe_read_kernel(&pid, sizeof(pid), (void *)(t + pid_off)))
			return 0;
		if (pid == tid)
			return t;
		if (bpf_probe_read_kernel(&node, sizeof(node), (void *)node))
			return 0;
	}
	return 0;
}

/* Where t (an address: probe reads) is now; ls_owner_state() for a BTF pointer. */
static __always_inline __u8 ls_owner_state_probe(struct task_struct *t)
{
	return ls_task_where(BPF_CORE_READ(t, on_cpu), BPF_CORE_READ(t, on_rq),
			     ls_task_sched_state(t));
}

/*
 * ls_owner_begin() by TID: mark the owner, watch its CPU if it is
 * runnable, and send what is known of it.  t: its task_struct if the
 * caller knows it (a kernel lock's owner field), else NULL.
 */
static __always_inline bool ls_owner_begin_tid(struct task_struct *cur, struct ls_task_state *st,
					       struct task_struct *t, __u64 now)
{
	__u32 tid = st->wait.owner_tid, cpu = 0;
	__u8 state = LS_OWNER_UNKNOWN, cause = 0;
	struct ls_rec_owner *r;
	bool all = false;

	if (!t && st->wait.kind == LS_LOCK_FUTEX) {
		t = (struct task_struct *)ls_thread_of(cur, tid, &all);
		if (!t && all)
			return false;	/* not a thread of its process: no owner */
	} else if (!t) {
		t = (struct task_struct *)ls_thread_of(cur, tid, &all);
	}
	if (!ls_owner_mark_add(tid))
		return false;
	if (t) {
		cpu = ls_task_cpu_probe(t);
		state = ls_owner_state_probe(t);
		/* its I/O device is in its storage, out of reach: the cause alone */
		if (state == LS_OWNER_BLOCKED && ls_in_io_wait(t, ls_task_sched_state(t)))
			cause = LS_CAUSE_F_IO;
		if (state == LS_OWNER_RUNNABLE) {
			ls_watch_add(cpu, 1);
			st->owner_watch = cpu + 1;
		}
	}
	r = ls_emit_reserve(LS_REC_OWNER, sizeof(*r), now);
	if (!r)
		return true;
	ls_task_fill(&r->waiter, cur);
	if (t) {
		ls_task_fill_probe(&r->owner, t);
		ls_task_fill_cpu_curr(&r->cpu_curr, cpu);
	} else {
		r->owner.tid = tid;
		/* a plain futex's owner is of the waiter's process; a PI futex's may not be */
		r->owner.tgid = st->wait.kind == LS_LOCK_FUTEX ? LS_TASK_READ(cur, tgid) : 0;
	}
	ls_lock_fill(&r->lock, &st->wait, cur);
	r->start_ns = st->wait.start_ns;
	r->owner_cpu = cpu;
	r->owner_state = state;
	r->how = st->wait.owner_how;
	r->owner_cause = cause;
	ls_emit_submit(r);
	st->seen = 1;
	st->wait.flags |= LS_W_OWNER_SENT;
	return true;
}

/* The wait of st on owner tid ends: its mark and its watch go. */
static __always_inline void ls_owner_end_tid(struct ls_task_state *st, __u32 tid)
{
	ls_owner_mark_del(tid);
	if (st->owner_watch) {
		ls_watch_add(st->owner_watch - 1, (__u64)-1);
		st->owner_watch = 0;
	}
}

#endif /* LOCKSTALL_OWNER_TID_BPF_H */
