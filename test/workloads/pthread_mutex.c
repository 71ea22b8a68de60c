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
 * --sleep-under MS: the holder sleeps MS milliseconds under each hold,
 * after its work.  With --pi no boost can run it then: a PI owner not
 * boosted in time.
 *
 * Where the mutex lives, which is how lockstall names it: on main()'s
 * stack (default: no name, only its address); --global: the global
 * g_wl_mutex (in .bss); --in-struct: the lock member of the global
 * g_wl_queue (in .data), named "g_wl_queue+0xOFF".
 *
 * --hold-all: the holder keeps the mutex for the whole run (-d) and the
 * victim waits once, all along (lock_inversion.h): a first line says when
 * it waits ("victim_waits"), for a test that starts lockstall only then.
 * SIGUSR1 lets go of the mutex before the run's end.
 *
 * Ground truth: one JSON line on stdout (workload.h), with the mutex's
 * address and name ("mutex_name", null on the stack) and the victim's
 * slowest pthread_mutex_lock().
 */
#include <stddef.h>
#include "lock_inversion.h"

/* Names lockstall finds in this binary's symbol table: keep them. */
pthread_mutex_t g_wl_mutex;
struct wl_queue {
	const char *name;
	unsigned long len;
	pthread_mutex_t lock;
} g_wl_queue = { .name = "wl-queue" };

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
	bool global = wl_take_flag(&argc, argv, "--global");
	bool in_struct = wl_take_flag(&argc, argv, "--in-struct");
	bool hold_all = wl_take_flag(&argc, argv, "--hold-all");
	unsigned long sleep_under_ms = wl_take_number(&argc, argv, "--sleep-under", 0, 1000);
	pthread_mutex_t on_stack;
	pthread_mutex_t *mutex = global ? &g_wl_mutex : in_struct ? &g_wl_queue.lock : &on_stack;
	struct wl_inversion x = { .opts = &opts, .ops = &mutex_ops, .lock = mutex,
				  .hold_all = hold_all, .sleep_under_ms = sleep_under_ms };
	pthread_mutexattr_t attr;
	char head[192], name[64] = "null";

	wl_parse_opts(argc, argv, &opts);
	pthread_mutexattr_init(&attr);
	if (pi && pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT))
		wl_die("PTHREAD_PRIO_INHERIT not supported");
	pthread_mutex_init(mutex, &attr);
	wl_inversion__run(&x, (uintptr_t)mutex);
	/* the name a symbolizer should give it: null where it has none */
	if (global)
		snprintf(name, sizeof(name), "\"g_wl_mutex\"");
	else if (in_struct)
		snprintf(name, sizeof(name), "\"g_wl_queue+0x%zx\"", offsetof(struct wl_queue, lock));
	snprintf(head, sizeof(head),
		 "\"workload\":\"pthread_mutex\",\"pi\":%s,\"sleep_under_ms\":%lu,"
		 "\"mutex\":\"0x%llx\",\"mutex_name\":%s",
		 pi ? "true" : "false", sleep_under_ms, (unsigned long long)(uintptr_t)mutex, name);
	wl_inversion__print(&x, head);
	return 0;
}
