// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See e2e_watch.h.
 *
 * The deadlines below are safety nets that turn a hang into a failure with
 * lockstall's stderr in the message; no step waits for time to pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

#define E2E_ATTACH_TIMEOUT_MS	30000	/* BPF load and attach */
/*
 * Under qemu's TCG (test/kernels sets LOCKSTALL_E2E_TCG) the verifier runs
 * emulated, many times slower than on a host: the attach takes that much
 * longer.  A workload's starved holder takes its lock for seconds there.
 */
#define E2E_ATTACH_TCG_FACTOR	5
#define E2E_WORKLOAD_TIMEOUT_MS	60000	/* a workload runs a few seconds */
#define E2E_WORKLOAD_TCG_FACTOR	2
#define E2E_STOP_TIMEOUT_MS	30000	/* SIGINT to exit, summary included */
#define E2E_CLI_TIMEOUT_MS	10000

#define TRACING_PREFIX "lockstall: tracing"

const char *e2e_require(bool need_bpf)
{
	const char *bin = getenv("LOCKSTALL_BIN");
	const char *mode = getenv("LOCKSTALL_E2E");
	bool required = mode && !strcmp(mode, "required");
	const char *why = NULL;

	if (!bin || !*bin)
		why = "LOCKSTALL_BIN is not set (run the end-to-end tests with `make test-e2e`)";
	else if (access(bin, X_OK))
		why = "LOCKSTALL_BIN is not an executable (build it with `make`)";
	else if (need_bpf && geteuid() != 0)
		why = "not root: tracing with BPF needs root (run `sudo make test-e2e`)";
	else if (need_bpf && !getenv("LOCKSTALL_WORKLOADS"))
		why = "LOCKSTALL_WORKLOADS is not set (run the end-to-end tests with `make test-e2e`)";
	if (!why)
		return bin;
	if (required)
		cr_assert_fail("LOCKSTALL_E2E=required, but %s", why);
	/* A skip is silent at Criterion's default verbosity: say why anyway. */
	cr_log_warn("skipped: %s", why);
	cr_skip_test("%s", why);
	return NULL;	/* not reached */
}

struct until_tracing {
	const struct e2e_proc *lockstall;
};

static bool tracing_or_gone(void *ctx)
{
	const struct until_tracing *u = ctx;

	return e2e_buf__line_with_prefix(&u->lockstall->err, TRACING_PREFIX) ||
	       e2e_proc__done(u->lockstall);
}

static bool workload_or_lockstall_gone(void *ctx)
{
	struct e2e_watch *w = ctx;

	return e2e_proc__done(&w->workload) || w->lockstall.reaped;
}

static bool proc_gone(void *ctx)
{
	return e2e_proc__done(ctx);
}

/* The last non-empty line of a buffer, as JSON. */
static json_t *last_line_json(const struct e2e_buf *b)
{
	char *copy = strdup(b->data), *line = NULL, *save = NULL, *tok;
	json_error_t jerr;
	json_t *j = NULL;

	cr_assert(copy, "out of memory");
	for (tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
		line = tok;
	if (line)
		j = json_loads(line, 0, &jerr);
	free(copy);
	return j;
}

void e2e_json_log(const char *out)
{
	const char *path = getenv("LOCKSTALL_JSON_LOG");
	size_t len = out ? strlen(out) : 0;
	FILE *f;

	if (!path || !*path || !len)
		return;
	f = fopen(path, "a");
	cr_assert_not_null(f, "cannot open LOCKSTALL_JSON_LOG %s: %s", path, strerror(errno));
	fputs(out, f);
	if (out[len - 1] != '\n')
		putc('\n', f);
	cr_assert_eq(fclose(f), 0, "cannot write LOCKSTALL_JSON_LOG %s: %s", path, strerror(errno));
}

/* Parse every line lockstall printed; each is one JSON object of a known type. */
static void watch__parse(struct e2e_watch *w)
{
	char *copy = strdup(w->lockstall.out.data), *save = NULL, *line;
	size_t lineno = 0;

	e2e_json_log(w->lockstall.out.data);
	cr_assert(copy, "out of memory");
	w->stalls = json_array();
	w->violations = json_array();
	w->pending = json_array();
	w->lines = json_array();
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t jerr;
		json_t *j = json_loads(line, 0, &jerr);
		const char *type;

		lineno++;
		cr_assert(j, "lockstall stdout line %zu is not JSON (%s): %.300s", lineno, jerr.text,
			  line);
		cr_assert(json_is_object(j), "lockstall stdout line %zu is not an object", lineno);
		cr_assert_null(w->summary, "line %zu comes after the summary: %.300s", lineno, line);
		type = e2e_str(j, "type");
		json_array_append(w->lines, j);
		if (!strcmp(type, "violation")) {
			json_array_append_new(w->violations, j);
		} else if (!strcmp(type, "stall")) {
			json_array_append_new(w->stalls, j);
		} else if (!strcmp(type, "pending")) {
			json_array_append_new(w->pending, j);
		} else if (!strcmp(type, "summary")) {
			w->summary = j;
		} else if (!strcmp(type, "histograms")) {
			json_decref(j);	/* per interval: the runs here ask for none */
		} else {
			cr_assert_fail("line %zu has an unknown type \"%s\"", lineno, type);
		}
	}
	free(copy);
	cr_assert_not_null(w->summary, "no summary line in lockstall's output; stderr:\n%s",
			   w->lockstall.err.data);
}

void e2e_watch__run(struct e2e_watch *w, const char *workload, const char *const args[])
{
	e2e_watch__run_with(w, workload, args, NULL);
}

void e2e_watch__run_with(struct e2e_watch *w, const char *workload, const char *const args[],
			 const char *const watch_args[])
{
	const struct e2e_watch_opts o = { .watch_args = watch_args };

	e2e_watch__run_opts(w, workload, args, &o);
}

struct until_line {
	struct e2e_proc *p;
	const char *needle;
};

static bool line_or_gone(void *ctx)
{
	struct until_line *u = ctx;

	return (u->p->out.data && strstr(u->p->out.data, u->needle)) || e2e_proc__done(u->p);
}

/* Stop lockstall with sig and wait for it: it must end with status 0. */
static void watch__stop(struct e2e_watch *w, int sig)
{
	struct e2e_proc *both[2] = { &w->lockstall, &w->workload };
	int rc;

	rc = e2e_proc__signal(&w->lockstall, sig);
	cr_assert_eq(rc, 0, "%s to lockstall: %s", strsignal(sig), strerror(-rc));
	rc = e2e_proc__pump(both, 1, E2E_STOP_TIMEOUT_MS, proc_gone, &w->lockstall);
	cr_assert_eq(rc, 0, "lockstall did not exit after %s: %s; stderr:\n%s", strsignal(sig),
		     strerror(-rc), w->lockstall.err.data);
	cr_assert_eq(e2e_proc__exit_code(&w->lockstall), 0,
		     "lockstall ended with status %#x after %s; stderr:\n%s", w->lockstall.status,
		     strsignal(sig), w->lockstall.err.data);
}

static int workload_timeout_ms(void)
{
	return E2E_WORKLOAD_TIMEOUT_MS * (e2e_under_tcg() ? E2E_WORKLOAD_TCG_FACTOR : 1);
}

/* Stop lockstall once the workload printed needle, while the workload goes on. */
static void watch__stop_on(struct e2e_watch *w, const char *needle, int sig)
{
	struct e2e_proc *both[2] = { &w->lockstall, &w->workload };
	struct until_line u = { &w->workload, needle };
	int rc;

	rc = e2e_proc__pump(both, 2, workload_timeout_ms(), line_or_gone, &u);
	cr_assert(!rc && w->workload.out.data && strstr(w->workload.out.data, needle),
		  "the workload never printed %s (%s); stdout:\n%s\nstderr:\n%s", needle,
		  rc ? strerror(-rc) : "it ended", w->workload.out.data, w->workload.err.data);
	watch__stop(w, sig);
}

const char *const e2e_futexes[] = { "--locks", "all", NULL };

/* The command lines: lockstall watch --json with watch_args, and the workload with args. */
struct watch_argv {
	char *ls[24];
	char *wl[16];
	char backend[64];
	char path[4096];
};

static void watch__argv(struct watch_argv *a, const char *workload, const char *const args[],
			const char *const watch_args[])
{
	const char *dir = getenv("LOCKSTALL_WORKLOADS"), *backend = getenv("LOCKSTALL_BACKEND");
	size_t ls_n = 5, n = 0;

	a->ls[0] = (char *)e2e_require(true);
	a->ls[1] = "watch";
	a->ls[2] = "--json";
	a->ls[3] = "-t";
	a->ls[4] = E2E_THRESHOLD;
	while (watch_args && watch_args[ls_n - 5] && ls_n < 21) {
		a->ls[ls_n] = (char *)watch_args[ls_n - 5];
		ls_n++;
	}
	/* test/kernels runs the same tests once per backend */
	if (backend && *backend) {
		snprintf(a->backend, sizeof(a->backend), "--backend=%s", backend);
		a->ls[ls_n++] = a->backend;
	}
	a->ls[ls_n] = NULL;
	snprintf(a->path, sizeof(a->path), "%s/%s", dir, workload);
	cr_assert(!access(a->path, X_OK), "no workload %s (build it with `make %s`)", a->path,
		  a->path);
	a->wl[n++] = a->path;
	while (args && args[n - 1] && n < 15) {
		a->wl[n] = (char *)args[n - 1];
		n++;
	}
	a->wl[n] = NULL;
}

/* Start lockstall and wait until it traces: the synchronisation point. */
static void watch__start(struct e2e_watch *w, char *const argv[])
{
	struct e2e_proc *both[2] = { &w->lockstall, &w->workload };
	struct until_tracing ut = { &w->lockstall };
	int rc;

	rc = e2e_proc__spawn(&w->lockstall, "lockstall", argv);
	cr_assert_eq(rc, 0, "cannot start %s: %s", argv[0], strerror(-rc));
	/* lockstall says so once its programs are attached */
	rc = e2e_proc__pump(both, 1,
			    E2E_ATTACH_TIMEOUT_MS * (e2e_under_tcg() ? E2E_ATTACH_TCG_FACTOR : 1),
			    tracing_or_gone, &ut);
	cr_assert(e2e_buf__line_with_prefix(&w->lockstall.err, TRACING_PREFIX),
		  "lockstall never said \"%s\" (%s, exit code %d); stderr:\n%s", TRACING_PREFIX,
		  rc ? strerror(-rc) : "it ended", e2e_proc__exit_code(&w->lockstall),
		  w->lockstall.err.data);
}

void e2e_watch__run_opts(struct e2e_watch *w, const char *workload, const char *const args[],
			 const struct e2e_watch_opts *o)
{
	int stop_signal = o->stop_signal ? o->stop_signal : SIGINT;
	struct e2e_proc *both[2] = { &w->lockstall, &w->workload };
	struct watch_argv a;
	int rc;

	/* First: e2e_watch__release() must find a clean slate whatever fails next. */
	*w = (struct e2e_watch)E2E_WATCH_INIT;
	watch__argv(&a, workload, args, o->watch_args);
	watch__start(w, a.ls);

	if (o->preload)
		cr_assert_eq(setenv("LD_PRELOAD", o->preload, 1), 0);
	rc = e2e_proc__spawn(&w->workload, workload, a.wl);
	if (o->preload)
		unsetenv("LD_PRELOAD");
	cr_assert_eq(rc, 0, "cannot start %s: %s", a.path, strerror(-rc));
	if (o->stop_on) {
		watch__stop_on(w, o->stop_on, stop_signal);
		rc = e2e_proc__pump(both + 1, 1, workload_timeout_ms(), proc_gone, &w->workload);
	} else {
		rc = e2e_proc__pump(both, 2, workload_timeout_ms(), workload_or_lockstall_gone, w);
	}
	cr_assert_eq(rc, 0, "workload %s did not finish: %s; its stderr:\n%s", workload,
		     strerror(-rc), w->workload.err.data);
	cr_assert(o->stop_on || !w->lockstall.reaped,
		  "lockstall exited while the workload ran (exit code %d); stderr:\n%s",
		  e2e_proc__exit_code(&w->lockstall), w->lockstall.err.data);
	cr_assert_eq(e2e_proc__exit_code(&w->workload), 0, "workload %s failed (status %#x); stderr:\n%s",
		     workload, w->workload.status, w->workload.err.data);
	w->truth = last_line_json(&w->workload.out);
	cr_assert(json_is_object(w->truth), "workload %s printed no ground truth; stdout:\n%s",
		  workload, w->workload.out.data);
	cr_log_info("%s ground truth: %s", workload, w->workload.out.data);

	if (o->before_stop)
		o->before_stop(w, o->ctx);
	if (!o->stop_on)
		watch__stop(w, stop_signal);
	watch__parse(w);
}

/* A line of b holding text, as JSON (NULL: none such, or not JSON). */
static json_t *line_json_with(const struct e2e_buf *b, const char *text)
{
	const char *at = b->data ? strstr(b->data, text) : NULL;
	const char *start, *end;
	char *line;
	json_t *j;

	if (!at)
		return NULL;
	for (start = at; start > b->data && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	line = strndup(start, end ? (size_t)(end - start) : strlen(start));
	cr_assert(line, "out of memory");
	j = json_loads(line, 0, NULL);
	free(line);
	return j;
}

struct until_output {
	struct e2e_watch *w;
	const char *found;
};

static bool found_or_gone(void *ctx)
{
	struct until_output *u = ctx;
	const struct e2e_proc *ls = &u->w->lockstall;

	return (ls->out.data && strstr(ls->out.data, u->found)) || e2e_proc__done(ls) ||
	       e2e_proc__done(&u->w->workload);
}

/*
 * The workload is told to end the wait (signal sig) and awaited, as
 * lockstall watches: its last line's fields join its ground truth.
 */
static void watch__release(struct e2e_watch *w, const char *workload, int sig)
{
	struct e2e_proc *both[2] = { &w->lockstall, &w->workload };
	json_t *last;
	int rc;

	rc = e2e_proc__signal(&w->workload, sig);
	cr_assert_eq(rc, 0, "%s to %s: %s", strsignal(sig), workload, strerror(-rc));
	rc = e2e_proc__pump(both, 2, workload_timeout_ms(), proc_gone, &w->workload);
	cr_assert_eq(rc, 0, "workload %s did not end after %s: %s", workload, strsignal(sig),
		     strerror(-rc));
	cr_assert_eq(e2e_proc__exit_code(&w->workload), 0, "workload %s failed (status %#x); stderr:\n%s",
		     workload, w->workload.status, w->workload.err.data);
	last = last_line_json(&w->workload.out);
	cr_assert(json_is_object(last), "workload %s printed no ground truth at its end; stdout:\n%s",
		  workload, w->workload.out.data);
	json_object_update(w->truth, last);
	json_decref(last);
	cr_log_info("%s ground truth at its end: %s", workload, w->workload.out.data);
}

void e2e_watch__run_after(struct e2e_watch *w, const char *workload, const char *const args[],
			  const char *begun, const char *found, int release,
			  const char *const watch_args[])
{
	struct e2e_proc *both[2] = { &w->lockstall, &w->workload };
	struct until_line ul = { &w->workload, begun };
	struct until_output uo = { w, found };
	struct watch_argv a;
	int rc;

	*w = (struct e2e_watch)E2E_WATCH_INIT;
	watch__argv(&a, workload, args, watch_args);
	rc = e2e_proc__spawn(&w->workload, workload, a.wl);
	cr_assert_eq(rc, 0, "cannot start %s: %s", a.path, strerror(-rc));
	rc = e2e_proc__pump(both + 1, 1, workload_timeout_ms(), line_or_gone, &ul);
	w->truth = line_json_with(&w->workload.out, begun);
	cr_assert(json_is_object(w->truth), "workload %s never printed %s (%s); stdout:\n%s\nstderr:\n%s",
		  workload, begun, rc ? strerror(-rc) : "it ended", w->workload.out.data,
		  w->workload.err.data);
	cr_log_info("%s ground truth: %s", workload, w->workload.out.data);

	watch__start(w, a.ls);
	rc = e2e_proc__pump(both, 2, workload_timeout_ms(), found_or_gone, &uo);
	cr_assert_eq(rc, 0, "lockstall never printed %s: %s; stderr:\n%s", found, strerror(-rc),
		     w->lockstall.err.data);
	cr_assert(!e2e_proc__done(&w->workload), "workload %s ended before lockstall found %s",
		  workload, found);
	if (release)
		watch__release(w, workload, release);
	watch__stop(w, SIGINT);
	watch__parse(w);
	/* the wait goes on: only the test ends it */
	if (!release)
		e2e_proc__signal(&w->workload, SIGKILL);
}

void e2e_watch__release(struct e2e_watch *w)
{
	e2e_proc__release(&w->workload);
	e2e_proc__release(&w->lockstall);
	json_decref(w->truth);
	json_decref(w->stalls);
	json_decref(w->summary);
	json_decref(w->violations);
	json_decref(w->lines);
	json_decref(w->pending);
	w->truth = w->stalls = w->summary = w->violations = w->lines = w->pending = NULL;
}

void e2e_run_cli(struct e2e_proc *p, const char *const args[])
{
	struct e2e_proc *one[1] = { p };
	const char *bin;
	char *argv[16];
	size_t n = 0;
	int rc;

	*p = (struct e2e_proc)E2E_PROC_INIT;
	bin = e2e_require(false);
	argv[n++] = (char *)bin;
	while (args[n - 1] && n < 15) {
		argv[n] = (char *)args[n - 1];
		n++;
	}
	argv[n] = NULL;
	rc = e2e_proc__spawn(p, "lockstall", argv);
	cr_assert_eq(rc, 0, "cannot start %s: %s", bin, strerror(-rc));
	rc = e2e_proc__pump(one, 1, E2E_CLI_TIMEOUT_MS, NULL, NULL);
	cr_assert_eq(rc, 0, "lockstall %s did not finish: %s", args[0] ? args[0] : "",
		     strerror(-rc));
}

static const json_t *field(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	if (!v) {
		char *dump = json_dumps(obj, JSON_COMPACT);

		cr_assert_fail("no \"%s\" in %.400s", key, dump ? dump : "?");
	}
	return v;
}

const json_t *e2e_hist(const json_t *summary, const char *kind, json_int_t pid, const char *mode)
{
	const json_t *all = e2e_array(e2e_object(summary, "histograms"), kind), *h, *p;
	size_t i, j;

	json_array_foreach(all, i, h) {
		if (strcmp(e2e_str(h, "mode"), mode))
			continue;
		json_array_foreach(e2e_array(h, "pids"), j, p)
			if (json_integer_value(p) == pid)
				return h;
	}
	return NULL;
}

int e2e_hist_slot(json_int_t ns)
{
	json_int_t us = ns / 1000;
	int slot = 0;

	while (us) {
		slot++;
		us >>= 1;
	}
	return slot;
}

json_int_t e2e_hist_at_least(const json_t *hist, json_int_t us)
{
	const json_t *slots = e2e_array(hist, "log2_usecs");
	json_int_t n = 0;
	size_t i;

	/* slot i holds values from 2^(i-1) us up */
	for (i = (size_t)e2e_hist_slot(us * 1000); i < json_array_size(slots); i++)
		n += json_integer_value(json_array_get(slots, i));
	return n;
}

int e2e_hist_top(const json_t *hist)
{
	const json_t *slots = e2e_array(hist, "log2_usecs");
	int i;

	for (i = (int)json_array_size(slots) - 1; i >= 0; i--)
		if (json_integer_value(json_array_get(slots, (size_t)i)))
			return i;
	return -1;
}

json_int_t e2e_int(const json_t *obj, const char *key)
{
	const json_t *v = field(obj, key);

	cr_assert(json_is_integer(v), "\"%s\" is not an integer", key);
	return json_integer_value(v);
}

const char *e2e_str(const json_t *obj, const char *key)
{
	const json_t *v = field(obj, key);

	cr_assert(json_is_string(v), "\"%s\" is not a string", key);
	return json_string_value(v);
}

const json_t *e2e_array(const json_t *obj, const char *key)
{
	const json_t *v = field(obj, key);

	cr_assert(json_is_array(v), "\"%s\" is not an array", key);
	return v;
}

const json_t *e2e_object(const json_t *obj, const char *key)
{
	const json_t *v = field(obj, key);

	cr_assert(json_is_object(v), "\"%s\" is not an object", key);
	return v;
}

int e2e_frame_index(const json_t *stack, const char *kind, const char *prefix)
{
	const json_t *f;
	size_t i;

	json_array_foreach(stack, i, f) {
		const char *sym = json_string_value(json_object_get(f, "sym"));

		if (sym && !strcmp(e2e_str(f, "kind"), kind) && !strncmp(sym, prefix, strlen(prefix)))
			return (int)i;
	}
	return -1;
}

const char *e2e_stack_text(const json_t *stack, char *buf, size_t len)
{
	const json_t *f;
	size_t i, used = 0;

	buf[0] = 0;
	json_array_foreach(stack, i, f) {
		const char *sym = json_string_value(json_object_get(f, "sym"));

		used += snprintf(buf + used, len > used ? len - used : 0, "%s%s", i ? " < " : "",
				 sym ? sym : "?");
		if (used >= len)
			break;
	}
	return buf;
}

void e2e_check_stack(const json_t *task, const char *const frames[])
{
	const json_t *stack = e2e_array(task, "stack");
	int at, last = -1;
	char buf[2048];
	size_t i;

	e2e_stack_text(stack, buf, sizeof(buf));
	for (i = 0; frames[i]; i++) {
		/* "k:name" or "u:name"; names match as prefixes, in this order */
		at = e2e_frame_index(stack, frames[i][0] == 'k' ? "kernel" : "user", frames[i] + 2);
		cr_assert_geq(at, 0, "%s of %s: no %s in its stack: %s", e2e_str(task, "comm"),
			      frames[i][0] == 'k' ? "kernel" : "user", frames[i] + 2, buf);
		cr_assert_gt(at, last, "%s: %s is not below %s: %s", e2e_str(task, "comm"),
			     frames[i] + 2, i ? frames[i - 1] + 2 : "", buf);
		last = at;
	}
}

/* The task of obj's array key whose tid is tid, or NULL. */
static const json_t *e2e_task_with_tid(const json_t *obj, const char *key, json_int_t tid)
{
	const json_t *t;
	size_t i;

	json_array_foreach(e2e_array(obj, key), i, t) {
		if (e2e_int(t, "tid") == tid)
			return t;
	}
	return NULL;
}

const json_t *e2e_holder_with_tid(const json_t *stall, json_int_t tid)
{
	return e2e_task_with_tid(stall, "holders", tid);
}

const json_t *e2e_preemptor_with_tid(const json_t *holder, json_int_t tid)
{
	return e2e_task_with_tid(holder, "preempted_by", tid);
}

const json_t *e2e_stall_of(const struct e2e_watch *w, json_int_t tid, json_int_t start_ns)
{
	const json_t *st;
	json_int_t d;
	size_t i;

	json_array_foreach(w->stalls, i, st) {
		if (e2e_int(e2e_object(st, "waiter"), "tid") != tid)
			continue;
		d = e2e_int(st, "start_ns") - start_ns;
		if (d < 1000000 && d > -1000000)
			return st;
	}
	return NULL;
}

bool e2e_under_tcg(void)
{
	return getenv("LOCKSTALL_E2E_TCG");
}

void e2e_need_futex2(void)
{
	/* NULL is no word to wait on: EFAULT or EINVAL where the call exists */
	if (syscall(455, NULL, 0UL, 0UL, 0U, NULL, 0) < 0 && errno == ENOSYS)
		cr_skip_test("no futex_wait(2) (6.7+) here");
}

void e2e_owner_by_tid(void)
{
	cr_assert_eq(setenv("LOCKSTALL_OWNER_BY_TID", "1", 1), 0);
}

void e2e_watch__said_by_tid(const struct e2e_watch *w)
{
	cr_assert(strstr(w->lockstall.err.data, "lockstall: lock owners followed by TID"),
		  "lockstall did not say it follows owners by TID; stderr:\n%s",
		  w->lockstall.err.data);
}

bool e2e_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

bool e2e_kernel_is_preempt_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

json_int_t e2e_expect_no_cause(const json_t *stalls, json_int_t pid, const char *cause)
{
	const json_t *st, *h, *c;
	json_int_t n = 0;
	size_t i, j;

	json_array_foreach(stalls, i, st) {
		if (e2e_int(e2e_object(st, "mm"), "pid") != pid)
			continue;
		n++;
		cr_expect_str_neq(e2e_str(st, "cause"), cause, "a stall said %s: %s", cause,
				  json_dumps(st, JSON_COMPACT));
		json_array_foreach(e2e_array(st, "holders"), j, h) {
			c = json_object_get(h, "causes");
			cr_expect_null(c ? json_object_get(c, cause) : NULL, "a holder said %s: %s",
				       cause, json_dumps(h, JSON_COMPACT));
		}
	}
	return n;
}

int e2e_write_file(const char *path, const char *text)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n != (ssize_t)strlen(text))
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}
