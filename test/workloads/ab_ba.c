// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ab_ba: two threads take two pthread mutexes in opposite orders and
 * deadlock.  "wl-a" holds A and waits for B; "wl-b" holds B and waits for A.
 * Each takes its first mutex, then both meet at a barrier, so the deadlock
 * always forms.  They run on CPUs of their own where there are two: on
 * PREEMPT_RT a futex program preempted in one thread would make the
 * kernel skip it for the other on that CPU (lockstall counts that lost).  Once both threads sleep in their second lock's futex wait
 * (the deadlock is complete), it says so in a first line ("both_wait"), for
 * a test that starts lockstall only then.  It lasts -d seconds (default 3):
 * then the process exits, the deadlock with it, after printing its ground
 * truth (workload.h): the threads and the mutexes' addresses.
 */
#include <pthread.h>
#include "workload.h"

struct shared {
	pthread_mutex_t a, b;
	pthread_barrier_t both_hold;
	pid_t tid_a, tid_b;	/* set before the threads lock anything */
	uint64_t start_ns;
};

static void *thread_a(void *arg)
{
	struct shared *s = arg;

	prctl(PR_SET_NAME, "wl-a");
	wl_pin_cpu(0);
	__atomic_store_n(&s->tid_a, gettid(), __ATOMIC_RELEASE);
	pthread_mutex_lock(&s->a);
	pthread_barrier_wait(&s->both_hold);
	pthread_mutex_lock(&s->b);	/* never returns */
	return NULL;
}

static void *thread_b(void *arg)
{
	struct shared *s = arg;

	prctl(PR_SET_NAME, "wl-b");
	wl_pin_cpu(1);	/* fails on one CPU: then both share it */
	__atomic_store_n(&s->tid_b, gettid(), __ATOMIC_RELEASE);
	pthread_mutex_lock(&s->b);
	pthread_barrier_wait(&s->both_hold);
	pthread_mutex_lock(&s->a);	/* never returns */
	return NULL;
}

#define WL_NR_FUTEX 202	/* x86_64 */

/* Both threads asleep in a futex wait for the other's mutex: say so, with who and where. */
static void ab_ba__say_waiting(struct shared *s)
{
	while (!__atomic_load_n(&s->tid_a, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&s->tid_b, __ATOMIC_ACQUIRE))
		wl_pause(1000);
	wl_await_syscall(s->tid_a, WL_NR_FUTEX, (uintptr_t)&s->b);
	wl_await_syscall(s->tid_b, WL_NR_FUTEX, (uintptr_t)&s->a);
	printf("{\"workload\":\"ab_ba\",\"both_wait\":true,\"pid\":%d,\"tid_a\":%d,\"tid_b\":%d,"
	       "\"mutex_a\":\"0x%llx\",\"mutex_b\":\"0x%llx\",\"wait_ns\":%llu}\n",
	       (int)getpid(), (int)s->tid_a, (int)s->tid_b,
	       (unsigned long long)(uintptr_t)&s->a, (unsigned long long)(uintptr_t)&s->b,
	       (unsigned long long)wl_now_ns());
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3 };
	static struct shared s = {
		.a = PTHREAD_MUTEX_INITIALIZER,
		.b = PTHREAD_MUTEX_INITIALIZER,
	};
	pthread_t ta, tb;

	wl_parse_opts(argc, argv, &opts);
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_barrier_init(&s.both_hold, NULL, 2);
	s.start_ns = wl_now_ns();
	if (pthread_create(&ta, NULL, thread_a, &s) || pthread_create(&tb, NULL, thread_b, &s))
		wl_die("pthread_create failed");
	ab_ba__say_waiting(&s);
	/* How long the deadlock lasts: the workload's one knob, not a hand-shake. */
	wl_pause((unsigned int)(opts.duration_s * 1e6));
	printf("{\"workload\":\"ab_ba\",\"pid\":%d,\"tid_a\":%d,\"tid_b\":%d,"
	       "\"mutex_a\":\"0x%llx\",\"mutex_b\":\"0x%llx\",\"start_ns\":%llu,\"end_ns\":%llu}\n",
	       (int)getpid(), (int)s.tid_a, (int)s.tid_b,
	       (unsigned long long)(uintptr_t)&s.a, (unsigned long long)(uintptr_t)&s.b,
	       (unsigned long long)s.start_ns, (unsigned long long)wl_now_ns());
	_exit(0);
}
