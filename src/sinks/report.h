/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The report-only sinks (lockstall report --format markdown|html|perfetto):
 * they see the whole run before they write (or, for Perfetto, write a
 * document that only closes at the summary), so they are not for watch.
 */
#ifndef LOCKSTALL_SINK_REPORT_H
#define LOCKSTALL_SINK_REPORT_H

#include <stdbool.h>
#include "engine/sink.h"

/*
 * Where and how the recording was made, from its metadata.  Strings are
 * the recording's bytes, unescaped (each sink escapes for its format);
 * NULL when absent.  The struct and the strings must outlive the sink.
 */
struct report_meta {
	const char *input;	/* the recording's file name */
	const char *host;
	const char *kernel;
	const char *version;	/* of the lockstall that recorded */
	__u64 cpus;		/* 0: unknown */
	__u64 threshold_ns;
	bool has_clock;		/* realtime_minus_monotonic_ns is known */
	long long realtime_minus_monotonic_ns;	/* record timestamp + this: wall clock */
};

struct sink *sink_markdown__new(FILE *out, const struct sink_opts *opts,
				const struct report_meta *meta);
struct sink *sink_html__new(FILE *out, const struct sink_opts *opts,
			    const struct report_meta *meta);
struct sink *sink_perfetto__new(FILE *out, const struct sink_opts *opts);

#endif /* LOCKSTALL_SINK_REPORT_H */
