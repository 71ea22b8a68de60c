// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A holder's off-CPU spells inside the lock wait (struct ls_spell): the
 * timeline the HTML and Perfetto reports draw, with who ran instead.
 */
#include <criterion/criterion.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"

#define HOLDING LS_TASK_F_HOLDING

TestSuite(spells, .init = fixture__setup, .fini = fixture__teardown);

static void assert_spell(const struct ls_holder *h, unsigned int i, __u64 start, __u64 end,
			 enum ls_holder_state state, __u32 ran_instead)
{
	const struct ls_spell *sp;

	cr_assert_lt(i, h->n_spells, "spell %u missing (%u spells)", i, h->n_spells);
	sp = &h->spells[i];
	cr_assert_eq(sp->start_ns, start, "spell %u: start %llu", i, (unsigned long long)sp->start_ns);
	cr_assert_eq(sp->end_ns, end, "spell %u: end %llu", i, (unsigned long long)sp->end_ns);
	cr_assert_eq(sp->state, state, "spell %u: state %s", i, ls_state_name(sp->state));
	cr_assert_eq(sp->ran_instead.tid, ran_instead, "spell %u: ran instead %u", i,
		     sp->ran_instead.tid);
}

/* The classic inversion: one preempted spell, clipped to the wait, hog ran. */
Test(spells, one_preempted_spell_clipped_to_the_wait)
{
	const struct ls_holder *h;

	scenario__preempted_holder(&efx.holder, false, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	h = &fixture__stall(0)->holders[0];
	cr_assert_eq(h->n_spells, 1);
	cr_assert_eq(h->n_spells_dropped, 0);
	assert_spell(h, 0, T(2), T(50), LS_STATE_PREEMPTED, efx.hog.tid);
}

/*
 * Preempted by hog, then by hog2, then asleep: three spells in order, each
 * naming who ran in it alone (the totals name hog2 first: it ran longer).
 */
Test(spells, each_spell_names_its_own_runner)
{
	static const struct ls_task hog2 = FX_NORMAL(201, 201, -5, "hog2");
	struct stream_lock hold = { .start = T(0), .acquired = T(0), .write = true };
	const struct ls_holder *h;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(10), &efx.hog, 0, true, &efx.holder, HOLDING);
	stream__switch(&efx.s, 0, T(15), &efx.holder, HOLDING, true, &hog2, 0);
	stream__switch(&efx.s, 0, T(30), &hog2, 0, true, &efx.holder, HOLDING);
	stream__switch(&efx.s, 0, T(32), &efx.holder, HOLDING, false, NULL, 0);
	stream__wakeup(&efx.s, 0, T(40), &efx.holder, HOLDING, NULL, 0, NULL);
	stream__switch(&efx.s, 0, T(40), NULL, 0, false, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &hold);
	scenario__wait_end(&efx.waiter, true, T(2), T(48), &efx.holder);
	cr_assert_eq(fixture__run(), 0);

	h = &fixture__stall(0)->holders[0];
	cr_assert_eq(h->task.tid, efx.holder.tid);
	cr_assert_eq(h->n_spells, 3, "%u spells", h->n_spells);
	assert_spell(h, 0, T(2), T(10), LS_STATE_PREEMPTED, efx.hog.tid);
	assert_spell(h, 1, T(15), T(30), LS_STATE_PREEMPTED, hog2.tid);
	assert_spell(h, 2, T(32), T(40), LS_STATE_BLOCKED, 0);
	cr_assert_eq(h->preempted_by[0].task.tid, hog2.tid);
	cr_assert_eq(h->offcpu_ns, MS(8 + 15 + 8));
}

/*
 * A holder preempted n times in one hold, 1 ms each: the stall it causes
 * (returned for the checks); the wait covers the whole hold.
 */
static const struct ls_stall *hold_with_spells(unsigned int n)
{
	struct stream_lock hold = { .start = T(0), .acquired = T(0), .write = true };
	unsigned int i;

	stream__switch(&efx.s, 0, T(1), &efx.holder, HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(1.5));
	for (i = 0; i < n; i++) {
		stream__switch(&efx.s, 0, T(2 + 2 * i), &efx.hog, 0, true, &efx.holder, HOLDING);
		stream__switch(&efx.s, 0, T(3 + 2 * i), &efx.holder, HOLDING, true, &efx.hog, 0);
	}
	stream__switch(&efx.s, 0, T(2 + 2 * n), &efx.hog, 0, true, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(3 + 2 * n), &efx.holder, &efx.mm, &hold);
	scenario__wait_end(&efx.waiter, true, T(1.5), T(5 + 2 * n), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	return fixture__stall(0);
}

/* More spells than LS_MAX_SPELLS: the first kept, the rest counted, totals whole. */
Test(spells, bounded_and_counted)
{
	unsigned int n = LS_MAX_SPELLS + 4;
	const struct ls_holder *h = &hold_with_spells(n)->holders[0];

	cr_assert_eq(h->n_spells, LS_MAX_SPELLS);
	cr_assert_eq(h->n_spells_dropped, n + 1 - LS_MAX_SPELLS);
	assert_spell(h, 0, T(1.5), T(2), LS_STATE_PREEMPTED, efx.hog.tid);
	assert_spell(h, 1, T(3), T(4), LS_STATE_PREEMPTED, efx.hog.tid);
	cr_assert_eq(h->offcpu_ns, MS(0.5) + n * MS(1));
}

/*
 * A holder off CPU hundreds of times in one hold (a reader of
 * /proc/PID/environ sleeps once a page): every spell is kept while the hold
 * may need it, nothing is evicted, nothing warns.
 */
Test(spells, a_busy_hold_keeps_all_its_spells)
{
	const unsigned int n = 3 * ENGINE_SPELL_RING;
	const struct ls_stall *st = hold_with_spells(n);

	cr_assert_eq(st->holders[0].offcpu_ns, MS(0.5) + n * MS(1), "spells lost");
	cr_assert(!st->history_short);
	cr_assert_eq(efx.cs->summary.evicted, 0);
	cr_assert_eq(efx.cs->summary.stalls_short, 0);
}

/* Past ENGINE_SPELL_RING_MAX the oldest go, and the stall that needed them says so. */
Test(spells, overwritten_spells_mark_the_stall)
{
	const unsigned int n = ENGINE_SPELL_RING_MAX + 64;
	const struct ls_stall *st = hold_with_spells(n);
	struct engine_debug d;

	engine__debug(efx.e, &d);
	cr_assert_leq(d.spells, ENGINE_SPELL_RING_MAX);
	cr_assert(st->history_short, "the stall does not say it lost spells");
	cr_assert_eq(efx.cs->summary.stalls_short, 1);
	cr_assert_lt(st->holders[0].offcpu_ns, MS(0.5) + n * MS(1));
}

/* Spells overwritten in an earlier hold do not mark a later stall. */
Test(spells, old_overwritten_spells_do_not_mark_later_stalls)
{
	struct stream_lock hold = { .start = T(20000), .acquired = T(20000), .write = true };
	const struct ls_stall *st;

	hold_with_spells(ENGINE_SPELL_RING_MAX + 64);
	stream__clear(&efx.s);
	stream__switch(&efx.s, 0, T(20001), &efx.holder, HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(20001.5));
	stream__switch(&efx.s, 0, T(20030), &efx.hog, 0, true, &efx.holder, HOLDING);
	stream__hold(&efx.s, 0, T(20031), &efx.holder, &efx.mm, &hold);
	scenario__wait_end(&efx.waiter, true, T(20001.5), T(20033), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);
	st = fixture__stall(1);
	cr_assert(!st->history_short);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(28.5));
}
