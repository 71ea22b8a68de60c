// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall report FILE... | DIR, in process (src/cmd_report_fleet.c):
 * recordings of the golden run written under different host names, and
 * among them files that are no recording, cut short, of an older format,
 * or unreadable.  The report covers what it can read, names what it left
 * out, and its exit code says which happened.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include "cli/cli.h"
#include "commands.h"
#include "lib/tmpdir.h"
#include "lib/trace_fixture.h"
#include "util.h"

static char dir[64];
static struct stream golden;

struct run {
	int rc;
	char *out, *err;
	size_t out_len, err_len;
};

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "fleet");
	stream__init(&golden);
	trace_fixture__stream(&golden);
}

static void teardown(void)
{
	stream__free(&golden);
	tmpdir__remove(dir);
}

TestSuite(fleet_report, .init = setup, .fini = teardown, .timeout = 60);

static const char *path_of(const char *name)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* The golden run as host recorded it, boot (NULL: none), at realtime (0: no clock). */
static void write_rec(const char *name, const char *host, const char *boot, __u64 realtime)
{
	struct trace_fixture_meta m = { host, boot, realtime };

	cr_assert_eq(trace_fixture__write_as(path_of(name), &golden, &m), 0);
}

static void write_bytes(const char *name, const void *buf, size_t len)
{
	FILE *f = fopen(path_of(name), "w");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* lockstall report ARGS... (NULL-terminated), through the real parser. */
static void report(struct run *r, const char *const args[])
{
	char *argv[64];
	struct ls_config cfg;
	FILE *out, *err;
	int argc = 0;

	memset(r, 0, sizeof(*r));
	argv[argc++] = "lockstall";
	argv[argc++] = "report";
	while (*args && argc < 63)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	out = open_memstream(&r->out, &r->out_len);
	err = open_memstream(&r->err, &r->err_len);
	r->rc = cli__parse(argc, argv, &cfg, err);
	if (!r->rc)
		r->rc = cmd_report(&cfg, out, err);
	fclose(out);
	fclose(err);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static void three_hosts(void)
{
	write_rec("web-1.lst", "web-1", "boot-1", TFX_REALTIME_NS);
	write_rec("web-2.lst", "web-2", "boot-2", TFX_REALTIME_NS + 3 * NSEC_PER_SEC);
	write_rec("db-1.lst", "db-1", "boot-3", TFX_REALTIME_NS + 7 * NSEC_PER_SEC);
}

Test(fleet_report, a_directory_names_the_common_culprit_and_its_hosts)
{
	const char *args[] = { dir, NULL };
	struct run r;

	three_hosts();
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	cr_assert(strstr(r.out, "3 recordings of 3 hosts"), "%s", r.out);
	cr_assert(strstr(r.out, "3 of 3  wl-io"), "%s", r.out);
	cr_assert(strstr(r.out, "3 of 3  /user.slice/user-1000.slice/session-2.scope"), "%s", r.out);
	/* db-1's worst stall is at 06:40:07.505 UTC, the others' earlier */
	cr_assert(strstr(r.out, "2026-12-03 06:40:07.505 UTC  db-1"), "%s", r.out);
	cr_assert(strstr(r.out, "wl-victim on 3 hosts"), "%s", r.out);
	/* the golden run's 3 lock operations in that slot, three times */
	cr_assert(strstr(r.out, "32768 -> 65536      : 9 "), "%s", r.out);
	run_free(&r);
}

Test(fleet_report, files_and_their_directory_report_alike)
{
	const char *by_dir[] = { dir, NULL };
	const char *by_file[] = { path_of("web-2.lst"), path_of("db-1.lst"), path_of("web-1.lst"),
				  NULL };
	struct run a, b;

	three_hosts();
	report(&a, by_dir);
	report(&b, by_file);
	cr_assert_eq(a.rc, LS_EXIT_OK);
	cr_assert_eq(b.rc, LS_EXIT_OK);
	cr_assert_str_eq(a.out, b.out);
	run_free(&a);
	run_free(&b);
}

Test(fleet_report, bad_files_are_named_and_left_out)
{
	const char *args[] = { dir, NULL };
	unsigned char *buf;
	size_t len;
	struct run r;

	three_hosts();
	write_bytes("notes.txt", "not a recording\n", 16);
	buf = trace_fixture__slurp(path_of("web-1.lst"), &len);
	cr_assert_not_null(buf);
	write_bytes("cut.lst", buf, 20);	/* inside the file header */
	write_bytes("half.lst", buf, len / 2);	/* read up to the damage */
	free(buf);
	cr_assert_eq(chmod(path_of("db-1.lst"), 0), 0);
	cr_assert_eq(mkfifo(path_of("fifo.lst"), 0600), 0);	/* no writer: must not be waited for */
	cr_assert_eq(mkdir(path_of("old"), 0700), 0);
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_PARTIAL, "%s", r.err);
	cr_assert(strstr(r.out, "Left out:"), "%s", r.out);
	cr_assert(strstr(r.out, "notes.txt: not a lockstall recording"), "%s", r.out);
	cr_assert(strstr(r.out, "cut.lst: cut short in its header"), "%s", r.out);
	cr_assert(strstr(r.out, "fifo.lst: not a regular file"), "%s", r.out);
	cr_assert(strstr(r.out, "old: a directory"), "%s", r.out);
	cr_assert(strstr(r.err, "notes.txt: not a lockstall recording: left out"), "%s", r.err);
	if (geteuid())	/* root reads a file of mode 0 */
		cr_assert(strstr(r.out, "db-1.lst: "), "%s", r.out);
	/* half.lst is read up to its damage: web-1's stalls count there too */
	cr_assert(strstr(r.out, "web-1                         2"), "%s", r.out);
	run_free(&r);
	rmdir(path_of("old"));	/* tmpdir__remove() takes files only */
}

Test(fleet_report, nothing_readable_fails)
{
	const char *args[] = { path_of("a"), path_of("b"), NULL };
	struct run r;

	write_bytes("a", "x", 1);
	write_bytes("b", "LOCKSTAL", 8);
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_FAILURE);
	cr_assert(strstr(r.err, "none of the 2 files could be read"), "%s", r.err);
	cr_assert_eq(r.out_len, 0);
	run_free(&r);
}

Test(fleet_report, an_older_format_among_new_ones)
{
	char abi2[512];
	const char *args[] = { path_of("web-1.lst"), abi2, NULL };
	struct run r;

	snprintf(abi2, sizeof(abi2), "%s/golden-abi2.lst", trace_fixture__data_dir());
	write_rec("web-1.lst", "web-1", "boot-1", TFX_REALTIME_NS + 10 * NSEC_PER_SEC);
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	cr_assert(strstr(r.out, "2 recordings of 2 hosts"), "%s", r.out);
	run_free(&r);
}

Test(fleet_report, host_pattern_keeps_those_hosts)
{
	const char *args[] = { dir, "--host", "web-*", NULL };
	const char *none[] = { dir, "--host", "mail-*", NULL };
	struct run r;

	three_hosts();
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	cr_assert(strstr(r.out, "2 recordings of 2 hosts matching web-*"), "%s", r.out);
	cr_assert_null(strstr(r.out, "db-1"), "%s", r.out);
	run_free(&r);
	report(&r, none);
	cr_assert_eq(r.rc, LS_EXIT_FAILURE);
	cr_assert(strstr(r.err, "no recording of a host matching 'mail-*'"), "%s", r.err);
	run_free(&r);
}

Test(fleet_report, a_copy_of_a_recording_is_counted_once)
{
	const char *args[] = { dir, NULL };
	struct run r;

	write_rec("web-1.lst", "web-1", "boot-1", TFX_REALTIME_NS);
	write_rec("web-1-copy.lst", "web-1", "boot-1", TFX_REALTIME_NS);
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	cr_assert(strstr(r.out, "\n3 stalls (repeats in overlapping recordings counted once)"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "web-1.lst overlaps"), "%s", r.out);
	run_free(&r);
}

Test(fleet_report, options_keep_their_meaning_per_host)
{
	const char *window[] = { dir, "--from", "300ms", "--to", "400ms", NULL };
	const char *pid[] = { dir, "-p", "300", NULL };
	struct run r;

	three_hosts();
	/* the golden run's window of 300-400ms holds its one contention stall */
	report(&r, window);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	cr_assert(strstr(r.out, "\n3 stalls,"), "%s", r.out);
	cr_assert(strstr(r.out, "3 of 3  wl-mprotect"), "%s", r.out);
	cr_assert_null(strstr(r.out, "wl-io"), "%s", r.out);
	run_free(&r);
	/* process 300 (the readers) is in two of the golden run's stalls */
	report(&r, pid);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	cr_assert(strstr(r.out, "\n6 stalls,"), "%s", r.out);
	cr_assert_null(strstr(r.out, "wl-mprotect"), "%s", r.out);
	run_free(&r);
}

Test(fleet_report, json_lines_parse_and_name_every_stall)
{
	const char *args[] = { dir, "--format", "json", NULL };
	json_t *j;
	json_error_t e;
	char *line, *save = NULL;
	size_t stalls = 0, n = 0;
	struct run r;

	three_hosts();
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		j = json_loads(line, 0, &e);
		cr_assert_not_null(j, "%s: %s", line, e.text);
		if (!n++)
			cr_assert_str_eq(json_string_value(json_object_get(j, "type")), "fleet");
		stalls += !strcmp(json_string_value(json_object_get(j, "type")), "fleet_stall");
		json_decref(j);
	}
	cr_assert_eq(stalls, 9);
	run_free(&r);
}

Test(fleet_report, one_recording_only_options_are_refused)
{
	const char *slo[] = { path_of("a.lst"), path_of("b.lst"), "--slo", "wait>10ms", NULL };
	const char *per_pid[] = { dir, "--per-pid", NULL };
	struct run r;

	report(&r, slo);
	cr_assert_eq(r.rc, LS_EXIT_USAGE);
	cr_assert(strstr(r.err, "--slo goes with one recording"), "%s", r.err);
	run_free(&r);
	report(&r, per_pid);
	cr_assert_eq(r.rc, LS_EXIT_USAGE);
	cr_assert(strstr(r.err, "--per-pid goes with one recording"), "%s", r.err);
	run_free(&r);
}

Test(fleet_report, markdown_has_a_row_per_host)
{
	const char *args[] = { dir, "--format", "markdown", NULL };
	struct run r;

	three_hosts();
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	cr_assert(strstr(r.out, "# lockstall fleet report: 3 recordings of 3 hosts"), "%s", r.out);
	cr_assert(strstr(r.out, "## Hosts\n\n| HOST | FILES |"), "%s", r.out);
	cr_assert(strstr(r.out, "| db-1 | 1 | 3 | 60ms | wl-io |"), "%s", r.out);
	cr_assert(strstr(r.out, "| 180ms | 3 | 3 of 3 | wl-io |"), "%s", r.out);
	run_free(&r);
}

Test(fleet_report, perfetto_has_a_process_per_host)
{
	const char *args[] = { dir, "--format", "perfetto", NULL };
	json_t *j, *ev;
	json_error_t e;
	size_t i, names = 0, slices = 0;
	struct run r;

	three_hosts();
	report(&r, args);
	cr_assert_eq(r.rc, LS_EXIT_OK, "%s", r.err);
	j = json_loads(r.out, 0, &e);
	cr_assert_not_null(j, "%s: %s", e.text, r.out);
	json_array_foreach(json_object_get(j, "traceEvents"), i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));

		names += !strcmp(ph, "M");
		slices += !strcmp(ph, "X");
	}
	cr_assert_eq(names, 3);
	cr_assert_eq(slices, 9);
	json_decref(j);
	run_free(&r);
}
