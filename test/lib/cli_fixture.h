/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Parsing a command line the way main() would, for the CLI unit suites:
 * argv[0] is "lockstall", args is NULL-terminated, errors land in a buffer.
 */
#ifndef LOCKSTALL_TEST_CLI_FIXTURE_H
#define LOCKSTALL_TEST_CLI_FIXTURE_H

#include <stddef.h>
#include "cli/cli.h"

/* What cli__parse() wrote on its error stream during the last parse. */
extern char cli_fixture_err[512];

/*
 * cli__parse() over "lockstall" + args.  The config points into argv, as
 * into main()'s, so argv lives in the fixture and stays valid until the
 * next call.  At most 127 args.
 */
int cli_fixture__parse(struct ls_config *cfg, const char *const args[]);

#endif /* LOCKSTALL_TEST_CLI_FIXTURE_H */
