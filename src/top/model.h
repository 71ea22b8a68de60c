/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What lockstall top shows, as data: the stalls in progress, and the worst
 * victims and top culprits over the last interval and since start, under
 * a filter and a sort.  Pure: stalls in (the top sink, src/top/sink.c),
 * ranked tables out (top_model__query), no clock but the caller's "now",
 * no terminal (src/top/screen.c makes the text).
 *
 *	top_model__new -> top_model__stall / top_model__pending (each)
 *	-> top_model__query (each refresh) -> top_view__release
 *	-> top_model__free
 *
 * Every ended stall is kept as one compact fact in a ring of at most
 * `history` (the oldest forgotten first), so a filter or a sort chosen
 * later applies to everything seen, and memory stays bounded.  Credit
 * follows the text summary's culprits (src/sinks/report_model.c): a stall's
 * lock wait goes to its first holder, each preemptor gets the time it ran
 * instead of a holder.
 */
#ifndef LOCKSTALL_TOP_MODEL_H
#define LOCKSTALL_TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "engine/engine.h"

#define TOP_HISTORY_DEFAULT	8192	/* stalls remembered */
#define TOP_MAX_BLAME		6	/* culprits per stall: the first holder, preemptors */
#define TOP_MAX_PENDING		64	/* stalls in progress shown at once */
#define TOP_FILTER_MAX		64	/* a comm or cgroup filter's text */
#define TOP_CGROUPS_MAX		256	/* cgroup paths remembered for the filter */

enum top_role {
	TOP_ROLE_HOLDER = 0,
	TOP_ROLE_PREEMPTOR = 1,
};

enum top_sort {
	TOP_SORT_INTERVAL = 0,	/* stall time in the last interval, then since start */
	TOP_SORT_TOTAL,		/* stall time since start */
	TOP_SORT_COUNT,		/* stalls since start */
	TOP_SORT_MAX,		/* the longest single wait (or credit) */
	TOP_SORT_N,
};

/* "interval", "total", "count", "max" */
const char *top_sort_name(enum top_sort s);

/*
 * The filter: a process (pid, else a comm substring) and a cgroup (that
 * path and below it).  A stall matches when its waiter, a culprit or the
 * lock's process does; the tables are then made of matching stalls only.
 */
struct top_filter {
	__u32 pid;			/* 0: none */
	char comm[TOP_FILTER_MAX];	/* "": none; matched against the escaped comm */
	char cgroup[TOP_FILTER_MAX];	/* "": none; a path as the output prints it */
};

/*
 * "1234" -> pid, "" -> none, anything else a comm substring.  -EINVAL: a
 * number that is no pid; -ENAMETOOLONG: too long.
 */
int top_filter__set_proc(struct top_filter *f, const char *text);
/* "/system.slice/x.service" (a trailing '/' dropped), "" none; -EINVAL not a path. */
int top_filter__set_cgroup(struct top_filter *f, const char *text);
/* "pid 1234", "comm ~db", "cgroup /x" joined, or "none": into buf. */
const char *top_filter__text(const struct top_filter *f, char *buf, size_t len);

/* One row of a ranked table. */
struct top_row {
	struct ls_task task;	/* as last seen */
	struct ls_rename rename;	/* its other name in that stall (tid 0: none) */
	enum top_role role;	/* culprits only */
	enum ls_holder_state state;	/* holders: the state of its latest stall */
	__u32 lock_tgid;	/* victims: the owner of the lock of its latest stall */
	__u8 lock_kind;		/* victims: that lock's LS_LOCK_* */
	__u64 iv_stalls, iv_ns;	/* in the last interval */
	__u64 all_stalls, all_ns;	/* in the history */
	__u64 max_ns;		/* the longest single wait (victims) or credit (culprits) */
};

/* A stall in progress, as its latest pending report had it. */
struct top_pending {
	struct ls_task waiter;
	/* the tasks' other names where the report says they changed (tid 0: none) */
	struct ls_rename waiter_rename, holder_rename, preemptor_rename;
	__u64 waiter_cgroup_id;
	__u32 lock_tgid;
	__u8 lock_kind;		/* LS_LOCK_* */
	__u64 start_ns;
	__u64 reported_ns;	/* the report's time */
	bool has_holder;
	struct ls_task holder;
	__u64 holder_cgroup_id;
	enum ls_holder_state holder_state;	/* now (ls_holder.state_now) */
	bool has_preemptor;
	struct ls_task preemptor;	/* ran most instead of the holder */
	__u64 preemptor_cgroup_id;	/* 0: not known */
	enum ls_verdict verdict;	/* so far */
	bool began_before;	/* began before tracing: start_ns is a lower bound of its age */
	bool found_late;	/* with began_before: found by a later scan (ls_stall.found_late) */
};

struct top_query {
	__u64 now_ns;		/* the refresh's time (record clock); a newer report moves it on */
	__u64 interval_ns;	/* the last interval: stalls that ended in (now - it, now] */
	/* a stall in progress not reported again this long is dropped (its end lost); 0: never */
	__u64 stale_ns;
	enum top_sort sort;
	const struct top_filter *filter;	/* NULL: none */
	size_t max_rows;	/* per table; 0: all */
};

struct top_view {
	__u64 now_ns;		/* the query's, or the newest report's if later */
	struct top_pending *pending;	/* oldest first */
	size_t n_pending;
	struct top_row *victims;	/* ranked by the sort */
	size_t n_victims, more_victims;	/* more_*: cut by max_rows */
	struct top_row *culprits;
	size_t n_culprits, more_culprits;
	__u64 iv_stalls, all_stalls;	/* matching stalls */
	__u64 seen_stalls;	/* every stall taken in, matching or not */
	__u64 history_from_ns;	/* the oldest stall kept ended here; 0: none forgotten */
};

struct top_model;

struct top_model *top_model__new(size_t history);
void top_model__free(struct top_model *m);
/* An ended stall: remembered, and the same wait leaves the stalls in progress. */
int top_model__stall(struct top_model *m, const struct ls_stall *st);
/* A wait still open (ls_stall as the engine reports it while it lasts). */
int top_model__pending(struct top_model *m, const struct ls_stall *st);
/* The tables as of q.  0 or -ENOMEM (v is then empty). */
int top_model__query(struct top_model *m, const struct top_query *q, struct top_view *v);
void top_view__release(struct top_view *v);

#endif /* LOCKSTALL_TOP_MODEL_H */
