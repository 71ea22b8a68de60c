// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-task state: created for tasks that wait or hold, freed on EXIT, on a
 * reused tid, and when idle; bounded in number.
 */
#include <string.h>
#include <criterion/criterion.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"

#define HOLDING LS_TASK_F_HOLDING
#define WAITING LS_TASK_F_WAITING

TestSuite(task, .init = fixture__setup, .fini = fixture__teardown);

static struct engine_debug debug_now(void)
{
	struct engine_debug d;

	engine__debug(fixture__engine(), &d);
	return d;
}

/* Tasks that neither wait nor hold leave no state behind. */
Test(task, bystanders_are_not_tracked)
{
	static const struct ls_task other = FX_NORMAL(300, 300, 0, "other");

	stream__switch(&efx.s, 0, T(1), &efx.hog, 0, true, &other, 0);
	stream__switch(&efx.s, 0, T(2), &other, 0, false, &efx.hog, 0);
	stream__wakeup(&efx.s, 0, T(3), &other, 0, &efx.hog, 1, NULL);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(debug_now().tasks, 0);
}

/* The kernel sends HOLD(EXITED) for each open hold, then EXIT: all state goes. */
Test(task, exit_while_holding_frees_state)
{
	struct stream_lock h = { .start = T(0), .write = true, .flags = LS_LOCK_F_EXITED };
	struct engine_debug d;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	stream__switch(&efx.s, 0, T(5), &efx.hog, 0, true, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(6), &efx.holder, &efx.mm, &h);
	stream__exit(&efx.s, 0, T(6), &efx.holder, 0);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	d = debug_now();
	cr_assert_eq(d.tasks, 0);
	cr_assert_eq(d.open_holds, 0);
	cr_assert_eq(d.holds, 1, "the completed hold is history, kept for retain");

	/* Records about the dead task afterwards invent nothing. */
	stream__clear(&efx.s);
	stream__switch(&efx.s, 0, T(7), &efx.holder, 0, false, &efx.hog, 0);
	stream__wakeup(&efx.s, 1, T(8), &efx.holder, 0, &efx.hog, 0, NULL);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
	cr_assert_eq(debug_now().tasks, 0);
}

/* A waiter that exits with no WAIT_END: no stall for it, ever. */
Test(task, exit_while_waiting_frees_state)
{
	struct engine_debug d;

	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__exit(&efx.s, 1, T(30), &efx.waiter, WAITING);
	stream__switch(&efx.s, 1, T(60), NULL, 0, false, NULL, 0);
	cr_assert_eq(fixture__run(), 0);
	d = debug_now();
	cr_assert_eq(d.tasks, 0);
	cr_assert_eq(d.open_waits, 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
	cr_assert_eq(efx.cs->summary.stalls, 0);
}

/*
 * The EXIT of tid 101 was lost while it sat preempted; tid 101 comes back
 * as a thread of another process.  Its hold must not inherit the old spell.
 */
Test(task, reused_tid_inherits_nothing)
{
	static const struct ls_task reborn = FX_NORMAL(101, 500, 0, "reborn");
	static const struct ls_task waiter2 = FX_NORMAL(502, 500, 0, "waiter2");
	struct ls_lock_id mm2 = stream__mm(0xffff888099990000ULL, 500, "other-app");
	struct stream_lock h = { .start = T(60), .acquired = T(60), .write = true };
	struct stream_lock w = { .start = T(61), .write = true };
	struct stream_lock w_end = { .start = T(61), .write = true, .flags = LS_LOCK_F_BEGIN_SENT };
	const struct ls_stall *st;
	struct engine_debug d;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	stream__wait_begin(&efx.s, 4, T(62), &waiter2, &mm2, &w);
	stream__switch(&efx.s, 4, T(62), &waiter2, WAITING, false, NULL, 0);
	stream__hold(&efx.s, 2, T(70), &reborn, &mm2, &h);
	stream__wakeup(&efx.s, 2, T(70), &waiter2, WAITING, &reborn, 4, NULL);
	stream__switch(&efx.s, 4, T(74), NULL, 0, false, &waiter2, WAITING);
	stream__wait_end(&efx.s, 4, T(75), &waiter2, &mm2, &w_end);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tgid, 500);
	cr_assert_eq(st->holders[0].offcpu_ns, 0, "the old task's open spell leaked in");
	cr_assert_eq(st->holders[0].state, LS_STATE_RUNNING);
	cr_assert_eq(st->verdict, LS_VERDICT_CONTENTION);
	d = debug_now();
	cr_assert_eq(d.open_waits, 0);
}

/* Switches of the old task after the tid came back under a new tgid are the new task's. */
Test(task, reused_tid_resets_on_any_record)
{
	static const struct ls_task reborn = FX_NORMAL(101, 500, 0, "reborn");
	struct engine_debug d;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	stream__switch(&efx.s, 1, T(5), &reborn, 0, false, &efx.hog, 0);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	d = debug_now();
	cr_assert_eq(d.tasks, 0, "reborn holds nothing: no state");
}

/* A task done with the lock is dropped once quiet for retain. */
Test(task, idle_task_dropped_after_retain)
{
	struct engine_debug d;
	unsigned int i;

	scenario__wait_begin(&efx.waiter, false, T(2));
	scenario__wait_end(&efx.waiter, false, T(2), T(5), NULL);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	d = debug_now();
	cr_assert_eq(d.tasks, 1);
	cr_assert_eq(d.open_holds, 1, "WAIT_END success: a hold began");

	stream__clear(&efx.s);
	/* Switched out holding nothing: the short hold ended without a HOLD record. */
	stream__switch(&efx.s, 1, T(6), &efx.waiter, 0, false, NULL, 0);
	for (i = 0; i < 100; i++)
		stream__switch(&efx.s, 7, T(1100 + i * 10), NULL, 0, false, NULL, 0);
	cr_assert_eq(fixture__run(), 0);
	d = debug_now();
	cr_assert_eq(d.open_holds, 0);
	cr_assert_eq(d.tasks, 0);
	cr_assert_eq(d.locks, 0);
	cr_assert_eq(efx.cs->summary.evicted, 0);
}

/* A holder silent for a very long time (its EXIT lost) is eventually dropped, counted. */
Test(task, stale_task_evicted)
{
	struct engine_debug d;
	unsigned int i;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, false, NULL, 0);
	for (i = 0; i < 100; i++)
		stream__switch(&efx.s, 7, T(70000 + i * 10), NULL, 0, false, NULL, 0);
	cr_assert_eq(fixture__run(), 0);
	d = debug_now();
	cr_assert_eq(d.tasks, 0);
	cr_assert_eq(efx.cs->summary.evicted, 1);
}

/* A holder that is woken while it never left the CPU gets no off-CPU spell. */
Test(task, wakeup_of_running_task_is_not_off_cpu)
{
	struct stream_lock h = { .start = T(0), .write = true };
	const struct ls_stall *st;

	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(3), &efx.hog, 0, false, &efx.holder, HOLDING);
	stream__wakeup(&efx.s, 2, T(4), &efx.holder, HOLDING, &efx.hog, 0, NULL);
	stream__hold(&efx.s, 0, T(40), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(42), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].offcpu_ns, 0);
	cr_assert_eq(st->verdict, LS_VERDICT_CONTENTION);
}

/* More distinct waiting tasks than the table holds: bounded, and counted. */
Test(task, task_table_bounded)
{
	struct stream_lock w = { .start = T(1) };
	struct engine_debug d;
	struct ls_task t;
	unsigned int i, n = ENGINE_MAX_TASKS + 1000;

	for (i = 0; i < n; i++) {
		t = stream__task(10000 + i, 100, LS_POLICY_NORMAL, 0, 0, "w");
		stream__wait_begin(&efx.s, 0, T(2), &t, &efx.mm, &w);
	}
	cr_assert_eq(fixture__run(), 0);
	d = debug_now();
	cr_assert_leq(d.tasks, ENGINE_MAX_TASKS);
	cr_assert_leq(d.open_waits, ENGINE_LOCK_MAX_OPEN);
	cr_assert_geq(efx.cs->summary.evicted, 1000);
}

/* More distinct locks than the table holds: bounded, and counted. */
Test(task, mm_table_bounded)
{
	struct stream_lock w = { .start = T(1) };
	struct engine_debug d;
	struct ls_task t;
	struct ls_lock_id mm;
	unsigned int i, n = ENGINE_MAX_LOCKS + 1000;

	for (i = 0; i < n; i++) {
		t = stream__task(10000 + i, 10000 + i, LS_POLICY_NORMAL, 0, 0, "w");
		mm = stream__mm(0x100000 + (__u64)i * 4096, 10000 + i, "p");
		stream__wait_begin(&efx.s, 0, T(2), &t, &mm, &w);
	}
	cr_assert_eq(fixture__run(), 0);
	d = debug_now();
	cr_assert_leq(d.locks, ENGINE_MAX_LOCKS);
	cr_assert_geq(efx.cs->summary.evicted, 1000);
}

/*
 * Only off-CPU time while holding explains a stall: a waiter that goes to
 * sleep a thousand times keeps no spells, so the budget stays for holders.
 */
Test(task, waiting_only_spells_are_not_kept)
{
	static const struct ls_task sleeper = FX_NORMAL(310, 310, 0, "sleeper");
	struct stream_lock w = { .start = T(0) };
	struct stream_lock h = { .start = T(0), .write = true };
	struct engine_debug d;
	unsigned int i;

	stream__wait_begin(&efx.s, 1, T(0), &sleeper, &efx.mm, &w);
	for (i = 0; i < 2000; i++) {
		stream__switch(&efx.s, 1, T(0.1) + i * 200000ULL, &sleeper, WAITING, false, &efx.hog, 0);
		stream__switch(&efx.s, 1, T(0.2) + i * 200000ULL, &efx.hog, 0, true, &sleeper, WAITING);
	}
	/* and a holder that went off CPU twice: both spells kept */
	stream__switch(&efx.s, 0, T(500), &efx.holder, HOLDING, true, &efx.hog, 0);
	stream__switch(&efx.s, 0, T(510), &efx.hog, 0, true, &efx.holder, HOLDING);
	stream__switch(&efx.s, 0, T(520), &efx.holder, HOLDING, true, &efx.hog, 0);
	stream__switch(&efx.s, 0, T(530), &efx.hog, 0, true, &efx.holder, HOLDING);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	d = debug_now();
	cr_assert_eq(d.spells, 2, "spells kept: %u", d.spells);
	stream__clear(&efx.s);
	stream__hold(&efx.s, 0, T(540), &efx.holder, &efx.mm, &h);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->summary.evicted, 0);
}

/*
 * A task's follow span ends at the first record without a flag and starts
 * again at the next record with one, even when the lock code set or
 * cleared its flags in between (a hold or a wait that began): its later
 * stalls are judged from its records, not left unseen by the first end.
 */
Test(task, follow_span_starts_again_after_a_gap)
{
	struct task tk;

	memset(&tk, 0, sizeof(tk));
	tasks__set_flags(fixture__engine(), &tk, WAITING, T(1));
	cr_assert_eq(tk.follow_from, T(1));
	tk.flags = HOLDING;	/* as a hold's start sets it */
	tasks__set_flags(fixture__engine(), &tk, 0, T(2));
	cr_assert_eq(tk.follow_to, T(2));
	tk.flags = WAITING;	/* as a wait's start sets it */
	tasks__set_flags(fixture__engine(), &tk, WAITING, T(3));
	cr_assert_eq(tk.follow_from, T(3));
	cr_assert_eq(tk.follow_to, 0);
}
