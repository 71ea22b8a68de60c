// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rt_flood: real-time work that leaves a SCHED_FIFO 1 reader no CPU while
 * it floods the ring.  A SCHED_FIFO 10 spinner on each CPU keeps both
 * busy; SCHED_FIFO 20 workers, above them, take one pthread mutex in
 * turn, so that every take is a contended futex wait (with --locks all,
 * several records each) and every wait hands the CPU back to a spinner,
 * never to a lower priority.
 *
 *   rt_flood [-d SECONDS] [-w WORKERS]	(2, 4)
 *
 * Ground truth, one JSON line on stdout once done:
 *   {"workload":"rt_flood","seconds":S,"workers":W,"rounds":N,"policy":P}
 * rounds: the mutex takes of all workers; policy "fifo", or "normal"
 * where SCHED_FIFO was refused (then nothing is starved).
 */
#include <stdatomic.h>
#include "workload.h"

#define RT_SPIN_PRIO	10
#define RT_WORKER_PRIO	20
#define RT_MAX_WORKERS	16

struct flood {
	pthread_mutex_t lock;
	uint64_t until_ns;
	atomic_ulong rounds;
	atomic_bool fifo_refused;
};

static void flood__fifo(struct flood *f, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		atomic_store(&f->fifo_refused, true);
}

struct spin_arg {
	struct flood *f;
	int cpu;
};

/* Keeps its CPU busy at RT_SPIN_PRIO until the end. */
static void *spinner(void *arg)
{
	const struct spin_arg *a = arg;
	int err;

	prctl(PR_SET_NAME, "rt_flood_spin");
	err = wl_pin_cpu(a->cpu);
	if (err)
		wl_die("pin to CPU %d: %s", a->cpu, strerror(-err));
	flood__fifo(a->f, RT_SPIN_PRIO);
	while (wl_now_ns() < a->f->until_ns)
		;
	return NULL;
}

static void *worker(void *arg)
{
	struct flood *f = arg;
	volatile unsigned int sink = 0;
	unsigned long n = 0;
	unsigned int i;

	prctl(PR_SET_NAME, "rt_flood_worker");
	flood__fifo(f, RT_WORKER_PRIO);
	while (wl_now_ns() < f->until_ns) {
		pthread_mutex_lock(&f->lock);
		/* long enough under the lock that the others queue behind it */
		for (i = 0; i < 2000; i++)
			sink += i;
		pthread_mutex_unlock(&f->lock);
		n++;
	}
	atomic_fetch_add(&f->rounds, n);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long seconds = wl_take_number(&argc, argv, "-d", 2, 60);
	unsigned long workers = wl_take_number(&argc, argv, "-w", 4, RT_MAX_WORKERS);
	pthread_t spin[2], work[RT_MAX_WORKERS];
	struct flood f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct spin_arg args[2];
	unsigned long i;

	if (argc > 1 || !seconds || !workers)
		wl_die("usage: rt_flood [-d SECONDS] [-w WORKERS] (both from 1)");
	f.until_ns = wl_now_ns() + seconds * 1000000000ULL;
	for (i = 0; i < 2; i++) {
		args[i] = (struct spin_arg){ .f = &f, .cpu = (int)i };
		if (pthread_create(&spin[i], NULL, spinner, &args[i]))
			wl_die("pthread_create: %s", strerror(errno));
	}
	for (i = 0; i < workers; i++)
		if (pthread_create(&work[i], NULL, worker, &f))
			wl_die("pthread_create: %s", strerror(errno));
	for (i = 0; i < workers; i++)
		pthread_join(work[i], NULL);
	for (i = 0; i < 2; i++)
		pthread_join(spin[i], NULL);
	printf("{\"workload\":\"rt_flood\",\"seconds\":%lu,\"workers\":%lu,\"rounds\":%lu,"
	       "\"policy\":\"%s\"}\n", seconds, workers, atomic_load(&f.rounds),
	       atomic_load(&f.fifo_refused) ? "normal" : "fifo");
	return 0;
}
