/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Between the command line's files: the options' names (parse.c reads
 * argv against the commands' tables) and their handlers (options.c turns
 * a value into struct ls_config).
 */
#ifndef LOCKSTALL_CLI_INTERNAL_H
#define LOCKSTALL_CLI_INTERNAL_H

#include <stdio.h>
#include "cli/cli.h"

enum opt_id {
	OPT_HELP,
	OPT_VERSION,
	OPT_DURATION,
	OPT_THRESHOLD,
	OPT_PID,
	OPT_JSON,
	OPT_TOP,
	OPT_VERBOSE,
	OPT_OUTPUT,
	OPT_FORCE,
	OPT_NO_CMDLINE,
	OPT_FORMAT,
	OPT_FROM,
	OPT_TO,
	OPT_SLO,
	OPT_RULES,
	OPT_EXEC,
	OPT_EXEC_FILE,
	OPT_EXEC_TIMEOUT,
	OPT_EXEC_LIMIT,
	OPT_EXIT_ON_VIOLATION,
	OPT_METRICS_FILE,
	OPT_METRICS_INTERVAL,
	OPT_METRICS_LISTEN,
	OPT_FLIGHT_RECORDER,
	OPT_KEEP,
	OPT_MAX_FILES,
	OPT_USER_STACKS,
	OPT_STACK_COPY,
	OPT_STACK_INTERVAL,
	OPT_NO_STACKS,
	OPT_SYMBOL_MEMORY,
	OPT_FOLDED,
	OPT_PENDING_AFTER,
	OPT_PENDING_EVERY,
	OPT_BACKEND,
	OPT_BTF,
	OPT_TASK_STATE,
	OPT_INTERVAL,
	OPT_ITERATIONS,
	OPT_BATCH,
	OPT_LOCKS,
	OPT_PER_PID,
	OPT_HIST_MIN,
	OPT_RT_PRIORITY,
	OPT_RING_BUFFER,
	OPT_HOST,
	OPT_COMPRESS,
};

struct opt_def {
	char short_name;	/* 0: long only */
	const char *long_name;
	bool has_arg;
	enum opt_id id;
};

/* One line on err: what is wrong, how to put it right, where to read more. */
__attribute__((format(printf, 3, 4)))
int cli_usage_error(FILE *err, enum ls_command cmd, const char *fmt, ...);

/* One option into cfg: opt is its name as typed, val its value or NULL. */
int cli_apply_opt(struct ls_config *cfg, FILE *err, const struct opt_def *def,
		  const char *opt, const char *val);

#endif /* LOCKSTALL_CLI_INTERNAL_H */
