// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pthread_mutex: a real-time thread stalls on a pthread mutex that a
 * SCHED_IDLE thread of the same process holds while a CPU hog runs
 * (lock_inversion.h): the victim waits for all of the holder's preemption
 * (FUTEX_WAIT on the mutex word; glibc's __owner names the holder).
 *
 * --pi: the mutex is PTHREAD_PRIO_INHERIT (FUTEX_LOCK_PI): the kernel boosts
 * the holder to the victim's priority while the victim waits, so the hog
 * cannot keep it off its CPU, and the waits stay short: no inversion.
 *
 * Ground truth: one JSON line on stdout (workload.h), with the mutex's
 * address and the victim's slowest pthread_mutex_lock().
 */
#include "lock_inversion.h"

static void mutex__lock(void *m)
{
	pthread_mutex_lock(m);
}

static void mutex__unlock(void *m)
{
	pthread_mutex_unlock(m);
}

static const struct wl_lock_ops mutex_ops = {
	.hold = mutex__lock, .unhold = mutex__unlock,
	.take = mutex__lock, .release = mutex__unlock,
};

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 5000 };
	bool pi = wl_take_flag(&argc, argv, "--pi");
	pthread_mutex_t mutex;
	struct wl_inversion x = { .opts = &opts, .ops = &mutex_ops, .lock = &mutex };
	pthread_mutexattr_t attr;
	char head[128];

	wl_parse_opts(argc, argv, &opts);
	pthread_mutexattr_init(&attr);
	if (pi && pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT))
		wl_die("PTHREAD_PRIO_INHERIT not supported");
	pthread_mutex_init(&mutex, &attr);
	wl_inversion__run(&x);
	snprintf(head, sizeof(head), "\"workload\":\"pthread_mutex\",\"pi\":%s,\"mutex\":\"0x%llx\"",
		 pi ? "true" : "false", (unsigned long long)(uintptr_t)&mutex);
	wl_inversion__print(&x, head);
	return 0;
}
