/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fleet report (lockstall report FILE... or DIR): many recordings,
 * each reduced to a summary of its own while it is replayed, then merged
 * into one model that the fleet formats print.
 *
 *	fleet_rec__sink (one per recording, in any thread) -> session's
 *	stalls and summary -> fleet_rec (what the merge needs, nothing more)
 *	fleet__add (each) / fleet__bad (each file left out) -> fleet__merge
 *	-> fleet__print_FORMAT -> fleet__free
 *
 * Two recordings of one boot (same host and boot_id) whose spans overlap
 * hold the same stalls twice: the merge counts a stall once (a stall is
 * its waiter's tid and its start, in that boot's monotonic clock), takes
 * the histograms of the longer recording only, and lists the overlap.
 *
 * Times in UTC: a record time plus its recording's realtime - monotonic
 * offset, read once when the recording began.
 */
#ifndef LOCKSTALL_SINK_FLEET_H
#define LOCKSTALL_SINK_FLEET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "engine/sink.h"
#include "util.h"

#define FLEET_TEXT_LEN		96	/* a kernel release's or a version's text */
#define FLEET_MAX_STALLS	65536	/* per recording; beyond, counted in stalls_dropped */
#define FLEET_MAX_WORST		20
/* Two recordings without a boot id are of one boot if their clock offsets differ by less */
#define FLEET_SAME_OFFSET_NS	1000000000LL

/*
 * One final stall, as the fleet keeps it: small, as a thousand recordings
 * may hold millions.  Names are the recording's bytes (ls_comm_text() and
 * fleet_stall__lock() make them printable).
 */
struct fleet_stall {
	__u64 start_ns;		/* the recording's CLOCK_MONOTONIC */
	__u64 lock_wait_ns;
	struct ls_lock_id lock;
	__u32 waiter_tid;
	__u32 waiter_tgid;
	__u32 holder_tid;	/* 0: no holder known */
	__u32 holder_tgid;
	char waiter[LS_COMM_LEN];
	char holder[LS_COMM_LEN];
	/* cgroups, as 1 + an index of fleet_rec.cgs; 0: unknown */
	__u16 waiter_cg;
	__u16 holder_cg;
	__u8 verdict;		/* enum ls_verdict */
	__u8 cause;		/* enum ls_cause */
	bool dup;		/* fleet__merge: the same stall in an overlapping recording */
};

/* A cgroup a recording's stalls name: its id, then its path (fleet_rec__cgroup_paths). */
struct fleet_cgroup {
	__u64 id;
	char *path;		/* text form (ls_cgroup_text()); NULL: not known */
};

#define FLEET_MAX_CGROUPS	UINT16_MAX	/* per recording; more are unknown */

/* One per-command wait histogram of a recording (summed over its processes). */
struct fleet_hist {
	struct ls_hist hist;	/* comm: the recording's bytes */
	__u8 kind;		/* enum ls_hist_kind: a wait kind */
	__u8 write;		/* 0, 1, LS_HIST_ANY_MODE */
	unsigned int hosts;	/* merged: hosts it came from */
	unsigned int last_row;	/* merged: the last host counted, + 1 */
};

/* One recording reduced: its metadata (printable), stalls and histograms. */
struct fleet_rec {
	char *file;
	char host[LS_COMM_TEXT_LEN * 2];
	char boot_id[64];
	char kernel[FLEET_TEXT_LEN];
	char version[FLEET_TEXT_LEN];
	bool has_clock;
	long long offset_ns;	/* realtime - monotonic */
	__u64 start_ns, end_ns;	/* monotonic: the summary's span */
	__u64 lost_events;
	__u64 open_at_end;	/* waits still open when it ended */
	__u64 stalls_dropped;	/* beyond FLEET_MAX_STALLS */
	unsigned int damage;	/* LS_TRACE_* bits: read up to the damage */
	char *note;		/* with damage: what the reader said, one line */
	bool hists_left_out;	/* fleet__merge: an overlapping longer recording's count */
	struct fleet_stall *stalls;
	size_t n_stalls, alloc_stalls;
	struct fleet_hist *hists;
	size_t n_hists, alloc_hists;
	struct fleet_cgroup *cgs;	/* the cgroups its stalls name, each once */
	size_t n_cgs;
	unsigned int row;	/* fleet__merge: its host's row */
};

/* A file left out, and why (one line, printable). */
struct fleet_bad {
	char *file;
	char *why;
};

/* One culprit or victim: a command or a service (cgroup), over the fleet. */
struct fleet_rank {
	char name[LS_COMM_TEXT_LEN * 4];	/* printable; a long cgroup path cut */
	__u64 ns;		/* lock wait caused (culprits) or suffered (victims) */
	__u64 stalls;
	unsigned int hosts;
	unsigned int last_row;	/* the last host counted, + 1 */
};

struct fleet_ranks {
	struct fleet_rank *v;	/* most time first */
	size_t n;
};

/* One host: every recording of that host name. */
struct fleet_row {
	const char *host;	/* the first recording's */
	unsigned int recordings;
	__u64 stalls;
	__u64 worst_ns;
	char top_culprit[LS_COMM_TEXT_LEN];	/* "" none */
	__u64 top_culprit_ns;
	__u64 lost_events;
	__u64 stalls_dropped;
	unsigned int damaged;	/* recordings read up to damage */
	const char *kernel;	/* the latest recording's */
	const char *version;
	bool has_clock;
	__u64 first_utc_ns, last_utc_ns;	/* span recorded; 0 without clock */
};

/* Two recordings of one boot whose spans overlap: b's repeats left out. */
struct fleet_overlap {
	const struct fleet_rec *a, *b;
	__u64 dup_stalls;
};

/* A worst stall of the fleet. */
struct fleet_worst {
	const struct fleet_rec *rec;
	const struct fleet_stall *st;
};

struct fleet {
	struct fleet_rec **recs;
	size_t n_recs, alloc_recs;
	struct fleet_bad *bad;
	size_t n_bad, alloc_bad;
	/* fleet__merge */
	struct fleet_row *rows;	/* by host name */
	size_t n_rows;
	struct fleet_ranks culprits, culprit_services, victims, victim_services;
	struct fleet_hist *hists;	/* wait histograms by command, most time first */
	size_t n_hists;
	struct fleet_worst worst[FLEET_MAX_WORST];
	unsigned int n_worst;
	struct fleet_overlap *overlaps;
	size_t n_overlaps;
	__u64 stalls, dup_stalls, lost_events;
	bool all_clocks;	/* every recording has a wall-clock anchor */
	__u64 first_utc_ns, last_utc_ns;
};

/* The options the fleet formats honour (the report's). */
struct fleet_opts {
	unsigned int top;	/* rows per ranking and histograms shown; 0: all */
	const char *hosts;	/* --host PATTERN, for the heading; NULL: all */
};

/* ---- one recording --------------------------------------------------- */

struct fleet_rec *fleet_rec__new(const char *file);
void fleet_rec__free(struct fleet_rec *r);
/* Keep a metadata value (printable) under key: host, boot_id, kernel.release... */
void fleet_rec__meta(struct fleet_rec *r, const char *key, const char *val);
/* Take one final stall (pending ones: only counted when at exit).  0 or -ENOMEM. */
int fleet_rec__stall(struct fleet_rec *r, const struct ls_stall *st);
/*
 * The cgroup paths of r's stalls, once the recording's end (where they are
 * kept) has been read: path(ctx, id) gives one in text form, or NULL.
 * 0 or -ENOMEM.
 */
int fleet_rec__cgroup_paths(struct fleet_rec *r, const char *(*path)(void *ctx, __u64 id),
			    void *ctx);
/* The path of cgroup cg (a fleet_stall's), NULL when unknown. */
const char *fleet_rec__cgroup(const struct fleet_rec *r, __u16 cg);

/* A stall's names as the formats print them: printable (escape them for the format too). */
struct fleet_names {
	char waiter[LS_COMM_TEXT_LEN];
	char holder[LS_COMM_TEXT_LEN];	/* "": no holder known */
	char lock[256];			/* sink__lock_text() */
};

void fleet_stall__names(const struct fleet_stall *s, struct fleet_names *n);
/* Take the run's summary: span, losses, wait histograms by command.  0 or -ENOMEM. */
int fleet_rec__summary(struct fleet_rec *r, const struct ls_summary *sum);
/* A sink that feeds r (not owned): the output of one recording's session. */
struct sink *fleet_rec__sink(struct fleet_rec *r, const struct sink_opts *opts);

/* to's counts, sum and slots plus h's: merged buckets add up. */
void fleet_hist__add(struct ls_hist *to, const struct ls_hist *h);

/* ---- the fleet ------------------------------------------------------- */

void fleet__init(struct fleet *f);
/* Take r (owned from now on).  0 or -ENOMEM (r freed). */
int fleet__add(struct fleet *f, struct fleet_rec *r);
/* A file left out: its name and why (copied).  0 or -ENOMEM. */
int fleet__bad(struct fleet *f, const char *file, const char *why);
/* Rows, rankings, histograms, worst stalls, overlaps.  0 or -ENOMEM. */
int fleet__merge(struct fleet *f);
void fleet__free(struct fleet *f);
/* A monotonic time of r as UTC ns since the epoch; 0 without a clock. */
__u64 fleet_rec__utc(const struct fleet_rec *r, __u64 mono_ns);

/* ---- the formats (fleet_text.c, fleet_json.c, fleet_html.c) ---------- */

int fleet__print_text(const struct fleet *f, const struct fleet_opts *o, FILE *out);
int fleet__print_markdown(const struct fleet *f, const struct fleet_opts *o, FILE *out);
int fleet__print_json(const struct fleet *f, const struct fleet_opts *o, FILE *out);
int fleet__print_html(const struct fleet *f, const struct fleet_opts *o, FILE *out);
int fleet__print_perfetto(const struct fleet *f, const struct fleet_opts *o, FILE *out);

#endif /* LOCKSTALL_SINK_FLEET_H */
