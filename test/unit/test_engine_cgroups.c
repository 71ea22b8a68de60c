// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cgroups of holders and preemptors (LS_REC_TASK_CGROUP): a
 * futex owner and the hog that ran instead of it get the ids the kernel
 * side told; an mmap_lock holder keeps its own HOLD record's; a tid's
 * newer id replaces an older one, never the other way round; the table
 * stays bounded; a stream without LS_FEAT_TASK_CGROUP says so.
 */
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"

#define WAITING LS_TASK_F_WAITING
#define OWNER LS_TASK_F_OWNER

#define CG_WAITER	1001
#define CG_HOLDER	1002
#define CG_HOG		1003
#define CG_HOG_MOVED	1004

TestSuite(task_cgroups, .init = fixture__setup, .fini = fixture__teardown);

static const struct ls_task idle_holder = FX_TASK(101, 100, LS_POLICY_IDLE, 0, 0, 120, "idle-holder");
static const struct ls_task rt_waiter = FX_TASK(102, 100, LS_POLICY_FIFO, 0, 10, 89, "rt-waiter");

/*
 * rt-waiter waits on a pthread mutex from T(2) to T(53) (handed over at
 * T(51)); its owner idle-holder sits preempted on CPU 0 from T(2) to T(50)
 * while efx.hog runs there.  The kernel side tells the owner's and the
 * hog's cgroups beside the OWNER record, as bpf/futex.bpf.h does.
 */
static void futex_inversion(__u32 features)
{
	struct ls_lock_id lock = stream__mm(0x55d0c0de1040ULL, 100, "app");
	struct stream_owner o = { .waiter = &rt_waiter, .owner = &idle_holder,
				  .cpu_curr = &efx.hog, .start = T(2), .owner_cpu = 0,
				  .state = LS_OWNER_RUNNABLE, .how = LS_OWNER_PTHREAD };
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = idle_holder.tid, .cgroup = CG_WAITER };
	struct stream_lock end = w;

	lock.kind = LS_LOCK_FUTEX;
	end.granted = T(51);
	end.flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED;
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, features);
	stream__owner(&efx.s, 1, T(2), &lock, &o);
	stream__task_cgroup(&efx.s, 1, T(2), &idle_holder, CG_HOLDER);
	stream__task_cgroup(&efx.s, 1, T(2), &efx.hog, CG_HOG);
	stream__wait_begin(&efx.s, 1, T(3), &rt_waiter, &lock, &w);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	stream__wakeup(&efx.s, 0, T(51), &rt_waiter, WAITING | LS_TASK_F_GRANTED, &idle_holder, 1,
		       NULL);
	stream__switch(&efx.s, 1, T(52), NULL, 0, false, &rt_waiter, WAITING | LS_TASK_F_GRANTED);
	stream__wait_end(&efx.s, 1, T(53), &rt_waiter, &lock, &end);
}

Test(task_cgroups, futex_owner_and_preemptor_get_told_cgroups)
{
	const struct ls_stall *st;

	futex_inversion(LS_FEAT_FUTEX | LS_FEAT_TASK_CGROUP);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert(st->task_cgroups);
	cr_assert_eq(st->waiter_cgroup_id, CG_WAITER);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_eq(st->holders[0].task.tid, idle_holder.tid);
	cr_assert_eq(st->holders[0].cgroup_id, CG_HOLDER);
	cr_assert_eq(st->holders[0].n_preempted_by, 1);
	cr_assert_eq(st->holders[0].preempted_by[0].task.tid, efx.hog.tid);
	cr_assert_eq(st->holders[0].preempted_by[0].cgroup_id, CG_HOG);
}

/* A recording made before the kernel side told them: the sinks print as they did. */
Test(task_cgroups, without_the_feature_the_stall_says_so)
{
	const struct ls_stall *st;

	futex_inversion(LS_FEAT_FUTEX);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_not(st->task_cgroups);
}

/* No TASK_CGROUP came (lost, or an older kernel side): unknown, not a guess. */
Test(task_cgroups, untold_is_unknown)
{
	struct ls_lock_id lock = stream__mm(0x55d0c0de1040ULL, 100, "app");
	struct stream_owner o = { .waiter = &rt_waiter, .owner = &idle_holder,
				  .cpu_curr = &efx.hog, .start = T(2), .owner_cpu = 0,
				  .state = LS_OWNER_RUNNABLE, .how = LS_OWNER_PTHREAD };
	struct stream_lock w = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				 .owner_tid = idle_holder.tid, .cgroup = CG_WAITER,
				 .flags = LS_LOCK_F_BEGIN_SENT };
	const struct ls_stall *st;

	lock.kind = LS_LOCK_FUTEX;
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_FUTEX | LS_FEAT_TASK_CGROUP);
	stream__owner(&efx.s, 1, T(2), &lock, &o);
	stream__switch(&efx.s, 1, T(3), &rt_waiter, WAITING, false, NULL, 0);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &idle_holder, OWNER);
	stream__wait_end(&efx.s, 1, T(53), &rt_waiter, &lock, &w);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].cgroup_id, 0);
	cr_assert_eq(st->holders[0].n_preempted_by, 1);
	cr_assert_eq(st->holders[0].preempted_by[0].cgroup_id, 0);
}

/*
 * An mmap_lock holder's cgroup is its HOLD record's (where it was when it
 * let go); the hog's comes from the table.  The hog moved to another
 * cgroup mid-wait: the newer id stands, and an older record that arrives
 * late (another CPU's) does not put the old one back.
 */
Test(task_cgroups, mmap_holder_keeps_its_own_preemptor_latest)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(49),
				 .cgroup = CG_HOLDER };
	const struct ls_stall *st;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_TASK_CGROUP);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	stream__task_cgroup(&efx.s, 0, T(1), &efx.holder, 777);
	stream__task_cgroup(&efx.s, 0, T(1), &efx.hog, CG_HOG);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__task_cgroup(&efx.s, 0, T(30), &efx.hog, CG_HOG_MOVED);
	stream__task_cgroup(&efx.s, 1, T(20), &efx.hog, CG_HOG);
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(51), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(53), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->holders[0].task.tid, efx.holder.tid);
	cr_assert_eq(st->holders[0].cgroup_id, CG_HOLDER, "the HOLD record's, not the table's");
	cr_assert_eq(st->holders[0].n_preempted_by, 1);
	cr_assert_eq(st->holders[0].preempted_by[0].cgroup_id, CG_HOG_MOVED);
}

/*
 * A full table: entries not told for a few resend periods make room; when
 * every entry is fresh, the new tid is left out and counted.
 */
Test(task_cgroups, table_stays_bounded)
{
	struct ls_task t = FX_NORMAL(0, 0, 0, "t");
	struct engine_debug dbg;
	struct ls_summary sum;
	__u32 i;

	for (i = 1; i <= ENGINE_MAX_TASK_CGROUPS; i++) {
		t.tid = t.tgid = i;
		stream__task_cgroup(&efx.s, 0, T(0), &t, 5000 + i);
	}
	/* every entry fresh: the next tid does not fit */
	t.tid = t.tgid = ENGINE_MAX_TASK_CGROUPS + 1;
	stream__task_cgroup(&efx.s, 0, T(1), &t, 42);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	engine__debug(efx.e, &dbg);
	engine__summary(efx.e, &sum);
	cr_assert_eq(dbg.task_cgroups, ENGINE_MAX_TASK_CGROUPS);
	cr_assert_eq(sum.evicted, 1);
	cr_assert_eq(task_cgroups__of(efx.e, ENGINE_MAX_TASK_CGROUPS + 1), 0);
	cr_assert_eq(task_cgroups__of(efx.e, 7), 5007);

	/* long after: the stale ones go, the newcomer stays */
	stream__clear(&efx.s);
	stream__task_cgroup(&efx.s, 0, T(1) + 10 * LS_TASK_CGROUP_RESEND_NS, &t, 42);
	cr_assert_eq(stream__feed(&efx.s, efx.e), 0);
	engine__debug(efx.e, &dbg);
	cr_assert_eq(dbg.task_cgroups, 1);
	cr_assert_eq(task_cgroups__of(efx.e, ENGINE_MAX_TASK_CGROUPS + 1), 42);
	cr_assert_eq(task_cgroups__of(efx.e, 7), 0);
}
