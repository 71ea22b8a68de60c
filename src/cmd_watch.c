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
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "commands.h"
#include "engine/engine.h"
#include "loader.h"
#include "session.h"
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
};

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

static int watch__loop(struct watch *w, const struct ls_config *cfg, volatile sig_atomic_t *stop)
{
	__u64 now = ls_now_ns();
	__u64 deadline = cfg->duration_ns ? now + cfg->duration_ns : 0;
	__u64 next_interval = cfg->interval_ns ? now + cfg->interval_ns : 0;
	__u64 next_tick = now + TICK_NS;
	__u64 intervals = 0;
	int timeout, rc;

	while (!*stop) {
		now = ls_now_ns();
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
	rc = session__finish(&w->s);
	if (rc < 0)
		return watch__fail(w, cfg, rc, NULL);
	return LS_EXIT_OK;
}

int cmd_watch(const struct ls_config *cfg, volatile sig_atomic_t *stop, FILE *out)
{
	struct session_opts so = {
		.format = cfg->cmd == LS_CMD_RECORD ? SESSION_NONE :
			  cfg->json ? SESSION_JSON : SESSION_TEXT,
		.top = cfg->top,
		.pid = cfg->pid,
		.threshold_ns = cfg->threshold_ns,
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
	struct watch w = { 0 };
	char thr[32];
	int ret = LS_EXIT_FAILURE, rc;

	if (cfg->pid)
		so.pid = watch__check_pid(cfg->pid);

	if (session__init(&w.s, &so, out)) {
		fprintf(stderr, "lockstall: cannot set up the engine: %s\n", strerror(ENOMEM));
		goto cleanup;
	}
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

	ret = watch__loop(&w, cfg, stop);
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
	return ret;
}
