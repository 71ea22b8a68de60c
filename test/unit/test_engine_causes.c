// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Causes (issue 17): what the kernel said kept a holder from running, from
 * synthetic streams: the throttled time inside the wait, the limit, the
 * stall's cause and advice; and nothing said where the kernel said nothing.
 */
#include <string.h>
#include <criterion/criterion.h>
#include "lib/engine_fixture.h"

TestSuite(causes, .init = fixture__setup, .fini = fixture__teardown);

/*
 * The holder, holding since T(0), goes off CPU 0 runnable at T(1) with its
 * cgroup out of quota (LS_CAUSE_F_THROTTLED after a THROTTLE record); the
 * CPU idles until the period refills it at T(40), when it runs again; it
 * releases at T(45).  The waiter waits T(2)..T(47).
 */
static void scenario__throttled(bool cause, __u64 told_ns)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSE_THROTTLE);
	if (cause)
		stream__throttle(&efx.s, 0, T(1), &efx.holder, "/batch/ls-limited", 3, MS(10),
				 MS(100));
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, NULL, 0);
	if (cause)
		stream__cause(&efx.s, LS_CAUSE_F_THROTTLED);
	scenario__wait_begin(&efx.waiter, true, T(2));
	if (told_ns)
		stream__unthrottle(&efx.s, 0, T(40), &efx.holder, told_ns);
	stream__switch(&efx.s, 0, T(40), NULL, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
}

Test(causes, throttled_holder)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__throttled(true, 0);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	h = &st->holders[0];
	cr_assert_eq(st->verdict, LS_VERDICT_HOLDER_OFF_CPU, "the verdict stays: %s",
		     ls_verdict_name(st->verdict));
	cr_assert_eq(h->state, LS_STATE_PREEMPTED);
	/* off CPU T(2)..T(40) inside the wait, all of it throttled */
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(38));
	cr_assert_eq(h->cause_ns[LS_CAUSE_THROTTLED], MS(38));
	cr_assert_eq(h->cause, LS_CAUSE_THROTTLED);
	cr_assert_eq(st->cause, LS_CAUSE_THROTTLED);
	cr_assert_not_null(h->throttle);
	cr_assert_str_eq(h->throttle->path, "/batch/ls-limited");
	cr_assert_eq(h->throttle->hierarchy_id, 3);
	cr_assert_eq(h->throttle->quota_ns, MS(10));
	cr_assert_eq(h->throttle->period_ns, MS(100));
	cr_assert_not_null(st->advice);
	cr_assert(strstr(st->advice, "quota"), "advice: %s", st->advice);
	cr_assert_eq(efx.cs->summary.stalls_by_cause[LS_CAUSE_THROTTLED], 1);
}

/* The same spell without the kernel's word: preempted, no cause, no limit. */
Test(causes, unsaid_is_not_printed)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__throttled(false, 0);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	h = &st->holders[0];
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(38));
	cr_assert_eq(h->cause_ns[LS_CAUSE_THROTTLED], 0);
	cr_assert_eq(h->cause, LS_CAUSE_NONE);
	cr_assert_eq(st->cause, LS_CAUSE_NONE);
	cr_assert_null(h->throttle);
	cr_assert_not_null(st->advice, "a run that looked for causes advises every stall");
	cr_assert_null(strstr(st->advice, "quota"), "advice: %s", st->advice);
	cr_assert_eq(efx.cs->summary.stalls_by_cause[LS_CAUSE_NONE], 1);
}

/* A recording from before causes (no feature bit): no advice, output as it was. */
Test(causes, old_recording_no_advice)
{
	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	cr_assert_null(fixture__stall(0)->advice);
	cr_assert_eq(fixture__stall(0)->cause, LS_CAUSE_NONE);
}

/*
 * Woken into a throttled cgroup: the runnable spell from the wakeup on is
 * throttled, the blocked part before it is not.
 */
Test(causes, woken_into_throttled_cgroup)
{
	struct stream_lock hl = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };
	const struct ls_holder *h;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSE_THROTTLE);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, false, NULL, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__throttle(&efx.s, 0, T(10), &efx.holder, "/", 0, MS(5), MS(50));
	stream__wakeup(&efx.s, 0, T(10), &efx.holder, LS_TASK_F_HOLDING, &efx.hog, 0, NULL);
	stream__cause(&efx.s, LS_CAUSE_F_THROTTLED);
	stream__switch(&efx.s, 0, T(40), NULL, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &hl);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	h = &fixture__stall(0)->holders[0];
	cr_assert_eq(h->offcpu_by_state[LS_STATE_BLOCKED], MS(8));
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(30));
	cr_assert_eq(h->cause_ns[LS_CAUSE_THROTTLED], MS(30));
	cr_assert_not_null(h->throttle);
	cr_assert_str_eq(h->throttle->path, "/");
	cr_assert_eq(h->throttle->hierarchy_id, 0);
}

/*
 * UNTHROTTLE says the quota held it 20 ms from its switch-out at T(1): only
 * T(2)..T(21) of the wait is throttled; the rest of the spell it waited
 * for the CPU like any preempted task.  A count past the spell is clipped.
 */
Test(causes, unthrottle_bounds_the_time)
{
	const struct ls_holder *h;

	scenario__throttled(true, MS(20));
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	h = &fixture__stall(0)->holders[0];
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(38));
	cr_assert_eq(h->cause_ns[LS_CAUSE_THROTTLED], MS(19));
	cr_assert_eq(h->cause, LS_CAUSE_THROTTLED);
}

Test(causes, unthrottle_clipped_to_the_spell)
{
	scenario__throttled(true, MS(500));
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	cr_assert_eq(fixture__stall(0)->holders[0].cause_ns[LS_CAUSE_THROTTLED], MS(38));
}
