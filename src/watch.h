/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The live run's state, shared by its loop (cmd_watch.c), what comes
 * before and after it (watch_open.c) and what it tells on stderr
 * (watch_notes.c); only those include it.  Calls go one way: the loop to
 * the other two, watch_open.c to watch_notes.c.
 */
#ifndef LOCKSTALL_WATCH_H
#define LOCKSTALL_WATCH_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>
#include "alert/slo.h"
#include "cli/cli.h"
#include "commands.h"
#include "reader_cpu.h"
#include "session.h"
#include "timers.h"

struct flight_writer;
struct hooks;
struct loader;
struct loader_opts;
struct metrics_http;
struct record_run;
struct trace_writer;

struct watch {
	struct session s;	/* feed with session__feed(&w->s) */
	struct timers timers;	/* enum watch_timer (cmd_watch.c) */
	__u64 intervals;	/* printed so far, for "count" */
	const char *what;	/* the step that failed, for watch__fail(); NULL: the output */
	struct slo_rules rules;	/* until the session takes them */
	struct loader *loader;
	struct trace_writer *writer;	/* -o, record */
	__u64 lost_warned;	/* drops already reported on stderr */
	__u64 lost_seen;	/* drops at the last housekeeping */
	/* Drops up to the END mark: later ones are past the findings; ended: set. */
	__u64 lost_at_end;
	bool ended;
	struct reader_cpu cpu;	/* this thread's waits for a CPU while events were lost */
	bool starved_told;	/* ... said on stderr */
	unsigned int fifo;	/* the SCHED_FIFO priority it runs at; 0: none */
	struct reader_boost *boost;	/* raises it while it falls behind; NULL: none */
	bool write_told;	/* the write error has been reported */
	__u64 start_ns;		/* for progress */
	const struct ls_config *cfg;
	struct hooks *hooks;	/* --exec, --exec-file */
	bool violated;		/* an SLO rule was broken */
	bool stop_violation;	/* ... and --exit-on-violation says stop */
	struct sink *metrics;	/* --metrics-file, --metrics-listen: owned by the session */
	bool metrics_told;	/* the metrics write error has been reported */
	bool quiet_failed;	/* the scan for long quiet waits failed, said once */
	struct metrics_http *http;	/* --metrics-listen */
	struct flight_writer *flight;	/* --flight-recorder */
	__u64 flight_retry_ns;	/* the naming worker was busy: not before then */
	__u32 pid;		/* -p as resolved, for a recording's metadata */
	struct stacks *stacks;	/* STACK records: mappings and frames; NULL with --no-stacks */
	struct cgroups *cgroups;	/* cgroup ids -> paths; without cgroup2, knows none */
	const struct watch_front *front;	/* lockstall top, record; NULL: watch */
	struct sink *front_sink;	/* the front's sink until the session takes it */
};

/* The recording is the run's product (lockstall record): no output, and a write error ends it. */
static inline bool watch__file_only(const struct watch *w)
{
	return w->front && w->front->file_only;
}

/* watch_open.c */
void watch__record_run(const struct watch *w, struct record_run *run);
void watch__hook_stats(struct watch *w);
int watch__write_metrics(struct watch *w);
int watch__open(struct watch *w, struct session_opts *so, FILE *out);
int watch__attach(struct watch *w, const struct loader_opts *lo);
int watch__conclude(struct watch *w, int ret);
int watch__teardown(struct watch *w, int ret);
int watch__set_fifo(struct watch *w);
void watch__stop_boost(struct watch *w);

/* watch_notes.c */
__u64 watch__lost(struct watch *w);
void watch__note_cpu(struct watch *w, __u64 now);
void watch__warn_lost(struct watch *w, bool final);
void watch__tell_write_error(struct watch *w, const struct ls_config *cfg);
void watch__front_stop(struct watch *w);
int watch__fail(struct watch *w, const struct ls_config *cfg, int err, const char *what);

#endif /* LOCKSTALL_WATCH_H */
