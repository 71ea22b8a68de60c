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

/* Once its output has ended: reap it, unmount what it needed. */
static inline void wl_judge__release(struct wl_judge *j)
{
	close(j->fd);
	while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (j->mounted && umount(JUDGE_TRACEFS))
		fprintf(stderr, "judge: umount " JUDGE_TRACEFS ": %s\n", strerror(errno));
}

#endif /* LOCKSTALL_WORKLOAD_JUDGE_H */
