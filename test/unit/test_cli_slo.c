// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/cli/, watch's SLO options: --slo, --rules, --exec ... ';' (taken
 * like find -exec), --exec-file, --exec-timeout, --exec-limit,
 * --exit-on-violation, and the combinations that make no sense.
 */
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include "cli/cli.h"
#include "lib/cli_fixture.h"
#include "util.h"

Test(cli_slo, rules_and_hook)
{
	const char *const args[] = {
		"watch", "--slo", "comm=db wait>=5ms", "--exec", "/bin/logger", "-t", "x", ";",
		"--slo=pid=1 stalled>=1ms/1s", "--rules", "r.conf", "--exec-timeout", "500ms",
		"--exec-limit", "2", "--exit-on-violation", "-t", "1ms", NULL,
	};
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), 0, "%s", cli_fixture_err);
	cr_assert_eq(cfg.n_slo, 2);
	cr_assert_str_eq(cfg.slo[0], "comm=db wait>=5ms");
	cr_assert_str_eq(cfg.slo[1], "pid=1 stalled>=1ms/1s");
	cr_assert_str_eq(cfg.rules_file, "r.conf");
	cr_assert_eq(cfg.exec_argc, 3);
	cr_assert_str_eq(cfg.exec_argv[0], "/bin/logger");
	cr_assert_str_eq(cfg.exec_argv[2], "x");
	cr_assert_eq(cfg.exec_timeout_ns, 500000000ULL);
	cr_assert_eq(cfg.exec_limit, 2);
	cr_assert(cfg.exit_on_violation);
	cr_assert_eq(cfg.threshold_ns, 1000000ULL, "options after the ';' still count");
}

/* The hook's words are never options of ours, whatever they look like. */
Test(cli_slo, exec_takes_everything_to_the_semicolon)
{
	const char *const args[] = {
		"watch", "--rules", "r", "--exec", "/bin/echo", "--json", "-d", "$(reboot)", ";", NULL,
	};
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), 0, "%s", cli_fixture_err);
	cr_assert_eq(cfg.exec_argc, 4);
	cr_assert_str_eq(cfg.exec_argv[1], "--json");
	cr_assert_str_eq(cfg.exec_argv[3], "$(reboot)");
	cr_assert(!cfg.json);
	cr_assert_eq(cfg.duration_ns, 0);
}

struct bad {
	const char *args[12];
	const char *said;
};

static const struct bad bads[] = {
	{ { "watch", "--slo", "wait>=1ms", "--exec", "/bin/true", NULL }, "needs a ';'" },
	{ { "watch", "--slo", "wait>=1ms", "--exec", ";", NULL }, "needs a program before its ';'" },
	{ { "watch", "--exec", "/bin/true", ";", NULL }, "--exec goes with --slo RULE or --rules FILE" },
	{ { "watch", "--exit-on-violation", NULL }, "--exit-on-violation goes with --slo" },
	{ { "watch", "--exec-file", "f", NULL }, "--exec-file goes with --slo" },
	{ { "watch", "--slo", "wait>=1ms", "--exec-timeout", "1s", NULL }, "--exec-timeout goes with --exec" },
	{ { "watch", "--slo", "wait>=1ms", "--exec-limit", "0", NULL }, "invalid number '0' for --exec-limit" },
	{ { "watch", "--slo", "wait>=1ms", "--exec-limit", "65", NULL }, "1 to 64" },
	{ { "watch", "--slo", "wait>=1ms", "--exec-timeout", "0", NULL }, "invalid timeout '0'" },
	{ { "watch", "--slo", "wait>=1ms", "--exec", "a", ";", "--exec-file", "f", NULL }, "give one hook" },
	{ { "watch", "--slo", "wait>=1ms", "--exec", "a", ";", "--exec", "b", ";", NULL }, "--exec given twice" },
	{ { "watch", "--rules", "a", "--rules", "b", NULL }, "--rules given twice" },
	{ { "watch", "--rules", "", NULL }, "empty file name for --rules" },
	{ { "record", "-o", "x", "--slo", "wait>=1ms", NULL }, "unknown option '--slo'" },
};

Test(cli_slo, refused)
{
	struct ls_config cfg;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bads); i++) {
		cr_assert_eq(cli_fixture__parse(&cfg, bads[i].args), LS_EXIT_USAGE, "case %zu parsed", i);
		cr_assert(strstr(cli_fixture_err, bads[i].said), "case %zu: '%s' does not say '%s'", i,
			  cli_fixture_err, bads[i].said);
	}
}

Test(cli_slo, too_many_slo)
{
	const char *args[2 * LS_MAX_SLO_ARGS + 4] = { "watch" };
	struct ls_config cfg;
	int i, n = 1;

	for (i = 0; i <= LS_MAX_SLO_ARGS; i++) {
		args[n++] = "--slo";
		args[n++] = "wait>=1ms";
	}
	args[n] = NULL;
	cr_assert_eq(cli_fixture__parse(&cfg, args), LS_EXIT_USAGE);
	cr_assert(strstr(cli_fixture_err, "put the rules in a --rules file"), "%s", cli_fixture_err);
}
