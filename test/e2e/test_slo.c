// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * watch --slo: rules over the stalls of real workloads, and what a
 * violation does (a hook, --exit-on-violation).  Needs root and BPF, but
 * for the command-line checks at the end.
 *
 * Every assertion is about who and how many, counted against the stalls
 * lockstall printed in the same run: never about how fast anything was.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "resolve/cgroup.h"
#include "lib/e2e_watch.h"
#include "lib/tmpdir.h"

#define RULES_FILE "rules"

static struct e2e_watch w = E2E_WATCH_INIT;
static char dir[64];
static char rules_path[128];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "e2e-slo");
	snprintf(rules_path, sizeof(rules_path), "%s/" RULES_FILE, dir);
}

/*
 * A cgroup tree of a test's own under the cgroup2 mount: the test process
 * moves into one of them, so lockstall and the workload it starts are
 * born there.  teardown moves it back and removes the tree.
 */
static struct {
	char mount[256];
	char top[64];		/* "/lockstall-e2e-PID", from the cgroup2 root */
	char back[1024];	/* cgroup.procs of the cgroup the test came from */
	char made[3][64];	/* from the root, in the order made */
	int n_made;
} cgx;

static void cgx__write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0, "%s: %s", path, strerror(errno));
}

/* Make PATH (from the cgroup2 root); its directory's inode is its id. */
static __u64 cgx__make(const char *path)
{
	char full[512];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", cgx.mount, path);
	cr_assert_eq(mkdir(full, 0755), 0, "%s: %s", full, strerror(errno));
	snprintf(cgx.made[cgx.n_made++], sizeof(cgx.made[0]), "%s", path);
	cr_assert_eq(stat(full, &st), 0);
	return st.st_ino;
}

/* Find the cgroup2 mount (or skip) and remember where this process is. */
static void cgx__start(void)
{
	struct cgroups *cg;
	char err[256], line[512];
	FILE *f;

	if (cgroups__open(&cg, "/proc/self/mountinfo", err, sizeof(err)))
		cr_skip_test("%s", err);
	snprintf(cgx.mount, sizeof(cgx.mount), "%s", cgroups__mount(cg));
	cgroups__free(cg);
	snprintf(cgx.top, sizeof(cgx.top), "/lockstall-e2e-%d", getpid());
	f = fopen("/proc/self/cgroup", "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(cgx.back, sizeof(cgx.back), "%s%s/cgroup.procs", cgx.mount,
				 strcmp(line + 3, "/") ? line + 3 : "");
		}
	}
	fclose(f);
	cr_assert(cgx.back[0], "no cgroup v2 line in /proc/self/cgroup");
}

static void cgx__enter(const char *path)
{
	char procs[512], pid[32];

	snprintf(procs, sizeof(procs), "%s%s/cgroup.procs", cgx.mount, path);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	cgx__write(procs, pid);
}

static void cgx__cleanup(void)
{
	char full[512], pid[32];
	FILE *f;

	if (!cgx.n_made)
		return;
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	f = fopen(cgx.back, "w");
	if (!f || fputs(pid, f) < 0 || fclose(f))
		cr_log_info("could not move back to %s", cgx.back);
	while (cgx.n_made--) {
		snprintf(full, sizeof(full), "%s%s", cgx.mount, cgx.made[cgx.n_made]);
		if (rmdir(full))
			cr_log_info("could not remove %s: %s", full, strerror(errno));
	}
	cgx.n_made = 0;
}

static void teardown(void)
{
	e2e_watch__release(&w);
	tmpdir__remove(dir);
	cgx__cleanup();
}

TestSuite(slo, .init = setup, .fini = teardown, .timeout = 120);

static char *dump(const json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);

	return s ? s : "(out of memory)";
}

/*
 * The stalls of every waiter named wl-victim: another run of a workload on
 * the machine (a benchmark, say) has one too, and comm= cannot tell them
 * apart, so counts are of them all and only "who" is checked against ours.
 */
static size_t victim_stalls(const json_t *stalls, const char *verdict)
{
	const json_t *st;
	size_t i, n = 0;

	json_array_foreach(stalls, i, st) {
		if (!strcmp(e2e_str(e2e_object(st, "waiter"), "comm"), "wl-victim") &&
		    (!verdict || !strcmp(e2e_str(st, "verdict"), verdict)))
			n++;
	}
	return n;
}

/* The wait a stall or pending line is about: its waiter and its start. */
static bool same_wait(const json_t *a, const json_t *b)
{
	return e2e_int(e2e_object(a, "waiter"), "tid") == e2e_int(e2e_object(b, "waiter"), "tid") &&
	       e2e_int(a, "start_ns") == e2e_int(b, "start_ns");
}

/*
 * The waits of any wl-victim that a wait>= rule breaks once each: those
 * that ended as stalls, and those reported still going on (a pending
 * report fires the rule first; one still open at exit has no stall).
 */
static size_t victim_waits(const struct e2e_watch *run)
{
	const json_t *p, *st;
	size_t i, k, n = victim_stalls(run->stalls, NULL);
	bool ended;

	json_array_foreach(run->pending, i, p) {
		if (strcmp(e2e_str(e2e_object(p, "waiter"), "comm"), "wl-victim") ||
		    e2e_int(p, "report") != 1)
			continue;
		ended = false;
		json_array_foreach(run->stalls, k, st)
			ended = ended || same_wait(p, st);
		n += !ended;
	}
	return n;
}

/* The stalls whose waiter is this thread. */
static size_t stalls_of(const json_t *stalls, json_int_t tid, const char *verdict)
{
	const json_t *st;
	size_t i, n = 0;

	json_array_foreach(stalls, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "tid") == tid &&
		    (!verdict || !strcmp(e2e_str(st, "verdict"), verdict)))
			n++;
	}
	return n;
}

static const json_t *slo_summary(const struct e2e_watch *run)
{
	return e2e_object(run->summary, "slo");
}

static json_int_t hooks_stat(const struct e2e_watch *run, const char *key)
{
	return e2e_int(e2e_object(slo_summary(run), "hooks"), key);
}

/*
 * The hook: a script of the operator's (the test's), run with a fixed argv:
 * each run writes its stdin to a file of its own in dir.
 */
#define HOOK_SCRIPT "cat > \"$1/hook.$$\""

/* What the hooks wrote: each file one JSON object (and its newline). */
static json_t *read_hook_files(void)
{
	json_t *all = json_array();
	struct dirent *de;
	DIR *d = opendir(dir);

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		char path[384];
		json_error_t jerr;
		json_t *j;

		if (strncmp(de->d_name, "hook.", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		j = json_load_file(path, 0, &jerr);
		cr_assert_not_null(j, "%s: the hook's stdin is not one JSON object (%s)", path,
				   jerr.text);
		json_array_append_new(all, j);
		unlink(path);
	}
	closedir(d);
	return all;
}

static bool printed(const json_t *violations, const json_t *v)
{
	const json_t *x;
	size_t i;

	json_array_foreach(violations, i, x) {
		if (json_equal((json_t *)x, (json_t *)v))
			return true;
	}
	return false;
}

static bool names_culprit(const json_t *v, json_int_t tid, const char *role)
{
	const json_t *c;
	size_t i;

	json_array_foreach(e2e_array(v, "culprits"), i, c) {
		if (e2e_int(c, "tid") == tid && !strcmp(e2e_str(c, "role"), role))
			return true;
	}
	return false;
}

/*
 * The inversion of proc_reader breaks a rule on the victim: each hook gets
 * its violation on stdin, valid JSON, the same object as the violation
 * line on stdout, and one names our victim and the reader that held the
 * lock.
 */
Test(slo, hook_receives_the_violation)
{
	const char *const args[] = {
		"--slo", "comm=wl-victim verdict=priority_inversion wait>=5ms every=1ns",
		"--exec", "/bin/sh", "-c", HOOK_SCRIPT, "sh", dir, ";", "--exec-limit", "64", NULL,
	};
	json_int_t victim_tid, holder_tid;
	const json_t *v, *ours = NULL;
	json_t *got;
	size_t inversions, i;

	e2e_watch__run_with(&w, "proc_reader", NULL, args);
	victim_tid = e2e_int(w.truth, "victim_tid");
	holder_tid = e2e_int(w.truth, "holder_tid");
	cr_assert_gt(stalls_of(w.stalls, victim_tid, "priority_inversion"), 0,
		     "no inversion of the victim %lld to break the rule", victim_tid);
	inversions = victim_stalls(w.stalls, "priority_inversion");
	cr_assert_eq(json_array_size(w.violations), inversions, "%zu inversions, violations: %s",
		     inversions, dump(w.violations));

	got = read_hook_files();
	cr_assert_eq((json_int_t)json_array_size(got), hooks_stat(&w, "runs"));
	cr_assert_eq(hooks_stat(&w, "runs") + hooks_stat(&w, "skipped"), (json_int_t)inversions);
	cr_assert_eq(hooks_stat(&w, "failures"), 0, "stderr: %s", w.lockstall.err.data);
	cr_assert_eq(hooks_stat(&w, "timeouts"), 0);
	json_array_foreach(got, i, v) {
		cr_assert(printed(w.violations, v), "the hook's stdin is no violation printed: %s",
			  dump(v));
		cr_assert_str_eq(e2e_str(v, "kind"), "wait");
		cr_assert_eq(e2e_int(v, "rule_index"), 1);
		if (e2e_int(e2e_object(v, "victim"), "tid") == victim_tid &&
		    names_culprit(v, holder_tid, "holder"))
			ours = v;
	}
	cr_assert_not_null(ours, "no hook heard of the victim %lld held up by the reader %lld: %s",
			   victim_tid, holder_tid, dump(got));
	v = json_array_get(e2e_array(ours, "stalls"), 0);
	cr_assert_str_eq(e2e_str(v, "verdict"), "priority_inversion");
	cr_assert_eq(e2e_int(e2e_object(v, "waiter"), "tid"), victim_tid);
	cr_assert_geq(e2e_int(v, "lock_wait_ns"), 5000000);
	json_decref(got);
	cr_assert_eq(e2e_int(slo_summary(&w), "violations"), (json_int_t)inversions);
}

/* The control run has no inversion: the rule never fires on its victim, no hook runs for it. */
Test(slo, control_does_not_fire)
{
	const char *const wl_args[] = { "--control", NULL };
	const char *const args[] = {
		"--slo", "comm=wl-victim verdict=priority_inversion wait>=5ms every=1ns",
		"--exec", "/bin/sh", "-c", HOOK_SCRIPT, "sh", dir, ";", "--exec-limit", "64", NULL,
	};
	json_int_t victim_pid;
	const json_t *v;
	json_t *got;
	size_t i;

	e2e_watch__run_with(&w, "proc_reader", wl_args, args);
	cr_assert_str_eq(e2e_str(w.truth, "workload"), "control");
	victim_pid = e2e_int(w.truth, "victim_pid");
	/* on a quiet machine: none at all */
	cr_assert_eq(json_array_size(w.violations), victim_stalls(w.stalls, "priority_inversion"),
		     "violations: %s", dump(w.violations));
	json_array_foreach(w.violations, i, v)
		cr_assert_neq(e2e_int(e2e_object(v, "victim"), "pid"), victim_pid,
			      "the control run broke the rule: %s", dump(v));
	got = read_hook_files();
	cr_assert_eq(json_array_size(got), json_array_size(w.violations));
	json_decref(got);
	cr_assert_eq(e2e_int(slo_summary(&w), "violations"),
		     (json_int_t)json_array_size(w.violations));
}

/*
 * A budget (stalled time in a window) that the first stall breaks, with a
 * window and so a rate limit of an hour: one violation, every later stall
 * of the victim suppressed.  Beside it the same stalls under a rule that
 * may fire every nanosecond: one violation each.  The hook, from a file,
 * fails every time: counted and told, nothing else changes.
 */
Test(slo, rate_limit)
{
	const char *const args[] = {
		"--slo", "comm=wl-victim stalled>=5ms/60m",
		"--slo", "comm=wl-victim wait>=5ms every=1ns",
		"--exec-file", rules_path, "--exec-limit", "64", NULL,
	};
	FILE *f = fopen(rules_path, "w");

	/* one argument a line: the blank in "exit 3" is no separator */
	fprintf(f, "# a hook that fails\n/bin/sh\n-c\nexit 3\n");
	fclose(f);
	json_int_t victim_tid;
	const json_t *v;
	size_t n, i, per_rule[2] = { 0 };

	e2e_watch__run_with(&w, "proc_reader", NULL, args);
	victim_tid = e2e_int(w.truth, "victim_tid");
	cr_assert_gt(stalls_of(w.stalls, victim_tid, NULL), 0, "no stall of the victim %lld",
		     victim_tid);
	n = victim_waits(&w);

	json_array_foreach(w.violations, i, v) {
		json_int_t rule = e2e_int(v, "rule_index");

		cr_assert(rule == 1 || rule == 2, "rule_index %lld", rule);
		per_rule[rule - 1]++;
		cr_assert_str_eq(e2e_str(e2e_object(v, "victim"), "comm"), "wl-victim");
		if (rule == 1) {
			cr_assert_str_eq(e2e_str(v, "kind"), "stalled");
			cr_assert_eq(e2e_int(v, "window_ns"), 3600000000000LL);
			cr_assert_eq(e2e_int(v, "window_stalls"), 1, "the first stall broke it");
		}
		cr_assert_eq(e2e_int(v, "suppressed"), 0);
	}
	cr_assert_eq(per_rule[0], 1, "the budget fired %zu times", per_rule[0]);
	cr_assert_eq(per_rule[1], n, "%zu waits of the victim, %zu violations", n, per_rule[1]);
	cr_assert_eq(e2e_int(slo_summary(&w), "violations"), (json_int_t)n + 1);
	cr_assert_eq(e2e_int(slo_summary(&w), "suppressed"), (json_int_t)n - 1);

	cr_assert_eq(hooks_stat(&w, "runs") + hooks_stat(&w, "skipped"), (json_int_t)n + 1);
	cr_assert_eq(hooks_stat(&w, "failures"), hooks_stat(&w, "runs"), "stderr: %s",
		     w.lockstall.err.data);
	cr_assert_eq(hooks_stat(&w, "timeouts"), 0);
	cr_assert(strstr(w.lockstall.err.data, "lockstall: hook /bin/sh for rule 1 exited with status 3"),
		  "stderr: %s", w.lockstall.err.data);
}

/*
 * A hook that never ends: killed at --exec-timeout, counted; with one
 * allowed at a time the violations meanwhile are counted as skipped; and
 * tracing went on: every stall of the victim was still found and judged.
 */
Test(slo, hanging_hook_is_killed)
{
	const char *const args[] = {
		"--slo", "comm=wl-victim wait>=5ms every=1ns",
		"--exec", "/bin/sleep", "1000", ";", "--exec-timeout", "100ms", "--exec-limit", "1",
		NULL,
	};
	json_int_t victim_tid, runs;
	const json_t *line;
	size_t n, i, stalls_after = 0;
	bool seen_violation = false;

	e2e_watch__run_with(&w, "proc_reader", NULL, args);
	victim_tid = e2e_int(w.truth, "victim_tid");
	cr_assert_gt(stalls_of(w.stalls, victim_tid, NULL), 1,
		     "the victim %lld stalled too few times to see tracing go on", victim_tid);
	n = victim_waits(&w);
	cr_assert_eq(json_array_size(w.violations), n);

	runs = hooks_stat(&w, "runs");
	cr_assert_geq(runs, 1);
	cr_assert_eq(hooks_stat(&w, "timeouts"), runs, "every hook hung; stderr: %s",
		     w.lockstall.err.data);
	cr_assert_eq(hooks_stat(&w, "failures"), 0, "stderr: %s", w.lockstall.err.data);
	cr_assert_eq(runs + hooks_stat(&w, "skipped"), (json_int_t)n);
	cr_assert(strstr(w.lockstall.err.data, "killed after 100ms (--exec-timeout)"),
		  "no word of the kill on stderr: %s", w.lockstall.err.data);

	json_array_foreach(w.lines, i, line) {
		if (!strcmp(e2e_str(line, "type"), "violation"))
			seen_violation = true;
		else if (seen_violation && !strcmp(e2e_str(line, "type"), "stall"))
			stalls_after++;
	}
	cr_assert_geq(stalls_after, n - 1, "stalls stopped coming after the first hook");
}

static bool tracing_or_gone(void *ctx)
{
	const struct e2e_proc *p = ctx;

	return e2e_buf__line_with_prefix(&p->err, "lockstall: tracing") || e2e_proc__done(p);
}

static bool gone(void *ctx)
{
	return e2e_proc__done(ctx);
}

/* The first violation ends the run: summary, exit status 3, while the workload still runs. */
Test(slo, exit_on_violation)
{
	struct e2e_proc *ls = &w.lockstall, *wl = &w.workload;
	struct e2e_proc *both[2] = { ls, wl };
	const char *bin = e2e_require(true);
	char wl_path[4096];
	char *ls_argv[] = {
		(char *)bin, "watch", "--json", "-t", E2E_THRESHOLD,
		"--slo", "comm=wl-victim wait>=5ms", "--exit-on-violation", NULL,
	};
	char *wl_argv[] = { wl_path, NULL };
	const json_t *last;
	char *copy, *save = NULL, *tok;
	size_t violations = 0;
	int rc;

	snprintf(wl_path, sizeof(wl_path), "%s/proc_reader", getenv("LOCKSTALL_WORKLOADS"));
	rc = e2e_proc__spawn(ls, "lockstall", ls_argv);
	cr_assert_eq(rc, 0, "cannot start %s", bin);
	e2e_proc__pump(both, 1, 30000, tracing_or_gone, ls);
	cr_assert(e2e_buf__line_with_prefix(&ls->err, "lockstall: tracing"),
		  "lockstall never said it was tracing; stderr: %s", ls->err.data);
	rc = e2e_proc__spawn(wl, "proc_reader", wl_argv);
	cr_assert_eq(rc, 0, "cannot start %s", wl_path);
	rc = e2e_proc__pump(both, 2, 60000, gone, ls);
	cr_assert_eq(rc, 0, "lockstall did not stop at the violation; stderr: %s", ls->err.data);
	cr_assert_eq(e2e_proc__exit_code(ls), 3, "status %#x; stderr: %s", ls->status,
		     ls->err.data);

	e2e_json_log(ls->out.data);
	copy = strdup(ls->out.data);
	last = NULL;
	w.lines = json_array();
	for (tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		json_error_t jerr;
		json_t *j = json_loads(tok, 0, &jerr);

		cr_assert_not_null(j, "not JSON (%s): %.300s", jerr.text, tok);
		json_array_append_new(w.lines, j);
		if (!strcmp(e2e_str(j, "type"), "violation"))
			violations++;
		last = j;
	}
	free(copy);
	cr_assert_geq(violations, 1, "no violation line: %s", ls->out.data);
	cr_assert_not_null(last);
	cr_assert_str_eq(e2e_str(last, "type"), "summary", "the summary comes last");
	cr_assert_eq(e2e_int(e2e_object(last, "slo"), "violations"), (json_int_t)violations);
}

struct until_err {
	const struct e2e_proc *p;
	const char *text;
};

static bool err_says_or_gone(void *ctx)
{
	const struct until_err *u = ctx;

	return strstr(u->p->err.data, u->text) || e2e_proc__done(u->p);
}

static void write_rules(const char *text)
{
	char tmp[160];
	FILE *f;

	/* whole or not at all, as an operator's tools should write it */
	snprintf(tmp, sizeof(tmp), "%s.new", rules_path);
	f = fopen(tmp, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(rename(tmp, rules_path), 0);
}

/*
 * SIGHUP re-reads --rules: a bad file keeps the rules in use and says why;
 * a good one replaces them.  Each step waits for lockstall to say it did.
 */
Test(slo, sighup_rereads_rules)
{
	struct e2e_proc *ls = &w.lockstall, *wl = &w.workload;
	struct e2e_proc *both[2] = { ls, wl };
	const char *bin = e2e_require(true);
	char wl_path[4096];
	char *ls_argv[] = {
		(char *)bin, "watch", "--json", "-t", E2E_THRESHOLD, "--rules", rules_path, NULL,
	};
	char *wl_argv[] = { wl_path, NULL };
	struct until_err u = { ls, "lockstall: tracing" };
	char *copy, *save = NULL, *tok;
	size_t violations = 0;
	int rc;

	write_rules("# nothing of the workload\npid=1 wait>=5ms\n");
	snprintf(wl_path, sizeof(wl_path), "%s/proc_reader", getenv("LOCKSTALL_WORKLOADS"));
	cr_assert_eq(e2e_proc__spawn(ls, "lockstall", ls_argv), 0);
	e2e_proc__pump(both, 1, 30000, err_says_or_gone, &u);
	cr_assert(strstr(ls->err.data, u.text), "not tracing; stderr: %s", ls->err.data);

	write_rules("comm=wl-victim wait>=5ms every=60m\nwait>=5 # no unit\n");
	cr_assert_eq(e2e_proc__signal(ls, SIGHUP), 0);
	u.text = "keeping the rules in use (1)";
	e2e_proc__pump(both, 1, 30000, err_says_or_gone, &u);
	cr_assert(strstr(ls->err.data, u.text), "stderr: %s", ls->err.data);
	cr_assert(strstr(ls->err.data, ":2: rule 'wait>=5 # no unit', column 7: invalid duration"),
		  "the reason is not told: %s", ls->err.data);

	write_rules("comm=wl-victim wait>=5ms every=60m\n");
	cr_assert_eq(e2e_proc__signal(ls, SIGHUP), 0);
	u.text = "re-read: rules in use: 1";
	e2e_proc__pump(both, 1, 30000, err_says_or_gone, &u);
	cr_assert(strstr(ls->err.data, u.text), "stderr: %s", ls->err.data);

	cr_assert_eq(e2e_proc__spawn(wl, "proc_reader", wl_argv), 0);
	rc = e2e_proc__pump(both, 2, 60000, gone, wl);
	cr_assert_eq(rc, 0, "the workload did not finish");
	cr_assert_eq(e2e_proc__signal(ls, SIGINT), 0);
	rc = e2e_proc__pump(both, 1, 30000, gone, ls);
	cr_assert_eq(rc, 0);
	cr_assert_eq(e2e_proc__exit_code(ls), 0, "stderr: %s", ls->err.data);

	copy = strdup(ls->out.data);
	for (tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		if (strstr(tok, "{\"type\":\"violation\",") == tok) {
			violations++;
			cr_assert(strstr(tok, "\"rule\":\"comm=wl-victim wait>=5ms every=60m\""),
				  "%.300s", tok);
		}
	}
	free(copy);
	cr_assert_eq(violations, 1, "the new rule fired %zu times", violations);
}

/* The hooks' files of LOCKSTALL_WAITER_CGROUP_ID: each must say id; their count. */
static json_int_t hook_ids(__u64 id)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	json_int_t n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		char path[384], line[64] = "";
		FILE *f;

		if (strncmp(de->d_name, "cgid.", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		cr_assert_not_null(f);
		cr_assert_not_null(fgets(line, sizeof(line), f), "%s: empty", path);
		fclose(f);
		cr_assert_eq(strtoull(line, NULL, 10), id, "%s: %s", path, line);
		unlink(path);
		n++;
	}
	closedir(d);
	return n;
}

/* The cgroup path of a stall's waiter, or "" without one. */
static const char *waiter_cgroup(const json_t *st)
{
	const json_t *c = json_object_get(e2e_object(st, "waiter"), "cgroup");

	return json_is_string(c) ? json_string_value(c) : "";
}

/*
 * proc_reader in a fresh cgroup TOP/victim-ab, beside an empty sibling
 * TOP/victim-a: the rules on its cgroup, its parent and a glob fire for
 * every stall of its waiters; the one on the sibling, whose name is a
 * prefix of the workload's, never does.  The stalls name the cgroup by
 * path and by id (the inode of its directory), and so does the hook's
 * environment (the id only).  The recording made on the way keeps the
 * paths: report, with the cgroups removed, fires the same.
 */
Test(slo, cgroup_rules_select_the_waiters_subtree)
{
	char path[128], sibling[128], rules[4][192], file[192], text[1024];
	const char *const args[] = { "--rules", rules_path, "-o", file, "--exec", "/bin/sh", "-c",
				     "echo \"$LOCKSTALL_WAITER_CGROUP_ID\" > \"$1/cgid.$$\"", "sh", dir,
				     ";", "--exec-limit", "64", NULL };
	const char *const report[] = { "report", file, "--format", "json", "--rules", rules_path,
				       NULL };
	struct e2e_proc rp = E2E_PROC_INIT;
	size_t fired[5] = { 0 }, ours = 0, i;
	char *copy, *save = NULL, *tok;
	json_int_t victim_tid;
	const json_t *st, *v;
	__u64 id;

	e2e_require(true);
	cgx__start();
	cgx__make(cgx.top);
	snprintf(path, sizeof(path), "%s/victim-ab", cgx.top);
	snprintf(sibling, sizeof(sibling), "%s/victim-a", cgx.top);
	id = cgx__make(path);
	cgx__make(sibling);
	snprintf(rules[0], sizeof(rules[0]), "cgroup=%s wait>=5ms every=1ns", path);
	snprintf(rules[1], sizeof(rules[1]), "cgroup=%s/ wait>=5ms every=1ns", cgx.top);
	snprintf(rules[2], sizeof(rules[2]), "cgroup=%s wait>=5ms every=1ns", sibling);
	snprintf(rules[3], sizeof(rules[3]), "cgroup=%s/victim-* wait>=5ms every=1ns", cgx.top);
	snprintf(file, sizeof(file), "%s/run.lst", dir);
	snprintf(text, sizeof(text), "%s\n%s\n%s\n%s\n", rules[0], rules[1], rules[2], rules[3]);
	write_rules(text);
	cgx__enter(path);

	e2e_watch__run_with(&w, "proc_reader", NULL, args);
	victim_tid = e2e_int(w.truth, "victim_tid");
	cr_assert_gt(stalls_of(w.stalls, victim_tid, NULL), 0, "no stall of the victim %lld",
		     victim_tid);
	json_array_foreach(w.stalls, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "tid") == victim_tid) {
			cr_assert_str_eq(waiter_cgroup(st), path, "%s", dump(st));
			cr_assert_eq((__u64)e2e_int(e2e_object(st, "waiter"), "cgroup_id"), id);
		}
		if (!strcmp(waiter_cgroup(st), path))
			ours++;
	}
	json_array_foreach(w.violations, i, v) {
		json_int_t k = e2e_int(v, "rule_index");

		cr_assert(k >= 1 && k <= 4, "%s", dump(v));
		fired[k]++;
		cr_assert_str_eq(e2e_str(e2e_object(v, "victim"), "cgroup"), path, "%s", dump(v));
	}
	cr_assert_eq(fired[1], ours, "the cgroup itself: %zu of %zu", fired[1], ours);
	cr_assert_eq(fired[2], ours, "its parent: %zu of %zu", fired[2], ours);
	cr_assert_eq(fired[3], 0, "the sibling %s fired: %s", sibling, dump(w.violations));
	cr_assert_eq(fired[4], ours, "the glob: %zu of %zu", fired[4], ours);
	cr_assert_eq(hook_ids(id), hooks_stat(&w, "runs"), "stderr: %s", w.lockstall.err.data);
	cr_assert_gt(hooks_stat(&w, "runs"), 0);

	cgx__cleanup();
	e2e_run_cli(&rp, report);
	cr_assert_eq(e2e_proc__exit_code(&rp), 0, "report: stderr:\n%s", rp.err.data);
	memset(fired, 0, sizeof(fired));
	copy = strdup(rp.out.data);
	for (tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		for (i = 1; i <= 4; i++) {
			char want[64];

			snprintf(want, sizeof(want), ",\"rule_index\":%zu,", i);
			if (strstr(tok, "{\"type\":\"violation\",") == tok && strstr(tok, want))
				fired[i]++;
		}
	}
	free(copy);
	cr_assert_eq(fired[1], ours, "report, the cgroup itself: %zu of %zu", fired[1], ours);
	cr_assert_eq(fired[2], ours, "report, its parent: %zu of %zu", fired[2], ours);
	cr_assert_eq(fired[3], 0, "report, the sibling");
	cr_assert_eq(fired[4], ours, "report, the glob: %zu of %zu", fired[4], ours);
	e2e_proc__release(&rp);
}

/* Bad rules and hooks are refused before anything is loaded: status 2, no root needed. */
static void check_refused(const char *const args[], const char *said)
{
	struct e2e_proc *p = &w.lockstall;

	e2e_run_cli(p, args);
	cr_assert_eq(e2e_proc__exit_code(p), 2, "status %#x; stderr: %s", p->status, p->err.data);
	cr_assert_str_empty(p->out.data);
	cr_assert(strstr(p->err.data, said), "stderr does not say '%s': %s", said, p->err.data);
	cr_assert_eq(e2e_buf__lines(&p->err), 1, "one line: %s", p->err.data);
}

Test(slo, bad_rule_is_refused)
{
	const char *const args[] = { "watch", "--slo", "comm=db wait>=5", NULL };

	check_refused(args, "--slo: rule 'comm=db wait>=5', column 15: invalid duration '5'");
}

Test(slo, bad_rules_file_is_refused)
{
	FILE *f = fopen(rules_path, "w");
	const char *const args[] = { "watch", "--rules", rules_path, NULL };
	char want[256];

	fprintf(f, "# budgets\nwait>=50ms\ncgroup=/lockstall-no-such-cgroup wait>=50ms\n");
	fclose(f);
	/* "no cgroup /lockstall-no-such-cgroup: ...", or, without cgroup v2, that it cannot look */
	snprintf(want, sizeof(want), "%s:3: rule 'cgroup=/lockstall-no-such-cgroup wait>=50ms', column 8: ",
		 rules_path);
	check_refused(args, want);
	cr_assert(strstr(w.lockstall.err.data, "cgroup /lockstall-no-such-cgroup"), "%s",
		  w.lockstall.err.data);
}

Test(slo, exec_needs_its_semicolon)
{
	const char *const args[] = { "watch", "--slo", "wait>=5ms", "--exec", "/bin/true", NULL };

	check_refused(args, "--exec needs a ';' after the program");
}

/* A hook that can never run is refused before tracing starts, not at the first violation. */
Test(slo, missing_hook_is_refused)
{
	const char *const args[] = { "watch", "--slo", "wait>=5ms", "--exec",
				     "/nonexistent/hook", ";", NULL };
	struct e2e_proc *p = &w.lockstall;

	e2e_run_cli(p, args);
	cr_assert_eq(e2e_proc__exit_code(p), 1, "status %#x; stderr: %s", p->status, p->err.data);
	cr_assert_str_eq(p->err.data,
			 "lockstall: hook /nonexistent/hook: cannot run: No such file or directory\n");
}
