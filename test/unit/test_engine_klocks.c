// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's sleeping locks (bpf/klock.bpf.h): a waiter names the lock's
 * owner as for a futex, with kind mutex, rwsem, rt_mutex or percpu_rwsem
 * and no process (tgid 0).  A writer's or mutex owner is judged; a
 * reader-owned rwsem's last reader is only a hint; chains cross from
 * futexes into kernel locks.
 */
#include <criterion/criterion.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"

#define WAITING LS_TASK_F_WAITING
#define OWNER LS_TASK_F_OWNER

TestSuite(klocks, .init = fixture__setup, .fini = fixture__teardown);

static const struct ls_task idle_holder = FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 120, "idle-holder");
static const struct ls_task rt_waiter = FX_TASK(102, 300, LS_POLICY_FIFO, 0, 10, 89, "rt-waiter");

/* A kernel lock: its address, no process. */
static struct ls_lock_id klock_at(__u64 addr, __u8 kind)
{
	struct ls_lock_id m = stream__mm(addr, 0, "");

	m.kind = kind;
	return m;
}

/*
 * rt-waiter contends for lock from T(2), names owner (found `how`, in
 * `state` on CPU 0 where hog runs) and goes off CPU 1 at T(3); the owner's
 * release wakes it at T(51), it acquires at T(53).
 */
static void klock_wait(const struct ls_lock_id *lock, const struct ls_task *owner, __u8 how,
		       __u8 state, bool write)
{
	struct stream_owner o = { .waiter = &rt_waiter, .owner = owner, .cpu_curr = &efx.hog,
				  .start = T(2), .owner_cpu = 0, .state = state, .how = how };
	struct stream_lock w = { .start = T(2), .write = write, .owner_how = how,
				 .owner_tid = owner->tid, .op = stream__syscall(1) };

	stream__owner(&efx.s, 1, T(2), lock, &o);
	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, lock, &w);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
}

static void klock_wait_end(const struct ls_lock_id *lock, const struct ls_task *owner, __u8 how,
			   bool write)
{
	struct stream_lock end = { .start = T(2), .granted = T(51), .write = write,
				   .flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED,
				   .owner_how = how, .owner_tid = owner->tid,
				   .op = stream__syscall(1) };

	stream__wakeup(&efx.s, 0, T(51), &rt_waiter, WAITING | LS_TASK_F_GRANTED, owner, 1, NULL);
	stream__switch(&efx.s, 1, T(52), NULL, 0, false, &rt_waiter, WAITING | LS_TASK_F_GRANTED);
	stream__wait_end(&efx.s, 1, T(53), &rt_waiter, lock, &end);
}

/* The one stall of a wait on lock whose owner, found `how`, the hog kept off CPU 0 until T(50). */
static const struct ls_stall *preempted_owner_stall(const struct ls_lock_id *lock, __u8 how)
{
	klock_wait(lock, &idle_holder, how, LS_OWNER_RUNNABLE, true);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	klock_wait_end(lock, &idle_holder, how, true);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	return fixture__stall(0);
}

/* A kernel mutex whose SCHED_IDLE owner a hog keeps off its CPU: an inversion. */
Test(klocks, mutex_owner_preempted_is_an_inversion)
{
	struct ls_lock_id lock = klock_at(0xffff888106ca8780ULL, LS_LOCK_MUTEX);
	const struct ls_stall *st = preempted_owner_stall(&lock, LS_OWNER_KLOCK);

	cr_assert_eq(st->lock.kind, LS_LOCK_MUTEX);
	cr_assert_eq(st->lock.id, 0xffff888106ca8780ULL);
	cr_assert_eq(st->lock.tgid, 0);
	cr_assert_eq(st->op.syscall, 1);
	cr_assert_eq(st->lock_wait_ns, MS(49));
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, 101);
	cr_assert_eq(st->holders[0].how, LS_OWNER_KLOCK);
	cr_assert_eq(st->holders[0].state, LS_STATE_PREEMPTED);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(48));
	cr_assert_eq(st->holders[0].preempted_by[0].task.tid, 200);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
	cr_assert_eq(st->n_chain, 3);
	cr_assert_eq(st->chain[2].role, LS_ROLE_PREEMPTOR);
}

/*
 * A reader-owned rwsem names only its last reader: shown, measured, but
 * not judged (it may have let go; others may hold the lock).
 */
Test(klocks, reader_hint_is_named_but_not_judged)
{
	struct ls_lock_id lock = klock_at(0xffff8881cbd564e8ULL, LS_LOCK_RWSEM);
	const struct ls_stall *st = preempted_owner_stall(&lock, LS_OWNER_HINT);

	cr_assert_eq(st->lock.kind, LS_LOCK_RWSEM);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, 101);
	cr_assert_eq(st->holders[0].how, LS_OWNER_HINT);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(48));
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
}

/*
 * A writer-owned rwsem (a read waiter): its owner is judged as a mutex's;
 * its identity is its address, not an mm's, even at the same number.
 */
Test(klocks, rwsem_writer_and_mm_at_one_address_are_two_locks)
{
	static const struct ls_task other = FX_NORMAL(301, 300, 0, "other");
	struct ls_lock_id lock = klock_at(0xffff888100001000ULL, LS_LOCK_RWSEM);
	struct ls_lock_id mm = stream__mm(0xffff888100001000ULL, 300, "app");
	struct stream_lock w = { .start = T(1), .write = true };
	const struct ls_stall *st;
	struct engine_debug d;

	stream__wait_begin(&efx.s, 0, T(1), &other, &mm, &w);
	klock_wait(&lock, &idle_holder, LS_OWNER_KLOCK, LS_OWNER_BLOCKED, false);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.locks, 2, "%u locks", (unsigned)d.locks);
	klock_wait_end(&lock, &idle_holder, LS_OWNER_KLOCK, false);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->lock.kind, LS_LOCK_RWSEM);
	cr_assert_not(st->write);
	cr_assert_eq(st->holders[0].how, LS_OWNER_KLOCK);
	cr_assert_eq(st->holders[0].state, LS_STATE_BLOCKED);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
}

/*
 * A pthread mutex's owner is asleep because it contends for a kernel
 * mutex, whose owner it named: the chain goes from the futex into the
 * kernel lock, with that lock on the hop.
 */
Test(klocks, chain_goes_from_a_futex_into_a_kernel_mutex)
{
	static const struct ls_task kowner = FX_NORMAL(107, 107, 0, "kworker");
	struct ls_lock_id futex = stream__mm(0x55d0c0de1140ULL, 300, "app");
	struct ls_lock_id kmutex = klock_at(0xffffffff83a0c2e0ULL, LS_LOCK_MUTEX);
	struct stream_owner o = { .waiter = &idle_holder, .owner = &kowner, .start = T(1),
				  .owner_cpu = 1, .state = LS_OWNER_RUNNING,
				  .how = LS_OWNER_KLOCK };
	const struct ls_stall *st;

	futex.kind = LS_LOCK_FUTEX;
	stream__owner(&efx.s, 0, T(1), &kmutex, &o);
	klock_wait(&futex, &idle_holder, LS_OWNER_PTHREAD, LS_OWNER_BLOCKED, true);
	klock_wait_end(&futex, &idle_holder, LS_OWNER_PTHREAD, true);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->lock.kind, LS_LOCK_FUTEX);
	cr_assert_eq(st->holders[0].state, LS_STATE_BLOCKED);
	cr_assert_eq(st->n_chain, 3);
	cr_assert_eq(st->chain[1].task.tid, 101);
	cr_assert_eq(st->chain[2].task.tid, 107);
	cr_assert_eq(st->chain[2].role, LS_ROLE_HOLDER);
	cr_assert(st->chain[2].has_lock);
	cr_assert_eq(st->chain[2].lock.kind, LS_LOCK_MUTEX);
	cr_assert_eq(st->chain[2].lock.id, 0xffffffff83a0c2e0ULL);
	cr_assert_eq(st->chain[2].lock.tgid, 0);
}

/* A short spin that never went off CPU and named no owner leaves no stall. */
Test(klocks, short_wait_is_no_stall)
{
	struct ls_lock_id lock = klock_at(0xffff888106ca8780ULL, LS_LOCK_MUTEX);
	struct stream_lock end = { .start = T(1), .write = true };

	stream__wait_end(&efx.s, 1, T(1.5), &rt_waiter, &lock, &end);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
}
