// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Causes: what the kernel said kept a holder from running, from
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

/* ---- reclaim ---------------------------------------------------------- */

static const struct stream_memcg lsr_at_max = {
	.path = "/lockstall/lsr", .hierarchy_id = 4, .limit = LS_MEMCG_LIMIT_MAX,
	.usage_pages = 4090, .limit_pages = 4096,
};

/*
 * The holder, holding from T(0), enters memcg reclaim at T(5); it sleeps in
 * it (writeback) T(10)..T(30), runs on and ends it at T(35); it releases at
 * T(45).  The waiter waits T(2)..T(47).  Times in reclaim count on CPU or
 * off: the hold's T(5)..T(35).
 */
static void scenario__reclaiming(const struct stream_memcg *m)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(20), .write = true };

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__reclaim(&efx.s, 0, T(5), &efx.holder, LS_RECLAIM_MEMCG, m);
	stream__switch(&efx.s, 0, T(10), &efx.holder, LS_TASK_F_HOLDING, false, &efx.hog, 0);
	stream__wakeup(&efx.s, 0, T(30), &efx.holder, LS_TASK_F_HOLDING, &efx.hog, 0, &efx.hog);
	stream__switch(&efx.s, 0, T(30), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__reclaim_end(&efx.s, 0, T(35), &efx.holder, LS_RECLAIM_MEMCG, 512);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
}

Test(causes, reclaim_in_memcg_at_its_limit)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__reclaiming(&lsr_at_max);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	h = &st->holders[0];
	cr_assert_eq(h->offcpu_by_state[LS_STATE_BLOCKED], MS(20), "the states stay");
	cr_assert_eq(h->cause_ns[LS_CAUSE_RECLAIM], MS(30));
	cr_assert_eq(h->cause_ns[LS_CAUSE_THROTTLED], 0);
	cr_assert_eq(h->cause, LS_CAUSE_RECLAIM);
	cr_assert_eq(st->cause, LS_CAUSE_RECLAIM);
	cr_assert_not_null(h->reclaim);
	cr_assert_eq(h->reclaim->kind, LS_RECLAIM_MEMCG);
	cr_assert_eq(h->reclaim->limit, LS_MEMCG_LIMIT_MAX);
	cr_assert_str_eq(h->reclaim->path, "/lockstall/lsr");
	cr_assert_eq(h->reclaim->hierarchy_id, 4);
	cr_assert_eq(h->reclaim->cgroup_id, 4343);
	cr_assert_eq(h->reclaim->limit_bytes, 4096ULL * 4096);
	cr_assert_eq(h->reclaim->usage_bytes, 4090ULL * 4096);
	cr_assert_not_null(st->advice);
	cr_assert(strstr(st->advice, "memory.max"), "advice: %s", st->advice);
	cr_assert_eq(efx.cs->summary.stalls_by_cause[LS_CAUSE_RECLAIM], 1);
}

/* No cgroup at a limit was found: the reclaim is told, no cgroup named. */
Test(causes, reclaim_without_a_limit_names_no_cgroup)
{
	const struct ls_holder *h;

	scenario__reclaiming(NULL);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	h = &fixture__stall(0)->holders[0];
	cr_assert_eq(h->cause_ns[LS_CAUSE_RECLAIM], MS(30));
	cr_assert_not_null(h->reclaim);
	cr_assert_eq(h->reclaim->limit, LS_MEMCG_LIMIT_NONE);
	cr_assert_eq(h->reclaim->cgroup_id, 0);
	cr_assert_str_eq(h->reclaim->path, "");
}

/*
 * Only reclaim inside the wait and the hold counts: direct reclaim T(1)..T(4)
 * (the wait begins at T(2)), compaction T(20)..T(25); a reclaim whose end
 * was lost (a second RECLAIM came first) does not count at all.
 */
Test(causes, reclaim_clipped_and_lost_ends_not_counted)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .write = true };
	const struct ls_holder *hd;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__reclaim(&efx.s, 0, T(1), &efx.holder, LS_RECLAIM_DIRECT, NULL);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__reclaim_end(&efx.s, 0, T(4), &efx.holder, LS_RECLAIM_DIRECT, 32);
	stream__reclaim(&efx.s, 0, T(10), &efx.holder, LS_RECLAIM_MEMCG, &lsr_at_max);
	stream__reclaim(&efx.s, 0, T(20), &efx.holder, LS_RECLAIM_COMPACT, NULL);
	stream__reclaim_end(&efx.s, 0, T(25), &efx.holder, LS_RECLAIM_COMPACT, 0);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	hd = &fixture__stall(0)->holders[0];
	cr_assert_eq(hd->cause_ns[LS_CAUSE_RECLAIM], MS(2) + MS(5));
	cr_assert_not_null(hd->reclaim);
	cr_assert_eq(hd->reclaim->kind, LS_RECLAIM_COMPACT, "the latest reclaim's");
}

/* An END of another kind, or of nobody's reclaim, is ignored. */
Test(causes, reclaim_end_of_another_kind_ignored)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .write = true };

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__reclaim_end(&efx.s, 0, T(3), &efx.holder, LS_RECLAIM_DIRECT, 1);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	cr_assert_eq(fixture__stall(0)->holders[0].cause_ns[LS_CAUSE_RECLAIM], 0);
	cr_assert_eq(fixture__stall(0)->cause, LS_CAUSE_NONE);
	cr_assert_null(fixture__stall(0)->holders[0].reclaim);
}

/* A holder still in reclaim at a tick: the pending stall says so, up to the tick. */
Test(causes, reclaim_in_progress_pending)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	efx.opts.pending_after_ns = MS(1000);
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__reclaim(&efx.s, 0, T(1), &efx.holder, LS_RECLAIM_MEMCG, &lsr_at_max);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, false, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__tick(&efx.s, T(1100), LS_TICK_PERIODIC);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_geq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert(st->pending);
	cr_assert_eq(st->n_holders, 1);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, efx.holder.tid);
	cr_assert_eq(h->cause_ns[LS_CAUSE_RECLAIM], T(1100) - T(2));
	cr_assert_eq(st->cause, LS_CAUSE_RECLAIM);
	cr_assert_str_eq(h->reclaim->path, "/lockstall/lsr");
}

/* A RECLAIM of a kind the ABI does not define is a bad record, not a crash. */
Test(causes, reclaim_bad_kind_rejected)
{
	stream__reclaim(&efx.s, 0, T(1), &efx.holder, LS_RECLAIM_KIND_N, NULL);
	stream__reclaim_end(&efx.s, 0, T(2), &efx.holder, 0, 0);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->summary.bad_records, 2);
}

/*
 * Reclaim of 2 ms in a 43 ms hold inside the wait: told (causes), but it
 * is not the holder's cause, and the advice does not point at memory.
 */
Test(causes, small_cause_not_named)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .write = true };
	const struct ls_stall *st;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__reclaim(&efx.s, 0, T(10), &efx.holder, LS_RECLAIM_MEMCG, &lsr_at_max);
	stream__reclaim_end(&efx.s, 0, T(12), &efx.holder, LS_RECLAIM_MEMCG, 32);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_RECLAIM], MS(2));
	cr_assert_not_null(st->holders[0].reclaim);
	cr_assert_eq(st->holders[0].cause, LS_CAUSE_NONE);
	cr_assert_eq(st->cause, LS_CAUSE_NONE);
	cr_assert_null(strstr(st->advice, "memory"), "advice: %s", st->advice);
}

/* The kernel's dev_t of 254:0 (a virtio disk). */
#define VDA (254U << 20)

/*
 * The holder, holding from T(0), sleeps at T(1) (in an I/O wait when io:
 * LS_CAUSE_F_IO, then the device when dev); the I/O completion wakes it at
 * T(40), it runs at T(41) and releases at T(45).  The waiter waits
 * T(2)..T(47).
 */
static void scenario__io(bool io, __u32 dev)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(40), .write = true };

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, false, &efx.hog, 0);
	if (io)
		stream__cause(&efx.s, LS_CAUSE_F_IO);
	if (dev)
		stream__io_dev(&efx.s, 0, T(1), &efx.holder, dev, "vda");
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__wakeup(&efx.s, 0, T(40), &efx.holder, LS_TASK_F_HOLDING, &efx.hog, 0, &efx.hog);
	stream__switch(&efx.s, 0, T(41), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
}

static const struct ls_stall *io_stall(bool io, __u32 dev)
{
	scenario__io(io, dev);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	return fixture__stall(0);
}

/* Its sleep inside the wait, T(2)..T(40), was I/O on 254:0; the run-queue wait after is not. */
Test(causes, io_wait_with_its_device)
{
	const struct ls_stall *st = io_stall(true, VDA);
	const struct ls_holder *h = &st->holders[0];

	cr_assert_eq(h->state, LS_STATE_BLOCKED);
	cr_assert_eq(h->offcpu_by_state[LS_STATE_BLOCKED], MS(38));
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(1));
	cr_assert_eq(h->cause_ns[LS_CAUSE_IO], MS(38));
	cr_assert_eq(h->cause, LS_CAUSE_IO);
	cr_assert_eq(st->cause, LS_CAUSE_IO);
	cr_assert_eq(LS_DEV_MAJOR(h->io_dev), 254);
	cr_assert_eq(LS_DEV_MINOR(h->io_dev), 0);
	cr_assert_str_eq(h->io_disk, "vda");
	cr_assert_str_eq(ls_cause_name(st->cause), "io");
	cr_assert(strstr(st->advice, "I/O"), "advice: %s", st->advice);
	cr_assert_eq(efx.cs->summary.stalls_by_cause[LS_CAUSE_IO], 1);
}

/* I/O on a page someone else reads in: the kernel named no device, none is printed. */
Test(causes, io_wait_without_a_device)
{
	const struct ls_stall *st = io_stall(true, 0);

	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_IO], MS(38));
	cr_assert_eq(st->cause, LS_CAUSE_IO);
	cr_assert_eq(st->holders[0].io_dev, 0);
}

/* Asleep, not on I/O (a device record that follows no I/O wait is ignored): blocked, no cause. */
Test(causes, blocked_not_on_io_has_no_cause)
{
	const struct ls_stall *st = io_stall(false, VDA);
	const struct ls_holder *h = &st->holders[0];

	cr_assert_eq(h->state, LS_STATE_BLOCKED);
	cr_assert_eq(h->offcpu_by_state[LS_STATE_BLOCKED], MS(38));
	cr_assert_eq(h->cause_ns[LS_CAUSE_IO], 0);
	cr_assert_eq(h->io_dev, 0);
	cr_assert_eq(h->io_disk[0], '\0');
	cr_assert_eq(st->cause, LS_CAUSE_NONE);
	cr_assert(strstr(st->advice, "slept"), "advice: %s", st->advice);
}

/* An I/O flag on a runnable switch-out means nothing: a plain preemption stays one. */
Test(causes, preempted_stays_preempted)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };
	const struct ls_stall *st;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	stream__cause(&efx.s, LS_CAUSE_F_IO);
	stream__io_dev(&efx.s, 0, T(1), &efx.holder, VDA, "vda");
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(40), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].state, LS_STATE_PREEMPTED);
	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_IO], 0);
	cr_assert_eq(st->holders[0].io_dev, 0);
	cr_assert_eq(st->cause, LS_CAUSE_NONE);
}

/*
 * A kernel lock's owner found asleep on I/O as the waiter names it (OWNER
 * with LS_CAUSE_F_IO, then its device) at T(2); the completion wakes it at
 * T(30), it lets go and the waiter has the lock at T(33).
 */
Test(causes, owner_found_in_io_wait)
{
	static const struct ls_task owner = FX_NORMAL(101, 100, 0, "writer");
	struct ls_lock_id lock = stream__mm(0xffff8881cbd564e8ULL, 0, "");
	struct stream_owner o = { .waiter = &efx.waiter, .owner = &owner, .start = T(2),
				  .owner_cpu = 0, .state = LS_OWNER_BLOCKED,
				  .how = LS_OWNER_KLOCK };
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = LS_OWNER_KLOCK,
				 .owner_tid = owner.tid, .op = stream__syscall(18) };
	struct stream_lock end = w;
	const struct ls_stall *st;

	lock.kind = LS_LOCK_RWSEM;
	end.flags = LS_LOCK_F_BEGIN_SENT;
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__owner(&efx.s, 1, T(2), &lock, &o);
	stream__cause(&efx.s, LS_CAUSE_F_IO);
	stream__io_dev(&efx.s, 1, T(2), &owner, VDA | 16, "");
	stream__wait_begin(&efx.s, 1, T(3), &efx.waiter, &lock, &w);
	stream__switch(&efx.s, 1, T(3), &efx.waiter, LS_TASK_F_WAITING, false, NULL, 0);
	stream__wakeup(&efx.s, 0, T(30), &owner, LS_TASK_F_OWNER, &efx.hog, 0, NULL);
	stream__switch(&efx.s, 0, T(30), NULL, 0, false, &owner, LS_TASK_F_OWNER);
	stream__wakeup(&efx.s, 0, T(32), &efx.waiter, LS_TASK_F_WAITING, &owner, 1, NULL);
	stream__switch(&efx.s, 1, T(32), NULL, 0, false, &efx.waiter, LS_TASK_F_WAITING);
	stream__wait_end(&efx.s, 1, T(33), &efx.waiter, &lock, &end);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].task.tid, owner.tid);
	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_IO], MS(28));
	cr_assert_eq(st->cause, LS_CAUSE_IO);
	cr_assert_eq(LS_DEV_MAJOR(st->holders[0].io_dev), 254);
	cr_assert_eq(LS_DEV_MINOR(st->holders[0].io_dev), 16);
	/* no name came with it: none is made up */
	cr_assert_eq(st->holders[0].io_disk[0], '\0');
}
