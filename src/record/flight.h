/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * watch --flight-recorder DIR: the last --keep of records in memory and,
 * when an SLO rule fires, a recording (trace_file.h) of the window around
 * the violation: from keep before it to after_ns after it.
 *
 * Memory: records are copied into chunks (chunk_bytes each) on a FIFO; a
 * chunk leaves when all its records are older than keep before the newest
 * (or than the start of a pending window), or when the chunks would pass
 * max_bytes: the oldest leaves first, pending window or not (then the file
 * starts later than asked, and says so in its metadata).
 *
 * A violation while a window is pending (before its end) is merged into
 * it: the file covers the first violation's window and counts the others;
 * the window is not extended, so a steady stream of violations cannot keep
 * a file from being written.
 *
 * Pure C: no clock (times are the records' own CLOCK_MONOTONIC stamps and
 * the caller's now), no printing.
 */
#ifndef LOCKSTALL_FLIGHT_H
#define LOCKSTALL_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "record/trace_file.h"

#define FLIGHT_DEFAULT_KEEP_NS		(30 * 1000000000ULL)
#define FLIGHT_AFTER_NS			(2 * 1000000000ULL)	/* recorded after a violation */
#define FLIGHT_DEFAULT_MAX_FILES	10
#define FLIGHT_MAX_BYTES		(32u << 20)	/* records kept in memory */
#define FLIGHT_CHUNK_BYTES		(256u << 10)
#define FLIGHT_DIR_MAX_BYTES		(256ULL << 20)	/* the recorder's files, all of them */
#define FLIGHT_PREFIX			"lockstall-"
#define FLIGHT_SUFFIX			".lst"

struct flight_opts {
	__u64 keep_ns;		/* 0: FLIGHT_DEFAULT_KEEP_NS */
	__u64 after_ns;		/* 0: FLIGHT_AFTER_NS */
	size_t max_bytes;	/* 0: FLIGHT_MAX_BYTES */
	size_t chunk_bytes;	/* 0: FLIGHT_CHUNK_BYTES */
};

/* A window to write: what flight__trigger() began. */
struct flight_window {
	__u64 from_ns, to_ns;	/* the records' stamps, inclusive */
	__u64 at_ns;		/* the first violation */
	size_t rule_index;	/* of the first violation, from 0 */
	__u64 violations;	/* merged into this window, the first included */
	bool truncated;		/* max_bytes evicted records of the window */
};

struct flight_stats {
	__u64 records;		/* in memory now */
	__u64 bytes;		/* of the chunks in memory */
	__u64 dropped;		/* records not kept: too large for a chunk, or no memory */
	__u64 evicted_cap;	/* chunks evicted by max_bytes rather than by age */
};

struct flight;

struct flight *flight__new(const struct flight_opts *opts);
/*
 * Keep one record (a copy).  An LS_MARK_BEGIN is also kept aside, for
 * every file to start with (the run's features and t0).  Fits ls_record_fn.
 */
int flight__add(void *flight, const void *rec, size_t len);
/*
 * A violation at at_ns (a record stamp).  Returns 0 when it begins a
 * window, 1 when it was merged into the pending one.
 */
int flight__trigger(struct flight *f, __u64 at_ns, size_t rule_index);
/* A window is pending; win (may be NULL): which (it closes at to_ns). */
bool flight__pending(const struct flight *f, struct flight_window *win);
/*
 * The pending window's records, oldest first, to fn (the kept BEGIN mark
 * first, when it is older than the window); then no window is pending.
 * fn NULL: drop the window.  win (may be NULL) gets the window.  0,
 * -ENOENT (none pending), or fn's negative return.
 */
int flight__write(struct flight *f, int (*fn)(void *ctx, const void *rec, size_t len), void *ctx,
		  struct flight_window *win);
void flight__stats(const struct flight *f, struct flight_stats *out);
void flight__free(struct flight *f);

/*
 * Create DIR/lockstall-YYYYmmddTHHMMSS.mmmZ-ruleN.lst (N from 1), the time
 * realtime_ns in UTC, like every output: O_CREAT|O_EXCL|O_NOFOLLOW, 0600;
 * a name taken gets "-2", "-3"... before the suffix.  The path goes to
 * path.  0 or a negative errno (nothing printed).
 */
int flight__create(const char *dir, __u64 realtime_ns, size_t rule_index, struct trace_writer **out,
		   char *path, size_t path_len);
/*
 * Remove the oldest recorder files of dir until at most max_files remain
 * and they add up to at most max_bytes; the newest is never removed.  A
 * recorder file is named exactly as above (the names sort by time), dated
 * no later than now (a minute of slack), and is what flight__create()
 * makes: a regular file, one link, ours, no access for others; anything
 * else in dir is the operator's, never removed nor counted.  Returns how many were
 * removed, or a negative errno if dir cannot be read.
 */
int flight__rotate(const char *dir, unsigned int max_files, __u64 max_bytes);

#endif /* LOCKSTALL_FLIGHT_H */
