// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cause and lock kind tables: every value of the enums has a row with
 * a name of its own, and the rows say what the predicates read; a hop
 * of a chain that holds no lock names LS_LOCK_NONE.
 */
#include <criterion/criterion.h>
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
