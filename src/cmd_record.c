// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall record: the live run of watch (cmd_watch.c) with no output,
 * a recording (-o) as its product and progress on stderr.  It shares the
 * session with watch and report: what report later prints from the file
 * is what watch would have printed.  What a recording holds besides the
 * records is record/meta.c.
 */
#include <stdio.h>
#include "commands.h"

int cmd_record(const struct ls_config *cfg, volatile sig_atomic_t *stop)
{
	/* cmd_watch() sees LS_CMD_RECORD: no output, no rules to reload */
	return cmd_watch(cfg, stop, NULL, stdout);
}
