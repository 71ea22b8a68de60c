// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cycles of owners that are not known to be deadlocks: one through the
 * same exclusive lock twice, one resting on an owner read before the lock
 * changed hands, one with records lost in its window.  Each is reported
 * once, unknown, with its reason, and its waits' pending reports do not
 * say deadlock; the cycle beside each that is one stays a deadlock.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"

#define WAITING LS_TASK_F_WAITING

TestSuite(cycles, .init = fixture__setup, .fini = fixture__teardown);

static const struct ls_task ta = FX_NORMAL(211, 210, 0, "thread-a");
static const struct ls_task tb = FX_NORMAL(212, 210, 0, "thread-b");
static const struct ls_task tc = FX_NORMAL(213, 210, 0, "thread-c");

static struct ls_lock_id lock_at(__u64 addr)
{
	struct ls_lock_id m = stream__mm(addr, 210, "app");

	m.kind = LS_LOCK_FUTEX;
	return m;
}

/* waiter asks for lock at ms on cpu, naming owner (read from the mutex itself). */
static void cycle_wait(const struct ls_task *waiter, const struct ls_task *owner,
		       const struct ls_lock_id *lock, double ms, __u16 cpu)
{
	struct stream_owner o = { .waiter = waiter, .owner = owner, .start = T(ms),
				  .owner_cpu = !cpu, .state = LS_OWNER_BLOCKED,
				  .how = LS_OWNER_PTHREAD };
	struct stream_lock w = { .start = T(ms), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = owner->tid,
				 .op = { .kind = LS_OP_SYSCALL, .syscall = 202 } };

	stream__owner(&efx.s, cpu, T(ms), lock, &o);
	stream__wait_begin(&efx.s, cpu, T(ms), waiter, lock, &w);
	stream__switch(&efx.s, cpu, T(ms), waiter, WAITING, false, NULL, 0);
}

/* c got lock at ms after waiting on it from ms - 0.5: the lock changed hands then. */
static void handed_to_c(const struct ls_lock_id *lock, double ms)
{
	struct stream_lock w = { .start = T(ms - 0.5), .write = true };

	stream__wait_begin(&efx.s, 0, T(ms - 0.5), &tc, lock, &w);
	stream__wait_end(&efx.s, 0, T(ms), &tc, lock, &w);
}

enum cycle_case { CYCLE_REAL, CYCLE_LOCK_TWICE, CYCLE_STALE, CYCLE_LOST, CYCLE_LOST_BEFORE };

struct cycle_param {
	enum cycle_case c;
	enum ls_verdict verdict;
	enum ls_unknown_reason reason;
};

/*
 * a waits from T(1) naming b, b from T(2) naming a: on two locks (AB/BA),
 * or on the same lock; the first read before c got the lock; records lost
 * between the waits, or before them.
 */
static void cycle__stream(enum cycle_case c)
{
	struct ls_lock_id l1 = lock_at(0x1000), l2 = lock_at(0x2000);

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, 0);
	if (c == CYCLE_LOST_BEFORE)
		stream__lost(&efx.s, T(0.5), 7, T(0.2), T(0.4));
	cycle_wait(&ta, &tb, &l2, 1, 0);
	if (c == CYCLE_STALE)
		handed_to_c(&l2, 1.5);
	if (c == CYCLE_LOST)
		stream__lost(&efx.s, T(1.7), 7, T(1.5), T(1.6));
	cycle_wait(&tb, &ta, c == CYCLE_LOCK_TWICE ? &l2 : &l1, 2, 1);
	stream__tick(&efx.s, T(12.5), LS_TICK_PERIODIC);
	stream__tick(&efx.s, T(60), LS_TICK_PERIODIC);
}

ParameterizedTestParameters(cycles, verdict_and_reason)
{
	static struct cycle_param p[] = {
		{ CYCLE_REAL, LS_VERDICT_DEADLOCK, LS_UNKNOWN_NONE },
		{ CYCLE_LOCK_TWICE, LS_VERDICT_UNKNOWN, LS_UNKNOWN_CYCLE_LOCK_TWICE },
		{ CYCLE_STALE, LS_VERDICT_UNKNOWN, LS_UNKNOWN_CYCLE_STALE_OWNER },
		{ CYCLE_LOST, LS_VERDICT_UNKNOWN, LS_UNKNOWN_CYCLE_EVENTS_LOST },
		{ CYCLE_LOST_BEFORE, LS_VERDICT_DEADLOCK, LS_UNKNOWN_NONE },
	};

	return cr_make_param_array(struct cycle_param, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct cycle_param *p, cycles, verdict_and_reason)
{
	const struct ls_stall *st;
	unsigned int i, cycles = 0;

	efx.opts.pending_after_ns = MS(50);
	cycle__stream(p->c);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	for (i = 0; i < efx.cs->n_stalls; i++) {
		st = fixture__stall(i);
		if (st->pending) {
			/* a wait of a cycle in doubt is judged on its own */
			cr_assert_eq(st->verdict == LS_VERDICT_DEADLOCK, p->verdict == LS_VERDICT_DEADLOCK,
				     "pending report %u says %s", i, ls_verdict_name(st->verdict));
			continue;
		}
		cycles++;
		cr_assert_eq(st->verdict, p->verdict, "the cycle: %s", ls_verdict_name(st->verdict));
		cr_assert_eq(st->unknown_reason, p->reason);
		cr_assert_eq(st->n_chain, 3, "the cycle is still told");
		cr_assert_eq(st->chain[2].task.tid, st->waiter.tid);
		cr_assert_str_eq(ls_verdict_name(st->verdict),
				 p->reason ? "unknown" : "deadlock");
	}
	cr_assert_eq(cycles, 1, "the cycle is reported once");
}

/* Each reason has a JSON word and words for people; none for no reason. */
Test(cycles, every_reason_has_its_names)
{
	unsigned int i, j;

	cr_assert_null(ls_unknown_reason_name(LS_UNKNOWN_NONE));
	cr_assert_null(ls_unknown_reason_text(LS_UNKNOWN_REASON_N));
	for (i = LS_UNKNOWN_NONE + 1; i < LS_UNKNOWN_REASON_N; i++) {
		cr_assert_not_null(ls_unknown_reason_name(i));
		cr_assert_not_null(ls_unknown_reason_text(i));
		for (j = i + 1; j < LS_UNKNOWN_REASON_N; j++)
			cr_assert_str_neq(ls_unknown_reason_name(i), ls_unknown_reason_name(j));
	}
}
