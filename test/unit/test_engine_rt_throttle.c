// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RT throttling from synthetic streams: an RT holder off CPU
 * while its CPU's RT run queue was out of budget (LS_CAUSE_F_RT_THROTTLED
 * on its SWITCH or WAKEUP) gets the cause rt_throttled for that spell's
 * time inside the wait and its advice; a spell the kernel said nothing of
 * stays plain preemption.
 */
#include <string.h>
#include <criterion/criterion.h>
#include "lib/engine_fixture.h"

TestSuite(rt_throttle, .init = fixture__setup, .fini = fixture__teardown);

/*
 * The holder, holding since T(0), goes off CPU 0 runnable at T(1), with
 * cause (LS_CAUSE_F_RT_THROTTLED or 0); the hog runs until T(40), when the
 * holder runs again; it releases at T(45).  The waiter waits T(2)..T(47).
 */
static void scenario__off_runnable(__u8 cause)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	stream__cause(&efx.s, cause);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(40), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
}

static const struct ls_stall *run_one(void)
{
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	return fixture__stall(0);
}

Test(rt_throttle, throttled_spell_is_the_cause)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__off_runnable(LS_CAUSE_F_RT_THROTTLED);
	st = run_one();
	h = &st->holders[0];
	cr_assert_eq(st->verdict, LS_VERDICT_HOLDER_OFF_CPU, "the verdict stays: %s",
		     ls_verdict_name(st->verdict));
	cr_assert_eq(h->state, LS_STATE_PREEMPTED, "the state stays");
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(38));
	/* off CPU T(2)..T(40) inside the wait, all of it throttled */
	cr_assert_eq(h->cause_ns[LS_CAUSE_RT_THROTTLED], MS(38));
	cr_assert_eq(h->cause_ns[LS_CAUSE_THROTTLED], 0, "not the CFS cause");
	cr_assert_null(h->throttle, "no CFS limit to name");
	cr_assert_eq(h->cause, LS_CAUSE_RT_THROTTLED);
	cr_assert_eq(st->cause, LS_CAUSE_RT_THROTTLED);
	cr_assert_str_eq(ls_cause_name(st->cause), "rt_throttled");
	cr_assert_not_null(st->advice);
	cr_assert(strstr(st->advice, "sched_rt_runtime_us"), "advice: %s", st->advice);
	cr_assert_eq(efx.cs->summary.stalls_by_cause[LS_CAUSE_RT_THROTTLED], 1);
}

/* The same spell without the kernel's word: preempted, no cause, preemption's advice. */
Test(rt_throttle, plain_preemption_stays_preempted)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__off_runnable(0);
	st = run_one();
	h = &st->holders[0];
	cr_assert_eq(h->state, LS_STATE_PREEMPTED);
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(38));
	cr_assert_eq(h->cause_ns[LS_CAUSE_RT_THROTTLED], 0);
	cr_assert_eq(h->cause, LS_CAUSE_NONE);
	cr_assert_eq(st->cause, LS_CAUSE_NONE);
	cr_assert_null(strstr(st->advice, "sched_rt_runtime_us"), "advice: %s", st->advice);
	cr_assert(strstr(st->advice, "waited for a CPU"), "advice: %s", st->advice);
	cr_assert_eq(efx.cs->summary.stalls_by_cause[LS_CAUSE_NONE], 1);
}

/*
 * Two runnable spells in one hold: T(1)..T(10) preempted by the hog, then
 * T(20)..T(40) throttled.  Only the second counts, and it is most of the
 * hold, so it names the cause; the preempted time stays preempted.
 */
Test(rt_throttle, only_the_throttled_spell_counts)
{
	struct stream_lock hl = { .start = T(0), .acquired = T(0), .offcpu = MS(29), .write = true };
	const struct ls_holder *h;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(10), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__switch(&efx.s, 0, T(20), &efx.holder, LS_TASK_F_HOLDING, true, NULL, 0);
	stream__cause(&efx.s, LS_CAUSE_F_RT_THROTTLED);
	stream__switch(&efx.s, 0, T(40), NULL, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &hl);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	h = &run_one()->holders[0];
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(28));
	cr_assert_eq(h->cause_ns[LS_CAUSE_RT_THROTTLED], MS(20));
	cr_assert_eq(h->cause, LS_CAUSE_RT_THROTTLED);
}

/* Woken into a throttled RT run queue: from the wakeup on throttled, asleep before. */
Test(rt_throttle, woken_into_throttled_rt_rq)
{
	struct stream_lock hl = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };
	const struct ls_holder *h;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, false, NULL, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__wakeup(&efx.s, 0, T(10), &efx.holder, LS_TASK_F_HOLDING, &efx.hog, 0, NULL);
	stream__cause(&efx.s, LS_CAUSE_F_RT_THROTTLED);
	stream__switch(&efx.s, 0, T(40), NULL, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &hl);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	h = &run_one()->holders[0];
	cr_assert_eq(h->offcpu_by_state[LS_STATE_BLOCKED], MS(8));
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(30));
	cr_assert_eq(h->cause_ns[LS_CAUSE_RT_THROTTLED], MS(30));
	cr_assert_eq(h->cause, LS_CAUSE_RT_THROTTLED);
}

/*
 * A short throttle in a long hold: its time is told, but it explains too
 * little of the hold to point the advice at the RT budget.
 */
Test(rt_throttle, small_throttle_names_no_cause)
{
	struct stream_lock hl = { .start = T(0), .acquired = T(0), .offcpu = MS(5), .write = true };
	const struct ls_stall *st;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(30), &efx.holder, LS_TASK_F_HOLDING, true, NULL, 0);
	stream__cause(&efx.s, LS_CAUSE_F_RT_THROTTLED);
	stream__switch(&efx.s, 0, T(35), NULL, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &hl);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	st = run_one();
	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_RT_THROTTLED], MS(5));
	cr_assert_eq(st->holders[0].cause, LS_CAUSE_NONE);
	cr_assert_eq(st->cause, LS_CAUSE_NONE);
}
