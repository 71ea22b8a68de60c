// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the live run tells on stderr whatever its stage: events lost and a
 * reader starved of CPU, a recording's write error, a failure as an exit
 * code; and the front end's screen put away before any of it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "loader/loader.h"
#include "reader_cpu.h"
#include "session.h"
#include "watch.h"

__u64 watch__lost(struct watch *w)
{
	struct loader_stats st;
	struct ls_summary sum;

	/* still attached while the summary is made: what comes after is not its */
	if (w->ended)
		return w->lost_at_end;
	loader__stats(w->loader, &st);
	session__summary(&w->s, &sum);
	return st.drops > sum.lost_events ? st.drops : sum.lost_events;
}

/* A housekeeping period ends at now: how long this thread waited for a CPU in it. */
void watch__note_cpu(struct watch *w, __u64 now)
{
	__u64 lost = watch__lost(w);

	reader_cpu__period(&w->cpu, now, lost > w->lost_seen);
	w->lost_seen = lost;
}

/* Why events were lost, when it was that this thread got too little CPU: once. */
static void watch__tell_starved(struct watch *w)
{
	unsigned int prio = w->fifo;

	if (w->starved_told || w->cpu.worst_pct < READER_CPU_STARVED_PCT)
		return;
	w->starved_told = true;
	if (prio)
		fprintf(stderr, "lockstall: even at SCHED_FIFO %u it waited for a CPU up to %u%% of the time while events were lost: a higher --rt-priority may let it keep up\n",
			prio, w->cpu.worst_pct);
	else
		fprintf(stderr, "lockstall: it waited for a CPU up to %u%% of the time while events were lost (busy real-time tasks?): --rt-priority PRIO, above theirs, lets it keep up\n",
			w->cpu.worst_pct);
}

/*
 * Why events were lost, into buf: records the ring had no room for, runs
 * of our programs the kernel skipped, tasks the state map had no room for
 * (each counted once, in the loader's counts).
 */
static void watch__lost_why(struct watch *w, char *buf, size_t len)
{
	struct loader_stats st;
	__u64 ring;
	int n;

	loader__stats(w->loader, &st);
	ring = st.drops > st.task_state_full ? st.drops - st.task_state_full : 0;
	n = snprintf(buf, len, "%s", ring || !(st.prog_misses || st.task_state_full) ?
		     "ring buffer full: a larger --ring-buffer gives it more room" : "");
	if (st.prog_misses && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "%s%llu runs skipped", n ? ", " : "",
			      (unsigned long long)st.prog_misses);
	if (st.task_state_full && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "%s%llu tasks not followed", n ? ", " : "",
			 (unsigned long long)st.task_state_full);
}

/* Silence must never look like "no stalls" when the kernel dropped records. */
void watch__warn_lost(struct watch *w, bool final)
{
	__u64 lost = watch__lost(w);
	char why[128];

	if (lost && (final || lost > w->lost_warned)) {
		watch__lost_why(w, why, sizeof(why));
		fprintf(stderr, "lockstall: %llu events lost%s (%s): findings in those spans are marked unknown\n",
			(unsigned long long)lost, final ? "" : " so far", why);
	}
	if (lost)
		watch__tell_starved(w);
	w->lost_warned = lost;
}

/*
 * A full disk ends the recording, not the watch: what watch prints goes on
 * (the exit status says 1 at the end).  record has nothing else to do and
 * stops.  Either way the file keeps its whole chunks.
 */
void watch__tell_write_error(struct watch *w, const struct ls_config *cfg)
{
	if (!w->s.write_err || w->write_told)
		return;
	w->write_told = true;
	fprintf(stderr, "lockstall: %s: cannot write: %s: recording stopped%s; the file keeps what came before\n",
		cfg->output, strerror(-w->s.write_err),
		watch__file_only(w) ? "" : ", watching goes on");
}

/* The front end's screen goes before anything is said on stderr. */
void watch__front_stop(struct watch *w)
{
	if (w->front && w->front->stop)
		w->front->stop(w->front->ctx);
}

/*
 * An error from polling or the engine, as an exit code.  The reader of our
 * output going away (EPIPE: "| head") is how such pipelines end: quiet, 0.
 */
int watch__fail(struct watch *w, const struct ls_config *cfg, int err, const char *what)
{
	watch__front_stop(w);
	if (w->s.write_err && watch__file_only(w)) {
		watch__tell_write_error(w, cfg);
		return LS_EXIT_FAILURE;
	}
	if (w->s.feed_err)
		err = w->s.feed_err;
	if (err == -EPIPE)
		return LS_EXIT_OK;
	if (w->s.feed_err || !what)
		fprintf(stderr, "lockstall: cannot write output: %s\n", strerror(-err));
	else
		fprintf(stderr, "lockstall: %s failed: %s\n", what, strerror(-err));
	return LS_EXIT_FAILURE;
}
