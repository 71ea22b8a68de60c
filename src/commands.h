/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The commands main() runs.  Each returns an exit code (LS_EXIT_*).
 */
#ifndef LOCKSTALL_COMMANDS_H
#define LOCKSTALL_COMMANDS_H

#include <signal.h>
#include <stdio.h>
#include "cli.h"

/*
 * Trace live until *stop is set (SIGINT, SIGTERM), cfg->duration_ns passed,
 * or cfg->count intervals were printed; then print the summary to out.
 * *reload (SIGHUP; may be NULL): re-read cfg->rules_file.
 * cfg->output: also record to that file.  LS_CMD_RECORD: record only,
 * print progress instead of stalls (cmd_watch.c).
 */
int cmd_watch(const struct ls_config *cfg, volatile sig_atomic_t *stop,
	      volatile sig_atomic_t *reload, FILE *out);

/* Record until *stop: watch's live run with no output, the file cfg->output (cmd_record.c). */
int cmd_record(const struct ls_config *cfg, volatile sig_atomic_t *stop);

/*
 * Replay cfg->input into the engine and the sink watch would have used;
 * output to out (or cfg->output), messages to err (cmd_report.c, no libbpf).
 */
int cmd_report(const struct ls_config *cfg, FILE *out, FILE *err);

#endif /* LOCKSTALL_COMMANDS_H */
