// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pending stalls on a real wait that lasts seconds (test/workloads/long_hold):
 * reported while it lasts, then its stall refers to them; a wait still open
 * when lockstall stops is reported at exit with its holder and preemptor;
 * an SLO rule fires during the wait; a recording replays to the same
 * pending records.  Needs root and BPF.
 *
 * Checked against the workload's ground truth and against the records
 * lockstall printed in the same run, never against the clock of the test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"
#include "lib/tmpdir.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static char dir[64];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "e2e-pending");
}

static void teardown(void)
{
	e2e_watch__release(&w);
	tmpdir__remove(dir);
}

TestSuite(pending, .init = setup, .fini = teardown, .timeout = 240);

/* 15 thousand VMAs: seconds of a starved holder under the lock, not minutes. */
static const char *const long_args[] = { "-d", "1", "-u", "1500", "-s", "15", NULL };

static bool has_task(const json_t *arr, const char *key, json_int_t tid)
{
	const json_t *x;
	size_t i;

	json_array_foreach(arr, i, x) {
		const json_t *t = key ? json_object_get(x, key) : x;

		if (t && json_integer_value(json_object_get(t, "tid")) == tid)
			return true;
	}
	return false;
}

/* Does some holder of this record have tid, with preemptor hog among who ran instead? */
static bool holder_with(const json_t *rec, json_int_t tid, json_int_t hog, bool need_hog)
{
	const json_t *h;
	size_t i;

	json_array_foreach(e2e_array(rec, "holders"), i, h) {
		if (e2e_int(h, "tid") != tid)
			continue;
		return !need_hog || has_task(e2e_array(h, "preempted_by"), NULL, hog);
	}
	return false;
}

/* Who ran most instead of holder tid in this record (-1: no one). */
static json_int_t top_preemptor(const json_t *rec, json_int_t tid)
{
	const json_t *h;
	size_t i;

	json_array_foreach(e2e_array(rec, "holders"), i, h) {
		if (e2e_int(h, "tid") == tid && json_array_size(e2e_array(h, "preempted_by")))
			return e2e_int(json_array_get(e2e_array(h, "preempted_by"), 0), "tid");
	}
	return -1;
}

/*
 * The longest stall of tid's waits that began in [from, to], or NULL: a
 * call (mmap() + munmap()) may wait twice, the longer one second.
 */
static const json_t *stall_in(const json_t *stalls, json_int_t tid, json_int_t from, json_int_t to)
{
	const json_t *st, *best = NULL;
	size_t i;

	json_array_foreach(stalls, i, st) {
		json_int_t s = e2e_int(st, "start_ns");

		if (e2e_int(e2e_object(st, "waiter"), "tid") != tid || s < from || s > to)
			continue;
		if (!best || e2e_int(st, "end_ns") - s >
			     e2e_int(best, "end_ns") - e2e_int(best, "start_ns"))
			best = st;
	}
	return best;
}

/* The pending records of the wait of tid that began at start, in order. */
static size_t pending_of(const json_t *pending, json_int_t tid, json_int_t start,
			 const json_t **out, size_t max)
{
	const json_t *p;
	size_t i, n = 0;

	json_array_foreach(pending, i, p) {
		if (e2e_int(e2e_object(p, "waiter"), "tid") == tid && e2e_int(p, "start_ns") == start) {
			if (n < max)
				out[n] = p;
			n++;
		}
	}
	return n;
}

/* The victim's longest call (ground truth) as lockstall saw it. */
static const json_t *worst_stall(json_int_t *victim)
{
	json_int_t ws = e2e_int(w.truth, "worst_start_ns"), we = e2e_int(w.truth, "worst_end_ns");
	const json_t *st;

	*victim = e2e_int(w.truth, "victim_tid");
	cr_assert_geq(we - ws, 1500000000, "the workload's longest call: %lld ns", we - ws);
	st = stall_in(w.stalls, *victim, ws, we);
	cr_assert_not_null(st, "no stall of the victim's call [%lld, %lld]", ws, we);
	return st;
}

/*
 * A wait of seconds: reported every second from 1 s on, each report with
 * the holder; then its stall, which counts the reports and names the first.
 */
Test(pending, reported_while_it_lasts_then_the_stall)
{
	const char *const watch[] = { "--pending-after", "1s", "--pending-every", "1s", NULL };
	struct e2e_watch_opts o = { .watch_args = watch };
	const json_t *st, *rep[64];
	json_int_t victim, holder, start, end, k;
	size_t n, i;

	e2e_watch__run_opts(&w, "long_hold", long_args, &o);
	holder = e2e_int(w.truth, "holder_tid");
	st = worst_stall(&victim);
	start = e2e_int(st, "start_ns");
	end = e2e_int(st, "end_ns");
	n = pending_of(w.pending, victim, start, rep, 64);
	cr_assert_geq(n, 1, "no pending record of the victim's %lld ns wait", end - start);
	cr_assert_eq(e2e_int(st, "pending_reports"), (json_int_t)n,
		     "the stall counts %lld reports, %zu were printed", e2e_int(st, "pending_reports"), n);
	cr_assert_eq(e2e_int(st, "first_report_ns"), e2e_int(rep[0], "end_ns"));
	for (i = 0; i < n && i < 64; i++) {
		k = e2e_int(rep[i], "end_ns");
		cr_assert_eq(e2e_int(rep[i], "report"), (json_int_t)i + 1);
		cr_assert(json_is_false(json_object_get(rep[i], "at_exit")));
		/* from 1 s into the wait, one a second, all before it ended */
		cr_assert_geq(k - start, 1000000000LL + (json_int_t)i * 1000000000LL,
			      "report %zu at %lld ns into the wait", i + 1, k - start);
		cr_assert_lt(k, end, "report %zu after the wait ended", i + 1);
		cr_assert_eq(e2e_int(rep[i], "wait_ns"), k - start);
		cr_assert(holder_with(rep[i], holder, 0, false), "report %zu does not name holder %lld: %s",
			  i + 1, holder, json_dumps(rep[i], JSON_COMPACT));
	}
	cr_assert_geq(e2e_int(w.summary, "pending_reports"), (json_int_t)n);
}

/*
 * lockstall stops while the victim still waits: the wait is reported at
 * exit, with the holder (starved by the hog) and the hog as who ran.
 */
Test(pending, at_exit_names_holder_and_preemptor)
{
	static const char *const args[] = { "-d", "1", "-u", "1500", "-s", "15", "-w", "1500", NULL };
	struct e2e_watch_opts o = { .stop_on = "\"waiting\":true" };
	json_int_t victim, holder, hog, call, seen_at, open_start = 0;
	const json_t *p, *line = NULL;
	json_error_t jerr;
	char *nl;
	size_t i, n = 0;

	e2e_watch__run_opts(&w, "long_hold", args, &o);
	/* the workload's first line: the victim has been in one call since call_start_ns */
	nl = strchr(w.workload.out.data, '\n');
	cr_assert_not_null(nl);
	line = json_loadb(w.workload.out.data, (size_t)(nl - w.workload.out.data), 0, &jerr);
	cr_assert_not_null(line, "%s", jerr.text);
	victim = e2e_int(line, "victim_tid");
	holder = e2e_int(line, "holder_tid");
	hog = e2e_int(line, "hog_tid");
	call = e2e_int(line, "call_start_ns");
	seen_at = e2e_int(line, "now_ns");
	json_array_foreach(w.pending, i, p) {
		if (!json_is_true(json_object_get(p, "at_exit")) ||
		    e2e_int(e2e_object(p, "waiter"), "tid") != victim)
			continue;
		n++;
		open_start = e2e_int(p, "start_ns");
		cr_assert_geq(e2e_int(p, "start_ns"), call, "the wait began before the call");
		cr_assert_leq(e2e_int(p, "start_ns"), seen_at);
		cr_assert_geq(e2e_int(p, "end_ns"), seen_at, "reported at exit before the workload said it waited");
		cr_assert(holder_with(p, holder, hog, true),
			  "holder %lld preempted by hog %lld not named: %s", holder, hog,
			  json_dumps(p, JSON_COMPACT));
		/* the hog ran instead (above); the chain names whoever ran most, on a shared host */
		cr_assert(has_task(e2e_array(p, "chain"), NULL, top_preemptor(p, holder)),
			  "the chain does not end at the holder's top preemptor: %s",
			  json_dumps(e2e_array(p, "chain"), JSON_COMPACT));
	}
	cr_assert_eq(n, 1, "%zu at-exit reports of the victim's wait", n);
	/* the mmap() of the pair may have waited and ended before its munmap() waits */
	cr_assert_null(stall_in(w.stalls, victim, open_start, open_start), "the open wait has a stall");
	cr_assert_geq(e2e_int(w.summary, "pending_at_exit"), 1);
	json_decref((json_t *)line);
}

/*
 * wait>=1s fires during the wait: the violation carries the pending
 * record, its hook ran with it, and the final stall is no second violation.
 */
Test(pending, slo_fires_during_the_wait)
{
	char hook[256];
	const char *watch[] = { "--slo", "comm=wl-victim wait>=1s every=1ms", "--exec", "/bin/sh",
				"-c", hook, ";", NULL };
	struct e2e_watch_opts o = { .watch_args = watch };
	const json_t *st, *v, *vst;
	json_int_t victim, start;
	size_t i, n = 0;
	char path[384], buf[4096] = "";
	FILE *f;

	snprintf(hook, sizeof(hook), "head -c 3000 > %s/hook.$$", dir);
	e2e_watch__run_opts(&w, "long_hold", long_args, &o);
	st = worst_stall(&victim);
	start = e2e_int(st, "start_ns");
	json_array_foreach(w.violations, i, v) {
		vst = json_array_get(e2e_array(v, "stalls"), 0);
		if (!vst || e2e_int(e2e_object(vst, "waiter"), "tid") != victim ||
		    e2e_int(vst, "start_ns") != start)
			continue;
		n++;
		cr_assert_str_eq(e2e_str(vst, "type"), "pending", "the violation came from the stall");
		cr_assert_lt(e2e_int(v, "at_ns"), e2e_int(st, "end_ns"), "fired after the wait ended");
		cr_assert_geq(e2e_int(v, "value_ns"), 1000000000);
	}
	cr_assert_eq(n, 1, "%zu violations for the one wait", n);
	/* the hooks ran (the summary counts them), each with a pending record or a stall */
	cr_assert_geq(e2e_int(e2e_object(e2e_object(w.summary, "slo"), "hooks"), "runs"), 1);
	snprintf(path, sizeof(path), "%s", dir);
	{
		DIR *d = opendir(path);
		struct dirent *de;
		bool pending_seen = false;

		cr_assert_not_null(d);
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "hook.", 5))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
			fclose(f);
			pending_seen |= strstr(buf, "\"stalls\":[{\"type\":\"pending\"") != NULL;
		}
		closedir(d);
		cr_assert(pending_seen, "no hook got a pending record");
	}
}

/* The lines of text that begin with prefix, each up to its newline, into lines (at most max). */
static size_t lines_with(const char *text, const char *prefix, char **lines, size_t max)
{
	const char *p, *nl;
	size_t n = 0;

	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (strncmp(p, prefix, strlen(prefix)))
			continue;
		if (n < max)
			lines[n] = strndup(p, nl ? (size_t)(nl - p) : strlen(p));
		n++;
	}
	return n;
}

/* The recording gives report the very pending records watch printed, byte for byte. */
Test(pending, replay_gives_the_same_pending_records)
{
	char file[128], *live[256], *again[256];
	const char *const watch[] = { "--pending-after", "1s", "--pending-every", "1s", "-o", file,
				      NULL };
	const char *const report[] = { "report", file, "--format", "json", "--pending-after", "1s",
				       "--pending-every", "1s", NULL };
	struct e2e_watch_opts o = { .watch_args = watch };
	struct e2e_proc p = E2E_PROC_INIT;
	size_t i, n_live, n_again;

	snprintf(file, sizeof(file), "%s/rec.lst", dir);
	e2e_watch__run_opts(&w, "long_hold", long_args, &o);
	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	n_live = lines_with(w.lockstall.out.data, "{\"type\":\"pending\"", live, 256);
	n_again = lines_with(p.out.data, "{\"type\":\"pending\"", again, 256);
	cr_assert_geq(n_live, 1, "the run had no pending record");
	cr_assert_eq(n_again, n_live, "report printed %zu pending records, watch %zu", n_again,
		     n_live);
	for (i = 0; i < n_live && i < 256; i++) {
		cr_assert_str_eq(again[i], live[i], "pending record %zu differs", i + 1);
		free(live[i]);
		free(again[i]);
	}
	e2e_proc__release(&p);
}
