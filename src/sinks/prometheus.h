/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * watch --metrics-file: the Prometheus text exposition format (0.0.4), for
 * node_exporter's textfile collector.  A sink like the others: it counts
 * the stalls it is given, adds up the intervals' wait histograms and takes
 * the cumulative ones of the summary.  No label carries a process name or
 * anything else a traced process chooses: the series are a fixed set.
 * Not hist__select()'s top commands either: a command leaving the top N
 * would take its counters with it, and "the rest" would go down as one
 * came in, where a counter must only rise; a scraper that wants one
 * process watches it alone (-p).
 */
#ifndef LOCKSTALL_SINK_PROMETHEUS_H
#define LOCKSTALL_SINK_PROMETHEUS_H

#include <stdio.h>
#include "engine/sink.h"

/* opts->filter_pid: the histograms of that process only.  NULL: -ENOMEM. */
struct sink *sink_prometheus__new(const struct sink_opts *opts);

/*
 * The counters that are not stalls or histograms, between summaries:
 * events, lost_events and, when sum->slo, the SLO and hook counts.
 * sum->hists and the stall counts are ignored.
 */
void sink_prometheus__set_counters(struct sink *s, const struct ls_summary *sum);

/* Every family, HELP and TYPE first, to f.  0 or -EIO. */
int sink_prometheus__render(struct sink *s, FILE *f);

/*
 * Render to PATH.tmp.PID in PATH's directory, fsync, rename over PATH:
 * a reader sees the old file or the new one, whole.  0 or a negative errno
 * (the temporary file is gone either way).
 */
int sink_prometheus__write_file(struct sink *s, const char *path);

/* A label value, escaped as the format wants: \\, \" and \n. */
void prom__write_label_value(FILE *f, const char *v);

#endif /* LOCKSTALL_SINK_PROMETHEUS_H */
