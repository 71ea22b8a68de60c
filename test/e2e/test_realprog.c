// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Programs lockstall's authors did not write make the stall (coreutils dd,
 * procps top), and a bpftrace script that shares no code with lockstall
 * says what happened (the workloads named *_judged,
 * test/workloads/judge.h).  Every wait the judge saw must be a stall of
 * lockstall's with the judge's waiter, lock and holder; where others ran
 * in the holder's place for half the wait or more, the holder kept off its
 * CPU and the verdict priority inversion; where one of them ran at least
 * twice as long as the next, the chain ending at it.
 */
#include <string.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

static struct e2e_watch w = E2E_WATCH_INIT;

static void teardown(void)
{
	e2e_watch__release(&w);
}

TestSuite(realprog, .fini = teardown, .timeout = 60);

/* The last hop of a stall's chain. */
static const json_t *chain_end(const json_t *st)
{
	const json_t *chain = e2e_array(st, "chain");

	return json_array_get(chain, json_array_size(chain) - 1);
}

/*
 * One wait the judge saw, against lockstall's stall of it: lock kind and
 * address, holder, the holder off its CPU for others (most of the wait, as
 * the judge saw it), and the chain's end, where the judge's longest runner
 * ran at least twice as long as the next.  True when the chain's end was
 * checked.
 */
static bool judged_wait(const json_t *jw, const char *kind)
{
	json_int_t start = e2e_int(jw, "start_ns"), len = e2e_int(jw, "end_ns") - start;
	const json_t *st, *hd, *hop;

	st = e2e_stall_of(&w, e2e_int(jw, "tid"), start);
	cr_assert_not_null(st, "the judge's wait at %lld (%lld ns) was not reported", start, len);
	cr_assert_str_eq(e2e_str(st, "lock"), kind, "stall #%lld", e2e_int(st, "seq"));
	/* an mmap_lock is known by its mm, the others by their address */
	cr_assert_str_eq(strcmp(kind, "mmap_lock") ? e2e_str(e2e_object(st, "lock_id"), "addr") :
						     e2e_str(e2e_object(st, "mm"), "id"),
			 e2e_str(jw, "lock"), "stall #%lld: another lock", e2e_int(st, "seq"));
	hd = e2e_holder_with_tid(st, e2e_int(jw, "owner"));
	cr_assert_not_null(hd, "stall #%lld: the judge's owner %lld is no holder", e2e_int(st, "seq"),
			   e2e_int(jw, "owner"));
	cr_assert_eq(e2e_int(json_array_get(e2e_array(st, "holders"), 0), "tid"),
		     e2e_int(jw, "owner"), "stall #%lld: another holder first", e2e_int(st, "seq"));
	if (e2e_int(jw, "ran_ns") * 2 < len)
		return false;
	/* preempted holding it, or handed it while it could not run */
	cr_assert(!strcmp(e2e_str(hd, "state"), "preempted") ||
		  !strcmp(e2e_str(hd, "state"), "granted_not_running"),
		  "stall #%lld: the holder was %s", e2e_int(st, "seq"), e2e_str(hd, "state"));
	cr_assert_str_eq(e2e_str(st, "verdict"), "priority_inversion", "stall #%lld",
			 e2e_int(st, "seq"));
	if (e2e_int(jw, "top_ns") < 2 * e2e_int(jw, "next_ns"))
		return false;
	hop = chain_end(st);
	cr_assert_str_eq(e2e_str(hop, "role"), "preemptor", "stall #%lld", e2e_int(st, "seq"));
	cr_assert_eq(e2e_int(hop, "tid"), e2e_int(jw, "top_tid"),
		     "stall #%lld: the chain ends at %s (%lld), the judge saw %lld run longest",
		     e2e_int(st, "seq"), e2e_str(hop, "comm"), e2e_int(hop, "tid"),
		     e2e_int(jw, "top_tid"));
	return true;
}

/*
 * Run a judged workload with args and check every wait its judge saw (of
 * kind, owned by the workload's holder); at least one where one task
 * stood out in the holder's place.
 */
static void judged_run(const char *workload, const char *const args[], const char *kind)
{
	const json_t *jw;
	size_t i, ended = 0;

	e2e_watch__run(&w, workload, args);
	cr_assert_gt(json_array_size(e2e_array(w.truth, "waits")), 0,
		     "%s: the judge saw no wait as long as asked", workload);
	json_array_foreach(e2e_array(w.truth, "waits"), i, jw) {
		cr_assert_eq(e2e_int(jw, "owner"), e2e_int(w.truth, "holder_pid"),
			     "the judge saw another owner: not the stall this test builds");
		ended += judged_wait(jw, kind);
	}
	cr_log_info("%s: %zu waits judged, %zu with one task standing out in the holder's place",
		    workload, i, ended);
	cr_assert_gt(ended, 0, "no wait where one task stood out in the holder's place");
}

/*
 * coreutils dd: a nice 19 writer holds a file's i_rwsem inside its write()
 * while a hog keeps it off its CPU; a SCHED_FIFO dd's appends wait.
 */
Test(realprog, dd_i_rwsem)
{
	const char *const args[] = { "-n", "2", "-m", "20", NULL };

	judged_run("dd_judged", args, "rwsem");
}

/*
 * procps top: "top -c" reads a SCHED_FIFO process's command line under
 * its mmap_lock every 20 ms, SCHED_IDLE beside a hog; the lock is handed
 * to top, which cannot run, and the process's next mprotect() waits.
 */
Test(realprog, top_cmdline)
{
	const char *const args[] = { "-n", "6", "-m", "15", "-d", "20", NULL };

	judged_run("top_judged", args, "mmap_lock");
}
