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
#include "lib/http_get.h"


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

struct scrape {
	struct http_resp resp;
	int rc;
};

/* lockstall's pipes keep flowing while the test waits for its answer. */
static void pump_lockstall(void *ctx)
{
	struct e2e_proc *procs[1] = { ctx };

	e2e_proc__pump(procs, 1, 10, NULL, NULL);
}

/* After the workload, before the stop: GET /metrics from the running watch. */
static void scrape(struct e2e_watch *run, void *ctx)
{
	const char *line = e2e_buf__line_with_prefix(&run->lockstall.err,
						     "lockstall: serving metrics at http://");
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: lockstall\r\n\r\n";
	struct scrape *sc = ctx;
	char addr[64];
	int fd;

	cr_assert_not_null(line, "no \"serving metrics\" line; stderr: %s", run->lockstall.err.data);
	cr_assert_eq(sscanf(line, "lockstall: serving metrics at http://%63[0-9.:]/metrics", addr), 1,
		     "%s", line);
	fd = http_get__connect(addr);
	cr_assert_geq(fd, 0, "connect to %s: %s", addr, strerror(-fd));
	cr_assert_eq(http_get__send(fd, req, strlen(req)), 0);
	sc->rc = http_get__read(fd, &sc->resp, 30000, pump_lockstall, &run->lockstall);
	close(fd);
}

/*
 * --metrics-listen during the proc_reader workload: a scrape over loopback
 * while lockstall traces is valid exposition text (promtool) and already
 * counts the workload's inversions, which the final summary then confirms.
 */
Test(metrics, scrape_during_watch)
{
	const char *const args[] = { "--metrics-listen", "127.0.0.1:0", NULL };
	struct scrape sc = { 0 };
	const struct e2e_watch_opts o = { .watch_args = args, .before_stop = scrape, .ctx = &sc };
	char ctype[128], cmd[256];
	long long inversions;
	FILE *f;

	e2e_watch__run_opts(&w, "proc_reader", NULL, &o);
	cr_assert_eq(sc.rc, 0, "the scrape got no whole answer: %s", sc.resp.data);
	cr_assert_eq(sc.resp.status, 200, "%s", sc.resp.data);
	cr_assert(http_get__header(&sc.resp, "Content-Type", ctype, sizeof(ctype)));
	cr_assert_str_eq(ctype, "text/plain; version=0.0.4; charset=utf-8");
	cr_assert_not_null(sc.resp.body);
	inversions = sample(sc.resp.body, "lockstall_stalls_total{verdict=\"priority_inversion\"}");
	cr_assert_gt(inversions, 0, "the workload's inversions are not in the scrape:\n%s",
		     sc.resp.body);
	cr_assert_leq(inversions, (long long)verdict_stalls(w.stalls, "priority_inversion"));
	cr_assert_gt(sample(sc.resp.body, "lockstall_events_total"), 0);
	cr_assert_geq(sample(sc.resp.body, "lockstall_resident_memory_bytes"), 1);
	cr_assert_not_null(strstr(sc.resp.body, "\nlockstall_cpu_seconds_total "));

	if (have_promtool()) {
		f = fopen(path, "w");
		cr_assert_not_null(f);
		fputs(sc.resp.body, f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "'%s' check metrics < '%s'", promtool(), path);
		cr_assert_eq(system(cmd), 0, "promtool check metrics failed on:\n%s", sc.resp.body);
	}
	http_resp__free(&sc.resp);
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

/* "promtool WHAT" on the example rules must succeed (skipped without promtool). */
static void promtool_rules(const char *what)
{
	char cmd[4200];

	if (!have_promtool())
		cr_skip_test("no promtool");
	snprintf(cmd, sizeof(cmd), "'%s' %s > /dev/null", promtool(), what);
	cr_assert_eq(system(cmd), 0, "promtool %s failed", what);
}

Test(metrics, alert_rules_are_valid)
{
	promtool_rules("check rules scripts/lockstall.alerts.yml");
}

/* The alerts fire on series that mimic a stall, and stay quiet on a quiet host. */
Test(metrics, alert_rules_fire)
{
	promtool_rules("test rules scripts/lockstall.alerts.test.yml");
}
