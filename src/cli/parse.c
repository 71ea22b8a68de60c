// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * argv -> struct ls_config.
 *
 * A small parser of our own rather than getopt_long(): getopt keeps its
 * state in globals (optind, opterr) and prints its own messages, and we
 * want every mistake to get one line that says what is wrong and what to
 * type instead, from a function the unit tests can call again and again.
 *
 * Accepted forms: "-t 10ms", "-t10ms", "--threshold 10ms",
 * "--threshold=10ms"; options and positionals in any order; "--" ends
 * the options.  Each command's options are a table here; what a value
 * means is options.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "cli/internal.h"
#include "engine/engine.h"
#include "record/trace_file.h"
#include "util.h"

static const struct opt_def top_opts[] = {
	{ 'h', "help", false, OPT_HELP },
	{ 0, "version", false, OPT_VERSION },
};

static const struct opt_def watch_opts[] = {
	{ 'h', "help", false, OPT_HELP },
	{ 0, "version", false, OPT_VERSION },
	{ 'd', "duration", true, OPT_DURATION },
	{ 't', "threshold", true, OPT_THRESHOLD },
	{ 'p', "pid", true, OPT_PID },
	{ 0, "json", false, OPT_JSON },
	{ 0, "top", true, OPT_TOP },
	{ 0, "per-pid", false, OPT_PER_PID },
	{ 0, "hist-min", true, OPT_HIST_MIN },
	{ 'v', "verbose", false, OPT_VERBOSE },
	{ 'o', "output", true, OPT_OUTPUT },
	{ 0, "force", false, OPT_FORCE },
	{ 0, "no-cmdline", false, OPT_NO_CMDLINE },
	{ 0, "compress", true, OPT_COMPRESS },
	{ 0, "slo", true, OPT_SLO },
	{ 0, "rules", true, OPT_RULES },
	{ 0, "exec", false, OPT_EXEC },
	{ 0, "exec-file", true, OPT_EXEC_FILE },
	{ 0, "exec-timeout", true, OPT_EXEC_TIMEOUT },
	{ 0, "exec-limit", true, OPT_EXEC_LIMIT },
	{ 0, "exit-on-violation", false, OPT_EXIT_ON_VIOLATION },
	{ 0, "metrics-file", true, OPT_METRICS_FILE },
	{ 0, "metrics-interval", true, OPT_METRICS_INTERVAL },
	{ 0, "metrics-listen", true, OPT_METRICS_LISTEN },
	{ 0, "flight-recorder", true, OPT_FLIGHT_RECORDER },
	{ 0, "keep", true, OPT_KEEP },
	{ 0, "max-files", true, OPT_MAX_FILES },
	{ 0, "user-stacks", true, OPT_USER_STACKS },
	{ 0, "stack-copy", true, OPT_STACK_COPY },
	{ 0, "stack-interval", true, OPT_STACK_INTERVAL },
	{ 0, "no-stacks", false, OPT_NO_STACKS },
	{ 0, "symbol-memory", true, OPT_SYMBOL_MEMORY },
	{ 0, "folded", false, OPT_FOLDED },
	{ 0, "backend", true, OPT_BACKEND },
	{ 0, "btf", true, OPT_BTF },
	{ 0, "task-state", true, OPT_TASK_STATE },
	{ 0, "pending-after", true, OPT_PENDING_AFTER },
	{ 0, "pending-every", true, OPT_PENDING_EVERY },
	{ 0, "locks", true, OPT_LOCKS },
	{ 0, "rt-priority", true, OPT_RT_PRIORITY },
	{ 0, "ring-buffer", true, OPT_RING_BUFFER },
};

static const struct opt_def record_opts[] = {
	{ 'h', "help", false, OPT_HELP },
	{ 0, "version", false, OPT_VERSION },
	{ 'o', "output", true, OPT_OUTPUT },
	{ 'd', "duration", true, OPT_DURATION },
	{ 't', "threshold", true, OPT_THRESHOLD },
	{ 'p', "pid", true, OPT_PID },
	{ 0, "force", false, OPT_FORCE },
	{ 0, "no-cmdline", false, OPT_NO_CMDLINE },
	{ 0, "compress", true, OPT_COMPRESS },
	{ 'v', "verbose", false, OPT_VERBOSE },
	{ 0, "user-stacks", true, OPT_USER_STACKS },
	{ 0, "stack-copy", true, OPT_STACK_COPY },
	{ 0, "stack-interval", true, OPT_STACK_INTERVAL },
	{ 0, "no-stacks", false, OPT_NO_STACKS },
	{ 0, "backend", true, OPT_BACKEND },
	{ 0, "btf", true, OPT_BTF },
	{ 0, "task-state", true, OPT_TASK_STATE },
	{ 0, "locks", true, OPT_LOCKS },
	{ 0, "rt-priority", true, OPT_RT_PRIORITY },
	{ 0, "ring-buffer", true, OPT_RING_BUFFER },
};

static const struct opt_def top_cmd_opts[] = {
	{ 'h', "help", false, OPT_HELP },
	{ 0, "version", false, OPT_VERSION },
	{ 'b', "batch", false, OPT_BATCH },
	{ 'i', "interval", true, OPT_INTERVAL },
	{ 'n', "iterations", true, OPT_ITERATIONS },
	{ 'd', "duration", true, OPT_DURATION },
	{ 't', "threshold", true, OPT_THRESHOLD },
	{ 'p', "pid", true, OPT_PID },
	{ 'v', "verbose", false, OPT_VERBOSE },
	{ 0, "backend", true, OPT_BACKEND },
	{ 0, "btf", true, OPT_BTF },
	{ 0, "task-state", true, OPT_TASK_STATE },
	{ 0, "locks", true, OPT_LOCKS },
	{ 0, "rt-priority", true, OPT_RT_PRIORITY },
	{ 0, "ring-buffer", true, OPT_RING_BUFFER },
};

static const struct opt_def report_opts[] = {
	{ 'h', "help", false, OPT_HELP },
	{ 0, "version", false, OPT_VERSION },
	{ 0, "format", true, OPT_FORMAT },
	{ 0, "json", false, OPT_JSON },
	{ 'o', "output", true, OPT_OUTPUT },
	{ 0, "force", false, OPT_FORCE },
	{ 't', "threshold", true, OPT_THRESHOLD },
	{ 'p', "pid", true, OPT_PID },
	{ 0, "top", true, OPT_TOP },
	{ 0, "per-pid", false, OPT_PER_PID },
	{ 0, "hist-min", true, OPT_HIST_MIN },
	{ 0, "from", true, OPT_FROM },
	{ 0, "to", true, OPT_TO },
	{ 0, "slo", true, OPT_SLO },
	{ 0, "rules", true, OPT_RULES },
	{ 0, "folded", false, OPT_FOLDED },
	{ 0, "pending-after", true, OPT_PENDING_AFTER },
	{ 0, "pending-every", true, OPT_PENDING_EVERY },
	{ 0, "host", true, OPT_HOST },
};

static const struct {
	const char *name;
	enum ls_command cmd;
	const struct opt_def *opts;
	size_t n_opts;
	int max_pos;		/* positionals */
} commands[] = {
	{ "watch", LS_CMD_WATCH, watch_opts, ARRAY_SIZE(watch_opts), 2 },
	{ "record", LS_CMD_RECORD, record_opts, ARRAY_SIZE(record_opts), 0 },
	{ "report", LS_CMD_REPORT, report_opts, ARRAY_SIZE(report_opts), LS_MAX_INPUTS },
	{ "top", LS_CMD_TOP, top_cmd_opts, ARRAY_SIZE(top_cmd_opts), 0 },
};

static const char *cmd_name(enum ls_command cmd)
{
	switch (cmd) {
	case LS_CMD_WATCH:
		return " watch";
	case LS_CMD_RECORD:
		return " record";
	case LS_CMD_REPORT:
		return " report";
	case LS_CMD_TOP:
		return " top";
	case LS_CMD_NONE:
		break;
	}
	return "";
}

/* One line: what is wrong, how to put it right, and where to read more. */
int cli_usage_error(FILE *err, enum ls_command cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(err, "lockstall: ");
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fprintf(err, " (see 'lockstall%s --help')\n", cmd_name(cmd));
	return LS_EXIT_USAGE;
}

static void config__defaults(struct ls_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->threshold_ns = LS_DEFAULT_THRESHOLD_NS;
	cfg->top = LS_DEFAULT_TOP;
	cfg->hist_min_ns = LS_DEFAULT_HIST_MIN_NS;
	cfg->stacks = true;
	/* all the kernel supports, futexes where cheap: the loader says what not */
	cfg->locks = LS_LOCKS_ALL | LS_LOCKS_DEFAULT;
	cfg->rt_priority = LS_DEFAULT_RT_PRIORITY;
	cfg->ustack_mode = LS_USTACK_DWARF;
	cfg->ustack_copy = LS_USTACK_COPY_DEFAULT;
	cfg->stack_interval_ns = LS_STACK_INTERVAL_DEFAULT;
	cfg->compress_level = LS_TRACE_ZSTD_LEVEL;
}

static const struct opt_def *find_long(const struct opt_def *defs, size_t n, const char *name,
				       size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strlen(defs[i].long_name) == len && !strncmp(defs[i].long_name, name, len))
			return &defs[i];
	}
	return NULL;
}

static const struct opt_def *find_short(const struct opt_def *defs, size_t n, char c)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (defs[i].short_name && defs[i].short_name == c)
			return &defs[i];
	}
	return NULL;
}

static int parse_watch_positionals(struct ls_config *cfg, FILE *err, const char *const pos[],
				   int npos)
{
	__u64 v;

	if (npos >= 1) {
		if (ls_parse_duration(pos[0], NSEC_PER_SEC, &v) || v < LS_MIN_INTERVAL_NS)
			return cli_usage_error(err, LS_CMD_WATCH,
					       "invalid interval '%s': expected seconds or a duration of 100ms or more, like 1, 5 or 500ms",
					       pos[0]);
		cfg->interval_ns = v;
	}
	if (npos >= 2) {
		if (ls_parse_u64(pos[1], UINT64_MAX, &v) || !v)
			return cli_usage_error(err, LS_CMD_WATCH,
					       "invalid count '%s': expected how many intervals to print, 1 or more",
					       pos[1]);
		cfg->count = v;
	}
	return 0;
}

int cli__pending(const struct ls_config *cfg, __u64 threshold_ns, __u64 *after_ns,
		 __u64 *every_ns)
{
	*every_ns = cfg->pending_every_set ? cfg->pending_every_ns : ENGINE_PENDING_EVERY_NS;
	if (cfg->pending_after_ns) {
		*after_ns = cfg->pending_after_ns;
		return cfg->pending_after_ns < threshold_ns ? -EINVAL : 0;
	}
	*after_ns = threshold_ns > ENGINE_PENDING_AFTER_NS ? threshold_ns : ENGINE_PENDING_AFTER_NS;
	return 0;
}

/* What only the whole command line can tell: missing arguments, conflicts. */
static int check_command(struct ls_config *cfg, FILE *err, const char *const pos[], int npos)
{
	if (!cfg->stacks && cfg->stack_opts_set)
		return cli_usage_error(err, cfg->cmd, "--user-stacks, --stack-copy and --stack-interval go without --no-stacks");
	if (cfg->folded) {
		if (cfg->json || (cfg->report_format != LS_FORMAT_TEXT &&
				  cfg->report_format != LS_FORMAT_FOLDED))
			return cli_usage_error(err, cfg->cmd, "--folded and %s: choose one output",
					       cfg->json ? "--json" : "--format");
		cfg->report_format = LS_FORMAT_FOLDED;
	}
	switch (cfg->cmd) {
	case LS_CMD_WATCH:
		if (cfg->pending_after_ns && cfg->pending_after_ns < cfg->threshold_ns)
			return cli_usage_error(err, cfg->cmd,
					       "--pending-after must not be below the threshold: a wait shorter than the threshold is no stall");
		if ((cfg->force || cfg->no_cmdline) && !cfg->output)
			return cli_usage_error(err, cfg->cmd, "%s goes with -o FILE",
					       cfg->force ? "--force" : "--no-cmdline");
		if (cfg->compress_set && !cfg->output && !cfg->flight_dir)
			return cli_usage_error(err, cfg->cmd,
					       "--compress goes with -o FILE or --flight-recorder DIR");
		if (cfg->exec_argv && cfg->exec_file)
			return cli_usage_error(err, cfg->cmd, "--exec and --exec-file: give one hook");
		if (cfg->metrics_interval_ns && !cfg->metrics_file && !cfg->metrics_listen)
			return cli_usage_error(err, cfg->cmd, "--metrics-interval goes with --metrics-file PATH or --metrics-listen ADDR:PORT");
		if ((cfg->flight_keep_ns || cfg->flight_max_files) && !cfg->flight_dir)
			return cli_usage_error(err, cfg->cmd, "%s goes with --flight-recorder DIR",
					       cfg->flight_keep_ns ? "--keep" : "--max-files");
		if (cfg->flight_dir && !cfg->n_slo && !cfg->rules_file)
			return cli_usage_error(err, cfg->cmd,
					       "--flight-recorder goes with --slo RULE or --rules FILE: a violation is what makes it write");
		if ((cfg->exec_timeout_ns || cfg->exec_limit) && !cfg->exec_argv && !cfg->exec_file)
			return cli_usage_error(err, cfg->cmd, "%s goes with --exec or --exec-file",
					       cfg->exec_timeout_ns ? "--exec-timeout" : "--exec-limit");
		if ((cfg->exec_argv || cfg->exec_file || cfg->exit_on_violation) &&
		    !cfg->n_slo && !cfg->rules_file)
			return cli_usage_error(err, cfg->cmd, "%s goes with --slo RULE or --rules FILE",
					       cfg->exit_on_violation ? "--exit-on-violation" :
					       cfg->exec_argv ? "--exec" : "--exec-file");
		return parse_watch_positionals(cfg, err, pos, npos);
	case LS_CMD_RECORD:
		if (!cfg->output)
			return cli_usage_error(err, cfg->cmd,
					       "missing -o FILE: the file to record into");
		return 0;
	case LS_CMD_REPORT:
		if (!npos)
			return cli_usage_error(err, cfg->cmd, "missing FILE: the recording to report on");
		cfg->input = cfg->inputs[0];
		if (cfg->force && !cfg->output)
			return cli_usage_error(err, cfg->cmd, "--force goes with -o FILE");
		if ((cfg->n_slo || cfg->rules_file) && cfg->report_format != LS_FORMAT_TEXT &&
		    cfg->report_format != LS_FORMAT_JSON)
			return cli_usage_error(err, cfg->cmd, "%s goes with --format text or json",
					       cfg->n_slo ? "--slo" : "--rules");
		/* times of day may cross midnight: cmd_report() sorts them out */
		if (cfg->has_to && !cfg->wall_clock && cfg->to_ns <= cfg->from_ns)
			return cli_usage_error(err, cfg->cmd, "--to must be later than --from");
		return 0;
	case LS_CMD_TOP:
		if (!cfg->interval_ns)
			cfg->interval_ns = LS_DEFAULT_TOP_INTERVAL_NS;
		/* top shows no stacks: the kernel need not take them */
		cfg->stacks = false;
		return 0;
	case LS_CMD_NONE:
		break;
	}
	return 0;
}

/* A word that is no option: the command's positionals, up to max_pos (report's: its files). */
static int take_positional(struct ls_config *cfg, FILE *err, const char *arg, const char *pos[],
			   int *npos, int max_pos)
{
	if (*npos < max_pos) {
		if (cfg->cmd == LS_CMD_REPORT)
			cfg->inputs[cfg->n_inputs++] = arg;
		else
			pos[*npos] = arg;
		(*npos)++;
		return 0;
	}
	switch (cfg->cmd) {
	case LS_CMD_WATCH:
		return cli_usage_error(err, cfg->cmd,
				       "unexpected argument '%s': watch takes at most an interval and a count",
				       arg);
	case LS_CMD_REPORT:
		return cli_usage_error(err, cfg->cmd,
				       "too many files at '%s': more than %d, give their directory instead",
				       arg, LS_MAX_INPUTS);
	case LS_CMD_TOP:
		return cli_usage_error(err, cfg->cmd,
				       "unexpected argument '%s': top takes options only (-i INTERVAL, -n COUNT)",
				       arg);
	default:
		return cli_usage_error(err, cfg->cmd,
				       "unexpected argument '%s': record writes to -o FILE", arg);
	}
}

/*
 * The option arg names: *def its definition, opt its name for messages
 * ("--threshold", "-t"), *val its value when given in the same word.
 */
static int find_opt(struct ls_config *cfg, FILE *err, const char *arg, const struct opt_def *defs,
		    size_t n, const struct opt_def **def, char opt[64], const char **val)
{
	*val = NULL;
	if (arg[1] == '-') {
		const char *name = arg + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);

		*def = find_long(defs, n, name, len);
		if (!*def)
			return cli_usage_error(err, cfg->cmd, "unknown option '--%.*s'", (int)len, name);
		snprintf(opt, 64, "--%s", (*def)->long_name);
		if (eq && !(*def)->has_arg)
			return cli_usage_error(err, cfg->cmd, "option '%s' takes no value", opt);
		if (eq)
			*val = eq + 1;
		return 0;
	}
	*def = find_short(defs, n, arg[1]);
	if (!*def)
		return cli_usage_error(err, cfg->cmd, "unknown option '-%c'", arg[1]);
	snprintf(opt, 64, "-%c", arg[1]);
	if (arg[2] && !(*def)->has_arg)
		return cli_usage_error(err, cfg->cmd, "unknown option '%s': options go one per dash", arg);
	if (arg[2])
		*val = arg + 2;
	return 0;
}

/* --exec: like find -exec, every word after argv[*i] up to a lone ';' is the hook's argv. */
static int take_exec(struct ls_config *cfg, FILE *err, int argc, char *const argv[], int *i)
{
	int end = *i + 1;

	if (cfg->exec_argv)
		return cli_usage_error(err, cfg->cmd, "--exec given twice: one hook");
	while (end < argc && strcmp(argv[end], ";"))
		end++;
	if (end == argc)
		return cli_usage_error(err, cfg->cmd,
				       "--exec needs a ';' after the program and its arguments (from a shell: \\;)");
	if (end == *i + 1)
		return cli_usage_error(err, cfg->cmd, "--exec needs a program before its ';'");
	cfg->exec_argv = &argv[*i + 1];
	cfg->exec_argc = end - *i - 1;
	*i = end;
	return 0;
}

static int parse_command(struct ls_config *cfg, int argc, char *const argv[], int i, FILE *err,
			 const struct opt_def *defs, size_t n, int max_pos)
{
	const char *pos[2];
	bool options_done = false;
	int npos = 0, rc;

	for (; i < argc; i++) {
		const char *arg = argv[i];
		const struct opt_def *def;
		const char *val;
		char opt[64];

		if (options_done || arg[0] != '-' || !arg[1]) {
			rc = take_positional(cfg, err, arg, pos, &npos, max_pos);
			if (rc)
				return rc;
			continue;
		}
		if (!strcmp(arg, "--")) {
			options_done = true;
			continue;
		}
		rc = find_opt(cfg, err, arg, defs, n, &def, opt, &val);
		if (rc)
			return rc;
		if (def->has_arg && !val) {
			if (i + 1 >= argc)
				return cli_usage_error(err, cfg->cmd, "option '%s' needs a value", opt);
			val = argv[++i];
		}
		if (def->id == OPT_EXEC)
			rc = take_exec(cfg, err, argc, argv, &i);
		else
			rc = cli_apply_opt(cfg, err, def, opt, val);
		if (rc)
			return rc;
		/* --help wins over anything after it, as people type it last */
		if (cfg->help || cfg->version)
			return 0;
	}
	return check_command(cfg, err, pos, npos);
}

int cli__parse(int argc, char *const argv[], struct ls_config *cfg, FILE *err)
{
	size_t c;
	int i;

	config__defaults(cfg);
	cfg->argc = argc;
	cfg->argv = argv;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const struct opt_def *def = NULL;

		for (c = 0; c < ARRAY_SIZE(commands); c++) {
			if (!strcmp(arg, commands[c].name)) {
				cfg->cmd = commands[c].cmd;
				return parse_command(cfg, argc, argv, i + 1, err, commands[c].opts,
						     commands[c].n_opts, commands[c].max_pos);
			}
		}
		if (!strcmp(arg, "help")) {
			/* "lockstall help watch" reads like "lockstall watch --help" */
			cfg->help = true;
			for (c = 0; i + 1 < argc && c < ARRAY_SIZE(commands); c++) {
				if (!strcmp(argv[i + 1], commands[c].name))
					cfg->cmd = commands[c].cmd;
			}
			return 0;
		}
		if (arg[0] == '-' && arg[1] == '-')
			def = find_long(top_opts, ARRAY_SIZE(top_opts), arg + 2, strlen(arg + 2));
		else if (arg[0] == '-' && arg[1] && !arg[2])
			def = find_short(top_opts, ARRAY_SIZE(top_opts), arg[1]);
		if (def) {
			if (def->id == OPT_HELP)
				cfg->help = true;
			else
				cfg->version = true;
			return 0;
		}
		if (arg[0] == '-' && arg[1])
			return cli_usage_error(err, LS_CMD_NONE,
					       "unknown option '%s': options other than --help and --version go after the command",
					       arg);
		return cli_usage_error(err, LS_CMD_NONE,
				       "unknown command '%s': the commands are watch, top, record and report", arg);
	}
	return cli_usage_error(err, LS_CMD_NONE, "missing command: expected watch, top, record or report");
}
