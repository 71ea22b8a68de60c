// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/top/model.c: who lockstall top ranks where, over the last interval
 * and since start, under each sort and filter; stalls in progress.
 *
 * The scene (now 10 s, interval 1 s), each stall a mmap_lock wait:
 *   A  db-main[100/101]   50ms ends 3.0s  holder backup[200/201] (preempted 40ms by hog[300/301])
 *   B  db-main[100/101]   30ms ends 9.5s  holder backup[200/201] (preempted 25ms by hog[300/301])
 *   C  db-worker[100/102] 200ms ends 4.0s holder indexer[200/202] (blocked, no preemptor)
 *   D  web[400/401]       20ms ends 9.9s  holder backup[200/201] (preempted 15ms by hog2[300/302])
 * Cgroups: db-* in /db.slice/a and /db.slice, web in /web.slice, every
 * holder in /batch.slice.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "sink_fixture.h"
#include "top/model.h"

#define S(x) ((__u64)(x) * NSEC_PER_SEC / 10)	/* tenths of a second */

struct scene_stall {
	__u32 vtgid, vtid;
	const char *vcomm;
	__u64 vcg;
	__u32 htid;
	const char *hcomm;
	enum ls_holder_state hstate;
	__u32 ptid;		/* 0: no preemptor */
	const char *pcomm;
	__u64 pns;
	__u64 wait_ns;
	__u64 end_ns;
};

static const struct scene_stall scene[] = {
	{ 100, 101, "db-main", 11, 201, "backup", LS_STATE_PREEMPTED, 301, "hog", FX_MS(40),
	  FX_MS(50), S(30) },
	{ 100, 101, "db-main", 11, 201, "backup", LS_STATE_PREEMPTED, 301, "hog", FX_MS(25),
	  FX_MS(30), S(95) },
	{ 100, 102, "db-worker", 10, 202, "indexer", LS_STATE_BLOCKED, 0, NULL, 0,
	  FX_MS(200), S(40) },
	{ 400, 401, "web", 20, 201, "backup", LS_STATE_PREEMPTED, 302, "hog2", FX_MS(15),
	  FX_MS(20), S(99) },
};

static const char *cgroup_path(__u64 id)
{
	switch (id) {
	case 10:
		return "/db.slice";
	case 11:
		return "/db.slice/a";
	case 20:
		return "/web.slice";
	case 30:
		return "/batch.slice";
	case 40:
		return "/hog.slice";
	}
	return NULL;
}

static void scene__stall(const struct scene_stall *x, struct ls_stall *st, struct ls_holder *h)
{
	memset(h, 0, sizeof(*h));
	fx_task(&h->task, 200, x->htid, x->hcomm, LS_POLICY_IDLE, 0, 0);
	h->state = x->hstate;
	h->cgroup_id = 30;
	h->cgroup = cgroup_path(30);
	if (x->ptid) {
		fx_task(&h->preempted_by[0].task, 300, x->ptid, x->pcomm, LS_POLICY_NORMAL, 0, 0);
		h->preempted_by[0].ns = x->pns;
		/* hog2 alone has a cgroup of its own */
		h->preempted_by[0].cgroup_id = x->ptid == 302 ? 40 : 30;
		h->preempted_by[0].cgroup = cgroup_path(h->preempted_by[0].cgroup_id);
		h->n_preempted_by = 1;
	}
	fx_stall(st, h, 1);
	fx_task(&st->waiter, x->vtgid, x->vtid, x->vcomm, LS_POLICY_FIFO, 0, 10);
	st->lock.tgid = x->vtgid;
	st->waiter_cgroup_id = x->vcg;
	st->waiter_cgroup = cgroup_path(x->vcg);
	st->lock_wait_ns = st->wait_ns = x->wait_ns;
	st->end_ns = x->end_ns;
	st->start_ns = x->end_ns - x->wait_ns;
}

static struct top_model *scene__model(void)
{
	struct top_model *m = top_model__new(0);
	struct ls_holder h;
	struct ls_stall st;
	size_t i;

	cr_assert_not_null(m);
	for (i = 0; i < sizeof(scene) / sizeof(scene[0]); i++) {
		scene__stall(&scene[i], &st, &h);
		cr_assert_eq(top_model__stall(m, &st), 0);
	}
	return m;
}

/* "101,401,102" / "h201,p301": the table's order, as text. */
static void rows_text(const struct top_row *v, size_t n, bool roles, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s%u", i ? "," : "",
				 !roles ? "" : v[i].role == TOP_ROLE_HOLDER ? "h" : "p",
				 v[i].task.tid);
}

struct rank_case {
	enum top_sort sort;
	char proc[16];		/* the 'f' filter's text */
	char cgroup[16];	/* the 'c' filter's text */
	char victims[48];
	char culprits[48];
	unsigned int iv_stalls, all_stalls;
};

ParameterizedTestParameters(top_model, rank)
{
	static struct rank_case cases[] = {
		{ TOP_SORT_INTERVAL, "", "", "101,401,102", "h201,p301,p302,h202", 2, 4 },
		{ TOP_SORT_TOTAL, "", "", "102,101,401", "h202,h201,p301,p302", 2, 4 },
		{ TOP_SORT_COUNT, "", "", "101,102,401", "h201,p301,h202,p302", 2, 4 },
		{ TOP_SORT_MAX, "", "", "102,101,401", "h202,h201,p301,p302", 2, 4 },
		/* the hogs' process: every stall a hog of it ran in */
		{ TOP_SORT_TOTAL, "300", "", "101,401", "h201,p301,p302", 2, 3 },
		/* the waiters' own process, and the lock's */
		{ TOP_SORT_TOTAL, "100", "", "102,101", "h202,h201,p301", 1, 3 },
		{ TOP_SORT_TOTAL, "web", "", "401", "h201,p302", 1, 1 },
		{ TOP_SORT_TOTAL, "db-", "", "102,101", "h202,h201,p301", 1, 3 },
		{ TOP_SORT_TOTAL, "hog2", "", "401", "h201,p302", 1, 1 },
		{ TOP_SORT_TOTAL, "nobody", "", "", "", 0, 0 },
		{ TOP_SORT_TOTAL, "", "/db.slice", "102,101", "h202,h201,p301", 1, 3 },
		{ TOP_SORT_TOTAL, "", "/db.slice/a", "101", "h201,p301", 1, 2 },
		/* a prefix of a name is not the cgroup above it */
		{ TOP_SORT_TOTAL, "", "/db", "", "", 0, 0 },
		{ TOP_SORT_TOTAL, "", "/db.slice/", "102,101", "h202,h201,p301", 1, 3 },
		/* the holders' cgroup takes in every stall they held up */
		{ TOP_SORT_TOTAL, "", "/batch.slice", "102,101,401", "h202,h201,p301,p302", 2, 4 },
		{ TOP_SORT_TOTAL, "", "/", "102,101,401", "h202,h201,p301,p302", 2, 4 },
		/* a preemptor's cgroup takes in the stalls it ran in */
		{ TOP_SORT_TOTAL, "", "/hog.slice", "401", "h201,p302", 1, 1 },
		/* both filters: both must hold */
		{ TOP_SORT_TOTAL, "web", "/db.slice", "", "", 0, 0 },
		{ TOP_SORT_TOTAL, "db-main", "/db.slice", "101", "h201,p301", 1, 2 },
	};

	return cr_make_param_array(struct rank_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct rank_case *c, top_model, rank)
{
	struct top_model *m = scene__model();
	struct top_filter f = { 0 };
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10), .sort = c->sort,
			       .filter = &f };
	struct top_view v;
	char got[96];

	cr_assert_eq(top_filter__set_proc(&f, c->proc), 0);
	cr_assert_eq(top_filter__set_cgroup(&f, c->cgroup), 0);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	rows_text(v.victims, v.n_victims, false, got, sizeof(got));
	cr_expect_str_eq(got, c->victims, "sort %s, filter '%s' '%s': victims",
			 top_sort_name(c->sort), c->proc, c->cgroup);
	rows_text(v.culprits, v.n_culprits, true, got, sizeof(got));
	cr_expect_str_eq(got, c->culprits, "sort %s, filter '%s' '%s': culprits",
			 top_sort_name(c->sort), c->proc, c->cgroup);
	cr_expect_eq(v.iv_stalls, c->iv_stalls);
	cr_expect_eq(v.all_stalls, c->all_stalls);
	cr_expect_eq(v.seen_stalls, 4, "every stall is counted as seen, matching or not");
	top_view__release(&v);
	top_model__free(m);
}

/* The numbers of one row each: interval and since start, count and time, worst. */
Test(top_model, row_numbers)
{
	struct top_model *m = scene__model();
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10), .sort = TOP_SORT_TOTAL };
	struct top_view v;

	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_assert_eq(v.n_victims, 3);
	/* db-main: A and B */
	cr_expect_eq(v.victims[1].task.tid, 101);
	cr_expect_eq(v.victims[1].all_stalls, 2);
	cr_expect_eq(v.victims[1].all_ns, FX_MS(80));
	cr_expect_eq(v.victims[1].iv_stalls, 1);
	cr_expect_eq(v.victims[1].iv_ns, FX_MS(30));
	cr_expect_eq(v.victims[1].max_ns, FX_MS(50));
	cr_expect_eq(v.victims[1].lock_tgid, 100);
	/* backup: the lock wait of A, B and D */
	cr_expect_eq(v.culprits[1].task.tid, 201);
	cr_expect_eq(v.culprits[1].all_ns, FX_MS(100));
	cr_expect_eq(v.culprits[1].all_stalls, 3);
	cr_expect_eq(v.culprits[1].iv_ns, FX_MS(50));
	cr_expect_eq(v.culprits[1].state, LS_STATE_PREEMPTED);
	/* hog: the time it ran instead of the holder */
	cr_expect_eq(v.culprits[2].task.tid, 301);
	cr_expect_eq(v.culprits[2].all_ns, FX_MS(65));
	cr_expect_eq(v.culprits[2].iv_ns, FX_MS(25));
	top_view__release(&v);
	top_model__free(m);
}

/* max_rows keeps the best rows of the sort and counts the rest. */
Test(top_model, max_rows)
{
	struct top_model *m = scene__model();
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10), .sort = TOP_SORT_INTERVAL,
			       .max_rows = 2 };
	struct top_view v;
	char got[64];

	cr_assert_eq(top_model__query(m, &q, &v), 0);
	rows_text(v.victims, v.n_victims, false, got, sizeof(got));
	cr_expect_str_eq(got, "101,401");
	cr_expect_eq(v.more_victims, 1);
	rows_text(v.culprits, v.n_culprits, true, got, sizeof(got));
	cr_expect_str_eq(got, "h201,p301");
	cr_expect_eq(v.more_culprits, 2);
	top_view__release(&v);
	top_model__free(m);
}

/* A bounded history: the oldest stalls go first, and the view says since when it counts. */
Test(top_model, history_bounded)
{
	struct top_model *m = top_model__new(2);
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10) };
	struct ls_holder h;
	struct ls_stall st;
	struct top_view v;
	size_t i;

	for (i = 0; i < 4; i++) {
		scene__stall(&scene[i], &st, &h);
		top_model__stall(m, &st);
	}
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_expect_eq(v.all_stalls, 2, "C and D only");
	cr_expect_eq(v.seen_stalls, 4);
	cr_expect_eq(v.history_from_ns, S(40), "the oldest kept is C");
	top_view__release(&v);
	top_model__free(m);
}

/* One preemptor of two holders of one stall: one stall, both times. */
Test(top_model, preemptor_of_two_holders)
{
	struct top_model *m = top_model__new(0);
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10) };
	struct ls_holder h[2];
	struct ls_stall st;
	struct top_view v;

	fx_holder_reader(&h[0]);
	fx_holder_reader(&h[1]);
	h[1].task.tid = 2002;
	h[1].preempted_by[0].ns = FX_MS(5);
	fx_stall(&st, h, 2);
	st.end_ns = S(99);
	top_model__stall(m, &st);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_assert_eq(v.n_culprits, 2, "one holder credited, one preemptor");
	cr_expect_eq(v.culprits[0].role, TOP_ROLE_PREEMPTOR, "27.9ms before the holder's 23.4ms");
	cr_expect_eq(v.culprits[0].all_stalls, 1);
	cr_expect_eq(v.culprits[0].all_ns, 22900000 + FX_MS(5));
	top_view__release(&v);
	top_model__free(m);
}

/*
 * A chain through a lock the holder waited on: the reader behind it and
 * the hog that preempted that reader are culprits too, each once.
 */
Test(top_model, hops_past_the_holder_are_culprits)
{
	struct top_model *m = top_model__new(0);
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10) };
	struct ls_holder h;
	struct ls_stall st;
	struct top_view v;
	size_t i;
	bool agent = false, hog2 = false;

	fx_holder_reader(&h);
	h.state = LS_STATE_BLOCKED;
	h.n_preempted_by = 0;
	fx_stall(&st, &h, 1);
	st.end_ns = S(99);
	fx_task(&st.chain[2].task, 4001, 4001, "agent", LS_POLICY_IDLE, 0, 0);
	st.chain[2].role = LS_ROLE_HOLDER;
	st.chain[2].has_lock = true;
	st.chain[2].stall_seq = 2;
	st.chain[2].wait_ns = FX_MS(20);
	fx_task(&st.chain[3].task, 5001, 5001, "hog2", LS_POLICY_NORMAL, 0, 0);
	st.chain[3].role = LS_ROLE_PREEMPTOR;
	st.chain[3].ns = FX_MS(19);
	st.n_chain = 4;
	top_model__stall(m, &st);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_assert_eq(v.n_culprits, 3, "the holder, the reader behind it, its preemptor");
	for (i = 0; i < v.n_culprits; i++) {
		if (v.culprits[i].task.tid == 4001) {
			agent = true;
			cr_expect_eq(v.culprits[i].role, TOP_ROLE_HOLDER);
			cr_expect_eq(v.culprits[i].all_ns, FX_MS(20));
		}
		if (v.culprits[i].task.tid == 5001) {
			hog2 = true;
			cr_expect_eq(v.culprits[i].role, TOP_ROLE_PREEMPTOR);
			cr_expect_eq(v.culprits[i].all_ns, FX_MS(19));
		}
	}
	cr_assert(agent && hog2);
	top_view__release(&v);
	top_model__free(m);
}

static void pending_stall(struct ls_stall *st, struct ls_holder *h, __u32 tid, __u64 start,
			  __u64 at)
{
	fx_holder_reader(h);
	fx_stall(st, h, 1);
	st->waiter.tid = tid;
	st->start_ns = start;
	st->end_ns = at;
	st->wait_ns = st->lock_wait_ns = at - start;
	st->acquired = false;
}

/* In progress: oldest first, updated in place, gone when its stall ends. */
Test(top_model, pending_lifecycle)
{
	struct top_model *m = top_model__new(0);
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10) };
	struct ls_holder h;
	struct ls_stall st;
	struct top_view v;

	pending_stall(&st, &h, 7, S(50), S(80));
	top_model__pending(m, &st);
	pending_stall(&st, &h, 8, S(20), S(80));
	top_model__pending(m, &st);
	/* wait 7 reported again: one entry still */
	pending_stall(&st, &h, 7, S(50), S(90));
	h.state_now = LS_STATE_BLOCKED;
	top_model__pending(m, &st);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_assert_eq(v.n_pending, 2);
	cr_expect_eq(v.pending[0].waiter.tid, 8, "the oldest wait first");
	cr_expect_eq(v.pending[1].waiter.tid, 7);
	cr_expect_eq(v.pending[1].reported_ns, S(90));
	cr_expect_eq(v.pending[1].holder_state, LS_STATE_BLOCKED, "as the latest report says");
	cr_expect(v.pending[1].has_preemptor);
	cr_expect_eq(v.pending[1].preemptor.tid, 3001);
	cr_expect_eq(v.all_stalls, 0, "not ended: not in the tables");
	top_view__release(&v);

	/* wait 8 ends: its stall names it by tid and start */
	pending_stall(&st, &h, 8, S(20), S(95));
	st.acquired = true;
	top_model__stall(m, &st);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_assert_eq(v.n_pending, 1);
	cr_expect_eq(v.pending[0].waiter.tid, 7);
	cr_expect_eq(v.all_stalls, 1);
	top_view__release(&v);
	top_model__free(m);
}

/*
 * A holder that exec'd: its other name stays with the copy the model keeps,
 * in the stall in progress and in the culprits' row; the stall's own
 * renames are gone after the call.
 */
Test(top_model, renames_kept_with_the_task)
{
	struct top_model *m = top_model__new(0);
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10) };
	struct ls_rename r;
	struct ls_holder h;
	struct ls_stall st;
	struct top_view v;
	size_t i;
	bool found = false;

	pending_stall(&st, &h, 7, S(50), S(80));
	fx_rename(&r, 2001, "reader", "bash", true);
	st.renames = &r;
	st.n_renames = 1;
	top_model__pending(m, &st);
	pending_stall(&st, &h, 8, S(50), S(90));
	fx_rename(&r, 2001, "reader", "bash", true);
	st.renames = &r;
	st.n_renames = 1;
	st.acquired = true;
	top_model__stall(m, &st);
	memset(&r, 0, sizeof(r));
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_assert_eq(v.n_pending, 1);
	cr_expect_eq(v.pending[0].holder_rename.tid, 2001);
	cr_expect_str_eq(v.pending[0].holder_rename.other, "bash");
	cr_expect(v.pending[0].holder_rename.was);
	cr_expect_eq(v.pending[0].waiter_rename.tid, 0, "the waiter kept its name");
	cr_expect_eq(v.pending[0].preemptor_rename.tid, 0);
	for (i = 0; i < v.n_culprits; i++) {
		if (v.culprits[i].task.tid != 2001)
			continue;
		found = true;
		cr_expect_str_eq(v.culprits[i].rename.other, "bash");
	}
	cr_expect(found, "the holder is a culprit");
	top_view__release(&v);
	top_model__free(m);
}

/* A wait whose end was lost is dropped once it is not reported again for stale_ns. */
Test(top_model, pending_stale)
{
	struct top_model *m = top_model__new(0);
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10), .stale_ns = S(30) };
	struct ls_holder h;
	struct ls_stall st;
	struct top_view v;

	pending_stall(&st, &h, 7, S(10), S(60));
	top_model__pending(m, &st);
	pending_stall(&st, &h, 8, S(10), S(75));
	top_model__pending(m, &st);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_assert_eq(v.n_pending, 1);
	cr_expect_eq(v.pending[0].waiter.tid, 8);
	top_view__release(&v);
	top_model__free(m);
}

/*
 * A key redraws between refreshes: a wait reported since the last refresh
 * began after it, and its age counts from the newest report, never from
 * the refresh (which would make it 0).
 */
Test(top_model, pending_newer_than_the_refresh)
{
	struct top_model *m = top_model__new(0);
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10), .stale_ns = S(30) };
	struct ls_holder h;
	struct ls_stall st;
	struct top_view v;

	pending_stall(&st, &h, 7, S(101), S(103));
	top_model__pending(m, &st);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_expect_eq(v.now_ns, S(103));
	cr_assert_eq(v.n_pending, 1);
	cr_expect_gt(v.now_ns, v.pending[0].start_ns);
	top_view__release(&v);
	/* nothing newer: the refresh's time */
	q.now_ns = S(110);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_expect_eq(v.now_ns, S(110));
	top_view__release(&v);
	top_model__free(m);
}

/* A full table keeps the oldest waits: they are the incident. */
Test(top_model, pending_full_keeps_oldest)
{
	struct top_model *m = top_model__new(0);
	struct top_query q = { .now_ns = S(1000), .interval_ns = S(10) };
	struct ls_holder h;
	struct ls_stall st;
	struct top_view v;
	__u32 i;

	for (i = 0; i < TOP_MAX_PENDING; i++) {
		pending_stall(&st, &h, 100 + i, S(100 + i), S(900));
		top_model__pending(m, &st);
	}
	pending_stall(&st, &h, 99, S(50), S(900));
	top_model__pending(m, &st);
	pending_stall(&st, &h, 999, S(800), S(900));
	top_model__pending(m, &st);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_assert_eq(v.n_pending, TOP_MAX_PENDING);
	cr_expect_eq(v.pending[0].waiter.tid, 99, "older than all: taken in");
	cr_expect_eq(v.pending[TOP_MAX_PENDING - 1].waiter.tid, 100 + TOP_MAX_PENDING - 2,
		     "the youngest made room");
	top_view__release(&v);
	top_model__free(m);
}

/* The filter applies to stalls in progress too: waiter, holder or preemptor. */
Test(top_model, pending_filtered)
{
	struct top_model *m = top_model__new(0);
	struct top_filter f = { 0 };
	struct top_query q = { .now_ns = S(100), .interval_ns = S(10), .filter = &f };
	struct ls_holder h;
	struct ls_stall st;
	struct top_view v;

	pending_stall(&st, &h, 7, S(50), S(90));
	h.preempted_by[0].cgroup_id = 40;
	h.preempted_by[0].cgroup = "/hog.slice";
	top_model__pending(m, &st);
	cr_assert_eq(top_filter__set_cgroup(&f, "/hog.slice"), 0);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_expect_eq(v.n_pending, 1, "its holder's preemptor is in /hog.slice");
	top_view__release(&v);
	cr_assert_eq(top_filter__set_cgroup(&f, "/other.slice"), 0);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_expect_eq(v.n_pending, 0);
	top_view__release(&v);
	cr_assert_eq(top_filter__set_cgroup(&f, ""), 0);
	cr_assert_eq(top_filter__set_proc(&f, "hog"), 0);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_expect_eq(v.n_pending, 1, "its holder's preemptor is hog");
	top_view__release(&v);
	cr_assert_eq(top_filter__set_proc(&f, "4242"), 0);
	cr_assert_eq(top_model__query(m, &q, &v), 0);
	cr_expect_eq(v.n_pending, 0);
	top_view__release(&v);
	top_model__free(m);
}

struct filter_case {
	char proc[80];
	int rc;
	__u32 pid;
	char comm[16];
};

ParameterizedTestParameters(top_model, filter_proc)
{
	static struct filter_case cases[] = {
		{ "1234", 0, 1234, "" },
		{ "", 0, 0, "" },
		{ "db", 0, 0, "db" },
		{ "wl-victim", 0, 0, "wl-victim" },
		{ "12x", -EINVAL, 0, "" },
		{ "0", -EINVAL, 0, "" },
		{ "99999999999", -EINVAL, 0, "" },
		{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		  -ENAMETOOLONG, 0, "" },
	};

	return cr_make_param_array(struct filter_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct filter_case *c, top_model, filter_proc)
{
	struct top_filter f = { 0 };

	cr_assert_eq(top_filter__set_proc(&f, c->proc), c->rc, "'%s'", c->proc);
	cr_expect_eq(f.pid, c->pid);
	cr_expect_str_eq(f.comm, c->comm);
}

Test(top_model, filter_text)
{
	struct top_filter f = { 0 };
	char buf[160];

	cr_expect_str_eq(top_filter__text(&f, buf, sizeof(buf)), "none");
	cr_expect_str_eq(top_filter__text(NULL, buf, sizeof(buf)), "none");
	top_filter__set_proc(&f, "42");
	top_filter__set_cgroup(&f, "/a/b/");
	cr_expect_str_eq(top_filter__text(&f, buf, sizeof(buf)), "pid 42, cgroup /a/b");
	top_filter__set_proc(&f, "db");
	cr_expect_str_eq(top_filter__text(&f, buf, sizeof(buf)), "comm ~db, cgroup /a/b");
	cr_expect_eq(top_filter__set_cgroup(&f, "a/b"), -EINVAL);
}
