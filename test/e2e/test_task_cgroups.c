// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cgroups of holders and preemptors end to end: the fixture
 * makes a cgroup v2 directory of ours with two threaded children, and the
 * workload (--split-cgroups) puts itself in it, its holder in DIR/holder
 * and its hog in DIR/hog, and says the three paths /proc gives.  Every
 * stall of the victim that names the holder must give it the holder's
 * path and the waiter the victim's, and every preemptor that is the hog
 * the hog's; at least one must name both.  Then the recording the run
 * made, reported after the cgroups are gone, names the same paths from
 * its cgroup table, and holder_cgroup= rules select by the holder's.
 *
 * A futex owner (pthread_mutex: the holder a thread of the victim's
 * process) and an mmap_lock reader (proc_reader: a process of its own).
 * The ids are the default hierarchy's (cgroup v2): on a hybrid host
 * (/sys/fs/cgroup/unified) as on a unified one (/sys/fs/cgroup).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static struct e2e_proc rp = E2E_PROC_INIT;
static char cg_dir[256];	/* ours, "" when none was made */
static char rec[64];		/* the recording, "" when none */

/* Our cgroups, once the workload and its children are dead and reaped (so empty). */
static void cg_remove(void)
{
	static const char *const subs[] = { "/holder", "/hog", "" };
	char path[300];
	size_t i;

	for (i = 0; cg_dir[0] && i < sizeof(subs) / sizeof(subs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", cg_dir, subs[i]);
		if (rmdir(path) && errno != ENOENT)
			cr_log_warn("cannot remove %s: %s", path, strerror(errno));
	}
	cg_dir[0] = '\0';
}

static void teardown(void)
{
	e2e_watch__release(&w);
	e2e_proc__release(&rp);
	if (rec[0])
		unlink(rec);
	rec[0] = '\0';
	cg_remove();
}

static bool is_cgroup2(const char *dir)
{
	struct statfs sf;

	return !statfs(dir, &sf) && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* DIR with DIR/holder and DIR/hog, both threaded, under the cgroup2 root; false: no cgroup2. */
static bool cg_make(void)
{
	const char *root = is_cgroup2("/sys/fs/cgroup/unified") ? "/sys/fs/cgroup/unified" :
			   is_cgroup2("/sys/fs/cgroup") ? "/sys/fs/cgroup" : NULL;
	static const char *const subs[] = { "holder", "hog" };
	char path[300];
	size_t i;
	int err;

	if (!root)
		return false;
	snprintf(cg_dir, sizeof(cg_dir), "%s/lockstall-e2e-cg-%d", root, (int)getpid());
	cr_assert_eq(mkdir(cg_dir, 0755), 0, "mkdir %s: %s", cg_dir, strerror(errno));
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", cg_dir, subs[i]);
		cr_assert_eq(mkdir(path, 0755), 0, "mkdir %s: %s", path, strerror(errno));
		snprintf(path, sizeof(path), "%s/%s/cgroup.type", cg_dir, subs[i]);
		err = e2e_write_file(path, "threaded");
		cr_assert_eq(err, 0, "%s: threaded: %s", path, strerror(-err));
	}
	return true;
}

/*
 * The victim's stalls in stalls (watch's, or the report's of its
 * recording) against the truth: every path named is the right one, and
 * at least one stall names the holder and the hog.  Returns that count.
 */
static size_t check_paths(const json_t *stalls, const char *source)
{
	json_int_t victim = e2e_int(w.truth, "victim_pid");
	json_int_t holder_tid = e2e_int(w.truth, "holder_tid"), hog = e2e_int(w.truth, "hog_tid");
	const json_t *st, *h, *p;
	size_t i, both = 0;

	json_array_foreach(stalls, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "pid") != victim)
			continue;
		h = e2e_holder_with_tid(st, holder_tid);
		if (!h)
			continue;
		cr_expect_str_eq(e2e_str(e2e_object(st, "waiter"), "cgroup"),
				 e2e_str(w.truth, "victim_cgroup"), "%s: the waiter's", source);
		cr_expect_str_eq(e2e_str(h, "cgroup"), e2e_str(w.truth, "holder_cgroup"),
				 "%s: the holder's", source);
		p = e2e_preemptor_with_tid(h, hog);
		if (!p)
			continue;
		cr_expect_str_eq(e2e_str(p, "cgroup"), e2e_str(w.truth, "hog_cgroup"),
				 "%s: the hog's", source);
		both++;
	}
	cr_assert_gt(both, 0, "%s: no stall of the victim names the holder preempted by the hog",
		     source);
	return both;
}

/* The recording, reported now that our cgroups are gone: its own table names them. */
static void check_recording(void)
{
	const char *const report[] = { "report", rec, "--format", "json", NULL };
	json_t *stalls = json_array(), *line;
	json_error_t jerr;
	char *at, *nl;
	size_t n;

	cg_remove();
	e2e_run_cli(&rp, report);
	cr_assert_eq(e2e_proc__exit_code(&rp), 0, "report: status %#x; stderr:\n%s", rp.status,
		     rp.err.data);
	for (at = rp.out.data; at && *at; at = nl ? nl + 1 : NULL) {
		nl = strchr(at, '\n');
		line = json_loadb(at, nl ? (size_t)(nl - at) : strlen(at), 0, &jerr);
		cr_assert_not_null(line, "report line: %s", jerr.text);
		if (!strcmp(e2e_str(line, "type"), "stall"))
			json_array_append(stalls, line);
		json_decref(line);
	}
	n = check_paths(stalls, "the recording's report");
	cr_log_info("the recording's report: %zu stalls name the holder's and the hog's cgroups", n);
	json_decref(stalls);
}

/*
 * holder_cgroup= rules: rule 1 names the holder's cgroup and fires, on
 * stalls whose holders include it; rule 2 names the hog's, which holds
 * nothing (it only preempts), and never fires.
 */
static void check_holder_rules(void)
{
	const json_t *v, *st, *h;
	size_t i, j, n = 0;
	bool named;

	json_array_foreach(w.violations, i, v) {
		cr_assert_eq(e2e_int(v, "rule_index"), 1, "the rule of the hog's cgroup fired");
		n++;
		st = json_array_get(e2e_array(v, "stalls"), 0);
		cr_assert_not_null(st, "a violation without its stall");
		named = false;
		json_array_foreach(e2e_array(st, "holders"), j, h)
			named |= !strcmp(e2e_str(h, "cgroup"), e2e_str(w.truth, "holder_cgroup"));
		cr_assert(named, "a holder_cgroup= violation of a stall without such a holder");
	}
	cr_assert_gt(n, 0, "the rule of the holder's cgroup never fired");
}

/* Run workload (args, then --split-cgroups DIR) under watch -o, and check both outputs. */
static void run_split(const char *workload, const char *const wl_args[])
{
	char holder_rule[320], hog_rule[320];
	/* --locks all: pthread_mutex's owner is a futex's */
	const char *const watch_args[] = { "-o", rec, "--slo", holder_rule, "--slo", hog_rule,
					   "--locks", "all", NULL };
	const char *args[16];
	size_t n;

	e2e_require(true);
	if (!cg_make())
		cr_skip_test("no cgroup v2 hierarchy mounted here");
	snprintf(rec, sizeof(rec), "/tmp/lockstall-e2e-cg-%d.lst", (int)getpid());
	/* the paths from the cgroup2 root, as /proc/PID/cgroup gives them */
	snprintf(holder_rule, sizeof(holder_rule), "holder_cgroup=%s/holder wait>=5ms every=1ns",
		 strrchr(cg_dir, '/'));
	snprintf(hog_rule, sizeof(hog_rule), "holder_cgroup=%s/hog wait>=5ms every=1ns",
		 strrchr(cg_dir, '/'));
	for (n = 0; wl_args[n] && n < 12; n++)
		args[n] = wl_args[n];
	args[n++] = "--split-cgroups";
	args[n++] = cg_dir;
	args[n] = NULL;
	e2e_watch__run_with(&w, workload, args, watch_args);
	cr_log_info("victim in %s, holder in %s, hog in %s", e2e_str(w.truth, "victim_cgroup"),
		    e2e_str(w.truth, "holder_cgroup"), e2e_str(w.truth, "hog_cgroup"));
	cr_assert_str_neq(e2e_str(w.truth, "holder_cgroup"), e2e_str(w.truth, "victim_cgroup"));
	cr_assert_str_neq(e2e_str(w.truth, "hog_cgroup"), e2e_str(w.truth, "holder_cgroup"));
	n = check_paths(w.stalls, "watch");
	cr_log_info("watch: %zu stalls name the holder's and the hog's cgroups", n);
	check_holder_rules();
	check_recording();
}

TestSuite(task_cgroups, .fini = teardown, .timeout = 180);

/* A pthread mutex's owner, a thread of the victim's process in a cgroup of its own. */
Test(task_cgroups, futex_owner_and_hog)
{
	const char *const args[] = { "-d", "2", "-u", "100", NULL };

	run_split("pthread_mutex", args);
}

/* An mmap_lock reader, a process of its own; its HOLD records carry its cgroup too. */
Test(task_cgroups, mmap_reader_and_hog)
{
	const char *const args[] = { "-d", "2", "-u", "100", NULL };

	run_split("proc_reader", args);
}
