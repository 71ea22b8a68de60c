// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall watch: trace live, print stalls as they are found, histograms
 * every interval if asked, and a summary at the end.  With -o it also
 * records.  lockstall top and lockstall record run the same loop with a
 * front end of their own (struct watch_front, commands.h) in place of the
 * output: top's screen, record's progress lines.
 *
 *	open (session, sinks, rules, file) -> attach (loader, BEGIN mark)
 *	-> loop (poll, timers) -> finish (drain, exit TICK, END histograms,
 *	summary) -> teardown [process names, close file]
 *
 * This file is the loop; what comes before and after it is watch_open.c.
 * Every record goes through session__feed(): to the file first, then to
 * the engine, exactly as lockstall report feeds them back.  Everything
 * printed is computed from record timestamps; the clock only drives this
 * loop's own deadlines (src/timers.h), and the TICK records it feeds.
 */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "resolve/cgroup.h"
#include "commands.h"
#include "engine/engine.h"
#include "record/flight_writer.h"
#include "sinks/naming.h"
#include "record/meta.h"
#include "alert/hooks.h"
#include "loader/loader.h"
#include "alert/metrics_http.h"
#include "session.h"
#include "record/trace_file.h"
#include "timers.h"
#include "util.h"
#include "watch.h"

#define POLL_MS			100
/*
 * How often the loop looks for new drops to warn about, writes the records
 * it has to the file (a kill -9 loses at most this much) and tells a
 * front end's progress.
 */
#define HOUSEKEEP_NS		NSEC_PER_SEC
/* A flight recording waits this long for the naming worker, at a time. */
#define FLIGHT_RETRY_NS		(10 * NSEC_PER_MSEC)
/* How often a TICK tells the engine that time passed: a pending report is this late at most. */
#define PENDING_TICK_NS		(100 * NSEC_PER_MSEC)

/* The loop's deadlines, one timer each (src/timers.h). */
enum watch_timer {
	WT_DURATION,	/* -d */
	WT_INTERVAL,	/* "interval" arguments: histograms */
	WT_METRICS,	/* --metrics-file, --metrics-listen: histograms and counters */
	WT_FLIGHT,	/* the flight recorder's pending window closes */
	WT_HOUSEKEEP,	/* drops, file flush, a front's progress */
	WT_PENDING,	/* a TICK record: waits still open are judged */
};

/* SIGHUP: the new rules file, or the old rules and why not. */
static void watch__reload(struct watch *w)
{
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN];

	struct slo_cgroup_check chk = { cgroups__exists, w->cgroups };

	if (!w->cfg->rules_file || !w->s.slo) {
		fprintf(stderr, "lockstall: SIGHUP: no --rules file to re-read\n");
		return;
	}
	/* a cgroup renamed since it was cached is looked up again */
	cgroups__forget(w->cgroups);
	if (slo_rules__read(&rules, w->cfg->slo, w->cfg->n_slo, w->cfg->rules_file, &chk, err,
			    sizeof(err))) {
		fprintf(stderr, "lockstall: SIGHUP: %s: keeping the rules in use (%zu)\n", err,
			slo__n_rules(w->s.slo));
		return;
	}
	fprintf(stderr, "lockstall: SIGHUP: %s re-read: rules in use: %zu\n", w->cfg->rules_file,
		rules.n);
	slo__set_rules(w->s.slo, &rules);
}

/*
 * Metrics ticks without "interval" arguments: the histograms go to the
 * engine for the metrics only.  The recording need not hold them (the final
 * ones are cumulative) nor the INTERVAL mark, which would make report print
 * intervals this watch did not.
 */
static int watch__feed_metrics(void *ctx, const void *rec, size_t len)
{
	const struct ls_hdr *hdr = rec;

	if (len >= sizeof(*hdr) &&
	    (hdr->type == LS_REC_HIST ||
	     (hdr->type == LS_REC_MARK && len >= sizeof(struct ls_rec_mark) &&
	      ((const struct ls_rec_mark *)rec)->kind == LS_MARK_INTERVAL)))
		return session__feed_unrecorded(ctx, rec, len);
	return session__feed(ctx, rec, len);
}

/*
 * The recording gets the mappings the naming worker keeps: it is held off
 * them until the child is forked or the file written.  false: busy, tried
 * again soon; at the end, a worker stuck that long keeps them, and the
 * recording goes without.
 */
static bool watch__flight_hold(struct watch *w, bool may_fork, __u64 now)
{
	if (!w->s.naming || !w->stacks ||
	    naming__lock(w->s.naming, may_fork ? 0 : NAMING_STOP_NS))
		return true;
	if (may_fork) {
		w->flight_retry_ns = now + FLIGHT_RETRY_NS;
		return false;
	}
	fprintf(stderr, "lockstall: flight recorder: the naming thread is stuck: the recording has no mappings\n");
	flight_writer__forget_stacks(w->flight);
	w->stacks = NULL;
	return true;
}

/* The pending window of the flight recorder to its file (flight_writer.h). */
static void watch__flight_write(struct watch *w, bool may_fork, __u64 now)
{
	struct record_run run;
	__u64 to_ns;

	if (!flight_writer__due(w->flight, &to_ns) || !watch__flight_hold(w, may_fork, now))
		return;
	watch__record_run(w, &run);
	flight_writer__write(w->flight, &run, may_fork);
	if (w->s.naming && w->stacks)
		naming__unlock(w->s.naming);
}

/*
 * Wait up to timeout_ms for records, a scrape or the front end's input,
 * then take records and scrape.  Without --metrics-listen nor a front end
 * this is loader__poll() itself.  With them, the ring buffer's epoll fd
 * and theirs are polled together: a scrape or a key is answered at once,
 * not at the next timeout.
 */
static int watch__wait(struct watch *w, int timeout_ms)
{
	bool front_fd = w->front && w->front->fd >= 0;
	struct pollfd fds[3];
	nfds_t n = 0;
	int rc;

	if (!w->http && !front_fd)
		return loader__poll(w->loader, timeout_ms, session__feed, &w->s);
	fds[n++] = (struct pollfd){ .fd = loader__epoll_fd(w->loader), .events = POLLIN };
	if (w->http)
		fds[n++] = (struct pollfd){ .fd = metrics_http__fd(w->http), .events = POLLIN };
	if (front_fd)
		fds[n++] = (struct pollfd){ .fd = w->front->fd, .events = POLLIN };
	/* EINTR (a signal): the loop looks at its flags */
	poll(fds, n, timeout_ms);
	/* the records first: a scrape counts every stall that has ended by now */
	rc = loader__poll(w->loader, 0, session__feed, &w->s);
	if (w->http)
		metrics_http__service(w->http, ls_now_ns());
	return rc;
}

/* What the ring buffer holds now, into the session. */
static int watch__drain(struct watch *w)
{
	int rc = loader__poll(w->loader, 0, session__feed, &w->s);

	if (rc < 0)
		w->what = "reading the ring buffer";
	return rc;
}

/*
 * The poll-then-emit step: the records found so far go first (stalls print
 * before the histograms of their interval), then the histograms and a mark
 * of kind mark through feed.
 */
static int watch__emit(struct watch *w, __u32 mark, ls_record_fn feed)
{
	int rc = watch__drain(w);

	if (rc < 0)
		return rc;
	rc = loader__emit_histograms(w->loader, mark, feed, &w->s);
	if (rc < 0)
		w->what = "reading the histograms";
	return rc;
}

/*
 * A TICK: the engine learns the time, so waits still open are reported
 * (kind LS_TICK_EXIT: all of them).  Its time is taken before the drain:
 * whatever happened before the tick reaches the engine before it.
 */
static int watch__tick(struct watch *w, __u32 kind)
{
	struct ls_rec_tick t = {
		.hdr = { .type = LS_REC_TICK, .size = sizeof(t), .ts = ls_now_ns() },
		.kind = kind,
	};
	__u32 tids[LOADER_STACKS_NOW_MAX];
	size_t n;
	int rc;

	/* said once: tracing goes on, and waits still going on are told at their end */
	if (loader__quiet_waits(w->loader) < 0 && !w->quiet_failed) {
		w->quiet_failed = true;
		fprintf(stderr, "lockstall: the scan for long quiet waits failed: waits still going on may be reported late\n");
	}
	rc = watch__drain(w);

	if (rc < 0)
		return rc;
	w->what = NULL;
	/* the stuck holders' stacks as they are now go with the reports this tick makes */
	n = session__stuck_holders(&w->s, t.hdr.ts, tids, LOADER_STACKS_NOW_MAX);
	rc = loader__stacks_now(w->loader, tids, n, t.hdr.ts, session__feed, &w->s);
	if (rc < 0)
		return rc;
	return session__feed(&w->s, &t, sizeof(t));
}

/* Metrics due: without "interval" arguments fetch the histograms for them, then write. */
static int watch__metrics_tick(struct watch *w)
{
	int rc = 0;

	if (!w->cfg->interval_ns)
		rc = watch__emit(w, LS_MARK_INTERVAL, watch__feed_metrics);
	if (rc < 0)
		return rc;
	/* a failed write is told once; the next tick tries again */
	watch__write_metrics(w);
	return 0;
}

/* How the run is going, for a front end: elapsed, stalls, drops, what the file holds. */
static void watch__progress(struct watch *w, __u64 now, struct watch_progress *p)
{
	struct trace_writer_stats ws = { 0 };
	struct ls_summary sum;

	if (w->writer)
		trace_writer__stats(w->writer, &ws);
	session__summary(&w->s, &sum);
	*p = (struct watch_progress){
		.elapsed_ns = now - w->start_ns,
		.lost = watch__lost(w),
		.stalls = sum.stalls,
		.recorded = ws.records,
		.recorded_bytes = ws.bytes,
	};
}

/* Drops to warn about, the file flushed (a kill -9 loses at most this much), progress. */
static int watch__housekeep(struct watch *w, __u64 now)
{
	const struct ls_config *cfg = w->cfg;
	struct watch_progress p;
	int rc;

	watch__note_cpu(w, now);
	/*
	 * What the engine and the loader freed (the kernel's BTF after the
	 * load, tables of tasks gone) goes back to the system, not kept in
	 * the heap's holes: memory follows the live tasks.
	 */
	malloc_trim(0);
	/* said on stderr when it fails: the next period tries again */
	loader__late_waits(w->loader);
	if (w->front && w->front->progress) {
		watch__progress(w, now, &p);
		w->front->progress(w->front->ctx, &p);
	} else {
		watch__warn_lost(w, false);
	}
	if (w->s.writer && (rc = trace_writer__flush(w->s.writer)) < 0) {
		w->s.write_err = rc;
		w->s.writer = NULL;
		if (watch__file_only(w)) {
			w->what = NULL;
			return rc;
		}
	}
	watch__tell_write_error(w, cfg);
	return 0;
}

/* The flight recorder's window, once it has closed and no writer is busy. */
static int watch__flight_tick(struct watch *w, __u64 now)
{
	/* what the ring buffer holds is part of the window */
	int rc = watch__drain(w);

	if (rc < 0)
		return rc;
	watch__flight_write(w, true, now);
	return 0;
}

/* Arm WT_FLIGHT at the pending window's end; with a writer busy the loop's own pace reaps it. */
static void watch__flight_arm(struct watch *w)
{
	__u64 to_ns;

	if (w->flight && flight_writer__due(w->flight, &to_ns))
		timer__at(&w->timers, WT_FLIGHT, to_ns > w->flight_retry_ns ? to_ns : w->flight_retry_ns);
	else
		timer__disarm(&w->timers, WT_FLIGHT);
}

static void watch__arm(struct watch *w, __u64 now)
{
	const struct ls_config *cfg = w->cfg;

	timers__init(&w->timers);
	if (cfg->duration_ns)
		timer__at(&w->timers, WT_DURATION, now + cfg->duration_ns);
	timer__every(&w->timers, WT_INTERVAL, now, cfg->interval_ns);
	if (w->metrics)
		timer__every(&w->timers, WT_METRICS, now, cfg->metrics_interval_ns ?
			     cfg->metrics_interval_ns : LS_DEFAULT_METRICS_INTERVAL_NS);
	timer__every(&w->timers, WT_HOUSEKEEP, now, HOUSEKEEP_NS);
	timer__every(&w->timers, WT_PENDING, now, PENDING_TICK_NS);
}

/* Every timer due by now, in the order their output should come; *done: stop the loop. */
static int watch__timers(struct watch *w, __u64 now, bool *done)
{
	const struct ls_config *cfg = w->cfg;
	int rc = 0;

	if (timer__due(&w->timers, WT_FLIGHT, now))
		rc = watch__flight_tick(w, now);
	/* an interval due with the deadline ("-d 3 1") still prints */
	if (rc >= 0 && timer__due(&w->timers, WT_INTERVAL, now)) {
		rc = watch__emit(w, LS_MARK_INTERVAL, session__feed);
		if (cfg->count && ++w->intervals >= cfg->count)
			*done = true;
	}
	if (timer__due(&w->timers, WT_DURATION, now))
		*done = true;
	if (rc >= 0 && !*done && timer__due(&w->timers, WT_METRICS, now))
		rc = watch__metrics_tick(w);
	if (rc >= 0 && !*done && timer__due(&w->timers, WT_PENDING, now))
		rc = watch__tick(w, LS_TICK_PERIODIC);
	if (rc >= 0 && timer__due(&w->timers, WT_HOUSEKEEP, now))
		rc = watch__housekeep(w, now);
	return rc < 0 ? rc : 0;
}

/* Between timers: a finished flight writer, a SIGHUP, hooks that ended. */
static void watch__between(struct watch *w, __u64 now, volatile sig_atomic_t *reload)
{
	flight_writer__reap(w->flight, false);
	/* only watch passes reload: top ends on a hangup, record has no rules */
	if (reload && *reload) {
		*reload = 0;
		watch__reload(w);
	}
	if (w->hooks)
		hooks__poll(w->hooks, now);
}

/*
 * The end of the stream: what the ring buffer still holds happened before
 * the stop; waits still open are reported (the exit TICK), then the END
 * histograms, the last flight recording, the hooks, the summary.
 */
static int watch__finish(struct watch *w)
{
	int rc;

	rc = watch__tick(w, LS_TICK_EXIT);
	if (rc >= 0)
		rc = watch__emit(w, LS_MARK_END, session__feed);
	if (rc >= 0) {
		w->lost_at_end = watch__lost(w);
		w->ended = true;
	}
	/* stalls still being named: before the hooks and recordings they may start */
	if (rc >= 0)
		rc = session__drain(&w->s);
	if (rc < 0)
		return watch__fail(w, w->cfg, rc, w->what);
	/* the last recordings are whole before the summary says we are done */
	if (w->flight) {
		flight_writer__reap(w->flight, true);
		/* stopped within a window's after part: the file gets what there is */
		watch__flight_write(w, false, 0);
	}
	/* what the hooks did belongs in the summary: let them end (or time out) */
	if (w->hooks)
		hooks__drain(w->hooks);
	watch__hook_stats(w);
	rc = session__finish(&w->s);
	if (rc < 0)
		return watch__fail(w, w->cfg, rc, NULL);
	return LS_EXIT_OK;
}

static int watch__loop(struct watch *w, volatile sig_atomic_t *stop,
		       volatile sig_atomic_t *reload)
{
	bool done = false;
	__u64 now;
	int rc = 0;

	watch__arm(w, ls_now_ns());
	while (!*stop && !w->stop_violation) {
		now = ls_now_ns();
		watch__between(w, now, reload);
		rc = watch__timers(w, now, &done);
		if (rc < 0 || done)
			break;
		watch__flight_arm(w);
		rc = watch__wait(w, timers__wait_ms(&w->timers, now, POLL_MS));
		if (rc < 0) {
			w->what = "reading the ring buffer";
			break;
		}
		if (w->front && w->front->input && w->front->input(w->front->ctx))
			break;
	}
	watch__front_stop(w);
	if (rc < 0)
		return watch__fail(w, w->cfg, rc, w->what);
	return watch__finish(w);
}

int cmd_watch(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	      volatile sig_atomic_t *reload, FILE *out)
{
	return watch__run(cfg, stop, reload, out, NULL);
}

int watch__run(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	       volatile sig_atomic_t *reload, FILE *out, const struct watch_front *front)
{
	struct session_opts so = {
		.format = cfg->json ? SESSION_JSON : SESSION_TEXT,
		.top = cfg->top,
		.per_pid = cfg->per_pid,
		.hist_min_ns = cfg->hist_min_ns,
		.pid = cfg->pid,
		.threshold_ns = cfg->threshold_ns,
		/* without "interval" arguments, the metrics' intervals print nothing */
		.quiet_intervals = !cfg->interval_ns,
	};
	struct loader_opts lo = {
		.threshold_ns = cfg->threshold_ns,
		/*
		 * Holds that stay on CPU matter only as contention; a quarter
		 * of the threshold keeps the ones that add up to a stall
		 * without sending every short hold through the ring buffer.
		 */
		.min_hold_ns = cfg->threshold_ns / 4,
		.verbose = cfg->verbose,
		.stacks = cfg->stacks,
		.backend = cfg->backend,
		.task_state = cfg->task_state,
		.btf_path = cfg->btf_path,
		.ustack_mode = cfg->ustack_mode,
		.ustack_copy = cfg->ustack_copy,
		.stack_interval_ns = cfg->stack_interval_ns,
		.locks = cfg->locks,
		.ring_bytes = cfg->ring_buffer,
	};
	struct watch w = { .cfg = cfg, .front = front, .front_sink = front ? front->sink : NULL };
	int ret;

	/* first: an asked-for --rt-priority is inherited by the threads started later */
	if (cfg->rt_priority_set && watch__set_fifo(&w))
		return LS_EXIT_FAILURE;
	/* the parser checked --pending-after against -t: watch knows both */
	cli__pending(cfg, cfg->threshold_ns, &so.pending_after_ns, &so.pending_every_ns);
	if (front && front->pending_after_ns)
		so.pending_after_ns = front->pending_after_ns;
	if (front && front->pending_every_ns)
		so.pending_every_ns = front->pending_every_ns;
	ret = watch__open(&w, &so, out);
	if (!ret)
		ret = watch__attach(&w, &lo);
	/* the default once loaded: the verifier's long work never runs above normal tasks */
	if (!ret && !cfg->rt_priority_set)
		watch__set_fifo(&w);
	if (!ret && front && front->start && front->start(front->ctx))
		ret = LS_EXIT_FAILURE;
	if (!ret)
		ret = watch__conclude(&w, watch__loop(&w, stop, reload));
	return watch__teardown(&w, ret);
}
