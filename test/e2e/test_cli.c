// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lockstall binary's command line, as a user meets it: help, version,
 * and a clear error with exit status 2 for a bad command line.  No root
 * needed, only the binary (LOCKSTALL_BIN).
 */
#include <string.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"

static struct e2e_proc p = E2E_PROC_INIT;

static void teardown(void)
{
	e2e_proc__release(&p);
}

TestSuite(cli, .fini = teardown, .timeout = 30);

Test(cli, help_exits_0_on_stdout)
{
	const char *const args[] = { "--help", NULL };

	e2e_run_cli(&p, args);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "stderr: %s", p.err.data);
	cr_assert(strstr(p.out.data, "Usage: lockstall"), "no usage on stdout: %s", p.out.data);
	cr_assert(strstr(p.out.data, "watch"), "the help does not name the watch command");
	cr_assert_str_empty(p.err.data);
}

Test(cli, watch_help_names_its_options)
{
	const char *const args[] = { "watch", "--help", NULL };

	e2e_run_cli(&p, args);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "stderr: %s", p.err.data);
	cr_assert(strstr(p.out.data, "--json"), "no --json in: %s", p.out.data);
	cr_assert(strstr(p.out.data, "--threshold"), "no --threshold in: %s", p.out.data);
	cr_assert(strstr(p.out.data, "--pid"), "no --pid in: %s", p.out.data);
}

Test(cli, version)
{
	const char *const args[] = { "--version", NULL };

	e2e_run_cli(&p, args);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "stderr: %s", p.err.data);
	cr_assert_str_eq(p.out.data, "lockstall " LOCKSTALL_VERSION "\n");
}

/* A mistake gets status 2, nothing on stdout, and a first line that names it. */
static void check_usage_error(const char *const args[], const char *named)
{
	e2e_run_cli(&p, args);
	cr_assert_eq(e2e_proc__exit_code(&p), 2, "status %#x; stderr: %s", p.status, p.err.data);
	cr_assert_str_empty(p.out.data);
	cr_assert(!strncmp(p.err.data, "lockstall: ", 11), "stderr: %s", p.err.data);
	cr_assert(strstr(p.err.data, named) && strstr(p.err.data, named) < strchr(p.err.data, '\n'),
		  "the first line of stderr does not name '%s': %s", named, p.err.data);
	/* The error and a pointer to --help: not the whole usage text. */
	cr_assert_eq(e2e_buf__lines(&p.err), 1, "stderr: %s", p.err.data);
}

Test(cli, unknown_option)
{
	const char *const args[] = { "watch", "--bogus", NULL };

	check_usage_error(args, "--bogus");
}

Test(cli, threshold_without_unit)
{
	const char *const args[] = { "watch", "-t", "10", NULL };

	check_usage_error(args, "10");
}

Test(cli, bad_pid)
{
	const char *const args[] = { "watch", "-p", "12abc", NULL };

	check_usage_error(args, "12abc");
}

Test(cli, unknown_command)
{
	const char *const args[] = { "frobnicate", NULL };

	check_usage_error(args, "frobnicate");
}
