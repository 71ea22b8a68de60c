// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Postmortems end to end: `lockstall watch --json -o FILE` during a real
 * workload, then `lockstall report FILE --format json` prints the very same
 * bytes (same stalls, chains, verdicts, summary); `lockstall record`
 * writes a file report reads; and the command line refuses what it must
 * (usage errors exit 2, runtime errors 1) without touching existing files.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static struct e2e_proc p = E2E_PROC_INIT;
static char dir[64];

static void setup(void)
{
	strcpy(dir, "/tmp/lockstall-e2e-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	e2e_watch__release(&w);
	e2e_proc__release(&p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		cr_log_warn("could not remove %s", dir);
}

static const char *in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

TestSuite(record, .init = setup, .fini = teardown, .timeout = 120);

Test(record, report_prints_what_watch_printed)
{
	const char *const wl_args[] = { NULL };
	char file[128];
	/*
	 * Without stacks: a live run names a process's frames only if its
	 * mappings could be read in time (its mmap_lock may be busy), a
	 * report always can; the analysis itself must be the same byte for
	 * byte.  test/e2e/test_stacks.c checks the stacks of reports.
	 */
	const char *const watch_args[] = { "-o", in_dir(file, sizeof(file), "run.lst"), "--no-stacks",
					   NULL };
	const char *const report[] = { "report", file, "--format", "json", NULL };
	const char *const report_text[] = { "report", file, NULL };
	struct stat st;

	e2e_watch__run_with(&w, "proc_reader", wl_args, watch_args);
	cr_assert_gt(json_array_size(w.stalls), 0, "watch found no stall to compare");
	cr_assert_eq(stat(file, &st), 0, "no recording at %s", file);
	cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);

	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: status %#x; stderr:\n%s", p.status,
		     p.err.data);
	/* byte for byte: every stall line, in order, and the summary */
	cr_assert_eq(p.out.len, w.lockstall.out.len,
		     "report printed %zu bytes, watch %zu; report stderr:\n%s", p.out.len,
		     w.lockstall.out.len, p.err.data);
	cr_assert(!memcmp(p.out.data, w.lockstall.out.data, p.out.len),
		  "report differs from what watch printed");
	cr_assert(strstr(p.err.data, "recorded on "), "no header on stderr: %s", p.err.data);
	cr_assert_null(strstr(p.err.data, "cut short"), "%s", p.err.data);
	e2e_proc__release(&p);

	e2e_run_cli(&p, report_text);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "stderr:\n%s", p.err.data);
	cr_assert(strstr(p.out.data, "STALL #1 "), "no stall in the text report:\n%s", p.out.data);
	cr_assert(strstr(p.out.data, "SUMMARY"), "no summary in the text report");
}

/*
 * With metrics on, watch reads the histograms for them every
 * --metrics-interval; those readings are not in the recording, and the
 * report of it must still print what watch printed, events count included.
 */
Test(record, report_with_metrics_prints_what_watch_printed)
{
	const char *const wl_args[] = { NULL };
	char file[128], prom[128];
	const char *const watch_args[] = { "-o", in_dir(file, sizeof(file), "run.lst"), "--no-stacks",
					   "--metrics-file", in_dir(prom, sizeof(prom), "m.prom"),
					   "--metrics-interval", "100ms", NULL };
	const char *const report[] = { "report", file, "--format", "json", NULL };
	struct stat st;

	e2e_watch__run_with(&w, "proc_reader", wl_args, watch_args);
	cr_assert_gt(json_array_size(w.stalls), 0, "watch found no stall to compare");
	cr_assert_eq(stat(prom, &st), 0, "no metrics file at %s", prom);
	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: status %#x; stderr:\n%s", p.status,
		     p.err.data);
	cr_assert_eq(p.out.len, w.lockstall.out.len,
		     "report printed %zu bytes, watch %zu; watch's last line:\n%s\nreport's:\n%s",
		     p.out.len, w.lockstall.out.len, strrchr(w.lockstall.out.data, '{'),
		     strrchr(p.out.data, '{'));
	cr_assert(!memcmp(p.out.data, w.lockstall.out.data, p.out.len),
		  "report differs from what watch printed");
}

/* The first bytes of path are magic: the file's format. */
static void assert_starts_with(const char *path, const void *magic, size_t len)
{
	unsigned char buf[8] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(read(fd, buf, len), (ssize_t)len);
	close(fd);
	cr_assert_eq(memcmp(buf, magic, len), 0, "%s: not the expected format", path);
}

Test(record, record_then_report)
{
	char file[128];
	const char *const rec[] = { "record", "-o", in_dir(file, sizeof(file), "rec.lst"), "-d",
				    "1500ms", "-t", "1ms", "--no-cmdline", NULL };
	const char *const rep[] = { "report", file, "--format=json", NULL };
	const char *const rep_low[] = { "report", file, "-t", "500us", NULL };

	e2e_require(true);
	e2e_run_cli(&p, rec);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "record: status %#x; stderr:\n%s", p.status,
		     p.err.data);
	cr_assert_str_empty(p.out.data, "record printed on stdout");
	cr_assert(e2e_buf__line_with_prefix(&p.err, "lockstall: recording mmap_lock"),
		  "stderr:\n%s", p.err.data);
	cr_assert(e2e_buf__line_with_prefix(&p.err, "lockstall: recorded "), "stderr:\n%s",
		  p.err.data);
	e2e_proc__release(&p);
	/* zstd by default */
	assert_starts_with(file, "\x28\xb5\x2f\xfd", 4);

	e2e_run_cli(&p, rep);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	cr_assert(strstr(p.out.data, "{\"type\":\"summary\""), "no summary:\n%s", p.out.data);
	cr_assert(strstr(p.err.data, "threshold 1ms"), "the recorded threshold is not the default: %s",
		  p.err.data);
	e2e_proc__release(&p);

	/* below what the kernel was told to send: refused */
	e2e_run_cli(&p, rep_low);
	cr_assert_eq(e2e_proc__exit_code(&p), 2, "stderr:\n%s", p.err.data);
	cr_assert(strstr(p.err.data, "below the recording's 1ms"), "%s", p.err.data);
}

/* --compress=none: the raw format, which report reads as well. */
Test(record, compress_none_writes_raw)
{
	char file[128];
	const char *const rec[] = { "record", "-o", in_dir(file, sizeof(file), "raw.lst"), "-d",
				    "500ms", "--no-cmdline", "--compress=none", NULL };
	const char *const rep[] = { "report", file, NULL };

	e2e_require(true);
	e2e_run_cli(&p, rec);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "record: stderr:\n%s", p.err.data);
	e2e_proc__release(&p);
	assert_starts_with(file, "LOCKSTAL", 8);
	e2e_run_cli(&p, rep);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	cr_assert(strstr(p.out.data, "stalls"), "no summary:\n%s", p.out.data);
}

TestSuite(record_cli, .init = setup, .fini = teardown, .timeout = 30);

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void assert_file_is(const char *path, const char *text)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	cr_assert_geq(fd, 0, "%s is gone", path);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert_eq(n, (ssize_t)strlen(text), "%s was changed", path);
	cr_assert_str_eq(buf, text, "%s was changed", path);
}

/* One line on stderr naming the problem, nothing on stdout, the status. */
static void check_fails(const char *const args[], int status, const char *msg)
{
	e2e_run_cli(&p, args);
	cr_assert_eq(e2e_proc__exit_code(&p), status, "status %#x; stderr: %s", p.status,
		     p.err.data);
	cr_assert_str_empty(p.out.data);
	cr_assert(strstr(p.err.data, msg), "want '%s' in: %s", msg, p.err.data);
	cr_assert_eq(e2e_buf__lines(&p.err), 1, "stderr: %s", p.err.data);
}

Test(record_cli, record_needs_output)
{
	const char *const args[] = { "record", "-d", "1", NULL };

	check_fails(args, 2, "missing -o FILE");
}

Test(record_cli, record_refuses_existing_output)
{
	char file[128];
	const char *const args[] = { "record", "-o", in_dir(file, sizeof(file), "old.lst"), NULL };

	write_file(file, "keep me");
	check_fails(args, 1, "already exists: choose another name, or add --force");
	assert_file_is(file, "keep me");
}

Test(record_cli, record_refuses_symlink_output)
{
	char file[128], target[128];
	const char *const args[] = { "record", "-o", in_dir(file, sizeof(file), "link.lst"), NULL };

	write_file(in_dir(target, sizeof(target), "target"), "precious");
	cr_assert_eq(symlink(target, file), 0);
	check_fails(args, 1, "already exists");
	assert_file_is(target, "precious");
}

Test(record_cli, report_missing_file)
{
	char file[128];
	const char *const args[] = { "report", in_dir(file, sizeof(file), "nope.lst"), NULL };

	check_fails(args, 1, "nope.lst: No such file or directory");
}

Test(record_cli, report_foreign_file)
{
	char file[128];
	const char *const args[] = { "report", in_dir(file, sizeof(file), "notes.txt"), NULL };

	write_file(file, "these are my notes, not a recording\n");
	check_fails(args, 1, "notes.txt: not a lockstall recording");
}

Test(record_cli, report_refuses_existing_and_symlink_output)
{
	char out[128], target[128], link[128], data[256];
	const char *const to_out[] = { "report", data, "-o", in_dir(out, sizeof(out), "out.txt"),
				       NULL };
	const char *const to_link[] = { "report", data, "-o", in_dir(link, sizeof(link), "l.txt"),
					NULL };

	snprintf(data, sizeof(data), "%s/golden.lst", getenv("LOCKSTALL_TEST_DATA") ?: "test/data");
	write_file(out, "old report");
	check_fails(to_out, 1, "out.txt: already exists");
	assert_file_is(out, "old report");
	e2e_proc__release(&p);

	write_file(in_dir(target, sizeof(target), "target"), "precious");
	cr_assert_eq(symlink(target, link), 0);
	check_fails(to_link, 1, "l.txt: already exists");
	assert_file_is(target, "precious");
}

Test(record_cli, report_bad_format)
{
	const char *const args[] = { "report", "x.lst", "--format", "yaml", NULL };

	check_fails(args, 2, "invalid format 'yaml'");
}

static bool said_progress(void *ctx)
{
	const struct e2e_proc *rec = ctx;

	return e2e_buf__line_with_prefix(&rec->err, "lockstall: 1s: ") || e2e_proc__done(rec);
}

/* kill -9 after a second of recording: the file reads, with a warning, exit 0. */
Test(record, killed_recording_still_reports)
{
	char file[128];
	char *rec_argv[] = { NULL, "record", "-o", (char *)in_dir(file, sizeof(file), "k.lst"),
			     "--no-cmdline", NULL };
	const char *const rep[] = { "report", file, "--format", "json", NULL };
	struct e2e_proc rec = E2E_PROC_INIT;
	struct e2e_proc *one[1] = { &rec };
	int rc;

	rec_argv[0] = (char *)e2e_require(true);
	rc = e2e_proc__spawn(&rec, "lockstall record", rec_argv);
	cr_assert_eq(rc, 0, "cannot start lockstall: %s", strerror(-rc));
	/* the first progress line comes after the first write of the file */
	rc = e2e_proc__pump(one, 1, 30000, said_progress, &rec);
	cr_assert(e2e_buf__line_with_prefix(&rec.err, "lockstall: 1s: "),
		  "no progress line (%s); stderr:\n%s", rc ? strerror(-rc) : "it ended", rec.err.data);
	cr_assert_eq(e2e_proc__signal(&rec, SIGKILL), 0);
	e2e_proc__pump(one, 1, 30000, NULL, NULL);
	e2e_proc__release(&rec);

	e2e_run_cli(&p, rep);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	cr_assert(strstr(p.err.data, "no end mark: it was cut short"), "no warning: %s", p.err.data);
	cr_assert(strstr(p.out.data, "{\"type\":\"summary\""), "no summary:\n%s", p.out.data);
}

static bool said_tracing(void *ctx)
{
	const struct e2e_proc *ls = ctx;

	return e2e_buf__line_with_prefix(&ls->err, "lockstall: tracing") || e2e_proc__done(ls);
}

static bool workload_done(void *ctx)
{
	return e2e_proc__done(ctx);
}

/* The text output too: watch's stdout and report's, byte for byte. */
Test(record, text_report_prints_what_watch_printed)
{
	char file[128], workload[512];
	char *ls_argv[] = { NULL, "watch", "-t", E2E_THRESHOLD, "-o",
			    (char *)in_dir(file, sizeof(file), "text.lst"), NULL };
	char *wl_argv[] = { workload, NULL };
	const char *const rep[] = { "report", file, NULL };
	struct e2e_proc ls = E2E_PROC_INIT, wl = E2E_PROC_INIT;
	struct e2e_proc *both[2] = { &ls, &wl };
	int rc;

	ls_argv[0] = (char *)e2e_require(true);
	snprintf(workload, sizeof(workload), "%s/proc_reader", getenv("LOCKSTALL_WORKLOADS"));
	rc = e2e_proc__spawn(&ls, "lockstall", ls_argv);
	cr_assert_eq(rc, 0, "cannot start lockstall: %s", strerror(-rc));
	e2e_proc__pump(both, 1, 30000, said_tracing, &ls);
	cr_assert(e2e_buf__line_with_prefix(&ls.err, "lockstall: tracing"), "stderr:\n%s", ls.err.data);
	rc = e2e_proc__spawn(&wl, "proc_reader", wl_argv);
	cr_assert_eq(rc, 0, "cannot start %s: %s", workload, strerror(-rc));
	/* both: lockstall's output must be drained while the workload runs */
	rc = e2e_proc__pump(both, 2, 60000, workload_done, &wl);
	cr_assert_eq(rc, 0, "proc_reader did not finish");
	cr_assert_eq(e2e_proc__exit_code(&wl), 0, "proc_reader failed: %s", wl.err.data);
	cr_assert_eq(e2e_proc__signal(&ls, SIGINT), 0);
	rc = e2e_proc__pump(both, 1, 30000, NULL, NULL);
	cr_assert_eq(rc, 0, "lockstall did not stop");
	cr_assert_eq(e2e_proc__exit_code(&ls), 0, "watch: stderr:\n%s", ls.err.data);
	cr_assert(strstr(ls.out.data, "STALL #1 "), "watch found no stall:\n%s", ls.out.data);

	e2e_run_cli(&p, rep);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: stderr:\n%s", p.err.data);
	cr_assert_eq(p.out.len, ls.out.len, "report printed %zu bytes, watch %zu", p.out.len,
		     ls.out.len);
	cr_assert(!memcmp(p.out.data, ls.out.data, p.out.len), "report differs from watch");
	e2e_proc__release(&wl);
	e2e_proc__release(&ls);
}
