// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include "lib/cli_fixture.h"

char cli_fixture_err[512];
static char *cli_fixture_argv[128] = { "lockstall" };

int cli_fixture__parse(struct ls_config *cfg, const char *const args[])
{
	FILE *err = fmemopen(cli_fixture_err, sizeof(cli_fixture_err), "w");
	int argc = 1, rc;

	while (args[argc - 1] && argc < 127) {
		cli_fixture_argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	cli_fixture_argv[argc] = NULL;
	rc = cli__parse(argc, cli_fixture_argv, cfg, err);
	fclose(err);
	return rc;
}
