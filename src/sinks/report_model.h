/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the Markdown and HTML reports (and the text summary's culprits) are
 * made of: the whole run, gathered stall by stall in bounded memory, read
 * at the summary.
 *
 *	report_model__stall (each stall) -> report_model__finish -> read
 *	m->worst, m->holders, m->preemptors -> report_model__free
 *
 * And the text helpers the text, Markdown and HTML sinks share (each in
 * one place).  Private to src/sinks.
 */
#ifndef LOCKSTALL_REPORT_MODEL_H
#define LOCKSTALL_REPORT_MODEL_H

#include "sinks/report.h"
#include "sinks/sink_common.h"
#include "util.h"

#define RM_MAX_WORST	20	/* stalls kept, longest lock wait first */
#define RM_MAX_TASKS	256	/* culprits tracked per table; the rest summed as "others" */
#define RM_SHOW_TASKS	10	/* culprits shown per table */

struct rm_culprit {
	struct ls_task task;	/* as last seen */
	struct ls_rename rename;	/* of task, in the stall it was last seen in; tid 0: none */
	__u64 ns;		/* holders: lock wait they caused; preemptors: holder off-CPU time */
	__u64 stalls;		/* stalls it took part in */
	__u64 last_seq;		/* the last stall counted: one count per stall */
};

struct rm_table {
	struct rm_culprit v[RM_MAX_TASKS];
	unsigned int n;
	__u64 other_ns;		/* of tasks beyond RM_MAX_TASKS */
	__u64 others;		/* credits that went to other_ns */
};

struct report_model {
	struct stall_copy worst[RM_MAX_WORST];
	unsigned int n_worst;
	struct rm_table holders;	/* each stall's lock wait, to its first holder */
	struct rm_table preemptors;	/* each holder's preempted_by times */
	__u64 stalls;
	/* Waits still open when the run ended (their at-exit pending reports), oldest first. */
	struct stall_copy open[RM_MAX_WORST];
	unsigned int n_open;
	__u64 open_dropped;	/* beyond RM_MAX_WORST */
	__u64 first_stall_ns;
	__u64 last_stall_ns;
};

/*
 * Take one stall in.  0 or -ENOMEM (the model stays consistent without it).
 * Pending reports: those at exit are kept in open[], the others ignored
 * (the wait's stall, or its report at exit, stands for it).
 */
int report_model__stall(struct report_model *m, const struct ls_stall *st);
/* Sort for reading: worst stalls and culprits most time first. */
void report_model__finish(struct report_model *m);
void report_model__free(struct report_model *m);

/* ---- text both formats share ---------------------------------------- */

/*
 * "comm[tgid/tid]", with " (was bash)" when rename r (NULL: none) says so,
 * made printable (ls_comm_text): escape it for the format too.
 */
#define RM_TASK_LEN (LS_COMM_TEXT_LEN + SINK_RENAME_TEXT_LEN + 32)
const char *rm_task(const struct ls_task *t, const struct ls_rename *r, char *buf, size_t len);
/* rm_task() of a task st names, with its rename in st. */
const char *rm_stall_task(const struct ls_stall *st, const struct ls_task *t, char *buf,
			  size_t len);
/* "comm/tid" of a chain hop, with its rename in st: the chain's short form. */
const char *rm_hop_task(const struct ls_stall *st, const struct ls_task *t, char *buf,
			size_t len);
/*
 * "for mmap_lock 0x... of app[1234], held by agent[99/99] preempted
 * (STALL #5)": a lock a holder waited on while it held st's.
 */
#define RM_WAITED_LEN (160 + RM_TASK_LEN + 64)
const char *rm_waited_text(const struct ls_stall *st, const struct ls_waited *w, char *buf,
			   size_t len);
/* rm_task() of a culprit, with its rename. */
const char *rm_culprit_task(const struct rm_culprit *c, char *buf, size_t len);
/*
 * A record time as wall-clock time, "2026-12-03 06:40:00.102 UTC" (with_date)
 * or "06:40:00.102"; without a clock offset (meta NULL too), "+S.mmms" from t0.
 */
const char *rm_when(const struct report_meta *meta, __u64 ts, __u64 t0, bool with_date,
		    char *buf, size_t len);
/* "wait time" (of any lock kind), "hold time", "off-CPU time while holding" */
const char *rm_hist_title(unsigned int kind);

/* One histogram as the reports and the text draw it: its heading, its used slots, its totals. */
struct rm_hist {
	const struct ls_hist *h;	/* slots, count, sum_ns */
	const struct hist_view *view;	/* whose: processes, pids */
	const char *title;		/* rm_hist_title() */
	unsigned int kind;		/* enum ls_hist_kind */
	const char *mode;		/* " write", " read" or "" */
	const char *lock;		/* the lock kind: "mmap_lock", "futex", "mutex"... */
	char comm[LS_COMM_TEXT_LEN];	/* printable (ls_comm_text): escape it for the format too */
	__u32 tgid;			/* the process (with most time in it, of several) */
	/* "bash[123]", or "bash (37 processes)": printable, escape it for the format too */
	char who[LS_COMM_TEXT_LEN + 32];
	bool any;			/* a slot is used: first..last are drawn */
	unsigned int first, last;	/* the used slots' span */
	__u64 max;			/* the fullest slot's count: the bars' scale */
	__u64 avg_ns;
};

/*
 * Every histogram of set a report shows, kind by kind, as hist__select()
 * picks them: fn for each, then cut for a kind with some left out, with
 * the sentence that says so ("and 3 more wait histograms (--top 0 shows
 * all)...": plain ASCII).  0 or -ENOMEM.
 */
int rm_hists__each(const struct ls_hist_set *set, const struct sink_opts *opts,
		   void (*fn)(void *ctx, const struct rm_hist *m),
		   void (*cut)(void *ctx, const char *text), void *ctx);
/* m drawn from view v (which must outlive m). */
void rm_hist__init(struct rm_hist *m, const struct hist_view *v);
/*
 * One histogram drawn as each format draws it (ctx: the FILE *), and the
 * escapers of the Markdown and HTML formats: for the fleet report
 * (fleet_text.c, fleet_html.c), which draws what these formats draw.
 */
void rm_text_hist(void *ctx, const struct rm_hist *m);
void rm_md_hist(void *ctx, const struct rm_hist *m);
void rm_html_hist(void *ctx, const struct rm_hist *m);
void rm_md_text(FILE *f, const char *s);
void rm_md_name(FILE *f, const char *s);
void rm_html_text(FILE *f, const char *s, size_t maxlen);
extern const char rm_html_style[];

/* What a histogram of this kind counts, for n of them: "lock operations", "holds"... */
const char *rm_count_noun(unsigned int kind, __u64 n);
/* The lower and upper bound of slot i, in microseconds. */
__u64 rm_slot_lo(unsigned int i);
__u64 rm_slot_hi(unsigned int i);
/* ns as a percentage of of, at most 100; 0 when of is 0. */
unsigned int rm_pct(__u64 ns, __u64 of);

#endif /* LOCKSTALL_REPORT_MODEL_H */
