// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The flight recorder's writer: see flight_writer.h.  Its window is
 * flight.c's; the file format trace_file.h's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "record/flight.h"
#include "record/flight_writer.h"
#include "record/meta.h"
#include "record/trace_file.h"
#include "util.h"

struct flight_writer {
	struct flight_writer_opts o;
	struct flight *flight;	/* the window */
	char *rule;		/* the text of the rule that began the pending window */
	pid_t child;		/* writing a recording; 0: none */
};

void flight_writer__forget_stacks(struct flight_writer *fw)
{
	fw->o.stacks = NULL;
}

struct flight_writer *flight_writer__new(const struct flight_writer_opts *o)
{
	struct flight_writer *fw = calloc(1, sizeof(*fw));

	if (!fw)
		return NULL;
	fw->o = *o;
	fw->flight = flight__new(&o->window);
	if (!fw->flight) {
		free(fw);
		return NULL;
	}
	return fw;
}

struct flight *flight_writer__flight(struct flight_writer *fw)
{
	return fw->flight;
}

void flight_writer__trigger(struct flight_writer *fw, __u64 at_ns, size_t rule_index,
			    const char *rule)
{
	/* the rule's text is kept: a SIGHUP may free the rule before the file is written */
	if (!flight__trigger(fw->flight, at_ns, rule_index)) {
		free(fw->rule);
		fw->rule = strdup(rule);
	}
}

bool flight_writer__due(const struct flight_writer *fw, __u64 *to_ns)
{
	struct flight_window win;

	if (fw->child || !flight__pending(fw->flight, &win))
		return false;
	*to_ns = win.to_ns;
	return true;
}

static int flight_writer_record(void *ctx, const void *rec, size_t len)
{
	return trace_writer__record(ctx, rec, len);
}

/* The flight recording's own metadata, after what record_meta__start() writes. */
static int flight_writer_meta(const struct flight_writer *fw, struct trace_writer *tw,
			     const struct flight_window *win, __s64 real_minus_mono)
{
	int err = 0;

	/* the recording starts with its window, not with the watch */
	err = err ?: trace_writer__meta_u64(tw, "start.realtime_ns",
					    (__u64)((__s64)win->from_ns + real_minus_mono));
	err = err ?: trace_writer__meta_str(tw, "flight.rule", fw->rule ? fw->rule : "");
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
static int flight_writer_file(struct flight_writer *fw, const struct record_run *run)
{
	const struct flight_writer_opts *o = &fw->o;
	struct trace_writer *tw = NULL;
	struct trace_writer_stats st;
	struct flight_window win;
	__u64 t0 = ls_now_ns(), real = ls_realtime_ns();
	__s64 real_minus_mono = (__s64)(real - t0);
	char path[PATH_MAX], took[32], merged[64] = "", removed[64] = "";
	int rc, n;

	if (!flight__pending(fw->flight, &win))
		return 0;
	rc = flight__create(o->dir, (__u64)((__s64)win.at_ns + real_minus_mono),
			    win.rule_index, &tw, path, sizeof(path));
	if (rc) {
		fprintf(stderr, "lockstall: %s: cannot create a flight recording: %s: check the directory exists and is writable\n",
			o->dir, strerror(-rc));
		flight__write(fw->flight, NULL, NULL, NULL);
		return rc;
	}
	rc = trace_writer__compress(tw, o->compress_level);
	rc = rc ?: record_meta__start(tw, run);
	rc = rc ?: flight_writer_meta(fw, tw, &win, real_minus_mono);
	rc = rc ?: flight__write(fw->flight, flight_writer_record, tw, &win);
	if (rc)
		flight__write(fw->flight, NULL, NULL, NULL);
	trace_writer__stats(tw, &st);
	record_meta__maps(tw, o->stacks);
	record_meta__cgroups(tw, o->cgroups);
	/*
	 * Names only: reading /proc/PID/cmdline takes the traced process's
	 * mmap_lock, which must not happen while tracing (record/meta.c)
	 */
	if (record_meta__close(tw, path, true, NULL) || rc) {
		if (rc)
			fprintf(stderr, "lockstall: %s: cannot write: %s\n", path, strerror(-rc));
		return rc ? rc : -EIO;
	}
	n = flight__rotate(o->dir, o->max_files ? o->max_files :
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
 * traces on: written in the loop, a big window under I/O load would stop
 * tracing for as long as the write takes.  One child at a time: a window
 * that closes while one writes waits, pending, for it to end.  No child
 * (fork failed), or at the end of the run: written here.
 */
void flight_writer__write(struct flight_writer *fw, const struct record_run *run, bool may_fork)
{
	__u64 t0 = ls_now_ns();
	char took[32];
	pid_t pid;

	if (!flight__pending(fw->flight, NULL))
		return;
	pid = may_fork ? fork() : -1;
	if (pid == 0) {
		/* the child: its own copy of everything; nothing of the parent's to flush */
		if (fw->o.in_child)
			fw->o.in_child(fw->o.child_ctx);
		_exit(flight_writer_file(fw, run) ? 1 : 0);
	}
	if (pid < 0) {
		flight_writer_file(fw, run);
		return;
	}
	fw->child = pid;
	/* the child has the window */
	flight__write(fw->flight, NULL, NULL, NULL);
	if (fw->o.verbose)
		fprintf(stderr, "lockstall: flight recorder: writer %d forked in %s\n", (int)pid,
			ls_format_duration(ls_now_ns() - t0, took, sizeof(took)));
}

/* The writer child, if it has ended (or, with wait, once it has). */
void flight_writer__reap(struct flight_writer *fw, bool wait)
{
	pid_t r;

	if (!fw || !fw->child)
		return;
	do
		r = waitpid(fw->child, NULL, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != 0)
		fw->child = 0;
}

void flight_writer__free(struct flight_writer *fw)
{
	if (!fw)
		return;
	/* an error ended the loop: a recording being written still ends whole */
	flight_writer__reap(fw, true);
	flight__free(fw->flight);
	free(fw->rule);
	free(fw);
}
