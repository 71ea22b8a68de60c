// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The hostile host: what a traced process or an operator's
 * input can throw at lockstall, module by module.  Tests of the suite that
 * need a module's own fixtures live beside them (test_unwind.c,
 * test_sink_stacks.c); the suite is declared here.  Each has a timeout: a
 * hang is the failure to catch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "alert/hooks.h"
#include "alert/slo.h"
#include "sinks/report.h"
#include "unit/sink_fixture.h"
#include "util.h"

TestSuite(hostile, .timeout = 30);

/* ---- operator-given files: bounded, regular, never blocking ---- */

enum bad_file { BAD_DEV_ZERO, BAD_FIFO, BAD_DIR, BAD_HUGE };

struct bad_file_case {
	enum bad_file kind;
	bool exec_file;		/* --exec-file, else --rules (arrays, not pointers: Criterion copies the cases) */
	int rc;
	char says[64];
};

/* The path of a file of that kind, made in dir. */
static const char *bad_file_make(enum bad_file kind, char *dir, char *path, size_t len)
{
	FILE *f;
	size_t i;

	if (kind == BAD_DEV_ZERO)
		return "/dev/zero";
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, len, "%s/f", dir);
	if (kind == BAD_FIFO) {
		cr_assert_eq(mkfifo(path, 0600), 0);
	} else if (kind == BAD_DIR) {
		cr_assert_eq(mkdir(path, 0700), 0);
	} else {
		/* a comment line after line: valid, only too much of it */
		f = fopen(path, "w");
		cr_assert_not_null(f);
		for (i = 0; i < (2u << 20) / 64; i++)
			fprintf(f, "# %060zu\n", i);
		cr_assert_eq(fclose(f), 0);
	}
	return path;
}

ParameterizedTestParameters(hostile, operator_file_refused)
{
	static struct bad_file_case cases[] = {
		{ BAD_DEV_ZERO, false, -EINVAL, "/dev/zero: cannot read: not a regular file" },
		{ BAD_FIFO, false, -EINVAL, "cannot read: not a regular file" },
		{ BAD_DIR, false, -EINVAL, "cannot read: not a regular file" },
		{ BAD_HUGE, false, -E2BIG, "cannot read: too large" },
		{ BAD_DEV_ZERO, true, -EINVAL, "/dev/zero: cannot read: not a regular file" },
		{ BAD_FIFO, true, -EINVAL, "cannot read: not a regular file" },
		{ BAD_DIR, true, -EINVAL, "cannot read: not a regular file" },
		{ BAD_HUGE, true, -E2BIG, "cannot read: too large" },
	};

	return cr_make_param_array(struct bad_file_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_file_case *c, hostile, operator_file_refused)
{
	char dir[] = "/tmp/lockstall-hostile-XXXXXX", path[64], err[SLO_ERR_LEN] = "", cmd[80];
	const char *file = bad_file_make(c->kind, dir, path, sizeof(path));
	struct slo_rules rules = { 0 };
	char **argv = NULL;
	int rc;

	if (c->exec_file)
		rc = hooks_argv__read(file, &argv, err, sizeof(err));
	else
		rc = slo_rules__parse_file(&rules, file, err, sizeof(err));
	if (c->kind != BAD_DEV_ZERO) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		cr_assert_eq(system(cmd), 0);
	}
	cr_assert_eq(rc, c->rc, "%s: %d (%s)", file, rc, err);
	cr_assert(strstr(err, c->says), "%s: '%s'", file, err);
	cr_assert_null(argv);
	cr_assert_eq(rules.n, 0);
}

/* ---- a full disk is said as such ---- */

/* Every sink, writing to /dev/full: its error is ENOSPC, never a made-up EIO. */
Test(hostile, full_disk_is_enospc)
{
	static const struct report_meta meta = { .input = "x.lst" };
	static const struct sink_opts opts = { .top = 10, .t0_ns = FX_T0 };
	struct ls_summary sum = { .stalls = 1 };
	struct ls_holder holder;
	struct ls_stall st;
	struct sink *s;
	int i, err;
	FILE *f;

	fx_holder_reader(&holder);
	fx_stall(&st, &holder, 1);
	for (i = 0; i < 6; i++) {
		f = fopen("/dev/full", "w");
		cr_assert_not_null(f);
		s = i == 0 ? sink_text__new(f, &opts) :
		    i == 1 ? sink_json__new(f, &opts) :
		    i == 2 ? sink_markdown__new(f, &opts, &meta) :
		    i == 3 ? sink_html__new(f, &opts, &meta) :
		    i == 4 ? sink_folded__new(f, &opts) : sink_perfetto__new(f, &opts);
		cr_assert_not_null(s);
		err = sink__stall(s, &st);
		if (!err)
			err = sink__summary(s, &sum);
		cr_assert_eq(err, -ENOSPC, "sink %d: %d (%s)", i, err, strerror(-err));
		sink__free(s);
		fclose(f);
	}
}
