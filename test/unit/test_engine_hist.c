// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Histograms (cumulative in, interval deltas and totals out), the summary,
 * and sink errors travelling back out of engine__feed / engine__finish.
 */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>
#include "engine/internal.h"
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

/* Counts over a set: what a fold must keep. */
static __u64 set_count(const struct ls_hist_set *set)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < set->n; i++)
		n += set->v[i].hist.count;
	return n;
}

static const struct ls_hist_entry *find_cmd(const struct ls_hist_set *set, const char *comm)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->v[i].procs && !strcmp(set->v[i].hist.comm, comm))
			return &set->v[i];
	return NULL;
}

/*
 * n short-lived processes, each seen live then exited, comm from name(i):
 * one lock wait of 1000 + i ns each, an interval every 1000.
 */
static void churn(unsigned int n, void (*name)(unsigned int i, char comm[LS_COMM_LEN]))
{
	struct ls_hist h = hist_of(1, 0, 0);
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(h.comm, 0, sizeof(h.comm));
		name(i, h.comm);
		h.sum_ns = 1000 + i;
		stream__hist(&efx.s, T(10 + i), 1000 + i, LS_HIST_WAIT, 1, &h);
		stream__hist_exited(&efx.s, T(10 + i), 1000 + i, LS_HIST_WAIT, 1, &h);
		if (i % 1000 == 999)
			stream__mark(&efx.s, T(10 + i), LS_MARK_INTERVAL, 0);
	}
	stream__mark(&efx.s, T(10 + n), LS_MARK_INTERVAL, 0);
}

static void two_names(unsigned int i, char comm[LS_COMM_LEN])
{
	strcpy(comm, i % 2 ? "sh" : "ps");
}

static void all_names(unsigned int i, char comm[LS_COMM_LEN])
{
	snprintf(comm, LS_COMM_LEN, "c%u", i);
}

static __u64 intervals_count(void)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < efx.cs->n_intervals; i++)
		n += set_count(&efx.cs->intervals[i]);
	return n;
}

/*
 * Process churn: the histograms of exited processes stay bounded; the one
 * with the most time keeps its own, the rest are summed per command, and no
 * count is lost from the summary nor from the intervals.
 */
Test(hist, exited_processes_are_summed_past_a_bound)
{
	const unsigned int n = 3 * ENGINE_HIST_EXITED;
	struct ls_hist heavy = hist_of(1, MS(900), 19);
	const struct ls_hist_entry *ent, *sh, *ps;
	struct engine_debug d;

	stream__hist_exited(&efx.s, T(1), 7, LS_HIST_WAIT, 1, &heavy);
	churn(n, two_names);
	cr_assert_eq(fixture__run(), 0);
	engine__debug(efx.e, &d);
	cr_assert_leq(d.hist_keys, ENGINE_HIST_EXITED + 2, "%u histograms kept after %u exits",
		      d.hist_keys, n + 1);
	cr_assert_eq(set_count(efx.cs->summary.hists), n + 1);
	cr_assert_eq(intervals_count(), n + 1);
	ent = capture_sink__find(efx.cs->summary.hists, 7, LS_HIST_WAIT, 1);
	cr_assert_not_null(ent, "the process with the most time lost its own histogram");
	cr_assert_eq(ent->procs, 0);
	cr_assert_eq(ent->hist.sum_ns, MS(900));
	sh = find_cmd(efx.cs->summary.hists, "sh");
	ps = find_cmd(efx.cs->summary.hists, "ps");
	cr_assert(sh && ps, "no per-command sums");
	cr_assert_eq(sh->key.tgid, 0);
	cr_assert_eq(sh->hist.count, sh->procs);
	cr_assert_gt(sh->procs + ps->procs, n - ENGINE_HIST_EXITED - 1);
	cr_assert_eq(efx.cs->summary.evicted, 0);
}

/* A process naming itself anew each time: the commands are bounded too. */
Test(hist, command_sums_are_bounded)
{
	const unsigned int n = ENGINE_HIST_EXITED + 4 * ENGINE_HIST_CMDS;
	const struct ls_hist_entry *others;
	struct engine_debug d;

	churn(n, all_names);
	cr_assert_eq(fixture__run(), 0);
	engine__debug(efx.e, &d);
	cr_assert_leq(d.hist_keys, ENGINE_HIST_EXITED + ENGINE_HIST_CMDS + 1, "%u histograms",
		      d.hist_keys);
	cr_assert_eq(set_count(efx.cs->summary.hists), n);
	others = find_cmd(efx.cs->summary.hists, "");
	cr_assert_not_null(others, "no sum of the other commands");
	cr_assert_eq(efx.cs->summary.evicted, 0);
}

/* A pid that comes back after its process exited is another process: both are counted. */
Test(hist, reused_pid_keeps_both_processes)
{
	struct ls_hist old = hist_of(5, MS(5), 13), fresh = hist_of(2, MS(2), 12);
	const struct ls_hist_entry *ent;

	stream__hist_exited(&efx.s, T(1), 50, LS_HIST_WAIT, 0, &old);
	stream__mark(&efx.s, T(2), LS_MARK_INTERVAL, 0);
	stream__hist(&efx.s, T(3), 50, LS_HIST_WAIT, 0, &fresh);
	stream__mark(&efx.s, T(4), LS_MARK_INTERVAL, 0);
	cr_assert_eq(fixture__run(), 0);
	ent = capture_sink__find(efx.cs->summary.hists, 50, LS_HIST_WAIT, 0);
	cr_assert_not_null(ent);
	cr_assert_eq(ent->hist.count, 2);
	ent = find_cmd(efx.cs->summary.hists, "app");
	cr_assert_not_null(ent, "the first process's counts are gone");
	cr_assert_eq(ent->procs, 1);
	cr_assert_eq(ent->hist.count, 5);
	cr_assert_eq(efx.cs->n_intervals, 2);
	cr_assert_eq(set_count(&efx.cs->intervals[1]), 2, "the second interval counts the new process");
}

/*
 * The metrics' own readings of the histograms (not recorded) update them but
 * leave the run as its replay sees it: not counted, no time moved.
 */
Test(hist, aside_records_are_not_counted)
{
	struct ls_hist wait5 = hist_of(5, MS(50), 14);
	struct ls_rec_hist h = { .hdr = { .type = LS_REC_HIST, .size = sizeof(h), .ts = T(500) },
				 .key = { .tgid = 100, .kind = LS_HIST_WAIT, .write = 0 } };
	struct ls_rec_mark m = { .hdr = { .type = LS_REC_MARK, .size = sizeof(m), .ts = T(500) },
				 .kind = LS_MARK_INTERVAL };
	struct ls_rec_mark end = m;
	struct ls_summary sum;

	h.hist = wait5;
	end.kind = LS_MARK_END;
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, 0);
	stream__mark(&efx.s, T(10), LS_MARK_END, 0);
	cr_assert_eq(engine__feed_aside(fixture__engine(), &h, sizeof(h)), 0);
	cr_assert_eq(engine__feed_aside(efx.e, &m, sizeof(m)), 0);
	cr_assert_eq(engine__feed_aside(efx.e, &end, sizeof(end)), -EINVAL, "only histograms");
	cr_assert_eq(efx.cs->n_intervals, 1);
	cr_assert_eq(efx.cs->intervals[0].v[0].hist.count, 5);
	cr_assert_eq(fixture__run(), 0);
	engine__summary(efx.e, &sum);
	cr_assert_eq(sum.events, 2, "aside records were counted");
	cr_assert_eq(sum.end_ns, T(10), "aside records moved the run's end");
	cr_assert_eq(sum.hists->n, 1);
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
	struct ls_lock_id mm_ps = stream__mm(0xaa, 100, "ps");
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

/*
 * A process's futex and kernel-lock waits are histograms of their own,
 * apart from its mmap_lock waits and from each other, by kind and mode;
 * a record naming the process renames them all.
 */
Test(hist, lock_kinds_kept_apart_and_renamed)
{
	struct ls_hist mmap = hist_of(5, MS(5), 10), futex = hist_of(3, MS(48), 14);
	struct ls_hist rwsem_r = hist_of(2, MS(8), 12), rwsem_w = hist_of(1, MS(4), 12);
	struct ls_task leader = stream__task(100, 100, LS_POLICY_NORMAL, 0, 0, "server");
	const struct ls_hist_entry *ent;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, 0);
	stream__hist(&efx.s, T(10), 100, LS_HIST_WAIT, 1, &mmap);
	stream__hist(&efx.s, T(10), 100, LS_HIST_WAIT_FUTEX, 1, &futex);
	stream__hist(&efx.s, T(10), 100, LS_HIST_WAIT_RWSEM, 0, &rwsem_r);
	stream__hist(&efx.s, T(10), 100, LS_HIST_WAIT_RWSEM, 1, &rwsem_w);
	stream__mark(&efx.s, T(10), LS_MARK_INTERVAL, 0);
	stream__exit(&efx.s, 0, T(12), &leader, 0);
	stream__mark(&efx.s, T(30), LS_MARK_END, 0);
	cr_assert_eq(fixture__run(), 0);

	cr_assert_eq(efx.cs->intervals[0].n, 4);
	ent = capture_sink__find(&efx.cs->summary_hists, 100, LS_HIST_WAIT_FUTEX, 1);
	cr_assert_not_null(ent);
	cr_assert_eq(ent->hist.count, 3);
	cr_assert_eq(ent->hist.sum_ns, MS(48));
	cr_assert_str_eq(ent->hist.comm, "server");
	ent = capture_sink__find(&efx.cs->summary_hists, 100, LS_HIST_WAIT_RWSEM, 0);
	cr_assert_not_null(ent);
	cr_assert_eq(ent->hist.count, 2);
	cr_assert_str_eq(ent->hist.comm, "server");
	ent = capture_sink__find(&efx.cs->summary_hists, 100, LS_HIST_WAIT_RWSEM, 1);
	cr_assert_eq(ent->hist.count, 1);
	ent = capture_sink__find(&efx.cs->summary_hists, 100, LS_HIST_WAIT, 1);
	cr_assert_eq(ent->hist.count, 5, "mmap_lock's waits stay its own");
	cr_assert_null(capture_sink__find(&efx.cs->summary_hists, 100, LS_HIST_WAIT_MUTEX, 1));
}

/* Every lock kind has its wait histogram kind, and back: the sinks rely on it. */
Test(hist, wait_kind_of_every_lock_kind)
{
	unsigned int k;

	cr_assert_eq(ls_hist_wait_kind(LS_LOCK_MMAP), LS_HIST_WAIT);
	cr_assert_eq(ls_hist_wait_kind(LS_LOCK_FUTEX), LS_HIST_WAIT_FUTEX);
	cr_assert_eq(ls_hist_wait_kind(LS_LOCK_PERCPU_RWSEM), LS_HIST_WAIT_PERCPU_RWSEM);
	for (k = 0; k < LS_LOCK_KIND_N; k++)
		cr_assert_eq(ls_hist_lock_kind(ls_hist_wait_kind((__u8)k)), (int)k);
	cr_assert_eq(ls_hist_lock_kind(LS_HIST_HOLD), -1);
	cr_assert_eq(ls_hist_lock_kind(LS_HIST_OFFCPU), -1);
	cr_assert_eq(ls_hist_lock_kind(LS_HIST_KIND_N), -1);
}
