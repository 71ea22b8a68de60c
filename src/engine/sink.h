/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine's output port: what the engine finds goes to a struct sink.
 * The engine owns this interface; the stages in front of the output
 * (src/resolve, the session's) and the output formats (src/sinks) implement
 * it.  A sink writes to the FILE * it was made with and never looks at
 * records, BPF or the clock.  Every op returns 0 or a negative errno
 * (-EIO, -EPIPE when the stream failed).
 */
#ifndef LOCKSTALL_ENGINE_SINK_H
#define LOCKSTALL_ENGINE_SINK_H

#include <stdio.h>
#include "engine/engine.h"

struct sink;

struct sink_ops {
	const char *name;
	/*
	 * One causal stall record; st->pending: a wait still open, as it
	 * stands (repeated while it lasts; sinks that want ended stalls only
	 * skip these).
	 */
	int (*stall)(struct sink *s, const struct ls_stall *st);
	/* Histograms of one interval (delta since the previous interval). */
	int (*interval)(struct sink *s, const struct ls_hist_set *h);
	/* End of run: totals and cumulative histograms. */
	int (*summary)(struct sink *s, const struct ls_summary *sum);
	void (*free)(struct sink *s);
};

struct sink_opts {
	unsigned int top;	/* histograms printed per kind, most total time first; 0: all */
	__u32 filter_pid;	/* histograms of this tgid only; 0: all */
	bool per_pid;		/* a histogram per process; false: per command name (comm) */
	/* histograms with no sample that may reach this are left out (counted); 0: all */
	__u64 hist_min_ns;
	__u64 t0_ns;		/* text time column counts from here (run start); 0: first record seen */
};

struct sink {
	const struct sink_ops *ops;
	FILE *out;
	struct sink_opts opts;
};

/* Every sink's constructor starts here: one place that sets the base. */
static inline void sink__init(struct sink *s, const struct sink_ops *ops, FILE *out,
			      const struct sink_opts *opts)
{
	s->ops = ops;
	s->out = out;
	if (opts)
		s->opts = *opts;
}

static inline int sink__stall(struct sink *s, const struct ls_stall *st)
{
	return s->ops->stall ? s->ops->stall(s, st) : 0;
}

static inline int sink__interval(struct sink *s, const struct ls_hist_set *h)
{
	return s->ops->interval ? s->ops->interval(s, h) : 0;
}

static inline int sink__summary(struct sink *s, const struct ls_summary *sum)
{
	return s->ops->summary ? s->ops->summary(s, sum) : 0;
}

static inline void sink__free(struct sink *s)
{
	if (s)
		s->ops->free(s);
}

/*
 * A stage: a sink in front of another (the stack and cgroup resolvers, the
 * session's window, rules and metrics).  It embeds struct sink_pass first
 * and gives only the ops it changes; every other call goes on to inner
 * unchanged.  All stages share one struct sink_ops (sink.c), and freeing
 * one frees only itself, never inner.
 */
struct sink_pass;

struct sink_pass_ops {
	const char *name;
	/* NULL: passed on to inner as it is */
	int (*stall)(struct sink_pass *p, const struct ls_stall *st);
	int (*interval)(struct sink_pass *p, const struct ls_hist_set *h);
	int (*summary)(struct sink_pass *p, const struct ls_summary *sum);
};

struct sink_pass {
	struct sink base;
	const struct sink_pass_ops *pass;
	struct sink *inner;
};

/*
 * A zeroed stage of size bytes (its struct, which starts with a struct
 * sink_pass) in front of inner, writing where inner writes.  NULL: no memory.
 */
void *sink_pass__new(size_t size, const struct sink_pass_ops *ops, struct sink *inner);

#endif /* LOCKSTALL_ENGINE_SINK_H */
