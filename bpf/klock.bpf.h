/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's sleeping locks, from lock:contention_begin/end (5.19+,
 * tp_btf): they fire only on contention, never on an uncontended lock.
 * A contention becomes the task's ls_wait_state with kind set, as a futex
 * wait does (futex.bpf.h): the switch path sends its WAIT_BEGIN and
 * switches, contention_end ends it through ls_owned_wait_end() (no hold
 * record: the owner is followed instead), quiet or not as a futex wait.
 *
 * Which lock, from the flags: MUTEX a mutex, RT alone an rt_mutex (a
 * mutex too on PREEMPT_RT), RT with READ/WRITE PREEMPT_RT's rwsem (an
 * rwbase_rt, rwlock_t too), PERCPU a percpu-rwsem, READ/WRITE alone an
 * rwsem.  SPIN alone (or with READ/WRITE) is a spinlock or rwlock_t, no
 * flag a semaphore: never followed.  A mutex first spins (MUTEX|SPIN) on
 * CPU, then sleeps (MUTEX again, same lock): the wait starts at the first
 * and the owner is followed from the second, so a short spin costs no
 * record (ls_wait_end() sends WAIT_END only for a wait that went off CPU,
 * named its owner, or lasted min_wait_ns).
 *
 * Left to others: a contention inside a wait already followed (an
 * mmap_lock wait, whose own tracepoints tell it with its exact readers;
 * a PI futex's rt_mutex, told as the futex), and the task's own
 * mm->mmap_lock whatever the backend.
 *
 * The owner, read from the lock with CO-RE: a mutex's owner (flag bits
 * masked), an rt_mutex's, a writer-owned rwsem's (LS_OWNER_KLOCK); a
 * reader-owned rwsem keeps only the last reader that took it, told as
 * LS_OWNER_HINT, never as the readers.  Followed as a futex owner is
 * (ls_owner_begin()).
 */
#ifndef LOCKSTALL_KLOCK_BPF_H
#define LOCKSTALL_KLOCK_BPF_H

#include "owner.bpf.h"

#define LS_LCB_F_SPIN		(1U << 0)
#define LS_LCB_F_READ		(1U << 1)
#define LS_LCB_F_WRITE		(1U << 2)
#define LS_LCB_F_RT		(1U << 3)
#define LS_LCB_F_PERCPU		(1U << 4)
#define LS_LCB_F_MUTEX		(1U << 5)

#define LS_MUTEX_FLAGS		0x07UL	/* MUTEX_FLAGS: low bits of mutex.owner */
#define LS_RT_MUTEX_HAS_WAITERS	0x01UL
#define LS_RWSEM_READER_OWNED	0x01UL	/* rw_semaphore.owner */
#define LS_RWSEM_OWNER_FLAGS	0x03UL

/* The lock kind of a contention's flags; LS_LOCK_NONE: a spinlock, not followed. */
static __always_inline __u8 ls_klock_kind(__u32 flags)
{
	if (flags & LS_LCB_F_MUTEX)
		return LS_LOCK_MUTEX;
	if (flags & LS_LCB_F_RT)
		return flags & (LS_LCB_F_READ | LS_LCB_F_WRITE) ? LS_LOCK_RWSEM : LS_LOCK_RT_MUTEX;
	if (flags & LS_LCB_F_PERCPU)
		return LS_LOCK_PERCPU_RWSEM;
	if (flags & LS_LCB_F_SPIN)
		return LS_LOCK_NONE;
	/*
	 * No flag at all: a struct semaphore (semaphore.c), which keeps no
	 * owner.  Read as an rwsem, its spinlock and wait list would pass for
	 * a writer's count and owner: not followed.
	 */
	if (!(flags & (LS_LCB_F_READ | LS_LCB_F_WRITE)))
		return LS_LOCK_NONE;
	return LS_LOCK_RWSEM;
}

static __always_inline bool ls_is_klock(__u8 kind)
{
	return kind >= LS_LOCK_MUTEX && kind < LS_LOCK_KIND_N;
}

#ifndef LS_TASK_STATE_HASH
/*
 * A PREEMPT_RT rwsem's writer: it holds the rwbase's rt_mutex from its
 * first step to its unlock.  Readers keep no owner; a writer that waits
 * for readers to leave holds the rt_mutex itself (its own pid: nobody).
 */
static __always_inline unsigned long ls_rwbase_owner(void *lock)
{
	struct rwbase_rt *rwb = lock;

	if (!bpf_core_field_exists(rwb->rtmutex))
		return 0;
	return (unsigned long)BPF_CORE_READ(rwb, rtmutex.owner) & ~LS_RT_MUTEX_HAS_WAITERS;
}

/* The task a lock's owner word points to, and how much it is believed; NULL: none. */
static __always_inline struct task_struct *ls_klock_owner_task(void *lock, __u8 kind, __u8 *how)
{
	unsigned long word;
	long count;

	*how = LS_OWNER_KLOCK;
	/*
	 * PREEMPT_RT builds mutex and rw_semaphore on rt_mutex (no owner
	 * fields of their own; their contentions say RT): the checks let the
	 * verifier drop those reads there, which would not load.
	 */
	switch (kind) {
	case LS_LOCK_MUTEX:
		if (!bpf_core_field_exists(((struct mutex *)lock)->owner))
			return NULL;
		word = BPF_CORE_READ((struct mutex *)lock, owner.counter);
		return (struct task_struct *)(word & ~LS_MUTEX_FLAGS);
	case LS_LOCK_RT_MUTEX:
		if (!bpf_core_field_exists(((struct rt_mutex_base *)lock)->owner))
			return NULL;
		word = (unsigned long)BPF_CORE_READ((struct rt_mutex_base *)lock, owner);
		return (struct task_struct *)(word & ~LS_RT_MUTEX_HAS_WAITERS);
	case LS_LOCK_RWSEM:
		if (!bpf_core_field_exists(((struct rw_semaphore *)lock)->owner))
			return (struct task_struct *)ls_rwbase_owner(lock);
		word = BPF_CORE_READ((struct rw_semaphore *)lock, owner.counter);
		if (word & LS_RWSEM_READER_OWNED) {
			*how = LS_OWNER_HINT;
		} else {
			count = BPF_CORE_READ((struct rw_semaphore *)lock, count.counter);
			if (!(count & LS_RWSEM_WRITER_LOCKED))
				return NULL;	/* between owners: nobody to name */
		}
		return (struct task_struct *)(word & ~LS_RWSEM_OWNER_FLAGS);
	}
	return NULL;	/* a percpu-rwsem has no owner */
}

/* Is lock the mmap_lock of cur's own mm (told by the mmap_lock programs)? */
static __always_inline bool ls_klock_is_own_mmap(struct task_struct *cur, __u64 lock)
{
	__u64 mm = (__u64)LS_TASK_PTR(cur, mm);

	return mm && lock == mm + ls_mmap_lock_offset();
}

/* The sleeping part of a wait: name and follow the owner, once per wait. */
static __always_inline void ls_klock_follow(struct task_struct *cur, struct ls_task_state *st,
					    void *lock)
{
	struct ls_wait_state *w = &st->wait;
	__u8 how = LS_OWNER_NONE;
	struct task_struct *t;
	__u32 owner;

	if (w->owner_tid)
		return;
	t = ls_klock_owner_task(lock, w->kind, &how);
	owner = t ? (__u32)BPF_CORE_READ(t, pid) : 0;
	if (!owner || owner == (__u32)cur->pid)
		return;
	w->owner_tid = owner;
	w->owner_how = how;
	/* owner_tid stays set only for an owner followed: ls_owned_wait_end() lets it go */
	if (!ls_owner_begin(cur, st, t, bpf_ktime_get_ns())) {
		w->owner_tid = 0;
		w->owner_how = LS_OWNER_NONE;
	}
}

static __always_inline int ls_klock_begin(void *lock, __u32 flags)
{
	struct task_struct *cur = ls_current();
	__u8 kind = ls_klock_kind(flags);
	struct ls_task_state *st;
	struct ls_wait_state *w;

	if (kind == LS_LOCK_NONE || ls_is_self(cur))
		return 0;
	st = task_state__get(cur);
	if (!st)
		return 0;
	task_state__arm(cur, st);
	w = &st->wait;
	if (w->flags & LS_W_ACTIVE) {
		/* Its own spin ended and it sleeps now; anything else is another's wait. */
		if (w->kind == kind && w->lock == (__u64)lock && !(flags & LS_LCB_F_SPIN))
			ls_klock_follow(cur, st, lock);
		return 0;
	}
	/* an mmap_lock is an rwsem, and only an rwsem's wait pays for the read */
	if (kind == LS_LOCK_RWSEM && ls_klock_is_own_mmap(cur, (__u64)lock))
		return 0;
	w->lock = (__u64)lock;
	w->start_ns = bpf_ktime_get_ns();
	w->write = !(flags & LS_LCB_F_READ);
	w->flags = ls_owned_wait_flags();
	w->kind = kind;
	w->owner_tid = 0;
	w->owner_how = LS_OWNER_NONE;
	if (!(flags & LS_LCB_F_SPIN))
		ls_klock_follow(cur, st, lock);
	return 0;
}

static __always_inline int ls_klock_end(void *ctx, void *lock, int ret)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st = task_state__lookup(cur);
	struct ls_wait_state *w;

	if (!st)
		return 0;
	w = &st->wait;
	if (!(w->flags & LS_W_ACTIVE) || !ls_is_klock(w->kind) || w->lock != (__u64)lock)
		return 0;
	ls_owned_wait_end(ctx, st, cur, ret == 0);
	return 0;
}

SEC("tp_btf/contention_begin")
int BPF_PROG(ls_contention_begin, void *lock, unsigned int flags)
{
	return ls_klock_begin(lock, flags);
}

SEC("tp_btf/contention_end")
int BPF_PROG(ls_contention_end, void *lock, int ret)
{
	return ls_klock_end(ctx, lock, ret);
}
#else
/* The hash object: no task storage, no kfuncs (5.10 has no such tracepoints anyway). */
SEC("?tp_btf/contention_begin")
int BPF_PROG(ls_contention_begin, void *lock, unsigned int flags)
{
	return 0;
}

SEC("?tp_btf/contention_end")
int BPF_PROG(ls_contention_end, void *lock, int ret)
{
	return 0;
}
#endif

#endif /* LOCKSTALL_KLOCK_BPF_H */
