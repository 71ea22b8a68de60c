// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The /proc/PID/maps worker: see maps_reader.h for why it exists.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "resolve/maps_reader.h"
#include "symbols/symbols.h"
#include "util.h"

struct maps_answer {
	__u32 tgid;
	int err;
	char *text;
	size_t len;
};

struct maps_reader {
	pthread_t thread;
	maps_reader_fn read;	/* the file: proc_maps__read_text() unless told */
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* the worker: something asked, or stop */
	pthread_cond_t done;	/* the loop: something answered */
	__u32 asks[MAPS_READER_QUEUE];
	unsigned int n_asks;
	struct maps_answer answers[MAPS_READER_QUEUE];
	unsigned int n_answers;
	__u32 busy;		/* the tgid being read now; 0: none */
	__u64 busy_since;	/* CLOCK_MONOTONIC ns */
	bool stop;
	int refs;		/* the owner and the worker: the last one frees */
};

static void maps_reader__destroy(struct maps_reader *mr)
{
	unsigned int i;

	for (i = 0; i < mr->n_answers; i++)
		free(mr->answers[i].text);
	pthread_mutex_destroy(&mr->lock);
	pthread_cond_destroy(&mr->wake);
	pthread_cond_destroy(&mr->done);
	free(mr);
}

/* Drop one reference (lock held); the last frees, after unlocking. */
static void maps_reader__put(struct maps_reader *mr)
{
	bool last = --mr->refs == 0;

	pthread_mutex_unlock(&mr->lock);
	if (last)
		maps_reader__destroy(mr);
}

static void *maps_reader__run(void *arg)
{
	struct maps_reader *mr = arg;
	struct maps_answer a;

	pthread_mutex_lock(&mr->lock);
	for (;;) {
		while (!mr->stop && !mr->n_asks)
			pthread_cond_wait(&mr->wake, &mr->lock);
		if (mr->stop)
			break;
		memset(&a, 0, sizeof(a));
		a.tgid = mr->asks[0];
		memmove(mr->asks, mr->asks + 1, --mr->n_asks * sizeof(mr->asks[0]));
		mr->busy = a.tgid;
		mr->busy_since = ls_now_ns();
		pthread_mutex_unlock(&mr->lock);

		/* the one call that may wait for the traced process's lock */
		a.err = mr->read(a.tgid, &a.text, &a.len);

		pthread_mutex_lock(&mr->lock);
		mr->busy = 0;
		if (mr->n_answers < MAPS_READER_QUEUE)
			mr->answers[mr->n_answers++] = a;
		else
			free(a.text);	/* nobody takes them: asked again later */
		pthread_cond_broadcast(&mr->done);
	}
	maps_reader__put(mr);
	return NULL;
}

struct maps_reader *maps_reader__new(void)
{
	return maps_reader__new_reading(proc_maps__read_text);
}

struct maps_reader *maps_reader__new_reading(maps_reader_fn read)
{
	struct maps_reader *mr = calloc(1, sizeof(*mr));
	sigset_t all, old;
	int err;

	if (!mr)
		return NULL;
	pthread_mutex_init(&mr->lock, NULL);
	pthread_cond_init(&mr->wake, NULL);
	pthread_cond_init(&mr->done, NULL);
	mr->read = read;
	mr->refs = 2;
	/* signals are the loop's (stop, reload): the worker takes none */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&mr->thread, NULL, maps_reader__run, mr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		maps_reader__destroy(mr);
		errno = err;
		return NULL;
	}
	pthread_detach(mr->thread);
	return mr;
}

void maps_reader__free(struct maps_reader *mr)
{
	if (!mr)
		return;
	pthread_mutex_lock(&mr->lock);
	mr->stop = true;
	pthread_cond_signal(&mr->wake);
	/* a worker stuck in read() frees it when it gets out (or never: exit) */
	maps_reader__put(mr);
}

static bool maps_reader__asked(const struct maps_reader *mr, __u32 tgid)
{
	unsigned int i;

	if (mr->busy == tgid)
		return true;
	for (i = 0; i < mr->n_asks; i++)
		if (mr->asks[i] == tgid)
			return true;
	for (i = 0; i < mr->n_answers; i++)
		if (mr->answers[i].tgid == tgid)
			return true;
	return false;
}

int maps_reader__ask(struct maps_reader *mr, __u32 tgid)
{
	int err = 0;

	pthread_mutex_lock(&mr->lock);
	if (maps_reader__asked(mr, tgid))
		err = -EEXIST;
	else if (mr->n_asks == MAPS_READER_QUEUE)
		err = -ENOSPC;
	else
		mr->asks[mr->n_asks++] = tgid;
	if (!err)
		pthread_cond_signal(&mr->wake);
	pthread_mutex_unlock(&mr->lock);
	return err;
}

bool maps_reader__pending(struct maps_reader *mr, __u32 tgid)
{
	bool asked;

	pthread_mutex_lock(&mr->lock);
	asked = maps_reader__asked(mr, tgid);
	pthread_mutex_unlock(&mr->lock);
	return asked;
}

int maps_reader__take(struct maps_reader *mr, __u32 *tgid, char **text, size_t *len, int *err)
{
	struct maps_answer a;

	pthread_mutex_lock(&mr->lock);
	if (!mr->n_answers) {
		pthread_mutex_unlock(&mr->lock);
		return 0;
	}
	a = mr->answers[0];
	memmove(mr->answers, mr->answers + 1, --mr->n_answers * sizeof(mr->answers[0]));
	pthread_mutex_unlock(&mr->lock);
	*tgid = a.tgid;
	*text = a.text;
	*len = a.len;
	*err = a.err;
	return 1;
}

bool maps_reader__wait(struct maps_reader *mr, __u64 deadline_ns, __u64 stuck_ns)
{
	struct timespec ts;
	bool ready;

	pthread_mutex_lock(&mr->lock);
	while (!mr->n_answers) {
		__u64 now = ls_now_ns(), until = deadline_ns;

		if (now >= deadline_ns || (mr->busy && now - mr->busy_since > stuck_ns))
			break;
		/* a read that starts meanwhile signals nothing: look again when it would be stuck */
		if (stuck_ns < until - now)
			until = now + stuck_ns + 1;
		/* the condition variable's clock is CLOCK_REALTIME: wait relative to it */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)((until - now) % 1000000000ULL);
		ts.tv_sec += (time_t)((until - now) / 1000000000ULL) + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&mr->done, &mr->lock, &ts);
	}
	ready = mr->n_answers != 0;
	pthread_mutex_unlock(&mr->lock);
	return ready;
}
