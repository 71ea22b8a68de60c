/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CPU the thread that drains the ring buffer gets.  Busy real-time
 * tasks (the very ones lockstall is run to watch) can leave a SCHED_OTHER
 * reader almost none: the ring fills and events are lost, however little
 * each record costs.  So the live run can ask for SCHED_FIFO
 * (--rt-priority), and it measures how long the reader waited for a CPU
 * in the periods that lost events (the kernel's run_delay in
 * /proc/thread-self/schedstat), to say why on stderr.
 *
 *	reader_cpu__start -> each period: reader_cpu__period -> worst_pct
 *
 * With the default priority the reader is also raised when it falls
 * behind: a thread of its own looks at the ring's fill every
 * READER_BOOST_TICK_NS and, while more than a quarter of it waits to be
 * read, runs the reader at READER_BOOST_PRIO, for READER_BOOST_MAX_NS at
 * most before a rest as long again (reader_boost__start).
 */
#ifndef LOCKSTALL_READER_CPU_H
#define LOCKSTALL_READER_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

/* A reader this starved while events were lost is told why (percent of a period). */
#define READER_CPU_STARVED_PCT 25

struct reader_cpu {
	bool known;		/* run_delay could be read */
	__u64 delay_ns;		/* run_delay at the last period's end */
	__u64 at_ns;		/* that end, CLOCK_MONOTONIC */
	unsigned int worst_pct;	/* the most of a period spent waiting for a CPU, in one that lost events */
};

/*
 * Run the calling thread at SCHED_FIFO prio, and the threads and processes
 * it starts from now on too unless this_thread_only; -errno.
 */
int reader_cpu__set_fifo(unsigned int prio, bool this_thread_only);

/* The run_delay field of a schedstat text ("exec_ns delay_ns slices"); -EINVAL if none. */
int reader_cpu__parse(const char *text, __u64 *delay_ns);

/* Begins the first period at now. */
void reader_cpu__start(struct reader_cpu *r, __u64 now);

/* A period ends at now, with the thread's run_delay then; lost: events were lost in it. */
void reader_cpu__account(struct reader_cpu *r, __u64 now, __u64 delay_ns, bool lost);

/* The same, run_delay read from the calling thread's schedstat. */
void reader_cpu__period(struct reader_cpu *r, __u64 now, bool lost);

/*
 * Above the traced real-time tasks that starve the reader, below the
 * interrupt threads of a PREEMPT_RT kernel (SCHED_FIFO 50).
 */
#define READER_BOOST_PRIO	49
#define READER_BOOST_TICK_NS	(10 * 1000 * 1000ULL)
#define READER_BOOST_MAX_NS	(250 * 1000 * 1000ULL)
#define READER_BOOST_COMM	"lockstall-boost"	/* its thread's name */

/* What the boost does at a tick. */
enum reader_boost_act {
	READER_BOOST_KEEP,
	READER_BOOST_RAISE,
	READER_BOOST_LOWER,
};

/* The boost's decisions, apart from the thread, for the tests. */
struct reader_boost_state {
	bool raised;
	__u64 since_ns;		/* raised, or resting, since */
	bool resting;		/* raised too long: not again until READER_BOOST_MAX_NS more */
	__u64 raises;		/* times raised */
	__u64 raised_ns;	/* time spent raised */
};

/*
 * At now, used of size bytes of the ring wait to be read: raise the
 * reader past a quarter, lower it under a sixteenth or after
 * READER_BOOST_MAX_NS raised.
 */
enum reader_boost_act reader_boost__step(struct reader_boost_state *s, __u64 used, __u64 size,
					 __u64 now);

struct reader_boost;

/*
 * Watch the ring buffer map ring_fd (size bytes of data) for thread tid,
 * which runs at SCHED_FIFO base (reset on fork if this_thread_only).
 * -errno; without CAP_SYS_NICE the thread cannot start.
 */
int reader_boost__start(struct reader_boost **out, int ring_fd, size_t size, pid_t tid,
			unsigned int base, bool this_thread_only);
/* Stop it, the reader back at base; *st: what it did (may be NULL). */
void reader_boost__stop(struct reader_boost *b, struct reader_boost_state *st);

#endif /* LOCKSTALL_READER_CPU_H */
