// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pthread_rwlock: a real-time thread stalls on a pthread_rwlock_t that a
 * SCHED_IDLE thread of the same process holds for writing while a CPU hog
 * runs (lock_inversion.h).  The victim takes it for reading (--write: for
 * writing) and waits for all of the writer's preemption (FUTEX_WAIT with 3
 * on the rwlock's __wrphase_futex, or __writers_futex with --write;
 * glibc's __cur_writer names the writer).
 *
 * --behind-reader: the holder takes it for reading and the victim for
 * writing: the writer waits for the readers to leave (FUTEX_WAIT with 2 on
 * __wrphase_futex), and no word of the rwlock names a reader, so only the
 * last reader's wake (the releaser) can say who it was.
 *
 * --event: no rwlock, an event: the holder raises a word to 3 (the value
 * a rwlock waiter passes) for its 1 ms of work and the victim waits
 * (FUTEX_WAIT with 3) until it drops: as long a wait, but on no lock, so
 * it must be no lock stall.  The word lies right after the rwlock.
 *
 * Ground truth: one JSON line on stdout (workload.h), with the rwlock's
 * address and the victim's slowest lock call.
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include "lock_inversion.h"

#define EVENT_BUSY	3	/* what glibc's rwlock waiters pass to FUTEX_WAIT */

struct rw_event {
	pthread_rwlock_t rwlock;
	_Atomic unsigned int event;	/* --event: EVENT_BUSY while the holder works */
};

static void rw__wrlock(void *l)
{
	pthread_rwlock_wrlock(l);
}

static void rw__rdlock(void *l)
{
	pthread_rwlock_rdlock(l);
}

static void rw__unlock(void *l)
{
	pthread_rwlock_unlock(l);
}

static void event__raise(void *l)
{
	((struct rw_event *)l)->event = EVENT_BUSY;
}

static void event__clear(void *l)
{
	_Atomic unsigned int *word = &((struct rw_event *)l)->event;

	*word = 0;
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void event__wait(void *l)
{
	_Atomic unsigned int *word = &((struct rw_event *)l)->event;

	while (*word == EVENT_BUSY)
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, EVENT_BUSY, NULL, NULL, 0);
}

static const struct wl_lock_ops modes[] = {
	{ .hold = rw__wrlock, .unhold = rw__unlock, .take = rw__rdlock, .release = rw__unlock },
	{ .hold = rw__wrlock, .unhold = rw__unlock, .take = rw__wrlock, .release = rw__unlock },
	{ .hold = event__raise, .unhold = event__clear, .take = event__wait },
	{ .hold = rw__rdlock, .unhold = rw__unlock, .take = rw__wrlock, .release = rw__unlock },
};
/* The victim's mode, then the holder's. */
static const char *const mode_names[][2] = {
	{ "read", "write" }, { "write", "write" }, { "event", "event" }, { "write", "read" },
};

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 5000 };
	struct rw_event l = { .event = 0 };
	struct wl_inversion x = { .opts = &opts, .lock = &l };
	int mode = 0;
	char head[160];

	if (wl_take_flag(&argc, argv, "--write"))
		mode = 1;
	if (wl_take_flag(&argc, argv, "--event"))
		mode = 2;
	if (wl_take_flag(&argc, argv, "--behind-reader"))
		mode = 3;
	wl_parse_opts(argc, argv, &opts);
	pthread_rwlock_init(&l.rwlock, NULL);
	x.ops = &modes[mode];
	wl_inversion__run(&x, 0);	/* never hold_all */
	snprintf(head, sizeof(head),
		 "\"workload\":\"pthread_rwlock\",\"mode\":\"%s\",\"holder_mode\":\"%s\","
		 "\"rwlock\":\"0x%llx\"",
		 mode_names[mode][0], mode_names[mode][1], (unsigned long long)(uintptr_t)&l.rwlock);
	wl_inversion__print(&x, head);
	return 0;
}
