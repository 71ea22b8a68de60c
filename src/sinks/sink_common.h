/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the sinks share: which histograms to print in which order, how a
 * task's scheduling reads, and what a failed stream means.  Private to src/sinks.
 */
#ifndef LOCKSTALL_SINK_COMMON_H
#define LOCKSTALL_SINK_COMMON_H

#include <stddef.h>
#include "sinks/sink.h"

/*
 * The histograms of one kind worth printing, most total time (sum_ns) first:
 * of opts->filter_pid only (if set), those without time in them (count or
 * sum_ns 0) left out, at most opts->top
 * (0: all).  *out is malloc'd, the caller frees it; *n_more counts those
 * cut by top.  Returns 0 or -ENOMEM.
 */
int hist__select(const struct ls_hist_set *h, unsigned int kind, const struct sink_opts *opts,
		 const struct ls_hist_entry ***out, size_t *n, size_t *n_more);

/* "SCHED_FIFO rt 50", "SCHED_NORMAL nice 0 boosted to prio 89", "SCHED_IDLE": into buf. */
const char *sink__sched_text(const struct ls_task *t, char *buf, size_t len);

/* Flush f: 0, -EPIPE when the reader went away, -EIO for any other failure. */
int sink__flush(FILE *f);

#endif /* LOCKSTALL_SINK_COMMON_H */
