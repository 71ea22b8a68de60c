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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "commands.h"
#include "engine/engine.h"
#include "hooks.h"
#include "loader.h"
#include "session.h"
#include "sinks/prometheus.h"
#include "sinks/sink.h"
#include "trace_file.h"
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
	struct sink *metrics;	/* --metrics-file: owned by the session */
	bool metrics_told;	/* the metrics write error has been reported */
};

/* SIGHUP: the new rules file, or the old rules and why not. */
static void watch__reload(struct watch *w)
{
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN];

	if (!w->cfg->rules_file || !w->s.slo) {
		fprintf(stderr, "lockstall: SIGHUP: no --rules file to re-read\n");
		return;
	}
	if (slo_rules__read(&rules, w->cfg->slo, w->cfg->n_slo, w->cfg->rules_file, err,
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

#define VIOLATION_ENV_MAX 16

static int watch__on_violation(void *ctx, const struct slo_violation *v)
{
	struct watch *w = ctx;
	char *env[VIOLATION_ENV_MAX], *json = NULL, what[48];
	size_t len = 0, n, i;
	FILE *f;

	w->violated = true;
	if (w->cfg->exit_on_violation)
		w->stop_violation = true;
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

/* --metrics-file, replaced whole: the counts so far.  0 or a negative errno. */
static int watch__write_metrics(struct watch *w)
{
	struct ls_summary sum;
	int err;

	if (!w->metrics)
		return 0;
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
	err = sink_prometheus__write_file(w->metrics, w->cfg->metrics_file);
	if (err && !w->metrics_told)
		fprintf(stderr, "lockstall: %s: cannot write metrics: %s\n", w->cfg->metrics_file,
			strerror(-err));
	w->metrics_told = err != 0;
	return err;
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
	int timeout, rc;

	while (!*stop && !w->stop_violation) {
		now = ls_now_ns();
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
		rc = loader__poll(w->loader, timeout, session__feed, &w->s);
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
	/* what the hooks did belongs in the summary: let them end (or time out) */
	if (w->hooks)
		hooks__drain(w->hooks);
	watch__hook_stats(w);
	rc = session__finish(&w->s);
	if (rc < 0)
		return watch__fail(w, cfg, rc, NULL);
	return LS_EXIT_OK;
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
	};
	struct watch w = { .cfg = cfg };
	struct slo_rules rules = { 0 };
	char thr[32];
	int ret = LS_EXIT_FAILURE, rc;

	/* a rule that cannot be used fails before anything is loaded */
	if (cfg->n_slo || cfg->rules_file) {
		char err[SLO_ERR_LEN];

		rc = slo_rules__read(&rules, cfg->slo, cfg->n_slo, cfg->rules_file, err,
				     sizeof(err));
		if (rc) {
			fprintf(stderr, "lockstall: %s\n", err);
			return rc == -EINVAL || rc == -E2BIG ? LS_EXIT_USAGE : LS_EXIT_FAILURE;
		}
		so.rules = &rules;
		so.on_violation = watch__on_violation;
		so.violation_ctx = &w;
		if ((cfg->exec_argv || cfg->exec_file) && watch__hooks(&w, cfg)) {
			slo_rules__free(&rules);
			return LS_EXIT_FAILURE;
		}
	}
	if (cfg->pid)
		so.pid = watch__check_pid(cfg->pid);

	if (cfg->metrics_file) {
		struct sink_opts mo = { .filter_pid = so.pid };

		so.metrics = sink_prometheus__new(&mo);
		if (!so.metrics) {
			fprintf(stderr, "lockstall: cannot set up the metrics: %s\n", strerror(ENOMEM));
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
	/* the end-to-end tests start their workloads on this line: only once attached */
	if (cfg->cmd == LS_CMD_RECORD)
		fprintf(stderr, "lockstall: recording mmap_lock to %s (threshold %s)... Ctrl-C to stop\n",
			cfg->output, ls_format_duration(cfg->threshold_ns, thr, sizeof(thr)));
	else
		fprintf(stderr, "lockstall: tracing mmap_lock (threshold %s)... Ctrl-C to stop\n",
			ls_format_duration(cfg->threshold_ns, thr, sizeof(thr)));
	fflush(stderr);

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
		if (cfg->verbose)
			fprintf(stderr, "lockstall: %llu records, %llu bytes from the ring buffer, %llu dropped\n",
				(unsigned long long)st.records, (unsigned long long)st.bytes,
				(unsigned long long)st.drops);
	}
cleanup:
	if (w.loader)
		loader__free(w.loader);
	if (w.writer) {
		/* the names are read after tracing stopped: see record__finish() */
		rc = record__finish(w.writer, cfg, w.s.engine, ls_now_ns() - w.start_ns);
		if (rc < 0 && ret == LS_EXIT_OK)
			ret = LS_EXIT_FAILURE;
	}
	session__destroy(&w.s);
	slo_rules__free(&rules);
	hooks__free(w.hooks);
	return ret;
}
