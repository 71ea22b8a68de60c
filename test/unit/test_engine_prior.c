// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Waits that began before tracing (LS_LOCK_F_PRIOR): the scan at start-up
 * found them, their start is its time.  Every report of such a wait says
 * it lasted at least that long (ls_stall.began_before): pending reports,
 * the final stall, a deadlock whose last wait it is; a wait seen from its
 * start does not, the same task's next one included.  A wait a later scan
 * found (LS_LOCK_F_LATE: its beginning was lost) is the same, said
 * found_late instead.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "lib/engine_fixture.h"

#define WAITING LS_TASK_F_WAITING
#define PRIOR LS_LOCK_F_PRIOR
#define LATE LS_LOCK_F_LATE

TestSuite(prior, .init = fixture__setup_pending, .fini = fixture__teardown);

static const struct ls_task holder = FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 120, "holder");
static const struct ls_task victim = FX_TASK(102, 100, LS_POLICY_FIFO, 0, 10, 89, "victim");

static struct ls_lock_id lock_at(__u64 addr, __u8 kind)
{
	struct ls_lock_id m = stream__mm(addr, 100, "app");

	m.kind = kind;
	return m;
}

static struct ls_lock_id futex_at(__u64 addr)
{
	return lock_at(addr, LS_LOCK_FUTEX);
}

/* How the scan names a holder: a pthread mutex's __owner, a kernel mutex's owner. */
static __u8 owner_how(const struct ls_lock_id *lock)
{
	return lock->kind == LS_LOCK_FUTEX ? LS_OWNER_PTHREAD : LS_OWNER_KLOCK;
}

/*
 * victim waits on lock, held by holder asleep, from before tracing; the
 * scan finds it at `found` (flags: PRIOR, or 0 for a wait seen live).
 */
static void wait_found(const struct ls_lock_id *lock, __u64 found, __u8 flags)
{
	struct stream_owner o = { .waiter = &victim, .owner = &holder, .start = found,
				  .owner_cpu = 0, .state = LS_OWNER_BLOCKED,
				  .how = owner_how(lock) };
	struct stream_lock w = { .start = found, .write = true, .flags = flags,
				 .owner_how = owner_how(lock), .owner_tid = holder.tid };

	stream__owner(&efx.s, 1, found, lock, &o);
	stream__wait_begin(&efx.s, 1, found, &victim, lock, &w);
}

/* ... and it ends at `end`, with the lock: sys_exit's WAIT_END carries the flag on. */
static void wait_over(const struct ls_lock_id *lock, __u64 found, __u64 end, __u8 flags)
{
	struct stream_lock w = { .start = found, .write = true,
				 .flags = LS_LOCK_F_BEGIN_SENT | flags,
				 .owner_how = owner_how(lock), .owner_tid = holder.tid };

	stream__wakeup(&efx.s, 0, end - MS(2), &victim, WAITING, &holder, 1, NULL);
	stream__switch(&efx.s, 1, end - MS(1), NULL, 0, false, &victim, WAITING);
	stream__wait_end(&efx.s, 1, end, &victim, lock, &w);
}

struct found_case {
	__u8 kind;
	__u8 flags;	/* PRIOR: at start-up; LATE: by a later scan */
};

ParameterizedTestParameters(prior, pending_and_final_stall_say_at_least)
{
	/* a pthread mutex's futex; a kernel mutex, found by task_struct.blocked_on */
	static struct found_case c[] = {
		{ LS_LOCK_FUTEX, PRIOR },
		{ LS_LOCK_MUTEX, PRIOR },
		{ LS_LOCK_FUTEX, LATE },
	};

	return cr_make_param_array(struct found_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct found_case *c, prior, pending_and_final_stall_say_at_least)
{
	struct ls_lock_id lock = lock_at(0x55d0c0de1040ULL, c->kind);
	const __u8 *kind = &c->kind;
	const struct ls_stall *st;

	wait_found(&lock, T(10), c->flags);
	stream__tick(&efx.s, T(1100), LS_TICK_PERIODIC);
	wait_over(&lock, T(10), T(1500), c->flags);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);
	st = fixture__stall(0);
	cr_assert(st->pending);
	cr_assert(st->began_before, "the pending report of a wait found at start-up");
	cr_assert_eq(st->found_late, c->flags == LATE);
	cr_assert_eq(st->start_ns, T(10), "its start is the scan's time");
	cr_assert_eq(st->wait_ns, T(1100) - T(10));
	cr_assert_eq(st->lock.kind, *kind);
	cr_assert_eq(st->holders[0].task.tid, holder.tid);
	cr_assert_eq(st->holders[0].how, owner_how(&lock));
	st = fixture__stall(1);
	cr_assert_not(st->pending);
	cr_assert(st->began_before, "the final stall of a wait found at start-up");
	cr_assert_eq(st->found_late, c->flags == LATE);
	cr_assert(st->acquired);
	cr_assert_eq(st->start_ns, T(10));
	cr_assert_eq(st->pending_reports, 1);
}

/* The same task's next wait is seen from its start: exact. */
Test(prior, next_wait_is_exact)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1040ULL);
	size_t i;

	wait_found(&lock, T(10), PRIOR);
	wait_over(&lock, T(10), T(500), PRIOR);
	wait_found(&lock, T(600), 0);
	stream__tick(&efx.s, T(1700), LS_TICK_PERIODIC);
	wait_over(&lock, T(600), T(1800), 0);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 3);
	cr_assert(fixture__stall(0)->began_before);
	for (i = 1; i < 3; i++) {
		cr_assert_eq(fixture__stall(i)->start_ns, T(600));
		cr_assert_not(fixture__stall(i)->began_before, "stall %zu", i);
	}
}

/* The flag changes nothing else: the same wait, holder and verdict, with or without it. */
ParameterizedTestParameters(prior, only_the_bound_differs)
{
	static __u8 flags[] = { PRIOR, LATE, 0 };

	return cr_make_param_array(__u8, flags, sizeof(flags) / sizeof(flags[0]));
}

ParameterizedTest(__u8 *flags, prior, only_the_bound_differs)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1040ULL);
	const struct ls_stall *st;

	wait_found(&lock, T(10), *flags);
	wait_over(&lock, T(10), T(500), *flags);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->began_before, *flags != 0);
	cr_assert_eq(st->found_late, *flags == LATE);
	cr_assert_eq(st->wait_ns, T(500) - T(10));
	cr_assert_eq(st->holders[0].task.tid, holder.tid);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
	cr_assert(st->acquired);
}

/*
 * AB/BA: a deadlock is told from its last wait's start.  Both waits found
 * by the scan: at least that long.  The last one seen live: its start is
 * the cycle's, exact, however old the other wait is.
 */
struct deadlock_case {
	__u8 flags_a, flags_b;
	__u64 start_b;
	bool began_before, found_late;
};

ParameterizedTestParameters(prior, deadlock_from_its_last_wait)
{
	static struct deadlock_case c[] = {
		{ PRIOR, PRIOR, T(1), true, false },
		{ PRIOR, 0, T(2), false, false },
		{ 0, 0, T(2), false, false },
		/* the last wait's beginning lost: found late, a cycle all the same */
		{ 0, LATE, T(2), true, true },
	};

	return cr_make_param_array(struct deadlock_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct deadlock_case *c, prior, deadlock_from_its_last_wait)
{
	static const struct ls_task a = FX_NORMAL(111, 110, 0, "thread-a");
	static const struct ls_task b = FX_NORMAL(112, 110, 0, "thread-b");
	struct ls_lock_id la = futex_at(0x1000), lb = futex_at(0x2000);
	struct stream_owner ab = { .waiter = &a, .owner = &b, .start = T(1), .owner_cpu = 1,
				   .state = LS_OWNER_BLOCKED, .how = LS_OWNER_PTHREAD };
	struct stream_owner ba = { .waiter = &b, .owner = &a, .start = c->start_b,
				   .owner_cpu = 0, .state = LS_OWNER_BLOCKED,
				   .how = LS_OWNER_PTHREAD, .owner_flags = WAITING };
	struct stream_lock wa = { .start = T(1), .write = true, .flags = c->flags_a,
				  .owner_how = LS_OWNER_PTHREAD, .owner_tid = 112 };
	struct stream_lock wb = { .start = c->start_b, .write = true, .flags = c->flags_b,
				  .owner_how = LS_OWNER_PTHREAD, .owner_tid = 111 };
	const struct ls_stall *st;

	stream__owner(&efx.s, 0, T(1), &lb, &ab);
	stream__wait_begin(&efx.s, 0, T(1), &a, &lb, &wa);
	stream__owner(&efx.s, 1, c->start_b, &la, &ba);
	stream__wait_begin(&efx.s, 1, c->start_b, &b, &la, &wb);
	stream__tick(&efx.s, T(200), LS_TICK_PERIODIC);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_geq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->verdict, LS_VERDICT_DEADLOCK);
	cr_assert_eq(st->start_ns, c->start_b);
	cr_assert_eq(st->began_before, c->began_before);
	cr_assert_eq(st->found_late, c->found_late);
}
