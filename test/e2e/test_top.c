// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall top in a real terminal: a tmux pane (80x24) on its own tmux
 * server, while proc_reader builds its inversion.  What the pane shows is
 * checked against the workload's ground truth (victim, holder, hog), keys
 * are sent and their effect read back, and after q, SIGTERM or a closed
 * terminal lockstall must be gone and, where a terminal is left, have
 * given it back: the shell's own text on the normal screen, the line
 * discipline as it was (stty).  And -b, in a pipe, checked line by line.
 *
 * Every wait is for a condition (the pane's text, a process's end), read
 * again until a deadline that only turns a hang into a failure.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"
#include "util.h"

#define TMUX			"/usr/bin/tmux"
#define PANE_TIMEOUT_MS		30000	/* BPF load and attach, a refresh under load */
#define PANE_RETRY_MS		50	/* the pace of reading the pane again */
#define WORKLOAD_TIMEOUT_MS	60000
#define STOP_TIMEOUT_MS		30000

/* After lockstall: its exit status, then the line discipline's key flags. */
#define AFTER_TOP "; echo \"top exited $?\"; printf 'stty:'; " \
	"stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(isig|icanon|echo)' | sed 's/^/ /' | tr -d '\\n'; " \
	"echo; exec sleep 3600"
#define STTY_SANE "stty: isig icanon echo"

static char sock[64];
static struct e2e_proc wl = E2E_PROC_INIT;
static struct e2e_proc ls = E2E_PROC_INIT;

static void tmux_kill_server(void)
{
	char *const argv[] = { TMUX, "-L", sock, "kill-server", NULL };
	struct e2e_proc p = E2E_PROC_INIT;
	struct e2e_proc *one[1] = { &p };

	if (!sock[0] || e2e_proc__spawn(&p, "tmux", argv))
		return;
	e2e_proc__pump(one, 1, 10000, NULL, NULL);
	e2e_proc__release(&p);
}

static void teardown(void)
{
	tmux_kill_server();
	e2e_proc__release(&wl);
	e2e_proc__release(&ls);
}

TestSuite(top, .fini = teardown, .timeout = 240);

/* Root, BPF, the binary, and tmux; a server of our own. */
static void top__require(void)
{
	const char *mode = getenv("LOCKSTALL_E2E");

	e2e_require(true);
	if (access(TMUX, X_OK)) {
		if (mode && !strcmp(mode, "required"))
			cr_assert_fail("LOCKSTALL_E2E=required, but no %s (apt-get install tmux)", TMUX);
		cr_log_warn("skipped: no %s (apt-get install tmux)", TMUX);
		cr_skip_test("no tmux");
	}
	snprintf(sock, sizeof(sock), "lockstall-e2e-%d", (int)getpid());
}

/* tmux -L sock args...; its stdout (malloc'd, trailing newline cut). */
static char *tmux(const char *const args[])
{
	char *argv[24] = { TMUX, "-L", sock };
	struct e2e_proc p = E2E_PROC_INIT;
	struct e2e_proc *one[1] = { &p };
	size_t n = 3, i;
	char *out;
	int rc;

	for (i = 0; args[i] && n < 23; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	rc = e2e_proc__spawn(&p, "tmux", argv);
	cr_assert_eq(rc, 0, "cannot run tmux: %s", strerror(-rc));
	rc = e2e_proc__pump(one, 1, 10000, NULL, NULL);
	cr_assert_eq(rc, 0, "tmux %s did not finish", args[0]);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "tmux %s failed: %s", args[0], p.err.data);
	out = strdup(p.out.data ? p.out.data : "");
	e2e_proc__release(&p);
	cr_assert_not_null(out);
	if (*out && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	return out;
}

/* A pane running lockstall top (with more arguments), then AFTER_TOP. */
static void top__start(const char *session, const char *more)
{
	const char *backend = getenv("LOCKSTALL_BACKEND");
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s top -t %s %s%s%s" AFTER_TOP, getenv("LOCKSTALL_BIN"),
		 E2E_THRESHOLD, more, backend && *backend ? " --backend=" : "",
		 backend && *backend ? backend : "");
	{
		const char *const args[] = { "new-session", "-d", "-s", session, "-x", "80", "-y",
					     "24", cmd, NULL };

		free(tmux(args));
	}
}

static char *pane(const char *session)
{
	const char *const args[] = { "capture-pane", "-p", "-t", session, NULL };

	return tmux(args);
}

static bool all_in(const char *text, const char *const want[], const char *unwanted)
{
	size_t i;

	for (i = 0; want[i]; i++)
		if (!strstr(text, want[i]))
			return false;
	return !unwanted || !strstr(text, unwanted);
}

/*
 * Read the pane until it holds every want[] and not unwanted (NULL: no
 * such condition); fail with the last screen after PANE_TIMEOUT_MS.
 * Returns that screen (malloc'd).
 */
static char *pane_wait(const char *session, const char *const want[], const char *unwanted)
{
	__u64 deadline = ls_now_ns() + PANE_TIMEOUT_MS * NSEC_PER_MSEC;
	char *text;

	for (;;) {
		text = pane(session);
		if (all_in(text, want, unwanted))
			return text;
		if (ls_now_ns() > deadline)
			break;
		free(text);
		poll(NULL, 0, PANE_RETRY_MS);
	}
	cr_assert_fail("the pane never showed '%s'%s%s; it shows:\n%s", want[0],
		       unwanted ? " without " : "", unwanted ? unwanted : "", text);
	return NULL;
}

static void send_keys(const char *session, const char *keys, bool literal)
{
	const char *const args[] = { "send-keys", "-t", session, literal ? "-l" : keys,
				     literal ? keys : NULL, NULL };

	free(tmux(args));
}

/* "1" while top has the alternate screen, "0" once it gave it back. */
static void check_alternate(const char *session, const char *want)
{
	const char *const args[] = { "display-message", "-p", "-t", session, "#{alternate_on}",
				     NULL };
	char *on = tmux(args);

	cr_expect_str_eq(on, want, "alternate screen on: %s, expected %s", on, want);
	free(on);
}

/* The line of text that holds what (for messages and checks), in buf. */
static const char *line_with(const char *text, const char *what, char *buf, size_t len)
{
	const char *p = strstr(text, what), *start, *end;

	buf[0] = '\0';
	if (!p)
		return buf;
	for (start = p; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(p, '\n');
	snprintf(buf, len, "%.*s", (int)(end ? end - start : (long)strlen(start)), start);
	return buf;
}

/* proc_reader started, under whatever lockstall is tracing. */
static void workload__start(const char *const args[])
{
	char path[4096], *argv[8];
	size_t n = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/proc_reader", getenv("LOCKSTALL_WORKLOADS"));
	argv[n++] = path;
	while (args && args[n - 1] && n < 7) {
		argv[n] = (char *)args[n - 1];
		n++;
	}
	argv[n] = NULL;
	rc = e2e_proc__spawn(&wl, "proc_reader", argv);
	cr_assert_eq(rc, 0, "cannot start %s: %s", path, strerror(-rc));
}

/* ... to its end: its ground truth. */
static json_t *workload__finish(void)
{
	struct e2e_proc *one[1] = { &wl };
	json_error_t jerr;
	json_t *truth;
	int rc;

	rc = e2e_proc__pump(one, 1, WORKLOAD_TIMEOUT_MS, NULL, NULL);
	cr_assert_eq(rc, 0, "proc_reader did not finish; stderr:\n%s", wl.err.data);
	cr_assert_eq(e2e_proc__exit_code(&wl), 0, "proc_reader failed: %s", wl.err.data);
	truth = json_loads(wl.out.data, 0, &jerr);
	cr_assert(json_is_object(truth), "no ground truth from proc_reader: %s", wl.out.data);
	cr_log_info("proc_reader ground truth: %s", wl.out.data);
	return truth;
}

static json_t *workload__run(const char *const args[])
{
	workload__start(args);
	return workload__finish();
}

struct names {
	char victim[64], holder[64], hog[64], pid[16];
};

static void names__set(struct names *n, const json_t *truth)
{
	snprintf(n->victim, sizeof(n->victim), "wl-victim[%lld/%lld]", e2e_int(truth, "victim_pid"),
		 e2e_int(truth, "victim_tid"));
	snprintf(n->holder, sizeof(n->holder), "wl-reader[%lld]", e2e_int(truth, "holder_pid"));
	snprintf(n->hog, sizeof(n->hog), "wl-hog[%lld]", e2e_int(truth, "hog_pid"));
	snprintf(n->pid, sizeof(n->pid), "%lld", e2e_int(truth, "victim_pid"));
}

/* The pid of the one child of the pane's shell: lockstall. */
static pid_t top__pid(const char *session)
{
	const char *const args[] = { "display-message", "-p", "-t", session, "#{pane_pid}", NULL };
	char *sh = tmux(args), path[96], comm[32] = "";
	int pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/task/%s/children", sh, sh);
	free(sh);
	f = fopen(path, "re");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fscanf(f, "%d", &pid), 1, "the pane's shell has no child");
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	cr_assert_not_null(f);
	cr_assert(fgets(comm, sizeof(comm), f));
	fclose(f);
	cr_assert_str_eq(comm, "lockstall\n", "the pane's shell runs %s", comm);
	return pid;
}

static const char *const header[] = { "lockstall top  up", "q quit", NULL };

Test(top, tmux_inversion_keys_and_restore)
{
	const char *const resize[] = { "resize-window", "-t", "top", "-x", "132", "-y", "30",
				       NULL };
	char *text, line[256];
	struct names n;
	json_t *truth;

	top__require();
	top__start("top", "");
	free(pane_wait("top", header, NULL));
	check_alternate("top", "1");
	truth = workload__run(NULL);
	names__set(&n, truth);

	/* f PID: the victim's stalls, where its holder and the hog must be */
	send_keys("top", "f", true);
	send_keys("top", n.pid, true);
	send_keys("top", "Enter", false);
	{
		char filter[32];
		const char *const want[] = { filter, n.victim, n.holder, n.hog, NULL };

		snprintf(filter, sizeof(filter), "filter pid %s", n.pid);
		text = pane_wait("top", want, NULL);
	}
	cr_expect(strstr(line_with(text, n.holder, line, sizeof(line)), " holder "), "%s", line);
	cr_expect(strstr(line, "idle"), "the holder is SCHED_IDLE: %s", line);
	cr_expect(strstr(line_with(text, n.hog, line, sizeof(line)), " preemptor "), "%s", line);
	cr_expect(strstr(line_with(text, n.victim, line, sizeof(line)), "mmap "), "%s", line);
	free(text);

	/* s: the sorts in turn; p: pause and back */
	send_keys("top", "s", true);
	free(pane_wait("top", (const char *const[]){ "sort total", n.victim, NULL }, NULL));
	send_keys("top", "s", true);
	free(pane_wait("top", (const char *const[]){ "sort count", n.victim, NULL }, NULL));
	send_keys("top", "p", true);
	free(pane_wait("top", (const char *const[]){ "sort count  PAUSED", NULL }, NULL));
	send_keys("top", "Space", false);
	free(pane_wait("top", (const char *const[]){ "sort count", NULL }, "PAUSED"));

	/* SIGWINCH: a wider terminal gets the wide columns (the victim's class) */
	free(tmux(resize));
	text = pane_wait("top", (const char *const[]){ "WORST    CLASS", n.victim, NULL }, NULL);
	cr_expect(strstr(line_with(text, n.victim, line, sizeof(line)), "fifo"), "%s", line);
	free(text);

	/* a filter that matches nothing empties the tables; h shows the help, a key leaves it */
	send_keys("top", "f", true);
	send_keys("top", "nobody-at-all", true);
	send_keys("top", "Enter", false);
	free(pane_wait("top", (const char *const[]){ "WORST VICTIMS: none", "TOP CULPRITS: none",
						    "filter comm ~nobody-at-all", NULL }, NULL));
	send_keys("top", "h", true);
	free(pane_wait("top", (const char *const[]){ "KEYS", "filter by cgroup", NULL }, NULL));
	send_keys("top", "x", true);
	free(pane_wait("top", (const char *const[]){ "WORST VICTIMS: none", NULL }, "KEYS"));

	/* q: lockstall exits 0 and the shell's terminal is as it was */
	send_keys("top", "q", true);
	text = pane_wait("top", (const char *const[]){ "top exited 0", STTY_SANE, NULL }, "q quit");
	cr_expect(strstr(text, "lockstall: tracing mmap_lock"),
		  "the normal screen again, with what was on it before: %s", text);
	free(text);
	check_alternate("top", "0");
	json_decref(truth);
}

/*
 * The row of a stall in progress whose waiter is process pid (in buf), from
 * the STALLS IN PROGRESS section only; false when there is none.
 */
static bool in_progress_row(const char *text, int pid, char *buf, size_t len)
{
	const char *sec = strstr(text, "STALLS IN PROGRESS: "), *end = strstr(text, "WORST VICTIMS");
	char victim[48];
	const char *row;

	snprintf(victim, sizeof(victim), "wl-victim[%d/", pid);
	row = sec ? strstr(sec, victim) : NULL;
	if (!row || (end && row > end))
		return false;
	line_with(sec, victim, buf, len);
	return true;
}

/*
 * While proc_reader's victim waits (a SCHED_IDLE reader holding its lock,
 * starved by the hog), top shows the wait in progress: the victim, its
 * lock, the holder preempted by the hog, an age of at least the threshold
 * and no more than the wait turned out to be.
 */
Test(top, stall_in_progress)
{
	/* until one call took 400 ms: two refreshes, so the wait can be seen in progress */
	const char *const wl_args[] = { "-d", "6", "-u", "400", NULL };
	const char *const resize[] = { "resize-window", "-t", "top", "-x", "132", "-y", "30",
				       NULL };
	struct e2e_proc *one[1] = { &wl };
	char row[256] = "", want[96], age[16], *text;
	unsigned long long age_ns;
	bool seen = false;
	struct names n;
	json_t *truth;

	top__require();
	/* refreshed more often than the waits last, so one is caught in progress */
	top__start("top", "-i 200ms");
	free(tmux(resize));
	free(pane_wait("top", header, NULL));
	workload__start(wl_args);
	snprintf(want, sizeof(want), "%d", (int)wl.pid);
	send_keys("top", "f", true);
	send_keys("top", want, true);
	send_keys("top", "Enter", false);
	/*
	 * Read the pane again while the workload runs (its end is the
	 * deadline), until the row names the hog as the holder's main
	 * preemptor: on a shared machine another task may lead at first.
	 */
	while (!strstr(row, "by wl-hog[") && !e2e_proc__done(&wl)) {
		char now[256];

		text = pane("top");
		if (in_progress_row(text, (int)wl.pid, now, sizeof(now))) {
			seen = true;
			strcpy(row, now);
		}
		free(text);
		e2e_proc__pump(one, 1, PANE_RETRY_MS, NULL, NULL);
	}
	truth = workload__finish();
	names__set(&n, truth);
	cr_assert(seen, "the victim's wait was never shown in progress (worst call %lld ns)",
		  e2e_int(truth, "worst_ns"));
	cr_log_info("in progress: %s", row);
	cr_expect(strstr(row, n.victim), "the victim thread: %s", row);
	cr_expect(strstr(row, n.holder), "the holder: %s", row);
	snprintf(want, sizeof(want), "mmap %s", n.pid);
	cr_expect(strstr(row, want), "the victim's own mmap_lock: %s", row);
	/* starved either way: preempted holding it, or handed it and never run since */
	cr_expect(strstr(row, " preempted ") || strstr(row, " granted "), "the holder starved: %s",
		  row);
	if (strstr(row, "by wl-hog["))
		cr_expect(strstr(row, n.hog), "the workload's hog: %s", row);
	else
		cr_log_info("another task than the hog ran most instead of the holder: %s", row);
	cr_assert_eq(sscanf(row, "%15s", age), 1);
	cr_assert_eq(ls_parse_duration(age, 0, &age_ns), 0, "age '%s'", age);
	cr_expect_geq(age_ns, 5 * NSEC_PER_MSEC, "shown from the threshold (" E2E_THRESHOLD ") on: %s",
		      row);
	cr_expect_leq(age_ns, (unsigned long long)e2e_int(truth, "worst_ns") / 1000 * 1005,
		      "no older than the victim's slowest call: %s", row);
	json_decref(truth);
}

Test(top, sigterm_restores_the_terminal)
{
	char *text;
	pid_t pid;

	top__require();
	top__start("top", "");
	free(pane_wait("top", header, NULL));
	pid = top__pid("top");
	cr_assert_eq(kill(pid, SIGTERM), 0);
	text = pane_wait("top", (const char *const[]){ "top exited 0", STTY_SANE, NULL }, "q quit");
	free(text);
	check_alternate("top", "0");
}

/* The terminal closes under it (SIGHUP, then nothing to read): lockstall ends. */
Test(top, closed_terminal_ends_it)
{
	const char *const kill_session[] = { "kill-session", "-t", "top", NULL };
	__u64 deadline;
	pid_t pid;

	top__require();
	top__start("top", "");
	free(pane_wait("top", header, NULL));
	pid = top__pid("top");
	free(tmux(kill_session));
	deadline = ls_now_ns() + STOP_TIMEOUT_MS * NSEC_PER_MSEC;
	/* not our child: its end is its pid gone (a zombie's comm is still there) */
	while (!kill(pid, 0) && ls_now_ns() < deadline) {
		char path[64], state = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "re");
		if (f && fscanf(f, "%*d %*s %c", &state) == 1 && state == 'Z') {
			fclose(f);
			break;
		}
		if (f)
			fclose(f);
		poll(NULL, 0, PANE_RETRY_MS);
	}
	cr_assert(ls_now_ns() < deadline, "lockstall %d still runs %d s after its terminal closed",
		  (int)pid, STOP_TIMEOUT_MS / 1000);
}

/* -b in a pipe: plain snapshots, the victim, the holder and the hog in them. */
/* Whether [from, to) has what, after the heading head. */
static bool section_has(const char *from, const char *to, const char *head, const char *what)
{
	const char *h = memmem(from, (size_t)(to - from), head, strlen(head));

	return h && memmem(h, (size_t)(to - h), what, strlen(what));
}

/*
 * A whole snapshot (ended by its blank line) lists the victim among the
 * victims, the holder and the hog among the culprits: a stall of theirs
 * ended (in progress only, they show in the first section alone).
 */
static bool batch_has(void *ctx)
{
	const struct names *n = ctx;
	const char *snap = ls.out.data, *end;

	while (snap && (end = strstr(snap, "\n\n"))) {
		if (section_has(snap, end, "WORST VICTIMS", n->victim) &&
		    section_has(snap, end, "TOP CULPRITS", n->holder) &&
		    section_has(snap, end, "TOP CULPRITS", n->hog))
			return true;
		snap = end + 2;
	}
	return e2e_proc__done(&ls);
}

static bool tracing(void *ctx)
{
	return (ls.err.data && strstr(ls.err.data, "lockstall: tracing")) || e2e_proc__done(&ls);
}

/*
 * The last snapshot whose victims list the victim: on a busy machine the
 * last one may rank it below other processes' victims, off the screen.
 * Snapshots are cut at their blank line (the text is changed).
 */
static char *last_snapshot_with(char *out, const char *victim)
{
	char *snap = out, *end, *found = NULL, *victims;

	while (snap && *snap) {
		end = strstr(snap, "\n\n");
		if (end)
			*end = '\0';
		victims = strstr(snap, "WORST VICTIMS");
		if (victims && strstr(victims, victim))
			found = snap;
		snap = end ? end + 2 : NULL;
	}
	return found ? found : out;
}

static void check_victim_line(const char *snap, const struct names *n, const json_t *truth)
{
	char line[256], task[96], ivt[32], allt[32], worst[32], cls[64] = "";
	unsigned long long ivn, alln, worst_ns;
	unsigned int lock;

	/* its row among the victims, not a stall of it still in progress */
	cr_assert(strstr(snap, "WORST VICTIMS"), "no victims in:\n%s", snap);
	line_with(strstr(snap, "WORST VICTIMS"), n->victim, line, sizeof(line));
	cr_assert_eq(sscanf(line, "%95s mmap %u %llu %31s %llu %31s %31s %63[^\n]", task, &lock, &ivn,
			    ivt, &alln, allt, worst, cls), 8, "victim line: %s", line);
	cr_expect_eq(lock, (unsigned int)e2e_int(truth, "victim_pid"), "its own mmap_lock: %s", line);
	cr_expect_geq(alln, 1, "%s", line);
	/* each call is an mmap and a munmap: at most two stalls */
	cr_expect_leq(alln, 2 * (unsigned long long)e2e_int(truth, "calls"), "%s", line);
	cr_assert_eq(ls_parse_duration(worst, 0, &worst_ns), 0, "worst '%s'", worst);
	/* shown with 3 significant digits: within 0.5% of the wait, which is inside the call */
	cr_expect_leq(worst_ns, (unsigned long long)e2e_int(truth, "worst_ns") / 1000 * 1005,
		      "the worst wait shown (%s) is longer than the victim's slowest call (%lld ns)",
		      worst, e2e_int(truth, "worst_ns"));
	cr_expect_geq(worst_ns, 5 * NSEC_PER_MSEC, "at least the threshold: %s", line);
	if (!strcmp(e2e_str(truth, "victim_policy"), "fifo"))
		cr_expect(strstr(cls, "fifo 10"), "the victim's class: %s", line);
}

Test(top, batch_snapshots)
{
	const char *bin, *backend = getenv("LOCKSTALL_BACKEND");
	char backend_arg[64], *argv[12], *snap, *culprits, line[256];
	struct e2e_proc *one[1] = { &ls };
	struct names n;
	json_t *truth;
	size_t k = 0;
	int rc;

	bin = e2e_require(true);
	argv[k++] = (char *)bin;
	argv[k++] = "top";
	argv[k++] = "-b";
	argv[k++] = "-i";
	argv[k++] = "500ms";
	argv[k++] = "-t";
	argv[k++] = E2E_THRESHOLD;
	if (backend && *backend) {
		snprintf(backend_arg, sizeof(backend_arg), "--backend=%s", backend);
		argv[k++] = backend_arg;
	}
	argv[k] = NULL;
	rc = e2e_proc__spawn(&ls, "lockstall", argv);
	cr_assert_eq(rc, 0, "cannot start %s: %s", bin, strerror(-rc));
	e2e_proc__pump(one, 1, PANE_TIMEOUT_MS, tracing, NULL);
	cr_assert(!e2e_proc__done(&ls), "lockstall top -b ended: %s", ls.err.data);
	truth = workload__run(NULL);
	names__set(&n, truth);
	rc = e2e_proc__pump(one, 1, PANE_TIMEOUT_MS, batch_has, &n);
	cr_assert(!e2e_proc__done(&ls), "lockstall top -b ended: %s", ls.err.data);
	cr_assert_eq(rc, 0, "no snapshot with %s, %s and %s; stdout:\n%s", n.victim, n.holder, n.hog,
		     ls.out.data);
	cr_assert_eq(e2e_proc__signal(&ls, SIGINT), 0);
	rc = e2e_proc__pump(one, 1, STOP_TIMEOUT_MS, NULL, NULL);
	cr_assert_eq(rc, 0, "lockstall top -b did not stop after SIGINT");
	cr_assert_eq(e2e_proc__exit_code(&ls), 0, "status %#x: %s", ls.status, ls.err.data);
	cr_expect_null(strchr(ls.out.data, '\x1b'), "no terminal control in batch output");
	cr_expect(!strncmp(ls.out.data, "lockstall top  up ", 18), "%.80s", ls.out.data);

	snap = last_snapshot_with(ls.out.data, n.victim);
	cr_log_info("the last snapshot:\n%s", snap);
	check_victim_line(snap, &n, truth);
	/* their rows among the culprits, not a stall in progress that names them */
	culprits = strstr(snap, "TOP CULPRITS");
	cr_assert_not_null(culprits, "no culprits in:\n%s", snap);
	cr_expect(strstr(line_with(culprits, n.holder, line, sizeof(line)), " holder "), "%s", line);
	cr_expect(strstr(line, ", idle"), "the holder is SCHED_IDLE: %s", line);
	cr_expect(strstr(line_with(culprits, n.hog, line, sizeof(line)), " preemptor "), "%s", line);
	cr_expect(strstr(line, "normal"), "the hog is SCHED_OTHER: %s", line);
	json_decref(truth);
}

/* Without a terminal, and without -b: a clear error before anything is loaded. */
Test(top, no_terminal_says_batch)
{
	const char *const args[] = { "top", NULL };

	e2e_run_cli(&ls, args);
	cr_assert_eq(e2e_proc__exit_code(&ls), 2, "status %#x: %s", ls.status, ls.err.data);
	cr_expect(strstr(ls.err.data, "use -b (--batch)"), "%s", ls.err.data);
	cr_expect_str_empty(ls.out.data);
}
