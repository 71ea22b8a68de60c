// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RT throttling end to end: rt_holder's SCHED_FIFO holder spins
 * with a pthread mutex held until its CPU's RT budget runs out, and lets
 * it go when the throttle ends; its victim waits for the mutex on the
 * other CPU.  The workload measures its throttles itself (gaps in its own
 * spin loop's clock).
 *
 * The fixture lowers the RT budget for the test and puts it back in its
 * teardown, on every path: at the default 950 ms of 1 s the fair server
 * (dl_server, 6.12+) gives starved fair tasks the CPU's last 50 ms of a
 * second about when the RT budget ends, and on a loaded machine it may come
 * first, so the holder is preempted rather than throttled.  With a budget
 * well below that, throttling comes first.  The budget is the root cpu
 * cgroup's cpu.rt_runtime_us with RT groups (cgroup v1; the sysctl cannot
 * go below it: EINVAL), else kernel.sched_rt_runtime_us.
 *
 * The kernel decides (bpf/throttle.bpf.h, src/engine/causes.md):
 *  - a kernel that throttles RT run queues (before 6.12, or with
 *    CONFIG_RT_GROUP_SCHED): the victim's stalls are blamed on the holder,
 *    cause rt_throttled, their state still preempted, and the throttled
 *    time fits in the gaps the holder measured while it held the mutex;
 *  - a kernel that does not (6.12+ without RT groups): the fair server
 *    preempts the holder instead, and nothing may say rt_throttled.
 * A suite of its own, not watch: the kernel matrix (test/kernels) runs
 * the watch suite under emulation, where these take minutes per backend; run them
 * in a guest with LOCKSTALL_KERNEL_SCRIPT.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

#define RT_GROUP_RUNTIME	"/sys/fs/cgroup/cpu/cpu.rt_runtime_us"
#define RT_SYSCTL_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
#define RT_TEST_RUNTIME		"800000"	/* us of the default 1 s period: 200 ms throttles */

static struct e2e_watch w = E2E_WATCH_INIT;
static const char *budget_path;	/* the budget changed; NULL: none */
static char saved_runtime[32];	/* its value before */

/* Lower the RT budget in path, keeping the old one for teardown; false if it cannot be. */
static bool rt_budget_lower(const char *path)
{
	char old[32] = "";
	int err;

	if (!e2e_read_line(path, old, sizeof(old)) || !old[0])
		return false;
	err = e2e_write_file(path, RT_TEST_RUNTIME);
	if (err) {
		cr_log_warn("cannot set %s to %s: %s; its budget stays", path, RT_TEST_RUNTIME,
			    strerror(-err));
		return false;
	}
	snprintf(saved_runtime, sizeof(saved_runtime), "%s", old);
	budget_path = path;
	return true;
}

static void teardown(void)
{
	int err;

	e2e_watch__release(&w);
	if (!budget_path)
		return;
	err = e2e_write_file(budget_path, saved_runtime);
	if (err)
		cr_log_error("cannot put %s back to %s: %s", budget_path, saved_runtime,
			     strerror(-err));
	budget_path = NULL;
}

/* Whether this kernel's file says CONFIG_RT_GROUP_SCHED=y; false if none can be read. */
static bool config_has_rt_group_sched(const char *release)
{
	char path[256], line[256];
	bool yes = false;
	FILE *f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!yes && fgets(line, sizeof(line), f))
		yes = !strcmp(line, "CONFIG_RT_GROUP_SCHED=y\n");
	fclose(f);
	return yes;
}

/*
 * Whether the kernel throttles RT run queues: always before 6.12; from 6.12
 * (commit 5f6bd380c7bd) only with CONFIG_RT_GROUP_SCHED, whose cgroup v1
 * cpu.rt_runtime_us says so when the config file is not there.
 */
static bool kernel_throttles_rt(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return true;
	if (major < 6 || (major == 6 && minor < 12))
		return true;
	return config_has_rt_group_sched(u.release) ||
	       !access("/sys/fs/cgroup/cpu/cpu.rt_runtime_us", F_OK);
}

/* The rt_throttled cause of a holder, or NULL. */
static const json_t *rt_throttled_of(const json_t *h)
{
	const json_t *c = json_object_get(h, "causes");

	return c ? json_object_get(c, "rt_throttled") : NULL;
}

/* One victim stall with the holder throttled: its time, within the holder's runnable time. */
static json_int_t check_rt_stall(const json_t *st, const json_t *h, json_int_t *named)
{
	const json_t *by = e2e_object(h, "offcpu_by_state");
	json_int_t ns = e2e_int(rt_throttled_of(h), "ns");

	/* A throttled task is runnable: its states stay, and hold the throttled time. */
	cr_expect_leq(ns, e2e_int(by, "preempted") + e2e_int(by, "granted_not_running"),
		      "rt_throttled beyond runnable off CPU: %s", json_dumps(h, JSON_COMPACT));
	if (!strcmp(e2e_str(h, "cause"), "rt_throttled")) {
		(*named)++;
		cr_expect_str_eq(e2e_str(st, "cause"), "rt_throttled");
		cr_expect(strstr(e2e_str(st, "advice"), "sched_rt_runtime_us"), "advice: %s",
			  e2e_str(st, "advice"));
	}
	return ns;
}

/* The victim's stalls name the holder rt_throttled, within bound_key of the truth (ns). */
static void check_rt_throttled(json_int_t victim_pid, json_int_t holder_tid, const char *bound_key)
{
	json_int_t sum = 0, n = 0, named = 0, longest = 0, ns;
	const json_t *st, *h;
	size_t i;

	json_array_foreach(w.stalls, i, st) {
		if (e2e_int(e2e_object(st, "mm"), "pid") != victim_pid)
			continue;
		h = e2e_holder_with_tid(st, holder_tid);
		if (!h || !rt_throttled_of(h))
			continue;
		n++;
		ns = check_rt_stall(st, h, &named);
		sum += ns;
		longest = ns > longest ? ns : longest;
	}
	cr_log_info("rt_throttled stalls of the victim: %lld (%lld named), %lldus in all, the "
		    "longest %lldus; the workload's %s: %lldus", n, named, sum / 1000,
		    longest / 1000, bound_key, e2e_int(w.truth, bound_key) / 1000);
	cr_assert_gt(named, 0, "no stall of the victim blamed on the RT-throttled holder %lld",
		     holder_tid);
	cr_expect_leq(sum, e2e_int(w.truth, bound_key),
		      "more rt_throttled time in the stalls than the workload measured (%s)",
		      bound_key);
}

/* A kernel without RT throttling: whatever stopped the holder, nothing says rt_throttled. */
static void check_not_rt_throttled(json_int_t victim_pid)
{
	json_int_t n = e2e_expect_no_cause(w.stalls, victim_pid, "rt_throttled");

	cr_log_info("no RT throttling in this kernel: %lld stalls of the victim, none "
		    "rt_throttled; the holder's gaps: %lld, %lldus", n,
		    e2e_int(w.truth, "throttles"), e2e_int(w.truth, "throttled_ns") / 1000);
}

/* Run workload (args) with the RT budget lowered; false: this kernel does not RT-throttle. */
static bool run_lowered(const char *workload, const char *const args[], const char *name,
			const char *const watch_args[])
{
	e2e_require(true);
	if (!access(RT_GROUP_RUNTIME, W_OK))
		rt_budget_lower(RT_GROUP_RUNTIME);
	else
		rt_budget_lower(RT_SYSCTL_RUNTIME);
	e2e_watch__run_with(&w, workload, args, watch_args);
	cr_assert_str_eq(e2e_str(w.truth, "workload"), name);
	cr_assert_str_eq(e2e_str(w.truth, "victim_policy"), "fifo");
	if (kernel_throttles_rt())
		return true;
	check_not_rt_throttled(e2e_int(w.truth, "victim_pid"));
	return false;
}

/*
 * A pthread mutex: its owner's switches are followed from 6.2
 * (bpf_task_from_pid()), so 6.1's guests cannot see it; the host can.
 */
Test(rt_throttle, holder_of_a_mutex, .fini = teardown, .timeout = 180)
{
	const char *args[] = { "-d", "4", NULL };

	if (!run_lowered("rt_holder", args, "rt_holder", e2e_futexes))
		return;
	if (strstr(w.lockstall.err.data, "futex waits are not traced"))
		cr_skip_test("lockstall follows no futex owner here (before 6.2): "
			     "rt_throttled_reader tests this kernel");
	cr_assert_gt(e2e_int(w.truth, "throttles"), 0,
		     "the holder was never off CPU for a throttle: nothing was tested");
	check_rt_throttled(e2e_int(w.truth, "victim_pid"), e2e_int(w.truth, "holder_tid"),
			   "held_gaps_ns");
}

/*
 * mmap_lock, followed on every kernel: the reader is throttled inside
 * access_remote_vm() with the victim's mmap_lock held.  -u: on until one of
 * the victim's calls took most of a throttle (RT_TEST_RUNTIME leaves 200 ms
 * of a period), as when one is caught in a hold (at most ten times -d):
 * whether the budget ends inside the lock is chance, a rarer one in an
 * emulated guest.
 */
Test(rt_throttle, reader_of_mmap_lock, .fini = teardown, .timeout = 300)
{
	const char *args[] = { "--rt", "-d", "3", "-u", "180", NULL };

	if (!run_lowered("proc_reader", args, "rt_throttled", NULL))
		return;
	cr_assert_gt(e2e_int(w.truth, "slow_reads"), 0,
		     "the reader was never throttled in a read: nothing was tested");
	check_rt_throttled(e2e_int(w.truth, "victim_pid"), e2e_int(w.truth, "holder_tid"),
			   "slow_read_ns");
}
