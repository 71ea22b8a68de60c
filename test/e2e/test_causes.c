// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Causes end to end: proc_reader --cgroup puts its reader in a
 * CPU cgroup of ours with a small CFS quota (v1 cpu controller where there
 * is one, else cgroup v2 cpu.max), made and removed by the fixture, and
 * reports the cgroup's own throttle counts over the run.
 *
 * The kernel decides what happens (src/engine/causes.md):
 *  - before 6.18 a reader out of quota is stopped where it is, lock held
 *    or not: the victim's stalls must be blamed on the reader, cause
 *    throttled, with our cgroup, its quota and period, and throttled time
 *    that fits in the cgroup's own throttled time;
 *  - from 6.18 a task is throttled only on its way back to user space,
 *    never while it holds mmap_lock: lockstall must not say throttled of
 *    any stall of the workload, though the cgroup was throttled.
 * In the watch suite, so the kernel matrix (test/kernels) runs it too.
 *
 * reclaim_holder --cgroup puts the whole workload in a memory cgroup of
 * ours with a low limit (v1 memory controller where there is one, else
 * cgroup v2 memory.max); its holder faults memory in under mmap_read_lock
 * while the cgroup is full of dirty page cache, so each charge reclaims.
 * The victim's stalls must tell the holder's reclaim with our cgroup and
 * its limit, within the holder's own time in the faulting call.
 *
 * io_holder --cgroup: see io_holder_check().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <linux/magic.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

#define MEMCG_LIMIT	(96LL << 20)
#define CG_QUOTA_NS	10000000LL	/* 10 ms ... */
#define CG_PERIOD_NS	100000000LL	/* ... per 100 ms */
#define IO_WIOPS	5		/* io_holder's writes: about 200 ms each */

static struct e2e_watch w = E2E_WATCH_INIT;
static char cg_dir[256];	/* ours, "" when none was made */
static char cg_path[64];	/* its path from its hierarchy's root */
static int cg_version;

static void teardown(void)
{
	e2e_watch__release(&w);
	/* The workload's reader is dead and reaped by now: the cgroup is empty. */
	if (cg_dir[0] && rmdir(cg_dir))
		cr_log_warn("cannot remove %s: %s", cg_dir, strerror(errno));
	cg_dir[0] = '\0';
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return e2e_write_file(path, text);
}

/* Make our CPU-limited cgroup under root (v1 cpu or v2); false if root has no such controller. */
static bool cg_make(const char *root, int version)
{
	char limit[64];
	int err;

	if (version == 1 && access("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", F_OK))
		return false;
	if (version == 2 && write_file(root, "cgroup.subtree_control", "+cpu"))
		return false;
	snprintf(cg_path, sizeof(cg_path), "/lockstall-e2e-causes-%d", (int)getpid());
	snprintf(cg_dir, sizeof(cg_dir), "%s%s", root, cg_path);
	cr_assert_eq(mkdir(cg_dir, 0755), 0, "mkdir %s: %s", cg_dir, strerror(errno));
	cg_version = version;
	if (version == 1) {
		snprintf(limit, sizeof(limit), "%lld", CG_PERIOD_NS / 1000);
		err = write_file(cg_dir, "cpu.cfs_period_us", limit);
		snprintf(limit, sizeof(limit), "%lld", CG_QUOTA_NS / 1000);
		err = err ? err : write_file(cg_dir, "cpu.cfs_quota_us", limit);
	} else {
		snprintf(limit, sizeof(limit), "%lld %lld", CG_QUOTA_NS / 1000, CG_PERIOD_NS / 1000);
		err = write_file(cg_dir, "cpu.max", limit);
	}
	cr_assert_eq(err, 0, "cannot limit %s: %s", cg_dir, strerror(-err));
	return true;
}

/* 6.18 throttles CFS tasks only on their return to user space. */
static bool kernel_throttles_in_user_only(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 18);
}

/* The throttled cause of a holder, or NULL. */
static const json_t *throttled_of(const json_t *h)
{
	const json_t *c = json_object_get(h, "causes");

	return c ? json_object_get(c, "throttled") : NULL;
}

/* Before 6.18: the reader's throttled holds are named, with our limit, within the truth. */
static void check_throttled(json_int_t victim_pid, json_int_t reader_tid)
{
	json_int_t sum = 0, n = 0, worst = 0;
	const json_t *st, *h, *thr;
	size_t i;

	json_array_foreach(w.stalls, i, st) {
		if (e2e_int(e2e_object(st, "mm"), "pid") != victim_pid)
			continue;
		h = e2e_holder_with_tid(st, reader_tid);
		thr = h ? throttled_of(h) : NULL;
		if (!thr)
			continue;
		n++;
		sum += e2e_int(thr, "ns");
		cr_expect_leq(e2e_int(thr, "ns"), e2e_int(h, "offcpu_ns"),
			      "throttled beyond off CPU: %s", json_dumps(st, JSON_COMPACT));
		cr_expect_str_eq(e2e_str(thr, "cgroup"), cg_path);
		cr_expect_eq(e2e_int(thr, "cgroup_version"), cg_version);
		cr_expect_eq(e2e_int(thr, "quota_ns"), CG_QUOTA_NS);
		cr_expect_eq(e2e_int(thr, "period_ns"), CG_PERIOD_NS);
		if (e2e_int(thr, "ns") > worst) {
			worst = e2e_int(thr, "ns");
			cr_expect_str_eq(e2e_str(st, "cause"), "throttled", "the most throttled "
					 "stall: %s", json_dumps(st, JSON_COMPACT));
			cr_expect(strstr(e2e_str(st, "advice"), "quota"), "advice: %s",
				  e2e_str(st, "advice"));
		}
	}
	cr_log_info("throttled stalls of the victim: %lld, %lldus in all, the longest %lldus; "
		    "the cgroup: throttled %lld times, %lldus", n, sum / 1000, worst / 1000,
		    e2e_int(w.truth, "cg_nr_throttled"), e2e_int(w.truth, "cg_throttled_ns") / 1000);
	cr_assert_gt(n, 0, "no stall of the victim blamed on the throttled reader %lld", reader_tid);
	cr_expect_leq(sum, e2e_int(w.truth, "cg_throttled_ns"),
		      "more throttled time in the stalls than the cgroup was throttled");
}

/* 6.18+: a kernel-mode holder runs on in a throttled cgroup; nothing may say throttled. */
static void check_not_throttled(json_int_t victim_pid)
{
	json_int_t n = e2e_expect_no_cause(w.stalls, victim_pid, "throttled");

	cr_log_info("task-based throttling: %lld stalls of the victim, none throttled; the cgroup: "
		    "throttled %lld times, %lldus", n, e2e_int(w.truth, "cg_nr_throttled"),
		    e2e_int(w.truth, "cg_throttled_ns") / 1000);
}

Test(watch, throttled_reader, .fini = teardown, .timeout = 180)
{
	const char *args[] = { "--cgroup", cg_dir, "-d", "4", NULL };
	json_int_t victim_pid, reader_tid;

	e2e_require(true);
	if (!cg_make("/sys/fs/cgroup/cpu", 1) && !cg_make("/sys/fs/cgroup", 2) &&
	    !cg_make("/sys/fs/cgroup/unified", 2))
		cr_skip_test("no cgroup v1 cpu controller nor cgroup v2 with cpu here");
	e2e_watch__run(&w, "proc_reader", args);
	cr_assert_str_eq(e2e_str(w.truth, "workload"), "throttled");
	victim_pid = e2e_int(w.truth, "victim_pid");
	reader_tid = e2e_int(w.truth, "holder_tid");
	cr_assert_gt(e2e_int(w.truth, "cg_nr_throttled"), 0,
		     "the reader's cgroup was never throttled: nothing was tested");
	if (kernel_throttles_in_user_only())
		check_not_throttled(victim_pid);
	else
		check_throttled(victim_pid, reader_tid);
}

/* Make our memory-limited cgroup under root (v1 memory or v2); false if root has no such controller. */
static bool memcg_make(const char *root, int version)
{
	char limit[64];
	int err;

	if (version == 1 && access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK))
		return false;
	if (version == 2 && write_file(root, "cgroup.subtree_control", "+memory"))
		return false;
	snprintf(cg_path, sizeof(cg_path), "/lockstall-e2e-reclaim-%d", (int)getpid());
	snprintf(cg_dir, sizeof(cg_dir), "%s%s", root, cg_path);
	cr_assert_eq(mkdir(cg_dir, 0755), 0, "mkdir %s: %s", cg_dir, strerror(errno));
	cg_version = version;
	snprintf(limit, sizeof(limit), "%lld", MEMCG_LIMIT);
	err = write_file(cg_dir, version == 1 ? "memory.limit_in_bytes" : "memory.max", limit);
	cr_assert_eq(err, 0, "cannot limit %s: %s", cg_dir, strerror(-err));
	return true;
}

/* The reclaim the kernel told of a holder, or NULL. */
static const json_t *reclaim_of(const json_t *h)
{
	const json_t *c = json_object_get(h, "causes");

	return c ? json_object_get(c, "reclaim") : NULL;
}

/* One victim stall's reclaiming holder, checked; its reclaim time. */
static json_int_t check_reclaim_stall(const json_t *st, const json_t *h, json_int_t *named)
{
	const json_t *rc = reclaim_of(h);
	json_int_t ns = e2e_int(rc, "ns");

	cr_expect_leq(ns, e2e_int(h, "overlap_ns"), "reclaim beyond the hold in the wait: %s",
		      json_dumps(st, JSON_COMPACT));
	cr_expect_str_eq(e2e_str(rc, "kind"), "memcg");
	cr_expect_str_eq(e2e_str(rc, "cgroup"), cg_path);
	cr_expect_eq(e2e_int(rc, "cgroup_version"), cg_version);
	cr_expect_str_eq(e2e_str(rc, "limit"), "max");
	cr_expect_eq(e2e_int(rc, "limit_bytes"), MEMCG_LIMIT);
	cr_expect_leq(e2e_int(rc, "usage_bytes"), MEMCG_LIMIT);
	if (!strcmp(e2e_str(h, "cause"), "reclaim")) {
		(*named)++;
		cr_expect_geq(4 * ns, e2e_int(h, "overlap_ns"), "a small reclaim named the cause");
		cr_expect_str_eq(e2e_str(st, "cause"), "reclaim");
		cr_expect(strstr(e2e_str(st, "advice"), "memory.max"), "advice: %s",
			  e2e_str(st, "advice"));
	}
	return ns;
}

/* A writable directory on a file system with writeback (not tmpfs, ramfs or 9p). */
static bool disk_dir(const char *dir)
{
	struct statfs fs;

	if (access(dir, W_OK) || statfs(dir, &fs))
		return false;
	return fs.f_type != TMPFS_MAGIC && fs.f_type != RAMFS_MAGIC && fs.f_type != V9FS_MAGIC;
}

/* The advice is checked before the range: an empty range of a known one is no error. */
static bool kernel_has_populate_write(void)
{
	return madvise(NULL, 0, MADV_POPULATE_WRITE) == 0;
}

Test(watch, reclaim_holder, .fini = teardown, .timeout = 180)
{
	const char *args[] = { "--cgroup", cg_dir, "-d", "3", NULL };
	json_int_t victim_pid, holder_tid, sum = 0, n = 0, named = 0, longest = 0, ns;
	const json_t *st, *h;
	size_t i;

	e2e_require(true);
	/* its page cache must be on a disk (tmpfs pages never need writeback) */
	if (!disk_dir("/var/tmp"))
		cr_skip_test("no disk-backed /var/tmp for the workload's file here");
	if (!kernel_has_populate_write())
		cr_skip_test("no MADV_POPULATE_WRITE (5.14+) for the workload's faults here");
	if (!memcg_make("/sys/fs/cgroup/memory", 1) && !memcg_make("/sys/fs/cgroup", 2) &&
	    !memcg_make("/sys/fs/cgroup/unified", 2))
		cr_skip_test("no cgroup v1 memory controller nor cgroup v2 with memory here");
	e2e_watch__run(&w, "reclaim_holder", args);
	cr_assert_str_eq(e2e_str(w.truth, "workload"), "reclaim_holder");
	cr_assert_eq(e2e_int(w.truth, "cg_limit_bytes"), MEMCG_LIMIT);
	cr_assert_gt(e2e_int(w.truth, "cg_limit_hits"), 0,
		     "the cgroup never hit its limit: nothing was tested");
	victim_pid = e2e_int(w.truth, "victim_pid");
	holder_tid = e2e_int(w.truth, "holder_tid");
	json_array_foreach(w.stalls, i, st) {
		if (e2e_int(e2e_object(st, "mm"), "pid") != victim_pid)
			continue;
		h = e2e_holder_with_tid(st, holder_tid);
		if (!h || !reclaim_of(h))
			continue;
		n++;
		ns = check_reclaim_stall(st, h, &named);
		sum += ns;
		longest = ns > longest ? ns : longest;
	}
	cr_log_info("victim stalls with the holder's reclaim: %lld, %lldus in all, the longest "
		    "%lldus, %lld with reclaim as their cause; the holder: %lld populates, %lldus; "
		    "the cgroup hit its limit %lld times; memory pressure (some) %lldus",
		    n, sum / 1000, longest / 1000, named, e2e_int(w.truth, "populates"),
		    e2e_int(w.truth, "populate_ns") / 1000, e2e_int(w.truth, "cg_limit_hits"),
		    e2e_int(w.truth, "psi_memory_some_us"));
	cr_assert_gt(n, 0, "no stall of the victim told the holder %lld's reclaim", holder_tid);
	cr_expect_leq(sum, e2e_int(w.truth, "populate_ns"),
		      "more reclaim in the stalls than the holder spent faulting memory in");
	/*
	 * Whether reclaim reaches a quarter of a hold (the stall's cause) hangs
	 * on the host's memory and disk: the quarter rule is the engine's
	 * (unit tests); here, that reclaim was seen and never overstated.
	 */
	if (!named)
		cr_log_info("reclaim was told in %lld stalls but never a quarter of a hold", n);
}

/*
 * Our I/O cgroup under root (v1 blkio or v2 io) with dev's write IOPS
 * limited; false if root has no such controller or dev takes no limit (a
 * partition: limits go on whole disks).
 */
static bool iocg_make(const char *root, int version, const char *dev)
{
	char limit[64];
	int err;

	if (version == 1 && access("/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device", F_OK))
		return false;
	if (version == 2 && write_file(root, "cgroup.subtree_control", "+io"))
		return false;
	snprintf(cg_path, sizeof(cg_path), "/lockstall-e2e-io-%d", (int)getpid());
	snprintf(cg_dir, sizeof(cg_dir), "%s%s", root, cg_path);
	cr_assert_eq(mkdir(cg_dir, 0755), 0, "mkdir %s: %s", cg_dir, strerror(errno));
	snprintf(limit, sizeof(limit), version == 1 ? "%s %d" : "%s wiops=%d", dev, IO_WIOPS);
	err = write_file(cg_dir, version == 1 ? "blkio.throttle.write_iops_device" : "io.max",
			 limit);
	if (err) {
		cr_log_warn("cannot limit %s to '%s': %s", cg_dir, limit, strerror(-err));
		teardown();
		return false;
	}
	return true;
}

/* The part of [from, to) that the holder spent in its writes (the truth's spans). */
static json_int_t in_holder_writes(json_int_t from, json_int_t to)
{
	const json_t *sp;
	json_int_t sum = 0, s, e;
	size_t i;

	json_array_foreach(e2e_array(w.truth, "holder_spans"), i, sp) {
		s = json_integer_value(json_array_get(sp, 0));
		e = json_integer_value(json_array_get(sp, 1));
		s = s > from ? s : from;
		e = e < to ? e : to;
		sum += e > s ? e - s : 0;
	}
	return sum;
}

/* One victim stall on the holder: its I/O time, within the holder's own writes. */
static json_int_t check_io_stall(const json_t *st, const json_t *h, json_int_t *named,
				 json_int_t *with_dev)
{
	const json_t *c = json_object_get(h, "causes");
	const json_t *io = c ? json_object_get(c, "io") : NULL;
	json_int_t start = e2e_int(st, "start_ns"), ns;

	if (!io)
		return 0;
	ns = e2e_int(io, "ns");
	cr_expect_leq(ns, in_holder_writes(start, start + e2e_int(st, "lock_wait_ns")),
		      "I/O time outside the holder's writes: %s", json_dumps(st, JSON_COMPACT));
	if (json_object_get(io, "device")) {
		(*with_dev)++;
		cr_expect_str_eq(e2e_str(io, "device"), e2e_str(w.truth, "device"));
		cr_expect_str_eq(e2e_str(io, "disk"), e2e_str(w.truth, "disk"));
	}
	if (!strcmp(e2e_str(h, "cause"), "io")) {
		(*named)++;
		cr_expect_str_eq(e2e_str(st, "cause"), "io");
		cr_expect(strstr(e2e_str(st, "advice"), "I/O"), "advice: %s",
			  e2e_str(st, "advice"));
	}
	return ns;
}

/*
 * io_holder --cgroup puts its holder in an I/O cgroup of ours whose write
 * IOPS on /var/tmp's disk are limited: each of its O_DIRECT appends waits
 * for the device with the inode's i_rwsem held, while the victim waits for
 * that lock.  The victim's stalls must name the holder, cause io, the
 * file's device, and I/O time inside the holder's own writes.
 */
static void io_holder_check(void)
{
	const char *args[] = { "--cgroup", cg_dir, "-d", "3", NULL };
	json_int_t victim_tid, holder_tid, sum = 0, n = 0, named = 0, with_dev = 0, waited = 0;
	const json_t *st, *h;
	struct stat sb;
	char dev[32];
	size_t i;

	e2e_require(true);
	if (!disk_dir("/var/tmp") || stat("/var/tmp", &sb))
		cr_skip_test("no disk-backed /var/tmp for the workload's file here");
	/* from the kernel, not from lockstall: one that wrongly gave up must fail */
	if (access("/sys/kernel/tracing/events/lock/contention_begin", F_OK))
		cr_skip_test("no lock:contention_begin (5.19+) for the holder's i_rwsem here");
	snprintf(dev, sizeof(dev), "%u:%u", major(sb.st_dev), minor(sb.st_dev));
	if (!iocg_make("/sys/fs/cgroup/blkio", 1, dev) && !iocg_make("/sys/fs/cgroup", 2, dev) &&
	    !iocg_make("/sys/fs/cgroup/unified", 2, dev))
		cr_skip_test("no I/O cgroup here that limits %s", dev);
	e2e_watch__run(&w, "io_holder", args);
	cr_assert_str_eq(e2e_str(w.truth, "workload"), "io_holder");
	cr_assert_str_eq(e2e_str(w.truth, "device"), dev);
	cr_assert_str_eq(e2e_str(w.truth, "victim_policy"), "fifo");
	victim_tid = e2e_int(w.truth, "victim_tid");
	holder_tid = e2e_int(w.truth, "holder_tid");
	json_array_foreach(w.stalls, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "tid") != victim_tid)
			continue;
		h = e2e_holder_with_tid(st, holder_tid);
		if (!h)
			continue;
		n++;
		waited += e2e_int(st, "lock_wait_ns");
		sum += check_io_stall(st, h, &named, &with_dev);
	}
	cr_log_info("victim stalls on the holder: %lld, %lldus of lock wait, %lldus of it I/O "
		    "(%lld with io as their cause, %lld naming the device); the holder: %lld "
		    "writes, %lldus in them; the victim: %lld calls, %lldus in them",
		    n, waited / 1000, sum / 1000, named, with_dev,
		    e2e_int(w.truth, "holder_writes"), e2e_int(w.truth, "holder_io_ns") / 1000,
		    e2e_int(w.truth, "calls"),
		    e2e_int(w.truth, "victim_wait_ns") / 1000);
	cr_assert_gt(n, 0, "no stall of the victim named the holder %lld", holder_tid);
	cr_expect_leq(sum, e2e_int(w.truth, "holder_io_ns"),
		      "more I/O in the stalls than the holder spent writing");
	/* the holder sleeps on I/O for all but the ends of each write: io is the cause */
	cr_assert_geq(2 * named, n, "io named in %lld of %lld stalls", named, n);
	/* its first wait may come before lockstall followed it; the rest name the device */
	cr_assert_geq(2 * with_dev, n, "the device named in %lld of %lld stalls", with_dev, n);
}

Test(watch, io_holder, .fini = teardown, .timeout = 180)
{
	io_holder_check();
}

/*
 * Owners followed by TID (as before 6.2, forced here): a waiter cannot
 * reach the holder's storage, so the device comes at the holder's wakeup.
 * Not in the watch suite: the guests of such kernels run io_holder itself.
 */
Test(causes_by_tid, io_holder, .init = e2e_owner_by_tid, .fini = teardown, .timeout = 180)
{
	io_holder_check();
	e2e_watch__said_by_tid(&w);
}

/*
 * long_hold: the holder is pinned to CPU 1 under a hog, the victim waits on
 * CPU 0.  Whatever lockstall says of the holder's runnable time while a CPU
 * it may not use idled must be CPU 0's, with CPU 1 alone allowed, within the
 * holder's runnable time off CPU (preempted, or granted and not running),
 * and in all within both the victim's time off CPU over its life (each of
 * its stalls tells at most its own wait) and the holder's run-queue time
 * (schedstat) till then.  /proc/stat's idle is no upper bound: it leaves
 * out the interrupts the idle task serves, which lockstall's idle clock (the
 * idle task's time) counts.  When CPU 0 idled for long (a quiet host), the
 * cause must have been said and named the stalls' cause, with advice on the
 * affinity.
 */
#define IDLE_TICK_SLACK_NS	20000000LL

/* One victim stall's runnable cause of the holder: checked; its ns, or -1 if none. */
static json_int_t pinned_holder_check(const json_t *st, json_int_t holder_tid)
{
	const json_t *h = e2e_holder_with_tid(st, holder_tid);
	const json_t *c = h ? json_object_get(h, "causes") : NULL;
	const json_t *rn = c ? json_object_get(c, "runnable") : NULL;
	char cpu[16];

	if (!rn)
		return -1;
	snprintf(cpu, sizeof(cpu), "%d", 1);
	cr_expect_str_eq(e2e_str(rn, "allowed_cpus"), cpu);
	cr_expect_eq(e2e_int(rn, "nr_cpus_allowed"), 1);
	snprintf(cpu, sizeof(cpu), "%d", 0);
	cr_expect_str_eq(e2e_str(rn, "idle_cpus"), cpu);
	cr_expect_leq(e2e_int(rn, "ns"), e2e_int(e2e_object(h, "offcpu_by_state"), "preempted") +
		      e2e_int(e2e_object(h, "offcpu_by_state"), "granted_not_running"));
	cr_expect_leq(e2e_int(rn, "ns"), e2e_int(st, "lock_wait_ns"),
		      "more runnable time told than the stall's wait");
	return e2e_int(rn, "ns");
}

Test(watch, pinned_holder, .fini = teardown, .timeout = 180)
{
	/* Under TCG 2 thousand mappings: one mprotect() of the starved holder still takes seconds. */
	const char *args[] = { "-d", "2", "-s", e2e_under_tcg() ? "2" : "15", NULL };
	json_int_t victim_tid, holder_tid, idle_truth, delay_truth, ns, sum = 0, n = 0, named = 0;
	const json_t *st;
	size_t i;

	e2e_require(true);
	e2e_watch__run(&w, "long_hold", args);
	cr_assert_eq(e2e_int(w.truth, "victim_cpu"), 0);
	cr_assert_eq(e2e_int(w.truth, "holder_cpu"), 1);
	victim_tid = e2e_int(w.truth, "victim_tid");
	holder_tid = e2e_int(w.truth, "holder_tid");
	idle_truth = e2e_int(w.truth, "victim_cpu_idle_ns");
	delay_truth = e2e_int(w.truth, "holder_run_delay_ns");
	/* the victim's own stalls only: another waiter's (main's faults) span the same idle */
	json_array_foreach(w.stalls, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "tid") != victim_tid)
			continue;
		ns = pinned_holder_check(st, holder_tid);
		if (ns < 0)
			continue;
		n++;
		sum += ns;
		if (!strcmp(e2e_str(st, "cause"), "runnable")) {
			named++;
			cr_expect(strstr(e2e_str(st, "advice"), "affinity"), "advice: %s",
				  e2e_str(st, "advice"));
		}
	}
	cr_log_info("pinned_holder: %lld victim stalls told the holder runnable while CPU 0 idled, "
		    "%lldus in all, %lld named it their cause; truth: CPU 0 idled %lldus "
		    "(/proc/stat), the holder waited %lldus on a run queue (schedstat)",
		    n, sum / 1000, named, idle_truth / 1000, delay_truth / 1000);
	cr_assert_leq(sum, e2e_int(w.truth, "victim_offcpu_ns"),
		      "more idle time told than the victim waited (it was off CPU %lldus)",
		      e2e_int(w.truth, "victim_offcpu_ns") / 1000);
	if (delay_truth)
		cr_assert_leq(sum, delay_truth, "more runnable time told than the holder waited");
	if (e2e_kernel_is_preempt_rt()) {
		cr_log_info("PREEMPT_RT: the victim's wait boosts the writer holder, which seldom "
			    "sits runnable: only the bounds were checked");
	} else if (idle_truth >= 10 * IDLE_TICK_SLACK_NS) {
		cr_assert_gt(n, 0, "CPU 0 idled %lldus and nothing was told", idle_truth / 1000);
		cr_assert_gt(named, 0, "runnable was never the cause of a stall");
	} else {
		cr_log_info("CPU 0 hardly idled (a busy host): only the bounds were checked");
	}
}
