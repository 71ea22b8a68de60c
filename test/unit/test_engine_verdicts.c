// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verdicts: priority_inversion, holder_off_cpu, contention and unknown,
 * each from a synthetic stream through the capture sink.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "lib/engine_fixture.h"
#include "util.h"

TestSuite(verdict, .init = fixture__setup, .fini = fixture__teardown);

struct verdict_case {
	char name[48];		/* inline: Criterion copies params into its worker */
	struct ls_task holder;
	bool hold_write;
	struct ls_task waiter;
	bool wait_write;
	enum ls_verdict want;
};

static struct verdict_case verdict_cases[] = {
	{ "idle reader vs normal writer",
	  FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 120, "bg-reader"), false,
	  FX_NORMAL(102, 100, 0, "fg"), true, LS_VERDICT_PRIORITY_INVERSION },
	{ "normal writer vs fifo reader",
	  FX_NORMAL(101, 100, 0, "worker"), true,
	  FX_TASK(102, 100, LS_POLICY_FIFO, 0, 50, 49, "rt"), false,
	  LS_VERDICT_PRIORITY_INVERSION },
	{ "nice 19 vs nice 0",
	  FX_NORMAL(101, 100, 19, "nice19"), true,
	  FX_NORMAL(102, 100, 0, "nice0"), true, LS_VERDICT_PRIORITY_INVERSION },
	{ "batch vs normal",
	  FX_TASK(101, 100, LS_POLICY_BATCH, 0, 0, 120, "batch"), true,
	  FX_NORMAL(102, 100, 0, "fg"), false, LS_VERDICT_PRIORITY_INVERSION },
	{ "equal importance",
	  FX_NORMAL(101, 100, 0, "a"), true,
	  FX_NORMAL(102, 100, 0, "b"), true, LS_VERDICT_HOLDER_OFF_CPU },
	{ "fifo holder vs normal waiter",
	  FX_TASK(101, 100, LS_POLICY_FIFO, 0, 10, 89, "rt"), true,
	  FX_NORMAL(102, 100, 0, "fg"), true, LS_VERDICT_HOLDER_OFF_CPU },
	{ "normal holder vs idle waiter",
	  FX_NORMAL(101, 100, 0, "fg"), true,
	  FX_TASK(102, 100, LS_POLICY_IDLE, 0, 0, 120, "bg"), false,
	  LS_VERDICT_HOLDER_OFF_CPU },
	/* PREEMPT_RT: the waiter's rt_mutex boost lends the holder its prio */
	{ "idle writer boosted to the fifo waiter",
	  FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 89, "bg-boosted"), true,
	  FX_TASK(102, 100, LS_POLICY_FIFO, 0, 10, 89, "rt"), false,
	  LS_VERDICT_HOLDER_OFF_CPU },
	{ "idle writer boosted below the fifo waiter",
	  FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 94, "bg-boosted"), true,
	  FX_TASK(102, 100, LS_POLICY_FIFO, 0, 10, 89, "rt"), false,
	  LS_VERDICT_PRIORITY_INVERSION },
};

ParameterizedTestParameters(verdict, preempted_holder)
{
	return cr_make_param_array(struct verdict_case, verdict_cases, ARRAY_SIZE(verdict_cases));
}

/* The same preempted-holder stream; only who matters more changes the verdict. */
ParameterizedTest(struct verdict_case *c, verdict, preempted_holder)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__preempted_holder(&c->holder, c->hold_write, &c->waiter, c->wait_write, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1, "%s: %zu stalls", c->name, efx.cs->n_stalls);
	st = fixture__stall(0);
	cr_assert_eq(st->verdict, c->want, "%s: verdict %s", c->name, ls_verdict_name(st->verdict));
	cr_assert_eq(st->seq, 1);
	cr_assert_eq(st->write, c->wait_write);
	cr_assert(st->acquired);
	cr_assert_eq(st->start_ns, T(2));
	cr_assert_eq(st->end_ns, T(53));
	cr_assert_eq(st->wait_ns, MS(51));
	cr_assert_eq(st->waiter.tid, 102);
	cr_assert_eq(st->lock.id, efx.mm.id);
	cr_assert_eq(st->lost_in_window, 0);

	cr_assert_eq(st->n_holders, 1);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 101);
	cr_assert_eq(h->write, c->hold_write);
	cr_assert(h->released);
	cr_assert_eq(h->hold_start_ns, T(0));
	cr_assert_eq(h->hold_end_ns, T(51));
	cr_assert_eq(h->held_ns, MS(51));
	cr_assert_eq(h->overlap_ns, MS(49));
	cr_assert_eq(h->offcpu_ns, MS(48), "offcpu %llu", (unsigned long long)h->offcpu_ns);
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(48));
	cr_assert_eq(h->state, LS_STATE_PREEMPTED);
	cr_assert_eq(h->n_preempted_by, 1);
	cr_assert_eq(h->preempted_by[0].task.tid, efx.hog.tid);
	cr_assert_eq(h->preempted_by[0].ns, MS(48));

	cr_assert_eq(st->n_chain, 3);
	cr_assert_eq(st->chain[0].role, LS_ROLE_WAITER);
	cr_assert_eq(st->chain[0].task.tid, 102);
	cr_assert_eq(st->chain[1].role, LS_ROLE_HOLDER);
	cr_assert_eq(st->chain[1].ns, MS(48));
	cr_assert_eq(st->chain[2].role, LS_ROLE_PREEMPTOR);
	cr_assert_eq(st->chain[2].task.tid, efx.hog.tid);
	cr_assert_eq(st->chain[2].ns, MS(48));

	cr_assert_eq(efx.cs->n_summaries, 1);
	cr_assert_eq(efx.cs->summary.stalls, 1);
	cr_assert_eq(efx.cs->summary.stalls_by_verdict[c->want], 1);
}

/* prio is 120 for both: only the policies tell a SCHED_IDLE task matters less. */
Test(verdict, idle_prio_120_is_below_normal_prio_120)
{
	static const struct ls_task idle = FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 120, "idle");
	const struct ls_stall *st;

	scenario__preempted_holder(&idle, false, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].task.prio, st->waiter.prio);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
}

/* The holder ran the whole time: real work under the lock. */
Test(verdict, contention_when_holder_on_cpu)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .write = true };
	const struct ls_stall *st;

	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__hold(&efx.s, 0, T(51), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(53), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->verdict, LS_VERDICT_CONTENTION);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].state, LS_STATE_RUNNING);
	cr_assert_eq(st->holders[0].offcpu_ns, 0);
	cr_assert_eq(st->holders[0].overlap_ns, MS(49));
	cr_assert_eq(st->n_chain, 2);
	cr_assert_eq(st->chain[1].role, LS_ROLE_HOLDER);
	cr_assert_eq(st->chain[1].ns, 0);
}

/* Off CPU less than half the wait is still contention. */
Test(verdict, contention_when_off_cpu_under_half)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .write = true };
	const struct ls_stall *st;

	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(10), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	stream__switch(&efx.s, 0, T(30), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(51), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(53), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(20));
	cr_assert_eq(st->holders[0].state, LS_STATE_RUNNING);
	cr_assert_eq(st->verdict, LS_VERDICT_CONTENTION);
}

Test(verdict, unknown_when_no_holder_seen)
{
	const struct ls_stall *st;

	scenario__wait_begin(&efx.waiter, true, T(2));
	scenario__wait_end(&efx.waiter, true, T(2), T(53), NULL);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
	cr_assert_eq(st->n_holders, 0);
	cr_assert_eq(st->n_chain, 1);
	cr_assert_eq(st->chain[0].role, LS_ROLE_WAITER);
	cr_assert_eq(efx.cs->summary.stalls_by_verdict[LS_VERDICT_UNKNOWN], 1);
}

/* lost_before on a CPU marks (its previous record, this record) as lossy. */
Test(verdict, unknown_when_lost_before_inside_wait)
{
	const struct ls_stall *st;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, 0);
	stream__switch(&efx.s, 2, T(10), NULL, 0, false, NULL, 0);
	stream__lost_before(&efx.s, 3);
	stream__switch(&efx.s, 2, T(20), NULL, 0, false, NULL, 0);
	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
	cr_assert_eq(st->lost_in_window, 3);
	cr_assert_eq(st->n_holders, 1, "the holders are still reported");
	cr_assert_eq(efx.cs->summary.lost_events, 3);
}

/* A hole that closed before the wait began does not taint it. */
Test(verdict, lost_before_ending_before_wait_is_clean)
{
	const struct ls_stall *st;

	stream__switch(&efx.s, 2, T(0), NULL, 0, false, NULL, 0);
	stream__lost_before(&efx.s, 5);
	stream__switch(&efx.s, 2, T(1), NULL, 0, false, NULL, 0);
	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->lost_in_window, 0);
	cr_assert_eq(st->verdict, LS_VERDICT_HOLDER_OFF_CPU);
	cr_assert_eq(efx.cs->summary.lost_events, 5);
}

/* The first record of a CPU with lost_before: lost since the beginning. */
Test(verdict, unknown_when_first_record_of_cpu_reports_loss)
{
	const struct ls_stall *st;

	/* CPU 3's first record, while the wait is on, says records were lost. */
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__lost_before(&efx.s, 1);
	stream__switch(&efx.s, 3, T(30), NULL, 0, false, NULL, 0);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(51), &efx.holder, &efx.mm,
		     &(struct stream_lock){ .start = T(0), .write = true });
	scenario__wait_end(&efx.waiter, true, T(2), T(53), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
	cr_assert_eq(st->lost_in_window, 1);
}

struct lost_case {
	char name[48];		/* inline: Criterion copies params into its worker */
	__u64 first, last;	/* the LS_REC_LOST span */
	enum ls_verdict want;
	__u64 want_lost;
};

static struct lost_case lost_cases[] = {
	{ "inside the wait", T(20), T(30), LS_VERDICT_UNKNOWN, 7 },
	{ "straddles the start", T(1), T(5), LS_VERDICT_UNKNOWN, 7 },
	{ "unknown start", 0, T(10), LS_VERDICT_UNKNOWN, 7 },
	{ "before the wait", T(0), T(1), LS_VERDICT_HOLDER_OFF_CPU, 0 },
};

ParameterizedTestParameters(verdict, lost_record_span)
{
	return cr_make_param_array(struct lost_case, lost_cases, ARRAY_SIZE(lost_cases));
}

ParameterizedTest(struct lost_case *c, verdict, lost_record_span)
{
	const struct ls_stall *st;

	stream__lost(&efx.s, T(1), 7, c->first, c->last);
	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->verdict, c->want, "%s: %s", c->name, ls_verdict_name(st->verdict));
	cr_assert_eq(st->lost_in_window, c->want_lost, "%s", c->name);
	cr_assert_eq(efx.cs->summary.lost_events, 7);
}
