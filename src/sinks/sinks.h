/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The output formats of watch and report: each implements the engine's
 * output port (engine/sink.h).  The report-only formats are in report.h,
 * the metrics in prometheus.h.
 */
#ifndef LOCKSTALL_SINKS_H
#define LOCKSTALL_SINKS_H

#include "engine/sink.h"

struct sink *sink_text__new(FILE *out, const struct sink_opts *opts);
struct sink *sink_json__new(FILE *out, const struct sink_opts *opts);
/* Folded stacks of stall time, printed at the summary (flamegraph.pl). */
struct sink *sink_folded__new(FILE *out, const struct sink_opts *opts);

#endif /* LOCKSTALL_SINKS_H */
