/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The sink lockstall top gives the engine: stalls, ended and pending
 * (ls_stall.pending), go into a top_model (src/top/model.h), and every interval the watch loop marks (-i) asks the
 * front to refresh, at that mark's time: the screen's "now" is a record
 * time, like everything else the engine reports.
 */
#ifndef LOCKSTALL_TOP_SINK_H
#define LOCKSTALL_TOP_SINK_H

#include "engine/sink.h"
#include "top/model.h"

/*
 * refresh(ctx, t0_ns, now_ns) at each interval (t0_ns: the run's start);
 * its negative errno stops the run like a sink's.  The model is not
 * owned.  NULL: no memory.
 */
struct sink *sink_top__new(struct top_model *m, const struct sink_opts *opts,
			   int (*refresh)(void *ctx, __u64 t0_ns, __u64 now_ns), void *ctx);

#endif /* LOCKSTALL_TOP_SINK_H */
