// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reading thread's CPU: SCHED_FIFO on request, its waits for a CPU,
 * and its boost while it falls behind (reader_cpu.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include "reader_cpu.h"
#include "util.h"

#define READER_CPU_SCHEDSTAT "/proc/thread-self/schedstat"

int reader_cpu__set_fifo(unsigned int prio, bool this_thread_only)
{
	struct sched_param sp = { .sched_priority = (int)prio };
	int policy = SCHED_FIFO | (this_thread_only ? SCHED_RESET_ON_FORK : 0);

	return sched_setscheduler(0, policy, &sp) ? -errno : 0;
}

int reader_cpu__parse(const char *text, __u64 *delay_ns)
{
	char *end;

	errno = 0;
	strtoull(text, &end, 10);
	if (errno || end == text || *end != ' ')
		return -EINVAL;
	text = end + 1;
	*delay_ns = strtoull(text, &end, 10);
	if (errno || end == text || (*end != ' ' && *end != '\n' && *end))
		return -EINVAL;
	return 0;
}

/* The calling thread's run_delay; -errno (no CONFIG_SCHED_INFO: no file). */
static int reader_cpu__read(__u64 *delay_ns)
{
	size_t len;
	char *text;
	int err;

	err = ls_read_file(READER_CPU_SCHEDSTAT, 256, &text, &len);
	if (err)
		return err;
	err = reader_cpu__parse(text, delay_ns);
	free(text);
	return err;
}

void reader_cpu__start(struct reader_cpu *r, __u64 now)
{
	*r = (struct reader_cpu){ .at_ns = now };
	r->known = !reader_cpu__read(&r->delay_ns);
}

void reader_cpu__account(struct reader_cpu *r, __u64 now, __u64 delay_ns, bool lost)
{
	__u64 span = now > r->at_ns ? now - r->at_ns : 0;
	__u64 waited = delay_ns > r->delay_ns ? delay_ns - r->delay_ns : 0;
	unsigned int pct;

	if (lost && span) {
		pct = waited >= span ? 100 : (unsigned int)(waited * 100 / span);
		if (pct > r->worst_pct)
			r->worst_pct = pct;
	}
	r->delay_ns = delay_ns;
	r->at_ns = now;
}

void reader_cpu__period(struct reader_cpu *r, __u64 now, bool lost)
{
	__u64 delay;

	if (!r->known)
		return;
	if (reader_cpu__read(&delay)) {
		r->known = false;
		return;
	}
	reader_cpu__account(r, now, delay, lost);
}

/* ---- the boost ---------------------------------------------------------- */

enum reader_boost_act reader_boost__step(struct reader_boost_state *s, __u64 used, __u64 size,
					 __u64 now)
{
	bool behind = used > size / 16;

	if (s->raised) {
		if (behind && now - s->since_ns < READER_BOOST_MAX_NS)
			return READER_BOOST_KEEP;
		s->raised_ns += now - s->since_ns;
		s->raised = false;
		/* Raised this long and still behind: the traced tasks get their CPU back a while. */
		s->resting = behind;
		s->since_ns = now;
		return READER_BOOST_LOWER;
	}
	if (s->resting && now - s->since_ns < READER_BOOST_MAX_NS)
		return READER_BOOST_KEEP;
	s->resting = false;
	if (used <= size / 4)
		return READER_BOOST_KEEP;
	s->raised = true;
	s->since_ns = now;
	s->raises++;
	return READER_BOOST_RAISE;
}

struct reader_boost {
	pthread_t thread;
	const volatile __u64 *consumer;	/* the ring's consumer and producer positions, */
	const volatile __u64 *producer;	/* mapped read only */
	void *pages;
	size_t pages_len;
	__u64 size;
	pid_t tid;
	int policy;
	unsigned int base;
	atomic_bool stop;
	struct reader_boost_state st;	/* the thread's until it is joined */
};

static void reader_boost__set(const struct reader_boost *b, unsigned int prio)
{
	struct sched_param sp = { .sched_priority = (int)prio };

	/* Failing leaves the reader where it was: nothing to undo. */
	sched_setscheduler(b->tid, b->policy, &sp);
}

static void *reader_boost__run(void *arg)
{
	struct reader_boost *b = arg;
	const struct timespec tick = { 0, (long)READER_BOOST_TICK_NS };
	__u64 used;

	/* Told apart from the threads that run as started (ps, the tests). */
	pthread_setname_np(pthread_self(), READER_BOOST_COMM);
	while (!atomic_load(&b->stop)) {
		nanosleep(&tick, NULL);
		used = __atomic_load_n(b->producer, __ATOMIC_ACQUIRE) -
		       __atomic_load_n(b->consumer, __ATOMIC_ACQUIRE);
		switch (reader_boost__step(&b->st, used, b->size, ls_now_ns())) {
		case READER_BOOST_RAISE:
			reader_boost__set(b, READER_BOOST_PRIO);
			break;
		case READER_BOOST_LOWER:
			reader_boost__set(b, b->base);
			break;
		case READER_BOOST_KEEP:
			break;
		}
	}
	if (b->st.raised) {
		b->st.raised_ns += ls_now_ns() - b->st.since_ns;
		b->st.raised = false;
		reader_boost__set(b, b->base);
	}
	return NULL;
}

/* This thread runs above the reader it raises, or it would starve with it. */
static int reader_boost__thread(struct reader_boost *b)
{
	struct sched_param sp = { .sched_priority = READER_BOOST_PRIO };
	pthread_attr_t attr;
	int err;

	err = pthread_attr_init(&attr);
	if (err)
		return -err;
	err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	if (!err)
		err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	if (!err)
		err = pthread_attr_setschedparam(&attr, &sp);
	if (!err)
		err = pthread_create(&b->thread, &attr, reader_boost__run, b);
	pthread_attr_destroy(&attr);
	return -err;
}

int reader_boost__start(struct reader_boost **out, int ring_fd, size_t size, pid_t tid,
			unsigned int base, bool this_thread_only)
{
	long page = sysconf(_SC_PAGESIZE);
	struct reader_boost *b;
	int err;

	*out = NULL;
	if (page <= 0 || !size || base >= READER_BOOST_PRIO)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	/* The consumer page, then the producer page (a ring buffer map's mmap layout). */
	b->pages_len = 2 * (size_t)page;
	b->pages = mmap(NULL, b->pages_len, PROT_READ, MAP_SHARED, ring_fd, 0);
	if (b->pages == MAP_FAILED) {
		err = -errno;
		free(b);
		return err;
	}
	b->consumer = b->pages;
	b->producer = (const volatile __u64 *)((char *)b->pages + page);
	b->size = size;
	b->tid = tid;
	b->base = base;
	b->policy = SCHED_FIFO | (this_thread_only ? SCHED_RESET_ON_FORK : 0);
	atomic_init(&b->stop, false);
	err = reader_boost__thread(b);
	if (err) {
		munmap(b->pages, b->pages_len);
		free(b);
		return err;
	}
	*out = b;
	return 0;
}

void reader_boost__stop(struct reader_boost *b, struct reader_boost_state *st)
{
	if (!b)
		return;
	atomic_store(&b->stop, true);
	pthread_join(b->thread, NULL);
	if (st)
		*st = b->st;
	munmap(b->pages, b->pages_len);
	free(b);
}
