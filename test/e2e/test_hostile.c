// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The hostile host: processes that work against the tracer, and
 * an operator's input that is not what it should be.  Each test is one way
 * lockstall was frozen, fooled or made to lose data, run for real.  Needs
 * root and BPF for the tracing ones (see e2e_require()).
 */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"
#include "lib/tmpdir.h"
#include "reader_cpu.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static struct e2e_proc p = E2E_PROC_INIT;
static char dir[64];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "e2e-hostile");
}

static void teardown(void)
{
	e2e_watch__release(&w);
	e2e_proc__release(&p);
	tmpdir__remove(dir);
}

TestSuite(hostile, .init = setup, .fini = teardown, .timeout = 120);

/*
 * The workload's executable is swapped with a FIFO and a symlink to it the
 * whole time it stalls: the symbolizer and the unwinder open it while it
 * is, and must neither block (a FIFO) nor follow the link.  A tracer that
 * blocks never stops on SIGINT (e2e_watch__run fails at its deadline).
 */
Test(hostile, executable_swapped_with_a_fifo)
{
	/* small and fast: short stalls, many, each with stacks to unwind */
	const char *const args[] = { "--swap-exe", "-d", "2", "-s", "64", NULL };
	const char *const watch_args[] = { "-t", "100us", NULL };

	int attempt;

	/* a run whose calls all stayed under the threshold has no stall to report: run again */
	for (attempt = 0; attempt < 3; attempt++) {
		if (attempt)
			e2e_watch__release(&w);
		e2e_watch__run_with(&w, "mprotect_fault", args, watch_args);
		if (e2e_int(w.truth, "worst_ns") >= 100000)
			break;
	}
	cr_assert_geq(e2e_int(w.truth, "worst_ns"), 100000, "no call of the workload stalled");
	cr_assert_gt(e2e_int(w.truth, "exe_swaps"), 0, "the workload swapped nothing");
	cr_assert_eq(e2e_proc__exit_code(&w.lockstall), 0, "stderr:\n%s", w.lockstall.err.data);
	cr_assert_gt(e2e_int(w.summary, "events"), 0);
	cr_assert_gt(json_array_size(w.stalls), 0, "no stall reported at all");
}

struct until_err {
	const struct e2e_proc *p;
	const char *text;
};

static bool err_says_or_gone(void *ctx)
{
	const struct until_err *u = ctx;

	return (u->p->err.data && strstr(u->p->err.data, u->text)) || e2e_proc__done(u->p);
}

/* Wait (bounded) until lockstall's stderr says text; fail if it exits or never does. */
static void wait_err(struct e2e_proc *ls, const char *text)
{
	struct until_err u = { ls, text };
	struct e2e_proc *one[1] = { ls };

	e2e_proc__pump(one, 1, 20000, err_says_or_gone, &u);
	cr_assert(ls->err.data && strstr(ls->err.data, text), "lockstall did not say '%s'; stderr:\n%s",
		  text, ls->err.data ? ls->err.data : "");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Wait for lockstall to exit after sig; its exit code. */
static int stop(struct e2e_proc *ls, int sig)
{
	struct e2e_proc *one[1] = { ls };

	cr_assert_eq(e2e_proc__signal(ls, sig), 0);
	cr_assert_eq(e2e_proc__pump(one, 1, 30000, NULL, NULL), 0, "lockstall did not stop");
	return e2e_proc__exit_code(ls);
}

/*
 * SIGHUP re-reads --rules inside the tracing loop: a FIFO put at the path
 * must be refused at once (a blocking open() stopped all tracing), and the
 * loop must go on (a good file after it is read).
 */
Test(hostile, sighup_onto_a_fifo)
{
	const char *bin = e2e_require(true);
	char rules[128];
	char *argv[] = { (char *)bin, "watch", "--json", "-t", E2E_THRESHOLD, "--rules", rules, NULL };

	snprintf(rules, sizeof(rules), "%s/rules", dir);
	write_file(rules, "pid=1 wait>=5ms\n");
	cr_assert_eq(e2e_proc__spawn(&p, "lockstall", argv), 0);
	wait_err(&p, "lockstall: tracing");

	cr_assert_eq(unlink(rules), 0);
	cr_assert_eq(mkfifo(rules, 0600), 0);
	cr_assert_eq(e2e_proc__signal(&p, SIGHUP), 0);
	wait_err(&p, "not a regular file: keeping the rules in use (1)");

	cr_assert_eq(unlink(rules), 0);
	write_file(rules, "pid=1 wait>=5ms\npid=2 wait>=5ms\n");
	cr_assert_eq(e2e_proc__signal(&p, SIGHUP), 0);
	wait_err(&p, "re-read: rules in use: 2");
	cr_assert_eq(stop(&p, SIGINT), 0, "stderr:\n%s", p.err.data);
}

/* sig set in any of the signal masks named (e.g. "SigCgt:") of pid's /proc status. */
static bool status_has_signal(pid_t pid, int sig, const char *const *masks)
{
	char path[64], line[256], key[16];
	unsigned long long mask;
	bool set = false;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%15s %llx", key, &mask) == 2 && (mask & (1ULL << (sig - 1))))
			for (i = 0; masks[i]; i++)
				set |= !strcmp(key, masks[i]);
	fclose(f);
	return set;
}

/* sig in pid's pending set (the process's or its main thread's): two would merge. */
static bool signal_pending(pid_t pid, int sig)
{
	static const char *const pending[] = { "ShdPnd:", "SigPnd:", NULL };

	return status_has_signal(pid, sig, pending);
}

/* The first SIGINT, delivered (not merely sent) before the harness sends the second. */
static void sigint_first(struct e2e_watch *run, void *ctx)
{
	int i;

	cr_assert_eq(e2e_proc__signal(&run->lockstall, SIGINT), 0);
	for (i = 0; i < 1000000 && signal_pending(run->lockstall.pid, SIGINT); i++)
		sched_yield();
	cr_assert(!signal_pending(run->lockstall.pid, SIGINT), "the first SIGINT is still pending");
}

/*
 * A second Ctrl-C while watch -o winds down (sent right after the first)
 * must not cut the recording short: lockstall exits 0, and the report of
 * the recording counts the stalls watch printed.
 */
Test(hostile, double_sigint_keeps_the_recording_whole)
{
	char file[128];
	const char *const watch_args[] = { "-o", file, NULL };
	const char *const report[] = { "report", file, "--format", "json", NULL };
	struct e2e_watch_opts o = { .watch_args = watch_args, .before_stop = sigint_first };
	const char *line;
	json_t *sum = NULL;

	snprintf(file, sizeof(file), "%s/run.lst", dir);
	e2e_watch__run_opts(&w, "proc_reader", NULL, &o);
	cr_assert_eq(e2e_proc__exit_code(&w.lockstall), 0, "stderr:\n%s", w.lockstall.err.data);
	cr_assert_gt(json_array_size(w.stalls), 0, "no stall to lose");

	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	for (line = p.out.data; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		json_t *j = json_loads(line, JSON_DISABLE_EOF_CHECK, NULL);

		if (j && !strcmp(json_string_value(json_object_get(j, "type")) ?: "", "summary")) {
			sum = j;
			break;
		}
		json_decref(j);
	}
	cr_assert_not_null(sum, "no summary in the report:\n%s", p.out.data);
	cr_assert_eq(e2e_int(sum, "stalls"), e2e_int(w.summary, "stalls"),
		     "the recording has %lld stalls, watch printed %lld", e2e_int(sum, "stalls"),
		     e2e_int(w.summary, "stalls"));
	cr_assert_eq(e2e_int(sum, "events"), e2e_int(w.summary, "events"));
	json_decref(sum);
}

/* The scheduling policy and real-time priority of thread tid of process pid; false: unreadable. */
static bool thread_sched(pid_t pid, const char *tid, unsigned int *policy, unsigned int *prio)
{
	char path[384], buf[1024], *f;
	unsigned int field;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* after the comm, which may hold anything: field 3 on; rt_priority is 40, policy 41 */
	f = strrchr(buf, ')');
	for (field = 2; f && field < 40; field++)
		f = strchr(f + 1, ' ');
	return f && sscanf(f + 1, "%u %u", prio, policy) == 2;
}

/*
 * The scheduling lockstall's threads must have: its main thread's, the
 * others'; the reader's boost thread (READER_BOOST_COMM) is at
 * SCHED_FIFO READER_BOOST_PRIO where boost is set, and absent where not.
 */
struct sched_want {
	unsigned int main_policy, main_prio;
	unsigned int other_policy, other_prio;
	bool boost;
	unsigned int seen;	/* threads read */
	unsigned int boosts;	/* boost threads read */
};

/* Thread tid of pid is the reader's boost thread. */
static bool thread_is_boost(pid_t pid, const char *tid)
{
	char path[320], comm[32] = "";

	snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid, tid);
	return e2e_read_line(path, comm, sizeof(comm)) && !strcmp(comm, READER_BOOST_COMM);
}

/* Every thread of the running lockstall as ctx (struct sched_want) wants. */
static void threads_sched(struct e2e_watch *run, void *ctx)
{
	struct sched_want *want = ctx;
	unsigned int policy, prio;
	char path[64];
	struct dirent *d;
	bool is_main;
	DIR *dir_;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)run->lockstall.pid);
	dir_ = opendir(path);
	cr_assert_not_null(dir_, "%s", path);
	while ((d = readdir(dir_))) {
		if (d->d_name[0] == '.' || !thread_sched(run->lockstall.pid, d->d_name, &policy, &prio))
			continue;
		is_main = atoi(d->d_name) == run->lockstall.pid;
		if (!is_main && thread_is_boost(run->lockstall.pid, d->d_name)) {
			cr_assert(want->boost, "a boost thread %s where none belongs", d->d_name);
			cr_assert_eq(policy, SCHED_FIFO, "boost thread %s: policy %u", d->d_name,
				     policy);
			cr_assert_eq(prio, READER_BOOST_PRIO, "boost thread %s: priority %u",
				     d->d_name, prio);
			want->boosts++;
			continue;
		}
		cr_assert_eq(policy, is_main ? want->main_policy : want->other_policy,
			     "thread %s has policy %u", d->d_name, policy);
		cr_assert_eq(prio, is_main ? want->main_prio : want->other_prio,
			     "thread %s has priority %u", d->d_name, prio);
		want->seen++;
	}
	closedir(dir_);
}

/*
 * Busy real-time tasks leave a SCHED_OTHER lockstall too little CPU to
 * drain its ring buffer, and it loses events (stderr says so and suggests
 * --rt-priority).  With --rt-priority 7 every one of its threads runs at
 * SCHED_FIFO 7, those started after tracing began too, and it traces as
 * ever.
 */
Test(hostile, rt_priority_runs_every_thread_at_sched_fifo)
{
	const char *const watch_args[] = { "--rt-priority", "7", NULL };
	struct sched_want want = { SCHED_FIFO, 7, SCHED_FIFO, 7, false, 0, 0 };
	struct e2e_watch_opts o = { .watch_args = watch_args, .before_stop = threads_sched,
				    .ctx = &want };

	e2e_watch__run_opts(&w, "proc_reader", NULL, &o);
	cr_assert_gt(want.seen, 0, "no thread of lockstall was read");
	cr_assert_eq(e2e_proc__exit_code(&w.lockstall), 0, "stderr:\n%s", w.lockstall.err.data);
	cr_assert_gt(json_array_size(w.stalls), 0, "no stall reported at all");
}

/*
 * By default the thread that reads the ring runs at SCHED_FIFO 1, above
 * normal tasks and below real-time ones, and one thread at
 * READER_BOOST_PRIO raises it while it falls behind; the others run as
 * started.  --rt-priority 0: all as started, no boost.
 */
Test(hostile, rt_priority_default_is_the_reader_only)
{
	struct sched_want want = { SCHED_FIFO, 1, SCHED_OTHER, 0, true, 0, 0 };
	const char *const none[] = { "--rt-priority", "0", NULL };
	struct e2e_watch_opts o = { .before_stop = threads_sched, .ctx = &want };

	e2e_watch__run_opts(&w, "proc_reader", NULL, &o);
	cr_assert_gt(want.seen, 0, "no thread of lockstall was read");
	cr_assert_eq(want.boosts, 1, "%u boost threads", want.boosts);
	cr_assert_gt(json_array_size(w.stalls), 0, "no stall reported at all");
	e2e_watch__release(&w);
	want = (struct sched_want){ SCHED_OTHER, 0, SCHED_OTHER, 0, false, 0, 0 };
	o.watch_args = none;
	e2e_watch__run_opts(&w, "proc_reader", NULL, &o);
	cr_assert_gt(want.seen, 0, "no thread of lockstall was read");
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; hay && (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/*
 * The systemd unit's capabilities (scripts/lockstall.service:
 * CapabilityBoundingSet=CAP_BPF CAP_PERFMON), set with setpriv: cgroup ids
 * cannot be resolved there (open_by_handle_at needs CAP_DAC_READ_SEARCH).
 * A cgroup= rule that could never fire is refused at startup, and the
 * missing capability is said once.
 */
Test(hostile, cgroup_rule_refused_without_cap_dac_read_search)
{
	const char *bin = e2e_require(true);
	char *argv[] = { "/usr/bin/setpriv", "--bounding-set", "-all,+bpf,+perfmon", "--inh-caps",
			 "-all,+bpf,+perfmon", "--", (char *)bin, "watch", "--slo", "cgroup=/ wait>=1ms",
			 "-d", "1", NULL };
	struct e2e_proc *one[1] = { &p };

	if (access(argv[0], X_OK))
		cr_skip_test("no setpriv (util-linux)");
	cr_assert_eq(e2e_proc__spawn(&p, "lockstall", argv), 0);
	cr_assert_eq(e2e_proc__pump(one, 1, 30000, NULL, NULL), 0, "lockstall did not end");
	cr_assert_neq(e2e_proc__exit_code(&p), 0, "the rule was accepted; stderr:\n%s", p.err.data);
	cr_assert(strstr(p.err.data, "rule 'cgroup=/ wait>=1ms'") &&
		  strstr(p.err.data, "it needs CAP_DAC_READ_SEARCH"), "stderr:\n%s", p.err.data);
	cr_assert_eq(count_of(p.err.data, "cgroups are shown as null"), 1, "stderr:\n%s", p.err.data);
}

/* pid sleeps in a write(2) (/proc/PID/syscall: its number first, "running" when not in one). */
static bool blocked_in_write(pid_t pid)
{
	char path[64], buf[64] = "";
	FILE *f;
	long nr;
	char state;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = '?';
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	if (!e2e_read_line(path, buf, sizeof(buf)))
		return false;
	return state == 'S' && sscanf(buf, "%ld", &nr) == 1 && nr == 1 /* x86_64 write */;
}

/*
 * A signal while the output waits on a full pipe (a slow reader, a paused
 * pager) must not turn the write into EINTR and an error: report prints all
 * of it and exits 0.  The pipe is one page, so the report blocks in write.
 */
Test(hostile, signal_during_a_blocked_write)
{
	const char *bin = e2e_require(false);
	const char *data_dir = getenv("LOCKSTALL_TEST_DATA") ?: "test/data";
	char lst[256], golden[256], buf[4096];
	char *argv[] = { (char *)bin, "report", lst, "--format", "html", NULL };
	char *want, *got = NULL;
	size_t want_len, got_len = 0;
	int fds[2], status, i;
	ssize_t n;
	pid_t pid;
	FILE *f;

	snprintf(lst, sizeof(lst), "%s/golden.lst", data_dir);
	snprintf(golden, sizeof(golden), "%s/golden.html", data_dir);
	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	cr_assert_eq(fcntl(fds[1], F_SETPIPE_SZ, 4096), 4096);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		dup2(fds[1], STDOUT_FILENO);
		execv(bin, argv);
		_exit(127);
	}
	close(fds[1]);
	for (i = 0; i < 10000000 && !blocked_in_write(pid); i++)
		sched_yield();
	cr_assert(blocked_in_write(pid), "report never blocked on the full pipe");
	for (i = 0; i < 3; i++) {
		cr_assert_eq(kill(pid, SIGHUP), 0);
		while (signal_pending(pid, SIGHUP))
			sched_yield();
	}
	while ((n = read(fds[0], buf, sizeof(buf))) > 0) {
		got = realloc(got, got_len + (size_t)n);
		cr_assert_not_null(got);
		memcpy(got + got_len, buf, (size_t)n);
		got_len += (size_t)n;
	}
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "report: status %#x", status);
	f = fopen(golden, "r");
	cr_assert_not_null(f);
	want = malloc(1 << 20);
	cr_assert_not_null(want);
	want_len = fread(want, 1, 1 << 20, f);
	fclose(f);
	cr_assert_eq(got_len, want_len, "report printed %zu bytes of %zu", got_len, want_len);
	cr_assert(!memcmp(got, want, want_len), "report's output differs from %s", golden);
	free(want);
	free(got);
}

/* sig has a handler in pid (SigCgt): sent before that, it would kill. */
static bool signal_caught(pid_t pid, int sig)
{
	static const char *const caught[] = { "SigCgt:", NULL };

	return status_has_signal(pid, sig, caught);
}

/* A child that sends pid SIGHUP every 200 us until it is killed: a reload storm. */
static pid_t reload_storm(pid_t pid)
{
	pid_t child = fork();

	cr_assert_geq(child, 0);
	if (!child) {
		while (!kill(pid, SIGHUP))
			usleep(200);
		_exit(0);
	}
	return child;
}

/*
 * Reloads (SIGHUP, systemctl reload) while the programs load: the verifier
 * gives up on a load with a signal pending, and that EAGAIN was taken for a
 * backend this kernel cannot run.  lockstall must start tracing all the same.
 */
Test(hostile, reload_storm_during_start_up)
{
	const char *bin = e2e_require(true);
	char *argv[] = { (char *)bin, "watch", "--json", "-t", E2E_THRESHOLD, NULL };
	pid_t storm;
	int i;

	cr_assert_eq(e2e_proc__spawn(&p, "lockstall", argv), 0);
	for (i = 0; i < 10000000 && !signal_caught(p.pid, SIGHUP) && !e2e_proc__done(&p); i++)
		sched_yield();
	cr_assert(signal_caught(p.pid, SIGHUP), "lockstall never caught SIGHUP");
	storm = reload_storm(p.pid);
	wait_err(&p, "lockstall: tracing");
	kill(storm, SIGKILL);
	waitpid(storm, NULL, 0);
	cr_assert_null(strstr(p.err.data, "does not work on this kernel"), "stderr:\n%s", p.err.data);
	cr_assert_null(strstr(p.err.data, "without"), "a feature was dropped; stderr:\n%s", p.err.data);
	cr_assert_eq(stop(&p, SIGINT), 0, "stderr:\n%s", p.err.data);
}

/*
 * The futex stalls on memfd_elf's lock: each names it by its symbol or not
 * at all, never anything else; how many named.
 */
static size_t memfd_lock_stalls(const struct e2e_watch *run, size_t *named)
{
	const json_t *st, *lock, *name;
	size_t i, n = 0;

	*named = 0;
	json_array_foreach(run->stalls, i, st) {
		lock = json_object_get(st, "lock_id");
		if (!lock || strcmp(e2e_str(lock, "addr"), e2e_str(run->truth, "lock")))
			continue;
		n++;
		name = json_object_get(lock, "name");
		if (!json_is_string(name))
			continue;
		cr_assert_str_eq(json_string_value(name), e2e_str(run->truth, "lock_name"),
				 "a wrong name for the lock");
		(*named)++;
	}
	return n;
}

/* The control: the copy left alone, its lock is named. */
Test(hostile, memfd_elf_named_when_still)
{
	const char *const args[] = { "-d", "4", "--still", "--as-nobody", NULL };
	const char *const watch_args[] = { "--locks", "futex", NULL };
	size_t named;

	e2e_watch__run_with(&w, "memfd_elf", args, watch_args);
	cr_assert_gt(memfd_lock_stalls(&w, &named), 0, "no stall on the memfd's lock");
	cr_assert_gt(named, 0, "the lock of a file left alone was never named");
}

/*
 * A user's process maps a memfd copy of an ELF file, waits on a futex in
 * it, and truncates and rewrites the copy without pause.  lockstall names
 * the futex from the copy's symbol table: read through a mapping, the
 * table faulted (SIGBUS) and watch died within seconds.  It must trace on,
 * and name the lock rightly or not at all.
 */
Test(hostile, memfd_elf_shrunk_under_a_futex)
{
	const char *const args[] = { "-d", "4", "--as-nobody", NULL };
	const char *const watch_args[] = { "--locks", "futex", NULL };
	size_t named;

	e2e_watch__run_with(&w, "memfd_elf", args, watch_args);
	cr_assert_eq(e2e_int(w.truth, "uid"), 65534);
	cr_assert_gt(e2e_int(w.truth, "rewrites"), 0, "the workload rewrote nothing");
	cr_assert_eq(e2e_proc__exit_code(&w.lockstall), 0, "stderr:\n%s", w.lockstall.err.data);
	cr_assert_gt(memfd_lock_stalls(&w, &named), 0, "no stall on the memfd's lock");
	cr_log_info("%zu stalls on the lock named", named);
}

/* lockstall's peak resident memory (VmHWM), in kB, while it still runs. */
static void peak_rss(struct e2e_watch *run, void *ctx)
{
	char path[64], line[256];
	unsigned long long *kb = ctx;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)run->lockstall.pid);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "VmHWM: %llu kB", kb);
	fclose(f);
}

/*
 * The same futex in a copy with a large symbol table (half a million more
 * data symbols, a 12 MB file), whose mtime changes every millisecond: a
 * cache keyed by stat read it again for every stall, and kept each copy,
 * hundreds of megabytes in seconds.  lockstall stays within its symbol
 * memory (32M here) and its bytes read per second, and traces on.
 */
Test(hostile, memfd_elf_touched_large_symtab)
{
	const char *const args[] = { "-d", "4", "--touch", "--symbols", "500000", "--as-nobody", NULL };
	const char *const watch_args[] = { "--locks", "futex", "--symbol-memory", "32M", NULL };
	unsigned long long kb = 0;
	struct e2e_watch_opts o = { .watch_args = watch_args, .before_stop = peak_rss, .ctx = &kb };
	size_t named;

	e2e_watch__run_opts(&w, "memfd_elf", args, &o);
	cr_assert_gt(e2e_int(w.truth, "rewrites"), 0, "the workload touched nothing");
	cr_assert_eq(e2e_proc__exit_code(&w.lockstall), 0, "stderr:\n%s", w.lockstall.err.data);
	cr_assert_gt(memfd_lock_stalls(&w, &named), 0, "no stall on the memfd's lock");
	cr_log_info("peak RSS %llu kB; %zu stalls on the lock named", kb, named);
	/* the budget, a file being read besides it, and room for everything else lockstall holds */
	cr_assert_lt(kb, 160ull << 10, "peak RSS %llu kB", kb);
}

/*
 * Naming made slow on purpose while stalls come fast: the copy's symbol
 * table holds millions more symbols and its mtime changes without pause,
 * and the budget lets lockstall read it whole, again and again; every
 * stall carries large stack copies.  Naming has a thread of its own: the
 * ring buffer's reader keeps up (no record lost) and every wait the
 * workload timed over its bound is reported, named or not.
 */
Test(hostile, slow_naming_holds_no_tracing_up)
{
	const char *const args[] = { "-d", "5", "-u", "8000", "--over", "6", "--touch",
				     "--symbols", "2000000", "--as-nobody", NULL };
	const char *const watch_args[] = { "--locks", "futex", "-t", "2ms", "--stack-copy", "32K",
					   "--symbol-memory", "128M", NULL };
	size_t named, stalls;
	json_int_t over;

	e2e_watch__run_with(&w, "memfd_elf", args, watch_args);
	cr_assert_eq(e2e_proc__exit_code(&w.lockstall), 0, "stderr:\n%s", w.lockstall.err.data);
	over = e2e_int(w.truth, "waits_over");
	cr_assert_gt(over, 0, "the workload timed no wait over its bound");
	stalls = memfd_lock_stalls(&w, &named);
	cr_log_info("%zu stalls on the lock (%zu named), %lld waits timed over 6 ms",
		    stalls, named, (long long)over);
	cr_assert_eq(e2e_int(w.summary, "lost_events"), 0, "records lost; stderr:\n%s",
		     w.lockstall.err.data);
	/* a threshold of 2 ms under waits of 6 ms or more: room for the waiter's run delay */
	cr_assert_geq((json_int_t)stalls, over, "%zu stalls reported, %lld waits over 6 ms",
		      stalls, (long long)over);
}
