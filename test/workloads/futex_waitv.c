// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * futex_waitv: a real-time thread waits with futex_waitv(2) (5.16+) on a
 * vector of two futex words, an event with no owner convention (val 0),
 * until another thread sets the first word and wakes it, WAIT_MS later.
 *
 *  victim   "wl-victim" (SCHED_FIFO 10): ROUNDS waits, each timed.
 *  waker    "wl-waker" (SCHED_OTHER): per round, WAIT_MS after the
 *           victim is let go, sets words[0] and FUTEX_WAKEs it.
 *
 * No thread holds anything: lockstall must tell a futex wait on words[0]
 * and name no owner (at most the waker, as the releaser).
 *
 * Ground truth: one JSON line on stdout (workload.h): the tids, the first
 * futex's address, and each round's wait.
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include "workload.h"

#define ROUNDS		5
#define WAIT_MS		30

#ifndef SYS_futex_waitv
#define SYS_futex_waitv	449
#endif

/* struct futex_waitv of linux/futex.h (5.16+), kept here for older headers. */
struct wl_futex_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

#define WL_FUTEX_32	2	/* FUTEX2_SIZE_U32 */
#define WL_FUTEX_PRIVATE 128	/* FUTEX2_PRIVATE */

struct wl_waitv {
	uint32_t words[2];
	pthread_barrier_t round;
	pid_t victim_tid, waker_tid;
	const char *victim_policy;
	uint64_t wait_ns[ROUNDS];
};

static void *waker(void *arg)
{
	struct wl_waitv *x = arg;
	int r;

	wl_thread_begin("wl-waker", WL_CPU_LOW, WL_CLASS_NORMAL, &x->waker_tid);
	for (r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(&x->round);
		wl_pause(WAIT_MS * 1000);
		__atomic_store_n(&x->words[0], 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &x->words[0], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		pthread_barrier_wait(&x->round);
	}
	return NULL;
}

/* One wait: until words[0] is set (futex_waitv returns at once if it already is). */
static uint64_t victim_wait(struct wl_waitv *x)
{
	struct wl_futex_waitv v[2] = {
		{ .val = 0, .uaddr = (uintptr_t)&x->words[0], .flags = WL_FUTEX_32 | WL_FUTEX_PRIVATE },
		{ .val = 0, .uaddr = (uintptr_t)&x->words[1], .flags = WL_FUTEX_32 | WL_FUTEX_PRIVATE },
	};
	uint64_t t0 = wl_now_ns();

	while (!__atomic_load_n(&x->words[0], __ATOMIC_ACQUIRE)) {
		if (syscall(SYS_futex_waitv, v, 2, 0, NULL, 0) < 0 && errno != EAGAIN &&
		    errno != EINTR)
			wl_die("futex_waitv: %s", strerror(errno));
	}
	return wl_now_ns() - t0;
}

int main(void)
{
	struct wl_waitv x = { 0 };
	pthread_t t;
	int r, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_barrier_init(&x.round, NULL, 2);
	err = pthread_create(&t, NULL, waker, &x);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	x.victim_policy = wl_thread_begin("wl-victim", WL_CPU_VICTIM, WL_CLASS_HIGH, &x.victim_tid);
	for (r = 0; r < ROUNDS; r++) {
		x.words[0] = 0;
		pthread_barrier_wait(&x.round);
		x.wait_ns[r] = victim_wait(&x);
		pthread_barrier_wait(&x.round);
	}
	pthread_join(t, NULL);
	printf("{\"workload\":\"futex_waitv\",\"futex\":\"0x%llx\",\"pid\":%d,\"victim_tid\":%d,"
	       "\"victim_policy\":\"%s\",\"waker_tid\":%d,\"rounds\":%d,\"wait_ms\":%d,\"wait_ns\":[",
	       (unsigned long long)(uintptr_t)&x.words[0], (int)getpid(), (int)x.victim_tid,
	       x.victim_policy, (int)x.waker_tid, ROUNDS, WAIT_MS);
	for (r = 0; r < ROUNDS; r++)
		printf("%s%llu", r ? "," : "", (unsigned long long)x.wait_ns[r]);
	printf("]}\n");
	return 0;
}
