/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A recording's metadata besides its records (which session__feed()
 * writes as they come), as "key=value" lines (trace_file.h):
 *	at the start  lockstall.version, host, kernel.release, kernel.version,
 *	              machine, cpus, boot_id, stacks, stacks.user_mode, command,
 *	              threshold_ns, pid, top, json, interval_ns, count, features,
 *	              backend, task_state, start.realtime_ns,
 *	              clock.realtime_minus_monotonic_ns
 *	as read       maps.TGID, buildids.TGID
 *	at the end    cgroup.ID, proc.TGID.comm, proc.TGID.cmdline,
 *	              procs_dropped, unrecordable, end.realtime_ns
 * lockstall report reads them back (cmd_report.c).
 */
#ifndef LOCKSTALL_RECORD_META_H
#define LOCKSTALL_RECORD_META_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct trace_writer;
struct stacks;
struct cgroups;

/* The run a recording comes from: its command line and the options report reuses. */
struct record_run {
	int argc;
	char *const *argv;
	__u64 threshold_ns;
	__u32 pid;		/* -p as resolved */
	unsigned int top;
	bool json;
	__u64 interval_ns;
	__u64 count;
	bool stacks;
	unsigned int ustack_mode;
	__u32 features;		/* LS_FEAT_* of the loaded BPF programs */
};

/* This boot's id (boot_id), without its newline, into buf (at most len - 1 bytes).  0 or -errno. */
int record_meta__boot_id(char *buf, size_t len);
/* Host, kernel, options and clocks, flushed.  0 or a negative errno. */
int record_meta__start(struct trace_writer *w, const struct record_run *run);
/* One process's mappings and build-ids (queued: trace_writer__meta_flush). */
int record_meta__maps_one(void *w, __u32 tgid, const char *maps, size_t maps_len, const char *ids,
			  size_t ids_len);
/* The mappings the stack resolver holds now (sk may be NULL). */
void record_meta__maps(struct trace_writer *w, struct stacks *sk);
/* The path of every cgroup the run resolved, as "cgroup.ID=PATH" (cg may be NULL). */
void record_meta__cgroups(struct trace_writer *w, struct cgroups *cg);
/*
 * The names of the processes seen (and their command lines unless
 * no_cmdline), the counts and the end time; nothing after a write error.
 * Only once tracing has stopped: see names__one() in meta.c.
 */
void record_meta__end(struct trace_writer *w, bool no_cmdline);
/*
 * The END of a recording: the names of the processes seen, then close.
 * path: the file, for messages; *st (may be NULL): what it holds.  0 or
 * what is left to say as a negative errno.
 */
struct trace_writer_stats;
int record_meta__close(struct trace_writer *tw, const char *path, bool no_cmdline,
		       struct trace_writer_stats *st);

#endif /* LOCKSTALL_RECORD_META_H */
