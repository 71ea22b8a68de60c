/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One run of the engine, live (watch, record) or from a file (report): the
 * sink, the engine, and the one function every record goes through.  Both
 * paths share it, so a report prints what watch printed: the same sink,
 * the same engine, the same records in the same order, the same t0.
 *
 *	session__init -> session__feed (each record) -> session__finish
 *	-> session__destroy
 */
#ifndef LOCKSTALL_SESSION_H
#define LOCKSTALL_SESSION_H

#include <stdbool.h>
#include <stdio.h>
#include "engine/engine.h"
#include "engine/sink.h"
#include "alert/slo.h"

struct trace_writer;

enum session_format {
	SESSION_NONE = 0,	/* no output: record counts stalls, prints nothing */
	SESSION_TEXT,
	SESSION_JSON,
	SESSION_CUSTOM,		/* session_opts.custom: a report sink the caller made */
};

struct session_opts {
	enum session_format format;
	unsigned int top;
	bool per_pid;		/* sink_opts' */
	__u64 hist_min_ns;
	__u32 pid;		/* 0: all */
	__u64 threshold_ns;
	__u64 pending_after_ns;	/* engine_opts' */
	__u64 pending_every_ns;
	/*
	 * report --from/--to, relative to the run's start (its BEGIN mark,
	 * the text output's "+0.000s"): only stalls that began in
	 * [from_ns, to_ns) are printed, and counted in the summary.  The
	 * engine still sees every record, so its state stays whole.
	 */
	bool window;
	bool window_abs;	/* from_ns and to_ns are CLOCK_MONOTONIC times, not offsets */
	__u64 from_ns;
	__u64 to_ns;		/* 0: to the end */
	struct sink *custom;	/* SESSION_CUSTOM: the session owns it from session__init on */
	/*
	 * SLO rules (taken: left empty): every stall the engine emits goes
	 * to the output, then to the rules; a violation is printed after
	 * its stall (text, JSON) and handed to on_violation, whose negative
	 * return stops the run like a sink error.
	 */
	struct slo_rules *rules;
	int (*on_violation)(void *ctx, const struct slo_violation *v);
	void *violation_ctx;
	/*
	 * watch --metrics-file: a second sink that gets all the output gets
	 * (the session owns it from session__init on); not with window.
	 * quiet_intervals: intervals go to it only, not to the output.
	 */
	struct sink *metrics;
	bool quiet_intervals;
	/*
	 * Set: STACK records are noted (live mappings) and every stall's
	 * stacks resolved into frames before any sink sees it.  Not owned.
	 */
	struct stacks *stacks;
	/*
	 * Live, with stacks: a worker thread names the stalls and collects the
	 * mappings (sinks/naming.h), off the thread that feeds the session;
	 * stacks is the worker's until session__stop_naming().
	 */
	bool name_async;
	/*
	 * Set: every stall's waiter and holders get their cgroup paths
	 * (src/resolve/cgroup.c) before any sink sees it.  Not owned.
	 */
	struct cgroups *cgroups;
};

/* The stages between the engine and the output, innermost first (session.c). */
enum session_stage_id {
	SESSION_STAGE_OUTPUT,	/* the text, JSON, custom or empty sink */
	SESSION_STAGE_WINDOW,	/* report --from/--to */
	SESSION_STAGE_METRICS,	/* session_opts.metrics gets what the output gets */
	SESSION_STAGE_SLO,	/* session_opts.rules */
	SESSION_STAGE_STACKS,	/* session_opts.stacks: frames for every stall */
	SESSION_STAGE_CGROUPS,	/* session_opts.cgroups: paths for every stall */
	SESSION_STAGE_N,
};

struct session {
	struct sink *stage[SESSION_STAGE_N];	/* NULL: not asked for */
	struct sink *out;	/* stage[SESSION_STAGE_OUTPUT] */
	struct sink *sink;	/* what the engine calls: the outermost stage */
	struct engine *engine;
	struct trace_writer *writer;	/* set: every record is written here first */
	bool stop_on_write_error;	/* else a write error only ends the recording */
	__u64 first_ts;		/* of the first record: t0 when no BEGIN mark came */
	int feed_err;		/* the engine's (the sink's) error that stopped feeding */
	int write_err;		/* the writer's error that stopped feeding */
	struct slo *slo;	/* NULL: no rules */
	struct sink *metrics;	/* session_opts.metrics */
	struct stacks *stacks;	/* session_opts.stacks */
	struct cgroups *cgroups;	/* session_opts.cgroups */
	struct naming *naming;	/* session_opts.name_async: the worker */
	/*
	 * Set: gets every record a recording would hold, after the writer
	 * (watch --flight-recorder); its return is ignored.
	 */
	int (*tap)(void *ctx, const void *rec, size_t len);
	void *tap_ctx;
	/* hook counts for the summary, kept up to date by whoever runs hooks */
	__u64 hook_runs, hook_failures, hook_timeouts, hook_skipped;
};

/* Build sink and engine writing to out.  0 or -ENOMEM (nothing printed). */
int session__init(struct session *s, const struct session_opts *o, FILE *out);
/*
 * One record: to the writer if any, then to the engine.  Fits
 * ls_record_fn (loader/loader.h).  Returns 0 or the negative errno that stops
 * the run (s->feed_err or s->write_err says which).  After a write error
 * the writer is dropped (s->writer = NULL, s->write_err set); the run stops
 * only if s->stop_on_write_error.
 */
int session__feed(void *session, const void *rec, size_t len);
/*
 * A histogram or INTERVAL mark for the metrics only (engine__feed_aside):
 * not written, not counted, and the analysis goes as in a replay without it.
 */
int session__feed_unrecorded(void *session, const void *rec, size_t len);
/*
 * Live: every stall still being named goes out now, named or (after
 * NAMING_LATE_NS) not, before what must follow them all (hooks drained,
 * the last flight recording).  0 or the output's negative errno.
 */
int session__drain(struct session *s);
/*
 * Stop the naming worker: true when it stopped and session_opts.stacks is
 * the caller's again; false: it is stuck reading a file and keeps it (do
 * not free it).  After the summary.
 */
bool session__stop_naming(struct session *s);
/* End of stream: the summary. */
int session__finish(struct session *s);
/* The engine's counts so far (engine__summary), for the live loop's lines and metrics. */
void session__summary(const struct session *s, struct ls_summary *out);
/*
 * The holders of waits still open at now whose stacks are worth reading
 * as they are now (engine__stuck_holders): at most max, into tids.
 */
size_t session__stuck_holders(const struct session *s, __u64 now, __u32 *tids, size_t max);
void session__destroy(struct session *s);

#endif /* LOCKSTALL_SESSION_H */
