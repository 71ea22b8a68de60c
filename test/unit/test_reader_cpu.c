// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* src/reader_cpu.c: the reader's waits for a CPU, from schedstat texts and times passed in. */
#include <errno.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "reader_cpu.h"
#include "util.h"

#define MS(x) ((__u64)(x) * 1000000ULL)

struct parse_case {
	char text[48];
	int rc;
	__u64 delay_ns;
};

ParameterizedTestParameters(reader_cpu, parse)
{
	static struct parse_case cases[] = {
		{ "5133012 73520 19\n", 0, 73520 },
		{ "1 0 1", 0, 0 },
		{ "18446744073709551615 42 7\n", 0, 42 },
		{ "", -EINVAL, 0 },
		{ "12", -EINVAL, 0 },
		{ "12 x 3", -EINVAL, 0 },
		{ "12 3x 3", -EINVAL, 0 },
		{ "12 99999999999999999999 3", -EINVAL, 0 },
	};

	return cr_make_param_array(struct parse_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct parse_case *c, reader_cpu, parse)
{
	__u64 delay = 0;

	cr_assert_eq(reader_cpu__parse(c->text, &delay), c->rc, "'%s'", c->text);
	if (!c->rc)
		cr_assert_eq(delay, c->delay_ns, "'%s'", c->text);
}

/* Only periods that lost events count, and the worst of them is kept. */
Test(reader_cpu, worst_period_that_lost_events)
{
	struct reader_cpu r = { .known = true, .delay_ns = MS(10), .at_ns = MS(1000) };

	reader_cpu__account(&r, MS(2000), MS(910), false);	/* 90%, nothing lost */
	cr_assert_eq(r.worst_pct, 0);
	reader_cpu__account(&r, MS(3000), MS(1210), true);	/* 30% */
	cr_assert_eq(r.worst_pct, 30);
	reader_cpu__account(&r, MS(4000), MS(1310), true);	/* 10%: the worst stays */
	cr_assert_eq(r.worst_pct, 30);
	reader_cpu__account(&r, MS(4500), MS(1810), true);	/* all of a half period */
	cr_assert_eq(r.worst_pct, 100);
	cr_assert_eq(r.delay_ns, MS(1810));
	cr_assert_eq(r.at_ns, MS(4500));
}

/* A period of no length, or a clock that went nowhere, counts nothing. */
Test(reader_cpu, empty_period_counts_nothing)
{
	struct reader_cpu r = { .known = true, .delay_ns = MS(10), .at_ns = MS(1000) };

	reader_cpu__account(&r, MS(1000), MS(500), true);
	cr_assert_eq(r.worst_pct, 0);
	reader_cpu__account(&r, MS(2000), MS(400), true);	/* run_delay went back: 0 */
	cr_assert_eq(r.worst_pct, 0);
}

/* This very thread: a schedstat that parses, or none at all (no CONFIG_SCHED_INFO). */
Test(reader_cpu, start_reads_this_thread)
{
	struct reader_cpu r;

	reader_cpu__start(&r, MS(7));
	cr_assert_eq(r.at_ns, MS(7));
	cr_assert_eq(r.worst_pct, 0);
	reader_cpu__period(&r, MS(8), true);
	cr_assert_eq(r.at_ns, r.known ? MS(8) : MS(7));
}

#define RING	(16ULL << 20)
#define MSEC	1000000ULL

/* The boost rises past a quarter full, falls under a sixteenth. */
Test(reader_boost, raised_while_behind)
{
	struct reader_boost_state s = { 0 };

	cr_assert_eq(reader_boost__step(&s, RING / 4, RING, 10 * MSEC), READER_BOOST_KEEP);
	cr_assert_eq(reader_boost__step(&s, RING / 4 + 1, RING, 20 * MSEC), READER_BOOST_RAISE);
	cr_assert_eq(reader_boost__step(&s, RING / 8, RING, 30 * MSEC), READER_BOOST_KEEP);
	cr_assert_eq(reader_boost__step(&s, RING / 16, RING, 40 * MSEC), READER_BOOST_LOWER);
	cr_assert_eq(s.raises, 1);
	cr_assert_eq(s.raised_ns, 20 * MSEC);
	cr_assert_not(s.resting, "it caught up: raised again as soon as it falls behind");
	cr_assert_eq(reader_boost__step(&s, RING / 2, RING, 50 * MSEC), READER_BOOST_RAISE);
}

/* Raised for READER_BOOST_MAX_NS and still behind: lowered, and rests as long. */
Test(reader_boost, rests_after_its_longest_raise)
{
	struct reader_boost_state s = { 0 };
	__u64 t = 0;

	cr_assert_eq(reader_boost__step(&s, RING / 2, RING, t), READER_BOOST_RAISE);
	for (t = 10 * MSEC; t < READER_BOOST_MAX_NS; t += 10 * MSEC)
		cr_assert_eq(reader_boost__step(&s, RING / 2, RING, t), READER_BOOST_KEEP);
	cr_assert_eq(reader_boost__step(&s, RING / 2, RING, t), READER_BOOST_LOWER);
	cr_assert(s.resting);
	cr_assert_eq(reader_boost__step(&s, RING, RING, t + READER_BOOST_MAX_NS - 1),
		     READER_BOOST_KEEP);
	cr_assert_eq(reader_boost__step(&s, RING, RING, t + READER_BOOST_MAX_NS),
		     READER_BOOST_RAISE);
	cr_assert_eq(s.raises, 2);
}
