/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Child processes for the end-to-end tests: start a program with its
 * stdout and stderr in pipes, collect what it writes while others run, and
 * learn when it has exited, all from one poll() loop.  Nothing here sleeps:
 * every wait is for an event (data, end of file, exit), bounded by a
 * deadline that only stops a test that would otherwise hang.
 *
 * A process is "done" once it has exited and both its pipes are at end of
 * file (so all it wrote has been read).
 */
#ifndef LOCKSTALL_TEST_E2E_PROC_H
#define LOCKSTALL_TEST_E2E_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A growing NUL-terminated byte buffer. */
struct e2e_buf {
	char *data;
	size_t len;
	size_t alloc;
};

struct e2e_proc {
	const char *name;	/* for messages */
	pid_t pid;		/* 0: not started */
	int pidfd;		/* readable once the process exited; -1 when reaped */
	int out_fd;		/* -1 at end of file */
	int err_fd;
	struct e2e_buf out;
	struct e2e_buf err;
	bool reaped;
	int status;		/* waitpid() status, once reaped */
};

#define E2E_PROC_INIT { .pidfd = -1, .out_fd = -1, .err_fd = -1 }

/*
 * Start argv[0] (a path) with argv, stdin from /dev/null, stdout and
 * stderr into pipes.  The child gets SIGKILL if the test process dies.
 * Returns 0 or -errno.
 */
int e2e_proc__spawn(struct e2e_proc *p, const char *name, char *const argv[]);

bool e2e_proc__done(const struct e2e_proc *p);

/* Exit code when it exited normally, else -1 (killed by a signal, or not reaped). */
int e2e_proc__exit_code(const struct e2e_proc *p);

/* Send a signal unless it has been reaped.  Returns 0 or -errno. */
int e2e_proc__signal(struct e2e_proc *p, int sig);

/*
 * Poll every open pipe and every unreaped process of procs[] and take what
 * comes, until until(ctx) returns true (checked before each wait) or
 * timeout_ms has passed.  Returns 0 when until() held, -ETIMEDOUT, or
 * -errno.  A NULL until means "all procs done".
 */
int e2e_proc__pump(struct e2e_proc *const procs[], size_t n, int timeout_ms,
		   bool (*until)(void *ctx), void *ctx);

/* SIGKILL if still running, reap, close and free everything. */
void e2e_proc__release(struct e2e_proc *p);

/* The first line of b that starts with prefix, or NULL. */
const char *e2e_buf__line_with_prefix(const struct e2e_buf *b, const char *prefix);

/* Number of lines in b (a last line without '\n' counts). */
size_t e2e_buf__lines(const struct e2e_buf *b);

/* The first line of the file at path into buf (len bytes), without its '\n'; false: unreadable. */
bool e2e_read_line(const char *path, char *buf, size_t len);

#endif /* LOCKSTALL_TEST_E2E_PROC_H */
