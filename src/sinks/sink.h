/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Output sinks: one interface, one module per format.  The engine calls a
 * sink; a sink writes to the FILE * it was made with and never looks at
 * records, BPF or the clock.  Every op returns 0 or a negative errno
 * (-EIO, -EPIPE when the stream failed).
 */
#ifndef LOCKSTALL_SINK_H
#define LOCKSTALL_SINK_H

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
	__u64 t0_ns;		/* text time column counts from here (run start); 0: first record seen */
};

struct sink {
	const struct sink_ops *ops;
	FILE *out;
	struct sink_opts opts;
};

struct sink *sink_text__new(FILE *out, const struct sink_opts *opts);
struct sink *sink_json__new(FILE *out, const struct sink_opts *opts);
/* Folded stacks of stall time, printed at the summary (flamegraph.pl). */
struct sink *sink_folded__new(FILE *out, const struct sink_opts *opts);

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
 * A sink in front of another that only adds to stalls (the stack and
 * cgroup resolvers): it embeds this first, makes its own stall op, and
 * passes the rest on with the sink_pass__* ops.
 */
struct sink_pass {
	struct sink base;
	struct sink *inner;
};

void sink_pass__init(struct sink_pass *p, const struct sink_ops *ops, struct sink *inner);
int sink_pass__interval(struct sink *s, const struct ls_hist_set *h);
int sink_pass__summary(struct sink *s, const struct ls_summary *sum);
void sink_pass__free(struct sink *s);

#endif /* LOCKSTALL_SINK_H */
