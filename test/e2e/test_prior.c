// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Waits that began before lockstall did: the workload is started first and
 * lockstall only once the workload says its threads sleep in their futex
 * waits (its own ground truth, from /proc/self/task/TID/syscall), as the
 * on-call engineer starts it on a process that already hangs.  The scan at
 * start-up must find those waits and report them as lasting at least
 * since then (began_before_tracing).  Needs root, BPF and a kernel that
 * traces futexes (6.2+).
 */
#include <signal.h>
#include <string.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

static struct e2e_watch w = E2E_WATCH_INIT;

static void teardown(void)
{
	e2e_watch__release(&w);
}

/*
 * The lines of arr (stalls or pending reports) whose waiter is tid and
 * whose string field key is value (key NULL: all of tid's).
 */
static size_t lines_of(const json_t *arr, json_int_t tid, const char *key, const char *value,
		       const json_t **last)
{
	const json_t *st;
	size_t i, n = 0;

	json_array_foreach(arr, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "tid") != tid ||
		    (key && strcmp(e2e_str(st, key), value)))
			continue;
		*last = st;
		n++;
	}
	return n;
}

static void expect_before_tracing(const json_t *st, json_int_t wait_ns)
{
	cr_assert(json_is_true(json_object_get(st, "began_before_tracing")),
		  "no began_before_tracing in the report of a wait that began before lockstall");
	/* its start is when lockstall found it: after the workload saw it waiting */
	cr_assert_geq(e2e_int(st, "start_ns"), wait_ns);
	cr_assert_eq(e2e_int(st, "wait_ns"), e2e_int(st, "end_ns") - e2e_int(st, "start_ns"));
}

/* The AB/BA deadlock complete before lockstall starts: found, and told as DEADLOCK. */
Test(prior, ab_ba_deadlock_before_tracing, .fini = teardown, .timeout = 240)
{
	const char *const args[] = { "-d", "600", NULL };
	const json_t *found = NULL, *chain;
	json_int_t a, b, waiter, other;
	size_t n = 0;

	e2e_watch__run_after(&w, "ab_ba", args, "\"both_wait\":true",
			     "\"verdict\":\"deadlock\"", 0, e2e_futexes);
	a = e2e_int(w.truth, "tid_a");
	b = e2e_int(w.truth, "tid_b");
	n = lines_of(w.stalls, a, "verdict", "deadlock", &found) +
	    lines_of(w.stalls, b, "verdict", "deadlock", &found);
	cr_assert_eq(n, 1, "%zu deadlock stalls, want 1", n);
	expect_before_tracing(found, e2e_int(w.truth, "wait_ns"));
	cr_assert_not(json_is_true(json_object_get(found, "acquired")));
	waiter = e2e_int(e2e_object(found, "waiter"), "tid");
	other = waiter == a ? b : a;
	chain = e2e_array(found, "chain");
	cr_assert_eq(json_array_size(chain), 3);
	cr_assert_eq(e2e_int(json_array_get(chain, 1), "tid"), other);
	cr_assert_eq(e2e_int(json_array_get(chain, 2), "tid"), waiter);
	/* each holds the mutex the one before it waits on, as the workload says */
	cr_assert_str_eq(e2e_str(e2e_object(found, "lock_id"), "addr"),
			 e2e_str(w.truth, waiter == b ? "mutex_a" : "mutex_b"));
	cr_assert_str_eq(e2e_str(e2e_object(json_array_get(chain, 2), "lock"), "addr"),
			 e2e_str(w.truth, waiter == b ? "mutex_b" : "mutex_a"));
}

/*
 * A priority inversion whose victim waits already: the SCHED_IDLE holder
 * keeps the mutex, starved by the hog, while the real-time victim waits
 * all along.  Reported pending, at least since lockstall found it, with
 * the holder the workload names, preempted, and the verdict it earns.
 */
Test(prior, mutex_inversion_victim_waiting_before_tracing, .fini = teardown, .timeout = 240)
{
	const char *const args[] = { "--hold-all", "-d", "600", NULL };
	const json_t *rep = NULL, *holder;
	json_int_t victim;
	size_t n;

	e2e_watch__run_after(&w, "pthread_mutex", args, "\"victim_waits\":true",
			     "\"began_before_tracing\":true", 0, e2e_futexes);
	victim = e2e_int(w.truth, "victim_tid");
	n = lines_of(w.pending, victim, NULL, NULL, &rep);
	cr_assert_geq(n, 1, "no pending report of the victim %lld", victim);
	expect_before_tracing(rep, e2e_int(w.truth, "wait_ns"));
	cr_assert_str_eq(e2e_str(rep, "lock"), "futex");
	cr_assert_str_eq(e2e_str(e2e_object(rep, "lock_id"), "addr"), e2e_str(w.truth, "lock"));
	holder = e2e_holder_with_tid(rep, e2e_int(w.truth, "holder_tid"));
	cr_assert_not_null(holder, "the holder %lld is not among the report's holders",
			   e2e_int(w.truth, "holder_tid"));
	cr_assert_str_eq(e2e_str(holder, "found_by"), "pthread_owner");
	cr_assert_str_eq(e2e_str(rep, "verdict"), "priority_inversion");
}

/*
 * Its end: the victim waits before tracing, then the holder lets go while
 * lockstall watches.  The wait is reported ended, acquired, once, between
 * lockstall finding it and the victim's own clock reading after its lock
 * call returned.  With fentry on the futex calls (bpf/futex.bpf.h) that
 * end has no fexit to see it; a plain mutex and a PI one end differently.
 * That stall, on a lock of kind `kind`: a futex's on the workload's word
 * (its truth's "lock").
 */
static const json_t *wait_that_ends(const char *workload, const char *const args[],
				    const char *kind)
{
	const json_t *st = NULL, *any = NULL;
	json_int_t victim;
	size_t n;

	/* a kernel mutex's wait needs no futexes, which are off by default here and there */
	e2e_watch__run_after(&w, workload, args, "\"victim_waits\":true",
			     "\"began_before_tracing\":true", SIGUSR1,
			     strcmp(kind, "mutex") ? e2e_futexes : NULL);
	victim = e2e_int(w.truth, "victim_tid");
	/*
	 * Its waits on other locks are no matter: on PREEMPT_RT the futex
	 * code's own spinlocks are rt_mutexes, and under TCG the woken victim
	 * may wait on one past the threshold.
	 */
	n = lines_of(w.stalls, victim, "lock", kind, &st);
	if (lines_of(w.stalls, victim, NULL, NULL, &any) != n)
		cr_log_info("the victim also waited on other locks, the last: %s",
			    e2e_str(any, "lock"));
	cr_assert_eq(n, 1, "%zu %s stalls of the victim %lld, want its one wait", n, kind, victim);
	expect_before_tracing(st, e2e_int(w.truth, "wait_ns"));
	cr_assert(json_is_true(json_object_get(st, "acquired")), "the victim's wait is not acquired");
	cr_assert_leq(e2e_int(st, "end_ns"), e2e_int(w.truth, "worst_end_ns"),
		      "the wait ended after the victim's lock call had returned");
	cr_assert_str_eq(e2e_str(st, "lock"), kind);
	if (strcmp(kind, "mutex"))
		cr_assert_str_eq(e2e_str(e2e_object(st, "lock_id"), "addr"),
				 e2e_str(w.truth, "lock"));
	return st;
}

Test(prior, mutex_wait_that_ends_while_traced, .fini = teardown, .timeout = 240)
{
	const char *const args[] = { "--hold-all", "-d", "600", NULL };

	wait_that_ends("pthread_mutex", args, "futex");
}

Test(prior, pi_mutex_wait_that_ends_while_traced, .fini = teardown, .timeout = 240)
{
	const char *const args[] = { "--pi", "--hold-all", "-d", "600", NULL };

	wait_that_ends("pthread_mutex", args, "pi_futex");
}

/* The same in futex2's futex_wait(2) (6.7+), on the workload's own lock. */
Test(prior, futex2_wait_that_ends_while_traced, .fini = teardown, .timeout = 240)
{
	const char *const args[] = { "--hold-all", "-d", "600", NULL };

	e2e_need_futex2();
	wait_that_ends("futex2_mutex", args, "futex");
}

/*
 * A kernel mutex (a pipe's, held by a write(2) asleep in a userfaultfd
 * fault) waited on before lockstall started: found through
 * task_struct.blocked_on (6.16+; a PREEMPT_RT mutex is an rt_mutex, which
 * never sets it), its owner read from the mutex, and once the hold ends
 * while lockstall watches, reported acquired, once, before the victim's
 * call returned.
 */
Test(prior, kernel_mutex_wait_that_ends_while_traced, .fini = teardown, .timeout = 240)
{
	const char *const args[] = { "--lock", "pipe", "--hold-all", NULL };
	const json_t *st, *holder;

	if (!e2e_kernel_at_least(6, 16) || e2e_kernel_is_preempt_rt())
		cr_skip_test("no task_struct.blocked_on for a mutex here (6.16+, not PREEMPT_RT)");
	st = wait_that_ends("klock_uffd", args, "mutex");
	holder = e2e_holder_with_tid(st, e2e_int(w.truth, "holder_tid"));
	cr_assert_not_null(holder, "the holder %lld is not among the stall's holders",
			   e2e_int(w.truth, "holder_tid"));
	cr_assert_str_eq(e2e_str(holder, "found_by"), "lock_owner");
	cr_assert_str_eq(e2e_str(holder, "state"), "blocked");
}
