/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A deterministic generator of large synthetic record streams, for the
 * engine benchmark (test/bench/replay.c): many tasks in many processes, a
 * number of contended locks in flight at once, each played out as the
 * kernel side would tell it (the holder preempted while holding, switches
 * on its watched CPU, a waiter that goes off CPU, extra reader holders, the
 * release, the granting wakeup, WAIT_END), between them the background a
 * busy host sends (switches on watched CPUs, short holds, wakeups,
 * migrations), and task churn (EXIT, then the tid is never seen again and a
 * new task takes its place): the stream can run for any length while the
 * set of live tasks stays the same size.
 *
 * Same options and seed, same stream: runs compare.
 */
#ifndef LOCKSTALL_BENCH_GEN_H
#define LOCKSTALL_BENCH_GEN_H

#include <stddef.h>
#include <lockstall/abi.h>

/* The largest record the generator writes (struct ls_rec_lock). */
#define GEN_MAX_REC	sizeof(struct ls_rec_lock)

struct gen_opts {
	unsigned long long seed;
	unsigned int tasks;		/* live tasks at any time */
	unsigned int mms;		/* processes, one mm each */
	unsigned int cpus;
	unsigned int active;		/* contended locks in flight at once */
	unsigned int holders;		/* holders per contended lock (1 writer or N readers) */
	unsigned int stall_pct;		/* waits that last 12..40 ms (over a 10 ms threshold) */
	unsigned int churn_ppm;		/* task exits per million records */
	unsigned int mean_gap_ns;	/* mean time between records */
};

struct gen_stats {
	unsigned long long records;
	unsigned long long by_type[LS_REC_TYPE_MAX];
	unsigned long long waits;	/* WAIT_END written */
	unsigned long long long_waits;	/* planned over the threshold */
	unsigned long long exits;
	unsigned long long tids;	/* distinct tids used over the stream */
};

struct gen;

void gen_opts__defaults(struct gen_opts *o);
struct gen *gen__new(const struct gen_opts *o);
/*
 * Append records to buf (cap bytes) until fewer than GEN_MAX_REC bytes are
 * left or max records were written; lens[i] gets each record's length.
 * Returns the number written.
 */
size_t gen__fill(struct gen *g, unsigned char *buf, size_t cap, size_t *lens, size_t max);
/* A LS_REC_MARK of kind, stamped with the generator's clock, into buf. */
size_t gen__mark(struct gen *g, void *buf, __u32 kind);
void gen__stats(const struct gen *g, struct gen_stats *out);
void gen__free(struct gen *g);

#endif /* LOCKSTALL_BENCH_GEN_H */
