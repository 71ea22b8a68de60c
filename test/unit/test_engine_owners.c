// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Locks without hold records (futexes, kernel locks): the owner a waiter
 * names (OWNER, WAIT_* owner fields), followed off CPU from its OWNER
 * record; the releaser when no owner is known; chains across locks;
 * deadlocks reported while they last; lock identities by kind.
 */
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"
#include "util.h"

#define WAITING LS_TASK_F_WAITING
#define OWNER LS_TASK_F_OWNER

TestSuite(owners, .init = fixture__setup, .fini = fixture__teardown);

static const struct ls_task idle_holder = FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 120, "idle-holder");
static const struct ls_task rt_waiter = FX_TASK(102, 100, LS_POLICY_FIFO, 0, 10, 89, "rt-waiter");

static struct ls_lock_id futex_at(__u64 addr, __u32 tgid, __u8 kind)
{
	struct ls_lock_id m = stream__mm(addr, tgid, "app");

	m.kind = kind;
	return m;
}

/*
 * rt-waiter waits on a futex from T(2) (off CPU 1 at T(3)); the lock's
 * owner, if any, is named at T(2) in `state` on CPU 0, where hog runs.
 * futex_wait_end(): handed over by waker at T(51), acquired at T(53).
 */
static void futex_wait(const struct ls_lock_id *lock, const struct ls_task *owner, __u8 how,
		       __u8 state)
{
	struct stream_owner o = { .waiter = &rt_waiter, .owner = owner, .cpu_curr = &efx.hog,
				  .start = T(2), .owner_cpu = 0, .state = state, .how = how };
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = how,
				 .owner_tid = owner ? owner->tid : 0 };

	if (owner)
		stream__owner(&efx.s, 1, T(2), lock, &o);
	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, lock, &w);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
}

static void futex_wait_end(const struct ls_lock_id *lock, const struct ls_task *owner, __u8 how,
			   const struct ls_task *waker)
{
	struct stream_lock end = { .start = T(2), .granted = T(51), .write = true,
				   .flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED,
				   .owner_how = how, .owner_tid = owner ? owner->tid : 0 };

	stream__wakeup(&efx.s, 0, T(51), &rt_waiter, WAITING | LS_TASK_F_GRANTED, waker, 1, NULL);
	stream__switch(&efx.s, 1, T(52), NULL, 0, false, &rt_waiter, WAITING | LS_TASK_F_GRANTED);
	stream__wait_end(&efx.s, 1, T(53), &rt_waiter, lock, &end);
}

/*
 * Quiet waits (LS_FEAT_QUIET_WAITS): a wait whose owner ran as it began
 * sends nothing until it proves long; then its OWNER comes late
 * (LS_OWNER_F_LATE), with its WAIT_BEGIN, after the owner's own switches.
 */
static void quiet_wait_told(const struct ls_lock_id *lock, __u64 at)
{
	struct stream_owner o = { .waiter = &rt_waiter, .owner = &idle_holder, .start = T(2),
				  .owner_cpu = 0, .state = LS_OWNER_RUNNING,
				  .how = LS_OWNER_PTHREAD, .owner_flags = LS_OWNER_F_LATE };
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = idle_holder.tid };

	stream__owner(&efx.s, 1, at, lock, &o);
	stream__wait_begin(&efx.s, 1, at, &rt_waiter, lock, &w);
}

/*
 * A pthread mutex (its __owner), or a rwlock held for writing (its
 * __cur_writer), held by a SCHED_IDLE thread that a hog keeps off its CPU.
 */
ParameterizedTestParameters(owners, user_lock_owner_preempted_is_an_inversion)
{
	static __u8 how[] = { LS_OWNER_PTHREAD, LS_OWNER_RWLOCK_WRITER };

	return cr_make_param_array(__u8, how, sizeof(how) / sizeof(how[0]));
}

ParameterizedTest(__u8 *how, owners, user_lock_owner_preempted_is_an_inversion)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1040ULL, 100, LS_LOCK_FUTEX);
	const struct ls_stall *st;

	futex_wait(&lock, &idle_holder, *how, LS_OWNER_RUNNABLE);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	futex_wait_end(&lock, &idle_holder, *how, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->lock.kind, LS_LOCK_FUTEX);
	cr_assert_eq(st->lock.id, 0x55d0c0de1040ULL);
	cr_assert_eq(st->lock_wait_ns, MS(49));
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, 101);
	cr_assert_eq(st->holders[0].how, *how);
	/* the wait got the lock: its owner let go, though no hold of it is traced */
	cr_assert(st->holders[0].released);
	cr_assert_eq(st->holders[0].state, LS_STATE_PREEMPTED);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(48));
	cr_assert_eq(st->holders[0].n_preempted_by, 1);
	cr_assert_eq(st->holders[0].preempted_by[0].task.tid, 200);
	cr_assert_eq(st->holders[0].preempted_by[0].ns, MS(48));
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
	cr_assert_eq(st->n_chain, 3);
	cr_assert_eq(st->chain[2].role, LS_ROLE_PREEMPTOR);
}

/*
 * PTHREAD_PRIO_INHERIT: the owner runs boosted to the waiter's priority
 * (prio 89 in its switch records) right after the wait began: no inversion.
 */
Test(owners, boosted_pi_owner_is_not_an_inversion)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1080ULL, 100, LS_LOCK_PI_FUTEX);
	struct ls_task boosted = idle_holder;
	const struct ls_stall *st;

	boosted.prio = 89;
	futex_wait(&lock, &idle_holder, LS_OWNER_FUTEX_WORD, LS_OWNER_RUNNABLE);
	stream__switch(&efx.s, 0, T(4), &efx.hog, 0, true, &boosted, OWNER);
	stream__switch(&efx.s, 0, T(50), &boosted, OWNER, false, &efx.hog, 0);
	/* its release ended the boost: later records show it unboosted */
	stream__switch(&efx.s, 0, T(50.5), &efx.hog, 0, true, &idle_holder, 0);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_FUTEX_WORD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->lock.kind, LS_LOCK_PI_FUTEX);
	cr_assert_eq(st->holders[0].task.prio, 89);
	cr_assert_eq(st->holders[0].how, LS_OWNER_FUTEX_WORD);
	/* off CPU 2 ms before the boost, then asleep from T(50) (then not owning) */
	cr_assert_eq(st->holders[0].offcpu_ns, MS(2.5));
	cr_assert_eq(st->verdict, LS_VERDICT_CONTENTION);
	/* below the waiter's priority only until the boost, within ENGINE_PI_LATE_NS */
	cr_assert_eq(st->holders[0].pi_unboosted_ns, MS(2));
	cr_assert_not(st->holders[0].pi_late);
}

/*
 * A PI futex's owner left runnable at its own priority (120, below the
 * waiter's 89) for `ms` after the waiter began to wait, then run boosted:
 * boosted in time only while that stays under ENGINE_PI_LATE_NS (4 ms).
 */
struct pi_case {
	double ms;
	bool late;
};

ParameterizedTestParameters(owners, pi_owner_boosted_late)
{
	static struct pi_case cases[] = {
		{ 1, false }, { 3.9, false }, { 4, true }, { 30, true },
	};

	return cr_make_param_array(struct pi_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct pi_case *c, owners, pi_owner_boosted_late)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1080ULL, 100, LS_LOCK_PI_FUTEX);
	struct ls_task boosted = idle_holder;
	const struct ls_stall *st;

	boosted.prio = 89;
	futex_wait(&lock, &idle_holder, LS_OWNER_FUTEX_WORD, LS_OWNER_RUNNABLE);
	stream__switch(&efx.s, 0, T(2 + c->ms), &efx.hog, 0, true, &boosted, OWNER);
	stream__switch(&efx.s, 0, T(50), &boosted, OWNER, false, &efx.hog, 0);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_FUTEX_WORD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].pi_unboosted_ns, MS(c->ms));
	cr_assert_eq(st->holders[0].pi_late, c->late, "%.1f ms unboosted", c->ms);
}

/*
 * Never boosted: the owner stays preempted at its own priority all the
 * wait (its records say prio 120): not boosted in time, and the waiter
 * waited for all of it behind the hog: an inversion.
 */
Test(owners, pi_owner_never_boosted)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1080ULL, 100, LS_LOCK_PI_FUTEX);
	const struct ls_stall *st;

	futex_wait(&lock, &idle_holder, LS_OWNER_FUTEX_WORD, LS_OWNER_RUNNABLE);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_FUTEX_WORD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].pi_unboosted_ns, MS(48));
	cr_assert(st->holders[0].pi_late);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
}

/*
 * Boosted, but asleep (blocked in the kernel under the lock) for most of
 * the wait: no boost runs a sleeping owner, so not boosted in time,
 * though no record shows it below the waiter's priority.
 */
Test(owners, pi_owner_asleep_is_not_boosted_in_time)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1080ULL, 100, LS_LOCK_PI_FUTEX);
	struct ls_task boosted = idle_holder;
	const struct ls_stall *st;

	boosted.prio = 89;
	futex_wait(&lock, &idle_holder, LS_OWNER_FUTEX_WORD, LS_OWNER_BLOCKED);
	stream__wakeup(&efx.s, 0, T(40), &boosted, OWNER, &efx.hog, 0, NULL);
	stream__switch(&efx.s, 0, T(40.1), &efx.hog, 0, true, &boosted, OWNER);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_FUTEX_WORD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].pi_unboosted_ns, 0);
	cr_assert_eq(st->holders[0].offcpu_by_state[LS_STATE_BLOCKED], MS(38));
	cr_assert(st->holders[0].pi_late);
}

/*
 * The owner was followed once and left preempted (the last waiter took over
 * from it), then ran and slept unseen.  A new wait finds it asleep: the
 * kernel's word wins over that stale spell, so the new wait's owner slept
 * and was never preempted.
 */
Test(owners, stale_spell_gives_way_to_the_owner_state)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de10c0ULL, 100, LS_LOCK_FUTEX);
	const struct ls_task waiter2 = FX_TASK(103, 100, LS_POLICY_FIFO, 0, 10, 89, "rt-waiter2");
	struct stream_owner o = { .waiter = &waiter2, .owner = &idle_holder,
				  .cpu_curr = &waiter2, .start = T(60), .owner_cpu = 0,
				  .state = LS_OWNER_BLOCKED, .how = LS_OWNER_PTHREAD };
	struct stream_lock w = { .start = T(60), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = idle_holder.tid };
	struct stream_lock end = w;
	const struct ls_stall *st;

	futex_wait(&lock, &idle_holder, LS_OWNER_PTHREAD, LS_OWNER_RUNNING);
	/* it lets go and is preempted by the waiter it woke: a spell left open */
	futex_wait_end(&lock, &idle_holder, LS_OWNER_PTHREAD, &idle_holder);
	stream__switch(&efx.s, 0, T(52), &idle_holder, OWNER, true, &rt_waiter, WAITING);
	stream__owner(&efx.s, 1, T(60), &lock, &o);
	stream__wait_begin(&efx.s, 1, T(60), &waiter2, &lock, &w);
	stream__switch(&efx.s, 1, T(60), &waiter2, WAITING, false, NULL, 0);
	stream__wakeup(&efx.s, 0, T(90), &idle_holder, OWNER, &efx.hog, 0, NULL);
	stream__switch(&efx.s, 0, T(90), &efx.hog, 0, true, &idle_holder, OWNER);
	end.granted = T(91);
	end.flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED;
	stream__wakeup(&efx.s, 0, T(91), &waiter2, WAITING | LS_TASK_F_GRANTED, &idle_holder, 1,
		       NULL);
	stream__switch(&efx.s, 1, T(91), NULL, 0, false, &waiter2, WAITING | LS_TASK_F_GRANTED);
	stream__wait_end(&efx.s, 1, T(91), &waiter2, &lock, &end);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(efx.cs->n_stalls - 1);
	cr_assert_eq(st->waiter.tid, 103);
	cr_assert_eq(st->holders[0].task.tid, 101);
	cr_assert_eq(st->holders[0].state, LS_STATE_BLOCKED);
	cr_assert_eq(st->holders[0].offcpu_by_state[LS_STATE_PREEMPTED], 0);
	cr_assert_eq(st->holders[0].offcpu_by_state[LS_STATE_BLOCKED], MS(30));
	cr_assert_eq(st->holders[0].n_preempted_by, 0);
}

/* A plain futex's owner is not judged for a boost it could never get. */
Test(owners, plain_futex_owner_is_not_judged_for_boost)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1040ULL, 100, LS_LOCK_FUTEX);
	const struct ls_stall *st;

	futex_wait(&lock, &idle_holder, LS_OWNER_PTHREAD, LS_OWNER_RUNNABLE);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_PTHREAD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].pi_unboosted_ns, 0);
	cr_assert_not(st->holders[0].pi_late);
}

/*
 * A glibc rwlock's reader (the kernel saw it wait on __wrphase_futex):
 * its records say read, and so do the stall and the chain's waiter hop;
 * the writer it waits for holds for writing.
 */
Test(owners, rwlock_reader_waits_in_read_mode)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1100ULL, 100, LS_LOCK_FUTEX);
	struct stream_owner o = { .waiter = &rt_waiter, .owner = &idle_holder,
				  .cpu_curr = &efx.hog, .start = T(2), .owner_cpu = 0,
				  .state = LS_OWNER_RUNNABLE, .how = LS_OWNER_RWLOCK_WRITER };
	struct stream_lock wb = { .start = T(2), .write = false,
				  .owner_how = LS_OWNER_RWLOCK_WRITER, .owner_tid = 101 };
	struct stream_lock we = wb;
	const struct ls_stall *st;

	stream__owner(&efx.s, 1, T(2), &lock, &o);
	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, &lock, &wb);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	stream__wakeup(&efx.s, 0, T(51), &rt_waiter, WAITING, &idle_holder, 1, NULL);
	stream__switch(&efx.s, 1, T(52), NULL, 0, false, &rt_waiter, WAITING);
	we.flags = LS_LOCK_F_BEGIN_SENT;
	stream__wait_end(&efx.s, 1, T(53), &rt_waiter, &lock, &we);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_not(st->write, "a reader's wait told as a write");
	cr_assert_eq(st->chain[0].role, LS_ROLE_WAITER);
	cr_assert_not(st->chain[0].write);
	cr_assert(st->holders[0].write, "the writer holds for writing");
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
}

/*
 * Followed by TID (no bpf_task_from_pid()): the OWNER record knows only
 * the owner's TID (and its process for a plain futex, 0 for a PI futex of
 * another process) and says its state is unknown.  The engine names it
 * and learns the rest from its own records: the SWITCH that brings it
 * back on CPU; the record opens no off-CPU spell of its own, and an
 * owner seen before in another process keeps what was known of it.
 */
ParameterizedTestParameters(owners, owner_known_by_tid_only)
{
	static __u32 tgid[] = { 100, 0 };

	return cr_make_param_array(__u32, tgid, sizeof(tgid) / sizeof(tgid[0]));
}

ParameterizedTest(__u32 *tgid, owners, owner_known_by_tid_only)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1050ULL, 100, LS_LOCK_FUTEX);
	struct ls_task tid_only = { .tid = idle_holder.tid, .tgid = *tgid };
	const struct ls_stall *st;

	stream__switch(&efx.s, 0, T(1), &idle_holder, 0, false, &efx.hog, 0);
	futex_wait(&lock, &tid_only, LS_OWNER_PTHREAD, LS_OWNER_UNKNOWN);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_PTHREAD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, idle_holder.tid);
	cr_assert_eq(st->holders[0].task.tgid, idle_holder.tgid);
	cr_assert_str_eq(st->holders[0].task.comm, "idle-holder");
	cr_assert_eq(st->holders[0].how, LS_OWNER_PTHREAD);
	/* not seen preempted (or anything else) by the engine: no inversion claimed */
	cr_assert_eq(st->holders[0].n_preempted_by, 0);
	/* followed from its switch-in at T(50): where it was before, no record said */
	cr_assert_eq(st->holders[0].unseen_ns, MS(48));
	cr_assert_eq(st->holders[0].state, LS_STATE_UNKNOWN);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
}

/*
 * The waiter named its owner's TID, but no record ever showed that task
 * (its OWNER record was lost, or it was followed by TID and never ran
 * again): only the TID is known.  No pid, name or policy, no "running"
 * from a zeroed struct, and no verdict on it.
 */
Test(owners, owner_never_seen_is_unknown)
{
	static const struct ls_task ghost = { .tid = 333 };
	struct ls_lock_id lock = futex_at(0x55d0c0de1070ULL, 100, LS_LOCK_FUTEX);
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = ghost.tid };
	const struct ls_stall *st;
	const struct ls_holder *h;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_FUTEX | LS_FEAT_CAUSES);
	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, &lock, &w);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
	futex_wait_end(&lock, &ghost, LS_OWNER_PTHREAD, &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 333);
	cr_assert_not(ls_task_seen(&h->task));
	cr_assert_eq(h->task.comm[0], 0);
	cr_assert_eq(h->offcpu_ns, 0);
	cr_assert_eq(h->unseen_ns, st->lock_wait_ns);
	cr_assert_eq(h->state, LS_STATE_UNKNOWN);
	cr_assert_str_eq(ls_state_name(h->state), "unknown");
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
	cr_assert_not_null(st->advice);
	cr_assert(strstr(st->advice, "no record showed that task"), "advice: %s", st->advice);
	/* the chain names it by its TID, not as a running holder */
	cr_assert_eq(st->chain[1].task.tid, 333);
	cr_assert_not(ls_task_seen(&st->chain[1].task));
}

/*
 * An owner the kernel side followed all through the wait and saw on CPU:
 * running is a fact then, and so is contention.  Told as the wait began,
 * or late, as a quiet wait proved long.
 */
ParameterizedTestParameters(owners, owner_followed_on_cpu_is_running)
{
	static bool late[] = { false, true };

	return cr_make_param_array(bool, late, sizeof(late) / sizeof(late[0]));
}

ParameterizedTest(bool *late, owners, owner_followed_on_cpu_is_running)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1090ULL, 100, LS_LOCK_FUTEX);
	const struct ls_stall *st;

	if (*late)
		quiet_wait_told(&lock, T(20));
	else
		futex_wait(&lock, &idle_holder, LS_OWNER_PTHREAD, LS_OWNER_RUNNING);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_PTHREAD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].unseen_ns, 0);
	cr_assert_eq(st->holders[0].state, LS_STATE_RUNNING);
	cr_assert_eq(st->verdict, LS_VERDICT_CONTENTION);
}

/*
 * Followed by TID, but the kernel side read who the owner is
 * (LS_OWNER_F_TASK_READ): the holder is named, with its policy, while
 * where it was stays unknown until its own records say.
 */
Test(owners, owner_by_tid_with_its_task_read_is_named)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de10d0ULL, 100, LS_LOCK_FUTEX);
	struct stream_owner o = { .waiter = &rt_waiter, .owner = &idle_holder, .start = T(2),
				  .state = LS_OWNER_UNKNOWN, .how = LS_OWNER_PTHREAD,
				  .owner_flags = LS_OWNER_F_TASK_READ };
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = idle_holder.tid };
	const struct ls_stall *st;

	stream__owner(&efx.s, 1, T(2), &lock, &o);
	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, &lock, &w);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_PTHREAD, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert(ls_task_seen(&st->holders[0].task));
	cr_assert_str_eq(st->holders[0].task.comm, "idle-holder");
	cr_assert_eq(st->holders[0].task.policy, LS_POLICY_IDLE);
	cr_assert_eq(st->holders[0].state, LS_STATE_UNKNOWN);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
}

/* No owner known: the task whose wake ended the wait, marked, and no verdict on it. */
Test(owners, releaser_is_named_but_not_judged)
{
	static const struct ls_task signaller = FX_NORMAL(105, 100, 0, "signaller");
	struct ls_lock_id lock = futex_at(0x55d0c0de10c0ULL, 100, LS_LOCK_FUTEX);
	const struct ls_stall *st;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	futex_wait(&lock, NULL, LS_OWNER_NONE, 0);
	futex_wait_end(&lock, NULL, LS_OWNER_NONE, &signaller);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, 105);
	cr_assert_eq(st->holders[0].how, LS_OWNER_RELEASER);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
	/* nothing was lost: the advice must not say so */
	cr_assert_eq(st->lost_in_window, 0);
	cr_assert(strstr(st->advice, "released the lock"), "advice: %s", st->advice);
}

/* A futex call whose lock names no owner, and the op it is told as (an array: params are copied). */
struct no_owner_case {
	int syscall;
	char op[16];
};

static struct no_owner_case no_owner_cases[] = {
	{ 449, "futex_waitv" },	/* its first futex: an event, no owner convention */
	{ 455, "futex_wait" },	/* futex2's, on a lock of a program's own */
};

ParameterizedTestParameters(owners, futex_call_names_no_owner)
{
	return cr_make_param_array(struct no_owner_case, no_owner_cases,
				   ARRAY_SIZE(no_owner_cases));
}

/*
 * futex_waitv(2), futex2's futex_wait(2): a futex wait of that op whose
 * lock names no owner: its only holder is the releaser, marked so, never
 * an owner; no verdict on it.
 */
ParameterizedTest(struct no_owner_case *c, owners, futex_call_names_no_owner)
{
	static const struct ls_task waker = FX_NORMAL(106, 100, 0, "wl-waker");
	struct ls_lock_id lock = futex_at(0x7ffccad99900ULL, 100, LS_LOCK_FUTEX);
	struct stream_lock w = { .start = T(2), .write = true,
				 .op = { .kind = LS_OP_SYSCALL, .syscall = c->syscall } };
	struct stream_lock end = w;
	const struct ls_stall *st;
	char op[32];

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN,
		     LS_FEAT_FUTEX | LS_FEAT_FUTEX_WAITV | LS_FEAT_FUTEX_WAIT2);
	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, &lock, &w);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
	stream__wakeup(&efx.s, 0, T(33), &rt_waiter, WAITING, &waker, 1, NULL);
	stream__switch(&efx.s, 1, T(33.1), NULL, 0, false, &rt_waiter, WAITING);
	end.flags = LS_LOCK_F_BEGIN_SENT;
	stream__wait_end(&efx.s, 1, T(33.2), &rt_waiter, &lock, &end);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->lock.kind, LS_LOCK_FUTEX);
	cr_assert_str_eq(ls_op_name(&st->op, op, sizeof(op)), c->op);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, 106);
	cr_assert_eq(st->holders[0].how, LS_OWNER_RELEASER);
	cr_assert(st->holders[0].released);
	/* never followed: where it was is not known, not "running" */
	cr_assert_eq(st->holders[0].state, LS_STATE_UNKNOWN);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
}

/* A futex wait that failed (a timeout, a signal) is not known to have waited for a lock. */
Test(owners, failed_futex_wait_is_not_judged)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1100ULL, 100, LS_LOCK_FUTEX);
	struct stream_lock end = { .start = T(2), .write = true, .failed = true,
				   .flags = LS_LOCK_F_BEGIN_SENT };

	futex_wait(&lock, NULL, LS_OWNER_NONE, 0);
	stream__switch(&efx.s, 1, T(52), NULL, 0, false, &rt_waiter, WAITING);
	stream__wait_end(&efx.s, 1, T(53), &rt_waiter, &lock, &end);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
}

/*
 * The holder was asleep because it waited on another futex, whose owner
 * it named: the chain goes on across that lock.
 */
Test(owners, chain_follows_a_blocked_owner_to_the_next_lock)
{
	static const struct ls_task far = FX_NORMAL(107, 100, 0, "far-owner");
	struct ls_lock_id lock = futex_at(0x55d0c0de1140ULL, 100, LS_LOCK_FUTEX);
	struct ls_lock_id lock2 = futex_at(0x55d0c0de1180ULL, 100, LS_LOCK_FUTEX);
	struct stream_owner o = { .waiter = &idle_holder, .owner = &far, .start = T(1),
				  .owner_cpu = 1, .state = LS_OWNER_RUNNING,
				  .how = LS_OWNER_PTHREAD };
	const struct ls_stall *st;

	stream__owner(&efx.s, 0, T(1), &lock2, &o);
	futex_wait(&lock, &idle_holder, LS_OWNER_PTHREAD, LS_OWNER_BLOCKED);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_PTHREAD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].state, LS_STATE_BLOCKED);
	cr_assert_eq(st->n_chain, 3);
	cr_assert_eq(st->chain[1].task.tid, 101);
	cr_assert_not(st->chain[1].has_lock);
	cr_assert_eq(st->chain[2].task.tid, 107);
	cr_assert_eq(st->chain[2].role, LS_ROLE_HOLDER);
	cr_assert(st->chain[2].has_lock);
	cr_assert_eq(st->chain[2].lock.id, 0x55d0c0de1180ULL);
}

/*
 * a waits on lb owned by b from T(1); b on la owned by a from T(2), named
 * how: the cycle closes at T(2).
 */
static void ab_ba(__u8 how)
{
	static const struct ls_task a = FX_NORMAL(111, 110, 0, "thread-a");
	static const struct ls_task b = FX_NORMAL(112, 110, 0, "thread-b");
	struct ls_lock_id la = futex_at(0x1000, 110, LS_LOCK_FUTEX);
	struct ls_lock_id lb = futex_at(0x2000, 110, LS_LOCK_FUTEX);
	struct stream_owner ab = { .waiter = &a, .owner = &b, .start = T(1), .owner_cpu = 1,
				   .state = LS_OWNER_RUNNING, .how = how };
	struct stream_owner ba = { .waiter = &b, .owner = &a, .start = T(2), .owner_cpu = 0,
				   .state = LS_OWNER_BLOCKED, .how = how, .owner_flags = WAITING };
	const struct ls_op futex = { .kind = LS_OP_SYSCALL, .syscall = 202 };
	struct stream_lock wa = { .start = T(1), .write = true, .owner_how = how, .owner_tid = 112,
				  .op = futex };
	struct stream_lock wb = { .start = T(2), .write = true, .owner_how = how, .owner_tid = 111,
				  .op = futex };

	stream__owner(&efx.s, 0, T(1), &lb, &ab);
	stream__wait_begin(&efx.s, 0, T(1), &a, &lb, &wa);
	stream__switch(&efx.s, 0, T(1), &a, WAITING, false, NULL, 0);
	stream__owner(&efx.s, 1, T(2), &la, &ba);
	stream__wait_begin(&efx.s, 1, T(2), &b, &la, &wb);
	stream__switch(&efx.s, 1, T(2), &b, WAITING, false, NULL, 0);
}

/*
 * AB/BA: reported at the first tick once both waits lasted the threshold,
 * once, while they last (an owner read at a wait's start may have let go
 * since: a cycle seen for an instant is not news).
 */
Test(owners, deadlock_reported_while_it_lasts)
{
	const struct ls_stall *st;

	ab_ba(LS_OWNER_PTHREAD);
	stream__tick(&efx.s, T(11.5), LS_TICK_PERIODIC);
	stream__tick(&efx.s, T(12.5), LS_TICK_PERIODIC);
	stream__tick(&efx.s, T(200), LS_TICK_PERIODIC);
	/* no engine__finish: it is news while the threads are stuck */
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->verdict, LS_VERDICT_DEADLOCK);
	cr_assert_eq(st->waiter.tid, 112);
	cr_assert_eq(st->lock.id, 0x1000);
	cr_assert_not(st->acquired);
	cr_assert_not(st->holders[0].released, "a deadlocked owner let go");
	cr_assert_eq(st->n_chain, 3);
	cr_assert_eq(st->chain[1].task.tid, 111);
	cr_assert_eq(st->chain[1].lock.id, 0x1000);
	cr_assert_eq(st->chain[2].task.tid, 112);
	cr_assert_eq(st->chain[2].lock.id, 0x2000);
	cr_assert_eq(st->holders[0].task.tid, 111);
	cr_assert_eq(st->end_ns, T(12.5), "reported at the first tick after T(12)");
}

/*
 * Once reported, a deadlock is what its waits' pending reports say: the
 * verdict and the cycle, while it holds.  The deadlock itself says what the
 * waiter waits in and the advice of a cycle, and that it still waits.
 */
Test(owners, pending_reports_of_a_deadlock_say_deadlock)
{
	const struct ls_stall *dl, *p;
	unsigned int i, n_pending = 0;

	efx.opts.pending_after_ns = MS(50);
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSE_IO);
	ab_ba(LS_OWNER_PTHREAD);
	stream__tick(&efx.s, T(12.5), LS_TICK_PERIODIC);
	stream__tick(&efx.s, T(60), LS_TICK_PERIODIC);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	dl = fixture__stall(0);
	cr_assert_eq(dl->verdict, LS_VERDICT_DEADLOCK);
	cr_assert_eq(dl->op.kind, LS_OP_SYSCALL, "what the waiter waits in, from its WAIT_BEGIN");
	cr_assert_eq(dl->op.syscall, 202);
	cr_assert_not_null(dl->advice);
	cr_assert(strstr(dl->advice, "cycle"), "advice: %s", dl->advice);
	for (i = 1; i < efx.cs->n_stalls; i++) {
		p = fixture__stall(i);
		cr_assert(p->pending);
		cr_assert_eq(p->verdict, LS_VERDICT_DEADLOCK);
		cr_assert_eq(p->n_chain, 3);
		cr_assert_eq(p->chain[2].task.tid, p->waiter.tid, "the cycle comes back to the waiter");
		n_pending++;
	}
	cr_assert_eq(n_pending, 2, "both waits of the cycle reported pending");
}

/* Every owner read from the lock itself is exact: a cycle through it is a deadlock. */
ParameterizedTestParameters(owners, exact_owners_make_a_deadlock)
{
	static __u8 how[] = { LS_OWNER_FUTEX_WORD, LS_OWNER_PTHREAD, LS_OWNER_KLOCK,
			      LS_OWNER_RWLOCK_WRITER };

	return cr_make_param_array(__u8, how, sizeof(how) / sizeof(how[0]));
}

ParameterizedTest(__u8 *how, owners, exact_owners_make_a_deadlock)
{
	ab_ba(*how);
	stream__tick(&efx.s, T(200), LS_TICK_PERIODIC);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	cr_assert_eq(fixture__stall(0)->verdict, LS_VERDICT_DEADLOCK);
	cr_assert_eq(fixture__stall(0)->holders[0].how, *how);
}

/* Each way of finding an owner has its own name in the outputs (found_by). */
Test(owners, every_owner_source_has_its_own_name)
{
	unsigned int i, j;

	cr_assert_null(ls_owner_how_name(LS_OWNER_NONE));
	cr_assert_null(ls_owner_how_name(LS_OWNER_HOW_N));
	cr_assert_str_eq(ls_owner_how_name(LS_OWNER_RWLOCK_WRITER), "rwlock_writer");
	for (i = LS_OWNER_NONE + 1; i < LS_OWNER_HOW_N; i++) {
		cr_assert_not_null(ls_owner_how_name(i), "owner source %u has no name", i);
		for (j = i + 1; j < LS_OWNER_HOW_N; j++)
			cr_assert_str_neq(ls_owner_how_name(i), ls_owner_how_name(j));
	}
}

/* A reader hint or a releaser may hold nothing: a cycle through them is no deadlock. */
ParameterizedTestParameters(owners, no_deadlock_through_a_guess)
{
	static __u8 how[] = { LS_OWNER_HINT, LS_OWNER_RELEASER };

	return cr_make_param_array(__u8, how, sizeof(how) / sizeof(how[0]));
}

ParameterizedTest(__u8 *how, owners, no_deadlock_through_a_guess)
{
	unsigned int i;

	ab_ba(*how);
	stream__tick(&efx.s, T(200), LS_TICK_PERIODIC);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	for (i = 0; i < efx.cs->n_stalls; i++)
		cr_assert_neq(fixture__stall(i)->verdict, LS_VERDICT_DEADLOCK);
}

/* A private futex is (process, address): the same address in two processes is two locks. */
Test(owners, futexes_are_keyed_by_process_and_kind)
{
	struct ls_lock_id f1 = futex_at(0x1000, 100, LS_LOCK_FUTEX);
	struct ls_lock_id f2 = futex_at(0x1000, 300, LS_LOCK_FUTEX);
	struct ls_lock_id m = futex_at(0x1000, 0, LS_LOCK_MUTEX);
	static const struct ls_task other = FX_NORMAL(301, 300, 0, "other");
	static const struct ls_task third = FX_NORMAL(103, 100, 0, "third");
	struct stream_lock w = { .start = T(1), .write = true };
	struct engine_debug d;

	stream__wait_begin(&efx.s, 0, T(1), &efx.waiter, &f1, &w);
	stream__wait_begin(&efx.s, 0, T(1), &other, &f2, &w);
	stream__wait_begin(&efx.s, 0, T(1), &third, &m, &w);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.locks, 3);
	cr_assert_eq(d.open_waits, 3);
}

/* Kinds and owner sources past the ABI's are malformed, not indexes into tables. */
Test(owners, unknown_kind_or_owner_source_is_malformed)
{
	struct ls_lock_id bad = futex_at(0x1000, 100, LS_LOCK_KIND_N);
	struct ls_lock_id ok = futex_at(0x1000, 100, LS_LOCK_FUTEX);
	struct stream_lock w = { .start = T(1), .owner_how = LS_OWNER_HOW_N };
	struct stream_lock fine = { .start = T(1) };
	struct stream_owner o = { .waiter = &efx.waiter, .owner = &efx.holder, .start = T(1),
				  .how = LS_OWNER_HOW_N };
	struct ls_summary sum;

	stream__wait_begin(&efx.s, 0, T(1), &efx.waiter, &bad, &fine);
	stream__wait_begin(&efx.s, 0, T(1), &efx.waiter, &ok, &w);
	stream__owner(&efx.s, 0, T(1), &ok, &o);
	cr_assert_eq(fixture__run(), 0);
	engine__summary(efx.e, &sum);
	cr_assert_eq(sum.bad_records, 3);
}

/* A wait still going on, on an owner no record showed: where it is now is not known either. */
Test(owners_pending, unseen_owner_is_not_on_cpu_now, .init = fixture__setup_pending,
     .fini = fixture__teardown)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de10b0ULL, 100, LS_LOCK_FUTEX);
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = 333 };
	const struct ls_stall *st;

	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, &lock, &w);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
	stream__tick(&efx.s, T(1500), LS_TICK_PERIODIC);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_geq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert(st->pending);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, 333);
	cr_assert_eq(st->holders[0].state, LS_STATE_UNKNOWN);
	cr_assert_eq(st->holders[0].state_now, LS_STATE_UNKNOWN);
	cr_assert_eq(st->verdict, LS_VERDICT_UNKNOWN);
}

/* Preempted before its waiter's wait proved long: the late OWNER keeps that spell. */
Test(owners, late_owner_keeps_the_spell_its_switches_opened)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1100ULL, 100, LS_LOCK_FUTEX);
	const struct ls_stall *st;

	stream__switch(&efx.s, 0, T(10), &idle_holder, OWNER, true, &efx.hog, 0);
	quiet_wait_told(&lock, T(20));
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_PTHREAD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].task.tid, idle_holder.tid);
	cr_assert_eq(st->holders[0].state, LS_STATE_PREEMPTED);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(40));
	/* followed from the wait's start, not from the late record */
	cr_assert_eq(st->holders[0].unseen_ns, 0);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
}

/*
 * The scan that tells long quiet waits raced the wait's own end: its
 * WAIT_BEGIN and late OWNER come after the WAIT_END.  They are stale: no
 * wait is left open to be reported pending, or to close a cycle.
 */
Test(owners_pending, records_after_their_wait_ended_are_stale, .init = fixture__setup_pending,
     .fini = fixture__teardown)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1120ULL, 100, LS_LOCK_FUTEX);
	struct stream_lock end = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				   .owner_tid = idle_holder.tid };
	struct task *tk;
	size_t i;

	stream__wait_end(&efx.s, 1, T(30), &rt_waiter, &lock, &end);
	quiet_wait_told(&lock, T(30));
	for (i = 1; i <= 4; i++)
		stream__tick(&efx.s, T(1000 * i), LS_TICK_PERIODIC);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	cr_assert_not(fixture__stall(0)->pending);
	cr_assert_eq(efx.cs->summary.pending_reports, 0);
	tk = map__get(&efx.e->tasks, rt_waiter.tid);
	cr_assert_not_null(tk);
	cr_assert_not(tk->waiting);
	cr_assert_eq(tk->wait_owner_tid, 0);
}

/*
 * The owner slept (not on I/O) as its last waiter let go, then ran unseen;
 * a new wait finds it asleep on I/O.  The spell left open is stale: the
 * OWNER's word wins, and the stall's cause is I/O.
 */
Test(owners, owner_asleep_on_io_replaces_a_stale_spell)
{
	struct ls_lock_id lock = futex_at(0x55d0c0de1130ULL, 100, LS_LOCK_FUTEX);
	struct stream_owner o = { .waiter = &rt_waiter, .owner = &idle_holder, .start = T(2),
				  .owner_cpu = 0, .state = LS_OWNER_BLOCKED,
				  .how = LS_OWNER_PTHREAD, .owner_cause = LS_CAUSE_F_IO };
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = idle_holder.tid };
	const struct ls_stall *st;

	stream__switch(&efx.s, 0, T(0), &idle_holder, OWNER, false, &efx.hog, 0);
	stream__owner(&efx.s, 1, T(2), &lock, &o);
	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, &lock, &w);
	stream__wakeup(&efx.s, 0, T(40), &idle_holder, OWNER, NULL, 0, NULL);
	stream__switch(&efx.s, 0, T(41), &efx.hog, 0, true, &idle_holder, OWNER);
	futex_wait_end(&lock, &idle_holder, LS_OWNER_PTHREAD, &idle_holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].state, LS_STATE_BLOCKED);
	cr_assert_eq(st->holders[0].cause, LS_CAUSE_IO);
	cr_assert_eq(st->cause, LS_CAUSE_IO);
}
