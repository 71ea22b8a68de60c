// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rebuilding a stall: holders, their off-CPU states, preemptors and wakers,
 * queued writers, downgrades, migrations, and the chain that names them.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "lib/engine_fixture.h"
#include "util.h"

#define HOLDING LS_TASK_F_HOLDING
#define WAITING LS_TASK_F_WAITING
#define GRANTED LS_TASK_F_GRANTED

TestSuite(chain, .init = fixture__setup, .fini = fixture__teardown);

static void assert_hop(const struct ls_stall *st, unsigned int i, enum ls_role role,
		       __u32 tid, __u64 ns)
{
	cr_assert_lt(i, st->n_chain, "hop %u missing (%u hops)", i, st->n_chain);
	cr_assert_eq(st->chain[i].role, role, "hop %u: role %s", i, ls_role_name(st->chain[i].role));
	cr_assert_eq(st->chain[i].task.tid, tid, "hop %u: tid %u", i, st->chain[i].task.tid);
	cr_assert_eq(st->chain[i].ns, ns, "hop %u: ns %llu", i, (unsigned long long)st->chain[i].ns);
}

/*
 * victim (read) <- queued writer <- reader holding, off CPU <- hog.  Fair
 * rwsems queue the victim behind the writer, which waits for the reader.
 */
Test(chain, queued_writer)
{
	static const struct ls_task reader = FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 120, "bg-reader");
	static const struct ls_task writer = FX_NORMAL(103, 100, 0, "mmap-writer");
	struct stream_lock qw = { .start = T(2), .write = true };
	struct stream_lock qw_end = { .start = T(2), .granted = T(51), .write = true,
				      .flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED };
	struct stream_lock r_hold = { .start = T(0), .acquired = T(0), .offcpu = MS(49) };
	struct stream_lock w_hold = { .start = T(51), .granted = T(51), .acquired = T(53),
				      .write = true, .flags = LS_LOCK_F_GRANTED };
	const struct ls_stall *st;

	stream__switch(&efx.s, 0, T(1), &reader, HOLDING, true, &efx.hog, 0);
	stream__wait_begin(&efx.s, 2, T(3), &writer, &efx.mm, &qw);
	stream__switch(&efx.s, 2, T(3), &writer, WAITING, false, NULL, 0);
	scenario__wait_begin(&efx.waiter, false, T(4));
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &reader, HOLDING);
	stream__hold(&efx.s, 0, T(51), &reader, &efx.mm, &r_hold);
	stream__wakeup(&efx.s, 0, T(51), &writer, WAITING | GRANTED, &reader, 2, NULL);
	stream__switch(&efx.s, 2, T(52), NULL, 0, false, &writer, WAITING | GRANTED);
	stream__wait_end(&efx.s, 2, T(53), &writer, &efx.mm, &qw_end);
	stream__hold(&efx.s, 2, T(54), &writer, &efx.mm, &w_hold);
	scenario__wait_end(&efx.waiter, false, T(4), T(56), &writer);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);

	/* The writer's own stall: the reader blocked it directly. */
	st = fixture__stall(0);
	cr_assert_eq(st->waiter.tid, 103);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
	cr_assert_eq(st->n_chain, 3);
	assert_hop(st, 1, LS_ROLE_HOLDER, 101, MS(48));

	st = fixture__stall(1);
	cr_assert_eq(st->waiter.tid, 102);
	cr_assert_eq(st->wait_ns, MS(52));
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
	cr_assert_eq(st->n_holders, 2);
	cr_assert_eq(st->holders[0].task.tid, 101);
	cr_assert_not(st->holders[0].write);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(46));
	cr_assert_eq(st->holders[1].task.tid, 103);
	cr_assert(st->holders[1].write);
	cr_assert(st->holders[1].granted);
	cr_assert_eq(st->holders[1].offcpu_by_state[LS_STATE_GRANTED_NOT_RUNNING], MS(1));
	cr_assert_eq(st->n_chain, 4);
	assert_hop(st, 0, LS_ROLE_WAITER, 102, 0);
	cr_assert_not(st->chain[0].write);
	assert_hop(st, 1, LS_ROLE_QUEUED_WRITER, 103, 0);
	cr_assert(st->chain[1].write);
	assert_hop(st, 2, LS_ROLE_HOLDER, 101, MS(46));
	cr_assert_not(st->chain[2].write);
	assert_hop(st, 3, LS_ROLE_PREEMPTOR, efx.hog.tid, MS(46));
}

/* Without a queued writer, a reader never blocks a reader. */
Test(chain, reader_does_not_block_reader)
{
	struct stream_lock r_hold = { .start = T(0), .acquired = T(0), .offcpu = MS(49) };
	const struct ls_stall *st;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, false, T(2));
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(51), &efx.holder, &efx.mm, &r_hold);
	scenario__wait_end(&efx.waiter, false, T(2), T(53), NULL);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 0);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
}

/*
 * A reader handed the lock by a wakeup (GRANTED) owns it from then on, but
 * runs only when the hog on its target CPU lets it.
 */
Test(chain, granted_not_running)
{
	static const struct ls_task writer1 = FX_NORMAL(104, 100, 0, "writer1");
	static const struct ls_task reader = FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 120, "bg-reader");
	struct stream_lock rw = { .start = T(1) };
	struct stream_lock rw_end = { .start = T(1), .granted = T(5),
				      .flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED };
	struct stream_lock w1_hold = { .start = T(0), .acquired = T(0), .write = true };
	struct stream_lock r_hold = { .start = T(5), .granted = T(5), .acquired = T(41),
				      .offcpu = MS(35), .flags = LS_LOCK_F_GRANTED };
	const struct ls_stall *st;
	const struct ls_holder *h;

	stream__wait_begin(&efx.s, 2, T(2), &reader, &efx.mm, &rw);
	stream__switch(&efx.s, 2, T(2), &reader, WAITING, false, NULL, 0);
	scenario__wait_begin(&efx.waiter, true, T(3));
	stream__hold(&efx.s, 0, T(5), &writer1, &efx.mm, &w1_hold);
	stream__wakeup(&efx.s, 0, T(5), &reader, WAITING | GRANTED, &writer1, 3, &efx.hog);
	stream__switch(&efx.s, 3, T(40), &efx.hog, 0, true, &reader, WAITING | GRANTED);
	stream__wait_end(&efx.s, 3, T(41), &reader, &efx.mm, &rw_end);
	stream__hold(&efx.s, 3, T(45), &reader, &efx.mm, &r_hold);
	scenario__wait_end(&efx.waiter, true, T(3), T(47), &reader);
	cr_assert_eq(fixture__run(), 0);
	/*
	 * The reader waited 40 ms in all, but the lock was handed to it after
	 * 4 ms: the rest is its own run-queue wait, no lock stall of its own.
	 */
	cr_assert_eq(efx.cs->n_stalls, 1);

	st = fixture__stall(0);
	cr_assert_eq(st->waiter.tid, efx.waiter.tid);
	cr_assert_eq(st->wait_ns, MS(44));
	cr_assert_eq(st->n_holders, 2);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 101);
	cr_assert(h->granted);
	cr_assert_eq(h->hold_start_ns, T(5));
	cr_assert_eq(h->offcpu_ns, MS(35));
	cr_assert_eq(h->offcpu_by_state[LS_STATE_GRANTED_NOT_RUNNING], MS(35));
	cr_assert_eq(h->state, LS_STATE_GRANTED_NOT_RUNNING);
	cr_assert_eq(h->n_preempted_by, 1);
	cr_assert_eq(h->preempted_by[0].task.tid, efx.hog.tid);
	cr_assert_eq(h->preempted_by[0].ns, MS(35));
	cr_assert_eq(st->holders[1].task.tid, 104);
	cr_assert_eq(st->holders[1].overlap_ns, MS(2));
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
	cr_assert_eq(st->n_chain, 3);
	assert_hop(st, 1, LS_ROLE_HOLDER, 101, MS(35));
	assert_hop(st, 2, LS_ROLE_PREEMPTOR, efx.hog.tid, MS(35));
}

/*
 * A wait that ends by handoff is a lock stall for as long as the lock kept
 * the waiter out (start to grant), not for the run delay after: the
 * threshold, the holders and the verdict see [start, grant] only.
 */
struct handoff_case {
	double granted_ms;	/* the wait starts at T(1) and returns at T(41) */
	bool stall;
	double holder_overlap_ms;
};

ParameterizedTestParameters(chain, handoff_ends_the_lock_wait)
{
	static struct handoff_case cases[] = {
		{ .granted_ms = 5, .stall = false },		/* 4 ms lock wait */
		{ .granted_ms = 11, .stall = true, .holder_overlap_ms = 10 },	/* exactly at threshold */
		{ .granted_ms = 30, .stall = true, .holder_overlap_ms = 29 },
	};

	return cr_make_param_array(struct handoff_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct handoff_case *c, chain, handoff_ends_the_lock_wait)
{
	static const struct ls_task writer = FX_NORMAL(104, 100, 0, "writer1");
	static const struct ls_task reader = FX_TASK(101, 100, LS_POLICY_NORMAL, 0, 0, 120, "reader");
	struct stream_lock rw = { .start = T(1) };
	struct stream_lock rw_end = { .start = T(1), .granted = T(c->granted_ms),
				      .flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED };
	struct stream_lock w_hold = { .start = T(0), .acquired = T(0), .write = true };
	const struct ls_stall *st;

	stream__wait_begin(&efx.s, 2, T(2), &reader, &efx.mm, &rw);
	stream__switch(&efx.s, 2, T(2), &reader, WAITING, false, NULL, 0);
	stream__hold(&efx.s, 0, T(c->granted_ms), &writer, &efx.mm, &w_hold);
	stream__wakeup(&efx.s, 0, T(c->granted_ms), &reader, WAITING | GRANTED, &writer, 3, &efx.hog);
	stream__switch(&efx.s, 3, T(40), &efx.hog, 0, true, &reader, WAITING | GRANTED);
	stream__wait_end(&efx.s, 3, T(41), &reader, &efx.mm, &rw_end);
	cr_assert_eq(fixture__run(), 0);

	cr_assert_eq(efx.cs->n_stalls, c->stall ? 1 : 0);
	if (!c->stall)
		return;
	st = fixture__stall(0);
	cr_assert_eq(st->wait_ns, MS(40));
	cr_assert_eq(st->granted_ns, T(c->granted_ms));
	cr_assert_eq(st->lock_wait_ns, MS(c->granted_ms - 1));
	cr_assert_eq(st->run_delay_ns, T(41) - T(c->granted_ms));
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, 104);
	cr_assert_eq(st->holders[0].overlap_ns, MS(c->holder_overlap_ms));
	/* the writer held on CPU: the run delay does not make it an inversion */
	cr_assert_eq(st->verdict, LS_VERDICT_CONTENTION);
}

/* A holder asleep (I/O) under the lock: the chain ends at whoever woke it. */
Test(chain, blocked_holder_names_waker)
{
	static const struct ls_task kworker = FX_NORMAL(300, 300, 0, "kworker/0:1");
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(30), .write = true };
	const struct ls_stall *st;
	const struct ls_holder *hd;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, false, NULL, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__wakeup(&efx.s, 0, T(30), &efx.holder, HOLDING, &kworker, 0, NULL);
	stream__switch(&efx.s, 0, T(31), NULL, 0, false, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(32), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(34), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	hd = &st->holders[0];
	cr_assert_eq(hd->offcpu_by_state[LS_STATE_BLOCKED], MS(28));
	cr_assert_eq(hd->offcpu_by_state[LS_STATE_PREEMPTED], MS(1));
	cr_assert_eq(hd->offcpu_ns, MS(29));
	cr_assert_eq(hd->state, LS_STATE_BLOCKED);
	cr_assert(hd->has_waker);
	cr_assert_eq(hd->woken_by.tid, 300);
	cr_assert_eq(hd->n_preempted_by, 0, "the CPU was idle: nobody ran instead");
	cr_assert_eq(st->verdict, LS_VERDICT_HOLDER_OFF_CPU);
	cr_assert_eq(st->n_chain, 3);
	assert_hop(st, 1, LS_ROLE_HOLDER, 101, MS(29));
	assert_hop(st, 2, LS_ROLE_WAKER, 300, 0);
}

/*
 * The holder writes from T(0), is preempted T(1)..T(30), downgrades at
 * T(31) and reads on; the victim waits from T(2).
 */
static void downgrade_prefix(bool victim_write)
{
	struct stream_lock wh = { .start = T(0), .acquired = T(0), .offcpu = MS(29), .write = true,
				  .flags = LS_LOCK_F_DOWNGRADED };

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, victim_write, T(2));
	stream__switch(&efx.s, 0, T(30), &efx.hog, 0, true, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(31), &efx.holder, &efx.mm, &wh);
}

/* A writer that downgrades and keeps reading blocks a writer throughout: one holder. */
Test(chain, downgrade_blocks_writer_as_one_holder)
{
	struct stream_lock rh = { .start = T(31), .acquired = T(31) };
	const struct ls_stall *st;
	const struct ls_holder *h;

	downgrade_prefix(true);
	stream__hold(&efx.s, 0, T(40), &efx.holder, &efx.mm, &rh);
	scenario__wait_end(&efx.waiter, true, T(2), T(42), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 101);
	cr_assert(h->write);
	cr_assert(h->downgraded);
	cr_assert(h->released);
	cr_assert_eq(h->hold_start_ns, T(0));
	cr_assert_eq(h->hold_end_ns, T(40));
	cr_assert_eq(h->held_ns, MS(40));
	cr_assert_eq(h->overlap_ns, MS(38));
	cr_assert_eq(h->offcpu_ns, MS(28));
	cr_assert_eq(st->verdict, LS_VERDICT_HOLDER_OFF_CPU);
}

/* A reader waits only for the write half of a downgraded hold. */
Test(chain, downgrade_blocks_reader_until_downgrade)
{
	struct stream_lock rh = { .start = T(31), .acquired = T(31) };
	const struct ls_stall *st;
	const struct ls_holder *h;

	downgrade_prefix(false);
	scenario__wait_end(&efx.waiter, false, T(2), T(33), &efx.holder);
	stream__hold(&efx.s, 0, T(40), &efx.holder, &efx.mm, &rh);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	h = &st->holders[0];
	cr_assert(h->write);
	cr_assert(h->downgraded);
	cr_assert_eq(h->hold_end_ns, T(31));
	cr_assert_eq(h->overlap_ns, MS(29));
	cr_assert_eq(h->offcpu_ns, MS(28));
	cr_assert_eq(st->verdict, LS_VERDICT_HOLDER_OFF_CPU);
}

/* A preempted holder pulled to another CPU: the tally follows it there. */
Test(chain, migrated_holder_tally_continues)
{
	static const struct ls_task hog1 = FX_NORMAL(201, 201, 0, "hog1");
	static const struct ls_task hog2 = FX_NORMAL(202, 202, 0, "hog2");
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };
	const struct ls_stall *st;
	const struct ls_holder *hd;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &hog1, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__migrate(&efx.s, 2, T(20), &efx.holder, HOLDING, 0, 2, &hog2);
	stream__switch(&efx.s, 2, T(40), &hog2, 0, true, &efx.holder, HOLDING);
	stream__hold(&efx.s, 2, T(41), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(43), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	hd = &st->holders[0];
	cr_assert_eq(hd->offcpu_ns, MS(38));
	cr_assert_eq(hd->offcpu_by_state[LS_STATE_PREEMPTED], MS(38));
	cr_assert_eq(hd->n_preempted_by, 2);
	cr_assert_eq(hd->preempted_by[0].task.tid, 202);
	cr_assert_eq(hd->preempted_by[0].ns, MS(20));
	cr_assert_eq(hd->preempted_by[1].task.tid, 201);
	cr_assert_eq(hd->preempted_by[1].ns, MS(18));
	assert_hop(st, 2, LS_ROLE_PREEMPTOR, 202, MS(20));
}

/* Two hogs take turns: each gets its own time, summed over its turns. */
Test(chain, preemptor_time_split_between_hogs)
{
	static const struct ls_task a = FX_NORMAL(201, 201, 0, "hog-a");
	static const struct ls_task b = FX_NORMAL(202, 202, 0, "hog-b");
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(40), .write = true };
	const struct ls_stall *st;
	const struct ls_holder *hd;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &a, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(11), &a, 0, true, &b, 0);
	stream__switch(&efx.s, 0, T(21), &b, 0, true, &a, 0);
	stream__switch(&efx.s, 0, T(41), &a, 0, true, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(42), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(44), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	hd = &st->holders[0];
	cr_assert_eq(hd->offcpu_ns, MS(39));
	cr_assert_eq(hd->n_preempted_by, 2);
	cr_assert_eq(hd->preempted_by[0].task.tid, 201);
	cr_assert_eq(hd->preempted_by[0].ns, MS(29), "clipped to the wait: 9 + 20 ms");
	cr_assert_eq(hd->preempted_by[1].task.tid, 202);
	cr_assert_eq(hd->preempted_by[1].ns, MS(10));
	cr_assert_eq(hd->preempted_other_ns, 0);
}

/* Ten hogs: the eight longest by name, the other two summed. */
Test(chain, preemptors_beyond_max_are_summed)
{
	static const struct ls_task hogs[10] = {
		FX_NORMAL(211, 211, 0, "p1"), FX_NORMAL(212, 212, 0, "p2"),
		FX_NORMAL(213, 213, 0, "p3"), FX_NORMAL(214, 214, 0, "p4"),
		FX_NORMAL(215, 215, 0, "p5"), FX_NORMAL(216, 216, 0, "p6"),
		FX_NORMAL(217, 217, 0, "p7"), FX_NORMAL(218, 218, 0, "p8"),
		FX_NORMAL(219, 219, 0, "p9"), FX_NORMAL(220, 220, 0, "p10"),
	};
	struct stream_lock h = { .start = T(0), .acquired = T(0), .write = true };
	const struct ls_stall *st;
	const struct ls_holder *hd;
	__u64 sum = 0;
	unsigned int i, t = 1;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &hogs[0], 0);
	scenario__wait_begin(&efx.waiter, true, T(0.5));
	for (i = 0; i < 10; i++) {
		t += i + 1;	/* hogs[i] runs i + 1 ms */
		if (i < 9)
			stream__switch(&efx.s, 0, T(t), &hogs[i], 0, true, &hogs[i + 1], 0);
		else
			stream__switch(&efx.s, 0, T(t), &hogs[i], 0, true, &efx.holder, HOLDING);
	}
	cr_assert_eq(t, 56);
	stream__hold(&efx.s, 0, T(57), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(0.5), T(60), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	hd = &st->holders[0];
	cr_assert_eq(hd->offcpu_ns, MS(55));
	cr_assert_eq(hd->n_preempted_by, LS_MAX_PREEMPTORS);
	for (i = 0; i < LS_MAX_PREEMPTORS; i++) {
		cr_assert_eq(hd->preempted_by[i].task.tid, 220 - i);
		cr_assert_eq(hd->preempted_by[i].ns, MS(10 - i));
		sum += hd->preempted_by[i].ns;
	}
	cr_assert_eq(hd->preempted_other_ns, MS(3), "p1 + p2");
	cr_assert_eq(sum + hd->preempted_other_ns, hd->offcpu_ns);
}

/* Two readers blocking a writer: the one off CPU longer comes first. */
Test(chain, holders_sorted_by_offcpu)
{
	static const struct ls_task r2 = FX_NORMAL(103, 100, 0, "reader2");
	static const struct ls_task hog2 = FX_NORMAL(202, 202, 0, "hog2");
	struct stream_lock rh = { .start = T(0), .acquired = T(0) };
	const struct ls_stall *st;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	stream__switch(&efx.s, 2, T(1), &r2, HOLDING, true, &hog2, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(12), &efx.hog, 0, true, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(13), &efx.holder, &efx.mm, &rh);
	stream__switch(&efx.s, 2, T(32), &hog2, 0, true, &r2, HOLDING);
	stream__hold(&efx.s, 2, T(33), &r2, &efx.mm, &rh);
	scenario__wait_end(&efx.waiter, true, T(2), T(35), &r2);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 2);
	cr_assert_eq(st->holders[0].task.tid, 103);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(30));
	cr_assert_eq(st->holders[1].task.tid, 101);
	cr_assert_eq(st->holders[1].offcpu_ns, MS(10));
	cr_assert_eq(st->holders_dropped, 0);
	assert_hop(st, 1, LS_ROLE_HOLDER, 103, MS(30));
	assert_hop(st, 2, LS_ROLE_PREEMPTOR, 202, MS(30));
	cr_assert_eq(st->verdict, LS_VERDICT_HOLDER_OFF_CPU);
}

/* More holders than a stall carries: the rest are counted, not listed. */
Test(chain, holders_beyond_max_are_counted)
{
	struct stream_lock rh = { .start = T(0), .acquired = T(0) };
	struct ls_task r;
	const struct ls_stall *st;
	unsigned int i;

	scenario__wait_begin(&efx.waiter, true, T(2));
	for (i = 0; i < LS_MAX_HOLDERS + 8; i++) {
		r = stream__task(1000 + i, 100, LS_POLICY_NORMAL, 0, 0, "reader");
		stream__hold(&efx.s, 0, T(10 + i * 0.1), &r, &efx.mm, &rh);
	}
	scenario__wait_end(&efx.waiter, true, T(2), T(20), NULL);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, LS_MAX_HOLDERS);
	cr_assert_eq(st->holders_dropped, 8);
	/* All on CPU: the longest overlap first. */
	cr_assert_eq(st->holders[0].task.tid, 1000 + LS_MAX_HOLDERS + 7);
}

/*
 * A reader still holds when the victim reader gets the lock, because the
 * writer queued between them gave up: released = false, held to the end.
 */
Test(chain, reader_still_holding_when_queued_writer_gave_up)
{
	static const struct ls_task writer = FX_NORMAL(103, 100, 0, "writer");
	struct stream_lock r_wait = { .start = T(0), .flags = LS_LOCK_F_BEGIN_SENT };
	struct stream_lock qw = { .start = T(2), .write = true };
	struct stream_lock qw_end = { .start = T(2), .write = true, .failed = true,
				      .flags = LS_LOCK_F_BEGIN_SENT };
	const struct ls_stall *st;
	const struct ls_holder *h;

	stream__wait_end(&efx.s, 0, T(0.5), &efx.holder, &efx.mm, &r_wait);
	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	stream__wait_begin(&efx.s, 2, T(3), &writer, &efx.mm, &qw);
	stream__switch(&efx.s, 2, T(3), &writer, WAITING, false, NULL, 0);
	scenario__wait_begin(&efx.waiter, false, T(4));
	stream__wait_end(&efx.s, 2, T(40), &writer, &efx.mm, &qw_end);
	scenario__wait_end(&efx.waiter, false, T(4), T(42), NULL);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);

	st = fixture__stall(0);
	cr_assert_eq(st->waiter.tid, 103);
	cr_assert_not(st->acquired);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_not(st->holders[0].released);
	cr_assert_eq(st->holders[0].hold_end_ns, T(40));

	st = fixture__stall(1);
	cr_assert_eq(st->n_holders, 1);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 101);
	cr_assert_not(h->released);
	cr_assert_eq(h->hold_start_ns, T(0.5));
	cr_assert_eq(h->hold_end_ns, T(42));
	cr_assert_eq(h->offcpu_ns, MS(38));
	cr_assert_eq(h->preempted_by[0].ns, MS(38));
	cr_assert_eq(st->n_chain, 4);
	assert_hop(st, 1, LS_ROLE_QUEUED_WRITER, 103, 0);
	assert_hop(st, 2, LS_ROLE_HOLDER, 101, MS(38));
	assert_hop(st, 3, LS_ROLE_PREEMPTOR, efx.hog.tid, MS(38));
	cr_assert_eq(st->verdict, LS_VERDICT_HOLDER_OFF_CPU);
}

struct vma_case {
	char name[48];		/* inline: Criterion copies params into its worker */
	bool mark;		/* send LS_MARK_BEGIN with mark_features */
	__u32 mark_features;
	__u32 opt_features;
	bool fault;		/* else an mmap syscall */
	bool want;
};

static struct vma_case vma_cases[] = {
	{ "begin says per-VMA locks", true, LS_FEAT_PER_VMA_LOCK, 0, true, true },
	{ "opts say so, no begin", false, 0, LS_FEAT_PER_VMA_LOCK, true, true },
	{ "begin overrides opts", true, 0, LS_FEAT_PER_VMA_LOCK, true, false },
	{ "a syscall never falls back", true, LS_FEAT_PER_VMA_LOCK, 0, false, false },
};

ParameterizedTestParameters(chain, vma_lock_fallback)
{
	return cr_make_param_array(struct vma_case, vma_cases, ARRAY_SIZE(vma_cases));
}

ParameterizedTest(struct vma_case *c, chain, vma_lock_fallback)
{
	struct stream_lock w = { .start = T(0), .op = c->fault ?
		stream__fault(0x7f0000001000ULL, LS_PF_USER | LS_PF_WRITE) : stream__syscall(9) };
	const struct ls_stall *st;

	efx.opts.features = c->opt_features;
	if (c->mark)
		stream__mark(&efx.s, T(0), LS_MARK_BEGIN, c->mark_features);
	stream__wait_end(&efx.s, 1, T(20), &efx.waiter, &efx.mm, &w);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->vma_lock_fallback, c->want, "%s", c->name);
	cr_assert_eq(st->op.kind, c->fault ? LS_OP_PAGE_FAULT : LS_OP_SYSCALL);
	if (c->fault)
		cr_assert_eq(st->op.addr, 0x7f0000001000ULL);
}

/* The holder's op is the one it took the lock for. */
Test(chain, holder_op_and_mm_carried)
{
	struct stream_lock h = { .start = T(0), .write = true, .op = stream__syscall(11) };
	const struct ls_stall *st;

	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__hold(&efx.s, 0, T(30), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(32), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].op.kind, LS_OP_SYSCALL);
	cr_assert_eq(st->holders[0].op.syscall, 11);
	cr_assert_eq(st->lock.tgid, 100);
	cr_assert_str_eq(st->lock.comm, "app");
}

/*
 * Each task's cgroup id comes from its own records: the waiter's from its
 * WAIT_END, a completed hold's from its HOLD, a hold still open from the
 * WAIT_END that began it.  The engine never makes a path.
 */
Test(chain, cgroup_ids_carried)
{
	struct ls_task reader = FX_NORMAL(103, 100, 0, "reader");
	struct stream_lock h = { .start = T(0), .acquired = T(0), .write = true, .cgroup = 700 };
	struct stream_lock r = { .start = T(3), .cgroup = 800 };
	struct stream_lock w = { .start = T(2), .write = true, .cgroup = 900 };
	const struct ls_stall *st;
	unsigned int i;

	/* the writer holds to 20 ms; the reader gets the lock then, and holds it to the end */
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__hold(&efx.s, 0, T(20), &efx.holder, &efx.mm, &h);
	stream__wait_end(&efx.s, 0, T(21), &reader, &efx.mm, &r);
	/* killed while waiting: the open read hold may still be in its way */
	w.failed = true;
	w.flags = LS_LOCK_F_BEGIN_SENT;
	stream__wait_end(&efx.s, 1, T(40), &efx.waiter, &efx.mm, &w);
	cr_assert_eq(fixture__run(), 0);
	/* the reader's own wait, behind the writer */
	st = fixture__stall(0);
	cr_assert_eq(st->waiter.tid, 103);
	cr_assert_eq(st->waiter_cgroup_id, 800);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].cgroup_id, 700);
	st = fixture__stall(1);
	cr_assert_eq(st->waiter_cgroup_id, 900);
	cr_assert_null(st->waiter_cgroup);
	cr_assert_eq(st->n_holders, 2);
	for (i = 0; i < st->n_holders; i++) {
		const struct ls_holder *hd = &st->holders[i];

		cr_assert_eq(hd->cgroup_id, hd->task.tid == 101 ? 700 : 800, "holder %u: %llu",
			     hd->task.tid, (unsigned long long)hd->cgroup_id);
		cr_assert_null(hd->cgroup);
	}
}
