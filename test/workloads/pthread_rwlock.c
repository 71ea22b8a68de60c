// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pthread_rwlock: a real-time thread stalls on a pthread_rwlock_t that a
 * SCHED_IDLE thread of the same process holds for writing while a CPU hog
 * runs.
 *
 *  victim   "wl-victim" (SCHED_FIFO 10): every 5 ms (-i) takes the rwlock
 *           for reading (--write: for writing) and lets go, timing the
 *           pthread_rwlock_rdlock() (wrlock) call, or waits on --event.
 *  holder   "wl-holder" (SCHED_IDLE): loops taking the rwlock for writing,
 *           burning 1 ms of its own CPU time under it, letting go, sleeping
 *           1 ms.
 *  hog      "wl-hog", a child process (SCHED_OTHER nice 0) spinning.
 *
 * All on one CPU (WL_CPU_LOW).  The writer is preempted by the hog while
 * it holds the rwlock and, being SCHED_IDLE, gets its CPU back only after
 * a long while: the victim waits for all of it (FUTEX_WAIT with 3 on the
 * rwlock's __wrphase_futex, or __writers_futex with --write; glibc's
 * __cur_writer names the writer).
 *
 * --event: no rwlock, an event: the holder raises a word to 3 (the value
 * a rwlock waiter passes) for its 1 ms of work and the victim waits
 * (FUTEX_WAIT with 3) until it drops: as long a wait, but on no lock, so
 * it must be no lock stall.
 *
 * Ground truth: one JSON line on stdout (workload.h), with the rwlock's
 * address and the victim's slowest lock call.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include "workload.h"

#define HOLD_CPU_NS	1000000ULL	/* the writer's work under the rwlock */
#define HOLDER_PAUSE_US	1000
#define EVENT_BUSY	3	/* what glibc's rwlock waiters pass to FUTEX_WAIT */

enum mode { MODE_READ, MODE_WRITE, MODE_EVENT };
static const char *const mode_names[] = { "read", "write", "event" };

struct shared {
	const struct wl_opts *opts;
	enum mode mode;
	pthread_rwlock_t rwlock;
	_Atomic unsigned int event;	/* --event: EVENT_BUSY while the holder works */
	struct wl_gate go_holder, go_victim;	/* a gate lets one thread through */
	volatile int stop;
	pid_t victim_tid, holder_tid;
	const char *victim_policy;
	struct wl_worst worst;
	uint64_t start_ns, end_ns;
	uint64_t holds;
};

static void event__wait(_Atomic unsigned int *word)
{
	while (*word == EVENT_BUSY)
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, EVENT_BUSY, NULL, NULL, 0);
}

static void event__clear(_Atomic unsigned int *word)
{
	*word = 0;
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void holder__take(struct shared *s)
{
	if (s->mode == MODE_EVENT)
		s->event = EVENT_BUSY;
	else
		pthread_rwlock_wrlock(&s->rwlock);
}

static void holder__release(struct shared *s)
{
	if (s->mode == MODE_EVENT)
		event__clear(&s->event);
	else
		pthread_rwlock_unlock(&s->rwlock);
}

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
		holder__take(s);
		t0 = wl_thread_cpu_ns();
		while (wl_thread_cpu_ns() - t0 < HOLD_CPU_NS)
			;
		s->holds++;
		holder__release(s);
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
		if (s->mode == MODE_EVENT)
			event__wait(&s->event);
		else if (s->mode == MODE_WRITE)
			pthread_rwlock_wrlock(&s->rwlock);
		else
			pthread_rwlock_rdlock(&s->rwlock);
		t1 = wl_now_ns();
		if (s->mode != MODE_EVENT)
			pthread_rwlock_unlock(&s->rwlock);
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
	pthread_t victim, holder;
	struct wl_hog hog = { 0 };
	int err;

	if (wl_take_flag(&argc, argv, "--write"))
		s.mode = MODE_WRITE;
	if (wl_take_flag(&argc, argv, "--event"))
		s.mode = MODE_EVENT;
	wl_parse_opts(argc, argv, &opts);
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_rwlock_init(&s.rwlock, NULL);
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
	/* The hog first: the SCHED_IDLE writer needs the CPU to finish. */
	wl_child__stop(&hog.c);
	pthread_join(holder, NULL);

	printf("{\"workload\":\"pthread_rwlock\",\"mode\":\"%s\",\"rwlock\":\"0x%llx\","
	       "\"victim_pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_pid\":%d,\"holder_tid\":%d,\"holder_policy\":\"idle\",\"holds\":%llu,"
	       "\"hog_pid\":%d,\"hog_tid\":%d,\"start_ns\":%llu,\"end_ns\":%llu,"
	       "\"calls\":%llu,\"over_5ms\":%llu,\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,"
	       "\"worst_ns\":%llu}\n",
	       mode_names[s.mode], (unsigned long long)(uintptr_t)&s.rwlock,
	       (int)getpid(), (int)s.victim_tid, s.victim_policy, (int)getpid(),
	       (int)s.holder_tid, (unsigned long long)s.holds, (int)hog.c.pid, (int)hog.c.tid,
	       (unsigned long long)s.start_ns, (unsigned long long)s.end_ns,
	       (unsigned long long)s.worst.calls, (unsigned long long)s.worst.over_5ms,
	       (unsigned long long)s.worst.start_ns, (unsigned long long)s.worst.end_ns,
	       (unsigned long long)s.worst.ns);
	return 0;
}
