// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * watch --metrics-file during the proc_reader workload: the file written at
 * exit counts the inversions lockstall printed in the same run, is valid
 * exposition text (promtool, when installed) and leaves no temporary file.
 * The example alerting rules are checked by promtool too.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"


static struct e2e_watch w = E2E_WATCH_INIT;
static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lockstall-e2e-metrics-XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp");
	snprintf(path, sizeof(path), "%s/lockstall.prom", dir);
}

static void teardown(void)
{
	e2e_watch__release(&w);
	unlink(path);
	rmdir(dir);
}

TestSuite(metrics, .init = setup, .fini = teardown, .timeout = 120);

/* promtool, out of Debian's prometheus package (scripts/get-promtool, make test-e2e). */
static const char *promtool(void)
{
	const char *p = getenv("LOCKSTALL_PROMTOOL");

	return p && *p ? p : "/usr/bin/promtool";
}

static bool have_promtool(void)
{
	const char *mode = getenv("LOCKSTALL_E2E");

	if (!access(promtool(), X_OK))
		return true;
	cr_assert(!mode || strcmp(mode, "required"),
		  "LOCKSTALL_E2E=required, but no %s (scripts/get-promtool build/tools)", promtool());
	cr_log_warn("no %s: exposition format not checked by promtool", promtool());
	return false;
}

static long long sample(const char *text, const char *series)
{
	const char *p = strstr(text, series);
	size_t n = strlen(series);

	/* at the start of a line, followed by the value */
	while (p && ((p != text && p[-1] != '\n') || p[n] != ' '))
		p = strstr(p + 1, series);
	cr_assert_not_null(p, "no %s in the metrics file:\n%s", series, text);
	return atoll(p + n + 1);
}

static size_t verdict_stalls(const json_t *stalls, const char *verdict)
{
	const json_t *st;
	size_t i, n = 0;

	json_array_foreach(stalls, i, st) {
		if (!strcmp(e2e_str(st, "verdict"), verdict))
			n++;
	}
	return n;
}

Test(metrics, proc_reader_inversions)
{
	const char *const args[] = { "--metrics-file", path, "--metrics-interval", "1", NULL };
	char *text = NULL, cmd[256];
	size_t len = 0, entries = 0;
	struct dirent *de;
	long long inversions;
	FILE *f, *m;
	DIR *d;
	int c;

	e2e_watch__run_with(&w, "proc_reader", NULL, args);

	f = fopen(path, "r");
	cr_assert_not_null(f, "no metrics file %s; stderr: %s", path, w.lockstall.err.data);
	m = open_memstream(&text, &len);
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(f);
	fclose(m);

	inversions = sample(text, "lockstall_stalls_total{verdict=\"priority_inversion\"}");
	cr_assert_gt(inversions, 0, "no inversion counted:\n%s", text);
	/* written after the summary: the same counts as the stalls printed */
	cr_assert_eq(inversions, (long long)verdict_stalls(w.stalls, "priority_inversion"));
	cr_assert_eq(sample(text, "lockstall_events_total"), e2e_int(w.summary, "events"));
	cr_assert_gt(sample(text, "lockstall_wait_seconds_count{mode=\"write\"}"), 0);

	d = opendir(dir);
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			entries++;
	}
	closedir(d);
	cr_assert_eq(entries, 1, "a temporary metrics file is left in %s", dir);

	if (have_promtool()) {
		snprintf(cmd, sizeof(cmd), "'%s' check metrics < '%s'", promtool(), path);
		cr_assert_eq(system(cmd), 0, "promtool check metrics failed on:\n%s", text);
	}
	free(text);
}

/* A directory that does not exist fails before tracing starts: exit 1. */
Test(metrics, bad_directory)
{
	const char *const args[] = { "watch", "-d", "1", "--metrics-file",
				     "/nonexistent-lockstall-dir/m.prom", NULL };
	struct e2e_proc p = E2E_PROC_INIT;

	e2e_run_cli(&p, args);
	cr_assert_eq(e2e_proc__exit_code(&p), 1);
	cr_assert_not_null(strstr(p.err.data ? p.err.data : "", "cannot write metrics"),
			   "stderr: %s", p.err.data);
	e2e_proc__release(&p);
}

Test(metrics, alert_rules_are_valid)
{
	char cmd[4200];

	if (!have_promtool())
		cr_skip_test("no promtool");
	snprintf(cmd, sizeof(cmd), "'%s' check rules scripts/lockstall.alerts.yml > /dev/null",
		 promtool());
	cr_assert_eq(system(cmd), 0, "promtool check rules scripts/lockstall.alerts.yml failed");
}
