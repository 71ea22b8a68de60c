// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The HTML report in a real browser: `lockstall report --format html` of
 * the golden recording, rendered by headless Chromium (Debian's chromium)
 * to a PNG, and its DOM after loading: the page loaded without errors and
 * its SVGs (a timeline per worst stall, the histograms) are there and not
 * empty.  No BPF needed; skips without chromium, fails then under
 * LOCKSTALL_E2E=required.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"
#include "lib/trace_fixture.h"

#define CHROMIUM_TIMEOUT_MS	90000	/* a safety net: a render takes seconds */
#define SHOT_W			1200
#define SHOT_H			2000

static char dir[64];

static void setup(void)
{
	strcpy(dir, "/tmp/lockstall-html-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		cr_log_warn("could not remove %s", dir);
}

TestSuite(report_html, .init = setup, .fini = teardown, .timeout = 240);

/* $LOCKSTALL_CHROMIUM, else /usr/bin/chromium; skip (or fail) without it. */
static const char *chromium(void)
{
	const char *bin = getenv("LOCKSTALL_CHROMIUM");
	const char *mode = getenv("LOCKSTALL_E2E");

	if (!bin || !*bin)
		bin = "/usr/bin/chromium";
	if (!access(bin, X_OK))
		return bin;
	if (mode && !strcmp(mode, "required"))
		cr_assert_fail("LOCKSTALL_E2E=required, but there is no %s (apt-get install chromium)",
			       bin);
	cr_log_warn("skipped: no %s (apt-get install chromium)", bin);
	cr_skip_test("no %s", bin);
	return NULL;
}

/* Run chromium headless on url with one more option (the output). */
static void chromium_run(struct e2e_proc *p, const char *bin, const char *what, const char *url)
{
	struct e2e_proc *one[1] = { p };
	char profile[96], size[48], prof_arg[128];
	char *argv[] = {
		(char *)bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--enable-logging=stderr", prof_arg, size, (char *)what,
		(char *)url, NULL,
	};
	int rc;

	/* a fresh profile per run: nothing carried over from the last one */
	snprintf(profile, sizeof(profile), "%s/profile-XXXXXX", dir);
	cr_assert_not_null(mkdtemp(profile), "%s", profile);
	snprintf(prof_arg, sizeof(prof_arg), "--user-data-dir=%s", profile);
	snprintf(size, sizeof(size), "--window-size=%d,%d", SHOT_W, SHOT_H);
	*p = (struct e2e_proc)E2E_PROC_INIT;
	rc = e2e_proc__spawn(p, "chromium", argv);
	cr_assert_eq(rc, 0, "cannot start %s: %s", bin, strerror(-rc));
	rc = e2e_proc__pump(one, 1, CHROMIUM_TIMEOUT_MS, NULL, NULL);
	cr_assert_eq(rc, 0, "chromium did not finish: %s; stderr:\n%s", strerror(-rc), p->err.data);
	cr_assert_eq(e2e_proc__exit_code(p), 0, "chromium: status %#x; stderr:\n%s", p->status,
		     p->err.data);
	/* what the page's console says: a blocked resource or a script error */
	cr_assert_null(strstr(p->err.data, "Refused to"), "%s", p->err.data);
	cr_assert_null(strstr(p->err.data, "Uncaught"), "%s", p->err.data);
}

static __u32 be32(const unsigned char *b)
{
	return (__u32)b[0] << 24 | (__u32)b[1] << 16 | (__u32)b[2] << 8 | b[3];
}

/* Every <svg ...>...</svg> of a class has shapes in it; returns how many there are. */
static unsigned int svgs_with_shapes(const char *dom, const char *cls)
{
	char open[64];
	const char *p = dom, *end, *rect;
	unsigned int n = 0;

	snprintf(open, sizeof(open), "<svg class=\"%s\"", cls);
	while ((p = strstr(p, open))) {
		end = strstr(p, "</svg>");
		cr_assert_not_null(end, "an unclosed %s svg", cls);
		rect = strstr(p, "<rect");
		cr_assert(rect && rect < end, "an empty %s svg", cls);
		n++;
		p = end;
	}
	return n;
}

Test(report_html, renders_in_chromium)
{
	const char *bin = chromium();
	char lst[512], html[128], png[128], url[160], shot[160];
	const char *const report[] = { "report", lst, "--format", "html", "-o", html, NULL };
	unsigned char head[24];
	struct e2e_proc p;
	struct stat st;
	FILE *f;

	snprintf(lst, sizeof(lst), "%s/golden.lst", trace_fixture__data_dir());
	snprintf(html, sizeof(html), "%s/report.html", dir);
	snprintf(png, sizeof(png), "%s/report.png", dir);
	snprintf(url, sizeof(url), "file://%s", html);
	snprintf(shot, sizeof(shot), "--screenshot=%s", png);

	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	e2e_proc__release(&p);

	/* a picture of the right size */
	chromium_run(&p, bin, shot, url);
	e2e_proc__release(&p);
	cr_assert_eq(stat(png, &st), 0, "no %s", png);
	cr_assert_gt(st.st_size, 10000, "a %lld-byte screenshot is blank", (long long)st.st_size);
	f = fopen(png, "rb");
	cr_assert_not_null(f);
	cr_assert_eq(fread(head, 1, sizeof(head), f), sizeof(head));
	fclose(f);
	cr_assert(!memcmp(head, "\x89PNG\r\n\x1a\n", 8), "not a PNG");
	cr_assert_eq(be32(head + 16), SHOT_W);
	cr_assert_eq(be32(head + 20), SHOT_H);

	/* the DOM as loaded: our content, the SVGs whole, no error page */
	chromium_run(&p, bin, "--dump-dom", url);
	cr_assert_not_null(strstr(p.out.data, "<h1>lockstall report"), "%s", p.out.data);
	cr_assert_not_null(strstr(p.out.data, "Worst stalls"), "%s", p.out.data);
	cr_assert_null(strstr(p.out.data, "ERR_"), "%s", p.out.data);
	/* three stalls in the golden recording, three histograms */
	cr_assert_eq(svgs_with_shapes(p.out.data, "timeline"), 3, "%s", p.out.data);
	cr_assert_eq(svgs_with_shapes(p.out.data, "hist"), 3, "%s", p.out.data);
	cr_assert_null(strstr(p.out.data, "<script"), "%s", p.out.data);
	e2e_proc__release(&p);
}

/* The golden run as three hosts recorded it, a second apart. */
static void fleet_dir(char *fleet, size_t len)
{
	static const char *const hosts[] = { "web-1", "web-2", "db-1" };
	struct trace_fixture_meta m = { 0 };
	char path[256];
	struct stream s;
	size_t i;

	snprintf(fleet, len, "%s/fleet", dir);
	cr_assert_eq(mkdir(fleet, 0700), 0);
	stream__init(&s);
	trace_fixture__stream(&s);
	for (i = 0; i < 3; i++) {
		m = (struct trace_fixture_meta){ hosts[i], hosts[i], TFX_REALTIME_NS + i * 1000000000ULL };
		snprintf(path, sizeof(path), "%s/%s.lst", fleet, hosts[i]);
		cr_assert_eq(trace_fixture__write_as(path, &s, &m), 0);
	}
	stream__free(&s);
}

Test(report_html, fleet_renders_in_chromium)
{
	const char *bin = chromium();
	char fleet[128], html[128], url[160];
	const char *const report[] = { "report", fleet, "--format", "html", "-o", html, NULL };
	struct e2e_proc p;

	fleet_dir(fleet, sizeof(fleet));
	snprintf(html, sizeof(html), "%s/fleet.html", dir);
	snprintf(url, sizeof(url), "file://%s", html);
	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	e2e_proc__release(&p);

	chromium_run(&p, bin, "--dump-dom", url);
	cr_assert_not_null(strstr(p.out.data, "<h1>lockstall fleet report"), "%s", p.out.data);
	cr_assert_not_null(strstr(p.out.data, "3 recordings of 3 hosts"), "%s", p.out.data);
	cr_assert_null(strstr(p.out.data, "ERR_"), "%s", p.out.data);
	/* every host's stalls on one axis; wl-victim's waits of the three hosts in one histogram */
	cr_assert_eq(svgs_with_shapes(p.out.data, "fleet-timeline"), 1, "%s", p.out.data);
	cr_assert_eq(svgs_with_shapes(p.out.data, "hist"), 1, "%s", p.out.data);
	cr_assert_not_null(strstr(p.out.data, "wl-victim on 3 hosts"), "%s", p.out.data);
	cr_assert_null(strstr(p.out.data, "<script"), "%s", p.out.data);
	e2e_proc__release(&p);
}
