// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pthread_mutex: a real-time thread stalls on a pthread mutex that a
 * SCHED_IDLE thread of the same process holds while a CPU hog runs.
 *
 *  victim   "wl-victim" (SCHED_FIFO 10): every 5 ms (-i) locks and unlocks
 *           the mutex, timing pthread_mutex_lock().
 *  holder   "wl-holder" (SCHED_IDLE): loops taking the mutex, burning 1 ms
 *           of its own CPU time under it, letting go, sleeping 1 ms.
 *  hog      "wl-hog", a child process (SCHED_OTHER nice 0) spinning.
 *
 * All on one CPU (WL_CPU_LOW).  The holder is preempted by the hog while
 * it holds the mutex and, being SCHED_IDLE, gets its CPU back only after a
 * long while: the victim waits for all of it (FUTEX_WAIT on the mutex word;
 * glibc's __owner names the holder).
 *
 * --pi: the mutex is PTHREAD_PRIO_INHERIT (FUTEX_LOCK_PI): the kernel boosts
 * the holder to the victim's priority while the victim waits, so the hog
 * cannot keep it off its CPU, and the waits stay short: no inversion.
 *
 * Ground truth: one JSON line on stdout (workload.h), with the mutex's
 * address and the victim's slowest pthread_mutex_lock().
 */
#include <pthread.h>
#include "workload.h"

#define HOLD_CPU_NS	1000000ULL	/* the holder's work under the mutex */
#define HOLDER_PAUSE_US	1000

struct shared {
	const struct wl_opts *opts;
	pthread_mutex_t mutex;
	struct wl_gate go_holder, go_victim;	/* a gate lets one thread through */
	volatile int stop;
	pid_t victim_tid, holder_tid;
	const char *victim_policy;
	struct wl_worst worst;
	uint64_t start_ns, end_ns;
	uint64_t holds;
};

static void *holder__run(void *arg)
{
	struct shared *s = arg;
	uint64_t t0;

	prctl(PR_SET_NAME, "wl-holder");
	s->holder_tid = gettid();
	if (wl_pin_cpu(WL_CPU_LOW))
		wl_die("holder: pin to CPU %d", WL_CPU_LOW);
	wl_set_class(WL_CLASS_LOW);
	wl_gate__wait(&s->go_holder);
	while (!s->stop) {
		pthread_mutex_lock(&s->mutex);
		t0 = wl_thread_cpu_ns();
		while (wl_thread_cpu_ns() - t0 < HOLD_CPU_NS)
			;
		s->holds++;
		pthread_mutex_unlock(&s->mutex);
		wl_pause(HOLDER_PAUSE_US);
	}
	return NULL;
}

static void *victim__run(void *arg)
{
	struct shared *s = arg;
	uint64_t t0, t1;

	prctl(PR_SET_NAME, "wl-victim");
	s->victim_tid = gettid();
	if (wl_pin_cpu(WL_CPU_LOW))
		wl_die("victim: pin to CPU %d", WL_CPU_LOW);
	s->victim_policy = wl_set_class(WL_CLASS_HIGH);
	wl_gate__wait(&s->go_victim);
	s->start_ns = wl_now_ns();
	do {
		t0 = wl_now_ns();
		pthread_mutex_lock(&s->mutex);
		t1 = wl_now_ns();
		pthread_mutex_unlock(&s->mutex);
		wl_worst__add(&s->worst, t0, t1, 0);
		wl_pause(s->opts->pause_us);
	} while (!wl_done(s->opts, &s->worst, s->start_ns, t1));
	s->end_ns = t1;
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 5000 };
	struct shared s = { .opts = &opts };
	bool pi = wl_take_flag(&argc, argv, "--pi");
	pthread_mutexattr_t attr;
	pthread_t victim, holder;
	struct wl_hog hog = { 0 };
	int err;

	wl_parse_opts(argc, argv, &opts);
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_mutexattr_init(&attr);
	if (pi && pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT))
		wl_die("PTHREAD_PRIO_INHERIT not supported");
	pthread_mutex_init(&s.mutex, &attr);
	wl_gate__init(&s.go_holder);
	wl_gate__init(&s.go_victim);

	err = pthread_create(&holder, NULL, holder__run, &s);
	if (!err)
		err = pthread_create(&victim, NULL, victim__run, &s);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	wl_hog__fork(&hog, WL_CPU_LOW);
	wl_hog__go(&hog);
	wl_gate__open(&s.go_holder);
	wl_gate__open(&s.go_victim);
	pthread_join(victim, NULL);
	s.stop = 1;
	/* The hog first: the SCHED_IDLE holder needs the CPU to finish. */
	wl_child__stop(&hog.c);
	pthread_join(holder, NULL);

	printf("{\"workload\":\"pthread_mutex\",\"pi\":%s,\"mutex\":\"0x%llx\","
	       "\"victim_pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_pid\":%d,\"holder_tid\":%d,\"holder_policy\":\"idle\",\"holds\":%llu,"
	       "\"hog_pid\":%d,\"hog_tid\":%d,\"start_ns\":%llu,\"end_ns\":%llu,"
	       "\"calls\":%llu,\"over_5ms\":%llu,\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,"
	       "\"worst_ns\":%llu}\n",
	       pi ? "true" : "false", (unsigned long long)(uintptr_t)&s.mutex,
	       (int)getpid(), (int)s.victim_tid, s.victim_policy, (int)getpid(),
	       (int)s.holder_tid, (unsigned long long)s.holds, (int)hog.c.pid, (int)hog.c.tid,
	       (unsigned long long)s.start_ns, (unsigned long long)s.end_ns,
	       (unsigned long long)s.worst.calls, (unsigned long long)s.worst.over_5ms,
	       (unsigned long long)s.worst.start_ns, (unsigned long long)s.worst.end_ns,
	       (unsigned long long)s.worst.ns);
	return 0;
}
