/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * SLO rules over stalls: which stalls break a latency budget, rate limited.
 *
 * Pure C like the engine: no libbpf, no clock, no printing.  Time is the
 * stalls' own end_ns, so rules give the same violations live (watch) and
 * over a recording (report).
 *
 * A rule is one line of blank-separated words, in any order:
 *
 *	selectors (all must match the stall's waiter; none: every stall)
 *		pid=PID		the waiter's process (tgid)
 *		comm=GLOB	the waiter's comm, exact or an fnmatch(3) glob,
 *				matched against the comm as text (bytes outside
 *				printable ASCII read as \xNN, see ls_comm_text)
 *		cgroup=PATH	the waiter's cgroup v2 is PATH or below it;
 *				PATH is from the cgroup2 root ("/" itself,
 *				"/system.slice/db.service"), in the text form of
 *				ls_cgroup_text(); with *, ? or [ a glob of
 *				whole components (FNM_PATHNAME), matched
 *				against the ancestor at its depth
 *		policy=NAME	normal, batch, idle, fifo, rr, deadline
 *		verdict=NAME	priority_inversion, holder_off_cpu, contention,
 *				unknown, or any (the default)
 *		cause=NAME	the culprit holder's cause: a name of the
 *				table in src/engine/causes.c (none, throttled, ...)
 *		lock=KIND	the lock's kind: a name of the table in
 *				src/engine/lock_kinds.c (mmap_lock, futex, ...)
 *	one condition
 *		wait>=DURATION		a single stall of at least DURATION
 *		stalled>=DURATION/WINDOW	matching stalls add up to at least
 *				DURATION of stalled time within WINDOW
 *	every=DURATION	fire at most once per DURATION (default: the
 *			window of a stalled rule, 10s for a wait rule)
 *
 * Stalled time is lock_wait_ns, the part of a wait the lock is to blame
 * for (the threshold and the verdict look at the same); the window is
 * (now - WINDOW, now], now the latest end_ns seen, and a stall counts in
 * it by its end.  Pending reports (waits still going on) count too: a wait
 * rule fires at the first report of a wait that long, a stalled rule adds
 * what the wait accrued since its previous report, at the report's time;
 * the wait's final stall adds the rest and does not fire a rule again that
 * its reports fired.
 */
#ifndef LOCKSTALL_SLO_H
#define LOCKSTALL_SLO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "engine/engine.h"

#define SLO_MAX_RULES		256
#define SLO_MAX_LINE		4096	/* bytes of one rule line */
#define SLO_MAX_FILE		(1 << 20)	/* bytes of a rules file */
#define SLO_MAX_GLOB		64	/* bytes of a comm= pattern */
#define SLO_MAX_CGROUP		1024	/* bytes of a cgroup= path */
#define SLO_VIOLATION_STALLS	8	/* stalls a violation carries, latest first */
#define SLO_WINDOW_ENTRIES	65536	/* stalls remembered per rule window */
#define SLO_OPEN_WAITS		64	/* waits seen pending, remembered per rule */
#define SLO_DEFAULT_EVERY_NS	(10 * 1000000000ULL)
#define SLO_ERR_LEN		512

enum slo_kind {
	SLO_WAIT = 0,		/* one stall of at least limit_ns */
	SLO_STALLED = 1,	/* limit_ns of stalled time within window_ns */
};

/*
 * A cgroup selector: the path normalised (no "//", no trailing "/",
 * escapes as ls_cgroup_text() writes them); malloc'ed, NULL when not given.
 */
struct slo_cgroup_sel {
	char *path;
	bool glob;	/* path has *, ? or [: matched component by component */
};

struct slo_rule {
	char *text;		/* the rule as written, trimmed */
	/* selectors; unset ones match everything */
	bool has_pid, has_comm, has_holder_comm, has_policy, has_verdict, has_cause, has_lock;
	__u32 pid;
	char comm[SLO_MAX_GLOB + 1];
	char holder_comm[SLO_MAX_GLOB + 1];	/* holder_comm=: any holder or hop past the waiter */
	struct slo_cgroup_sel cgroup;		/* cgroup=: the waiter's */
	struct slo_cgroup_sel holder_cgroup;	/* holder_cgroup=: any holder's */
	unsigned int policy;	/* enum ls_policy */
	unsigned int verdict;	/* enum ls_verdict; LS_VERDICT_N: any */
	unsigned int cause;	/* enum ls_cause, the culprit holder's: none, throttled, ... */
	unsigned int lock_kind;	/* enum ls_lock_kind: mmap_lock, futex, ... */
	/* condition */
	enum slo_kind kind;
	__u64 limit_ns;
	__u64 window_ns;	/* SLO_STALLED only */
	__u64 every_ns;		/* rate limit */
};

struct slo_rules {
	struct slo_rule *v;
	size_t n;
};

/*
 * The live check of a cgroup= path: 0 when path (a rule's normalised text)
 * is a cgroup v2 directory now, else -errno with why saying what was
 * looked for where.  The rules stay pure: the caller brings the I/O.
 */
struct slo_cgroup_check {
	int (*exists)(void *ctx, const char *path, char *why, size_t why_len);
	void *ctx;
};

/*
 * Parse one line (len bytes, NULs included) and append its rule to rules;
 * a blank line or a comment ("#" starting a word) adds nothing.  Returns
 * 0, or -EINVAL with err saying what was wrong at which column (1-based)
 * and what was expected, or -ENOMEM, -E2BIG (too many rules).
 * what names the rule in err ("--slo", "rules.conf:3").
 */
int slo_rules__parse_line(struct slo_rules *rules, const char *line, size_t len, const char *what,
			  char *err, size_t err_len);
/* Every line of path ("#" comments).  As above; -errno when it cannot be read. */
int slo_rules__parse_file(struct slo_rules *rules, const char *path, char *err, size_t err_len);
/*
 * The rules of a command line: each of lines[] (--slo), then the file
 * (--rules, may be NULL).  chk (may be NULL: not checked) is asked about
 * every cgroup= path: for a glob, about its components before the first
 * one with a glob character.  On error rules is left empty, err says why.
 */
int slo_rules__read(struct slo_rules *rules, const char *const lines[], size_t n,
		    const char *file, const struct slo_cgroup_check *chk, char *err,
		    size_t err_len);
/* Move the rules of src to the end of dst; src is left empty.  0 or -E2BIG, -ENOMEM. */
int slo_rules__append(struct slo_rules *dst, struct slo_rules *src);
void slo_rules__free(struct slo_rules *rules);

struct slo_violation {
	const struct slo_rule *rule;
	size_t rule_index;	/* 0-based in the rules given; printed from 1 */
	__u64 value_ns;		/* the stall's lock wait, or the stalled time in the window */
	__u64 at_ns;		/* end_ns of the stall that broke the rule */
	__u64 suppressed;	/* violations of this rule not fired since the last one */
	__u64 window_stalls;	/* stalls counted in the window (1 for a wait rule) */
	const struct ls_stall *const *stalls;	/* latest first, the breaking one [0] */
	size_t n_stalls;	/* at most SLO_VIOLATION_STALLS */
};

struct slo_stats {
	__u64 violations;	/* fired */
	__u64 suppressed;	/* held back by the rate limit */
	__u64 evicted;		/* window entries dropped at SLO_WINDOW_ENTRIES */
};

struct slo;

/*
 * Takes the rules (rules is left empty).  on_violation is called for each
 * violation, during slo__on_stall() (the stalls it points at live only
 * that long); a negative return stops and is returned by slo__on_stall().
 */
typedef int (*slo_violation_fn)(void *ctx, const struct slo_violation *v);
struct slo *slo__new(struct slo_rules *rules, slo_violation_fn fn, void *ctx);
/* Swap in new rules (taken, as above); their state starts afresh. */
void slo__set_rules(struct slo *slo, struct slo_rules *rules);
size_t slo__n_rules(const struct slo *slo);
int slo__on_stall(struct slo *slo, const struct ls_stall *st);
void slo__stats(const struct slo *slo, struct slo_stats *out);
void slo__free(struct slo *slo);

/*
 * The violation as one JSON object without a newline:
 * {"type":"violation","rule":..,"rule_index":..,"kind":..,"value_ns":..,
 *  "limit_ns":..,["window_ns":..,]"every_ns":..,"at_ns":..,"suppressed":..,
 *  "window_stalls":..,"stalls":[..],"culprits":[..]}
 */
void slo_violation__write_json(FILE *f, const struct slo_violation *v);
/* One "VIOLATION ..." line for people, newline included. */
void slo_violation__write_text(FILE *f, const struct slo_violation *v);

#endif /* LOCKSTALL_SLO_H */
