// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall report, in process (src/cmd_report.c): the committed recording
 * test/data/golden.lst reports exactly test/data/golden.{txt,json,...};
 * the same file prints the same bytes every time; options and errors.
 *
 * The recording and its outputs are made by the code here, from the
 * synthetic stream of test/lib/trace_fixture.c.  After a deliberate change
 * of the engine, the sinks or the format, regenerate them with
 *	make golden
 * and review the diff like any other change.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "cli/cli.h"
#include "commands.h"
#include "lib/trace_fixture.h"
#include "record/meta.h"
#include "record/trace_file.h"
#include "util.h"

#define GOLDEN_LST "golden.lst"

struct golden_case {
	char args[96];		/* after "lockstall report FILE", split on blanks */
	char file[40];		/* the expected stdout, in the data directory */
};

static struct golden_case golden_cases[] = {
	{ "", "golden.txt" },
	{ "--format json", "golden.json" },
	{ "--from 300ms --to 400ms", "golden.window.txt" },
	/* the same window in wall-clock time: the run began at 06:40:00 UTC */
	{ "--from 06:40:00.300 --to 06:40:00.4", "golden.window.txt" },
	{ "--from 06:39:00 --to 06:40:00.2", "golden.window0.txt" },
	{ "-p 300 --format=json", "golden.pid300.json" },
	{ "-t 55ms --top 1", "golden.t55ms.txt" },
	{ "--format markdown", "golden.md" },
	{ "--format html", "golden.html" },
	{ "--format perfetto", "golden.perfetto.json" },
};

struct run {
	int rc;
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
};

/* lockstall report <file> <args>, through the real parser. */
static void report_run(struct run *r, const char *file, const char *args)
{
	char buf[256], *argv[32], *tok, *save = NULL;
	struct ls_config cfg;
	FILE *out, *err;
	int argc = 0;

	memset(r, 0, sizeof(*r));
	argv[argc++] = "lockstall";
	argv[argc++] = "report";
	argv[argc++] = (char *)file;
	snprintf(buf, sizeof(buf), "%s", args);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
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

static char *data_path(const char *name)
{
	static char path[3][512];
	static int i;

	i = (i + 1) % 3;
	snprintf(path[i], sizeof(path[i]), "%s/%s", trace_fixture__data_dir(), name);
	return path[i];
}

TestSuite(golden, .timeout = 60);

/*
 * LOCKSTALL_REGEN_GOLDEN=1 (make golden): write the recording and every
 * expected output.  Otherwise: the code still makes the committed bytes.
 */
Test(golden, recording_is_reproducible)
{
	char tmp[] = "/tmp/lockstall-golden-XXXXXX", path[64];
	const char *regen = getenv("LOCKSTALL_REGEN_GOLDEN");
	unsigned char *want, *got;
	size_t want_len, got_len, i;
	struct stream s;

	stream__init(&s);
	trace_fixture__stream(&s);
	if (regen && !strcmp(regen, "1")) {
		cr_assert_eq(trace_fixture__write(data_path(GOLDEN_LST), &s), 0);
		chmod(data_path(GOLDEN_LST), 0644);
		for (i = 0; i < ARRAY_SIZE(golden_cases); i++) {
			struct run r;
			FILE *f;

			report_run(&r, data_path(GOLDEN_LST), golden_cases[i].args);
			cr_assert_eq(r.rc, 0, "%s: %s", golden_cases[i].args, r.err);
			f = fopen(data_path(golden_cases[i].file), "w");
			cr_assert_not_null(f);
			fwrite(r.out, 1, r.out_len, f);
			fclose(f);
			run_free(&r);
		}
		fprintf(stderr, "regenerated %s\n", data_path("golden.*"));
	}
	cr_assert_not_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/g.lst", tmp);
	cr_assert_eq(trace_fixture__write(path, &s), 0);
	got = trace_fixture__slurp(path, &got_len);
	want = trace_fixture__slurp(data_path(GOLDEN_LST), &want_len);
	unlink(path);
	rmdir(tmp);
	cr_assert_not_null(want, "no %s (make golden)", data_path(GOLDEN_LST));
	cr_assert_eq(got_len, want_len, "the writer makes %zu bytes, %s has %zu (make golden?)",
		     got_len, data_path(GOLDEN_LST), want_len);
	cr_assert_eq(memcmp(got, want, got_len), 0, "the writer's bytes differ from %s",
		     data_path(GOLDEN_LST));
	free(got);
	free(want);
	stream__free(&s);
}

ParameterizedTestParameters(golden, report)
{
	return cr_make_param_array(struct golden_case, golden_cases,
				   ARRAY_SIZE(golden_cases));
}

ParameterizedTest(struct golden_case *c, golden, report)
{
	struct run r, again;
	unsigned char *want;
	size_t want_len;

	report_run(&r, data_path(GOLDEN_LST), c->args);
	cr_assert_eq(r.rc, 0, "'%s': exit %d: %s", c->args, r.rc, r.err);
	want = trace_fixture__slurp(data_path(c->file), &want_len);
	cr_assert_not_null(want, "no %s (make golden)", data_path(c->file));
	cr_assert_eq(r.out_len, want_len, "'%s': %zu bytes, %s has %zu; got:\n%s", c->args,
		     r.out_len, c->file, want_len, r.out);
	cr_assert_eq(memcmp(r.out, want, want_len), 0, "'%s' differs from %s; got:\n%s", c->args,
		     c->file, r.out);
	/* the same file, the same bytes, every time */
	report_run(&again, data_path(GOLDEN_LST), c->args);
	cr_assert_eq(again.out_len, r.out_len);
	cr_assert_eq(memcmp(again.out, r.out, r.out_len), 0, "'%s': a second run differs", c->args);
	free(want);
	run_free(&r);
	run_free(&again);
}

/* Every from in s replaced by to, into a new string. */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to), n = 0;
	const char *p;
	char *out, *o;

	for (p = s; (p = strstr(p, from)); p += flen)
		n++;
	out = malloc(strlen(s) + n * tlen + 1);
	cr_assert_not_null(out);
	for (o = out; (p = strstr(s, from)); s = p + flen) {
		memcpy(o, s, (size_t)(p - s));
		o += p - s;
		memcpy(o, to, tlen);
		o += tlen;
	}
	strcpy(o, s);
	return out;
}

/*
 * The golden run as ABI version 2 recorded it reports what today's does,
 * but that no cgroup is known: the reader widens the old lock records.
 */
Test(golden, abi2_recording_reports_the_same_without_cgroups)
{
	static const char *const cgroups[] = {
		"\"cgroup_id\":8412,\"cgroup\":\"/system.slice/victim-app.service\"",
		"\"cgroup_id\":8533,\"cgroup\":\"/user.slice/user-1000.slice/session-2.scope\"",
	};
	unsigned char *golden;
	char *want, *next;
	size_t len, i;
	struct run r;

	golden = trace_fixture__slurp(data_path("golden.json"), &len);
	cr_assert_not_null(golden);
	want = (char *)golden;
	for (i = 0; i < ARRAY_SIZE(cgroups); i++) {
		cr_assert_not_null(strstr(want, cgroups[i]), "golden.json lacks %s", cgroups[i]);
		next = replace_all(want, cgroups[i], "\"cgroup_id\":0,\"cgroup\":null");
		free(want);
		want = next;
	}
	report_run(&r, data_path("golden-abi2.lst"), "--format json");
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert_str_eq(r.out, want);
	free(want);
	run_free(&r);
}

/*
 * The golden run as ABI version 3 recorded it (before lock kinds and
 * owners: the same layouts, padding where they are now) reports exactly
 * what today's recording does, in every format.
 */
Test(golden, abi3_recording_reports_the_same)
{
	unsigned char *want;
	char *got;
	size_t len, i;
	struct run r;

	for (i = 0; i < ARRAY_SIZE(golden_cases); i++) {
		want = trace_fixture__slurp(data_path(golden_cases[i].file), &len);
		cr_assert_not_null(want);
		report_run(&r, data_path("golden-abi3.lst"), golden_cases[i].args);
		cr_assert_eq(r.rc, 0, "%s: %s", golden_cases[i].args, r.err);
		/* the reports that name their file */
		got = replace_all(r.out, "golden-abi3.lst", GOLDEN_LST);
		cr_assert_eq(strlen(got), len, "%s: %zu bytes, %s has %zu", golden_cases[i].args,
			     strlen(got), golden_cases[i].file, len);
		cr_assert_eq(memcmp(got, want, len), 0, "%s differs from %s",
			     golden_cases[i].args, golden_cases[i].file);
		free(got);
		free(want);
		run_free(&r);
	}
}

Test(golden, header_on_stderr)
{
	struct run r;

	report_run(&r, data_path(GOLDEN_LST), "");
	cr_assert_eq(r.rc, 0);
	cr_assert_str_eq(r.err, "lockstall: test/data/golden.lst: recorded on golden-host (Linux 6.18.0-golden, 2 CPUs) by lockstall golden at 2026-12-03 06:40:00 UTC, threshold 10ms\n");
	run_free(&r);
}

/* The window keeps the engine whole: a stall in it is the same as in the full report. */
Test(golden, window_stall_matches_full_report)
{
	struct run full, win;
	const char *a, *b, *end;

	report_run(&full, data_path(GOLDEN_LST), "");
	report_run(&win, data_path(GOLDEN_LST), "--from 300ms --to 400ms");
	b = strstr(win.out, "STALL #");
	cr_assert_not_null(b, "%s", win.out);
	cr_assert_null(strstr(b + 1, "STALL #"), "more than one stall in the window: %s", win.out);
	end = strstr(b, "\n\n");
	cr_assert_not_null(end);
	a = strstr(full.out, "STALL #2");
	cr_assert_not_null(a);
	cr_assert_eq(strncmp(a, b, (size_t)(end - b)), 0, "window:\n%s\nfull:\n%s", win.out, full.out);
	run_free(&full);
	run_free(&win);
}

TestSuite(report, .timeout = 30);

struct report_error {
	char args[128];		/* after "lockstall report" */
	int rc;
	char msg[128];
};

ParameterizedTestParameters(report, errors)
{
	static struct report_error cases[] = {
		{ "/nonexistent/x.lst", 1, "lockstall: /nonexistent/x.lst: No such file or directory" },
		/* a directory is a fleet's recordings: here, none */
		{ "test/data/unwind", 1, "lockstall: none of the 14 files could be read" },
		{ "test/data/golden.txt", 1, "lockstall: test/data/golden.txt: not a lockstall recording" },
		{ "test/data/golden.lst -t 1ms", 2,
		  "lockstall: threshold 1ms is below the recording's 10ms: the kernel sent shorter waits only when they went off CPU" },
		{ "test/data/golden.lst -o test/data/golden.txt", 1,
		  "lockstall: test/data/golden.txt: already exists: choose another name, or add --force to replace it" },
	};

	return cr_make_param_array(struct report_error, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct report_error *c, report, errors)
{
	char file[128], *sp;
	struct run r;

	snprintf(file, sizeof(file), "%s", c->args);
	sp = strchr(file, ' ');
	if (sp)
		*sp = '\0';
	report_run(&r, file, sp ? c->args + (sp - file) + 1 : "");
	cr_assert_eq(r.rc, c->rc, "'%s': exit %d: %s", c->args, r.rc, r.err);
	cr_assert_not_null(strstr(r.err, c->msg), "'%s': %s", c->args, r.err);
	cr_assert_eq(r.out_len, 0, "'%s': wrote to stdout: %s", c->args, r.out);
	run_free(&r);
}

/* -o: a new private file with what stdout would have had. */
Test(report, output_file)
{
	char tmp[] = "/tmp/lockstall-report-XXXXXX", path[64], args[128];
	struct run to_file, to_stdout;
	unsigned char *got;
	size_t len;
	struct stat st;

	cr_assert_not_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/out.json", tmp);
	snprintf(args, sizeof(args), "--format json -o %s", path);
	report_run(&to_file, data_path(GOLDEN_LST), args);
	cr_assert_eq(to_file.rc, 0, "%s", to_file.err);
	cr_assert_eq(to_file.out_len, 0);
	report_run(&to_stdout, data_path(GOLDEN_LST), "--format json");
	got = trace_fixture__slurp(path, &len);
	cr_assert_eq(len, to_stdout.out_len);
	cr_assert_eq(memcmp(got, to_stdout.out, len), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	/* again: refused, then replaced with --force */
	report_run(&to_file, data_path(GOLDEN_LST), args);
	cr_assert_eq(to_file.rc, 1);
	snprintf(args, sizeof(args), "-o %s --force", path);
	report_run(&to_file, data_path(GOLDEN_LST), args);
	cr_assert_eq(to_file.rc, 0, "%s", to_file.err);
	free(got);
	got = trace_fixture__slurp(path, &len);
	cr_assert(len > 0 && got[0] == '+', "not the text report: %s", got);
	unlink(path);
	rmdir(tmp);
	free(got);
}

/* -o the input itself with --force would delete the recording: refused. */
Test(report, output_is_not_the_recording)
{
	char tmp[] = "/tmp/lockstall-report-XXXXXX", path[64], args[128];
	unsigned char *buf, *after;
	size_t len, len_after;
	struct run r;
	FILE *f;

	buf = trace_fixture__slurp(data_path(GOLDEN_LST), &len);
	cr_assert_not_null(buf);
	cr_assert_not_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/only-copy.lst", tmp);
	f = fopen(path, "w");
	fwrite(buf, 1, len, f);
	fclose(f);
	snprintf(args, sizeof(args), "-o %s --force", path);
	report_run(&r, path, args);
	cr_assert_eq(r.rc, 1, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "only-copy.lst: is the recording itself: choose another output"),
			   "%s", r.err);
	after = trace_fixture__slurp(path, &len_after);
	cr_assert_eq(len_after, len, "the recording was touched");
	unlink(path);
	rmdir(tmp);
	free(after);
	free(buf);
	run_free(&r);
}

/* A recording cut short still reports what it holds, with a warning, exit 0. */
Test(report, truncated_recording)
{
	char tmp[] = "/tmp/lockstall-report-XXXXXX", path[64];
	unsigned char *buf;
	size_t len;
	struct run r;
	FILE *f;

	buf = trace_fixture__slurp(data_path(GOLDEN_LST), &len);
	cr_assert_not_null(buf);
	cr_assert_not_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/cut.lst", tmp);
	f = fopen(path, "w");
	/* into the second records chunk: the first half of the run survives */
	fwrite(buf, 1, len * 2 / 3, f);
	fclose(f);
	report_run(&r, path, "");
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "the recording was cut short"), "%s", r.err);
	cr_assert_not_null(strstr(r.out, "STALL #1"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "stalls"), "no summary: %s", r.out);
	unlink(path);
	rmdir(tmp);
	free(buf);
	run_free(&r);
}

/* The boot id a recording keeps and report compares: this boot's, bare. */
Test(report, boot_id_is_bare)
{
	char id[64], small[8];

	cr_assert_eq(record_meta__boot_id(id, sizeof(id)), 0);
	cr_expect_eq(strlen(id), 36, "a UUID: '%s'", id);
	cr_expect_null(strchr(id, '\n'), "no newline: '%s'", id);
	cr_expect_eq(record_meta__boot_id(small, 0), -EINVAL);
	cr_assert_eq(record_meta__boot_id(small, sizeof(small)), 0, "cut to fit");
	cr_expect_eq(strlen(small), sizeof(small) - 1);
}

/*
 * The cgroups of a futex owner and of the hog that ran instead of it
 * (LS_REC_TASK_CGROUP), named offline from the recording's cgroup table
 * ("cgroup.ID=PATH", written at close): the owner in the reader's cgroup,
 * the hog in the waiter's, a second preemptor in one the table lacks.
 */
static void task_cgroups_stream(struct stream *s)
{
	struct ls_task waiter, owner, hog, other;
	struct ls_lock_id lock = stream__mm(0x55d0c0de1040ULL, 500, "victim-app");
	struct stream_owner o = { .waiter = &waiter, .owner = &owner, .cpu_curr = &hog,
				  .owner_cpu = 0, .state = LS_OWNER_RUNNABLE, .how = LS_OWNER_PTHREAD };
	struct stream_lock w = { .write = true, .owner_how = LS_OWNER_PTHREAD, .owner_tid = 502,
				 .cgroup = 8412, .flags = LS_LOCK_F_BEGIN_SENT };
	__u64 t = TFX_T0_NS;

	waiter = stream__task(501, 500, LS_POLICY_FIFO, 0, 10, "victim");
	owner = stream__task(502, 500, LS_POLICY_IDLE, 0, 0, "holder");
	hog = stream__task(600, 600, LS_POLICY_NORMAL, 0, 0, "hog");
	other = stream__task(700, 700, LS_POLICY_NORMAL, 0, 0, "other");
	lock.kind = LS_LOCK_FUTEX;
	o.start = w.start = t + 2000000;
	stream__mark(s, t, LS_MARK_BEGIN, LS_FEAT_FUTEX | LS_FEAT_TASK_CGROUP);
	stream__owner(s, 1, t + 2000000, &lock, &o);
	stream__task_cgroup(s, 1, t + 2000000, &owner, 8533);
	stream__task_cgroup(s, 1, t + 2000000, &hog, 8412);
	stream__switch(s, 1, t + 3000000, &waiter, LS_TASK_F_WAITING, false, NULL, 0);
	stream__switch(s, 0, t + 30000000, &hog, 0, true, &other, 0);
	stream__task_cgroup(s, 0, t + 30000000, &other, 9999);
	stream__switch(s, 0, t + 40000000, &other, 0, true, &owner, LS_TASK_F_OWNER);
	stream__wait_end(s, 1, t + 45000000, &waiter, &lock, &w);
	stream__mark(s, t + 50000000, LS_MARK_END, 0);
}

TestSuite(report_cgroups, .timeout = 30);

Test(report_cgroups, holder_and_preemptors_named_offline)
{
	char tmp[] = "/tmp/lockstall-cg-XXXXXX", path[64];
	struct stream s;
	struct run r;

	cr_assert_not_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/cg.lst", tmp);
	stream__init(&s);
	task_cgroups_stream(&s);
	cr_assert_eq(trace_fixture__write(path, &s), 0);
	stream__free(&s);

	report_run(&r, path, "--format json");
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "\"tid\":502,\"comm\":\"holder\""), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "\"cgroup_id\":8533,\"cgroup\":\"/user.slice/user-1000.slice/session-2.scope\",\"mode\""),
			   "%s", r.out);
	cr_assert_not_null(strstr(r.out, "\"comm\":\"hog\",\"policy\":\"normal\",\"ns\":28000000,\"cgroup_id\":8412,\"cgroup\":\"/system.slice/victim-app.service\"}"),
			   "%s", strstr(r.out, "preempted_by"));
	cr_assert_not_null(strstr(r.out, "\"comm\":\"other\",\"policy\":\"normal\",\"ns\":10000000,\"cgroup_id\":9999,\"cgroup\":null}"),
			   "%s", strstr(r.out, "preempted_by"));
	run_free(&r);

	report_run(&r, path, "");
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "  cgroup   /system.slice/victim-app.service (waiter)  /user.slice/user-1000.slice/session-2.scope (holder)\n"),
			   "%s", r.out);
	cr_assert_not_null(strstr(r.out, " 28ms  cgroup /system.slice/victim-app.service\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "preempted by other[700/700] SCHED_NORMAL nice 0 10ms\n"),
			   "%s", r.out);
	run_free(&r);
	unlink(path);
	rmdir(tmp);
}
