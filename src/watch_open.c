// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The live run before and after its loop (cmd_watch.c): open the session
 * and everything that can fail fast (cgroups, rules and hooks, sinks, the
 * metrics server, the flight recorder, the file), load and attach; then
 * the closing notes, the recording's end and the teardown.
 */
#include <errno.h>
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
#include "util.h"
#include "watch.h"

/* The run a recording says it comes from (record/meta.h). */
void watch__record_run(const struct watch *w, struct record_run *run)
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
void watch__hook_stats(struct watch *w)
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
int watch__write_metrics(struct watch *w)
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
		so->name_async = true;
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
int watch__open(struct watch *w, struct session_opts *so, FILE *out)
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
		/* the level was checked by cli/options.c, and nothing is written yet */
		trace_writer__compress(w->writer, cfg->compress_level);
		w->s.writer = w->writer;
		w->s.stop_on_write_error = watch__file_only(w);
	}
	return 0;
}

/* Load and attach, start the recording, the BEGIN mark, and say so. */
int watch__attach(struct watch *w, const struct loader_opts *lo)
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
	if (st.task_state_full && (loader__features(w->loader) & LS_FEAT_TASK_STATE_HASH))
		fprintf(stderr, "lockstall: %llu lock requests or faults not followed: the task state map was full (--task-state=hash follows at most %u tasks at once); stalls around them read unknown\n",
			(unsigned long long)st.task_state_full, LS_TASK_STATE_MAX);
	else if (st.task_state_full)
		fprintf(stderr, "lockstall: %llu lock requests or faults not followed: the kernel made no task storage for them; stalls around them read unknown\n",
			(unsigned long long)st.task_state_full);
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
int watch__conclude(struct watch *w, int ret)
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

int watch__teardown(struct watch *w, int ret)
{
	watch__front_stop(w);
	sink__free(w->front_sink);
	watch__stop_boost(w);
	if (w->loader)
		loader__free(w->loader);
	/* a worker stuck in a read keeps the resolver: left to exit */
	if (!session__stop_naming(&w->s))
		w->stacks = NULL;
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
	return ret;
}

/*
 * The default priority only: raised while the ring fills (reader_cpu.h).
 * An asked-for --rt-priority is kept as asked, and without CAP_SYS_NICE
 * there is no boost either.
 */
static void watch__start_boost(struct watch *w)
{
	size_t size;
	int fd, err;

	if (w->cfg->rt_priority_set || !w->fifo || !w->loader)
		return;
	loader__ring(w->loader, &fd, &size);
	err = reader_boost__start(&w->boost, fd, size, gettid(), w->fifo, true);
	if (err)
		fprintf(stderr, "lockstall: its reader will not be raised while it falls behind: %s\n",
			strerror(-err));
}

void watch__stop_boost(struct watch *w)
{
	struct reader_boost_state st;

	if (!w->boost)
		return;
	reader_boost__stop(w->boost, &st);
	w->boost = NULL;
	if (st.raises)
		fprintf(stderr, "lockstall: fell behind %llu times: its reader ran at SCHED_FIFO %u for %llu ms in all\n",
			(unsigned long long)st.raises, READER_BOOST_PRIO,
			(unsigned long long)(st.raised_ns / 1000000));
}

/*
 * The loop's SCHED_FIFO priority, so that busy real-time work does not
 * starve the ring's reader.  Asked for: the threads and hooks started
 * later inherit it, and not getting it ends the run.  The default is this
 * thread's only, taken once the programs are loaded (on a PREEMPT_RT
 * kernel a verifier run at SCHED_FIFO starves RCU's kthreads), and without
 * it (no CAP_SYS_NICE) the run goes on, said.
 */
int watch__set_fifo(struct watch *w)
{
	const struct ls_config *cfg = w->cfg;
	int ret;

	if (!cfg->rt_priority)
		return 0;
	ret = reader_cpu__set_fifo(cfg->rt_priority, !cfg->rt_priority_set);
	if (!ret) {
		w->fifo = cfg->rt_priority;
		watch__start_boost(w);
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
