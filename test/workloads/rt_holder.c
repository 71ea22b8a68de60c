// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rt_holder: a SCHED_FIFO holder uses up its CPU's real-time budget
 * (sched_rt_runtime_us of every sched_rt_period_us) with a pthread mutex
 * held, so the kernel throttles its CPU's RT run queue (rt_rq->rt_throttled)
 * while a SCHED_FIFO victim on the other CPU waits for the mutex.
 *
 *  holder "wl-rt-holder" (SCHED_FIFO 20, CPU WL_CPU_LOW): spins on CPU all
 *         the time.  Spinning, it is off CPU only when throttled: a gap in
 *         its own clock of at least GAP_MIN_NS.  The end of a throttle is the
 *         start of a budget, so it takes the mutex LEAD_NS before the budget
 *         is expected to run out and lets it go at the end of the throttle
 *         that follows.
 *  victim "wl-victim" (SCHED_FIFO 10, CPU WL_CPU_VICTIM): every 5 ms (-i)
 *         locks and unlocks the mutex, timing pthread_mutex_lock().
 *
 * A throttle needs the budget below the period (sched_rt_runtime_us not -1)
 * and, from 6.12, CONFIG_RT_GROUP_SCHED: without it the fair server, not RT
 * throttling, keeps RT tasks from starving the others.  With RT groups the
 * budget of the workload's tasks is their group's: the root cpu cgroup's
 * cpu.rt_runtime_us (cgroup v1), which the e2e test may lower.
 *
 * Ground truth: one JSON line on stdout (workload.h): the RT budget read at
 * the start, the holder's throttles (gaps of at least a fifth of the
 * unbudgeted part of a period) while it held the mutex, their total and
 * longest, all its gaps while holding, and the victim's slowest lock.
 */
#include <pthread.h>
#include "workload.h"

#define HOLDER_RT_PRIO	20
#define GAP_MIN_NS	2000000ULL	/* off CPU: a spin loop turn this long */
#define LEAD_NS		50000000ULL	/* the mutex taken this long before the budget ends */

struct shared {
	const struct wl_opts *opts;
	pthread_mutex_t mutex;
	struct wl_gate go_holder, go_victim;
	volatile int stop;
	pid_t victim_tid, holder_tid;
	const char *victim_policy;
	struct wl_worst worst;
	uint64_t start_ns, end_ns;
	uint64_t runtime_ns, period_ns;
	/* the holder's, while it held the mutex */
	uint64_t holds, throttles, throttled_ns, longest_ns, gaps_ns;
	uint64_t first_throttle_ns, last_throttle_end_ns;
};


/* Spin until a gap of at least min_ns ends; returns the time it ended (0: told to stop). */
static uint64_t spin_to_gap(struct shared *s, uint64_t min_ns, uint64_t *gaps)
{
	uint64_t last = wl_now_ns(), t;

	while (!s->stop) {
		t = wl_now_ns();
		if (t - last >= GAP_MIN_NS && gaps)
			*gaps += t - last;
		if (t - last >= min_ns) {
			if (gaps) {
				s->throttles++;
				s->throttled_ns += t - last;
				if (t - last > s->longest_ns)
					s->longest_ns = t - last;
				if (!s->first_throttle_ns)
					s->first_throttle_ns = last;
				s->last_throttle_end_ns = t;
			}
			return t;
		}
		last = t;
	}
	return 0;
}

static void spin_until(struct shared *s, uint64_t until)
{
	while (!s->stop && wl_now_ns() < until)
		;
}

static void *holder__run(void *arg)
{
	struct shared *s = arg;
	uint64_t budget_start, min_ns = wl_rt_throttle_min_ns(s->runtime_ns, s->period_ns);

	prctl(PR_SET_NAME, "wl-rt-holder");
	s->holder_tid = gettid();
	if (wl_pin_cpu(WL_CPU_LOW))
		wl_die("holder: pin to CPU %d", WL_CPU_LOW);
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ HOLDER_RT_PRIO }))
		wl_die("holder: SCHED_FIFO %d: %s", HOLDER_RT_PRIO, strerror(errno));
	wl_gate__wait(&s->go_holder);
	/* The first throttle says where budgets begin. */
	budget_start = spin_to_gap(s, min_ns, NULL);
	while (!s->stop && budget_start) {
		if (s->runtime_ns > LEAD_NS)
			spin_until(s, budget_start + s->runtime_ns - LEAD_NS);
		pthread_mutex_lock(&s->mutex);
		s->holds++;
		budget_start = spin_to_gap(s, min_ns, &s->gaps_ns);
		pthread_mutex_unlock(&s->mutex);
	}
	return NULL;
}

static void *victim__run(void *arg)
{
	struct shared *s = arg;
	uint64_t t0, t1;

	prctl(PR_SET_NAME, "wl-victim");
	s->victim_tid = gettid();
	if (wl_pin_cpu(WL_CPU_VICTIM))
		wl_die("victim: pin to CPU %d", WL_CPU_VICTIM);
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

static void truth__print(const struct shared *s)
{
	printf("{\"workload\":\"rt_holder\",\"mutex\":\"0x%llx\","
	       "\"rt_runtime_ns\":%lld,\"rt_period_ns\":%lld,"
	       "\"victim_pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_pid\":%d,\"holder_tid\":%d,\"holder_policy\":\"fifo\",\"holds\":%llu,"
	       "\"throttles\":%llu,\"throttled_ns\":%llu,\"longest_throttle_ns\":%llu,"
	       "\"held_gaps_ns\":%llu,\"first_throttle_ns\":%llu,\"last_throttle_end_ns\":%llu,"
	       "\"start_ns\":%llu,\"end_ns\":%llu,"
	       "\"calls\":%llu,\"over_5ms\":%llu,\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,"
	       "\"worst_ns\":%llu}\n",
	       (unsigned long long)(uintptr_t)&s->mutex, (long long)s->runtime_ns,
	       (long long)s->period_ns, (int)getpid(), (int)s->victim_tid, s->victim_policy,
	       (int)getpid(), (int)s->holder_tid, (unsigned long long)s->holds,
	       (unsigned long long)s->throttles, (unsigned long long)s->throttled_ns,
	       (unsigned long long)s->longest_ns, (unsigned long long)s->gaps_ns,
	       (unsigned long long)s->first_throttle_ns,
	       (unsigned long long)s->last_throttle_end_ns, (unsigned long long)s->start_ns,
	       (unsigned long long)s->end_ns, (unsigned long long)s->worst.calls,
	       (unsigned long long)s->worst.over_5ms, (unsigned long long)s->worst.start_ns,
	       (unsigned long long)s->worst.end_ns, (unsigned long long)s->worst.ns);
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 5000 };
	struct shared s = { .opts = &opts };
	pthread_t victim, holder;
	int err;

	wl_parse_opts(argc, argv, &opts);
	setvbuf(stdout, NULL, _IOLBF, 0);
	wl_rt_budget(&s.runtime_ns, &s.period_ns);
	pthread_mutex_init(&s.mutex, NULL);
	wl_gate__init(&s.go_holder);
	wl_gate__init(&s.go_victim);

	err = pthread_create(&holder, NULL, holder__run, &s);
	if (!err)
		err = pthread_create(&victim, NULL, victim__run, &s);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	wl_gate__open(&s.go_holder);
	wl_gate__open(&s.go_victim);
	pthread_join(victim, NULL);
	s.stop = 1;
	pthread_join(holder, NULL);
	truth__print(&s);
	return 0;
}
