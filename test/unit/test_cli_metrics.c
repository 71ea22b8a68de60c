// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* src/cli/, watch --metrics-file and --metrics-interval. */
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include "cli/cli.h"
#include "lib/cli_fixture.h"

Test(cli_metrics, file_and_interval)
{
	const char *const args[] = { "watch", "--metrics-file", "/var/lib/x/ls.prom",
				     "--metrics-interval", "500ms", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), 0, "%s", cli_fixture_err);
	cr_assert_str_eq(cfg.metrics_file, "/var/lib/x/ls.prom");
	cr_assert_eq(cfg.metrics_interval_ns, 500000000ULL);
}

Test(cli_metrics, default_interval)
{
	const char *const args[] = { "watch", "--metrics-file=m.prom", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), 0, "%s", cli_fixture_err);
	cr_assert_str_eq(cfg.metrics_file, "m.prom");
	cr_assert_eq(cfg.metrics_interval_ns, 0, "0: the default, 10s");
}

Test(cli_metrics, misuse)
{
	const char *const no_file[] = { "watch", "--metrics-interval", "5", NULL };
	const char *const bad_interval[] = { "watch", "--metrics-file", "m", "--metrics-interval",
					     "0", NULL };
	const char *const empty[] = { "watch", "--metrics-file", "", NULL };
	const char *const record[] = { "record", "-o", "x.lst", "--metrics-file", "m", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, no_file), LS_EXIT_USAGE);
	cr_assert(strstr(cli_fixture_err, "--metrics-interval goes with --metrics-file"), "%s", cli_fixture_err);
	cr_assert_eq(cli_fixture__parse(&cfg, bad_interval), LS_EXIT_USAGE);
	cr_assert(strstr(cli_fixture_err, "invalid interval '0'"), "%s", cli_fixture_err);
	cr_assert_eq(cli_fixture__parse(&cfg, empty), LS_EXIT_USAGE);
	cr_assert_eq(cli_fixture__parse(&cfg, record), LS_EXIT_USAGE, "watch only");
}
