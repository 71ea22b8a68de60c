// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The hostile host (issue 14): what a traced process or an operator's
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
