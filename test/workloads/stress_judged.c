// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stress_judged: ground truth for lockstall beside programs it did not
 * write: stress-ng's --mutex or --futex stressor (2 workers), every futex
 * wait of its threads timed by bpftrace, a judge that shares no code with
 * lockstall.
 *
 * The judge reads the owner glibc recorded as each wait begins: for a
 * FUTEX_WAIT on a word holding 2 (glibc's "locked, with waiters") the
 * mutex's __owner, the int after the lock word and the count; for a PI
 * lock, the TID in the futex word.  A wait lasts until the waiter is woken
 * (the lock handed over; its wait for a CPU after that is its own, as
 * lockstall counts it), or until the call returns.  A wait of -m ms or
 * more that got the lock, whose recorded owner was another thread, is a
 * long wait.  A wakeup timed on another CPU, whose clock may lag a few
 * microseconds, can come out before the wait's start: such a wait is not
 * long (unsigned, its negative length would have passed for one).
 * Woken is the first of sched_waking and sched_wakeup it sees: a classic
 * tracepoint's program is skipped when it fires inside another BPF program
 * (lockstall's), and the two often fire in different contexts, so one
 * that was missed is seldom missed twice.
 *
 *   stress_judged [-s mutex|futex] [-d SECONDS] [-m MS] [-p]   (mutex, 6, 10)
 *
 * -p: one --mutex worker whose two threads are pinned to CPUs 0 and 1
 * (--mutex-procs 2 --taskset 0,1): an owner mostly runs as a wait on it
 * begins, and the waits are short.  Without it, two workers of several
 * threads on the two CPUs: owners are mostly preempted.
 *
 * Prints one JSON line once stress-ng is done:
 *   {"workload":"stress_judged","stressor":S,"waits_seen":N,
 *    "long_waits":[{"tid":T,"owner":O,"start_ns":A,"end_ns":B},...]}
 * waits_seen: every futex wait the judge timed; the times are
 * CLOCK_MONOTONIC ns, as lockstall reports them.  bpftrace finds the
 * syscall tracepoints in tracefs: mounted for the run where it was not.
 */
#include "judge.h"

#define MAX_LONG	4096

static const char judge_script[] =
	"BEGIN { printf(\"" JUDGE_READY "\\n\"); }\n"
	"tracepoint:syscalls:sys_enter_futex /strncmp(comm, \"stress-ng\", 9) == 0/ {\n"
	"	$op = args->op & 127;\n"
	"	if (($op == 0 || $op == 9) && args->val == 2) {\n"
	"		@start[tid] = nsecs;\n"
	"		@owner[tid] = *(uint32 *)uptr((uint64)args->uaddr + 8);\n"
	"	} else if ($op == 6 || $op == 13) {\n"
	"		@start[tid] = nsecs;\n"
	"		@owner[tid] = *(uint32 *)uptr(args->uaddr) & 0x3fffffff;\n"
	"	}\n"
	"}\n"
	"tracepoint:sched:sched_waking /@start[args->pid] && !@woke[args->pid]/ {\n"
	"	@woke[args->pid] = nsecs;\n"
	"}\n"
	"tracepoint:sched:sched_wakeup /@start[args->pid] && !@woke[args->pid]/ {\n"
	"	@woke[args->pid] = nsecs;\n"
	"}\n"
	"tracepoint:syscalls:sys_exit_futex /@start[tid]/ {\n"
	"	@seen++;\n"
	"	$end = @woke[tid] ? @woke[tid] : nsecs;\n"
	"	if (args->ret == 0 && $end > @start[tid] && $end - @start[tid] >= $1 &&\n"
	"	    @owner[tid] != 0 && @owner[tid] != tid) {\n"
	"		printf(\"wait %d %d %llu %llu\\n\", tid, @owner[tid], @start[tid], $end);\n"
	"	}\n"
	"	delete(@start[tid]);\n"
	"	delete(@owner[tid]);\n"
	"	delete(@woke[tid]);\n"
	"}\n"
	"END { printf(\"seen %d\\n\", @seen); clear(@seen); clear(@start); clear(@owner); clear(@woke); }\n";

struct long_wait {
	int tid, owner;
	unsigned long long start, end;
};

struct verdicts {
	struct long_wait waits[MAX_LONG];
	size_t n;
	long long seen;
};

/* Stop the judge (its END runs) and take its verdicts. */
static void judge__finish(struct wl_judge *j, struct verdicts *v)
{
	struct long_wait *w;
	char line[256];

	wl_judge__stop(j);
	while (wl_judge__stopped_line(j, line, sizeof(line)) > 0) {
		w = &v->waits[v->n];
		if (v->n < MAX_LONG && sscanf(line, "wait %d %d %llu %llu", &w->tid, &w->owner,
					      &w->start, &w->end) == 4)
			v->n++;
		else
			sscanf(line, "seen %lld", &v->seen);
	}
	wl_judge__release(j);
}

static void stress_run(const char *stressor, const char *secs, bool pinned)
{
	char opt[32];
	pid_t pid;
	int status;

	snprintf(opt, sizeof(opt), "--%s", stressor);
	pid = fork();
	if (pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (!pid) {
		/* stress-ng's chatter would pass for ground truth on stdout */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		if (pinned)
			execlp("stress-ng", "stress-ng", opt, "1", "--mutex-procs", "2", "--taskset",
			       "0,1", "-t", secs, (char *)NULL);
		else
			execlp("stress-ng", "stress-ng", opt, "2", "-t", secs, (char *)NULL);
		fprintf(stderr, "stress_judged: stress-ng: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		wl_die("stress-ng %s failed", opt);
}

int main(int argc, char **argv)
{
	static struct verdicts v;
	struct wl_judge j = { 0 };
	char min_ns[32];
	const char *stressor = "mutex", *secs = "6";
	unsigned long long min_ms = 10;
	bool pinned = false;
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "s:d:m:p")) != -1) {
		switch (c) {
		case 's':
			stressor = optarg;
			break;
		case 'd':
			secs = optarg;
			break;
		case 'm':
			min_ms = strtoull(optarg, NULL, 10);
			break;
		case 'p':
			pinned = true;
			break;
		default:
			wl_die("usage: stress_judged [-s mutex|futex] [-d SECONDS] [-m MS] [-p]");
		}
	}
	if (strcmp(stressor, "mutex") && strcmp(stressor, "futex"))
		wl_die("-s: mutex or futex, not '%s'", stressor);
	snprintf(min_ns, sizeof(min_ns), "%llu", min_ms * 1000000ULL);
	wl_judge__start(&j, judge_script, (const char *const[]){ min_ns, NULL });
	if (pinned && strcmp(stressor, "mutex"))
		wl_die("-p: with -s mutex only");
	stress_run(stressor, secs, pinned);
	judge__finish(&j, &v);
	printf("{\"workload\":\"stress_judged\",\"stressor\":\"%s\",\"waits_seen\":%lld,\"long_waits\":[",
	       stressor, v.seen);
	for (i = 0; i < v.n; i++)
		printf("%s{\"tid\":%d,\"owner\":%d,\"start_ns\":%llu,\"end_ns\":%llu}", i ? "," : "",
		       v.waits[i].tid, v.waits[i].owner, v.waits[i].start, v.waits[i].end);
	printf("]}\n");
	return 0;
}
