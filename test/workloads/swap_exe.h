/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --swap-exe: a hostile process for lockstall's symbolizer and unwinder.
 * The workload runs from a copy of itself in a directory of its own, and
 * a thread swaps that copy's path, over and over (renameat2
 * RENAME_EXCHANGE), with a FIFO and with a symlink to the FIFO: a tracer
 * that opens the executable by path, blocking, hangs on the FIFO.  The
 * mapped executable stays whole (a rename never touches the inode).
 */
#ifndef LOCKSTALL_SWAP_EXE_H
#define LOCKSTALL_SWAP_EXE_H

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include "workload.h"

#define WL_SWAP_ENV "LOCKSTALL_WL_SWAPDIR"

struct wl_swap {
	char dir[PATH_MAX];
	char exe[PATH_MAX + 16], fifo[PATH_MAX + 16], link[PATH_MAX + 16];
	pthread_t thread;
	atomic_bool stop;
	uint64_t swaps;		/* exchanges made */
	bool on;
};

static inline void wl_swap__copy(const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);

	if (in < 0 || out < 0)
		wl_die("--swap-exe: copy to %s: %s", to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			wl_die("--swap-exe: write %s: %s", to, strerror(errno));
	if (n < 0 || close(out))
		wl_die("--swap-exe: copy to %s: %s", to, strerror(errno));
	close(in);
}

/* The first run copies itself and runs the copy (which returns from here). */
static inline void wl_swap__exec_copy(struct wl_swap *s, char **argv)
{
	const char *dir = getenv(WL_SWAP_ENV);

	if (dir) {
		snprintf(s->dir, sizeof(s->dir), "%s", dir);
		snprintf(s->exe, sizeof(s->exe), "%s/workload", s->dir);
		return;
	}
	snprintf(s->dir, sizeof(s->dir), "/tmp/wl-swap-XXXXXX");
	if (!mkdtemp(s->dir))
		wl_die("--swap-exe: mkdtemp: %s", strerror(errno));
	snprintf(s->exe, sizeof(s->exe), "%s/workload", s->dir);
	wl_swap__copy(s->exe);
	setenv(WL_SWAP_ENV, s->dir, 1);
	execv(s->exe, argv);
	wl_die("--swap-exe: exec %s: %s", s->exe, strerror(errno));
}

static inline void wl_swap__exchange(struct wl_swap *s, const char *other)
{
	if (renameat2(AT_FDCWD, s->exe, AT_FDCWD, other, RENAME_EXCHANGE))
		wl_die("--swap-exe: renameat2 %s %s: %s", s->exe, other, strerror(errno));
	s->swaps++;
}

static inline void *wl_swap__run(void *arg)
{
	struct wl_swap *s = arg;

	prctl(PR_SET_NAME, "wl-swapper");
	/* on the victim's CPU: it is SCHED_FIFO there and preempts this */
	wl_pin_cpu(WL_CPU_VICTIM);
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		/* each pair of exchanges puts the executable back */
		wl_swap__exchange(s, s->fifo);
		wl_swap__exchange(s, s->fifo);
		wl_swap__exchange(s, s->link);
		wl_swap__exchange(s, s->link);
	}
	return NULL;
}

/* With --swap-exe: run from a copy (the first call, early: it execs). */
static inline void wl_swap__exec(struct wl_swap *s, const struct wl_opts *o, char **argv)
{
	if (o->swap_exe)
		wl_swap__exec_copy(s, argv);
}

/* ... and swap it from now on (once the workload is set up: it takes a CPU). */
static inline void wl_swap__go(struct wl_swap *s, const struct wl_opts *o)
{
	int err;

	if (!o->swap_exe)
		return;
	snprintf(s->fifo, sizeof(s->fifo), "%s/fifo", s->dir);
	snprintf(s->link, sizeof(s->link), "%s/link", s->dir);
	if (mkfifo(s->fifo, 0600) || symlink(s->fifo, s->link))
		wl_die("--swap-exe: mkfifo, symlink in %s: %s", s->dir, strerror(errno));
	err = pthread_create(&s->thread, NULL, wl_swap__run, s);
	if (err)
		wl_die("--swap-exe: pthread_create: %s", strerror(err));
	s->on = true;
}

/* Stop swapping (the executable back at its path) and remove the directory. */
static inline void wl_swap__stop(struct wl_swap *s)
{
	if (!s->on)
		return;
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	unlink(s->exe);
	unlink(s->fifo);
	unlink(s->link);
	rmdir(s->dir);
	s->on = false;
}

#endif /* LOCKSTALL_SWAP_EXE_H */
