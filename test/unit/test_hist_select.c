// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/sinks/hist_select.c: which histograms every output shows.  A host that
 * starts "ps" in a loop gives one histogram per process; the outputs show
 * one per command name, the quiet ones counted, most total time first.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "unit/sink_fixture.h"
#include "sinks/sink_common.h"

#define US 1000ULL
#define MS (1000 * US)

/* An entry with one sample per slot given (slot i: [2^(i-1), 2^i) us), sum_ns as given. */
static void entry(struct ls_hist_entry *e, __u32 tgid, __u8 kind, __u8 write, const char *comm,
		  __u64 sum_ns, unsigned int last_slot)
{
	fx_hist(e, tgid, kind, write, comm, sum_ns);
	memset(e->hist.slots, 0, sizeof(e->hist.slots));
	e->hist.slots[0] = 2;
	e->hist.slots[last_slot] += 1;
	e->hist.count = last_slot ? 3 : 2;
}

static void set_of(struct ls_hist_set *set, struct ls_hist_entry *e, size_t n)
{
	memset(set, 0, sizeof(*set));
	set->v = e;
	set->n = n;
	set->alloc = n;
}

Test(hist_select, one_view_per_command_name_summed)
{
	struct sink_opts opts = { .top = 10 };
	struct ls_hist_entry e[6];
	struct ls_hist_set set;
	struct hist_sel sel;

	entry(&e[0], 101, LS_HIST_WAIT, 0, "bash", 2 * MS, 12);
	entry(&e[1], 102, LS_HIST_WAIT, 0, "bash", 5 * MS, 13);
	entry(&e[2], 103, LS_HIST_WAIT, 0, "bash", 1 * MS, 11);
	entry(&e[3], 200, LS_HIST_WAIT, 0, "ps", 3 * MS, 12);
	/* the same name in the other mode is another histogram */
	entry(&e[4], 104, LS_HIST_WAIT, 1, "bash", 4 * MS, 12);
	/* and another kind is another selection */
	entry(&e[5], 101, LS_HIST_HOLD, LS_HIST_ANY_MODE, "bash", 9 * MS, 14);
	set_of(&set, e, 6);

	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &sel), 0);
	cr_assert_eq(sel.n, 3);
	/* bash read: 8ms, bash write: 4ms, ps: 3ms */
	cr_assert_str_eq(sel.v[0].hist.comm, "bash");
	cr_assert_eq(sel.v[0].key.write, 0);
	cr_assert_eq(sel.v[0].processes, 3);
	cr_assert_eq(sel.v[0].hist.sum_ns, 8 * MS);
	cr_assert_eq(sel.v[0].hist.count, 9);
	cr_assert_eq(sel.v[0].hist.slots[0], 6);
	cr_assert_eq(sel.v[0].hist.slots[11] + sel.v[0].hist.slots[12] + sel.v[0].hist.slots[13], 3);
	/* most time first, and key.tgid is the process with most time */
	cr_assert_eq(sel.v[0].n_pids, 3);
	cr_assert_eq(sel.v[0].pids[0], 102);
	cr_assert_eq(sel.v[0].pids[1], 101);
	cr_assert_eq(sel.v[0].pids[2], 103);
	cr_assert_eq(sel.v[0].key.tgid, 102);
	cr_assert_eq(sel.v[1].key.write, 1);
	cr_assert_eq(sel.v[1].processes, 1);
	cr_assert_str_eq(sel.v[2].hist.comm, "ps");
	cr_assert_eq(sel.n_more + sel.n_quiet, 0);
	hist_sel__release(&sel);

	opts.per_pid = true;
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &sel), 0);
	cr_assert_eq(sel.n, 5);
	cr_assert_eq(sel.v[0].key.tgid, 102);
	cr_assert_eq(sel.v[0].processes, 1);
	for (size_t i = 0; i < sel.n; i++)
		cr_assert_eq(sel.v[i].n_pids, 1);
	hist_sel__release(&sel);
}

/* A churn of thousands of processes: all counted, a bounded number listed. */
Test(hist_select, pids_listed_are_bounded)
{
	enum { N = 3 * 32 };
	struct sink_opts opts = { 0 };
	struct ls_hist_entry e[N];
	struct ls_hist_set set;
	struct hist_sel sel;
	unsigned int i;

	for (i = 0; i < N; i++)
		entry(&e[i], 1000 + i, LS_HIST_WAIT, 0, "ps", (i + 1) * US, 3);
	set_of(&set, e, N);
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &sel), 0);
	cr_assert_eq(sel.n, 1);
	cr_assert_eq(sel.v[0].processes, N);
	cr_assert_eq(sel.v[0].n_pids, HIST_VIEW_PIDS);
	cr_assert_eq(sel.v[0].pids[0], 1000 + N - 1);
	cr_assert_eq(sel.v[0].hist.count, 3 * N);
	hist_sel__release(&sel);
}

/* A name with bytes after its NUL, or 16 bytes without one, still groups by its text. */
Test(hist_select, names_compare_as_the_kernel_gives_them)
{
	struct sink_opts opts = { 0 };
	struct ls_hist_entry e[4];
	struct ls_hist_set set;
	struct hist_sel sel;

	entry(&e[0], 1, LS_HIST_WAIT, 0, "x", 2 * MS, 12);
	entry(&e[1], 2, LS_HIST_WAIT, 0, "x", 1 * MS, 12);
	e[1].hist.comm[5] = 'z';	/* after the NUL */
	entry(&e[2], 3, LS_HIST_WAIT, 0, "", 1 * MS, 12);
	memset(e[2].hist.comm, 'a', LS_COMM_LEN);
	entry(&e[3], 4, LS_HIST_WAIT, 0, "", 1 * MS, 12);
	memset(e[3].hist.comm, 'a', LS_COMM_LEN);
	set_of(&set, e, 4);
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &sel), 0);
	cr_assert_eq(sel.n, 2);
	cr_assert_eq(sel.v[0].processes, 2);
	cr_assert_eq(sel.v[1].processes, 2);
	hist_sel__release(&sel);
}

struct floor_case {
	unsigned int last_slot;	/* the longest sample's slot */
	__u64 min_ns;
	bool shown;
};

/* Shown when the longest slot may hold a sample of min_ns or more; the last slot has no bound. */
ParameterizedTestParameters(hist_select, floor)
{
	static struct floor_case cases[] = {
		{ 0, 0, true },			/* 0: every histogram */
		{ 0, 1 * US, false },		/* [0, 1us) */
		{ 1, 1 * US, true },		/* [1us, 2us) */
		{ 9, 1 * MS, false },		/* [256us, 512us) */
		{ 10, 1 * MS, true },		/* [512us, 1.024ms): may hold a 1ms wait */
		{ 11, 1 * MS, true },
		{ 13, 10 * MS, false },		/* [4.096ms, 8.192ms) */
		{ 14, 10 * MS, true },
		{ LS_HIST_SLOTS - 1, ~0ULL, true },
	};

	return cr_make_param_array(struct floor_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct floor_case *c, hist_select, floor)
{
	struct sink_opts opts = { .hist_min_ns = c->min_ns };
	struct ls_hist_entry e;
	struct ls_hist_set set;
	struct hist_sel sel;

	entry(&e, 7, LS_HIST_WAIT, 1, "app", 5 * US, c->last_slot);
	set_of(&set, &e, 1);
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &sel), 0);
	cr_assert_eq(sel.n, c->shown ? 1 : 0, "slot %u, min %llu", c->last_slot,
		     (unsigned long long)c->min_ns);
	cr_assert_eq(sel.n_quiet, c->shown ? 0 : 1);
	cr_assert_not(sel.no_wait);
	hist_sel__release(&sel);
}

/* The floor looks at the view: one process of the name reaching it shows the name's sum. */
Test(hist_select, floor_applies_to_the_sum)
{
	struct sink_opts opts = { .hist_min_ns = 1 * MS };
	struct ls_hist_entry e[3];
	struct ls_hist_set set;
	struct hist_sel sel;

	entry(&e[0], 1, LS_HIST_WAIT, 0, "bash", 10 * US, 3);
	entry(&e[1], 2, LS_HIST_WAIT, 0, "bash", 3 * MS, 12);
	entry(&e[2], 3, LS_HIST_WAIT, 0, "ps", 20 * US, 4);
	set_of(&set, e, 3);
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &sel), 0);
	cr_assert_eq(sel.n, 1);
	cr_assert_eq(sel.v[0].processes, 2);
	cr_assert_eq(sel.n_quiet, 1);
	hist_sel__release(&sel);

	opts.per_pid = true;
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &sel), 0);
	cr_assert_eq(sel.n, 1);
	cr_assert_eq(sel.v[0].key.tgid, 2);
	cr_assert_eq(sel.n_quiet, 2);
	hist_sel__release(&sel);
}

/* Holds only matter when someone waited: with no wait at the floor, none is shown. */
Test(hist_select, holds_hidden_without_a_wait_at_the_floor)
{
	struct sink_opts opts = { .top = 10, .hist_min_ns = 1 * MS };
	struct ls_hist_entry e[4];
	struct ls_hist_set set;
	struct hist_sel sel;

	entry(&e[0], 1, LS_HIST_WAIT, 0, "bash", 10 * US, 3);
	entry(&e[1], 1, LS_HIST_HOLD, LS_HIST_ANY_MODE, "bash", 30 * MS, 15);
	entry(&e[2], 2, LS_HIST_HOLD, LS_HIST_ANY_MODE, "bash", 20 * MS, 15);
	entry(&e[3], 3, LS_HIST_OFFCPU, LS_HIST_ANY_MODE, "cc", 20 * MS, 15);
	set_of(&set, e, 4);
	cr_assert_eq(hist__select(&set, LS_HIST_HOLD, &opts, &sel), 0);
	cr_assert_eq(sel.n, 0);
	cr_assert(sel.no_wait);
	cr_assert_eq(sel.n_quiet, 1, "one view (bash), not two processes");
	hist_sel__release(&sel);

	/* a wait of another process at the floor: the holds are worth a look */
	e[0].hist.slots[12] = 1;
	cr_assert_eq(hist__select(&set, LS_HIST_HOLD, &opts, &sel), 0);
	cr_assert_eq(sel.n, 1);
	cr_assert_not(sel.no_wait);
	cr_assert_eq(sel.v[0].processes, 2);
	hist_sel__release(&sel);

	/* -p of a holder that never waited: another process's wait still counts */
	opts.filter_pid = 3;
	cr_assert_eq(hist__select(&set, LS_HIST_OFFCPU, &opts, &sel), 0);
	cr_assert_eq(sel.n, 1);
	cr_assert_eq(sel.v[0].key.tgid, 3);
	cr_assert_not(sel.no_wait);
	hist_sel__release(&sel);
}

/* The order is the totals', never the set's: reversed input, same views. */
Test(hist_select, order_and_top_do_not_depend_on_input_order)
{
	struct sink_opts opts = { .top = 2 };
	struct ls_hist_entry e[5], r[5];
	struct ls_hist_set set;
	struct hist_sel a, b;
	unsigned int i;

	entry(&e[0], 1, LS_HIST_WAIT, 0, "a", 5 * MS, 12);
	entry(&e[1], 2, LS_HIST_WAIT, 0, "b", 5 * MS, 12);
	entry(&e[2], 3, LS_HIST_WAIT, 0, "c", 9 * MS, 12);
	entry(&e[3], 4, LS_HIST_WAIT, 0, "a", 1 * MS, 12);
	entry(&e[4], 5, LS_HIST_WAIT, 0, "d", 1 * MS, 12);
	for (i = 0; i < 5; i++)
		r[i] = e[4 - i];
	set_of(&set, e, 5);
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &a), 0);
	set_of(&set, r, 5);
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &b), 0);
	cr_assert_eq(a.n, 2);
	cr_assert_eq(a.n_more, 2);
	cr_assert_eq(b.n, 2);
	cr_assert_eq(b.n_more, 2);
	/* c 9ms; a 6ms (two processes); b 5ms and d 1ms cut */
	for (i = 0; i < 2; i++) {
		cr_assert_str_eq(a.v[i].hist.comm, b.v[i].hist.comm);
		cr_assert_eq(a.v[i].key.tgid, b.v[i].key.tgid);
	}
	cr_assert_str_eq(a.v[0].hist.comm, "c");
	cr_assert_str_eq(a.v[1].hist.comm, "a");
	hist_sel__release(&a);
	hist_sel__release(&b);
}

Test(hist_select, empty_and_no_time)
{
	struct sink_opts opts = { .hist_min_ns = 1 * MS };
	struct ls_hist_entry e;
	struct ls_hist_set set;
	struct hist_sel sel;

	set_of(&set, NULL, 0);
	cr_assert_eq(hist__select(&set, LS_HIST_HOLD, &opts, &sel), 0);
	cr_assert_eq(sel.n + sel.n_quiet + sel.n_more, 0);
	hist_sel__release(&sel);
	/* no time in it: not even counted as quiet */
	entry(&e, 1, LS_HIST_OFFCPU, LS_HIST_ANY_MODE, "x", 0, 3);
	set_of(&set, &e, 1);
	opts.hist_min_ns = 0;
	cr_assert_eq(hist__select(&set, LS_HIST_OFFCPU, &opts, &sel), 0);
	cr_assert_eq(sel.n + sel.n_quiet + sel.n_more, 0);
	hist_sel__release(&sel);
}

/* The engine's sum of a name's exited processes (procs) counts as that many, with no pid listed. */
Test(hist_select, exited_processes_count_in_their_name)
{
	struct sink_opts opts = { 0 };
	struct ls_hist_entry e[3];
	struct ls_hist_set set;
	struct hist_sel sel;

	entry(&e[0], 0, LS_HIST_WAIT, 0, "ps", 9 * MS, 12);
	e[0].procs = 40;
	entry(&e[1], 77, LS_HIST_WAIT, 0, "ps", 1 * MS, 12);
	entry(&e[2], 0, LS_HIST_WAIT, 0, "cc1", 5 * MS, 12);
	e[2].procs = 3;
	set_of(&set, e, 3);
	cr_assert_eq(hist__select(&set, LS_HIST_WAIT, &opts, &sel), 0);
	cr_assert_eq(sel.n, 2);
	cr_assert_str_eq(sel.v[0].hist.comm, "ps");
	cr_assert_eq(sel.v[0].processes, 41);
	cr_assert_eq(sel.v[0].exited, 40);
	cr_assert_eq(sel.v[0].n_pids, 1);
	cr_assert_eq(sel.v[0].key.tgid, 77, "the live process, not the sum's 0");
	cr_assert_eq(sel.v[1].processes, 3);
	cr_assert_eq(sel.v[1].exited, 3);
	cr_assert_eq(sel.v[1].n_pids, 0);
	hist_sel__release(&sel);
}
