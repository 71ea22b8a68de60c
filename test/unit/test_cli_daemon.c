// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* src/cli/, watch --metrics-listen and --flight-recorder, --keep, --max-files. */
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include "cli/cli.h"
#include "lib/cli_fixture.h"

Test(cli_daemon, all_of_it)
{
	const char *const args[] = { "watch", "--rules", "/etc/lockstall/rules", "--metrics-listen",
				     "127.0.0.1:9464", "--flight-recorder", "/var/lib/lockstall",
				     "--keep", "1m", "--max-files", "5", "--metrics-interval", "5s",
				     NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), 0, "%s", cli_fixture_err);
	cr_assert_str_eq(cfg.metrics_listen, "127.0.0.1:9464");
	cr_assert_str_eq(cfg.flight_dir, "/var/lib/lockstall");
	cr_assert_eq(cfg.flight_keep_ns, 60000000000ULL);
	cr_assert_eq(cfg.flight_max_files, 5);
	cr_assert_eq(cfg.metrics_interval_ns, 5000000000ULL, "the interval goes with listen too");
}

Test(cli_daemon, defaults)
{
	const char *const args[] = { "watch", "--slo", "wait>=1s", "--flight-recorder=d",
				     "--metrics-listen=:9464", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), 0, "%s", cli_fixture_err);
	cr_assert_eq(cfg.flight_keep_ns, 0, "0: the default, 30s");
	cr_assert_eq(cfg.flight_max_files, 0, "0: the default, 10");
	cr_assert_null(cfg.metrics_file);
	cr_assert_eq(cfg.compress_level, 3, "flight recordings are zstd by default");
}

Test(cli_daemon, flight_recordings_raw)
{
	const char *const args[] = { "watch", "--slo", "wait>=1s", "--flight-recorder=d",
				     "--compress=none", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), 0, "%s", cli_fixture_err);
	cr_assert_eq(cfg.compress_level, 0);
}

static void bad(const char *const args[], const char *what)
{
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, args), LS_EXIT_USAGE, "%s", what);
	cr_assert(strstr(cli_fixture_err, what), "expected '%s' in: %s", what, cli_fixture_err);
	/* one line that says what is wrong, then the "Try" line */
	cr_assert_eq(strncmp(cli_fixture_err, "lockstall: ", 11), 0, "%s", cli_fixture_err);
}

Test(cli_daemon, misuse)
{
	const char *const addr[] = { "watch", "--metrics-listen", "example.com:80", NULL };
	const char *const port[] = { "watch", "--metrics-listen", "127.0.0.1:70000", NULL };
	const char *const v6[] = { "watch", "--metrics-listen", "::1:9464", NULL };
	const char *const empty_dir[] = { "watch", "--slo", "wait>=1s", "--flight-recorder", "",
					  NULL };
	const char *const no_rules[] = { "watch", "--flight-recorder", "d", NULL };
	const char *const keep_alone[] = { "watch", "--keep", "10s", NULL };
	const char *const files_alone[] = { "watch", "--max-files", "3", NULL };
	const char *const keep0[] = { "watch", "--slo", "wait>=1s", "--flight-recorder", "d",
				      "--keep", "0", NULL };
	const char *const keep_long[] = { "watch", "--slo", "wait>=1s", "--flight-recorder", "d",
					  "--keep", "2h", NULL };
	const char *const files0[] = { "watch", "--slo", "wait>=1s", "--flight-recorder", "d",
				       "--max-files", "0", NULL };
	const char *const record[] = { "record", "-o", "x", "--metrics-listen", ":9464", NULL };
	struct ls_config cfg;

	bad(addr, "invalid address 'example.com:80' for --metrics-listen");
	bad(port, "invalid address '127.0.0.1:70000'");
	bad(v6, "[::1]:9464");
	bad(empty_dir, "empty directory name for --flight-recorder");
	bad(no_rules, "--flight-recorder goes with --slo RULE or --rules FILE");
	bad(keep_alone, "--keep goes with --flight-recorder DIR");
	bad(files_alone, "--max-files goes with --flight-recorder DIR");
	bad(keep0, "invalid duration '0' for --keep");
	bad(keep_long, "invalid duration '2h' for --keep");
	bad(files0, "invalid number '0' for --max-files");
	cr_assert_eq(cli_fixture__parse(&cfg, record), LS_EXIT_USAGE, "watch only");
}
