// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fleet model (src/sinks/fleet_model.c, fleet_merge.c) fed per-host
 * summaries made here: rankings with their host counts, rows per host,
 * recordings of one boot that overlap, histograms that add up, the worst
 * stalls; and the order the recordings come in changes nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "sinks/fleet.h"

#define MS	1000000ULL

static struct fleet fl;

static void setup(void)
{
	fleet__init(&fl);
}

static void teardown(void)
{
	fleet__free(&fl);
}

TestSuite(fleet_model, .init = setup, .fini = teardown);

/* A recording of host, boot (NULL: none), spanning [start, end] ms, its clock offset. */
static struct fleet_rec *rec(const char *host, const char *boot, __u64 start_ms, __u64 end_ms,
			     long long offset_ns)
{
	static unsigned int n;
	struct fleet_rec *r;
	char file[64];

	snprintf(file, sizeof(file), "%s-%u.lst", host, n++);
	r = fleet_rec__new(file);
	cr_assert(r);
	fleet_rec__meta(r, "host", host);
	if (boot)
		fleet_rec__meta(r, "boot_id", boot);
	fleet_rec__meta(r, "kernel.release", "6.18.0");
	fleet_rec__meta(r, "lockstall.version", "1.0");
	r->start_ns = start_ms * MS;
	r->end_ns = end_ms * MS;
	r->has_clock = true;
	r->offset_ns = offset_ns;
	return r;
}

/* The cgroups the stalls name, by id (index + 1), as a recording's end keeps them. */
static const char *const cgroup_paths[] = {
	"/system.slice/db.service", "/system.slice/secd.service", "/system.slice/backup.service",
};

static const char *cgroup_path(void *ctx, __u64 id)
{
	return id && id <= ARRAY_SIZE(cgroup_paths) ? cgroup_paths[id - 1] : NULL;
}

static __u64 cgroup_id(const char *path)
{
	size_t i;

	for (i = 0; path && i < ARRAY_SIZE(cgroup_paths); i++) {
		if (!strcmp(cgroup_paths[i], path))
			return i + 1;
	}
	return 0;
}

/* A final stall of waiter (tid) behind holder (NULL: none) in holder_cg. */
static void stall(struct fleet_rec *r, __u32 tid, __u64 start_ms, __u64 wait_ms, const char *waiter,
		  const char *holder, const char *holder_cg)
{
	struct ls_holder h;
	struct ls_stall st;

	memset(&st, 0, sizeof(st));
	memset(&h, 0, sizeof(h));
	st.seq = 1;
	st.start_ns = start_ms * MS;
	st.lock_wait_ns = wait_ms * MS;
	st.wait_ns = wait_ms * MS;
	st.end_ns = st.start_ns + st.wait_ns;
	st.waiter.tid = tid;
	st.waiter.tgid = tid;
	memcpy(st.waiter.comm, waiter, strnlen(waiter, sizeof(st.waiter.comm)));
	st.waiter_cgroup_id = cgroup_id("/system.slice/db.service");
	st.verdict = LS_VERDICT_PRIORITY_INVERSION;
	if (holder) {
		h.task.tid = 900;
		h.task.tgid = 900;
		memcpy(h.task.comm, holder, strnlen(holder, sizeof(h.task.comm)));
		h.cgroup_id = cgroup_id(holder_cg);
		st.holders = &h;
		st.n_holders = 1;
	}
	cr_assert_eq(fleet_rec__stall(r, &st), 0);
}

/* A wait histogram of comm with count samples in slot. */
static void hist(struct fleet_rec *r, const char *comm, unsigned int slot, __u64 count)
{
	struct ls_hist_entry e;
	struct ls_hist_set set = { .v = &e, .n = 1 };
	struct ls_summary sum = { .start_ns = r->start_ns, .end_ns = r->end_ns, .hists = &set };
	__u64 start = r->start_ns, end = r->end_ns;

	memset(&e, 0, sizeof(e));
	e.key.kind = LS_HIST_WAIT;
	e.key.write = 1;
	memcpy(e.hist.comm, comm, strnlen(comm, sizeof(e.hist.comm)));
	e.hist.count = count;
	e.hist.sum_ns = count * MS;
	e.hist.slots[slot] = count;
	cr_assert_eq(fleet_rec__summary(r, &sum), 0);
	r->start_ns = start;
	r->end_ns = end;
}

static void add(struct fleet_rec *r)
{
	cr_assert_eq(fleet_rec__cgroup_paths(r, cgroup_path, NULL), 0);
	cr_assert_eq(fleet__add(&fl, r), 0);
}

static const struct fleet_rank *find(const struct fleet_ranks *rk, const char *name)
{
	size_t i;

	for (i = 0; i < rk->n; i++) {
		if (!strcmp(rk->v[i].name, name))
			return &rk->v[i];
	}
	return NULL;
}

Test(fleet_model, culprit_ranked_by_time_with_its_hosts)
{
	struct fleet_rec *a = rec("web-1", "b1", 0, 1000, 0), *b = rec("web-2", "b2", 0, 1000, 0);
	struct fleet_rec *c = rec("web-3", "b3", 0, 1000, 0);

	stall(a, 10, 100, 100, "postgres", "secd", "/system.slice/secd.service");
	stall(b, 10, 100, 50, "postgres", "secd", "/system.slice/secd.service");
	stall(c, 10, 100, 120, "nginx", "backup", "/system.slice/backup.service");
	add(a);
	add(b);
	add(c);
	cr_assert_eq(fleet__merge(&fl), 0);
	cr_assert_eq(fl.n_rows, 3);
	cr_assert_eq(fl.stalls, 3);
	cr_assert_eq(fl.culprits.n, 2, "%zu %s", fl.culprits.n, fl.culprits.n ? fl.culprits.v[0].name : "");
	cr_assert_str_eq(fl.culprits.v[0].name, "secd");
	cr_assert_eq(fl.culprits.v[0].ns, 150 * MS);
	cr_assert_eq(fl.culprits.v[0].hosts, 2);
	cr_assert_eq(fl.culprits.v[0].stalls, 2);
	cr_assert_str_eq(fl.culprits.v[1].name, "backup");
	cr_assert_eq(fl.culprits.v[1].hosts, 1);
	cr_assert_str_eq(fl.culprit_services.v[0].name, "/system.slice/secd.service");
	cr_assert_eq(find(&fl.victims, "postgres")->hosts, 2);
	cr_assert_eq(find(&fl.victims, "nginx")->ns, 120 * MS);
	cr_assert_eq(fl.victim_services.v[0].hosts, 3);
}

Test(fleet_model, one_row_per_host_with_its_own_culprit)
{
	struct fleet_rec *a = rec("db-1", "boot-a", 0, 1000, 0);
	struct fleet_rec *b = rec("db-1", "boot-b", 0, 1000, 5000 * (long long)MS);
	struct fleet_rec *c = rec("db-2", "boot-c", 0, 1000, 0);

	stall(a, 10, 100, 30, "postgres", "secd", NULL);
	stall(b, 10, 100, 40, "postgres", "secd", NULL);
	stall(b, 11, 200, 60, "postgres", "backup", NULL);
	stall(c, 10, 100, 20, "postgres", "backup", NULL);
	add(c);
	add(b);
	add(a);
	cr_assert_eq(fleet__merge(&fl), 0);
	cr_assert_eq(fl.n_rows, 2);
	cr_assert_str_eq(fl.rows[0].host, "db-1");
	cr_assert_eq(fl.rows[0].recordings, 2);
	cr_assert_eq(fl.rows[0].stalls, 3);
	cr_assert_eq(fl.rows[0].worst_ns, 60 * MS);
	/* secd 70ms over backup 60ms on db-1; backup alone on db-2 */
	cr_assert_str_eq(fl.rows[0].top_culprit, "secd");
	cr_assert_str_eq(fl.rows[1].top_culprit, "backup");
	cr_assert_eq(fl.n_overlaps, 0, "two boots never overlap");
	cr_assert_eq(find(&fl.culprits, "backup")->hosts, 2);
}

Test(fleet_model, overlapping_recordings_of_one_boot_count_a_stall_once)
{
	struct fleet_rec *a = rec("db-1", "boot-a", 0, 1000, 0);
	struct fleet_rec *b = rec("db-1", "boot-a", 500, 3000, 0);

	stall(a, 10, 600, 30, "postgres", "secd", NULL);
	stall(b, 10, 600, 30, "postgres", "secd", NULL);
	stall(b, 10, 2000, 45, "postgres", "secd", NULL);
	hist(a, "postgres", 15, 3);
	hist(b, "postgres", 15, 5);
	add(b);
	add(a);
	cr_assert_eq(fleet__merge(&fl), 0);
	cr_assert_eq(fl.stalls, 2);
	cr_assert_eq(fl.dup_stalls, 1);
	cr_assert_eq(fl.n_overlaps, 1);
	cr_assert_eq(fl.overlaps[0].dup_stalls, 1);
	cr_assert_eq(fl.culprits.v[0].ns, 75 * MS);
	/* the longer recording's histograms only */
	cr_assert_eq(fl.n_hists, 1);
	cr_assert_eq(fl.hists[0].hist.count, 5);
	cr_assert(a->hists_left_out);
	cr_assert_not(b->hists_left_out);
}

struct boot_case {
	char boot_a[16], boot_b[16];	/* "": none */
	long long offset_b;
	size_t overlaps;
};

static struct boot_case boot_cases[] = {
	{ "boot-a", "boot-a", 0, 1 },
	{ "boot-a", "boot-b", 0, 0 },
	/* older recordings without a boot id: one boot when the clock offset agrees */
	{ "", "", 0, 1 },
	{ "", "", 200 * (long long)MS, 1 },
	{ "", "", 9000 * (long long)MS, 0 },
	{ "boot-a", "", 0, 0 },
};

ParameterizedTestParameters(fleet_model, same_boot_is_told_by_id_or_clock)
{
	return cr_make_param_array(struct boot_case, boot_cases, ARRAY_SIZE(boot_cases));
}

ParameterizedTest(struct boot_case *t, fleet_model, same_boot_is_told_by_id_or_clock,
		  .init = setup, .fini = teardown)
{
	struct fleet_rec *a = rec("db-1", t->boot_a[0] ? t->boot_a : NULL, 0, 1000, 0);
	struct fleet_rec *b = rec("db-1", t->boot_b[0] ? t->boot_b : NULL, 500, 2000, t->offset_b);

	stall(a, 10, 600, 30, "postgres", "secd", NULL);
	stall(b, 10, 600, 30, "postgres", "secd", NULL);
	add(a);
	add(b);
	cr_assert_eq(fleet__merge(&fl), 0);
	cr_assert_eq(fl.n_overlaps, t->overlaps);
	cr_assert_eq(fl.stalls, 2 - t->overlaps);
}

Test(fleet_model, histograms_add_up_across_hosts)
{
	struct fleet_rec *a = rec("web-1", "b1", 0, 1000, 0), *b = rec("web-2", "b2", 0, 1000, 0);
	struct fleet_rec *c = rec("web-3", "b3", 0, 1000, 0);

	hist(a, "postgres", 14, 3);
	hist(b, "postgres", 14, 4);
	hist(b, "postgres", 16, 1);
	hist(c, "nginx", 10, 100);
	add(a);
	add(b);
	add(c);
	cr_assert_eq(fleet__merge(&fl), 0);
	cr_assert_eq(fl.n_hists, 2);
	/* most time first: postgres 8 samples of 1ms each, nginx 100 */
	cr_assert_str_eq(fl.hists[0].hist.comm, "nginx");
	cr_assert_str_eq(fl.hists[1].hist.comm, "postgres");
	cr_assert_eq(fl.hists[1].hosts, 2);
	cr_assert_eq(fl.hists[1].hist.count, 8);
	cr_assert_eq(fl.hists[1].hist.slots[14], 7);
	cr_assert_eq(fl.hists[1].hist.slots[16], 1);
	cr_assert_eq(fl.hists[1].hist.sum_ns, 8 * MS);
}

Test(fleet_model, worst_stalls_longest_first_and_bounded)
{
	struct fleet_rec *a = rec("web-1", "b1", 0, 100000, 0), *b = rec("web-2", "b2", 0, 100000, 0);
	unsigned int i;

	for (i = 0; i < 15; i++) {
		stall(a, 10 + i, 100 * i, 10 + i, "postgres", "secd", NULL);
		stall(b, 10 + i, 100 * i, 40 + i, "postgres", "secd", NULL);
	}
	add(a);
	add(b);
	cr_assert_eq(fleet__merge(&fl), 0);
	cr_assert_eq(fl.n_worst, FLEET_MAX_WORST);
	cr_assert_eq(fl.worst[0].st->lock_wait_ns, 54 * MS);
	cr_assert_str_eq(fl.worst[0].rec->host, "web-2");
	for (i = 1; i < fl.n_worst; i++)
		cr_assert_geq(fl.worst[i - 1].st->lock_wait_ns, fl.worst[i].st->lock_wait_ns);
	/* web-2's 15 and web-1's five longest (24 down to 20ms) */
	cr_assert_eq(fl.worst[FLEET_MAX_WORST - 1].st->lock_wait_ns, 20 * MS);
}

Test(fleet_model, pending_reports_are_no_stalls)
{
	struct fleet_rec *a = rec("web-1", "b1", 0, 1000, 0);
	struct ls_stall st;

	memset(&st, 0, sizeof(st));
	st.pending = true;
	cr_assert_eq(fleet_rec__stall(a, &st), 0);
	st.at_exit = true;
	cr_assert_eq(fleet_rec__stall(a, &st), 0);
	cr_assert_eq(a->n_stalls, 0);
	cr_assert_eq(a->open_at_end, 1);
	fleet_rec__free(a);
}

Test(fleet_model, times_in_utc_by_the_offset)
{
	struct fleet_rec *a = rec("web-1", "b1", 0, 1000, 1796280000000000000LL);

	cr_assert_eq(fleet_rec__utc(a, 5 * MS), 1796280000000000000ULL + 5 * MS);
	a->has_clock = false;
	cr_assert_eq(fleet_rec__utc(a, 5 * MS), 0);
	fleet_rec__free(a);
}

/* The text of a fleet whose recordings were added in the order given. */
static char *text_of(const unsigned int order[3])
{
	struct fleet_rec *r[3] = { rec("b-host", "b", 0, 1000, 0), rec("a-host", "a", 0, 1000, 0),
				   rec("c-host", "c", 0, 1000, 0) };
	struct fleet_opts o = { .top = 10 };
	struct fleet f;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *out = open_memstream(&buf, &len);

	stall(r[0], 10, 100, 30, "postgres", "secd", NULL);
	stall(r[1], 10, 100, 30, "postgres", "backup", NULL);
	stall(r[2], 10, 100, 30, "nginx", "secd", NULL);
	fleet__init(&f);
	for (i = 0; i < 3; i++) {
		cr_assert_eq(fleet_rec__cgroup_paths(r[order[i]], cgroup_path, NULL), 0);
		cr_assert_eq(fleet__add(&f, r[order[i]]), 0);
	}
	cr_assert_eq(fleet__merge(&f), 0);
	cr_assert_eq(fleet__print_text(&f, &o, out), 0);
	fclose(out);
	fleet__free(&f);
	return buf;
}

Test(fleet_model, same_report_whatever_the_order)
{
	static const unsigned int one[3] = { 0, 1, 2 }, two[3] = { 2, 0, 1 };
	char *a = text_of(one), *b = text_of(two);

	cr_assert_str_eq(a, b);
	cr_assert(strstr(a, "1 of 3  backup"), "%s", a);
	cr_assert(strstr(a, "2 of 3  secd"), "%s", a);
	free(a);
	free(b);
}
