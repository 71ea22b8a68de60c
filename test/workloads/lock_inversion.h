/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The shape of a user-space lock inversion (pthread_mutex, pthread_rwlock):
 *
 *  victim   "wl-victim" (SCHED_FIFO 10): every 5 ms (-i) takes the lock
 *           and lets go, timing the take.
 *  holder   "wl-holder" (SCHED_IDLE): loops taking the lock, burning 1 ms
 *           of its own CPU time under it, letting go, sleeping 1 ms.
 *  hog      "wl-hog", a child process (SCHED_OTHER nice 0) spinning.
 *
 * --split-cgroups DIR: the process in DIR, the holder in DIR/holder, the
 * hog in DIR/hog (wl_cgroup_move()); the ground truth adds their paths.
 *
 * All on one CPU (WL_CPU_LOW).  The holder is preempted by the hog while
 * it holds the lock and, being SCHED_IDLE, gets its CPU back only after a
 * long while: the victim waits for all of it.  A workload says how its
 * lock is taken (struct wl_lock_ops) and what its ground truth adds.
 *
 * hold_all: the holder takes the lock once, before the victim asks, and
 * keeps it for the whole run (-d), burning 1 ms of CPU whenever it gets
 * the CPU and sleeping 1 ms after each; the victim's one take lasts as
 * long.  Once the victim sleeps in that wait, a first line says so
 * ("victim_waits"), for a test that starts lockstall only then.  SIGUSR1
 * ends the hold before the run's length, for a test that wants that wait
 * to end while lockstall watches.
 */
#ifndef LOCKSTALL_LOCK_INVERSION_H
#define LOCKSTALL_LOCK_INVERSION_H

#include <pthread.h>
#include "workload.h"

#define WL_HOLD_CPU_NS		1000000ULL	/* the holder's work under the lock */
#define WL_HOLDER_PAUSE_US	1000

/* How each side takes and lets go of the lock; the victim times take(). */
struct wl_lock_ops {
	void (*hold)(void *lock);
	void (*unhold)(void *lock);
	void (*take)(void *lock);
	void (*release)(void *lock);	/* NULL: nothing to let go (an event) */
	long wait_nr;	/* the syscall a waiter sleeps in; 0: futex(2) */
};

struct wl_inversion {
	const struct wl_opts *opts;
	const struct wl_lock_ops *ops;
	void *lock;
	struct wl_gate go_holder, go_victim;	/* a gate lets one thread through */
	bool hold_all;
	unsigned int sleep_under_ms;	/* the holder sleeps this long under each hold, after its work */
	struct wl_gate held;	/* hold_all: the holder has the lock */
	volatile int stop;
	pid_t victim_tid, holder_tid;
	const char *victim_policy;
	struct wl_worst worst;
	uint64_t start_ns, end_ns;
	uint64_t holds;
	struct wl_hog hog;
	char cgroups[1024];	/* --split-cgroups: wl_split_cgroups_truth() */
};

/* WL_HOLD_CPU_NS of the calling thread's own CPU time. */
static inline void wl_inversion__burn(void)
{
	uint64_t t0 = wl_thread_cpu_ns();

	while (wl_thread_cpu_ns() - t0 < WL_HOLD_CPU_NS)
		;
}

static inline void *wl_inversion__holder(void *arg)
{
	struct wl_inversion *x = arg;

	wl_thread_begin("wl-holder", WL_CPU_LOW, WL_CLASS_LOW, &x->holder_tid);
	if (x->opts->split_cgroups)
		wl_cgroup_move(x->opts->split_cgroups, "holder", x->holder_tid);
	wl_gate__wait(&x->go_holder);
	if (x->hold_all) {
		x->ops->hold(x->lock);
		wl_gate__open(&x->held);
		/*
		 * Never a spin without end: a PI holder runs boosted to the
		 * victim's real-time priority, and on PREEMPT_RT one that never
		 * sleeps starves its CPU's RCU threads (priority 1) and stalls
		 * the whole kernel, lockstall's start-up with it.
		 */
		while (!x->stop) {
			wl_inversion__burn();
			wl_pause(WL_HOLDER_PAUSE_US);
		}
		x->holds++;
		x->ops->unhold(x->lock);
		return NULL;
	}
	while (!x->stop) {
		x->ops->hold(x->lock);
		wl_inversion__burn();
		if (x->sleep_under_ms)
			wl_pause(x->sleep_under_ms * 1000);
		x->holds++;
		x->ops->unhold(x->lock);
		wl_pause(WL_HOLDER_PAUSE_US);
	}
	return NULL;
}

static inline void *wl_inversion__victim(void *arg)
{
	struct wl_inversion *x = arg;
	uint64_t t0, t1;

	x->victim_policy = wl_thread_begin("wl-victim", WL_CPU_LOW, WL_CLASS_HIGH, &x->victim_tid);
	wl_gate__wait(&x->go_victim);
	if (x->hold_all)
		wl_gate__wait(&x->held);
	x->start_ns = wl_now_ns();
	do {
		t0 = wl_now_ns();
		x->ops->take(x->lock);
		t1 = wl_now_ns();
		if (x->ops->release)
			x->ops->release(x->lock);
		wl_worst__add(&x->worst, t0, t1, 0);
		wl_pause(x->opts->pause_us);
	} while (!x->hold_all && !wl_done(x->opts, &x->worst, x->start_ns, t1));
	x->end_ns = t1;
	return NULL;
}

#define WL_NR_FUTEX 202	/* x86_64 */

/*
 * hold_all: the victim waits (said on stdout); the run's length on, or
 * until SIGUSR1 (blocked in every thread: wl_inversion__run()); then all
 * let go.
 */
static inline void wl_inversion__hold_all(struct wl_inversion *x, uintptr_t word)
{
	while (!__atomic_load_n(&x->victim_tid, __ATOMIC_ACQUIRE))
		wl_pause(1000);
	wl_await_syscall(x->victim_tid, x->ops->wait_nr ? x->ops->wait_nr : WL_NR_FUTEX, word);
	printf("{\"victim_waits\":true,\"pid\":%d,\"victim_tid\":%d,\"holder_tid\":%d,"
	       "\"hog_tid\":%d,\"lock\":\"0x%llx\",\"wait_ns\":%llu}\n",
	       (int)getpid(), (int)x->victim_tid, (int)x->holder_tid, (int)x->hog.c.tid,
	       (unsigned long long)word, (unsigned long long)wl_now_ns());
	wl_await_usr1(x->opts->duration_s);
	x->stop = 1;
	/* The hog first: the SCHED_IDLE holder needs the CPU to let go. */
	wl_child__stop(&x->hog.c);
}

/*
 * Start the holder, the victim and the hog; return once the victim is
 * done.  word: the address the victim's futex wait is on (hold_all).
 */
static inline void wl_inversion__run(struct wl_inversion *x, uintptr_t word)
{
	pthread_t victim, holder;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (x->hold_all)
		wl_block_usr1();
	if (x->opts->split_cgroups)
		wl_join_cgroup(x->opts->split_cgroups);
	wl_gate__init(&x->go_holder);
	wl_gate__init(&x->go_victim);
	wl_gate__init(&x->held);
	err = pthread_create(&holder, NULL, wl_inversion__holder, x);
	if (!err)
		err = pthread_create(&victim, NULL, wl_inversion__victim, x);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	wl_hog__fork(&x->hog, WL_CPU_LOW);
	if (x->opts->split_cgroups)
		wl_cgroup_move(x->opts->split_cgroups, "hog", x->hog.c.pid);
	wl_hog__go(&x->hog);
	wl_gate__open(&x->go_holder);
	wl_gate__open(&x->go_victim);
	if (x->hold_all)
		wl_inversion__hold_all(x, word);
	pthread_join(victim, NULL);
	/* the victim has ended: its cgroup is the process's, which it never left */
	wl_split_cgroups_truth(x->opts->split_cgroups, getpid(), x->holder_tid,
			       x->hog.c.reaped ? 0 : x->hog.c.pid, x->cgroups, sizeof(x->cgroups));
	if (!x->hold_all) {
		x->stop = 1;
		/* The hog first: the SCHED_IDLE holder needs the CPU to finish. */
		wl_child__stop(&x->hog.c);
	}
	pthread_join(holder, NULL);
}

/* The ground truth: the workload's own fields (`head`, JSON members), then the shared ones. */
static inline void wl_inversion__print(const struct wl_inversion *x, const char *head)
{
	printf("{%s,\"victim_pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_pid\":%d,\"holder_tid\":%d,\"holder_policy\":\"idle\",\"holds\":%llu,"
	       "\"hog_pid\":%d,\"hog_tid\":%d,\"start_ns\":%llu,\"end_ns\":%llu,"
	       "\"calls\":%llu,\"over_5ms\":%llu,\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,"
	       "\"worst_ns\":%llu%s}\n",
	       head, (int)getpid(), (int)x->victim_tid, x->victim_policy, (int)getpid(),
	       (int)x->holder_tid, (unsigned long long)x->holds, (int)x->hog.c.pid,
	       (int)x->hog.c.tid, (unsigned long long)x->start_ns, (unsigned long long)x->end_ns,
	       (unsigned long long)x->worst.calls, (unsigned long long)x->worst.over_5ms,
	       (unsigned long long)x->worst.start_ns, (unsigned long long)x->worst.end_ns,
	       (unsigned long long)x->worst.ns, x->cgroups);
}

#endif
