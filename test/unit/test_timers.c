// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* src/timers.c: the watch loop's deadlines, with time passed in. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "timers.h"

#define MS(x) ((__u64)(x) * 1000000ULL)

static struct timers tm;

static void setup(void)
{
	timers__init(&tm);
}

TestSuite(timers, .init = setup);

Test(timers, nothing_armed_waits_the_most)
{
	cr_assert_eq(timers__wait_ms(&tm, MS(5), 100), 100);
	cr_assert_not(timer__due(&tm, 0, MS(1000)));
}

Test(timers, periodic_keeps_its_beat)
{
	timer__every(&tm, 1, MS(0), MS(100));
	cr_assert_not(timer__due(&tm, 1, MS(99)));
	cr_assert(timer__due(&tm, 1, MS(100)));
	cr_assert_not(timer__due(&tm, 1, MS(100)), "fires once per beat");
	/* late by 30 ms: the next beat stays at 200, not 230 */
	cr_assert(timer__due(&tm, 1, MS(170)) == false);
	cr_assert(timer__due(&tm, 1, MS(230)));
	cr_assert_eq(timers__wait_ms(&tm, MS(230), 1000), 70);
}

Test(timers, missed_beats_are_skipped_not_queued)
{
	timer__every(&tm, 0, MS(0), MS(100));
	cr_assert(timer__due(&tm, 0, MS(1050)));
	cr_assert_not(timer__due(&tm, 0, MS(1050)), "no catching up");
	cr_assert_not(timer__due(&tm, 0, MS(1099)));
	cr_assert(timer__due(&tm, 0, MS(1100)));
}

Test(timers, one_shot_fires_once)
{
	timer__at(&tm, 2, MS(500));
	cr_assert(timer__armed(&tm, 2));
	cr_assert_not(timer__due(&tm, 2, MS(499)));
	cr_assert(timer__due(&tm, 2, MS(501)));
	cr_assert_not(timer__armed(&tm, 2));
	cr_assert_not(timer__due(&tm, 2, MS(600)));
}

Test(timers, period_zero_is_disarmed)
{
	timer__every(&tm, 3, MS(0), 0);
	cr_assert_not(timer__armed(&tm, 3));
	cr_assert_eq(timers__wait_ms(&tm, 0, 100), 100);
}

Test(timers, disarm)
{
	timer__every(&tm, 3, MS(0), MS(10));
	timer__disarm(&tm, 3);
	cr_assert_not(timer__due(&tm, 3, MS(20)));
}

Test(timers, out_of_range_ids_are_ignored)
{
	timer__every(&tm, TIMERS_MAX, 0, MS(10));
	timer__at(&tm, TIMERS_MAX + 5, MS(10));
	cr_assert_not(timer__armed(&tm, TIMERS_MAX));
	cr_assert_not(timer__due(&tm, TIMERS_MAX, MS(100)));
	cr_assert_eq(timers__wait_ms(&tm, 0, 100), 100);
}

struct wait_case {
	__u64 now;
	int max_ms;
	int want;
};

/* Timers at 250 ms (periodic 250) and 1000.4 ms (one-shot). */
ParameterizedTestParameters(timers, wait_ms)
{
	static struct wait_case cases[] = {
		{ MS(0), 100, 100 },		/* capped */
		{ MS(0), 1000, 250 },		/* the earliest */
		{ MS(249) + 1, 1000, 1 },	/* rounded up: never wakes early */
		{ MS(250), 1000, 0 },		/* due now */
		{ MS(300), 1000, 0 },		/* overdue */
	};

	return cr_make_param_array(struct wait_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct wait_case *c, timers, wait_ms)
{
	timer__every(&tm, 0, MS(0), MS(250));
	timer__at(&tm, 4, MS(1000) + 400000);
	cr_assert_eq(timers__wait_ms(&tm, c->now, c->max_ms), c->want, "now %llu: %d",
		     (unsigned long long)c->now, timers__wait_ms(&tm, c->now, c->max_ms));
}

Test(timers, one_shot_later_than_periodic)
{
	timer__at(&tm, 4, MS(1000) + 400000);
	cr_assert_eq(timers__wait_ms(&tm, MS(999), 5000), 2);
}
