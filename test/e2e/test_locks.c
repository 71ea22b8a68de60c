// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall watch against locks other than mmap_lock (futexes), checked
 * against the ground truth of test/workloads/pthread_mutex and
 * pthread_rwlock: the victim's slowest lock call, the holder and the hog.  Needs root and
 * BPF; locks_by_tid runs them with owners followed by TID, as kernels before 6.2 do.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static struct e2e_proc rp = E2E_PROC_INIT;
static char dir[64];

static void teardown(void)
{
	char cmd[128];

	e2e_watch__release(&w);
	e2e_proc__release(&rp);
	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		cr_log_warn("could not remove %s", dir);
}

/* The stall whose waiter is the victim and whose wait is the longest; NULL: none. */
static const json_t *victim_stall(json_int_t victim_tid)
{
	const json_t *st, *best = NULL;
	size_t i;

	json_array_foreach(w.stalls, i, st) {
		if (strcmp(e2e_str(st, "lock"), "futex") && strcmp(e2e_str(st, "lock"), "pi_futex"))
			continue;
		if (e2e_int(e2e_object(st, "waiter"), "tid") != victim_tid)
			continue;
		if (!best || e2e_int(st, "lock_wait_ns") > e2e_int(best, "lock_wait_ns"))
			best = st;
	}
	return best;
}

/*
 * The victim's longest futex stall, against the truth of a workload where
 * a SCHED_IDLE holder sat preempted by the hog while the SCHED_FIFO victim
 * waited: an inversion, on the workload's lock (its address under
 * lock_key), the holder found by found_by, as long as the victim's slowest
 * lock call.
 */
static void check_inversion(const char *lock_key, const char *found_by)
{
	const json_t *st, *h, *lock;
	json_int_t worst;

	st = victim_stall(e2e_int(w.truth, "victim_tid"));
	cr_assert_not_null(st, "no futex stall of the victim (tid %lld)",
			   e2e_int(w.truth, "victim_tid"));
	lock = e2e_object(st, "lock_id");
	cr_assert_str_eq(e2e_str(lock, "kind"), "futex");
	cr_assert_str_eq(e2e_str(lock, "addr"), e2e_str(w.truth, lock_key));
	cr_assert_eq(e2e_int(lock, "pid"), e2e_int(w.truth, "victim_pid"));
	cr_assert_str_eq(e2e_str(st, "verdict"), "priority_inversion");
	h = json_array_get(e2e_array(st, "holders"), 0);
	cr_assert_not_null(h);
	cr_assert_eq(e2e_int(h, "tid"), e2e_int(w.truth, "holder_tid"));
	cr_assert_str_eq(e2e_str(h, "found_by"), found_by);
	cr_assert_str_eq(e2e_str(h, "policy"), "idle");
	cr_assert_str_eq(e2e_str(h, "state"), "preempted");
	/* the hog ran in its place (on a shared machine, others may have too) */
	cr_assert(e2e_preemptor_with_tid(h, e2e_int(w.truth, "hog_tid")),
		  "the hog is not among the preemptors");
	/* the wait lies inside the victim's slowest call and is most of it */
	worst = e2e_int(w.truth, "worst_ns");
	cr_assert_geq(e2e_int(st, "start_ns"), e2e_int(w.truth, "worst_start_ns"));
	cr_assert_leq(e2e_int(st, "end_ns"), e2e_int(w.truth, "worst_end_ns"));
	cr_assert_geq(e2e_int(st, "lock_wait_ns") * 10, worst * 9);
	cr_log_info("lockstall: the victim's longest wait %lld ns (truth: slowest call %lld ns), "
		    "holder %lld %s, %s", e2e_int(st, "lock_wait_ns"), worst, e2e_int(h, "tid"),
		    e2e_str(h, "found_by"), e2e_str(h, "state"));
	/* on main()'s stack: no symbol is the mutex's, so no name */
	cr_assert_null(json_object_get(lock, "name"), "a mutex on the stack got a name: %s",
		       json_string_value(json_object_get(lock, "name")));
}

/*
 * A stall printed after its process exited, or while its mappings were
 * still being read (the reader waits on that process's mmap_lock, at most
 * 50 ms), has no mappings to name the lock from: its stack says so.
 */
static bool maps_known(const json_t *st)
{
	const json_t *note = json_object_get(e2e_object(st, "waiter"), "stack_note");
	const char *text = json_is_string(note) ? json_string_value(note) : "";

	return !strstr(text, "were not captured") && !strstr(text, "still being read");
}

/*
 * Every stall of stalls on the workload's mutex: named as the workload
 * says (with the program as its file) where its mappings were known, never
 * named otherwise.  How many were named.
 */
static size_t count_mutex_names(const json_t *stalls)
{
	const char *addr = e2e_str(w.truth, "mutex"), *want = e2e_str(w.truth, "mutex_name");
	const char *module, *self = "/pthread_mutex";
	const json_t *st, *lock, *name;
	size_t i, named = 0;

	json_array_foreach(stalls, i, st) {
		lock = json_object_get(st, "lock_id");
		if (!lock || strcmp(e2e_str(lock, "addr"), addr))
			continue;
		name = json_object_get(lock, "name");
		if (!name) {
			cr_assert_not(maps_known(st), "stall #%lld on the mutex has no name",
				      e2e_int(st, "seq"));
			continue;
		}
		cr_assert_str_eq(json_string_value(name), want);
		module = e2e_str(lock, "module");
		cr_assert(strlen(module) > strlen(self) &&
			  !strcmp(module + strlen(module) - strlen(self), self),
			  "module %s is not the workload", module);
		named++;
	}
	return named;
}

/*
 * The same for a live run.  On a loaded machine lockstall may print every
 * stall only after the workload exited, when its mappings cannot be read
 * any more: none named, nothing to check (skipped, saying so).
 */
static void check_mutex_names(const json_t *stalls)
{
	if (!count_mutex_names(stalls))
		cr_skip_test("every stall on the mutex was printed after the workload exited "
			     "(a loaded machine): no name to check");
}

/*
 * A mutex in the program's data is named by its symbol, the one the
 * workload prints: --global in .bss (g_wl_mutex), --in-struct a member of
 * a struct in .data (g_wl_queue+0x10), with the program as its file.
 */
static void named_mutex(const char *where)
{
	const char *const args[] = { "-d", "2", "-u", "100", where, NULL };

	e2e_watch__run_with(&w, "pthread_mutex", args, e2e_futexes);
	cr_assert(json_is_string(json_object_get(w.truth, "mutex_name")), "no name in the truth");
	cr_assert_not_null(victim_stall(e2e_int(w.truth, "victim_tid")),
			   "no futex stall of the victim (tid %lld)", e2e_int(w.truth, "victim_tid"));
	check_mutex_names(w.stalls);
}

Test(locks, global_mutex_named, .fini = teardown, .timeout = 180)
{
	named_mutex("--global");
}

Test(locks, mutex_in_global_struct_named, .fini = teardown, .timeout = 180)
{
	named_mutex("--in-struct");
}

/* A plain mutex: the holder named by glibc's __owner. */
static void mutex_inversion(void)
{
	const char *const args[] = { "-d", "2", "-u", "100", NULL };

	e2e_watch__run_with(&w, "pthread_mutex", args, e2e_futexes);
	check_inversion("mutex", "pthread_owner");
}

Test(locks, pthread_mutex_inversion, .fini = teardown, .timeout = 180)
{
	mutex_inversion();
}

/*
 * lock= selects stalls by the kind of their lock: the victim's pthread
 * mutex waits break the futex rule (2), the mmap_lock rule (1) only ever
 * sees mmap_lock stalls.
 */
Test(locks, slo_rule_selects_the_lock_kind, .fini = teardown, .timeout = 180)
{
	const char *const args[] = { "-d", "2", "-u", "100", NULL };
	const char *const watch[] = { "--slo", "lock=mmap_lock wait>=5ms every=1ns", "--slo",
				      "lock=futex comm=wl-victim wait>=5ms every=1ns", "--locks", "all",
				      NULL };
	const json_t *v, *st;
	size_t i, n = 0;

	e2e_watch__run_with(&w, "pthread_mutex", args, watch);
	cr_assert_not_null(victim_stall(e2e_int(w.truth, "victim_tid")),
			   "no futex stall of the victim (tid %lld)", e2e_int(w.truth, "victim_tid"));
	json_array_foreach(w.violations, i, v) {
		st = json_array_get(e2e_array(v, "stalls"), 0);
		cr_assert_not_null(st, "a violation without its stall");
		if (e2e_int(v, "rule_index") == 2)
			n++;
		cr_assert_str_eq(e2e_str(st, "lock"),
				 e2e_int(v, "rule_index") == 2 ? "futex" : "mmap_lock",
				 "rule %lld broken by a stall on %s", e2e_int(v, "rule_index"),
				 e2e_str(st, "lock"));
	}
	cr_assert_gt(n, 0, "the futex rule never fired");
}

/*
 * The victim's futex waits feed its process's futex wait histogram (mode
 * write), apart from mmap_lock's: its slowest lock call is the top slot
 * (or the one below: the call is a little longer than its wait), and each
 * call of 5 ms or more has a wait in the slot of 4 ms or above.
 */
Test(locks, futex_waits_in_histograms, .fini = teardown, .timeout = 180)
{
	const char *const args[] = { "-d", "2", "-u", "100", NULL };
	json_int_t worst, over;
	const json_t *h;
	int top;

	e2e_watch__run_with(&w, "pthread_mutex", args, e2e_futexes);
	worst = e2e_int(w.truth, "worst_ns");
	over = e2e_int(w.truth, "over_5ms");
	cr_assert_geq(worst, 100000000, "the victim never waited 100 ms: nothing was checked");
	h = e2e_hist(w.summary, "futex_wait", e2e_int(w.truth, "victim_pid"), "write");
	cr_assert_not_null(h, "no futex wait histogram of the workload");
	cr_assert_str_eq(e2e_str(h, "lock"), "futex");
	top = e2e_hist_top(h);
	cr_assert(top == e2e_hist_slot(worst) || top + 1 == e2e_hist_slot(worst),
		  "top slot %d, the slowest call (%lld ns) is in slot %d", top, worst,
		  e2e_hist_slot(worst));
	cr_assert_geq(e2e_hist_at_least(h, 5000), over, "%lld calls over 5 ms, %lld waits",
		      over, e2e_hist_at_least(h, 5000));
	cr_assert_geq(e2e_int(h, "sum_ns") * 10, worst * 9);
	cr_assert_null(e2e_hist(w.summary, "pi_futex_wait", e2e_int(w.truth, "victim_pid"),
				"write"), "a plain mutex's waits counted as a PI futex's");
}

/*
 * A pthread_rwlock_t held for writing: a reader (FUTEX_WAIT on
 * __wrphase_futex) or a writer (on __writers_futex) waits on the rwlock,
 * named by its address, its writer named by glibc's __cur_writer; the
 * word waited on tells the victim's mode, as the workload took it, in
 * the stall and in the futex wait histogram.
 */
static void check_rwlock_mode(void)
{
	const char *mode = e2e_str(w.truth, "mode");
	const json_t *st = victim_stall(e2e_int(w.truth, "victim_tid"));

	cr_assert_str_eq(e2e_str(st, "mode"), mode);
	cr_assert_str_eq(e2e_str(json_array_get(e2e_array(st, "chain"), 0), "mode"), mode);
	cr_assert_not_null(e2e_hist(w.summary, "futex_wait", e2e_int(w.truth, "victim_pid"), mode),
			   "no futex wait histogram of mode %s", mode);
}

static void rwlock_inversion(bool write)
{
	const char *const args[] = { "-d", "2", "-u", "100", write ? "--write" : NULL, NULL };

	e2e_watch__run_with(&w, "pthread_rwlock", args, e2e_futexes);
	check_inversion("rwlock", "rwlock_writer");
	cr_assert_str_eq(e2e_str(w.truth, "mode"), write ? "write" : "read");
	check_rwlock_mode();
}

Test(locks, pthread_rwlock_reader_behind_writer, .fini = teardown, .timeout = 180)
{
	rwlock_inversion(false);
}

Test(locks, pthread_rwlock_writer_behind_writer, .fini = teardown, .timeout = 180)
{
	rwlock_inversion(true);
}

/*
 * A writer behind a reader (SCHED_IDLE, preempted by the hog): the writer
 * waits on __wrphase_futex, named by the rwlock's address, mode write.  No
 * word of the rwlock names its readers, so no owner is invented: at most
 * the reader whose unlock woke the writer, as the releaser, and no
 * inversion claimed on it.
 */
Test(locks, pthread_rwlock_writer_behind_reader, .fini = teardown, .timeout = 180)
{
	const char *const args[] = { "-d", "2", "-u", "100", "--behind-reader", NULL };
	const json_t *st, *h;
	json_int_t worst;
	size_t i;

	e2e_watch__run_with(&w, "pthread_rwlock", args, e2e_futexes);
	cr_assert_str_eq(e2e_str(w.truth, "holder_mode"), "read");
	worst = e2e_int(w.truth, "worst_ns");
	cr_assert_geq(worst, 100000000, "the victim never waited 100 ms: nothing was checked");
	st = victim_stall(e2e_int(w.truth, "victim_tid"));
	cr_assert_not_null(st, "no futex stall of the victim (tid %lld)",
			   e2e_int(w.truth, "victim_tid"));
	cr_assert_str_eq(e2e_str(e2e_object(st, "lock_id"), "addr"), e2e_str(w.truth, "rwlock"));
	check_rwlock_mode();
	cr_assert_str_neq(e2e_str(st, "verdict"), "priority_inversion");
	json_array_foreach(e2e_array(st, "holders"), i, h) {
		cr_assert_str_eq(e2e_str(h, "found_by"), "releaser");
		cr_assert_eq(e2e_int(h, "tid"), e2e_int(w.truth, "holder_tid"));
	}
	cr_assert_geq(e2e_int(st, "start_ns"), e2e_int(w.truth, "worst_start_ns"));
	cr_assert_leq(e2e_int(st, "end_ns"), e2e_int(w.truth, "worst_end_ns"));
	cr_assert_geq(e2e_int(st, "lock_wait_ns") * 10, worst * 9);
}

/*
 * An event, not a lock: the victim waits (FUTEX_WAIT with 3, what a rwlock
 * waiter passes) on a word that is no rwlock, as long as it waited on the
 * rwlock above: no holder to name, so no lock stall at all.
 */
Test(locks, futex_event_with_rwlock_value_is_no_stall, .fini = teardown, .timeout = 180)
{
	const char *const args[] = { "-d", "2", "-u", "100", "--event", NULL };
	const json_t *st;

	e2e_watch__run_with(&w, "pthread_rwlock", args, e2e_futexes);
	cr_assert_geq(e2e_int(w.truth, "worst_ns"), 100000000,
		      "the victim never waited 100 ms: nothing was checked");
	st = victim_stall(e2e_int(w.truth, "victim_tid"));
	cr_assert_null(st, "a stall on an event word (lock_wait_ns %lld)",
		       st ? e2e_int(st, "lock_wait_ns") : 0);
}

/*
 * A stall of the victim on a lock other than mmap_lock.  At a low
 * threshold its first fault (on its new stack, while main maps the next
 * thread's) may wait on mmap_lock: a stall, but not on the mutex.
 */
static bool victim_user_lock_stall(const json_t *st, json_int_t victim)
{
	return e2e_int(e2e_object(st, "waiter"), "tid") == victim &&
	       strcmp(e2e_str(st, "lock"), "mmap_lock");
}

/* A PI futex stall of the victim: no inversion claimed, the workload's holder its owner. */
static const json_t *pi_stall_holder(const json_t *st)
{
	const json_t *h = json_array_get(e2e_array(st, "holders"), 0);

	cr_assert_str_eq(e2e_str(st, "lock"), "pi_futex", "a stall of the victim: %s",
			 json_dumps(st, JSON_COMPACT));
	cr_assert_str_neq(e2e_str(st, "verdict"), "priority_inversion");
	cr_assert_not_null(h);
	cr_assert_eq(e2e_int(h, "tid"), e2e_int(w.truth, "holder_tid"));
	cr_assert_str_eq(e2e_str(h, "found_by"), "futex_word");
	return h;
}

/*
 * PTHREAD_PRIO_INHERIT: the kernel boosts the holder while the victim
 * waits, so the hog cannot keep it off its CPU: the victim's waits (seen
 * with a low threshold) are no inversion, and their holder ran boosted.
 */
static void pi_no_inversion(void)
{
	const char *const args[] = { "-d", "2", "--pi", NULL };
	const char *const watch_args[] = { "-t", "200us", "--locks", "all", NULL };
	json_int_t victim;
	const json_t *st, *h;
	size_t i, seen = 0;

	e2e_watch__run_with(&w, "pthread_mutex", args, watch_args);
	victim = e2e_int(w.truth, "victim_tid");
	json_array_foreach(w.stalls, i, st) {
		if (!victim_user_lock_stall(st, victim))
			continue;
		seen++;
		h = pi_stall_holder(st);
		/* boosted to the victim's priority: a SCHED_IDLE task is never below 100 */
		cr_assert_lt(e2e_int(h, "prio"), 100);
		cr_assert(json_is_true(json_object_get(h, "pi_boosted_in_time")),
			  "a boosted owner told as not boosted in time (%lld ns unboosted)",
			  e2e_int(h, "pi_unboosted_ns"));
	}
	cr_assert_lt(e2e_int(w.truth, "worst_ns"), 100000000, "the PI holder was not boosted");
	cr_assert_gt(seen, 0, "no wait of the victim over 200us: nothing was checked");
	/* each stall was a FUTEX_LOCK_PI wait, in the PI futex histogram */
	h = e2e_hist(w.summary, "pi_futex_wait", e2e_int(w.truth, "victim_pid"), "write");
	cr_assert_not_null(h, "no PI futex wait histogram of the workload");
	cr_assert_geq(e2e_int(h, "count"), (json_int_t)seen);
	cr_assert_leq(e2e_hist_top(h), e2e_hist_slot(e2e_int(w.truth, "worst_ns")));
}

/*
 * PTHREAD_PRIO_INHERIT, but the holder sleeps 10 ms under each hold: no
 * boost runs a sleeping owner.  Each wait of the victim's of 6 ms or more
 * (seen with a low threshold) names the holder by the futex word, asleep
 * for most of it, and not boosted in time; still no inversion claimed.
 */
Test(locks, pi_owner_asleep_is_not_boosted_in_time, .fini = teardown, .timeout = 180)
{
	const char *const args[] = { "-d", "2", "--pi", "--sleep-under", "10", NULL };
	const char *const watch_args[] = { "-t", "1ms", "--locks", "all", NULL };
	json_int_t victim;
	const json_t *st, *h;
	size_t i, seen = 0;

	e2e_watch__run_with(&w, "pthread_mutex", args, watch_args);
	cr_assert_eq(e2e_int(w.truth, "sleep_under_ms"), 10);
	victim = e2e_int(w.truth, "victim_tid");
	json_array_foreach(w.stalls, i, st) {
		if (!victim_user_lock_stall(st, victim) || e2e_int(st, "lock_wait_ns") < 6000000)
			continue;
		seen++;
		h = pi_stall_holder(st);
		cr_assert(json_is_false(json_object_get(h, "pi_boosted_in_time")),
			  "an owner asleep %lld ns of a %lld ns wait told as boosted in time",
			  e2e_int(e2e_object(h, "offcpu_by_state"), "blocked"),
			  e2e_int(st, "lock_wait_ns"));
		cr_assert_geq(e2e_int(e2e_object(h, "offcpu_by_state"), "blocked") * 2,
			      e2e_int(st, "lock_wait_ns"), "the owner slept, told: %s",
			      json_dumps(h, JSON_COMPACT));
	}
	cr_assert_gt(seen, 0, "no wait of the victim of 6 ms or more (%lld calls over 5 ms)",
		     e2e_int(w.truth, "over_5ms"));
}

/*
 * futex_waitv(2) on two event words (no lock convention): each round's
 * wait is a futex wait on the vector's first word, as long as the
 * workload timed it, op futex_waitv, and no owner is ever named: at most
 * the waker, as the releaser, and no verdict on it.
 */
Test(locks, futex_waitv_wait_names_no_owner, .fini = teardown, .timeout = 180)
{
	const json_t *st, *h, *holders;
	json_int_t victim, waited;
	size_t i, j, seen = 0;

	e2e_watch__run_with(&w, "futex_waitv", NULL, e2e_futexes);
	victim = e2e_int(w.truth, "victim_tid");
	json_array_foreach(w.stalls, i, st) {
		if (!victim_user_lock_stall(st, victim))
			continue;
		cr_assert_str_eq(e2e_str(st, "lock"), "futex");
		cr_assert_str_eq(e2e_str(e2e_object(st, "lock_id"), "addr"), e2e_str(w.truth, "futex"));
		cr_assert_str_eq(e2e_str(e2e_object(st, "waiter"), "op"), "futex_waitv");
		cr_assert_str_neq(e2e_str(st, "verdict"), "priority_inversion");
		holders = e2e_array(st, "holders");
		json_array_foreach(holders, j, h) {
			cr_assert_str_eq(e2e_str(h, "found_by"), "releaser");
			cr_assert_eq(e2e_int(h, "tid"), e2e_int(w.truth, "waker_tid"));
		}
		/* inside one of the rounds the workload timed, and most of it */
		waited = e2e_int(st, "lock_wait_ns");
		for (j = 0; j < json_array_size(e2e_array(w.truth, "wait_ns")); j++) {
			json_int_t t = json_integer_value(json_array_get(e2e_array(w.truth, "wait_ns"), j));

			if (waited <= t && waited * 10 >= t * 9)
				break;
		}
		cr_assert_lt(j, json_array_size(e2e_array(w.truth, "wait_ns")),
			     "a wait of %lld ns matches no round of the workload", waited);
		seen++;
	}
	cr_assert_eq(seen, (size_t)e2e_int(w.truth, "rounds"), "%zu waits of %lld rounds", seen,
		     e2e_int(w.truth, "rounds"));
}

/*
 * futex2's futex_wait(2) (6.7+) on a lock of the workload's own: the
 * victim's slowest take is a futex wait on its word, named by its symbol,
 * op futex_wait.  Nothing in that lock names a holder: the holder is named
 * only as the releaser, and no inversion is claimed.
 */
Test(locks, futex2_wait_names_the_releaser, .fini = teardown, .timeout = 180)
{
	const char *const args[] = { "-d", "2", "-u", "100", NULL };
	const json_t *st, *h, *lock;
	json_int_t worst;

	e2e_need_futex2();
	e2e_watch__run_with(&w, "futex2_mutex", args, e2e_futexes);
	st = victim_stall(e2e_int(w.truth, "victim_tid"));
	cr_assert_not_null(st, "no futex stall of the victim (tid %lld)",
			   e2e_int(w.truth, "victim_tid"));
	lock = e2e_object(st, "lock_id");
	cr_assert_str_eq(e2e_str(lock, "kind"), "futex");
	cr_assert_str_eq(e2e_str(lock, "addr"), e2e_str(w.truth, "lock"));
	if (maps_known(st))
		cr_assert_str_eq(e2e_str(lock, "name"), e2e_str(w.truth, "lock_name"));
	cr_assert_str_eq(e2e_str(e2e_object(st, "waiter"), "op"), "futex_wait");
	cr_assert_str_eq(e2e_str(st, "verdict"), "unknown");
	h = json_array_get(e2e_array(st, "holders"), 0);
	cr_assert_not_null(h, "not even the releaser named");
	cr_assert_str_eq(e2e_str(h, "found_by"), "releaser");
	cr_assert_eq(e2e_int(h, "tid"), e2e_int(w.truth, "holder_tid"));
	worst = e2e_int(w.truth, "worst_ns");
	cr_assert_geq(e2e_int(st, "start_ns"), e2e_int(w.truth, "worst_start_ns"));
	cr_assert_leq(e2e_int(st, "end_ns"), e2e_int(w.truth, "worst_end_ns"));
	cr_assert_geq(e2e_int(st, "lock_wait_ns") * 10, worst * 9);
}

Test(locks, pthread_mutex_pi_is_no_inversion, .fini = teardown, .timeout = 180)
{
	pi_no_inversion();
}

/* What lockstall said instead of one deadlock: each stall's verdict and why, its stderr. */
static void ab_ba_tell(const struct e2e_watch *run)
{
	const json_t *st, *why;
	size_t i;

	json_array_foreach(run->stalls, i, st) {
		why = json_object_get(st, "unknown_reason");
		cr_log_error("stall %zu: waiter %lld, verdict %s%s%s", i,
			     e2e_int(e2e_object(st, "waiter"), "tid"), e2e_str(st, "verdict"),
			     json_is_string(why) ? ", " : "",
			     json_is_string(why) ? json_string_value(why) : "");
	}
	cr_log_error("%zu pending reports; stderr:\n%s", json_array_size(run->pending),
		     run->lockstall.err.data);
}

/*
 * AB/BA: reported once, as a deadlock, while it lasts (the workload prints
 * its truth only as it ends it): the cycle names both threads, each as the
 * holder of the mutex the other waits on.
 */
static void ab_ba_deadlock(void)
{
	const char *const args[] = { "-d", "2", NULL };
	const json_t *st, *found = NULL, *chain;
	json_int_t a, b, waiter, other;
	size_t i, n = 0;

	e2e_watch__run_with(&w, "ab_ba", args, e2e_futexes);
	a = e2e_int(w.truth, "tid_a");
	b = e2e_int(w.truth, "tid_b");
	json_array_foreach(w.stalls, i, st) {
		if (strcmp(e2e_str(st, "verdict"), "deadlock"))
			continue;
		n++;
		found = st;
	}
	/* a wait never seen is no cycle: only if lockstall said it lost events */
	if (!n && e2e_int(w.summary, "lost_events"))
		cr_skip_test("lockstall lost %lld events, a wait of the cycle among them (said so)",
			     e2e_int(w.summary, "lost_events"));
	if (n != 1)
		ab_ba_tell(&w);
	cr_assert_eq(n, 1, "%zu deadlock stalls, want 1", n);
	waiter = e2e_int(e2e_object(found, "waiter"), "tid");
	cr_assert(waiter == a || waiter == b, "the waiter %lld is neither thread", waiter);
	other = waiter == a ? b : a;
	/* reported while it lasted: before the workload ended it */
	cr_assert_lt(e2e_int(found, "end_ns"), e2e_int(w.truth, "end_ns"));
	cr_assert_not(json_is_true(json_object_get(found, "acquired")));
	chain = e2e_array(found, "chain");
	cr_assert_eq(json_array_size(chain), 3);
	cr_assert_eq(e2e_int(json_array_get(chain, 1), "tid"), other);
	cr_assert_str_eq(e2e_str(json_array_get(chain, 1), "role"), "holder");
	cr_assert_eq(e2e_int(json_array_get(chain, 2), "tid"), waiter);
	/* each holds the mutex the one before it waits on: the waiter's first */
	cr_assert_str_eq(e2e_str(e2e_object(found, "lock_id"), "addr"),
			 e2e_str(w.truth, waiter == b ? "mutex_a" : "mutex_b"));
	cr_assert_str_eq(e2e_str(e2e_object(json_array_get(chain, 1), "lock"), "addr"),
			 e2e_str(w.truth, waiter == b ? "mutex_a" : "mutex_b"));
	cr_assert_str_eq(e2e_str(e2e_object(json_array_get(chain, 2), "lock"), "addr"),
			 e2e_str(w.truth, waiter == b ? "mutex_b" : "mutex_a"));
}

Test(locks, ab_ba_deadlock, .fini = teardown, .timeout = 180)
{
	ab_ba_deadlock();
}

/* The report's stalls (JSON Lines in out, cut up). */
static json_t *report_stalls(char *out)
{
	json_t *stalls = json_array(), *j;
	char *line, *save = NULL;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		j = json_loads(line, 0, NULL);
		cr_assert_not_null(j, "not JSON: %s", line);
		if (json_is_string(json_object_get(j, "type")) && !strcmp(e2e_str(j, "type"), "stall"))
			json_array_append(stalls, j);
		json_decref(j);
	}
	return stalls;
}

/*
 * A report names the futex as the live run did: the recording keeps the
 * process's mappings and its files' build-ids.
 */
Test(locks, mutex_named_in_a_report, .fini = teardown, .timeout = 180)
{
	const char *const args[] = { "-d", "2", "-u", "100", "--in-struct", NULL };
	char file[128];
	const char *const watch_args[] = { "-o", file, "--locks", "all", NULL };
	const char *const report[] = { "report", file, "--format", "json", NULL };
	json_t *stalls;

	strcpy(dir, "/tmp/lockstall-e2e-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/run.lst", dir);
	e2e_watch__run_with(&w, "pthread_mutex", args, watch_args);
	check_mutex_names(w.stalls);
	e2e_run_cli(&rp, report);
	cr_assert_eq(e2e_proc__exit_code(&rp), 0, "report: stderr:\n%s", rp.err.data);
	stalls = report_stalls(rp.out.data);
	/* the live run read the mappings: the recording has them, and so names it */
	cr_assert_gt(count_mutex_names(stalls), 0, "no stall named the mutex in the report");
	json_decref(stalls);
}

/*
 * The hop of st's chain where the chain enters a lock of kind, named by
 * its own stall, and goes on to tid holding it: that hop; NULL if none.
 * The hop is tid itself, or a writer queued ahead of the one who waits.
 */
static const json_t *hop_through(const json_t *st, json_int_t tid, const char *kind)
{
	const json_t *chain = e2e_array(st, "chain"), *hop, *at = NULL;
	size_t i;

	json_array_foreach(chain, i, hop) {
		if (!at && json_object_get(hop, "stall") &&
		    !strcmp(e2e_str(e2e_object(hop, "lock"), "kind"), kind))
			at = hop;
		if (at && e2e_int(hop, "tid") == tid && !strcmp(e2e_str(hop, "role"), "holder"))
			return at;
	}
	return NULL;
}

/* A chain that stopped short, for the log: its hops, then the stalls of the mmap_lock. */
static void chain_tell(const json_t *st)
{
	const json_t *other;
	char *text;
	size_t i;

	text = json_dumps(e2e_array(st, "chain"), JSON_COMPACT);
	cr_log_error("stall #%lld's chain: %s", e2e_int(st, "seq"), text);
	free(text);
	json_array_foreach(w.stalls, i, other) {
		if (strcmp(e2e_str(other, "lock"), "mmap_lock"))
			continue;
		text = json_dumps(e2e_array(other, "chain"), JSON_COMPACT);
		cr_log_error("stall #%lld (mmap_lock, %lld ns): %s", e2e_int(other, "seq"),
			     e2e_int(other, "lock_wait_ns"), text);
		free(text);
	}
}

/*
 * Run proc_reader with via (its --via-* flag, which its truth echoes as
 * truth) and watch's --locks locks.  Every long wait of the victim on a
 * lock of kind names the whole chain: the worker holding it, the reader
 * holding the mmap_lock (named by the stall of the worker's or the
 * writer's wait for it), and an inversion; the longest ends at the hog.
 */
static void chain_through(const char *via, const char *truth, const char *locks, const char *kind)
{
	const char *const args[] = { via, "-d", "2", NULL };
	const char *const watch[] = { "--locks", locks, NULL };
	const json_t *st, *best = NULL, *hop, *chain;
	json_int_t worker, reader;
	size_t i, n = 0;

	e2e_watch__run_with(&w, "proc_reader", args, watch);
	cr_assert(json_is_true(json_object_get(w.truth, truth)));
	/* the workload's own word that the chain could form: its victim came after the worker */
	if (!strcmp(truth, "via_seqfile"))
		cr_assert(json_is_true(json_object_get(w.truth, "worker_in_read")),
			  "the worker was never seen in its read: the victim went first");
	worker = e2e_int(w.truth, "worker_tid");
	reader = e2e_int(w.truth, "holder_tid");
	json_array_foreach(w.stalls, i, st) {
		if (strcmp(e2e_str(st, "lock"), kind) ||
		    e2e_int(e2e_object(st, "waiter"), "tid") != e2e_int(w.truth, "victim_tid") ||
		    e2e_int(st, "lock_wait_ns") < 20000000)
			continue;
		n++;
		cr_assert_eq(e2e_int(json_array_get(e2e_array(st, "holders"), 0), "tid"), worker,
			     "stall #%lld: the worker does not hold the %s", e2e_int(st, "seq"), kind);
		hop = hop_through(st, reader, "mmap_lock");
		if (!hop)
			chain_tell(st);
		cr_assert_not_null(hop, "stall #%lld: the chain stops before the reader",
				   e2e_int(st, "seq"));
		cr_assert_gt(e2e_int(hop, "wait_ns"), 0);
		cr_assert_str_eq(e2e_str(st, "verdict"), "priority_inversion", "stall #%lld",
				 e2e_int(st, "seq"));
		if (!best || e2e_int(st, "lock_wait_ns") > e2e_int(best, "lock_wait_ns"))
			best = st;
	}
	cr_assert_gt(n, 0, "no wait of the victim on the %s of 20ms or more (worst %lldns)", kind,
		     e2e_int(w.truth, "worst_ns"));
	chain = e2e_array(best, "chain");
	hop = json_array_get(chain, json_array_size(chain) - 1);
	cr_assert_str_eq(e2e_str(hop, "role"), "preemptor");
	cr_assert_eq(e2e_int(hop, "tid"), e2e_int(w.truth, "hog_tid"), "the longest ends at %s",
		     e2e_str(hop, "comm"));
}

/*
 * A holder that waits on a second lock inside the first, and gets it
 * before the victim's wait ends (proc_reader --via-mutex): the SCHED_FIFO
 * victim waits on a pthread mutex that wl-worker holds while its mmap()
 * waits for the mmap_lock the SCHED_IDLE reader of /proc/PID/environ holds,
 * preempted by the hog.
 */
Test(locks, chain_through_a_wait_that_ended, .fini = teardown, .timeout = 180)
{
	chain_through("--via-mutex", "via_mutex", "mmap,futex", "futex");
}

/*
 * The same through a kernel mutex (proc_reader --via-seqfile): the victim
 * and wl-worker read one open file of /proc/self/smaps_rollup, whose
 * seq_file mutex a read holds while it waits for the mmap_lock for
 * reading, behind wl-writer's mmap(), behind the reader.
 */
Test(locks, chain_through_a_kernel_mutex, .fini = teardown, .timeout = 180)
{
	chain_through("--via-seqfile", "via_seqfile", "mmap,kernel", "mutex");
}

/*
 * The same with owners followed by TID, as on kernels before 6.2 (no
 * bpf_task_from_pid()), forced here so that every run tests that way too.
 */
TestSuite(locks_by_tid, .init = e2e_owner_by_tid, .fini = teardown, .timeout = 180);

Test(locks_by_tid, pthread_mutex_inversion)
{
	mutex_inversion();
	e2e_watch__said_by_tid(&w);
}

Test(locks_by_tid, pthread_rwlock_reader_behind_writer)
{
	rwlock_inversion(false);
	e2e_watch__said_by_tid(&w);
}

Test(locks_by_tid, pthread_rwlock_writer_behind_writer)
{
	rwlock_inversion(true);
	e2e_watch__said_by_tid(&w);
}

Test(locks_by_tid, pthread_mutex_pi_is_no_inversion)
{
	pi_no_inversion();
	e2e_watch__said_by_tid(&w);
}

Test(locks_by_tid, ab_ba_deadlock)
{
	ab_ba_deadlock();
	e2e_watch__said_by_tid(&w);
}
