// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See e2e_proc.h.  Exit is seen through a pidfd (Linux 5.3+), so that one
 * poll() waits for output and exits alike, without SIGCHLD handlers that
 * would fight with the test runner's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "lib/e2e_proc.h"

#define E2E_MAX_FDS 64

static int buf__append(struct e2e_buf *b, const char *data, size_t len)
{
	if (b->len + len + 1 > b->alloc) {
		size_t alloc = b->alloc ? b->alloc : 4096;
		char *p;

		while (b->len + len + 1 > alloc)
			alloc *= 2;
		p = realloc(b->data, alloc);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->alloc = alloc;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

static void fd__close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int e2e_proc__spawn(struct e2e_proc *p, const char *name, char *const argv[])
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, pidfd, nullfd, rc;
	pid_t parent = getpid(), pid;

	*p = (struct e2e_proc)E2E_PROC_INIT;
	p->name = name;
	/* Empty but allocated: a process that prints nothing still has a "" to look at. */
	if (buf__append(&p->out, "", 0) || buf__append(&p->err, "", 0))
		return -ENOMEM;
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		rc = -errno;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto fail;
	}
	if (pid == 0) {
		/* Dies with the test, even when an assertion ends it early. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		nullfd = open("/dev/null", O_RDONLY);
		if (nullfd < 0 || dup2(nullfd, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		dprintf(2, "e2e: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	p->pid = pid;
	fd__close(&out[1]);
	fd__close(&err[1]);
	p->out_fd = out[0];
	p->err_fd = err[0];
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		rc = -errno;
		e2e_proc__release(p);
		return rc;
	}
	p->pidfd = pidfd;
	return 0;
fail:
	fd__close(&out[0]);
	fd__close(&out[1]);
	fd__close(&err[0]);
	fd__close(&err[1]);
	return rc;
}

bool e2e_proc__done(const struct e2e_proc *p)
{
	return p->reaped && p->out_fd < 0 && p->err_fd < 0;
}

int e2e_proc__exit_code(const struct e2e_proc *p)
{
	if (!p->reaped || !WIFEXITED(p->status))
		return -1;
	return WEXITSTATUS(p->status);
}

int e2e_proc__signal(struct e2e_proc *p, int sig)
{
	if (!p->pid || p->reaped)
		return -ESRCH;
	/* pidfd_send_signal: never a recycled pid, even after the exit. */
	if (syscall(SYS_pidfd_send_signal, p->pidfd, sig, NULL, 0))
		return -errno;
	return 0;
}

static int proc__reap(struct e2e_proc *p)
{
	pid_t r;

	do
		r = waitpid(p->pid, &p->status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)	/* the pidfd said it exited: cannot happen, keep polling */
		return 0;
	p->reaped = true;
	fd__close(&p->pidfd);
	return 0;
}

/* Read once from a pipe that poll() said is ready; close it at end of file. */
static int proc__drain(int *fd, struct e2e_buf *b)
{
	char chunk[65536];
	ssize_t n;

	n = read(*fd, chunk, sizeof(chunk));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0) {
		fd__close(fd);
		return 0;
	}
	return buf__append(b, chunk, n);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static bool all_done(struct e2e_proc *const procs[], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!e2e_proc__done(procs[i]))
			return false;
	return true;
}

int e2e_proc__pump(struct e2e_proc *const procs[], size_t n, int timeout_ms,
		   bool (*until)(void *ctx), void *ctx)
{
	long long deadline = now_ms() + timeout_ms;

	for (;;) {
		struct pollfd pfd[E2E_MAX_FDS];
		int *fds[E2E_MAX_FDS];
		struct e2e_buf *bufs[E2E_MAX_FDS];
		struct e2e_proc *owner[E2E_MAX_FDS];
		size_t i, nfd = 0;
		long long left;
		int rc;

		if (until ? until(ctx) : all_done(procs, n))
			return 0;
		for (i = 0; i < n && nfd + 3 <= E2E_MAX_FDS; i++) {
			struct e2e_proc *p = procs[i];
			int *want[3] = { &p->out_fd, &p->err_fd, &p->pidfd };
			struct e2e_buf *b[3] = { &p->out, &p->err, NULL };
			int k;

			for (k = 0; k < 3; k++) {
				if (*want[k] < 0)
					continue;
				pfd[nfd] = (struct pollfd){ .fd = *want[k], .events = POLLIN };
				fds[nfd] = want[k];
				bufs[nfd] = b[k];
				owner[nfd] = p;
				nfd++;
			}
		}
		if (!nfd)	/* nothing can change any more */
			return until ? -ETIMEDOUT : 0;
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(pfd, nfd, (int)left);
		if (rc < 0 && errno != EINTR)
			return -errno;
		for (i = 0; rc > 0 && i < nfd; i++) {
			int err;

			if (!pfd[i].revents)
				continue;
			if (bufs[i])
				err = proc__drain(fds[i], bufs[i]);
			else
				err = proc__reap(owner[i]);
			if (err)
				return err;
		}
	}
}

void e2e_proc__release(struct e2e_proc *p)
{
	if (p->pid && !p->reaped) {
		e2e_proc__signal(p, SIGKILL);
		while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
			;
		p->reaped = true;
	}
	fd__close(&p->pidfd);
	fd__close(&p->out_fd);
	fd__close(&p->err_fd);
	free(p->out.data);
	free(p->err.data);
	p->out = (struct e2e_buf){ 0 };
	p->err = (struct e2e_buf){ 0 };
}

const char *e2e_buf__line_with_prefix(const struct e2e_buf *b, const char *prefix)
{
	size_t plen = strlen(prefix);
	const char *line = b->data;

	while (line && *line) {
		const char *nl = strchr(line, '\n');

		if (!strncmp(line, prefix, plen))
			return line;
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

size_t e2e_buf__lines(const struct e2e_buf *b)
{
	size_t n = 0, i;

	for (i = 0; i < b->len; i++)
		if (b->data[i] == '\n')
			n++;
	if (b->len && b->data[b->len - 1] != '\n')
		n++;
	return n;
}

bool e2e_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}
