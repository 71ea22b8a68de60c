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
 */
#ifndef LOCKSTALL_READER_CPU_H
#define LOCKSTALL_READER_CPU_H

#include <stdbool.h>
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

#endif /* LOCKSTALL_READER_CPU_H */
