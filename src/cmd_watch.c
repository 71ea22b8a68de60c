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
#include "record/flight.h"
#include "record/flight_writer.h"
#include "record/meta.h"
#include "alert/hooks.h"
#include "loader/loader.h"
#include "reader_cpu.h"
#include "alert/metrics_http.h"
#include "session.h"
#include "sinks/prometheus.h"
#include "sinks/sinks.h"
#include "resolve/stacks.h"
#include "symbols/symbols.h"
#include "record/trace_file.h"
#include "timers.h"
#include "util.h"

#define POLL_MS			100
/*
 * How often the loop looks for new drops to warn about, writes the records
 * it has to the file (a kill -9 loses at most this much) and tells a
 * front end's progress.
 */
#define HOUSEKEEP_NS		NSEC_PER_SEC
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

struct watch {
	struct session s;	/* feed with session__feed(&w->s) */
	struct timers timers;	/* enum watch_timer */
	__u64 intervals;	/* printed so far, for "count" */
	const char *what;	/* the step that failed, for watch__fail(); NULL: the output */
	struct slo_rules rules;	/* until the session takes them */
	struct loader *loader;
	struct trace_writer *writer;	/* -o, record */
	__u64 lost_warned;	/* drops already reported on stderr */
	__u64 lost_seen;	/* drops at the last housekeeping */
	struct reader_cpu cpu;	/* this thread's waits for a CPU while events were lost */
	bool starved_told;	/* ... said on stderr */
	unsigned int fifo;	/* the SCHED_FIFO priority it runs at; 0: none */
	bool write_told;	/* the write error has been reported */
	__u64 start_ns;		/* for progress */
	const struct ls_config *cfg;
	struct hooks *hooks;	/* --exec, --exec-file */
	bool violated;		/* an SLO rule was broken */
	bool stop_violation;	/* ... and --exit-on-violation says stop */
	struct sink *metrics;	/* --metrics-file, --metrics-listen: owned by the session */
	bool metrics_told;	/* the metrics write error has been reported */
	struct metrics_http *http;	/* --metrics-listen */
	struct flight_writer *flight;	/* --flight-recorder */
	__u32 pid;		/* -p as resolved, for a recording's metadata */
	struct stacks *stacks;	/* STACK records: mappings and frames; NULL with --no-stacks */
	struct cgroups *cgroups;	/* cgroup ids -> paths; without cgroup2, knows none */
	const struct watch_front *front;	/* lockstall top, record; NULL: watch */
	struct sink *front_sink;	/* the front's sink until the session takes it */
};

/* The run a recording says it comes from (record/meta.h). */
static void watch__record_run(const struct watch *w, struct record_run *run)
{
	const struct ls_config *cfg = w->cfg;

	*run = (struct record_run){
		.argc = cfg->argc,
		.argv = cfg->argv,
		.threshold_ns = cfg->threshold_ns,
		.pid = w->pid,
		.top = cfg->top,
		.json = cfg->json,
		.interval_ns = cfg->interval_ns,
		.count = cfg->count,
		.stacks = cfg->stacks,
		.ustack_mode = cfg->ustack_mode,
		.features = loader__features(w->loader),
	};
}

/* The recording is the run's product (lockstall record): no output, and a write error ends it. */
static bool watch__file_only(const struct watch *w)
{
	return w->front && w->front->file_only;
}

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

static int watch__on_violation(void *ctx, const struct slo_violation *v)
{
	struct watch *w = ctx;
	char *env[HOOKS_ENV_MAX], *json = NULL, what[48];
	size_t len = 0, n, i;
	FILE *f;

	w->violated = true;
	if (w->cfg->exit_on_violation)
		w->stop_violation = true;
	if (w->flight)
		flight_writer__trigger(w->flight, v->at_ns, v->rule_index, v->rule->text);
	if (!w->hooks)
		return 0;
	snprintf(what, sizeof(what), "rule %zu", v->rule_index + 1);
	f = open_memstream(&json, &len);
	if (!f) {
		fprintf(stderr, "lockstall: hook not run for %s: %s\n", what, strerror(errno));
		return 0;
	}
	slo_violation__write_json(f, v);
	putc('\n', f);
	if (fclose(f)) {
		fprintf(stderr, "lockstall: hook not run for %s: %s\n", what, strerror(ENOMEM));
		free(json);
		return 0;
	}
	n = hooks__env(v, env);
	hooks__run(w->hooks, json, len, env, what);
	for (i = 0; i < n; i++)
		free(env[i]);
	free(json);
	return 0;
}

/* The hooks' counts, for the summary. */
static void watch__hook_stats(struct watch *w)
{
	struct hooks_stats hs;

	if (!w->hooks)
		return;
	hooks__stats(w->hooks, &hs);
	w->s.hook_runs = hs.runs;
	w->s.hook_failures = hs.failures;
	w->s.hook_timeouts = hs.timeouts;
	w->s.hook_skipped = hs.skipped;
}

/* The hook's argv: --exec's words up to ';', or --exec-file's lines. */
static int watch__hooks(struct watch *w, const struct ls_config *cfg)
{
	struct hooks_opts ho = {
		.max_running = cfg->exec_limit,
		.timeout_ns = cfg->exec_timeout_ns,
	};
	char **argv = NULL, err[SLO_ERR_LEN];
	int i, rc;

	if (cfg->exec_file) {
		rc = hooks_argv__read(cfg->exec_file, &argv, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "lockstall: --exec-file %s\n", err);
			return rc;
		}
	} else {
		argv = calloc((size_t)cfg->exec_argc + 1, sizeof(*argv));
		if (!argv)
			goto nomem;
		for (i = 0; i < cfg->exec_argc; i++) {
			argv[i] = strdup(cfg->exec_argv[i]);
			if (!argv[i])
				goto nomem;
		}
	}
	/* a hook that can never run should fail now, not at the first violation */
	if (strchr(argv[0], '/') && access(argv[0], X_OK)) {
		rc = -errno;
		fprintf(stderr, "lockstall: hook %s: cannot run: %s\n", argv[0], strerror(-rc));
		hooks_argv__free(argv);
		return rc;
	}
	ho.argv = argv;
	w->hooks = hooks__new(&ho);
	hooks_argv__free(argv);
	if (!w->hooks)
		goto nomem_freed;
	return 0;
nomem:
	hooks_argv__free(argv);
nomem_freed:
	fprintf(stderr, "lockstall: cannot set up the hook: %s\n", strerror(ENOMEM));
	return -ENOMEM;
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

/* The metrics sink's counters as of now: events, lost, SLO and hooks. */
static void watch__metrics_counters(struct watch *w)
{
	struct ls_summary sum;

	session__summary(&w->s, &sum);
	if (w->s.slo) {
		struct slo_stats st;

		slo__stats(w->s.slo, &st);
		watch__hook_stats(w);
		sum.slo = true;
		sum.slo_violations = st.violations;
		sum.slo_suppressed = st.suppressed;
		sum.hook_runs = w->s.hook_runs;
		sum.hook_failures = w->s.hook_failures;
		sum.hook_timeouts = w->s.hook_timeouts;
		sum.hook_skipped = w->s.hook_skipped;
	}
	sink_prometheus__set_counters(w->metrics, &sum);
}

/*
 * One scrape of --metrics-listen: the stall counts up to the last record
 * read, the histograms as of the last metrics tick (a complete interval),
 * lockstall's own CPU and memory as of now.
 */
static int watch__render_metrics(void *ctx, FILE *f)
{
	struct watch *w = ctx;

	watch__metrics_counters(w);
	return sink_prometheus__render(w->metrics, f);
}

/* --metrics-file, replaced whole: the counts so far.  0 or a negative errno. */
static int watch__write_metrics(struct watch *w)
{
	int err;

	if (!w->metrics || !w->cfg->metrics_file)
		return 0;
	watch__metrics_counters(w);
	err = sink_prometheus__write_file(w->metrics, w->cfg->metrics_file);
	if (err && !w->metrics_told)
		fprintf(stderr, "lockstall: %s: cannot write metrics: %s\n", w->cfg->metrics_file,
			strerror(-err));
	w->metrics_told = err != 0;
	return err;
}

/* --metrics-listen: bound before tracing starts, so a taken port fails fast. */
static int watch__http_open(struct watch *w)
{
	struct metrics_http_opts ho = {
		.addr = w->cfg->metrics_listen,
		.render = watch__render_metrics,
		.ctx = w,
	};
	int rc = metrics_http__new(&w->http, &ho);

	if (rc) {
		fprintf(stderr, "lockstall: cannot listen on %s for --metrics-listen: %s%s\n",
			w->cfg->metrics_listen, strerror(-rc),
			rc == -EADDRINUSE ? ": choose another port" : "");
		return rc;
	}
	fprintf(stderr, "lockstall: serving metrics at http://%s/metrics\n",
		metrics_http__addr(w->http));
	return 0;
}

/* A forked flight writer serves no scrapes: its copies of the server's sockets closed. */
static void watch__flight_child(void *ctx)
{
	struct watch *w = ctx;

	if (w->http)
		metrics_http__close_fds(w->http);
}

/* The pending window of the flight recorder to its file (flight_writer.h). */
static void watch__flight_write(struct watch *w, bool may_fork)
{
	struct record_run run;

	watch__record_run(w, &run);
	flight_writer__write(w->flight, &run, may_fork);
}

/*
 * --flight-recorder: a directory we can write to, trimmed to --max-files
 * now (a previous run's files count), and every record from here on kept.
 */
static int watch__flight_open(struct watch *w)
{
	const struct ls_config *cfg = w->cfg;
	struct flight_writer_opts fo = {
		.window = { .keep_ns = cfg->flight_keep_ns },
		.dir = cfg->flight_dir,
		.max_files = cfg->flight_max_files,
		.compress_level = cfg->compress_level,
		.verbose = cfg->verbose,
		.stacks = w->stacks,
		.cgroups = w->cgroups,
		.in_child = watch__flight_child,
		.child_ctx = w,
	};
	int rc;

	rc = flight__rotate(cfg->flight_dir, cfg->flight_max_files ? cfg->flight_max_files :
			    FLIGHT_DEFAULT_MAX_FILES, FLIGHT_DIR_MAX_BYTES);
	if (rc >= 0 && access(cfg->flight_dir, W_OK | X_OK))
		rc = -errno;
	if (rc < 0) {
		fprintf(stderr, "lockstall: %s: cannot use as the flight recorder's directory: %s: create it, writable by lockstall\n",
			cfg->flight_dir, strerror(-rc));
		return rc;
	}
	w->flight = flight_writer__new(&fo);
	if (!w->flight) {
		fprintf(stderr, "lockstall: cannot set up the flight recorder: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	w->s.tap = flight__add;
	w->s.tap_ctx = flight_writer__flight(w->flight);
	return 0;
}

/*
 * -p names a process.  One that does not exist yet may start later; a
 * thread id is understood as its process, since stalls are per mm.
 */
static __u32 watch__check_pid(__u32 pid)
{
	char path[64], line[128];
	unsigned int tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			fprintf(stderr, "lockstall: no process %u now: tracing anyway, in case it starts\n",
				pid);
		return pid;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	}
	fclose(f);
	if (tgid && tgid != pid) {
		fprintf(stderr, "lockstall: %u is a thread of process %u: showing process %u\n",
			pid, tgid, tgid);
		return tgid;
	}
	return pid;
}

static __u64 watch__lost(struct watch *w)
{
	struct loader_stats st;
	struct ls_summary sum;

	loader__stats(w->loader, &st);
	session__summary(&w->s, &sum);
	return st.drops > sum.lost_events ? st.drops : sum.lost_events;
}

/* A housekeeping period ends at now: how long this thread waited for a CPU in it. */
static void watch__note_cpu(struct watch *w, __u64 now)
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

/* Silence must never look like "no stalls" when the kernel dropped records. */
static void watch__warn_lost(struct watch *w, bool final)
{
	__u64 lost = watch__lost(w);

	if (final && lost) {
		fprintf(stderr, "lockstall: %llu events lost (ring buffer full): findings in those spans are marked unknown\n",
			(unsigned long long)lost);
	} else if (lost > w->lost_warned) {
		fprintf(stderr, "lockstall: %llu events lost so far (ring buffer full): findings in those spans are marked unknown\n",
			(unsigned long long)lost);
	}
	if (lost)
		watch__tell_starved(w);
	w->lost_warned = lost;
}

/*
 * An error from polling or the engine, as an exit code.  The reader of our
 * output going away (EPIPE: "| head") is how such pipelines end: quiet, 0.
 */
/*
 * A full disk ends the recording, not the watch: what watch prints goes on
 * (the exit status says 1 at the end).  record has nothing else to do and
 * stops.  Either way the file keeps its whole chunks.
 */
static void watch__tell_write_error(struct watch *w, const struct ls_config *cfg)
{
	if (!w->s.write_err || w->write_told)
		return;
	w->write_told = true;
	fprintf(stderr, "lockstall: %s: cannot write: %s: recording stopped%s; the file keeps what came before\n",
		cfg->output, strerror(-w->s.write_err),
		watch__file_only(w) ? "" : ", watching goes on");
}

/* The front end's screen goes before anything is said on stderr. */
static void watch__front_stop(struct watch *w)
{
	if (w->front && w->front->stop)
		w->front->stop(w->front->ctx);
}

static int watch__fail(struct watch *w, const struct ls_config *cfg, int err, const char *what)
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
	int rc = watch__drain(w);

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
	watch__flight_write(w, true);
	return 0;
}

/* Arm WT_FLIGHT at the pending window's end; with a writer busy the loop's own pace reaps it. */
static void watch__flight_arm(struct watch *w)
{
	__u64 to_ns;

	if (w->flight && flight_writer__due(w->flight, &to_ns))
		timer__at(&w->timers, WT_FLIGHT, to_ns);
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
	if (rc < 0)
		return watch__fail(w, w->cfg, rc, w->what);
	/* the last recordings are whole before the summary says we are done */
	if (w->flight) {
		flight_writer__reap(w->flight, true);
		/* stopped within a window's after part: the file gets what there is */
		watch__flight_write(w, false);
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

/*
 * A process's mappings as soon as they were read, into the recording (the
 * stack resolver forgets processes; the recording keeps them all).
 */
static int watch__record_maps(void *ctx, __u32 tgid, const char *maps, size_t maps_len,
			      const char *ids, size_t ids_len)
{
	struct watch *w = ctx;

	if (!w->writer)
		return 0;
	return record_meta__maps_one(w->writer, tgid, maps, maps_len, ids, ids_len) ?:
	       trace_writer__meta_flush(w->writer);
}

/* The line the end-to-end tests (and scripts) wait for: only once attached. */
static void watch__say_tracing(const struct watch *w)
{
	const struct ls_config *cfg = w->cfg;
	static const char *const names[] = {
		"mmap_lock", "mmap_lock and futexes", "mmap_lock and kernel locks",
		"mmap_lock, futexes and kernel locks",
	};
	__u32 feat = loader__features(w->loader);
	const char *locks = names[((feat & LS_FEAT_FUTEX) ? 1 : 0) | ((feat & LS_FEAT_KLOCK) ? 2 : 0)];
	char thr[32], dur[32], until[48];

	if (cfg->duration_ns)
		snprintf(until, sizeof(until), "for %s",
			 ls_format_duration(cfg->duration_ns, dur, sizeof(dur)));
	else
		snprintf(until, sizeof(until), "Ctrl-C to stop");
	if (watch__file_only(w))
		fprintf(stderr, "lockstall: recording %s to %s (threshold %s)... %s\n",
			locks, cfg->output, ls_format_duration(cfg->threshold_ns, thr, sizeof(thr)), until);
	else
		fprintf(stderr, "lockstall: tracing %s (threshold %s)... %s\n", locks,
			ls_format_duration(cfg->threshold_ns, thr, sizeof(thr)), until);
	fflush(stderr);
}

/*
 * Without a cgroup2 mount no path is known: the output says null, and a
 * cgroup= rule is refused with the reason.
 */
static int watch__open_cgroups(struct watch *w)
{
	char why[256];

	if (cgroups__open(&w->cgroups, "/proc/self/mountinfo", why, sizeof(why)) &&
	    !(w->cgroups = cgroups__new())) {
		fprintf(stderr, "lockstall: cannot set up the cgroup resolver: %s\n", strerror(ENOMEM));
		return LS_EXIT_FAILURE;
	}
	/* said once: every cgroup in the output would read null */
	if (cgroups__mount(w->cgroups) && cgroups__can_resolve(w->cgroups, why, sizeof(why)))
		fprintf(stderr, "lockstall: %s: cgroups are shown as null\n", why);
	return 0;
}

/* A rule (or hook) that cannot be used fails before anything is loaded. */
static int watch__open_rules(struct watch *w, struct session_opts *so)
{
	const struct ls_config *cfg = w->cfg;
	struct slo_cgroup_check chk = { cgroups__exists, w->cgroups };
	char err[SLO_ERR_LEN];
	int rc;

	if (!cfg->n_slo && !cfg->rules_file)
		return 0;
	rc = slo_rules__read(&w->rules, cfg->slo, cfg->n_slo, cfg->rules_file, &chk, err,
			     sizeof(err));
	if (rc) {
		fprintf(stderr, "lockstall: %s\n", err);
		return rc == -EINVAL || rc == -E2BIG ? LS_EXIT_USAGE : LS_EXIT_FAILURE;
	}
	so->rules = &w->rules;
	so->on_violation = watch__on_violation;
	so->violation_ctx = w;
	if ((cfg->exec_argv || cfg->exec_file) && watch__hooks(w, cfg))
		return LS_EXIT_FAILURE;
	return 0;
}

/* The sinks beside the output: metrics, the stack resolver, --folded. */
static int watch__open_sinks(struct watch *w, struct session_opts *so, FILE *out)
{
	const struct ls_config *cfg = w->cfg;
	struct sink_opts po = { .filter_pid = so->pid };
	struct stacks_opts sko = {
		.live = true,
		.symbol_memory = cfg->symbol_memory,
		.on_maps = watch__record_maps,
		.on_maps_ctx = w,
	};

	if (cfg->metrics_file || cfg->metrics_listen) {
		so->metrics = sink_prometheus__new(&po);
		if (!so->metrics)
			goto nomem;
	}
	if (cfg->stacks) {
		w->stacks = stacks__new(&sko);
		if (!w->stacks) {
			fprintf(stderr, "lockstall: cannot set up the stack resolver: %s\n",
				strerror(errno));
			return LS_EXIT_FAILURE;
		}
		so->stacks = w->stacks;
		/* said once: every kernel frame in the output would be unnamed */
		if (stacks__kernel_probe(w->stacks) == -EPERM)
			fprintf(stderr, "lockstall: /proc/kallsyms hides its addresses (kptr_restrict, or no CAP_SYSLOG): kernel frames are not named\n");
	}
	/* a front end has an output of its own */
	if (cfg->report_format == LS_FORMAT_FOLDED && !w->front) {
		so->format = SESSION_CUSTOM;
		so->custom = sink_folded__new(out, &po);
		if (!so->custom)
			goto nomem;
	}
	return 0;
nomem:
	fprintf(stderr, "lockstall: cannot set up the %s: %s\n",
		so->metrics ? "engine" : "metrics", strerror(ENOMEM));
	return LS_EXIT_FAILURE;
}

/*
 * Everything before the kernel is touched: the session and its sinks, and
 * every output that can fail (a path, an address, a directory, a file)
 * fails here, fast.
 */
static int watch__open(struct watch *w, struct session_opts *so, FILE *out)
{
	const struct ls_config *cfg = w->cfg;
	int rc;

	rc = watch__open_cgroups(w);
	if (rc)
		return rc;
	so->cgroups = w->cgroups;
	rc = watch__open_rules(w, so);
	if (rc)
		return rc;
	if (cfg->pid)
		so->pid = watch__check_pid(cfg->pid);
	w->pid = so->pid;
	rc = watch__open_sinks(w, so, out);
	if (rc)
		return rc;
	if (w->front) {
		so->format = w->front_sink ? SESSION_CUSTOM : SESSION_NONE;
		so->custom = w->front_sink;
		w->front_sink = NULL;
	}
	if (session__init(&w->s, so, out)) {
		fprintf(stderr, "lockstall: cannot set up the engine: %s\n", strerror(ENOMEM));
		return LS_EXIT_FAILURE;
	}
	w->metrics = w->s.metrics;
	if (w->metrics && watch__write_metrics(w))
		return LS_EXIT_FAILURE;
	if (cfg->metrics_listen && watch__http_open(w))
		return LS_EXIT_FAILURE;
	if (cfg->flight_dir && watch__flight_open(w))
		return LS_EXIT_FAILURE;
	if (cfg->output) {
		if (trace_writer__create(&w->writer, cfg->output, cfg->force, stderr) < 0)
			return LS_EXIT_FAILURE;
		/* the level was checked by cli.c, and nothing is written yet */
		trace_writer__compress(w->writer, cfg->compress_level);
		w->s.writer = w->writer;
		w->s.stop_on_write_error = watch__file_only(w);
	}
	return 0;
}

/* Load and attach, start the recording, the BEGIN mark, and say so. */
static int watch__attach(struct watch *w, const struct loader_opts *lo)
{
	const struct ls_config *cfg = w->cfg;
	int rc;

	/* loader__open says what failed and what to do */
	rc = loader__open(&w->loader, lo);
	if (rc < 0) {
		if (w->writer) {
			/* nothing was recorded: leave no file that looks like a recording */
			trace_writer__close(w->writer);
			w->writer = NULL;
			unlink(cfg->output);
		}
		return LS_EXIT_FAILURE;
	}
	if (w->writer) {
		struct record_run run;

		watch__record_run(w, &run);
		rc = record_meta__start(w->writer, &run);
		if (rc < 0) {
			/* nothing traced yet: a recording that cannot start is no use */
			fprintf(stderr, "lockstall: %s: cannot write: %s\n", cfg->output, strerror(-rc));
			return LS_EXIT_FAILURE;
		}
	}
	rc = loader__emit_mark(w->loader, LS_MARK_BEGIN, session__feed, &w->s);
	if (rc < 0) {
		/* nothing was traced yet: even a closed pipe is a failure to start */
		watch__fail(w, cfg, rc, "starting the trace");
		return LS_EXIT_FAILURE;
	}
	/* said on stderr when it fails: tracing goes on without those waits */
	loader__prior_waits(w->loader);
	w->start_ns = ls_now_ns();
	reader_cpu__start(&w->cpu, w->start_ns);
	watch__say_tracing(w);
	return 0;
}

/* What the loader counted that the output does not show. */
static void watch__loader_notes(struct watch *w)
{
	struct loader_stats st;

	loader__stats(w->loader, &st);
	/* histograms that quietly miss entries would understate the waits */
	if (st.hist_misses)
		fprintf(stderr, "lockstall: %llu waits and holds missing from the histograms (histogram map full)\n",
			(unsigned long long)st.hist_misses);
	/* counted among the lost events too, so their findings read unknown */
	if (st.task_state_full)
		fprintf(stderr, "lockstall: %llu lock requests or faults not followed: the task state map was full (--task-state=hash follows at most %u tasks at once); stalls around them read unknown\n",
			(unsigned long long)st.task_state_full, LS_TASK_STATE_MAX);
	if (st.prog_misses)
		fprintf(stderr, "lockstall: %llu events missed: a program of ours was still running on that CPU when they came (preempted, as PREEMPT_RT allows); counted among the lost events\n",
			(unsigned long long)st.prog_misses);
	if (st.owner_marks_full)
		fprintf(stderr, "lockstall: %llu lock waits whose owner was not followed: too many owners waited on at once\n",
			(unsigned long long)st.owner_marks_full);
	if (!w->cfg->verbose)
		return;
	fprintf(stderr, "lockstall: %llu records, %llu bytes from the ring buffer, %llu dropped\n",
		(unsigned long long)st.records, (unsigned long long)st.bytes,
		(unsigned long long)st.drops);
	if (st.stack_records || st.kstack_saves)
		fprintf(stderr, "lockstall: stacks: %llu records, %llu ns each to make; %llu kernel stacks of holders off CPU saved, %llu ns each\n",
			(unsigned long long)st.stack_records,
			(unsigned long long)(st.stack_records ? st.stack_ns / st.stack_records : 0),
			(unsigned long long)st.kstack_saves,
			(unsigned long long)(st.kstack_saves ? st.kstack_save_ns / st.kstack_saves : 0));
}

/* After the loop, whatever stopped it: the last metrics, the exit code, the notes. */
static int watch__conclude(struct watch *w, int ret)
{
	const struct ls_config *cfg = w->cfg;

	if (watch__write_metrics(w) && ret == LS_EXIT_OK)
		ret = LS_EXIT_FAILURE;
	if (ret == LS_EXIT_OK && w->violated && cfg->exit_on_violation)
		ret = LS_EXIT_VIOLATION;
	watch__tell_write_error(w, cfg);
	if (w->s.write_err)
		ret = LS_EXIT_FAILURE;
	/* after EPIPE nobody reads on; a closing message would only be noise */
	if (w->s.feed_err == -EPIPE)
		return ret;
	watch__note_cpu(w, ls_now_ns());
	watch__warn_lost(w, true);
	watch__loader_notes(w);
	return ret;
}

/*
 * The recording's END (the names are read after tracing stopped: see
 * record/meta.c), and the front end's closing line once it is whole.
 */
static int watch__close_recording(struct watch *w)
{
	struct trace_writer_stats st;
	struct ls_summary sum;
	int rc;

	/* mappings the worker read after the last stall, before they are lost */
	if (w->stacks)
		stacks__drain(w->stacks, STACKS_MAPS_WAIT_NS);
	record_meta__cgroups(w->writer, w->cgroups);
	rc = record_meta__close(w->writer, w->cfg->output, w->cfg->no_cmdline, &st);
	w->writer = NULL;
	if (rc < 0 || !w->front || !w->front->recorded)
		return rc;
	/* the loader is gone by now: no drops to count */
	session__summary(&w->s, &sum);
	w->front->recorded(w->front->ctx, &(struct watch_progress){
		.elapsed_ns = ls_now_ns() - w->start_ns,
		.stalls = sum.stalls,
		.recorded = st.records,
		.recorded_bytes = st.bytes,
	});
	return 0;
}

/* Files the symbolizer left unread, once at the end: why some names are missing. */
static void watch__say_unnamed(const struct stacks *sk)
{
	const struct sym_budget *b = sk ? stacks__budget(sk) : NULL;

	if (b && (b->too_big || b->over_rate || b->churning || b->changed))
		fprintf(stderr, "lockstall: names left out: %llu files over --symbol-memory, %llu reads deferred by its rate, %llu asks of files changing between asks, %llu files changed while read\n",
			(unsigned long long)b->too_big, (unsigned long long)b->over_rate,
			(unsigned long long)b->churning, (unsigned long long)b->changed);
}

static int watch__teardown(struct watch *w, int ret)
{
	watch__front_stop(w);
	sink__free(w->front_sink);
	if (w->loader)
		loader__free(w->loader);
	if (w->writer && watch__close_recording(w) < 0 && ret == LS_EXIT_OK)
		ret = LS_EXIT_FAILURE;
	session__destroy(&w->s);
	watch__say_unnamed(w->stacks);
	stacks__free(w->stacks);
	cgroups__free(w->cgroups);
	slo_rules__free(&w->rules);
	hooks__free(w->hooks);
	metrics_http__free(w->http);
	/* an error ended the loop: a recording being written still ends whole */
	flight_writer__free(w->flight);
	return ret;}

int cmd_watch(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	      volatile sig_atomic_t *reload, FILE *out)
{
	return watch__run(cfg, stop, reload, out, NULL);
}

/*
 * The loop's SCHED_FIFO priority, so that busy real-time work does not
 * starve the ring's reader.  Asked for: the threads and hooks started
 * later inherit it, and not getting it ends the run.  The default is this
 * thread's only, taken once the programs are loaded (on a PREEMPT_RT
 * kernel a verifier run at SCHED_FIFO starves RCU's kthreads), and without
 * it (no CAP_SYS_NICE) the run goes on, said.
 */
static int watch__set_fifo(struct watch *w)
{
	const struct ls_config *cfg = w->cfg;
	int ret;

	if (!cfg->rt_priority)
		return 0;
	ret = reader_cpu__set_fifo(cfg->rt_priority, !cfg->rt_priority_set);
	if (!ret) {
		w->fifo = cfg->rt_priority;
		return 0;
	}
	if (cfg->rt_priority_set) {
		fprintf(stderr, "lockstall: cannot run at SCHED_FIFO %u (--rt-priority): %s\n",
			cfg->rt_priority, strerror(-ret));
		return ret;
	}
	fprintf(stderr, "lockstall: runs at its normal priority, not SCHED_FIFO %u (the default --rt-priority): %s: busy real-time tasks may starve it\n",
		cfg->rt_priority, strerror(-ret));
	return 0;
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
		.locks = cfg->locks,
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
