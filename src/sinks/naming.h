/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Naming off the thread that reads the ring buffer.
 *
 * Naming a stall (its stacks unwound, its frames and futex named) reads
 * files the traced processes control: their ELF files, as large or as
 * often changed as they like.  Done on the ring buffer's thread, it holds
 * tracing up and the kernel loses records.  So live, a stall goes into a
 * bounded queue, a worker thread names it, and the record side delivers
 * it to the stages after naming (rules, metrics, output) in the order the
 * engine found it, intervals in their place between the stalls:
 *
 *	engine --stall--> sink_naming: a copy (stall, its STACK records)
 *	    --queue--> worker: frames and names into the copy
 *	    --named, in order--> naming__deliver (record side) --> inner
 *
 * Everything the output sees happens on the record side's thread, as
 * before; the worker only names.  What the worker needs is captured when
 * the stall is found: the STACK records (registers, stack bytes) are
 * copied, and the process's mappings were asked for when its first STACK
 * or futex wait went by (resolve/stacks.h), so a process that exited or
 * exec'd since is still named from what was read then.
 *
 * A stall is delivered without names (addresses only, a note says why)
 * when NAMING_QUEUE stalls already wait to be named, when it has waited
 * naming_opts.late_ns, or when the run ends and the worker does not finish
 * in time; each is counted (naming__stats).  Nothing is ever dropped.
 * Memory: NAMING_QUEUE stalls with their stack copies, and up to
 * NAMING_QUEUE_MAX more with the fixed part of their STACK records only.
 */
#ifndef LOCKSTALL_SINKS_NAMING_H
#define LOCKSTALL_SINKS_NAMING_H

#include <stdbool.h>
#include "engine/engine.h"

#define NAMING_QUEUE		64	/* stalls waiting for names; more go unnamed */
#define NAMING_QUEUE_MAX	1024	/* stalls and intervals waiting in all: the oldest goes out */
#define NAMING_LATE_NS		(2000 * 1000 * 1000ULL)	/* a stall waits this long for names at most */
#define NAMING_STOP_NS		(1000 * 1000 * 1000ULL)	/* naming__free waits this long for the worker */

struct sink;
struct stacks;
struct naming;

/*
 * What names a stall, on the worker's thread: st (its STACK records in
 * waiter_stack and holders[i].stack) with frames and lock names into
 * *out and holders, valid until reset.  collect: take in what else the
 * namer learnt meanwhile (called when idle).  For tests, a fake.
 */
struct naming_ops {
	void (*name)(void *ctx, const struct ls_stall *st, struct ls_stall *out,
		     struct ls_holder holders[LS_MAX_HOLDERS]);
	void (*reset)(void *ctx);
	void (*collect)(void *ctx);
};

struct naming_opts {
	const struct naming_ops *ops;
	void *ctx;
	unsigned int queue;	/* 0: NAMING_QUEUE */
	unsigned int queue_max;	/* 0: NAMING_QUEUE_MAX */
	__u64 late_ns;		/* 0: NAMING_LATE_NS */
};

struct naming_stats {
	__u64 named;		/* stalls delivered with their names */
	__u64 queue_full;	/* delivered unnamed: NAMING_QUEUE were waiting */
	__u64 late;		/* delivered unnamed: waited late_ns, or the run ended first */
	__u64 max_waiting;	/* the most stalls ever waiting for names at once */
};

/* Start the worker.  NULL: no memory or no thread (errno says). */
struct naming *naming__new(const struct naming_opts *o);
/*
 * The worker for a live stack resolver: it names with sk and collects its
 * mappings; sk's on_maps is called on the record side (naming__deliver),
 * as the trace writer is that thread's.  sk is the worker's from now on,
 * but for stacks__note and stacks__note_wait, until naming__stop().
 */
struct naming *naming__new_stacks(struct stacks *sk);
/*
 * Stop the worker, waiting up to wait_ns for what it is doing.  true: it
 * stopped, and what it named with is the caller's again; false: it is
 * stuck (in a read of a file that never answers) and keeps it: leave that
 * alone (leak it) rather than free it under the worker; later calls say
 * false at once.
 */
bool naming__stop(struct naming *nq, __u64 wait_ns);
/*
 * Stop (NAMING_STOP_NS at most), free what is left; a stuck worker keeps
 * it all (freed by exit).  The stage's inner sinks may go before it.
 */
void naming__free(struct naming *nq);

/*
 * The record side: deliver what is ready, in order, to the stage's inner
 * sink (named, or unnamed when late); all: everything, waiting up to
 * wait_ns for the worker first.  0 or the inner sink's negative errno.
 */
int naming__deliver(struct naming *nq, bool all, __u64 wait_ns);
void naming__stats(struct naming *nq, struct naming_stats *st);
/* Stalls delivered without names so far (queue_full + late); 0 for NULL. */
__u64 naming__unnamed(struct naming *nq);
/*
 * Hold the worker off what it names with (sk), for wait_ns at most: true
 * with it held (naming__unlock() after), false when the worker kept it.
 */
bool naming__lock(struct naming *nq, __u64 wait_ns);
void naming__unlock(struct naming *nq);

/*
 * The stage: each stall is copied into the queue, each interval too when
 * stalls wait before it; the summary comes after everything is delivered
 * (up to NAMING_LATE_NS for the worker).  inner is not owned.
 */
struct sink *sink_naming__new(struct sink *inner, struct naming *nq);

#endif /* LOCKSTALL_SINKS_NAMING_H */
