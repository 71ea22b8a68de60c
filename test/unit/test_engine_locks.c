// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Waits and holds per mm: which WAIT_ENDs become stalls (threshold,
 * trylock, failure), the pid filter, retention and the per-mm bounds.
 */
#include <errno.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"
#include "util.h"

TestSuite(wait, .init = fixture__setup, .fini = fixture__teardown);

/* A failed trylock never waited: no stall, whatever its times say, and no state. */
Test(wait, trylock_failure_leaves_nothing)
{
	struct stream_lock t1 = { .start = T(1), .failed = true, .flags = LS_LOCK_F_TRYLOCK };
	struct stream_lock t2 = { .start = T(0), .failed = true, .write = true,
				  .flags = LS_LOCK_F_TRYLOCK };
	struct engine_debug d;

	stream__wait_end(&efx.s, 0, T(1), &efx.waiter, &efx.mm, &t1);
	stream__wait_end(&efx.s, 0, T(50), &efx.holder, &efx.mm, &t2);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.tasks, 0);
	cr_assert_eq(d.locks, 0);
	cr_assert_eq(d.waits, 0);
	cr_assert_eq(efx.cs->summary.bad_records, 0);
	cr_assert_eq(efx.cs->summary.events, 2);
}

struct edge_case {
	char name[48];		/* inline: Criterion copies params into its worker */
	__s64 delta_ns;		/* wait = threshold + delta */
	size_t want;
};

static struct edge_case edge_cases[] = {
	{ "far below", -5000000, 0 },
	{ "1 ns short", -1, 0 },
	{ "exactly the threshold", 0, 1 },
	{ "1 ns over", 1, 1 },
};

ParameterizedTestParameters(wait, threshold_edge)
{
	return cr_make_param_array(struct edge_case, edge_cases, ARRAY_SIZE(edge_cases));
}

ParameterizedTest(struct edge_case *c, wait, threshold_edge)
{
	struct stream_lock w = { .start = T(2) };
	__u64 end = T(2) + efx.opts.threshold_ns + c->delta_ns;

	stream__wait_end(&efx.s, 1, end, &efx.waiter, &efx.mm, &w);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, c->want, "%s", c->name);
	cr_assert_eq(efx.cs->summary.stalls, c->want);
	if (c->want)
		cr_assert_eq(fixture__stall(0)->wait_ns, end - T(2));
}

/* A killable wait that gave up: still a stall, not acquired, no hold left behind. */
Test(wait, failed_long_wait_is_a_stall)
{
	struct stream_lock h = { .start = T(0), .write = true };
	struct stream_lock w = { .start = T(2), .write = true, .failed = true,
				 .flags = LS_LOCK_F_BEGIN_SENT };
	struct engine_debug d;
	const struct ls_stall *st;

	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__wait_end(&efx.s, 1, T(40), &efx.waiter, &efx.mm, &w);
	stream__switch(&efx.s, 0, T(45), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(46), &efx.holder, &efx.mm, &h);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_not(st->acquired);
	cr_assert_eq(st->wait_ns, MS(38));
	/* The holder's HOLD came after the wait ended: it could not be seen. */
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.open_holds, 0);
	cr_assert_eq(d.open_waits, 0);
}

/* Every WAIT_END past the threshold is one stall, numbered in order. */
Test(wait, one_stall_per_wait_end)
{
	static const struct ls_task other = FX_NORMAL(105, 100, 0, "spinner");
	struct stream_lock spin = { .start = T(60), .write = true };

	scenario__wait_begin(&efx.waiter, true, T(2));
	scenario__wait_end(&efx.waiter, true, T(2), T(20), NULL);
	scenario__wait_begin(&efx.waiter, false, T(30));
	scenario__wait_end(&efx.waiter, false, T(30), T(50), NULL);
	/* Never went off CPU: no WAIT_BEGIN, only the WAIT_END. */
	stream__wait_end(&efx.s, 3, T(75), &other, &efx.mm, &spin);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 3);
	cr_assert_eq(fixture__stall(0)->seq, 1);
	cr_assert_eq(fixture__stall(1)->seq, 2);
	cr_assert_eq(fixture__stall(2)->seq, 3);
	cr_assert_eq(fixture__stall(2)->waiter.tid, 105);
	cr_assert_eq(fixture__stall(2)->wait_ns, MS(15));
	cr_assert_eq(efx.cs->summary.stalls, 3);
	cr_assert_eq(efx.cs->summary.stalls_by_verdict[LS_VERDICT_UNKNOWN], 3);
}

/* A wait ending before it began (clock skew, garbage): no stall, no wrap-around. */
Test(wait, end_before_start_is_no_stall)
{
	struct stream_lock w = { .start = T(50) };

	stream__wait_end(&efx.s, 1, T(10), &efx.waiter, &efx.mm, &w);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
}

TestSuite(filter, .init = fixture__setup, .fini = fixture__teardown);

struct filter_case {
	char name[48];		/* inline: Criterion copies params into its worker */
	__u32 pid;
	size_t want;
};

/* waiter tgid 300, mm owner 150, holder 400, hog 200 */
static struct filter_case filter_cases[] = {
	{ "no filter", 0, 1 },
	{ "the waiter's process", 300, 1 },
	{ "the mm owner", 150, 1 },
	{ "a holder's process", 400, 1 },
	{ "only the preemptor's", 200, 0 },
	{ "unrelated", 999, 0 },
};

ParameterizedTestParameters(filter, pid)
{
	return cr_make_param_array(struct filter_case, filter_cases, ARRAY_SIZE(filter_cases));
}

ParameterizedTest(struct filter_case *c, filter, pid)
{
	static const struct ls_task holder = FX_NORMAL(401, 400, 0, "holder");
	static const struct ls_task waiter = FX_NORMAL(301, 300, 0, "waiter");
	size_t v, by_verdict = 0;

	efx.opts.filter_pid = c->pid;
	efx.mm.tgid = 150;
	scenario__preempted_holder(&holder, true, &waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, c->want, "%s", c->name);
	cr_assert_eq(efx.cs->summary.stalls, c->want, "%s: counted", c->name);
	for (v = 0; v < LS_VERDICT_N; v++)
		by_verdict += efx.cs->summary.stalls_by_verdict[v];
	cr_assert_eq(by_verdict, c->want);
	if (c->want)
		cr_assert_eq(fixture__stall(0)->seq, 1);
}

TestSuite(retention, .init = fixture__setup, .fini = fixture__teardown);

/* Advance time by records that change nothing, so the sweep visits every slot. */
static void idle_records(__u64 from, __u64 to, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		stream__switch(&efx.s, 7, from + (to - from) / n * i, NULL, 0, false, NULL, 0);
}

Test(retention, old_holds_pruned_after_retain)
{
	struct stream_lock h = { .start = T(0), .write = true };
	struct engine_debug d;

	stream__hold(&efx.s, 0, T(20), &efx.holder, &efx.mm, &h);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.holds, 1);
	cr_assert_eq(d.locks, 1);

	stream__clear(&efx.s);
	idle_records(T(100), T(2500), 200);
	cr_assert_eq(fixture__run(), 0);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.holds, 0);
	cr_assert_eq(d.locks, 0);
	cr_assert_eq(efx.cs->summary.evicted, 0, "retention is not eviction");
}

/* A wait in progress keeps every hold that ended after it began. */
Test(retention, open_wait_pins_holds)
{
	struct stream_lock h = { .start = T(0), .write = true };
	const struct ls_stall *st;

	efx.opts.threshold_ns = MS(10);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__hold(&efx.s, 0, T(20), &efx.holder, &efx.mm, &h);
	idle_records(T(100), T(3000), 300);
	scenario__wait_end(&efx.waiter, true, T(2), T(3005), NULL);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1, "the hold 3 s before the end is still there");
	cr_assert_eq(st->holders[0].task.tid, 101);
}

/* Per lock at most ENGINE_LOCK_MAX_HOLDS completed holds; the oldest go, counted. */
Test(retention, holds_per_mm_bounded)
{
	struct stream_lock h = { .start = T(0) };
	struct engine_debug d;
	struct ls_task r;
	unsigned int i, n = ENGINE_LOCK_MAX_HOLDS + 1000;

	for (i = 0; i < n; i++) {
		r = stream__task(1000 + i, 100, LS_POLICY_NORMAL, 0, 0, "r");
		stream__hold(&efx.s, 0, T(1) + i, &r, &efx.mm, &h);
	}
	cr_assert_eq(fixture__run(), 0);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.holds, ENGINE_LOCK_MAX_HOLDS);
	cr_assert_eq(efx.cs->summary.evicted, 1000);
}

/* Over all locks at most ENGINE_MAX_HOLDS. */
Test(retention, holds_total_bounded)
{
	struct stream_lock h = { .start = T(0) };
	struct engine_debug d;
	struct ls_lock_id mm;
	unsigned int i, n = ENGINE_MAX_HOLDS + 500;

	for (i = 0; i < n; i++) {
		mm = stream__mm(0x1000 + (i % 64) * 0x1000, 100, "app");
		stream__hold(&efx.s, 0, T(1) + i, &efx.holder, &mm, &h);
	}
	cr_assert_eq(fixture__run(), 0);
	engine__debug(efx.e, &d);
	cr_assert_leq(d.holds, ENGINE_MAX_HOLDS);
	cr_assert_geq(efx.cs->summary.evicted, 500);
}
