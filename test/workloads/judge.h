/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A judge for the workloads around programs lockstall's authors did not
 * write: a bpftrace script that shares no code with lockstall, run as a
 * child whose stdout the workload reads line by line.  The script's BEGIN
 * prints JUDGE_READY; wl_judge__start() returns once it has, so nothing the
 * workload starts afterwards escapes it.  bpftrace finds the tracepoints in
 * tracefs: mounted for the run where it was not.
 */
#ifndef LOCKSTALL_WORKLOAD_JUDGE_H
#define LOCKSTALL_WORKLOAD_JUDGE_H

#include <poll.h>
#include <sys/mount.h>
#include "workload.h"

#define JUDGE_TRACEFS	"/sys/kernel/tracing"
#define JUDGE_READY	"judge: tracing"

struct wl_judge {
	pid_t pid;
	int fd;			/* the script's stdout */
	bool mounted;		/* tracefs mounted for the run */
	char buf[4096];		/* bytes read, not yet returned as lines */
	size_t len;
};

/*
 * The next line of the judge's output into line (its newline dropped),
 * waiting at most timeout_ms (-1: for good): 1 a line, 0 none yet, -1 the
 * judge's output ended.
 */
static inline int wl_judge__line(struct wl_judge *j, char *line, size_t size, int timeout_ms)
{
	struct pollfd p = { .fd = j->fd, .events = POLLIN };
	char *nl;
	ssize_t n;
	size_t k;

	for (;;) {
		nl = memchr(j->buf, '\n', j->len);
		if (nl || j->len == sizeof(j->buf)) {
			k = nl ? (size_t)(nl - j->buf) : j->len;
			snprintf(line, size, "%.*s", (int)k, j->buf);
			k += !!nl;
			memmove(j->buf, j->buf + k, j->len - k);
			j->len -= k;
			return 1;
		}
		n = poll(&p, 1, timeout_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -1 : 0;
		n = read(j->fd, j->buf + j->len, sizeof(j->buf) - j->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		j->len += n;
	}
}

/* Run bpftrace -e script with its positional arguments (NULL-terminated, at most 4). */
static inline void wl_judge__start(struct wl_judge *j, const char *script, const char *const args[])
{
	const char *argv[8] = { "bpftrace", "-e", script };
	char line[256];
	pid_t parent = getpid();
	int fd[2], i;

	for (i = 0; i < 4 && args[i]; i++)
		argv[3 + i] = args[i];
	if (access(JUDGE_TRACEFS "/events", F_OK)) {
		if (mount("tracefs", JUDGE_TRACEFS, "tracefs", 0, NULL))
			wl_die("no tracefs at " JUDGE_TRACEFS ", and it cannot be mounted: %s",
			       strerror(errno));
		j->mounted = true;
	}
	if (pipe(fd))
		wl_die("pipe: %s", strerror(errno));
	j->pid = fork();
	if (j->pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (!j->pid) {
		wl_child_setup(parent);
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp("bpftrace", (char *const *)argv);
		fprintf(stderr, "judge: bpftrace: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	j->fd = fd[0];
	while (wl_judge__line(j, line, sizeof(line), -1) > 0)
		if (!strncmp(line, JUDGE_READY, strlen(JUDGE_READY)))
			return;
	wl_die("bpftrace ended before it traced");
}

/* Stop the judge: SIGINT, so that its END runs; its last lines are still to read. */
static inline void wl_judge__stop(struct wl_judge *j)
{
	kill(j->pid, SIGINT);
}

#define JUDGE_STOP_WAIT_MS	5000	/* for its next line once stopped, before asking again */
#define JUDGE_STOP_TRIES	3	/* SIGINTs before SIGKILL */

/*
 * The next line of a stopped judge (1), or -1 once its output ended.  A
 * bpftrace that let a SIGINT pass is asked again, and killed after
 * JUDGE_STOP_TRIES: its verdicts are then cut short, which the caller's
 * checks see, rather than a workload that never ends.
 */
static inline int wl_judge__stopped_line(struct wl_judge *j, char *line, size_t size)
{
	int rc, tries = 0;

	while ((rc = wl_judge__line(j, line, size, JUDGE_STOP_WAIT_MS)) == 0)
		kill(j->pid, ++tries < JUDGE_STOP_TRIES ? SIGINT : SIGKILL);
	return rc;
}

/* Once its output has ended: reap it, unmount what it needed. */
static inline void wl_judge__release(struct wl_judge *j)
{
	close(j->fd);
	while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (j->mounted && umount(JUDGE_TRACEFS))
		fprintf(stderr, "judge: umount " JUDGE_TRACEFS ": %s\n", strerror(errno));
}

/*
 * The verdicts of a judge that prints, for each wait of MS or more,
 *   wait TID OWNER LOCK(hex) START END
 * and for each stretch another task ran on the CPU of a holder (any task
 * the script watches) that sat runnable,
 *   ran HOLDER TID START END
 * (times CLOCK_MONOTONIC ns).  Lines of other kinds are left out.
 *
 * JUDGE_WAIT_END_AND_RAN() is the probes that print those lines, for a script whose contention_begin
 * filled @ws, @wlock and @wowner for the waiter's tid; holder: the
 * predicate, on the task switched out, of the holders watched.  A task
 * switched out runnable has prev_state 0, or TASK_REPORT_MAX if preempted.
 */
#define JUDGE_WAIT_END_AND_RAN(holder) \
	"tracepoint:lock:contention_end /@ws[tid]/ {\n" \
	"	if (nsecs - @ws[tid] >= $1) {\n" \
	"		printf(\"wait %d %d %llx %llu %llu\\n\", tid, @wowner[tid], @wlock[tid],\n" \
	"		       @ws[tid], nsecs);\n" \
	"	}\n" \
	"	delete(@ws[tid]); delete(@wlock[tid]); delete(@wowner[tid]);\n" \
	"}\n" \
	"tracepoint:sched:sched_switch {\n" \
	"	if (@off[cpu]) {\n" \
	"		printf(\"ran %d %d %llu %llu\\n\", @off[cpu], args->prev_pid, @since[cpu], nsecs);\n" \
	"		if (args->next_pid == @off[cpu]) { delete(@off[cpu]); } else { @since[cpu] = nsecs; }\n" \
	"	} else if ((args->prev_state & 0xff) == 0 && " holder ") {\n" \
	"		@off[cpu] = args->prev_pid;\n" \
	"		@since[cpu] = nsecs;\n" \
	"	}\n" \
	"}\n"

#define JUDGE_MAX_WAITS	64
#define JUDGE_MAX_RAN	65536

struct wl_wait {
	int tid, owner;
	unsigned long long lock, start, end;
	unsigned long long ran_ns, top_ns, next_ns;
	int top_tid;
};

/* Someone ran on the holder's CPU while the holder sat runnable. */
struct wl_ran {
	int holder, tid;
	unsigned long long start, end;
};

struct wl_verdicts {
	struct wl_wait waits[JUDGE_MAX_WAITS];
	size_t n_waits;
	struct wl_ran ran[JUDGE_MAX_RAN];
	size_t n_ran;
};

/* Take one line of the judge's; true for a wait. */
static inline bool wl_verdicts__add(struct wl_verdicts *v, const char *line)
{
	struct wl_wait *w = &v->waits[v->n_waits];
	struct wl_ran *r = &v->ran[v->n_ran];

	if (v->n_waits < JUDGE_MAX_WAITS && sscanf(line, "wait %d %d %llx %llu %llu", &w->tid, &w->owner,
					     &w->lock, &w->start, &w->end) == 5) {
		v->n_waits++;
		return true;
	}
	if (v->n_ran < JUDGE_MAX_RAN &&
	    sscanf(line, "ran %d %d %llu %llu", &r->holder, &r->tid, &r->start, &r->end) == 4)
		v->n_ran++;
	return false;
}

/* Who ran instead of the wait's owner inside it, and who of them longest. */
static inline void wl_verdicts__blame(struct wl_verdicts *v, struct wl_wait *w)
{
	struct { int tid; unsigned long long ns; } by[64];
	unsigned long long s, t;
	size_t i, k, n = 0;

	for (i = 0; i < v->n_ran; i++) {
		if (v->ran[i].holder != w->owner)
			continue;
		s = v->ran[i].start > w->start ? v->ran[i].start : w->start;
		t = v->ran[i].end < w->end ? v->ran[i].end : w->end;
		if (t <= s)
			continue;
		for (k = 0; k < n && by[k].tid != v->ran[i].tid; k++)
			;
		if (k == n && n < sizeof(by) / sizeof(by[0]))
			by[n++] = (typeof(by[0])){ v->ran[i].tid, 0 };
		if (k < n)
			by[k].ns += t - s;
		w->ran_ns += t - s;
	}
	for (k = 0; k < n; k++) {
		if (by[k].ns > w->top_ns) {
			w->next_ns = w->top_ns;
			w->top_ns = by[k].ns;
			w->top_tid = by[k].tid;
		} else if (by[k].ns > w->next_ns) {
			w->next_ns = by[k].ns;
		}
	}
}

/* The judge's waits as JSON, each with who ran in its owner's place: "waits":[...]. */
static inline void wl_verdicts__print(struct wl_verdicts *v)
{
	struct wl_wait *w;
	size_t i;

	printf("\"waits\":[");
	for (i = 0; i < v->n_waits; i++) {
		w = &v->waits[i];
		wl_verdicts__blame(v, w);
		printf("%s{\"tid\":%d,\"owner\":%d,\"lock\":\"0x%llx\",\"start_ns\":%llu,"
		       "\"end_ns\":%llu,\"ran_ns\":%llu,\"top_tid\":%d,\"top_ns\":%llu,"
		       "\"next_ns\":%llu}", i ? "," : "", w->tid, w->owner, w->lock, w->start,
		       w->end, w->ran_ns, w->top_tid, w->top_ns, w->next_ns);
	}
	printf("]");
}

/* Take the lines the judge has printed within timeout_ms; how many waits they told. */
static inline size_t wl_judge__take(struct wl_judge *j, struct wl_verdicts *v, int timeout_ms)
{
	char line[256];
	size_t n = 0;

	while (wl_judge__line(j, line, sizeof(line), timeout_ms) > 0)
		n += wl_verdicts__add(v, line);
	return n;
}

/* A judged workload's options: -n WAITS -m MS -d SECONDS (3, 20, 10). */
struct wl_judged_opts {
	size_t want;			/* stop after this many waits of min_ms or more */
	unsigned long long min_ms, secs;	/* or after secs */
	char min_ns[32];		/* min_ms for the script: its $1 */
};

static inline void wl_judged_opts__parse(struct wl_judged_opts *o, int argc, char **argv)
{
	int c;

	*o = (struct wl_judged_opts){ .want = 3, .min_ms = 20, .secs = 10 };
	while ((c = getopt(argc, argv, "n:m:d:")) != -1) {
		if (c == 'n')
			o->want = strtoul(optarg, NULL, 10);
		else if (c == 'm')
			o->min_ms = strtoull(optarg, NULL, 10);
		else if (c == 'd')
			o->secs = strtoull(optarg, NULL, 10);
		else
			wl_die("usage: %s [-n WAITS] [-m MS] [-d SECONDS]", argv[0]);
	}
	snprintf(o->min_ns, sizeof(o->min_ns), "%llu", o->min_ms * 1000000ULL);
}

/* Stop the judge, take its last lines, reap it. */
static inline void wl_judge__finish(struct wl_judge *j, struct wl_verdicts *v)
{
	char line[256];

	wl_judge__stop(j);
	while (wl_judge__stopped_line(j, line, sizeof(line)) > 0)
		wl_verdicts__add(v, line);
	wl_judge__release(j);
}

#endif /* LOCKSTALL_WORKLOAD_JUDGE_H */
