/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The commands main() runs.  Each returns an exit code (LS_EXIT_*).
 */
#ifndef LOCKSTALL_COMMANDS_H
#define LOCKSTALL_COMMANDS_H

#include <signal.h>
#include <stdio.h>
#include "cli/cli.h"

/*
 * Trace live until *stop is set (SIGINT, SIGTERM), cfg->duration_ns passed,
 * or cfg->count intervals were printed; then print the summary to out.
 * *reload (SIGHUP; may be NULL): re-read cfg->rules_file.
 * cfg->output: also record to that file (cmd_watch.c).
 */
int cmd_watch(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	      volatile sig_atomic_t *reload, FILE *out);

/* How a live run is going: for a front's progress and closing lines. */
struct watch_progress {
	__u64 elapsed_ns;	/* since tracing began */
	__u64 lost;		/* events lost so far (progress only) */
	__u64 stalls;		/* found so far */
	__u64 recorded;		/* records written to cfg->output */
	__u64 recorded_bytes;	/* their bytes (closed: with the file's metadata and framing) */
};

/*
 * What a front end (lockstall top, lockstall record) brings to the watch
 * loop in place of watch's own output: the sink the engine reports to, a
 * file descriptor polled with the ring buffer (the terminal), and calls at
 * the loop's edges.  Any call may be NULL.
 */
struct sink;
struct watch_front {
	struct sink *sink;	/* the output: watch__run() owns it from the call on; NULL: none */
	int fd;			/* polled with the ring buffer; -1: none */
	bool file_only;		/* the recording (cfg->output) is the product: a write error ends the run */
	__u64 pending_after_ns;	/* a wait is a stall in progress from this age; 0: as cfg says */
	__u64 pending_every_ns;	/* a stall in progress is reported again this often; 0: as cfg says */
	int (*start)(void *ctx);	/* tracing is attached; non-zero: stop at once */
	int (*input)(void *ctx);	/* after every wait; non-zero: stop (a key, a hangup) */
	/* each second, in place of watch's warnings about lost events */
	void (*progress)(void *ctx, const struct watch_progress *p);
	/* the recording cfg->output was closed whole */
	void (*recorded)(void *ctx, const struct watch_progress *p);
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

/*
 * Record until *stop: the live run (watch__run) with no output but progress,
 * the file cfg->output its product (cmd_record.c).
 */
int cmd_record(const struct ls_config *cfg, volatile sig_atomic_t *stop);

/*
 * Replay cfg->input into the engine and the sink watch would have used;
 * output to out (or cfg->output), messages to err (cmd_report.c, no libbpf).
 */
int cmd_report(const struct ls_config *cfg, FILE *out, FILE *err);

#endif /* LOCKSTALL_COMMANDS_H */
