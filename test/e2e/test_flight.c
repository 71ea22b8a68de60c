// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * watch --flight-recorder, run as the daemon runs (stopped by SIGTERM):
 * the inversion of proc_reader breaks a rule, the recorder writes a file
 * for it, and `lockstall report FILE --format json` finds in that file the
 * very stall that broke the rule: same waiter, same holder, same times.
 * SIGTERM ends the run like Ctrl-C: exit 0, the summary, the metrics file
 * written a last time.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"
#include "lib/tmpdir.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static char dir[64];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "e2e-flight");
}

static void teardown(void)
{
	e2e_watch__release(&w);
	tmpdir__remove(dir);
}

TestSuite(flight, .init = setup, .fini = teardown, .timeout = 120);

/* The recordings in dir, as paths (each checked: ours, mode 0600). */
static json_t *recordings(void)
{
	json_t *all = json_array();
	struct dirent *de;
	DIR *d = opendir(dir);

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		char path[512];
		struct stat sb;

		if (strncmp(de->d_name, "lockstall-", 10))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		cr_assert_eq(stat(path, &sb), 0);
		cr_assert_eq(sb.st_mode & 0777, 0600, "%s: mode %o", path, sb.st_mode & 0777);
		cr_assert(strstr(path, "-rule1"), "%s", path);
		json_array_append_new(all, json_string(path));
	}
	closedir(d);
	return all;
}

/* The stall and pending objects `lockstall report FILE --format json` prints. */
static json_t *report_stalls(const char *file)
{
	const char *const args[] = { "report", file, "--format", "json", NULL };
	struct e2e_proc p = E2E_PROC_INIT;
	json_t *stalls = json_array();
	char *copy, *save = NULL, *line;

	e2e_run_cli(&p, args);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "lockstall report %s failed: %s", file,
		     p.err.data);
	e2e_json_log(p.out.data);
	copy = strdup(p.out.data ? p.out.data : "");
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t jerr;
		json_t *j = json_loads(line, 0, &jerr);

		cr_assert_not_null(j, "report line is not JSON (%s): %.300s", jerr.text, line);
		/* a violation may be of a wait still going on: its pending report */
		if (!strcmp(e2e_str(j, "type"), "stall") || !strcmp(e2e_str(j, "type"), "pending"))
			json_array_append(stalls, j);
		json_decref(j);
	}
	free(copy);
	e2e_proc__release(&p);
	return stalls;
}

static json_int_t holder_tid(const json_t *st)
{
	const json_t *h = json_array_get(e2e_array(st, "holders"), 0);

	cr_assert_not_null(h, "a stall without holders");
	return e2e_int(h, "tid");
}

/*
 * The victim of another proc_reader on the machine matches comm= too, and
 * its violations make files of their own: the test looks for the first
 * violation of ours, and for its stall in every recording.
 */
Test(flight, violation_is_recorded)
{
	char metrics[128];
	const char *const args[] = {
		"--slo", "comm=wl-victim verdict=priority_inversion wait>=5ms every=1ns",
		"--flight-recorder", dir, "--keep", "30s", "--metrics-file", metrics, NULL,
	};
	const struct e2e_watch_opts o = { .watch_args = args, .stop_signal = SIGTERM };
	const json_t *v, *broke = NULL, *st, *found = NULL, *file;
	json_t *files, *stalls = NULL;
	json_int_t victim;
	struct stat sb;
	size_t i, k;

	snprintf(metrics, sizeof(metrics), "%s/metrics.prom", dir);
	e2e_watch__run_opts(&w, "proc_reader", NULL, &o);
	/* SIGTERM: exit 0 (checked by the run), the summary, the metrics flushed */
	cr_assert_not_null(w.summary);
	cr_assert_eq(stat(metrics, &sb), 0, "no metrics file after SIGTERM");

	victim = e2e_int(w.truth, "victim_tid");
	json_array_foreach(w.violations, i, v) {
		if (e2e_int(e2e_object(v, "victim"), "tid") == victim) {
			broke = json_array_get(e2e_array(v, "stalls"), 0);
			break;
		}
	}
	cr_assert_not_null(broke, "the rule never fired on our victim %lld; stderr:\n%s", victim,
			   w.lockstall.err.data);
	files = recordings();
	cr_assert_gt(json_array_size(files), 0, "no recording; stderr:\n%s", w.lockstall.err.data);
	json_array_foreach(files, k, file) {
		stalls = report_stalls(json_string_value(file));
		json_array_foreach(stalls, i, st) {
			if (e2e_int(st, "end_ns") == e2e_int(broke, "end_ns") &&
			    e2e_int(e2e_object(st, "waiter"), "tid") == victim &&
			    !strcmp(e2e_str(st, "type"), e2e_str(broke, "type")))
				found = st;
		}
		if (found)
			break;
		json_decref(stalls);
		stalls = NULL;
	}
	cr_assert_not_null(found, "no recording has the stall ending at %lld of waiter %lld (%zu files); stderr:\n%s",
			   e2e_int(broke, "end_ns"), victim, json_array_size(files),
			   w.lockstall.err.data);
	cr_assert_eq(holder_tid(found), holder_tid(broke));
	cr_assert_eq(holder_tid(found), e2e_int(w.truth, "holder_tid"));
	cr_assert_str_eq(e2e_str(found, "verdict"), e2e_str(broke, "verdict"));
	cr_assert_eq(e2e_int(found, "lock_wait_ns"), e2e_int(broke, "lock_wait_ns"));
	json_decref(stalls);
	json_decref(files);
}

/* A directory that cannot be used fails before tracing starts: exit 1. */
Test(flight, bad_directory)
{
	const char *const args[] = { "watch", "-d", "1", "--slo", "wait>=1s", "--flight-recorder",
				     "/nonexistent-lockstall-dir", NULL };
	struct e2e_proc p = E2E_PROC_INIT;

	e2e_run_cli(&p, args);
	cr_assert_eq(e2e_proc__exit_code(&p), 1);
	cr_assert_not_null(strstr(p.err.data ? p.err.data : "",
				  "cannot use as the flight recorder's directory"),
			   "stderr: %s", p.err.data);
	e2e_proc__release(&p);
}
