// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pending stalls: waits still open at a TICK are reported as they stand,
 * repeated while they last, at exit, and the final stall refers to them.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "lib/engine_fixture.h"

#define HOLDING LS_TASK_F_HOLDING
#define WAITING LS_TASK_F_WAITING

TestSuite(pending, .init = fixture__setup_pending, .fini = fixture__teardown);

static const struct ls_task idle_holder = FX_TASK(101, 300, LS_POLICY_IDLE, 0, 0, 120, "bg-reader");

/*
 * The holder took the lock without waiting (no record names its mm) and
 * sits preempted by the hog on CPU 0 from T(1); the waiter waits from T(2).
 */
static void scenario__stuck(void)
{
	stream__switch(&efx.s, 0, T(1), &idle_holder, HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
}

/* Ticks every 100 ms in [from, to]. */
static void ticks(__u64 from, __u64 to)
{
	__u64 t;

	for (t = from; t <= to; t += MS(100))
		stream__tick(&efx.s, t, LS_TICK_PERIODIC);
}

/* The hog lets the holder run at `at`; it releases, the waiter gets the lock at at + 10 ms. */
static void scenario__unstick(__u64 at)
{
	struct stream_lock hold = { .start = T(0), .acquired = T(0), .offcpu = at - T(1) };

	stream__switch(&efx.s, 0, at, &efx.hog, 0, true, &idle_holder, HOLDING);
	stream__hold(&efx.s, 0, at + MS(1), &idle_holder, &efx.mm, &hold);
	scenario__wait_end(&efx.waiter, true, T(2), at + MS(10), &idle_holder);
}

Test(pending, reported_after_pending_after_then_every)
{
	const struct ls_stall *st;
	size_t i;

	scenario__stuck();
	ticks(T(100), T(5900));
	scenario__unstick(T(5990));
	cr_assert_eq(fixture__run(), 0);

	/* Due at 1.002 s, 3.002 s and 5.002 s after the base: the next ticks. */
	cr_assert_eq(efx.cs->n_stalls, 4);
	for (i = 0; i < 3; i++) {
		st = fixture__stall(i);
		cr_assert(st->pending, "report %zu", i);
		cr_assert_not(st->at_exit);
		cr_assert_eq(st->seq, 0);
		cr_assert_eq(st->pending_reports, i + 1);
		cr_assert_eq(st->pending_first_ns, T(1100));
		cr_assert_eq(st->start_ns, T(2));
		cr_assert_eq(st->end_ns, T(1100) + i * MS(2000));
		cr_assert_eq(st->wait_ns, st->end_ns - T(2));
		cr_assert_not(st->acquired);
		cr_assert_eq(st->waiter.tid, 102);
	}
	st = fixture__stall(3);
	cr_assert_not(st->pending);
	cr_assert_eq(st->seq, 1);
	cr_assert_eq(st->pending_reports, 3);
	cr_assert_eq(st->pending_first_ns, T(1100));
	cr_assert_eq(st->wait_ns, MS(5998));
	cr_assert_eq(efx.cs->summary.stalls, 1);
	cr_assert_eq(efx.cs->summary.pending_reports, 3);
	cr_assert_eq(efx.cs->summary.pending_at_exit, 0);
}

Test(pending, holder_preemptor_and_state_now)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__stuck();
	ticks(T(100), T(1100));
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 101);
	cr_assert(h->lock_unconfirmed);
	cr_assert_not(h->released);
	cr_assert_eq(h->state, LS_STATE_PREEMPTED);
	cr_assert_eq(h->state_now, LS_STATE_PREEMPTED);
	cr_assert_eq(h->state_since_ns, T(1));
	cr_assert_eq(h->offcpu_ns, MS(1098));
	cr_assert_eq(h->n_preempted_by, 1);
	cr_assert_eq(h->preempted_by[0].task.tid, 200);
	cr_assert_eq(h->preempted_by[0].ns, MS(1098));
	cr_assert_eq(st->n_chain, 3);
	cr_assert_eq(st->chain[1].role, LS_ROLE_HOLDER);
	cr_assert_eq(st->chain[2].role, LS_ROLE_PREEMPTOR);
	cr_assert_eq(st->chain[2].task.tid, 200);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
}

/* A holder whose hold began with a wait: the engine knows its mm. */
Test(pending, known_open_hold_is_confirmed)
{
	struct stream_lock got = { .start = T(0), .write = true, .flags = LS_LOCK_F_BEGIN_SENT };
	const struct ls_stall *st;

	stream__wait_end(&efx.s, 0, T(0.5), &idle_holder, &efx.mm, &got);
	scenario__stuck();
	ticks(T(100), T(1100));
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_not(st->holders[0].lock_unconfirmed);
	cr_assert(st->holders[0].write);
	cr_assert_eq(st->holders[0].hold_start_ns, T(0.5));
}

Test(pending, at_exit)
{
	const struct ls_stall *st;

	scenario__stuck();
	ticks(T(100), T(1400));
	stream__tick(&efx.s, T(1450), LS_TICK_EXIT);
	stream__mark(&efx.s, T(1450), LS_MARK_END, 0);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);
	cr_assert_not(fixture__stall(0)->at_exit);
	st = fixture__stall(1);
	cr_assert(st->pending);
	cr_assert(st->at_exit);
	cr_assert_eq(st->pending_reports, 2);
	cr_assert_eq(st->wait_ns, MS(1448));
	cr_assert_eq(st->holders[0].task.tid, 101);
	cr_assert_eq(efx.cs->summary.pending_reports, 2);
	cr_assert_eq(efx.cs->summary.pending_at_exit, 1);
	cr_assert_eq(efx.cs->summary.stalls, 0);
}

/* At exit the schedule does not matter, the threshold does. */
Test(pending, at_exit_below_pending_after_above_threshold)
{
	scenario__stuck();
	stream__tick(&efx.s, T(300), LS_TICK_EXIT);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	cr_assert(fixture__stall(0)->at_exit);
	cr_assert_eq(fixture__stall(0)->pending_reports, 1);
}

Test(pending, at_exit_below_threshold_not_reported)
{
	scenario__stuck();
	stream__tick(&efx.s, T(2) + MS(9), LS_TICK_EXIT);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
	cr_assert_eq(efx.cs->summary.pending_at_exit, 0);
}

Test(pending, every_zero_reports_once)
{
	efx.opts.pending_every_ns = 0;
	scenario__stuck();
	ticks(T(100), T(5000));
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
}

Test(pending, off_without_pending_after)
{
	efx.opts.pending_after_ns = 0;
	scenario__stuck();
	ticks(T(100), T(3000));
	stream__tick(&efx.s, T(3000), LS_TICK_EXIT);
	scenario__unstick(T(3100));
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	cr_assert_not(fixture__stall(0)->pending);
	cr_assert_eq(fixture__stall(0)->pending_reports, 0);
}

/* Time moves by records only: without ticks nothing is pending. */
Test(pending, no_tick_no_report)
{
	scenario__stuck();
	stream__mark(&efx.s, T(5000), LS_MARK_INTERVAL, 0);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
}

/* The pid filter applies: an unwanted wait is neither reported nor counted. */
Test(pending, pid_filter)
{
	efx.opts.filter_pid = 4242;
	scenario__stuck();
	ticks(T(100), T(1100));
	stream__tick(&efx.s, T(1200), LS_TICK_EXIT);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
	cr_assert_eq(efx.cs->summary.pending_reports, 0);
	cr_assert_eq(efx.cs->summary.pending_at_exit, 0);
}

/* A holder's stack as it is now (LS_STACK_NOW, mm 0: any lock) goes with its report. */
Test(pending, stack_now)
{
	static const __u64 kip[] = { 0xffffffff81000010ULL, 0xffffffff81000020ULL };
	struct ls_lock_id any = { 0 };
	const struct ls_stall *st;

	scenario__stuck();
	ticks(T(100), T(1000));
	stream__stack(&efx.s, 0, T(1100), &idle_holder, &any, LS_STACK_NOW, kip, 2, 0);
	stream__tick(&efx.s, T(1100), LS_TICK_PERIODIC);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_not_null(st->holders[0].stack);
	cr_assert_eq(st->holders[0].stack->why, LS_STACK_NOW);
	cr_assert_eq(st->holders[0].stack->nr_kernel, 2);
	cr_assert_eq(st->holders[0].stack->kernel[1], kip[1]);
}

/* The loop asks which holders to read stacks of: only once a wait is due. */
Test(pending, stuck_holders)
{
	__u32 tids[4];

	scenario__stuck();
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(engine__stuck_holders(efx.e, T(500), tids, 4), 0);
	cr_assert_eq(engine__stuck_holders(efx.e, T(1002), tids, 4), 1);
	cr_assert_eq(tids[0], 101);
}

/* A wait silent longer than the stale age is still reported while nothing was lost. */
Test(pending, long_wait_is_not_stale)
{
	efx.opts.pending_every_ns = MS(60000);
	scenario__stuck();
	ticks(T(1000), T(200000));
	cr_assert_eq(fixture__run(), 0);
	/* Due at 1 s, 61 s, 121 s and 181 s. */
	cr_assert_eq(efx.cs->n_stalls, 4);
	cr_assert_eq(fixture__stall(3)->holders[0].task.tid, 101);
	cr_assert_eq(fixture__stall(3)->holders[0].state_since_ns, T(1));
}

struct bad_tick {
	__u32 kind;
};

ParameterizedTestParameters(pending, bad_tick_kind)
{
	static struct bad_tick params[] = { { 0 }, { 3 }, { 0xffffffff } };

	return cr_make_param_array(struct bad_tick, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct bad_tick *p, pending, bad_tick_kind)
{
	scenario__stuck();
	stream__tick(&efx.s, T(2000), p->kind);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
	cr_assert_eq(efx.cs->summary.bad_records, 1);
}

/* A task holding some other lock, briefly off CPU in the wait, is no guess worth naming. */
Test(pending, unconfirmed_holder_must_have_sat_off_cpu)
{
	static const struct ls_task other = FX_NORMAL(301, 300, 0, "busy");
	const struct ls_stall *st;

	scenario__stuck();
	stream__switch(&efx.s, 1, T(500), &other, HOLDING, true, &efx.hog, 0);
	stream__switch(&efx.s, 1, T(510), &efx.hog, 0, true, &other, HOLDING);
	ticks(T(100), T(1100));
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1, "%u holders", st->n_holders);
	cr_assert_eq(st->holders[0].task.tid, 101);
}

/* Two unconfirmed guesses: a thread of the mm's own process wins over another process's. */
Test(pending, unconfirmed_holder_of_the_mm_owner_first)
{
	static const struct ls_task own = FX_TASK(103, 100, LS_POLICY_IDLE, 0, 0, 120, "own");
	const struct ls_stall *st;

	stream__switch(&efx.s, 1, T(1.5), &own, HOLDING, true, &efx.hog, 0);
	scenario__stuck();
	ticks(T(100), T(1100));
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1, "%u holders", st->n_holders);
	cr_assert_eq(st->holders[0].task.tid, 103);
	cr_assert(st->holders[0].lock_unconfirmed);
}

/*
 * A reader the wakeup granted the lock sits runnable behind the hog (the
 * rwsem handed it over; it has not run since): the writer's pending wait
 * names it for sure, in the mode it asked for, not as a guess.
 */
Test(pending, granted_waiter_is_a_confirmed_holder)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__wait_begin(&idle_holder, false, T(0.5));
	stream__wakeup(&efx.s, 1, T(1), &idle_holder, WAITING | LS_TASK_F_GRANTED, &efx.hog, 0,
		       &efx.hog);
	scenario__wait_begin(&efx.waiter, true, T(2));
	ticks(T(100), T(1100));
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert(st->pending);
	cr_assert_eq(st->n_holders, 1, "%u holders", st->n_holders);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 101);
	cr_assert_not(h->lock_unconfirmed);
	cr_assert_not(h->write);
	cr_assert(h->granted);
	cr_assert_eq(h->state_now, LS_STATE_GRANTED_NOT_RUNNING);
}
