// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Histograms (cumulative in, interval deltas and totals out), the summary,
 * and sink errors travelling back out of engine__feed / engine__finish.
 */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>
#include "lib/engine_fixture.h"

TestSuite(hist, .init = fixture__setup, .fini = fixture__teardown);

/* A cumulative histogram: count values all in one slot, sum_ns in total. */
static struct ls_hist hist_of(__u64 count, __u64 sum_ns, unsigned int slot)
{
	struct ls_hist h;

	memset(&h, 0, sizeof(h));
	memcpy(h.comm, "app", 4);
	h.count = count;
	h.sum_ns = sum_ns;
	h.slots[slot] = count;
	return h;
}

static void two_intervals(void)
{
	struct ls_hist wait5 = hist_of(5, MS(50), 14), wait8 = hist_of(8, MS(80), 14);
	struct ls_hist hold2 = hist_of(2, MS(4), 12);

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, 0);
	stream__hist(&efx.s, T(10), 100, LS_HIST_WAIT, 0, &wait5);
	stream__hist(&efx.s, T(10), 100, LS_HIST_HOLD, LS_HIST_ANY_MODE, &hold2);
	stream__mark(&efx.s, T(10), LS_MARK_INTERVAL, 0);
	stream__hist(&efx.s, T(20), 100, LS_HIST_WAIT, 0, &wait8);
	stream__hist(&efx.s, T(20), 100, LS_HIST_HOLD, LS_HIST_ANY_MODE, &hold2);
	stream__mark(&efx.s, T(20), LS_MARK_INTERVAL, 0);
	stream__mark(&efx.s, T(30), LS_MARK_END, 0);
}

Test(hist, interval_deltas)
{
	const struct ls_hist_set *iv;
	const struct ls_hist_entry *ent;

	two_intervals();
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_intervals, 2);

	iv = &efx.cs->intervals[0];
	cr_assert_eq(iv->start_ns, T(0));
	cr_assert_eq(iv->end_ns, T(10));
	cr_assert_eq(iv->n, 2);
	ent = capture_sink__find(iv, 100, LS_HIST_WAIT, 0);
	cr_assert_not_null(ent);
	cr_assert_eq(ent->hist.count, 5);
	cr_assert_str_eq(ent->hist.comm, "app");

	iv = &efx.cs->intervals[1];
	cr_assert_eq(iv->start_ns, T(10));
	cr_assert_eq(iv->end_ns, T(20));
	cr_assert_eq(iv->n, 1, "an unchanged histogram is left out");
	ent = capture_sink__find(iv, 100, LS_HIST_WAIT, 0);
	cr_assert_not_null(ent);
	cr_assert_eq(ent->hist.count, 3);
	cr_assert_eq(ent->hist.sum_ns, MS(30));
	cr_assert_eq(ent->hist.slots[14], 3);
	cr_assert_null(capture_sink__find(iv, 100, LS_HIST_HOLD, LS_HIST_ANY_MODE));
}

Test(hist, summary_is_cumulative)
{
	const struct ls_summary *sum;
	const struct ls_hist_entry *ent;

	two_intervals();
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_summaries, 1);
	sum = &efx.cs->summary;
	cr_assert_eq(sum->start_ns, T(0));
	cr_assert_eq(sum->end_ns, T(30));
	cr_assert_eq(sum->duration_ns, MS(30));
	cr_assert_eq(sum->events, 8);
	cr_assert_eq(sum->bad_records, 0);
	cr_assert_eq(sum->hists->n, 2);
	cr_assert_eq(sum->hists->start_ns, T(0));
	cr_assert_eq(sum->hists->end_ns, T(30));
	ent = capture_sink__find(sum->hists, 100, LS_HIST_WAIT, 0);
	cr_assert_not_null(ent);
	cr_assert_eq(ent->hist.count, 8);
	cr_assert_eq(ent->hist.sum_ns, MS(80));
	ent = capture_sink__find(sum->hists, 100, LS_HIST_HOLD, LS_HIST_ANY_MODE);
	cr_assert_not_null(ent);
	cr_assert_eq(ent->hist.count, 2);
}

/* A kernel map that went back (reset) counts as all new, never as a huge wrap. */
Test(hist, counts_going_back_are_new)
{
	struct ls_hist big = hist_of(10, MS(100), 14), small = hist_of(4, MS(40), 14);

	stream__hist(&efx.s, T(1), 100, LS_HIST_WAIT, 1, &big);
	stream__mark(&efx.s, T(2), LS_MARK_INTERVAL, 0);
	stream__hist(&efx.s, T(3), 100, LS_HIST_WAIT, 1, &small);
	stream__mark(&efx.s, T(4), LS_MARK_INTERVAL, 0);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_intervals, 2);
	cr_assert_eq(efx.cs->intervals[0].start_ns, T(1), "no begin mark: from the first record");
	cr_assert_eq(efx.cs->intervals[1].v[0].hist.count, 4);
	cr_assert_eq(efx.cs->intervals[1].v[0].hist.sum_ns, MS(40));
}

/* Without marks the run spans the first to the last record. */
Test(hist, summary_span_without_marks)
{
	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->summary.start_ns, T(1));
	cr_assert_eq(efx.cs->summary.end_ns, T(53));
	cr_assert_eq(efx.cs->summary.duration_ns, MS(52));
	cr_assert_eq(efx.cs->summary.hists->n, 0);
	cr_assert_eq(efx.cs->summary.events, efx.s.n);
}

/* engine__summary can be read at any time; finish sends it once. */
Test(hist, finish_sends_summary_once)
{
	struct ls_summary sum;

	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(engine__finish(efx.e), 0);
	cr_assert_eq(efx.cs->n_summaries, 1);
	engine__summary(efx.e, &sum);
	cr_assert_eq(sum.stalls, 1);
	cr_assert_eq(sum.stalls_by_verdict[LS_VERDICT_HOLDER_OFF_CPU], 1);
}

/*
 * The kernel names a histogram when it makes it: a shell's child that
 * exec'd "ps" came as "bash".  The newest name the stream gives for the
 * process wins: a lock record of its mm, its leader's exit, a later HIST.
 */
Test(hist, process_named_by_its_newest_name)
{
	struct ls_hist wait = hist_of(5, MS(50), 14), hold = hist_of(2, MS(4), 12);
	struct ls_task ps = stream__task(100, 100, LS_POLICY_NORMAL, 0, 0, "ps");
	struct ls_task thread = stream__task(101, 100, LS_POLICY_NORMAL, 0, 0, "worker");
	struct ls_mm mm_ps = stream__mm(0xaa, 100, "ps");
	struct stream_lock l = { .start = T(11), .acquired = T(11) };
	const struct ls_hist_entry *ent;

	memcpy(wait.comm, "bash", 5);
	memcpy(hold.comm, "bash", 5);
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, 0);
	stream__hist(&efx.s, T(10), 100, LS_HIST_WAIT, 0, &wait);
	stream__hist(&efx.s, T(10), 100, LS_HIST_HOLD, LS_HIST_ANY_MODE, &hold);
	stream__mark(&efx.s, T(10), LS_MARK_INTERVAL, 0);
	/* a thread's exit names the thread, not the process: no rename */
	stream__exit(&efx.s, 0, T(12), &thread, 0);
	stream__mark(&efx.s, T(13), LS_MARK_INTERVAL, 0);
	stream__hold(&efx.s, 0, T(14), &ps, &mm_ps, &l);
	wait.count++;
	wait.slots[14]++;
	stream__hist(&efx.s, T(20), 100, LS_HIST_WAIT, 0, &wait);
	stream__mark(&efx.s, T(20), LS_MARK_INTERVAL, 0);
	stream__mark(&efx.s, T(30), LS_MARK_END, 0);
	cr_assert_eq(fixture__run(), 0);

	cr_assert_eq(efx.cs->n_intervals, 3);
	ent = capture_sink__find(&efx.cs->intervals[0], 100, LS_HIST_WAIT, 0);
	cr_assert_str_eq(ent->hist.comm, "bash");
	/* the hold record renamed both; the later HIST record (bash) came after it */
	ent = capture_sink__find(&efx.cs->summary_hists, 100, LS_HIST_HOLD, LS_HIST_ANY_MODE);
	cr_assert_not_null(ent);
	cr_assert_str_eq(ent->hist.comm, "ps", "hold: %s", ent->hist.comm);
	ent = capture_sink__find(&efx.cs->summary_hists, 100, LS_HIST_WAIT, 0);
	cr_assert_str_eq(ent->hist.comm, "bash", "the newest record named it bash again");
}

/* The leader's exit carries the process's last name. */
Test(hist, leader_exit_names_the_process)
{
	struct ls_hist wait = hist_of(5, MS(50), 14);
	struct ls_task leader = stream__task(100, 100, LS_POLICY_NORMAL, 0, 0, "proc_reader");
	const struct ls_hist_entry *ent;

	memcpy(wait.comm, "sh", 3);
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, 0);
	stream__hist(&efx.s, T(10), 100, LS_HIST_WAIT, 1, &wait);
	stream__exit(&efx.s, 0, T(12), &leader, 0);
	stream__mark(&efx.s, T(30), LS_MARK_END, 0);
	cr_assert_eq(fixture__run(), 0);
	ent = capture_sink__find(&efx.cs->summary_hists, 100, LS_HIST_WAIT, 1);
	cr_assert_not_null(ent);
	cr_assert_str_eq(ent->hist.comm, "proc_reader");
}

TestSuite(sink_error, .init = fixture__setup, .fini = fixture__teardown);

Test(sink_error, stall_error_returned_from_feed)
{
	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	efx.cs->fail = -EPIPE;
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), -EPIPE);
}

Test(sink_error, interval_error_returned_from_feed)
{
	stream__mark(&efx.s, T(1), LS_MARK_INTERVAL, 0);
	efx.cs->fail = -EIO;
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), -EIO);
}

Test(sink_error, summary_error_returned_from_finish)
{
	efx.cs->fail = -EPIPE;
	cr_assert_eq(engine__finish(fixture__engine()), -EPIPE);
}
