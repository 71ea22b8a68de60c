// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall watch: trace live, print stalls as they are found, histograms
 * every interval if asked, and a summary at the end.  With -o it also
 * records; lockstall record is this same loop with no output but progress.
 *
 *	session (sink, engine) [-> trace file] -> loader__open (attach)
 *	-> BEGIN mark -> "tracing" line -> poll loop (intervals) -> drain
 *	-> END histograms -> engine__finish [-> process names, close file]
 *
 * Every record goes through session__feed(): to the file first, then to
 * the engine, exactly as lockstall report feeds them back.  Everything
 * printed is computed from record timestamps; the clock only drives this
 * loop's own deadlines.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "resolve/cgroup.h"
#include "commands.h"
#include "engine/engine.h"
#include "record/flight.h"
#include "alert/hooks.h"
#include "loader.h"
#include "alert/metrics_http.h"
#include "session.h"
#include "sinks/prometheus.h"
#include "sinks/sink.h"
#include "resolve/stacks.h"
#include "record/trace_file.h"
#include "util.h"

#define POLL_MS			100
/*
 * How often the loop looks for new drops to warn about, writes the records
 * it has to the file (a kill -9 loses at most this much) and, for record,
 * prints progress.
 */
#define TICK_NS			NSEC_PER_SEC

struct watch {
	struct session s;	/* feed with session__feed(&w->s) */
	struct loader *loader;
	struct trace_writer *writer;	/* -o, record */
	__u64 lost_warned;	/* drops already reported on stderr */
	bool write_told;	/* the write error has been reported */
	__u64 start_ns;		/* for progress */
	const struct ls_config *cfg;
	struct hooks *hooks;	/* --exec, --exec-file */
	bool violated;		/* an SLO rule was broken */
	bool stop_violation;	/* ... and --exit-on-violation says stop */
	struct sink *metrics;	/* --metrics-file, --metrics-listen: owned by the session */
	bool metrics_told;	/* the metrics write error has been reported */
	struct metrics_http *http;	/* --metrics-listen */
	struct flight *flight;	/* --flight-recorder */
	char *flight_rule;	/* the text of the rule that began the pending window */
	pid_t flight_child;	/* writing a recording; 0: none */
	__u32 pid;		/* -p as resolved, for a recording's metadata */
	struct stacks *stacks;	/* STACK records: mappings and frames; NULL with --no-stacks */
	struct cgroups *cgroups;	/* cgroup ids -> paths; without cgroup2, knows none */
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

static void env__add(char **env, size_t *n, const char *name, unsigned long long v)
{
	if (asprintf(&env[*n], "%s=%llu", name, v) >= 0)
		(*n)++;
}

/*
 * A hook's environment: numbers, names of our own vocabulary and the rule
 * the operator wrote; nothing a traced process could choose (its comm is
 * in the JSON on stdin only).
 */
static size_t violation__env(const struct slo_violation *v, char **env)
{
	const struct ls_stall *st = v->n_stalls ? v->stalls[0] : NULL;
	size_t n = 0, i;

	if (asprintf(&env[n], "LOCKSTALL_RULE=%s", v->rule->text) >= 0)
		n++;
	env__add(env, &n, "LOCKSTALL_RULE_INDEX", v->rule_index + 1);
	if (asprintf(&env[n], "LOCKSTALL_KIND=%s", v->rule->kind == SLO_WAIT ? "wait" : "stalled") >= 0)
		n++;
	env__add(env, &n, "LOCKSTALL_VALUE_NS", v->value_ns);
	env__add(env, &n, "LOCKSTALL_LIMIT_NS", v->rule->limit_ns);
	if (v->rule->kind == SLO_STALLED)
		env__add(env, &n, "LOCKSTALL_WINDOW_NS", v->rule->window_ns);
	env__add(env, &n, "LOCKSTALL_SUPPRESSED", v->suppressed);
	if (st) {
		if (asprintf(&env[n], "LOCKSTALL_VERDICT=%s", ls_verdict_name(st->verdict)) >= 0)
			n++;
		env__add(env, &n, "LOCKSTALL_WAIT_NS", st->lock_wait_ns);
		env__add(env, &n, "LOCKSTALL_WAITER_PID", st->waiter.tgid);
		env__add(env, &n, "LOCKSTALL_WAITER_TID", st->waiter.tid);
		/* the id only: names in a delegated subtree are the traced side's choice */
		env__add(env, &n, "LOCKSTALL_WAITER_CGROUP_ID", st->waiter_cgroup_id);
		env__add(env, &n, "LOCKSTALL_MM_PID", st->mm.tgid);
		for (i = 0; i < st->n_chain && i < LS_MAX_HOPS; i++) {
			if (st->chain[i].role != LS_ROLE_HOLDER)
				continue;
			env__add(env, &n, "LOCKSTALL_HOLDER_PID", st->chain[i].task.tgid);
			env__add(env, &n, "LOCKSTALL_HOLDER_TID", st->chain[i].task.tid);
			break;
		}
	}
	env[n] = NULL;
	return n;
}

#define VIOLATION_ENV_MAX 20

static int watch__on_violation(void *ctx, const struct slo_violation *v)
{
	struct watch *w = ctx;
	char *env[VIOLATION_ENV_MAX], *json = NULL, what[48];
	size_t len = 0, n, i;
	FILE *f;

	w->violated = true;
	if (w->cfg->exit_on_violation)
		w->stop_violation = true;
	/* the rule's text is kept: a SIGHUP may free the rule before the file is written */
	if (w->flight && !flight__trigger(w->flight, v->at_ns, v->rule_index)) {
		free(w->flight_rule);
		w->flight_rule = strdup(v->rule->text);
	}
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
	n = violation__env(v, env);
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

	engine__summary(w->s.engine, &sum);
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

/*
 * --flight-recorder: a directory we can write to, trimmed to --max-files
 * now (a previous run's files count), and every record from here on kept.
 */
static int watch__flight_open(struct watch *w)
{
	const struct ls_config *cfg = w->cfg;
	struct flight_opts fo = { .keep_ns = cfg->flight_keep_ns };
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
	w->flight = flight__new(&fo);
	if (!w->flight) {
		fprintf(stderr, "lockstall: cannot set up the flight recorder: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	w->s.tap = flight__add;
	w->s.tap_ctx = w->flight;
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
	engine__summary(w->s.engine, &sum);
	return st.drops > sum.lost_events ? st.drops : sum.lost_events;
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
	w->lost_warned = lost;
}

static int ms_until(__u64 now, __u64 when)
{
	__u64 ms;

	if (when <= now)
		return 0;
	ms = (when - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
	return ms > POLL_MS ? POLL_MS : (int)ms;
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
		cfg->cmd == LS_CMD_RECORD ? "" : ", watching goes on");
}

static int watch__fail(struct watch *w, const struct ls_config *cfg, int err, const char *what)
{
	if (w->s.write_err && cfg->cmd == LS_CMD_RECORD) {
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

static int flight__to_writer(void *ctx, const void *rec, size_t len)
{
	return trace_writer__record(ctx, rec, len);
}

/* The flight recording's own metadata, after what record__start() writes. */
static int watch__flight_meta(struct watch *w, struct trace_writer *tw,
			      const struct flight_window *win, __s64 real_minus_mono)
{
	int err = 0;

	/* the recording starts with its window, not with the watch */
	err = err ?: trace_writer__meta_u64(tw, "start.realtime_ns",
					    (__u64)((__s64)win->from_ns + real_minus_mono));
	err = err ?: trace_writer__meta_str(tw, "flight.rule", w->flight_rule ? w->flight_rule : "");
	err = err ?: trace_writer__meta_u64(tw, "flight.rule_index", win->rule_index + 1);
	err = err ?: trace_writer__meta_u64(tw, "flight.at_ns", win->at_ns);
	err = err ?: trace_writer__meta_u64(tw, "flight.from_ns", win->from_ns);
	err = err ?: trace_writer__meta_u64(tw, "flight.to_ns", win->to_ns);
	err = err ?: trace_writer__meta_u64(tw, "flight.violations", win->violations);
	err = err ?: trace_writer__meta_u64(tw, "flight.truncated", win->truncated);
	err = err ?: trace_writer__meta_flush(tw);
	return err;
}

/*
 * The pending window of the flight recorder, to a new file in its
 * directory, then the oldest files rotated out; what was written (and how
 * long it took) or what failed is said on stderr, in one write.  Returns 0
 * or a negative errno; either way no window is pending any more.
 */
static int watch__flight_file(struct watch *w)
{
	const struct ls_config *cfg = w->cfg;
	struct ls_config fcfg = *cfg;
	struct trace_writer *tw = NULL;
	struct trace_writer_stats st;
	struct flight_window win;
	__u64 t0 = ls_now_ns(), real = ls_realtime_ns();
	__s64 real_minus_mono = (__s64)(real - t0);
	char path[PATH_MAX], took[32], merged[64] = "", removed[64] = "";
	int rc, n;

	if (!flight__pending(w->flight, &win))
		return 0;
	rc = flight__create(cfg->flight_dir, (__u64)((__s64)win.at_ns + real_minus_mono),
			    win.rule_index, &tw, path, sizeof(path));
	if (rc) {
		fprintf(stderr, "lockstall: %s: cannot create a flight recording: %s: check the directory exists and is writable\n",
			cfg->flight_dir, strerror(-rc));
		flight__write(w->flight, NULL, NULL, NULL);
		return rc;
	}
	rc = record__start(tw, cfg, w->pid, loader__features(w->loader));
	rc = rc ?: watch__flight_meta(w, tw, &win, real_minus_mono);
	rc = rc ?: flight__write(w->flight, flight__to_writer, tw, &win);
	if (rc)
		flight__write(w->flight, NULL, NULL, NULL);
	trace_writer__stats(tw, &st);
	/*
	 * Names only: reading /proc/PID/cmdline takes the traced process's
	 * mmap_lock, which must not happen while tracing (see names__one())
	 */
	fcfg.cmd = LS_CMD_WATCH;
	fcfg.output = path;
	fcfg.no_cmdline = true;
	record__maps(tw, w->stacks);
	record__cgroups(tw, w->cgroups);
	if (record__finish(tw, &fcfg, NULL, 0) || rc) {
		if (rc)
			fprintf(stderr, "lockstall: %s: cannot write: %s\n", path, strerror(-rc));
		return rc ? rc : -EIO;
	}
	n = flight__rotate(cfg->flight_dir, cfg->flight_max_files ? cfg->flight_max_files :
			   FLIGHT_DEFAULT_MAX_FILES, FLIGHT_DIR_MAX_BYTES);
	if (win.violations > 1)
		snprintf(merged, sizeof(merged), "; %llu more violations merged into it",
			 (unsigned long long)win.violations - 1);
	if (n > 0)
		snprintf(removed, sizeof(removed), "; %d old recordings removed", n);
	/* one line, one write: a child's line never mixes with the parent's */
	fprintf(stderr, "lockstall: flight recorder: rule %zu: %s: %llu events%s, written in %s%s%s\n",
		win.rule_index + 1, path, (unsigned long long)st.records,
		win.truncated ? " (the oldest left memory early: the window starts late)" : "",
		ls_format_duration(ls_now_ns() - t0, took, sizeof(took)), merged, removed);
	return 0;
}

/*
 * A window closed: a child process writes it, from its copy of our memory
 * (fork() shares the pages until either side writes), while this one
 * traces on.  Written in the loop, a 30 MiB window took 0.45s (up to 1.6s)
 * under the soak's I/O load, tracing stopped all that time; fork() takes a
 * few milliseconds.  One child at a time: a window that closes while one
 * writes waits, pending, for it to end.  No child (fork failed), or at the
 * end of the run: written here.
 */
static void watch__flight_write(struct watch *w, bool may_fork)
{
	__u64 t0 = ls_now_ns();
	char took[32];
	pid_t pid;

	if (!flight__pending(w->flight, NULL))
		return;
	pid = may_fork ? fork() : -1;
	if (pid == 0) {
		/* the child: its own copy of everything; nothing of the parent's to flush */
		if (w->http)
			metrics_http__close_fds(w->http);
		_exit(watch__flight_file(w) ? 1 : 0);
	}
	if (pid < 0) {
		watch__flight_file(w);
		return;
	}
	w->flight_child = pid;
	/* the child has the window */
	flight__write(w->flight, NULL, NULL, NULL);
	if (w->cfg->verbose)
		fprintf(stderr, "lockstall: flight recorder: writer %d forked in %s\n", (int)pid,
			ls_format_duration(ls_now_ns() - t0, took, sizeof(took)));
}

/* The writer child, if it has ended (or, with wait, once it has). */
static void watch__flight_reap(struct watch *w, bool wait)
{
	pid_t r;

	if (!w->flight_child)
		return;
	do
		r = waitpid(w->flight_child, NULL, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != 0)
		w->flight_child = 0;
}

/*
 * Wait up to timeout_ms for records or a scrape, then take both.  Without
 * --metrics-listen this is loader__poll() itself.  With it, the ring
 * buffer's epoll fd and the server's are polled together: a scrape is
 * answered at once, not at the next timeout.
 */
static int watch__wait(struct watch *w, int timeout_ms)
{
	struct pollfd fds[2];
	int rc;

	if (!w->http)
		return loader__poll(w->loader, timeout_ms, session__feed, &w->s);
	fds[0] = (struct pollfd){ .fd = loader__epoll_fd(w->loader), .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = metrics_http__fd(w->http), .events = POLLIN };
	/* EINTR (a signal): the loop looks at its flags */
	poll(fds, 2, timeout_ms);
	/* the records first: a scrape counts every stall that has ended by now */
	rc = loader__poll(w->loader, 0, session__feed, &w->s);
	metrics_http__service(w->http, ls_now_ns());
	return rc;
}

static int watch__loop(struct watch *w, const struct ls_config *cfg, volatile sig_atomic_t *stop,
		       volatile sig_atomic_t *reload)
{
	__u64 now = ls_now_ns();
	__u64 deadline = cfg->duration_ns ? now + cfg->duration_ns : 0;
	__u64 next_interval = cfg->interval_ns ? now + cfg->interval_ns : 0;
	__u64 next_tick = now + TICK_NS;
	__u64 metrics_ns = cfg->metrics_interval_ns ? cfg->metrics_interval_ns :
			   LS_DEFAULT_METRICS_INTERVAL_NS;
	__u64 next_metrics = w->metrics ? now + metrics_ns : 0;
	__u64 intervals = 0;
	struct flight_window win;
	int timeout, rc;

	while (!*stop && !w->stop_violation) {
		now = ls_now_ns();
		watch__flight_reap(w, false);
		if (w->flight && !w->flight_child && flight__pending(w->flight, &win) &&
		    now >= win.to_ns) {
			/* what the ring buffer holds is part of the window */
			rc = loader__poll(w->loader, 0, session__feed, &w->s);
			if (rc < 0)
				return watch__fail(w, cfg, rc, "reading the ring buffer");
			watch__flight_write(w, true);
			continue;
		}
		if (reload && *reload) {
			*reload = 0;
			if (cfg->cmd == LS_CMD_WATCH)
				watch__reload(w);
		}
		if (w->hooks)
			hooks__poll(w->hooks, now);
		/* an interval due with the deadline ("-d 3 1") still prints */
		if (next_interval && now >= next_interval) {
			/* stalls found so far print before the interval's histograms */
			rc = loader__poll(w->loader, 0, session__feed, &w->s);
			if (rc < 0)
				return watch__fail(w, cfg, rc, "reading the ring buffer");
			rc = loader__emit_histograms(w->loader, LS_MARK_INTERVAL, session__feed, &w->s);
			if (rc < 0)
				return watch__fail(w, cfg, rc, "reading the histograms");
			if (cfg->count && ++intervals >= cfg->count)
				break;
			/* keep the beat; after a long stall of our own, skip missed ticks */
			while (next_interval <= now)
				next_interval += cfg->interval_ns;
			continue;
		}
		if (deadline && now >= deadline)
			break;
		if (next_metrics && now >= next_metrics) {
			/* "interval" arguments bring the histograms; else fetch them */
			if (!cfg->interval_ns) {
				rc = loader__poll(w->loader, 0, session__feed, &w->s);
				if (rc < 0)
					return watch__fail(w, cfg, rc, "reading the ring buffer");
				rc = loader__emit_histograms(w->loader, LS_MARK_INTERVAL,
							     watch__feed_metrics, &w->s);
				if (rc < 0)
					return watch__fail(w, cfg, rc, "reading the histograms");
			}
			/* a failed write is told once; the next tick tries again */
			watch__write_metrics(w);
			while (next_metrics <= now)
				next_metrics += metrics_ns;
			continue;
		}
		if (now >= next_tick) {
			if (cfg->cmd == LS_CMD_RECORD)
				record__progress(w->writer, w->loader, w->s.engine, now - w->start_ns);
			else
				watch__warn_lost(w, false);
			/* a kill -9 loses at most this tick's records */
			if (w->s.writer && (rc = trace_writer__flush(w->s.writer)) < 0) {
				w->s.write_err = rc;
				w->s.writer = NULL;
				if (cfg->cmd == LS_CMD_RECORD)
					return watch__fail(w, cfg, rc, NULL);
			}
			watch__tell_write_error(w, cfg);
			next_tick = now + TICK_NS;
		}
		timeout = POLL_MS;
		if (deadline)
			timeout = ms_until(now, deadline);
		if (next_interval && ms_until(now, next_interval) < timeout)
			timeout = ms_until(now, next_interval);
		if (next_metrics && ms_until(now, next_metrics) < timeout)
			timeout = ms_until(now, next_metrics);
		/* with a writer busy, the window waits: the loop's own pace reaps it */
		if (w->flight && !w->flight_child && flight__pending(w->flight, &win) &&
		    ms_until(now, win.to_ns) < timeout)
			timeout = ms_until(now, win.to_ns);
		rc = watch__wait(w, timeout);
		if (rc < 0)
			return watch__fail(w, cfg, rc, "reading the ring buffer");
	}

	/* what is still in the ring buffer happened before the stop */
	rc = loader__poll(w->loader, 0, session__feed, &w->s);
	if (rc < 0)
		return watch__fail(w, cfg, rc, "reading the ring buffer");
	rc = loader__emit_histograms(w->loader, LS_MARK_END, session__feed, &w->s);
	if (rc < 0)
		return watch__fail(w, cfg, rc, "reading the histograms");
	/* the last recordings are whole before the summary says we are done */
	if (w->flight) {
		watch__flight_reap(w, true);
		/* stopped within a window's after part: the file gets what there is */
		watch__flight_write(w, false);
	}
	/* what the hooks did belongs in the summary: let them end (or time out) */
	if (w->hooks)
		hooks__drain(w->hooks);
	watch__hook_stats(w);
	rc = session__finish(&w->s);
	if (rc < 0)
		return watch__fail(w, cfg, rc, NULL);
	return LS_EXIT_OK;
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
	return record__maps_one(w->writer, tgid, maps, maps_len, ids, ids_len) ?:
	       trace_writer__meta_flush(w->writer);
}

/* The line the end-to-end tests (and scripts) wait for: only once attached. */
static void watch__say_tracing(const struct ls_config *cfg)
{
	char thr[32], dur[32], until[48];

	if (cfg->duration_ns)
		snprintf(until, sizeof(until), "for %s",
			 ls_format_duration(cfg->duration_ns, dur, sizeof(dur)));
	else
		snprintf(until, sizeof(until), "Ctrl-C to stop");
	if (cfg->cmd == LS_CMD_RECORD)
		fprintf(stderr, "lockstall: recording mmap_lock to %s (threshold %s)... %s\n",
			cfg->output, ls_format_duration(cfg->threshold_ns, thr, sizeof(thr)), until);
	else
		fprintf(stderr, "lockstall: tracing mmap_lock (threshold %s)... %s\n",
			ls_format_duration(cfg->threshold_ns, thr, sizeof(thr)), until);
	fflush(stderr);
}

int cmd_watch(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	      volatile sig_atomic_t *reload, FILE *out)
{
	struct session_opts so = {
		.format = cfg->cmd == LS_CMD_RECORD ? SESSION_NONE :
			  cfg->json ? SESSION_JSON : SESSION_TEXT,
		.top = cfg->top,
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
	};
	struct watch w = { .cfg = cfg };
	struct slo_rules rules = { 0 };
	int ret = LS_EXIT_FAILURE, rc;

	/*
	 * Without a cgroup2 mount no path is known: the output says null, and
	 * a cgroup= rule is refused below with the reason.
	 */
	{
		char why[256];

		if (cgroups__open(&w.cgroups, "/proc/self/mountinfo", why, sizeof(why)) &&
		    !(w.cgroups = cgroups__new())) {
			fprintf(stderr, "lockstall: cannot set up the cgroup resolver: %s\n",
				strerror(ENOMEM));
			return LS_EXIT_FAILURE;
		}
		so.cgroups = w.cgroups;
	}
	/* a rule that cannot be used fails before anything is loaded */
	if (cfg->n_slo || cfg->rules_file) {
		struct slo_cgroup_check chk = { cgroups__exists, w.cgroups };
		char err[SLO_ERR_LEN];

		rc = slo_rules__read(&rules, cfg->slo, cfg->n_slo, cfg->rules_file, &chk, err,
				     sizeof(err));
		if (rc) {
			fprintf(stderr, "lockstall: %s\n", err);
			cgroups__free(w.cgroups);
			return rc == -EINVAL || rc == -E2BIG ? LS_EXIT_USAGE : LS_EXIT_FAILURE;
		}
		so.rules = &rules;
		so.on_violation = watch__on_violation;
		so.violation_ctx = &w;
		if ((cfg->exec_argv || cfg->exec_file) && watch__hooks(&w, cfg)) {
			slo_rules__free(&rules);
			cgroups__free(w.cgroups);
			return LS_EXIT_FAILURE;
		}
	}
	if (cfg->pid)
		so.pid = watch__check_pid(cfg->pid);

	w.pid = so.pid;
	if (cfg->metrics_file || cfg->metrics_listen) {
		struct sink_opts mo = { .filter_pid = so.pid };

		so.metrics = sink_prometheus__new(&mo);
		if (!so.metrics) {
			fprintf(stderr, "lockstall: cannot set up the metrics: %s\n", strerror(ENOMEM));
			goto cleanup;
		}
	}
	if (cfg->stacks) {
		struct stacks_opts sko = {
			.live = true,
			.on_maps = watch__record_maps,
			.on_maps_ctx = &w,
		};

		w.stacks = stacks__new(&sko);
		if (!w.stacks) {
			fprintf(stderr, "lockstall: cannot set up the stack resolver: %s\n", strerror(errno));
			goto cleanup;
		}
		so.stacks = w.stacks;
	}
	if (cfg->report_format == LS_FORMAT_FOLDED && cfg->cmd == LS_CMD_WATCH) {
		struct sink_opts fo = { .filter_pid = so.pid };

		so.format = SESSION_CUSTOM;
		so.custom = sink_folded__new(out, &fo);
		if (!so.custom) {
			fprintf(stderr, "lockstall: cannot set up the engine: %s\n", strerror(ENOMEM));
			goto cleanup;
		}
	}
	if (session__init(&w.s, &so, out)) {
		fprintf(stderr, "lockstall: cannot set up the engine: %s\n", strerror(ENOMEM));
		goto cleanup;
	}
	w.metrics = w.s.metrics;
	/* before loading anything: a path that cannot be written fails fast */
	if (w.metrics && watch__write_metrics(&w))
		goto cleanup;
	/* ... and so does an address in use or a directory that cannot be written */
	if (cfg->metrics_listen && watch__http_open(&w))
		goto cleanup;
	if (cfg->flight_dir && watch__flight_open(&w))
		goto cleanup;
	/* before loading anything: a name that cannot be used fails fast */
	if (cfg->output) {
		rc = record__create(&w.writer, cfg);
		if (rc < 0)
			goto cleanup;
		w.s.writer = w.writer;
		w.s.stop_on_write_error = cfg->cmd == LS_CMD_RECORD;
	}
	/* loader__open says what failed and what to do */
	rc = loader__open(&w.loader, &lo);
	if (rc < 0) {
		if (w.writer) {
			/* nothing was recorded: leave no file that looks like a recording */
			trace_writer__close(w.writer);
			w.writer = NULL;
			unlink(cfg->output);
		}
		goto cleanup;
	}
	if (w.writer) {
		rc = record__start(w.writer, cfg, so.pid, loader__features(w.loader));
		if (rc < 0) {
			/* nothing traced yet: a recording that cannot start is no use */
			fprintf(stderr, "lockstall: %s: cannot write: %s\n", cfg->output, strerror(-rc));
			goto cleanup;
		}
	}

	rc = loader__emit_mark(w.loader, LS_MARK_BEGIN, session__feed, &w.s);
	if (rc < 0) {
		ret = watch__fail(&w, cfg, rc, "starting the trace");
		goto cleanup;
	}
	w.start_ns = ls_now_ns();
	watch__say_tracing(cfg);

	ret = watch__loop(&w, cfg, stop, reload);
	/* at exit, whatever stopped the loop: the run's last counts */
	if (watch__write_metrics(&w) && ret == LS_EXIT_OK)
		ret = LS_EXIT_FAILURE;
	if (ret == LS_EXIT_OK && w.violated && cfg->exit_on_violation)
		ret = LS_EXIT_VIOLATION;
	watch__tell_write_error(&w, cfg);
	if (w.s.write_err)
		ret = LS_EXIT_FAILURE;
	/* after EPIPE nobody reads on; a closing message would only be noise */
	if (w.s.feed_err == -EPIPE)
		goto cleanup;
	watch__warn_lost(&w, true);
	{
		struct loader_stats st;

		loader__stats(w.loader, &st);
		/* histograms that quietly miss entries would understate the waits */
		if (st.hist_misses)
			fprintf(stderr, "lockstall: %llu waits and holds missing from the histograms (histogram map full)\n",
				(unsigned long long)st.hist_misses);
		/* counted among the lost events too, so their findings read unknown */
		if (st.task_state_full)
			fprintf(stderr, "lockstall: %llu lock requests or faults not followed: the task state map was full (--task-state=hash follows at most %u tasks at once); stalls around them read unknown\n",
				(unsigned long long)st.task_state_full, LS_TASK_STATE_MAX);
		if (cfg->verbose)
			fprintf(stderr, "lockstall: %llu records, %llu bytes from the ring buffer, %llu dropped\n",
				(unsigned long long)st.records, (unsigned long long)st.bytes,
				(unsigned long long)st.drops);
		if (cfg->verbose && (st.stack_records || st.kstack_saves))
			fprintf(stderr, "lockstall: stacks: %llu records, %llu ns each to make; %llu kernel stacks of holders off CPU saved, %llu ns each\n",
				(unsigned long long)st.stack_records,
				(unsigned long long)(st.stack_records ? st.stack_ns / st.stack_records : 0),
				(unsigned long long)st.kstack_saves,
				(unsigned long long)(st.kstack_saves ? st.kstack_save_ns / st.kstack_saves : 0));
	}
cleanup:
	if (w.loader)
		loader__free(w.loader);
	if (w.writer) {
		/* mappings the worker read after the last stall, before they are lost */
		if (w.stacks)
			stacks__drain(w.stacks, STACKS_MAPS_WAIT_NS);
		record__cgroups(w.writer, w.cgroups);
		/* the names are read after tracing stopped: see record__finish() */
		rc = record__finish(w.writer, cfg, w.s.engine, ls_now_ns() - w.start_ns);
		if (rc < 0 && ret == LS_EXIT_OK)
			ret = LS_EXIT_FAILURE;
	}
	session__destroy(&w.s);
	stacks__free(w.stacks);
	cgroups__free(w.cgroups);
	slo_rules__free(&rules);
	hooks__free(w.hooks);
	metrics_http__free(w.http);
	/* an error ended the loop: a recording being written still ends whole */
	watch__flight_reap(&w, true);
	flight__free(w.flight);
	free(w.flight_rule);
	return ret;
}
