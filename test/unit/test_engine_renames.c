// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A task renamed (an exec, PR_SET_NAME) while lockstall watches: a stall
 * names it as the record it came from did, and says its other name where
 * the records showed the change: "was" inside the stall's span, "now"
 * after the record that named it.  Only record times decide.
 */
#include <string.h>
#include <criterion/criterion.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"

#define HOLDING LS_TASK_F_HOLDING

TestSuite(renames, .init = fixture__setup, .fini = fixture__teardown);

/* The same task (tid 101 of process 100) before and after its exec. */
static const struct ls_task bash = FX_NORMAL(101, 100, 0, "bash");
static const struct ls_task reader = FX_NORMAL(101, 100, 0, "proc_reader");

/*
 * The inversion of scenario__preempted_holder() with the holder named
 * before at T(first), runs again at T(50) and lets go at T(51) as
 * at_release; after (NULL: none) is a record of it at T(51.5), before the
 * waiter's WAIT_END at T(53).
 */
static void holder_renamed(const struct ls_task *before, double first,
			   const struct ls_task *at_release, const struct ls_task *after)
{
	static const struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(49),
					      .write = true };

	if (first < 1)
		stream__switch(&efx.s, 0, T(first), before, HOLDING, false, NULL, 0);
	stream__switch(&efx.s, 0, T(1), first < 1 ? at_release : before, HOLDING, true,
		       &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, false, T(2));
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, at_release, HOLDING);
	stream__hold(&efx.s, 0, T(51), at_release, &efx.mm, &h);
	if (after)
		stream__switch(&efx.s, 0, T(51.5), after, 0, false, &efx.hog, 0);
	scenario__wait_end(&efx.waiter, false, T(2), T(53), at_release);
}

static void assert_rename(const struct ls_stall *st, const struct ls_task *t, bool was,
			  const char *other)
{
	const struct ls_rename *r = ls_stall__rename(st, t->tid, t->comm);

	cr_assert_not_null(r, "no rename for %.16s[%u] (%u renames)", t->comm, t->tid,
			   st->n_renames);
	cr_assert_eq(r->was, was, "%.16s: was %d", t->comm, r->was);
	cr_assert_str_eq(r->other, other);
}

/*
 * The holder, preempted while holding as "bash", runs again as
 * "proc_reader" and lets go: the stall names it by its HOLD record, the
 * new name, and says the old one, seen to change inside the wait.
 */
Test(renames, renamed_inside_the_wait_says_was)
{
	const struct ls_stall *st;

	holder_renamed(&bash, 1, &reader, NULL);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_str_eq(st->holders[0].task.comm, "proc_reader");
	assert_rename(st, &st->holders[0].task, true, "bash");
	cr_assert_eq(st->renames[0].renamed_ns, T(50));
	/* the waiter kept its name: nothing to say about it */
	cr_assert_null(ls_stall__rename(st, efx.waiter.tid, efx.waiter.comm));
}

/*
 * The holder lets go as "bash" and is seen as "proc_reader" before the
 * waiter's WAIT_END: the stall names it by its HOLD record, the old name,
 * and says the newest.
 */
Test(renames, renamed_after_its_record_says_now)
{
	const struct ls_stall *st;

	holder_renamed(&bash, 1, &bash, &reader);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_str_eq(st->holders[0].task.comm, "bash");
	assert_rename(st, &st->holders[0].task, false, "proc_reader");
	/* its chain hop is the same task under the same name: one entry serves both */
	cr_assert_eq(st->n_renames, 1);
	cr_assert_eq(st->chain[1].task.tid, bash.tid);
	cr_assert_not_null(ls_stall__rename(st, st->chain[1].task.tid, st->chain[1].task.comm));
}

/*
 * Seen as "bash" just before the wait (within retain of its start): the
 * stall says so, it is the "bash" of whatever was printed a moment ago.
 */
Test(renames, renamed_just_before_the_wait_says_was)
{
	const struct ls_stall *st;

	holder_renamed(&bash, 0.5, &reader, NULL);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_str_eq(st->holders[0].task.comm, "proc_reader");
	assert_rename(st, &st->holders[0].task, true, "bash");
	cr_assert_eq(st->renames[0].renamed_ns, T(1));
}

/*
 * Last seen as "bash" more than retain (1 s here) before the wait began:
 * old news, the stall gives its one name, though the engine knows both.
 */
Test(renames, renamed_long_before_the_wait_says_nothing)
{
	struct stream_lock h = { .start = T(1500), .acquired = T(1500), .offcpu = MS(49),
				 .write = true };
	struct stream_lock wb = { .start = T(1502) };
	struct stream_lock we = { .start = T(1502), .flags = LS_LOCK_F_BEGIN_SENT };
	const struct ls_stall *st;
	const struct task *tk;

	stream__switch(&efx.s, 0, T(0), &bash, HOLDING, false, NULL, 0);
	stream__switch(&efx.s, 0, T(1400), NULL, 0, false, &reader, HOLDING);
	stream__switch(&efx.s, 0, T(1501), &reader, HOLDING, true, &efx.hog, 0);
	stream__wait_begin(&efx.s, 1, T(1503), &efx.waiter, &efx.mm, &wb);
	stream__switch(&efx.s, 1, T(1503), &efx.waiter, LS_TASK_F_WAITING, false, NULL, 0);
	stream__switch(&efx.s, 0, T(1550), &efx.hog, 0, true, &reader, HOLDING);
	stream__hold(&efx.s, 0, T(1551), &reader, &efx.mm, &h);
	stream__wakeup(&efx.s, 0, T(1551), &efx.waiter, LS_TASK_F_WAITING, &reader, 1, NULL);
	stream__switch(&efx.s, 1, T(1552), NULL, 0, false, &efx.waiter, LS_TASK_F_WAITING);
	stream__wait_end(&efx.s, 1, T(1553), &efx.waiter, &efx.mm, &we);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_str_eq(st->holders[0].task.comm, "proc_reader");
	cr_assert_eq(st->n_renames, 0);
	/* not for want of knowing: the task table has both names */
	tk = map__get(&efx.e->tasks, reader.tid);
	cr_assert_not_null(tk);
	cr_assert_eq(tk->renamed_ns, T(1400));
	cr_assert_str_eq(tk->comm_was, "bash");
}

/*
 * CPUs' streams interleave: a record stamped before the newest name's
 * first one, fed after it, is no rename back.
 */
Test(renames, late_record_under_the_old_name_is_no_rename)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(49), .write = true };
	const struct ls_stall *st;

	stream__switch(&efx.s, 0, T(1), &bash, HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, false, T(2));
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &reader, HOLDING);
	/* from another CPU, older than T(50) */
	stream__wakeup(&efx.s, 2, T(49), &bash, HOLDING, &efx.hog, 0, NULL);
	stream__hold(&efx.s, 0, T(51), &reader, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, false, T(2), T(53), &reader);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	assert_rename(st, &st->holders[0].task, true, "bash");
	cr_assert_eq(st->renames[0].renamed_ns, T(50));
}

/*
 * A pending report while the holder is still off CPU after its exec: the
 * report is a record of its own, judged at the tick's time.
 */
Test(renames, pending_report_says_was)
{
	const struct ls_stall *st;

	efx.opts.pending_after_ns = MS(20);
	stream__switch(&efx.s, 0, T(1), &bash, HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, false, T(2));
	stream__switch(&efx.s, 0, T(10), &efx.hog, 0, true, &reader, HOLDING);
	stream__switch(&efx.s, 0, T(11), &reader, HOLDING, true, &efx.hog, 0);
	stream__tick(&efx.s, T(30), LS_TICK_PERIODIC);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_geq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert(st->pending);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_str_eq(st->holders[0].task.comm, "proc_reader");
	assert_rename(st, &st->holders[0].task, true, "bash");
}

/* Replayed, the same records give the same renames: nothing but record times decides. */
Test(renames, replay_is_identical)
{
	struct ls_rename first;
	const struct ls_stall *st;
	struct engine *e2;
	struct capture_sink *cs2;

	holder_renamed(&bash, 1, &reader, NULL);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_renames, 1);
	first = st->renames[0];

	cs2 = capture_sink__new();
	e2 = engine__new(&efx.opts, &cs2->sink);
	cr_assert_not_null(e2);
	cr_assert_eq(stream__feed(&efx.s, e2), 0);
	cr_assert_eq(engine__finish(e2), 0);
	st = capture_sink__stall(cs2, 0);
	cr_assert_not_null(st);
	cr_assert_eq(st->n_renames, 1);
	cr_assert_eq(st->renames[0].tid, first.tid);
	cr_assert_eq(st->renames[0].was, first.was);
	cr_assert_eq(st->renames[0].renamed_ns, first.renamed_ns);
	cr_assert_eq(memcmp(st->renames[0].comm, first.comm, LS_COMM_LEN), 0);
	cr_assert_eq(memcmp(st->renames[0].other, first.other, LS_COMM_LEN), 0);
	engine__free(e2);
	capture_sink__free(cs2);
}
