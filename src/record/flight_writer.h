/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The flight recorder's writer: each window that closes (flight.h) goes to
 * a file of its own in the recorder's directory, written by a forked child
 * from its copy of our memory while the live loop traces on; then the
 * oldest files are rotated out.  One child at a time.
 */
#ifndef LOCKSTALL_FLIGHT_WRITER_H
#define LOCKSTALL_FLIGHT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "record/flight.h"

struct cgroups;
struct record_run;
struct stacks;

struct flight_writer_opts {
	struct flight_opts window;	/* what the window keeps */
	const char *dir;		/* --flight-recorder DIR, checked writable */
	unsigned int max_files;		/* --max-files; 0: FLIGHT_DEFAULT_MAX_FILES */
	int compress_level;		/* zstd's level, as for -o; 0: raw */
	bool verbose;			/* say each writer forked */
	struct stacks *stacks;		/* the mappings each recording carries; may be NULL */
	struct cgroups *cgroups;	/* the cgroup paths it carries; may be NULL */
	/* the forked writer's first step: let go of what only the parent serves */
	void (*in_child)(void *ctx);
	void *child_ctx;
};

struct flight_writer;

/* A window of its own (flight__new).  NULL on ENOMEM. */
struct flight_writer *flight_writer__new(const struct flight_writer_opts *o);
/* The window, for the session's tap (flight__add). */
struct flight *flight_writer__flight(struct flight_writer *fw);
/* A violation of rule rule_index (its text: rule) at at_ns: flight__trigger. */
void flight_writer__trigger(struct flight_writer *fw, __u64 at_ns, size_t rule_index,
			    const char *rule);
/* A window is pending and no writer busy: true, and when it closes in *to_ns. */
bool flight_writer__due(const struct flight_writer *fw, __u64 *to_ns);
/*
 * The pending window (if any) to its file, of the run run: by a child
 * when may_fork, else here.  What was written, or what failed, is said
 * on stderr.
 */
void flight_writer__write(struct flight_writer *fw, const struct record_run *run, bool may_fork);
/* From now on its recordings carry no mappings (whoever kept them is stuck). */
void flight_writer__forget_stacks(struct flight_writer *fw);

/* The writer child, if it has ended (or, with wait, once it has); fw may be NULL. */
void flight_writer__reap(struct flight_writer *fw, bool wait);
/* Waits for a writer still busy, then frees. */
void flight_writer__free(struct flight_writer *fw);

#endif /* LOCKSTALL_FLIGHT_WRITER_H */
