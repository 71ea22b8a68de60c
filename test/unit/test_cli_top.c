// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* src/cli/: lockstall top's options, its defaults and its mistakes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "cli/cli.h"
#include "lib/cli_fixture.h"

struct top_case {
	char args[80];		/* after "lockstall", split on blanks */
	int rc;
	bool batch;
	__u64 interval_ns, count, duration_ns;
	__u32 pid;
	char err[96];		/* rc 2: a part of the error line */
};

ParameterizedTestParameters(cli_top, parse)
{
	static struct top_case cases[] = {
		{ "top", 0, false, 1000000000ULL, 0, 0, 0, "" },
		{ "top -b", 0, true, 1000000000ULL, 0, 0, 0, "" },
		{ "top --batch -n 3", 0, true, 1000000000ULL, 3, 0, 0, "" },
		{ "top -i 500ms -n2", 0, false, 500000000ULL, 2, 0, 0, "" },
		{ "top --interval=2 --iterations=5", 0, false, 2000000000ULL, 5, 0, 0, "" },
		{ "top -b -d 5 -p 42", 0, true, 1000000000ULL, 0, 5000000000ULL, 42, "" },
		{ "top -i 100ms", 0, false, 100000000ULL, 0, 0, 0, "" },
		{ "top -i 50ms", 2, false, 0, 0, 0, 0, "invalid interval '50ms' for -i: expected seconds, 100ms or more" },
		{ "top -i 0", 2, false, 0, 0, 0, 0, "invalid interval '0' for -i" },
		{ "top -i soon", 2, false, 0, 0, 0, 0, "invalid interval 'soon' for -i" },
		{ "top -n 0", 2, false, 0, 0, 0, 0, "invalid count '0' for -n: expected how many screens" },
		{ "top -n -1", 2, false, 0, 0, 0, 0, "invalid count '-1' for -n" },
		{ "top -n", 2, false, 0, 0, 0, 0, "option '-n' needs a value" },
		{ "top 1", 2, false, 0, 0, 0, 0, "unexpected argument '1': top takes options only (-i INTERVAL, -n COUNT)" },
		{ "top --json", 2, false, 0, 0, 0, 0, "unknown option '--json'" },
		{ "top -o x.lst", 2, false, 0, 0, 0, 0, "unknown option '-o'" },
		{ "top --slo wait>=1s", 2, false, 0, 0, 0, 0, "unknown option '--slo'" },
		{ "top -b=1", 2, false, 0, 0, 0, 0, "unknown option '-b=1'" },
		{ "top --batch=yes", 2, false, 0, 0, 0, 0, "option '--batch' takes no value" },
		{ "top -t 10", 2, false, 0, 0, 0, 0, "add a unit" },
		{ "tpo", 2, false, 0, 0, 0, 0, "the commands are watch, top, record and report" },
	};

	return cr_make_param_array(struct top_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct top_case *c, cli_top, parse)
{
	char args[sizeof(c->args)], *tok, *save = NULL;
	const char *argv[32];
	struct ls_config cfg;
	size_t n = 0;
	int rc;

	strcpy(args, c->args);
	for (tok = strtok_r(args, " ", &save); tok && n < 31; tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	rc = cli_fixture__parse(&cfg, argv);
	cr_assert_eq(rc, c->rc, "'%s': rc %d, err: %s", c->args, rc, cli_fixture_err);
	if (rc) {
		cr_expect(strstr(cli_fixture_err, c->err), "'%s': got %s", c->args, cli_fixture_err);
		cr_expect(strstr(cli_fixture_err, "(see 'lockstall"), "'%s': points to the help: %s",
			  c->args, cli_fixture_err);
		return;
	}
	cr_expect_eq(cfg.cmd, LS_CMD_TOP);
	cr_expect_eq(cfg.batch, c->batch, "'%s'", c->args);
	cr_expect_eq(cfg.interval_ns, c->interval_ns, "'%s'", c->args);
	cr_expect_eq(cfg.count, c->count, "'%s'", c->args);
	cr_expect_eq(cfg.duration_ns, c->duration_ns, "'%s'", c->args);
	cr_expect_eq(cfg.pid, c->pid, "'%s'", c->args);
	cr_expect_not(cfg.stacks, "'%s': top shows no stacks, so asks for none", c->args);
}

Test(cli_top, errors_point_to_top_help)
{
	const char *const args[] = { "top", "-i", "1ms", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), LS_EXIT_USAGE);
	cr_expect(strstr(cli_fixture_err, "(see 'lockstall top --help')"), "%s", cli_fixture_err);
}

Test(cli_top, usage_text)
{
	const char *const args[] = { "help", "top", NULL };
	const char *const flag[] = { "top", "-b", "--help", NULL };
	struct ls_config cfg;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(cli_fixture__parse(&cfg, args), 0);
	cr_expect(cfg.help);
	cr_expect_eq(cfg.cmd, LS_CMD_TOP);
	cr_assert_eq(cli_fixture__parse(&cfg, flag), 0);
	cr_expect(cfg.help);
	f = open_memstream(&text, &len);
	cli__usage(f, LS_CMD_TOP);
	fclose(f);
	cr_expect(strstr(text, "Usage: lockstall top [-b] [-i INTERVAL] [-n COUNT]"), "%s", text);
	cr_expect(strstr(text, "Keys: q quit"), "the keys are in the help");
	free(text);
	f = open_memstream(&text, &len);
	cli__usage(f, LS_CMD_NONE);
	fclose(f);
	cr_expect(strstr(text, "  top        trace live"), "top is among the commands: %s", text);
	free(text);
}
