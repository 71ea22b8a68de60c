/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The commands main() runs.  Each returns an exit code (LS_EXIT_*).
 */
#ifndef LOCKSTALL_COMMANDS_H
#define LOCKSTALL_COMMANDS_H

#include <signal.h>
#include <stdio.h>
#include "cli.h"

struct engine;
struct loader;
struct trace_writer;

/*
 * Trace live until *stop is set (SIGINT, SIGTERM), cfg->duration_ns passed,
 * or cfg->count intervals were printed; then print the summary to out.
 * *reload (SIGHUP; may be NULL): re-read cfg->rules_file.
 * cfg->output: also record to that file.  LS_CMD_RECORD: record only,
 * print progress instead of stalls (cmd_watch.c).
 */
int cmd_watch(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	      volatile sig_atomic_t *reload, FILE *out);

/*
 * What a front end (lockstall top) brings to the watch loop: the sink the
 * engine reports to, a file descriptor polled with the ring buffer (the
 * terminal), and calls at the loop's edges.  Any call may be NULL.
 */
struct sink;
struct watch_front {
	struct sink *sink;	/* the output: watch__run() owns it from the call on */
	int fd;			/* polled with the ring buffer; -1: none */
	int (*start)(void *ctx);	/* tracing is attached; non-zero: stop at once */
	int (*input)(void *ctx);	/* after every wait; non-zero: stop (a key, a hangup) */
	void (*lost)(void *ctx, __u64 lost);	/* each second: events lost so far (not on stderr) */
	void (*stop)(void *ctx);	/* the loop ends (maybe more than once): before any message */
	void *ctx;
};

/* cmd_watch() with a front end (NULL: watch's own output, to out). */
int watch__run(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	       volatile sig_atomic_t *reload, FILE *out, const struct watch_front *front);

/*
 * lockstall top (cmd_top.c): the watch loop with the top sink and a
 * terminal front (or -b's snapshots on out); *hangup (SIGHUP) ends it.
 */
int cmd_top(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	    volatile sig_atomic_t *hangup, FILE *out);

/* The trace file of a live run (cmd_record.c); each prints its errors. */
int cmd_record(const struct ls_config *cfg, volatile sig_atomic_t *stop);
/* Create cfg->output (refusing to replace it without --force). */
int record__create(struct trace_writer **out, const struct ls_config *cfg);
/* The run's metadata: host, kernel, options, clocks; pid as resolved. */
int record__start(struct trace_writer *w, const struct ls_config *cfg, __u32 pid, __u32 features);
/* One progress line on stderr: elapsed, events, stalls, bytes, drops. */
void record__progress(struct trace_writer *w, struct loader *l, struct engine *e, __u64 elapsed_ns);
/* The mappings of the processes whose stacks were captured (sk may be NULL). */
struct stacks;
void record__maps(struct trace_writer *w, struct stacks *sk);
/* One process's mappings and build-ids as metadata (queued: trace_writer__meta_flush). */
int record__maps_one(void *w, __u32 tgid, const char *maps, size_t maps_len, const char *ids,
		     size_t ids_len);
/*
 * The path of every cgroup the run resolved (its stalls' waiters and
 * holders), as "cgroup.ID=PATH": report shows and matches them (cg may be NULL).
 */
struct cgroups;
void record__cgroups(struct trace_writer *w, struct cgroups *cg);
/* Names of the processes seen, the END chunk, close; what is left to say. */
int record__finish(struct trace_writer *w, const struct ls_config *cfg, struct engine *e,
		   __u64 elapsed_ns);

/*
 * Replay cfg->input into the engine and the sink watch would have used;
 * output to out (or cfg->output), messages to err (cmd_report.c, no libbpf).
 */
int cmd_report(const struct ls_config *cfg, FILE *out, FILE *err);

#endif /* LOCKSTALL_COMMANDS_H */
