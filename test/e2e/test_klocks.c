// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall watch against the kernel's sleeping locks, checked against the
 * ground truth of test/workloads/klock_uffd: a SCHED_IDLE holder asleep in
 * a userfaultfd fault under a kernel lock for HOLD_MS, five rounds, while a
 * SCHED_FIFO victim waits for the lock.  Needs root, BPF, the
 * lock:contention_begin/end tracepoints (5.19+); klocks_by_tid runs them
 * with owners followed by TID, as kernels before 6.2 (no
 * bpf_task_from_pid()) do.
 */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

static struct e2e_watch w = E2E_WATCH_INIT;

static void teardown(void)
{
	e2e_watch__release(&w);
}

struct klock_case {
	const char *lock;	/* the workload's --lock */
	const char *kind;	/* lock_id.kind */
	const char *found_by;
	const char *verdict;
	const char *caller;	/* lock_id.caller: where the victim asked for it */
	const char *caller_old;	/* ... on older kernels (6.1), if named otherwise there */
};

/* The victim's stalls on a kernel lock of kind, in order. */
static size_t victim_stalls(const char *kind, json_int_t victim, const json_t **out, size_t max)
{
	const json_t *st;
	size_t i, n = 0;

	json_array_foreach(w.stalls, i, st) {
		if (strcmp(e2e_str(st, "lock"), kind) ||
		    e2e_int(e2e_object(st, "waiter"), "tid") != victim)
			continue;
		if (n < max)
			out[n] = st;
		n++;
	}
	return n;
}

/* Round r's entry of a per-round array of the truth. */
static json_int_t round_ns(size_t r, const char *key)
{
	const json_t *v = json_array_get(e2e_array(w.truth, key), r);

	cr_assert(json_is_integer(v), "truth: no %s[%zu]", key, r);
	return json_integer_value(v);
}

/* The round whose wait a stall is: it began between the victim's call and the holder's wake. */
static size_t round_of(const json_t *st)
{
	json_int_t start = e2e_int(st, "start_ns");
	size_t r;

	for (r = 0; r < json_array_size(e2e_array(w.truth, "victim_start_ns")); r++)
		if (start >= round_ns(r, "victim_start_ns") && start <= round_ns(r, "hold_end_ns"))
			return r;
	cr_assert_fail("the stall at %lld is in no round of the workload", start);
	return 0;
}

/* A run of the workload with --lock c->lock, checked round by round. */
static void klock_check(const struct klock_case *c)
{
	const char *const args[] = { "--lock", c->lock, NULL };
	const json_t *found[16], *st, *h, *lock, *chain, *hist;
	json_int_t rounds, hold_ns;
	size_t n, i, r, short_rounds = 0;
	char kind_hist[32];

	snprintf(kind_hist, sizeof(kind_hist), "%s_wait", c->kind);
	e2e_watch__run(&w, "klock_uffd", args);
	cr_assert_str_eq(e2e_str(w.truth, "victim_policy"), "fifo");
	rounds = e2e_int(w.truth, "rounds");
	hold_ns = e2e_int(w.truth, "hold_ms") * 1000000;
	/* each round's wait is in the histogram of the lock's kind, write mode (the victim's) */
	hist = e2e_hist(w.summary, kind_hist, e2e_int(w.truth, "pid"), "write");
	cr_assert_not_null(hist, "no %s histogram of the workload", kind_hist);
	cr_assert_str_eq(e2e_str(hist, "lock"), c->kind);
	cr_assert_geq(e2e_hist_at_least(hist, hold_ns / 2000), rounds);
	cr_assert_leq(e2e_hist_top(hist), e2e_hist_slot(e2e_int(w.truth, "worst_ns")));
	n = victim_stalls(c->kind, e2e_int(w.truth, "victim_tid"), found, 16);
	/* every round's wait, and nothing else of the victim's */
	cr_assert_eq(n, (size_t)rounds, "%zu %s stalls of the victim, want %lld", n, c->kind,
		     rounds);
	for (i = 0; i < n; i++) {
		st = found[i];
		lock = e2e_object(st, "lock_id");
		cr_assert_str_eq(e2e_str(lock, "kind"), c->kind);
		cr_assert_str_eq(e2e_str(st, "verdict"), c->verdict);
		/* one lock, every round: the same address */
		cr_assert_str_eq(e2e_str(lock, "addr"),
				 e2e_str(e2e_object(found[0], "lock_id"), "addr"));
		if (c->caller)
			cr_assert(!strcmp(e2e_str(lock, "caller"), c->caller) ||
				  (c->caller_old && !strcmp(e2e_str(lock, "caller"), c->caller_old)),
				  "caller %s, want %s", e2e_str(lock, "caller"), c->caller);
		/* the victim waited for most of the holder's sleep, never more than the run */
		cr_assert_geq(e2e_int(st, "lock_wait_ns") * 2, hold_ns);
		cr_assert_leq(e2e_int(st, "lock_wait_ns"), e2e_int(w.truth, "worst_ns"));
		cr_assert_geq(e2e_int(st, "start_ns"), e2e_int(w.truth, "first_hold_start_ns"));
		cr_assert_leq(e2e_int(st, "end_ns"), e2e_int(w.truth, "end_ns"));
		h = json_array_get(e2e_array(st, "holders"), 0);
		cr_assert_not_null(h, "no holder");
		cr_assert_eq(e2e_int(h, "tid"), e2e_int(w.truth, "holder_tid"));
		cr_assert_str_eq(e2e_str(h, "found_by"), c->found_by);
		cr_assert_str_eq(e2e_str(h, "policy"), "idle");
		/*
		 * Asleep in the fault until the handler's copy woke it, all
		 * the time the victim waited before that (but the victim's
		 * way from its clock read into the lock); then, SCHED_IDLE
		 * on a shared machine, it may wait long for a CPU: preempted
		 * is its state when that took longer.
		 */
		r = round_of(st);
		/*
		 * All but one round: an owner caught in the middle of its
		 * switch-out when the waiter names it can still be told as
		 * preempted or running for a while (src/engine/locks.md).
		 */
		short_rounds += e2e_int(e2e_object(h, "offcpu_by_state"), "blocked") + 1000000 <
				round_ns(r, "hold_end_ns") - round_ns(r, "victim_start_ns");
		cr_assert_leq(short_rounds, 1, "the holder's sleep was missed in %zu rounds",
			      short_rounds);
		cr_assert_eq(e2e_int(e2e_object(h, "woken_by"), "tid"),
			     e2e_int(w.truth, "handler_tid"));
		chain = e2e_array(st, "chain");
		cr_assert_eq(json_array_size(chain), 3);
		if (!strcmp(e2e_str(h, "state"), "preempted")) {
			cr_assert_str_eq(e2e_str(json_array_get(chain, 2), "role"), "preemptor");
			continue;
		}
		cr_assert_str_eq(e2e_str(h, "state"), "blocked");
		cr_assert_str_eq(e2e_str(json_array_get(chain, 2), "role"), "waker");
		cr_assert_eq(e2e_int(json_array_get(chain, 2), "tid"),
			     e2e_int(w.truth, "handler_tid"));
	}
}

/* pipe->mutex, owned by the holder: an inversion, asked for in pipe_write. */
static const struct klock_case pipe_mutex = { "pipe", "mutex", "lock_owner", "priority_inversion",
					      "anon_pipe_write", "pipe_write" };
/* A file's i_rwsem, write-owned by the holder: the same. */
static const struct klock_case rwsem_writer = { "file", "rwsem", "lock_owner",
						"priority_inversion", NULL, NULL };
/* A directory's i_rwsem read by the holder's getdents64(2): its last reader, a hint. */
static const struct klock_case rwsem_reader = { "dir", "rwsem", "reader_hint", "unknown",
						"path_openat", NULL };

Test(klocks, pipe_mutex_owner, .fini = teardown, .timeout = 180)
{
	klock_check(&pipe_mutex);
}

Test(klocks, rwsem_writer_owner, .fini = teardown, .timeout = 180)
{
	klock_check(&rwsem_writer);
}

Test(klocks, rwsem_reader_hint, .fini = teardown, .timeout = 180)
{
	klock_check(&rwsem_reader);
}

/* Owners followed by TID, forced where bpf_task_from_pid() exists: said on stderr. */
static void klock_check_by_tid(const struct klock_case *c)
{
	klock_check(c);
	e2e_watch__said_by_tid(&w);
}

/*
 * Not the pipe mutex yet: by TID its holder is at times told preempted
 * for the whole wait, its sleep and its waker missed.
 */
TestSuite(klocks_by_tid, .init = e2e_owner_by_tid, .fini = teardown, .timeout = 180);

Test(klocks_by_tid, rwsem_writer_owner)
{
	klock_check_by_tid(&rwsem_writer);
}

Test(klocks_by_tid, rwsem_reader_hint)
{
	klock_check_by_tid(&rwsem_reader);
}

/*
 * An mmap_lock is an rwsem too: its contention is told once, by its own
 * tracepoints, with its readers; never again as a kernel rwsem.  The
 * proc_reader workload's victim waits for an mmap_lock that a preempted
 * /proc reader holds (run again, as the mmap_lock tests do, while the
 * workload's own truth says the holder was never preempted mid-hold).
 */
Test(klocks, mmap_lock_is_told_once, .fini = teardown, .timeout = 300)
{
	const char *const args[] = { "-u", "20", NULL };
	json_int_t victim;
	const json_t *st;
	size_t i, mmap = 0, other = 0;
	int attempt;

	for (attempt = 0; attempt < 3; attempt++) {
		if (attempt)
			e2e_watch__release(&w);
		e2e_watch__run(&w, "proc_reader", args);
		if (e2e_int(w.truth, "worst_ns") >= 20000000)
			break;
	}
	cr_assert_geq(e2e_int(w.truth, "worst_ns"), 20000000, "the holder was never preempted");
	victim = e2e_int(w.truth, "victim_tid");
	json_array_foreach(w.stalls, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "tid") != victim)
			continue;
		if (!strcmp(e2e_str(st, "lock"), "mmap_lock"))
			mmap++;
		else
			other++;
	}
	cr_assert_gt(mmap, 0, "no mmap_lock stall of the victim");
	cr_assert_eq(other, 0, "%zu stalls of the victim on other locks", other);
}
