/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the sinks share: which histograms to print in which order, how a
 * task's scheduling reads, and what a failed stream means.  For src/sinks and
 * the later stages that print or keep stalls (alert/slo.c, session.c).
 */
#ifndef LOCKSTALL_SINK_COMMON_H
#define LOCKSTALL_SINK_COMMON_H

#include <stddef.h>
#include "engine/sink.h"
#include "util.h"

/*
 * One histogram as the outputs show it: by default the sum of every process
 * of one command name (the churn of short-lived "ps" and "bash" processes
 * reads as one line each), with opts->per_pid one process's.
 */
#define HIST_VIEW_PIDS 32	/* pids listed per view, most time first */

struct hist_view {
	struct ls_hist_key key;	/* key.tgid: the process with most time in it */
	struct ls_hist hist;	/* summed over the processes; comm their name */
	__u32 processes;	/* how many were summed (exited ones included) */
	__u32 exited;		/* of them, exited ones the engine summed by name (procs) */
	__u32 pids[HIST_VIEW_PIDS];	/* the first n_pids of them, most time first */
	unsigned int n_pids;
};

/* What hist__select() picked for one kind, and what it left out. */
struct hist_sel {
	struct hist_view *v;	/* most total time (sum_ns) first */
	size_t n;
	size_t n_more;		/* cut by opts->top */
	size_t n_quiet;		/* under opts->hist_min_ns (all of them when no_wait) */
	bool no_wait;		/* no lock wait reached opts->hist_min_ns: holds are not shown */
};

/*
 * The histograms of one kind worth printing, as views: of opts->filter_pid
 * only (if set), those without time in them (count or sum_ns 0) left out,
 * grouped by comm unless opts->per_pid, those whose longest slot stays under
 * opts->hist_min_ns counted in n_quiet (hold and off-CPU ones all, when no
 * lock wait reached it), at most opts->top (0: all).  The
 * order never depends on the set's.  0 or -ENOMEM (*sel empty).
 */
int hist__select(const struct ls_hist_set *h, unsigned int kind, const struct sink_opts *opts,
		 struct hist_sel *sel);
void hist_sel__release(struct hist_sel *sel);

/* An enum's name for people: "granted_not_running" -> "granted not running" (upper: upper-cased). */
const char *sink__words(const char *name, bool upper, char *buf, size_t len);

/*
 * " (was bash)" or " (now ps)" after a task's name when the stall's
 * rename r says its name changed (an exec, PR_SET_NAME), "" for NULL: the
 * other name through ls_comm_text().
 */
#define SINK_RENAME_TEXT_LEN (LS_COMM_TEXT_LEN + 8)
const char *sink__rename_text(const struct ls_rename *r, char *buf, size_t len);

/* A histogram bar's length for count v of the largest max, from 0 to width, log-scaled. */
unsigned int sink__bar_len(__u64 v, __u64 max, unsigned int width);

/* "SCHED_FIFO rt 50", "SCHED_NORMAL nice 0 boosted to prio 89", "SCHED_IDLE": into buf. */
const char *sink__sched_text(const struct ls_task *t, char *buf, size_t len);
/*
 * "tid 1234 (not seen)" for a task only its TID is known of
 * (!ls_task_seen()), into buf; NULL for any other: its name and numbers
 * are facts, these would be a zeroed struct's.
 */
const char *sink__unseen_text(const struct ls_task *t, char *buf, size_t len);

/*
 * A lock other than an mmap_lock for people: "futex 0x55d0c0de1040 of
 * app[1234]", "mutex 0xffff8881...": into buf.  Names come from the
 * traced system: escaped.
 */
const char *sink__lock_text(const struct ls_lock_id *lock, char *buf, size_t len);

/*
 * A stall's lock for people: as sink__lock_text(), and a lock by its names
 * when the resolver found them: "mutex cgroup_mutex", "rwsem
 * 0xffff8881... in free_pgtables", "futex g_queue_lock [app] of
 * app[1234]" (the data symbol and the file's basename).  Escaped.
 */
const char *sink__stall_lock_text(const struct ls_stall *st, char *buf, size_t len);
/* A chain hop's lock, by its names as for a stall's lock (no caller). */
const char *sink__hop_lock_text(const struct ls_hop *hop, char *buf, size_t len);

/*
 * Summaries list every verdict, but deadlock only once one was seen: a
 * summary without locks other than mmap_lock reads as it always did.
 */
/*
 * Why a wait's start is not known (ls_stall.began_before): " (began before
 * tracing)", " (found late)", or "" when it is known.
 */
const char *sink__start_unknown(bool began_before, bool found_late);

bool sink__verdict_listed(const struct ls_summary *sum, unsigned int v);

/*
 * Flush f: 0, or the failed write's -errno (-EPIPE when the reader went
 * away, -ENOSPC on a full disk), -EIO when nothing says why.
 */
int sink__flush(FILE *f);
/* The same without flushing: 0 unless f's error flag is set. */
int sink__error(FILE *f);

/* The last part of a path: "/usr/lib/x86_64-linux-gnu/libc.so.6" -> "libc.so.6". */
const char *sink__basename(const char *path);

/*
 * One frame for people: "do_user_addr_fault+0x1b2", with " [module]" for a
 * kernel module or a user file (its basename); unknown ones as
 * "[unknown] 0x7f3a... (libc.so.6+0x1234)" -- never a guessed name.  The
 * symbol and the file name through ls_text(), each cut at
 * SINK_NAME_TEXT_MAX - 1 bytes of text.
 */
#define SINK_NAME_TEXT_MAX 2048
const char *sink__frame_text(const struct ls_frame *f, char *buf, size_t len);

/*
 * A copy of fr in one malloc'd block (frames and strings together, free()
 * it), for sinks that keep stalls past their callback: the resolver's
 * frames live only that long.  NULL for NULL or no memory.
 */
struct ls_frames *ls_frames__dup(const struct ls_frames *fr);

/*
 * "/lsx (cgroup v1) quota 10.0ms per 100ms": the limit a throttled holder
 * hit, its path escaped as ls_cgroup_text() does.
 */
#define SINK_THROTTLE_TEXT_LEN (4 * LS_THROTTLE_PATH_MAX + 96)
const char *sink__throttle_text(const struct ls_throttle *t, char *buf, size_t len);

/* A mask of CPUs 0-63 as a list, "0,2-5"; "none" for 0. */
#define SINK_CPU_LIST_LEN 192
const char *sink__cpu_list(__u64 mask, char *buf, size_t len);

/*
 * What the kernel said behind holder h's cause c, for people: the throttle
 * limit; the kind of reclaim and the memory cgroup at its limit ("memcg
 * reclaim: /lsr (cgroup v1) at its max 16.0MiB, usage 16.0MiB"); the
 * device of an I/O wait ("device 254:1 (disk vda)"); a pinned holder's
 * CPUs ("allowed CPUs 1 (1 of 2), idle meanwhile: CPUs 0").  NULL: nothing
 * beyond the time.  Paths escaped as ls_cgroup_text() does.
 */
#define SINK_CAUSE_TEXT_LEN SINK_THROTTLE_TEXT_LEN
const char *sink__cause_text(const struct ls_holder *h, enum ls_cause c, char *buf, size_t len);

/*
 * The cgroup path to print next to a holder, or a preemptor of holder h:
 * only where it says something, when it is known and is not the waiter's
 * (a holder's) or its holder's (a preemptor's; the waiter's when the
 * holder's is not known).  NULL: print none, also for recordings made
 * before preemptors' cgroups were told (ls_stall.task_cgroups), whose
 * output stays as it was.  Paths are escaped already (ls_cgroup_text).
 */
const char *sink__holder_cgroup(const struct ls_stall *st, const struct ls_holder *h);
const char *sink__preemptor_cgroup(const struct ls_stall *st, const struct ls_holder *h,
				   const struct ls_preemptor *p);

/*
 * A stall kept past its callback (the report's worst stalls, an SLO rule's
 * latest): the engine's holders and spells, the resolver's frames and the
 * cgroup paths live only during the call, so each is copied into blocks
 * this owns, and st points into them.  The raw STACK records are the
 * engine's: NULL in st.  Zeroed is empty.
 */
struct stall_copy {
	struct ls_stall st;
	struct ls_holder *holders;
	struct ls_spell *spells;	/* LS_MAX_SPELLS per holder */
	struct ls_frames *frames[1 + LS_MAX_HOLDERS];	/* [0] the waiter's, [1 + i] holder i's */
	char *paths;			/* the cgroup paths st and its holders point to */
	struct ls_throttle throttles[LS_MAX_HOLDERS];	/* holder i's throttle, when it has one */
	struct ls_reclaim reclaims[LS_MAX_HOLDERS];	/* holder i's reclaim, when it has one */
	struct ls_rename renames[LS_MAX_RENAMES];
};

/*
 * Make c a copy of st, releasing what c held.  -ENOMEM: c is empty.  A
 * stack or cgroup path that cannot be copied is left out (NULL): the stall
 * itself is still whole.
 */
int stall_copy__set(struct stall_copy *c, const struct ls_stall *st);
void stall_copy__release(struct stall_copy *c);

/*
 * "Same stack as stall #3": the first stall seen with each stack digest.
 * Bounded: past STACK_SEEN_MAX distinct stacks, new ones are not
 * remembered (they print in full).
 */
#define STACK_SEEN_MAX 4096

struct stack_seen {
	__u64 digest[STACK_SEEN_MAX * 2];	/* open addressing; 0: empty */
	__u64 seq[STACK_SEEN_MAX * 2];
	unsigned int n;
};

/* 0 the first time digest is seen (it is remembered with seq), else the seq it was first seen in. */
__u64 stack_seen__check(struct stack_seen *s, __u64 digest, __u64 seq);

#endif /* LOCKSTALL_SINK_COMMON_H */
