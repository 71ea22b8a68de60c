// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The runnable and steal causes from synthetic streams:
 *  - runnable: a holder off CPU runnable and pinned (LS_CAUSE_F_PINNED on
 *    its SWITCH) whose switch-in brings a RUNNABLE record: CPUs it may not
 *    use idled in the spell.  Only what surely fell inside the wait counts,
 *    and nothing without the record (never guessed);
 *  - steal: a holder's switch-out with LS_CAUSE_F_STEAL and a STEAL record
 *    after it: its CPU was stolen in the stretch on CPU before.
 */
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "lib/engine_fixture.h"

TestSuite(cpu_time, .init = fixture__setup, .fini = fixture__teardown);

#define CPU_ALLOWED	0x1ULL	/* the holder may run on CPU 0 only ... */
#define CPU_IDLE	0x2ULL	/* ... while CPU 1 idles */

/*
 * The holder, holding since T(0), goes off CPU 0 runnable at T(1) with
 * cause; the hog runs until T(40), when the holder switches in again (after
 * a RUNNABLE saying CPU 1 idled idle_ms of the spell, if idle_ms); it
 * releases at T(45).  The waiter waits T(2)..T(47).
 */
static void scenario__pinned(__u8 cause, double idle_ms)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	stream__cause(&efx.s, cause);
	scenario__wait_begin(&efx.waiter, true, T(2));
	if (idle_ms > 0)
		stream__runnable(&efx.s, 0, T(40), &efx.holder, T(1), CPU_ALLOWED, 1, 2, CPU_IDLE,
				 MS(idle_ms));
	stream__switch(&efx.s, 0, T(40), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
}

static const struct ls_stall *run_one(void)
{
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	return fixture__stall(0);
}

struct pinned_case {
	__u8 cause;		/* on the holder's switch-out */
	double idle_ms;		/* the RUNNABLE's idle time; 0: none sent */
	double told_ms;		/* cause_ns[RUNNABLE] */
	enum ls_cause named;
};

/*
 * The spell is T(1)..T(40), 39 ms, of which T(2)..T(40) is inside the wait:
 * of idle time anywhere in it, all but 1 ms surely fell inside.
 */
ParameterizedTestParameters(cpu_time, pinned)
{
	static struct pinned_case cases[] = {
		{ LS_CAUSE_F_PINNED, 30, 29, LS_CAUSE_RUNNABLE },
		{ LS_CAUSE_F_PINNED, 39, 38, LS_CAUSE_RUNNABLE },	/* idle the whole spell */
		{ LS_CAUSE_F_PINNED, 1, 0, LS_CAUSE_NONE },	/* may have been before the wait */
		{ LS_CAUSE_F_PINNED, 5, 4, LS_CAUSE_NONE },	/* too little to name */
		{ LS_CAUSE_F_PINNED, 0, 0, LS_CAUSE_NONE },	/* no word of idle CPUs: no guess */
		{ 0, 30, 0, LS_CAUSE_NONE },	/* not pinned at its switch-out: the record is stray */
	};

	return cr_make_param_array(struct pinned_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct pinned_case *c, cpu_time, pinned)
{
	const struct ls_stall *st;
	const struct ls_holder *h;

	scenario__pinned(c->cause, c->idle_ms);
	st = run_one();
	h = &st->holders[0];
	cr_assert_eq(h->state, LS_STATE_PREEMPTED, "the state stays");
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(38));
	cr_assert_eq(h->cause_ns[LS_CAUSE_RUNNABLE], MS(c->told_ms), "told %llu",
		     (unsigned long long)h->cause_ns[LS_CAUSE_RUNNABLE]);
	cr_assert_eq(st->cause, c->named, "cause %s", ls_cause_name(st->cause));
	if (!c->told_ms) {
		cr_assert_eq(h->pinned.nr_cpus, 0, "no CPUs named without the cause");
		return;
	}
	cr_assert_eq(h->pinned.allowed, CPU_ALLOWED);
	cr_assert_eq(h->pinned.idle_cpus, CPU_IDLE);
	cr_assert_eq(h->pinned.nr_cpus_allowed, 1);
	cr_assert_eq(h->pinned.nr_cpus, 2);
	if (c->named == LS_CAUSE_RUNNABLE) {
		cr_assert_str_eq(ls_cause_name(st->cause), "runnable");
		cr_assert(strstr(st->advice, "affinity"), "advice: %s", st->advice);
		cr_assert_eq(efx.cs->summary.stalls_by_cause[LS_CAUSE_RUNNABLE], 1);
	}
}

/*
 * A pinned holder woken at T(1) on CPU 0, migrated at T(10) to CPU 1 (its
 * spell splits), switched in at T(40): of 30 ms idle in the kernel's
 * T(1)..T(40), only what surely fell in the spell still open counts.
 */
Test(cpu_time, pinned_spell_split_by_migration)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };
	const struct ls_holder *hd;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(0.5), &efx.holder, LS_TASK_F_HOLDING, false, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(0.6));
	stream__wakeup(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, &efx.hog, 0, &efx.hog);
	stream__cause(&efx.s, LS_CAUSE_F_PINNED);
	stream__migrate(&efx.s, 1, T(10), &efx.holder, LS_TASK_F_HOLDING, 0, 1, &efx.hog);
	stream__runnable(&efx.s, 1, T(40), &efx.holder, T(1), 0x3, 2, 4, 0x4, MS(30));
	stream__switch(&efx.s, 1, T(40), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 1, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(0.6), T(47), &efx.holder);
	hd = &run_one()->holders[0];
	/* 39 ms in the kernel's spell, 30 in the open one: 9 of the 30 may lie before. */
	cr_assert_eq(hd->cause_ns[LS_CAUSE_RUNNABLE], MS(21), "told %llu",
		     (unsigned long long)hd->cause_ns[LS_CAUSE_RUNNABLE]);
	cr_assert_eq(hd->pinned.allowed, 0x3);
	cr_assert_eq(hd->pinned.nr_cpus, 4);
}

/*
 * Pinned and throttled at once: the holder goes off at T(1) with its cgroup
 * out of quota, the UNTHROTTLE says the quota held it 30 ms, and CPU 1 idled
 * the whole spell.  Only the run-queue wait after the refill, T(31)..T(40),
 * can be the pinning's: the quota held it on every CPU.
 */
Test(cpu_time, throttled_is_not_pinned)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(39), .write = true };
	const struct ls_stall *st;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__throttle(&efx.s, 0, T(1), &efx.holder, "/batch", 0, MS(10), MS(100));
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, NULL, 0);
	stream__cause(&efx.s, LS_CAUSE_F_THROTTLED | LS_CAUSE_F_PINNED);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__unthrottle(&efx.s, 0, T(40), &efx.holder, MS(30));
	stream__runnable(&efx.s, 0, T(40), &efx.holder, T(1), CPU_ALLOWED, 1, 2, CPU_IDLE, MS(39));
	stream__switch(&efx.s, 0, T(40), NULL, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	st = run_one();
	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_THROTTLED], MS(29));
	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_RUNNABLE], MS(9), "told %llu",
		     (unsigned long long)st->holders[0].cause_ns[LS_CAUSE_RUNNABLE]);
	cr_assert_eq(st->cause, LS_CAUSE_THROTTLED, "cause %s", ls_cause_name(st->cause));
}

/*
 * The holder runs T(0)..T(20) on CPU 0 (switched in at T(0)), goes off
 * runnable with STEAL and a STEAL record (steal_ms of the 20 ms), runs again
 * T(25)..T(45).  The waiter waits T(2)..T(47): 18 of the 20 ms inside.
 */
static const struct ls_stall *scenario__stolen(__u8 cause, double steal_ms)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(5), .write = true };

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(0), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(20), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	stream__cause(&efx.s, cause);
	stream__steal(&efx.s, 0, T(20), &efx.holder, MS(20), MS(steal_ms));
	stream__switch(&efx.s, 0, T(25), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(47), &efx.holder);
	return run_one();
}

Test(cpu_time, steal_is_the_cause)
{
	const struct ls_stall *st = scenario__stolen(LS_CAUSE_F_STEAL, 18);
	const struct ls_holder *h = &st->holders[0];

	/* 18 ms stolen of 20, of which 2 lie before the wait */
	cr_assert_eq(h->cause_ns[LS_CAUSE_STEAL], MS(16));
	cr_assert_eq(h->offcpu_by_state[LS_STATE_PREEMPTED], MS(5), "steal is no off-CPU time");
	cr_assert_eq(st->cause, LS_CAUSE_STEAL);
	cr_assert_str_eq(ls_cause_name(st->cause), "steal");
	cr_assert(strstr(st->advice, "hypervisor"), "advice: %s", st->advice);
	cr_assert_eq(efx.cs->summary.stalls_by_cause[LS_CAUSE_STEAL], 1);
}

/* A STEAL its SWITCH did not announce is stray: nothing told. */
Test(cpu_time, steal_without_the_flag_is_ignored)
{
	const struct ls_stall *st = scenario__stolen(0, 18);

	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_STEAL], 0);
	cr_assert_eq(st->cause, LS_CAUSE_NONE);
}

/* Little steal: told, but not the stall's cause. */
Test(cpu_time, little_steal_is_told_not_named)
{
	const struct ls_stall *st = scenario__stolen(LS_CAUSE_F_STEAL, 3);

	cr_assert_eq(st->holders[0].cause_ns[LS_CAUSE_STEAL], MS(1));
	cr_assert_eq(st->cause, LS_CAUSE_NONE);
}

/*
 * A RUNNABLE is sent at the holder's switch-in, with or without the SWITCH
 * that closes its spell: the holder, off pinned T(1)..T(5), then runs (no
 * SWITCH told) until T(30), off again runnable until T(40).  The waiter
 * waits T(20)..T(47): only T(30)..T(40) was the holder's off-CPU time in
 * it, and the first spell's idle CPUs are not lent to the second.
 */
Test(cpu_time, runnable_closes_its_spell)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(14), .write = true };
	const struct ls_holder *hd;
	const struct ls_stall *st;

	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_CAUSES);
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	stream__cause(&efx.s, LS_CAUSE_F_PINNED);
	stream__runnable(&efx.s, 0, T(5), &efx.holder, T(1), CPU_ALLOWED, 1, 2, CPU_IDLE, MS(4));
	scenario__wait_begin(&efx.waiter, true, T(20));
	stream__switch(&efx.s, 0, T(30), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	stream__switch(&efx.s, 0, T(40), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(20), T(47), &efx.holder);
	st = run_one();
	hd = &st->holders[0];
	cr_assert_eq(hd->offcpu_by_state[LS_STATE_PREEMPTED], MS(10), "off %llu",
		     (unsigned long long)hd->offcpu_by_state[LS_STATE_PREEMPTED]);
	cr_assert_eq(hd->cause_ns[LS_CAUSE_RUNNABLE], 0);
	cr_assert_eq(hd->pinned.nr_cpus, 0, "no CPUs named from the spell before");
	cr_assert_neq(st->cause, LS_CAUSE_RUNNABLE);
}
