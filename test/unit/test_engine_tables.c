// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cause and lock kind tables: every value of the enums has a row with
 * a name of its own, and the rows say what the predicates read; a hop
 * of a chain that holds no lock names LS_LOCK_NONE.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>
#include "engine/engine.h"
#include "lib/engine_fixture.h"

Test(tables, every_cause_has_a_distinct_name)
{
	unsigned int i, j;

	for (i = 0; i < LS_CAUSE_N; i++) {
		cr_assert_not_null(ls_cause_row(i)->name, "cause %u", i);
		cr_assert_eq(ls_cause_row(i)->advice == NULL, i == LS_CAUSE_NONE, "cause %u", i);
		for (j = 0; j < i; j++)
			cr_assert_str_neq(ls_cause_name(i), ls_cause_name(j));
	}
	cr_assert_str_eq(ls_cause_name(LS_CAUSE_N), "none");
	cr_assert_null(ls_cause_row(LS_CAUSE_N)->advice);
}

Test(tables, every_lock_kind_has_a_distinct_name_and_a_place)
{
	unsigned int i, j;

	for (i = 0; i < LS_LOCK_KIND_N; i++) {
		cr_assert_not_null(ls_lock_kind(i)->name, "kind %u", i);
		cr_assert_not_null(ls_lock_kind(i)->short_name, "kind %u", i);
		cr_assert_neq(ls_lock_kind(i)->space, LS_LOCK_IN_NONE, "kind %u", i);
		for (j = 0; j < i; j++)
			cr_assert_str_neq(ls_lock_kind_name(i), ls_lock_kind_name(j));
	}
}

Test(tables, none_is_no_lock_of_any_space)
{
	cr_assert_str_eq(ls_lock_kind_name(LS_LOCK_NONE), "none");
	cr_assert_str_eq(ls_lock_kind_name(LS_LOCK_KIND_N), "unknown");
	cr_assert_not(ls_lock_is_user(LS_LOCK_NONE));
	cr_assert_not(ls_lock_is_kernel(LS_LOCK_NONE));
	cr_assert_not(ls_lock_is_kernel(LS_LOCK_KIND_N));
	cr_assert(ls_lock_is_user(LS_LOCK_FUTEX) && ls_lock_is_user(LS_LOCK_PI_FUTEX));
	cr_assert(ls_lock_is_kernel(LS_LOCK_MUTEX) && ls_lock_is_kernel(LS_LOCK_PERCPU_RWSEM));
	cr_assert_not(ls_lock_is_user(LS_LOCK_MMAP) || ls_lock_is_kernel(LS_LOCK_MMAP));
}

Test(tables, hops_without_a_lock_name_none, .init = fixture__setup, .fini = fixture__teardown)
{
	const struct ls_stall *st;
	unsigned int i;

	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(st->n_chain, 3);
	for (i = 0; i < st->n_chain; i++) {
		cr_assert_not(st->chain[i].has_lock, "hop %u", i);
		cr_assert_eq(st->chain[i].lock.kind, LS_LOCK_NONE, "hop %u", i);
	}
	cr_assert_eq(st->lock.kind, LS_LOCK_MMAP);
}

/*
 * Readers queue behind a waiting writer only on fair rwsems: there the
 * completed write waits are kept (bounded per lock); a futex keeps none,
 * so a busy pthread mutex drops nothing at the engine's bounds.
 */
struct writer_first_case {
	__u8 kind;
	bool evicts;
};

static struct writer_first_case writer_first_cases[] = {
	{ LS_LOCK_MMAP, true },
	{ LS_LOCK_RWSEM, true },
	{ LS_LOCK_FUTEX, false },
	{ LS_LOCK_MUTEX, false },
};

ParameterizedTestParameters(tables, write_waits_kept_where_readers_queue)
{
	return cr_make_param_array(struct writer_first_case, writer_first_cases,
				   sizeof(writer_first_cases) / sizeof(writer_first_cases[0]));
}

ParameterizedTest(struct writer_first_case *c, tables, write_waits_kept_where_readers_queue,
		  .init = fixture__setup, .fini = fixture__teardown)
{
	struct stream_lock l = { .write = true };
	struct ls_summary sum;
	unsigned int i;

	efx.mm.kind = c->kind;
	/* Twice a lock's bound of short waits, all within the engine's retention. */
	for (i = 0; i < 2 * 4096; i++) {
		l.start = T(0) + i * 1000ULL;
		stream__wait_end(&efx.s, 1, l.start + 500, &efx.waiter, &efx.mm, &l);
	}
	cr_assert_eq(fixture__run(), 0);
	engine__summary(efx.e, &sum);
	cr_assert_eq(sum.evicted > 0, c->evicts, "%s: %llu evicted",
		     ls_lock_kind_name(c->kind), (unsigned long long)sum.evicted);
}
