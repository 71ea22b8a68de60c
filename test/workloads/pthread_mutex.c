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
 * Where the mutex lives, which is how lockstall names it: on main()'s
 * stack (default: no name, only its address); --global: the global
 * g_wl_mutex (in .bss); --in-struct: the lock member of the global
 * g_wl_queue (in .data), named "g_wl_queue+0xOFF".
 *
 * Ground truth: one JSON line on stdout (workload.h), with the mutex's
 * address and name ("mutex_name", null on the stack) and the victim's
 * slowest pthread_mutex_lock().
 */
#include <stddef.h>
#include <pthread.h>
#include "workload.h"

#define HOLD_CPU_NS	1000000ULL	/* the holder's work under the mutex */
#define HOLDER_PAUSE_US	1000

enum where {
	WHERE_STACK,
	WHERE_GLOBAL,
	WHERE_IN_STRUCT,
};

/* Names lockstall finds in this binary's symbol table: keep them. */
pthread_mutex_t g_wl_mutex;
struct wl_queue {
	const char *name;
	unsigned long len;
	pthread_mutex_t lock;
} g_wl_queue = { .name = "wl-queue" };

struct shared {
	const struct wl_opts *opts;
	pthread_mutex_t *mutex;
	struct wl_gate go_holder, go_victim;	/* a gate lets one thread through */
	volatile int stop;
	pid_t victim_tid, holder_tid;
	const char *victim_policy;
	struct wl_worst worst;
	uint64_t start_ns, end_ns;
	uint64_t holds;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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
		pthread_mutex_lock(s->mutex);
		t0 = thread_cpu_ns();
		while (thread_cpu_ns() - t0 < HOLD_CPU_NS)
			;
		s->holds++;
		pthread_mutex_unlock(s->mutex);
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
		pthread_mutex_lock(s->mutex);
		t1 = wl_now_ns();
		pthread_mutex_unlock(s->mutex);
		wl_worst__add(&s->worst, t0, t1, 0);
		wl_pause(s->opts->pause_us);
	} while (!wl_done(s->opts, &s->worst, s->start_ns, t1));
	s->end_ns = t1;
	return NULL;
}

/* --pi, --global, --in-struct are ours; the rest are every workload's options. */
static bool take_own_options(int *argc, char **argv, enum where *where)
{
	bool pi = false;
	int i, j;

	for (i = j = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "--pi"))
			pi = true;
		else if (!strcmp(argv[i], "--global"))
			*where = WHERE_GLOBAL;
		else if (!strcmp(argv[i], "--in-struct"))
			*where = WHERE_IN_STRUCT;
		else
			argv[j++] = argv[i];
	}
	*argc = j;
	argv[j] = NULL;
	return pi;
}

/* The mutex's name as a symbolizer should give it: JSON, null where it has none. */
static const char *mutex_name(enum where where, char *buf, size_t len)
{
	if (where == WHERE_GLOBAL)
		return "\"g_wl_mutex\"";
	if (where == WHERE_IN_STRUCT) {
		snprintf(buf, len, "\"g_wl_queue+0x%zx\"", offsetof(struct wl_queue, lock));
		return buf;
	}
	return "null";
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 5000 };
	struct shared s = { .opts = &opts };
	enum where where = WHERE_STACK;
	bool pi = take_own_options(&argc, argv, &where);
	pthread_mutex_t on_stack;
	pthread_mutexattr_t attr;
	char name[64];
	pthread_t victim, holder;
	struct wl_hog hog = { 0 };
	int err;

	wl_parse_opts(argc, argv, &opts);
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_mutexattr_init(&attr);
	if (pi && pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT))
		wl_die("PTHREAD_PRIO_INHERIT not supported");
	s.mutex = where == WHERE_GLOBAL ? &g_wl_mutex :
		  where == WHERE_IN_STRUCT ? &g_wl_queue.lock : &on_stack;
	pthread_mutex_init(s.mutex, &attr);
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

	printf("{\"workload\":\"pthread_mutex\",\"pi\":%s,\"mutex\":\"0x%llx\",\"mutex_name\":%s,"
	       "\"victim_pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_pid\":%d,\"holder_tid\":%d,\"holder_policy\":\"idle\",\"holds\":%llu,"
	       "\"hog_pid\":%d,\"hog_tid\":%d,\"start_ns\":%llu,\"end_ns\":%llu,"
	       "\"calls\":%llu,\"over_5ms\":%llu,\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,"
	       "\"worst_ns\":%llu}\n",
	       pi ? "true" : "false", (unsigned long long)(uintptr_t)s.mutex,
	       mutex_name(where, name, sizeof(name)),
	       (int)getpid(), (int)s.victim_tid, s.victim_policy, (int)getpid(),
	       (int)s.holder_tid, (unsigned long long)s.holds, (int)hog.c.pid, (int)hog.c.tid,
	       (unsigned long long)s.start_ns, (unsigned long long)s.end_ns,
	       (unsigned long long)s.worst.calls, (unsigned long long)s.worst.over_5ms,
	       (unsigned long long)s.worst.start_ns, (unsigned long long)s.worst.end_ns,
	       (unsigned long long)s.worst.ns);
	return 0;
}
