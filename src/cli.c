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
 * the options.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "cli.h"
#include "engine/engine.h"
#include "record/flight.h"
#include "record/trace_file.h"
#include "alert/metrics_http.h"
#include "symbols/symbols.h"
#include "util.h"

#define LS_SYMBOL_MEMORY_MAX	(64ull << 30)

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
	OPT_HOST,
	OPT_COMPRESS,
};

struct opt_def {
	char short_name;	/* 0: long only */
	const char *long_name;
	bool has_arg;
	enum opt_id id;
};

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
	{ 0, "no-stacks", false, OPT_NO_STACKS },
	{ 0, "backend", true, OPT_BACKEND },
	{ 0, "btf", true, OPT_BTF },
	{ 0, "task-state", true, OPT_TASK_STATE },
	{ 0, "locks", true, OPT_LOCKS },
	{ 0, "rt-priority", true, OPT_RT_PRIORITY },
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

/* *out = the enum whose word (name(i)) is val; -ENOENT: none. */
static int name_index(const char *val, const char *(*name)(unsigned int i), __u8 *out)
{
	const char *n;
	unsigned int i;

	for (i = 0; (n = name(i)); i++) {
		if (!strcmp(val, n)) {
			*out = (__u8)i;
			return 0;
		}
	}
	return -ENOENT;
}

/* One line: what is wrong, how to put it right, and where to read more. */
__attribute__((format(printf, 3, 4)))
static int usage_error(FILE *err, enum ls_command cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(err, "lockstall: ");
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fprintf(err, " (see 'lockstall%s --help')\n", cmd_name(cmd));
	return LS_EXIT_USAGE;
}

/* --locks's words, in the order of lock_bits[]. */
static const char *lock_word(unsigned int i)
{
	static const char *const names[] = { "mmap", "futex", "kernel", "all" };

	return i < ARRAY_SIZE(names) ? names[i] : NULL;
}

/* --locks mmap,futex,kernel | all: mmap_lock is always among them. */
static int parse_locks(const char *val, const char *opt, struct ls_config *cfg, FILE *err)
{
	static const __u8 bits[] = { LS_LOCKS_MMAP, LS_LOCKS_FUTEX, LS_LOCKS_KERNEL, LS_LOCKS_ALL };
	char buf[64], *tok, *save = NULL;
	__u8 i;

	if (strlen(val) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", val);
	cfg->locks = LS_LOCKS_MMAP;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (name_index(tok, lock_word, &i))
			goto bad;
		cfg->locks |= bits[i];
	}
	return 0;
bad:
	return usage_error(err, cfg->cmd,
			   "invalid lock list '%s' for %s: expected a comma-separated list of mmap, futex, kernel, or all",
			   val, opt);
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
	cfg->compress_level = LS_TRACE_ZSTD_LEVEL;
}

/*
 * The threshold needs a unit: "-t 10" could mean 10ms or 10s, and a guess
 * off by a factor of 1000 makes a quiet run that looks like "no stalls".
 */
static int parse_threshold(FILE *err, enum ls_command cmd, const char *opt, const char *val,
			   __u64 *out)
{
	__u64 ns;

	if (!ls_parse_duration(val, 0, &ns)) {
		if (ns)
			goto ok;
		return usage_error(err, cmd,
				   "invalid threshold '%s' for %s: expected a duration above zero, like 500us, 10ms, 1s",
				   val, opt);
	}
	if (!ls_parse_duration(val, 1, &ns))
		return usage_error(err, cmd,
				   "invalid threshold '%s' for %s: add a unit, like %sus, %sms or %ss",
				   val, opt, val, val, val);
	return usage_error(err, cmd,
			   "invalid threshold '%s' for %s: expected a duration like 500us, 10ms, 1s",
			   val, opt);
ok:
	*out = ns;
	return 0;
}

/* "HH:MM:SS" or "HH:MM:SS.fff" (up to 9 decimals): ns since midnight. */
static bool is_digit_char(char c)
{
	return c >= '0' && c <= '9';
}

static int parse_time_of_day(const char *s, __u64 *out)
{
	__u64 frac = 0, scale = NSEC_PER_SEC;
	unsigned int h, m, sec, i;
	const char *p;

	/* exactly "DD:DD:DD": no blanks, no signs, as sscanf() would allow */
	for (i = 0; i < 8; i++) {
		if (i == 2 || i == 5 ? s[i] != ':' : !is_digit_char(s[i]))
			return -EINVAL;
	}
	h = (unsigned int)(s[0] - '0') * 10 + (unsigned int)(s[1] - '0');
	m = (unsigned int)(s[3] - '0') * 10 + (unsigned int)(s[4] - '0');
	sec = (unsigned int)(s[6] - '0') * 10 + (unsigned int)(s[7] - '0');
	if (h > 23 || m > 59 || sec > 59)
		return -EINVAL;
	p = s + 8;
	if (*p == '.') {
		if (!is_digit_char(p[1]))
			return -EINVAL;
		for (p++; is_digit_char(*p); p++) {
			if (scale == 1)
				return -EINVAL;
			scale /= 10;
			frac += (__u64)(*p - '0') * scale;
		}
	}
	if (*p)
		return -EINVAL;
	*out = ((__u64)h * 3600 + m * 60 + sec) * NSEC_PER_SEC + frac;
	return 0;
}

/*
 * The options' handlers, by group: each takes the options of its group and
 * says -ENOENT for the others, so apply_opt() can ask them in turn.
 */

/* --OPT: a file or directory name, never empty. */
static int parse_name(struct ls_config *cfg, FILE *err, const char *opt, const char *val,
		      const char *what, const char **out)
{
	if (!*val)
		return usage_error(err, cfg->cmd, "empty %s name for %s", what, opt);
	*out = val;
	return 0;
}

/* Options without a value: switches. */
static int apply_switch(struct ls_config *cfg, FILE *err, enum opt_id id, const char *opt,
			const char *val)
{
	switch (id) {
	case OPT_HELP:
		cfg->help = true;
		return 0;
	case OPT_VERSION:
		cfg->version = true;
		return 0;
	case OPT_JSON:
		cfg->json = true;
		cfg->report_format = LS_FORMAT_JSON;
		return 0;
	case OPT_VERBOSE:
		cfg->verbose = true;
		return 0;
	case OPT_FORCE:
		cfg->force = true;
		return 0;
	case OPT_NO_CMDLINE:
		cfg->no_cmdline = true;
		return 0;
	case OPT_PER_PID:
		cfg->per_pid = true;
		return 0;
	case OPT_EXEC:
		/* parse_command() takes its words up to ';' */
		return 0;
	case OPT_EXIT_ON_VIOLATION:
		cfg->exit_on_violation = true;
		return 0;
	case OPT_NO_STACKS:
		cfg->stacks = false;
		return 0;
	case OPT_FOLDED:
		cfg->folded = true;
		return 0;
	case OPT_BATCH:
		cfg->batch = true;
		return 0;
	default:
		return -ENOENT;
	}
}

/* What the run watches and for how long: duration, threshold, PID, pace. */
static int apply_scope_opt(struct ls_config *cfg, FILE *err, enum opt_id id, const char *opt,
			   const char *val)
{
	__u64 v;

	switch (id) {
	case OPT_DURATION:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || !v)
			return usage_error(err, cfg->cmd,
					   "invalid duration '%s' for %s: expected seconds or a duration above zero, like 5, 5s, 500ms",
					   val, opt);
		cfg->duration_ns = v;
		return 0;
	case OPT_THRESHOLD:
		cfg->threshold_set = true;
		return parse_threshold(err, cfg->cmd, opt, val, &cfg->threshold_ns);
	case OPT_PID:
		if (ls_parse_u64(val, LS_PID_MAX, &v) || !v)
			return usage_error(err, cfg->cmd,
					   "invalid PID '%s' for %s: expected a process ID from 1 to %u",
					   val, opt, LS_PID_MAX);
		cfg->pid = (__u32)v;
		cfg->pid_set = true;
		return 0;
	case OPT_INTERVAL:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || v < LS_MIN_TOP_INTERVAL_NS)
			return usage_error(err, cfg->cmd,
					   "invalid interval '%s' for %s: expected seconds, 100ms or more, like 1, 2s or 500ms",
					   val, opt);
		cfg->interval_ns = v;
		return 0;
	case OPT_ITERATIONS:
		if (ls_parse_u64(val, UINT64_MAX, &v) || !v)
			return usage_error(err, cfg->cmd,
					   "invalid count '%s' for %s: expected how many screens to show, 1 or more",
					   val, opt);
		cfg->count = v;
		return 0;
	default:
		return -ENOENT;
	}
}

/* --format's words, in the order of enum ls_report_format. */
static const char *format_word(unsigned int i)
{
	static const char *const names[] = {
		"text", "json", "markdown", "html", "perfetto", "folded",
	};

	return i < ARRAY_SIZE(names) ? names[i] : NULL;
}

/* --from and --to: both times since the recording began or both times of day. */
static int parse_window(struct ls_config *cfg, FILE *err, enum opt_id id, const char *opt,
			const char *val)
{
	bool wall = strchr(val, ':') != NULL;
	__u64 v;

	if (wall ? parse_time_of_day(val, &v) : ls_parse_duration(val, NSEC_PER_SEC, &v))
		return usage_error(err, cfg->cmd,
				   "invalid time '%s' for %s: expected a time since the recording began (2s, 1.5s, 500ms) or a UTC time of day (HH:MM:SS[.fff])",
				   val, opt);
	if ((cfg->has_from || cfg->has_to) && wall != cfg->wall_clock)
		return usage_error(err, cfg->cmd,
				   "--from and --to must both be times of day, or both times since the recording began");
	cfg->wall_clock = wall;
	if (id == OPT_FROM) {
		cfg->from_ns = v;
		cfg->has_from = true;
	} else {
		cfg->to_ns = v;
		cfg->has_to = true;
	}
	return 0;
}

/* --compress none, zstd or zstd:LEVEL: how recordings are written. */
static int parse_compress(struct ls_config *cfg, FILE *err, const char *opt, const char *val)
{
	__u64 v;

	cfg->compress_set = true;
	if (!strcmp(val, "none")) {
		cfg->compress_level = 0;
		return 0;
	}
	if (!strcmp(val, "zstd")) {
		cfg->compress_level = LS_TRACE_ZSTD_LEVEL;
		return 0;
	}
	if (!strncmp(val, "zstd:", 5) && !ls_parse_u64(val + 5, LS_TRACE_ZSTD_LEVEL_MAX, &v) && v) {
		cfg->compress_level = (int)v;
		return 0;
	}
	return usage_error(err, cfg->cmd,
			   "invalid compression '%s' for %s: expected none, zstd or zstd:LEVEL (1 to %d)",
			   val, opt, LS_TRACE_ZSTD_LEVEL_MAX);
}

/* Where the findings go and in which form. */
static int apply_output_opt(struct ls_config *cfg, FILE *err, enum opt_id id, const char *opt,
			    const char *val)
{
	__u64 v;
	__u8 format;

	switch (id) {
	case OPT_OUTPUT:
		return parse_name(cfg, err, opt, val, "file", &cfg->output);
	case OPT_COMPRESS:
		return parse_compress(cfg, err, opt, val);
	case OPT_TOP:
		if (ls_parse_u64(val, UINT32_MAX, &v))
			return usage_error(err, cfg->cmd,
					   "invalid number '%s' for %s: expected how many histograms to print per kind, 0 for all",
					   val, opt);
		cfg->top = (unsigned int)v;
		cfg->top_set = true;
		return 0;
	case OPT_HIST_MIN:
		/* a unit is required, as for -t: "1" is no more seconds than microseconds */
		if (strcmp(val, "0") && ls_parse_duration(val, 0, &cfg->hist_min_ns))
			return usage_error(err, cfg->cmd,
					   "invalid duration '%s' for %s: expected a duration like 500us, 1ms, or 0 for every histogram",
					   val, opt);
		if (!strcmp(val, "0"))
			cfg->hist_min_ns = 0;
		return 0;
	case OPT_FORMAT:
		if (name_index(val, format_word, &format))
			return usage_error(err, cfg->cmd,
					   "invalid format '%s' for %s: expected text, json, markdown, html, perfetto or folded",
					   val, opt);
		cfg->report_format = (enum ls_report_format)format;
		cfg->json = cfg->report_format == LS_FORMAT_JSON;
		return 0;
	case OPT_FROM:
	case OPT_TO:
		return parse_window(cfg, err, id, opt, val);
	case OPT_HOST:
		return parse_name(cfg, err, opt, val, "host", &cfg->host_pattern);
	case OPT_PENDING_AFTER:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || !v)
			return usage_error(err, cfg->cmd,
					   "invalid duration '%s' for %s: expected seconds or a duration above zero, like 1, 1s, 500ms",
					   val, opt);
		cfg->pending_after_ns = v;
		return 0;
	case OPT_PENDING_EVERY:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v))
			return usage_error(err, cfg->cmd,
					   "invalid duration '%s' for %s: expected seconds or a duration, like 10, 10s, or 0 for once",
					   val, opt);
		cfg->pending_every_ns = v;
		cfg->pending_every_set = true;
		return 0;
	default:
		return -ENOENT;
	}
}

/* SLO rules and what a violation does: hooks, the flight recorder. */
static int apply_alert_opt(struct ls_config *cfg, FILE *err, enum opt_id id, const char *opt,
			   const char *val)
{
	__u64 v;

	switch (id) {
	case OPT_SLO:
		/* the rule is parsed by cmd_watch(), which can say where it is wrong */
		if (cfg->n_slo == LS_MAX_SLO_ARGS)
			return usage_error(err, cfg->cmd,
					   "more than %d --slo options: put the rules in a --rules file",
					   LS_MAX_SLO_ARGS);
		cfg->slo[cfg->n_slo++] = val;
		return 0;
	case OPT_RULES:
		if (*val && cfg->rules_file)
			return usage_error(err, cfg->cmd, "%s given twice: one rules file", opt);
		return parse_name(cfg, err, opt, val, "file", &cfg->rules_file);
	case OPT_EXEC_FILE:
		return parse_name(cfg, err, opt, val, "file", &cfg->exec_file);
	case OPT_EXEC_TIMEOUT:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || !v)
			return usage_error(err, cfg->cmd,
					   "invalid timeout '%s' for %s: expected seconds or a duration above zero, like 10, 10s, 500ms",
					   val, opt);
		cfg->exec_timeout_ns = v;
		return 0;
	case OPT_EXEC_LIMIT:
		if (ls_parse_u64(val, 64, &v) || !v)
			return usage_error(err, cfg->cmd,
					   "invalid number '%s' for %s: expected how many hooks may run at once, 1 to 64",
					   val, opt);
		cfg->exec_limit = (unsigned int)v;
		return 0;
	case OPT_FLIGHT_RECORDER:
		return parse_name(cfg, err, opt, val, "directory", &cfg->flight_dir);
	case OPT_KEEP:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || !v || v > 3600 * NSEC_PER_SEC)
			return usage_error(err, cfg->cmd,
					   "invalid duration '%s' for %s: expected seconds or a duration above zero and at most 1h, like 30, 30s, 2m",
					   val, opt);
		cfg->flight_keep_ns = v;
		return 0;
	case OPT_MAX_FILES:
		if (ls_parse_u64(val, 10000, &v) || !v)
			return usage_error(err, cfg->cmd,
					   "invalid number '%s' for %s: expected how many recordings to keep, 1 to 10000",
					   val, opt);
		cfg->flight_max_files = (unsigned int)v;
		return 0;
	default:
		return -ENOENT;
	}
}

/* The metrics: a file rewritten at an interval, an HTTP endpoint. */
static int apply_metrics_opt(struct ls_config *cfg, FILE *err, enum opt_id id, const char *opt,
			     const char *val)
{
	struct sockaddr_storage ss;
	socklen_t len;
	__u64 v;

	switch (id) {
	case OPT_METRICS_FILE:
		return parse_name(cfg, err, opt, val, "file", &cfg->metrics_file);
	case OPT_METRICS_INTERVAL:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || v < LS_MIN_INTERVAL_NS)
			return usage_error(err, cfg->cmd,
					   "invalid interval '%s' for %s: expected seconds or a duration of 100ms or more, like 10, 10s, 500ms",
					   val, opt);
		cfg->metrics_interval_ns = v;
		return 0;
	case OPT_METRICS_LISTEN:
		if (metrics_http__parse_addr(val, &ss, &len))
			return usage_error(err, cfg->cmd,
					   "invalid address '%s' for %s: expected ADDR:PORT with a numeric address, like 127.0.0.1:9464, [::1]:9464 or :9464 (loopback)",
					   val, opt);
		cfg->metrics_listen = val;
		return 0;
	default:
		return -ENOENT;
	}
}

/* How the kernel side traces: stacks, backend, BTF, task state, lock kinds. */
static int apply_trace_opt(struct ls_config *cfg, FILE *err, enum opt_id id, const char *opt,
			   const char *val)
{
	__u64 v;

	switch (id) {
	case OPT_USER_STACKS:
		cfg->stack_opts_set = true;
		if (!strcmp(val, "none"))
			cfg->ustack_mode = LS_USTACK_NONE;
		else if (!strcmp(val, "fp"))
			cfg->ustack_mode = LS_USTACK_FP;
		else if (!strcmp(val, "dwarf"))
			cfg->ustack_mode = LS_USTACK_DWARF;
		else
			return usage_error(err, cfg->cmd,
					   "invalid value '%s' for %s: expected none, fp or dwarf", val, opt);
		return 0;
	case OPT_STACK_COPY:
		cfg->stack_opts_set = true;
		if (ls_parse_size(val, &v) || v < 512 || v > LS_USTACK_COPY_MAX)
			return usage_error(err, cfg->cmd,
					   "invalid size '%s' for %s: expected bytes from 512 to %u, like 8K or 16384",
					   val, opt, LS_USTACK_COPY_MAX);
		/* whole 8-byte words: the record's padding rule */
		cfg->ustack_copy = (__u32)v & ~7u;
		return 0;
	case OPT_SYMBOL_MEMORY:
		if (ls_parse_size(val, &v) || v < SYM_BUDGET_MIN || v > LS_SYMBOL_MEMORY_MAX)
			return usage_error(err, cfg->cmd,
					   "invalid size '%s' for %s: expected bytes from 1M to 64G, like 64M",
					   val, opt);
		cfg->symbol_memory = v;
		return 0;
	case OPT_BACKEND:
		if (!name_index(val, ls_backend__name, &cfg->backend))
			return 0;
		return usage_error(err, cfg->cmd,
				   "invalid backend '%s' for %s: expected auto, tracepoint, fentry or kprobe",
				   val, opt);
	case OPT_BTF:
		cfg->btf_path = val;
		return 0;
	case OPT_LOCKS:
		return parse_locks(val, opt, cfg, err);
	case OPT_RT_PRIORITY:
		if (ls_parse_u64(val, 99, &v))
			return usage_error(err, cfg->cmd,
					   "invalid priority '%s' for %s: expected a SCHED_FIFO priority from 1 to 99, or 0 for none",
					   val, opt);
		cfg->rt_priority = (unsigned int)v;
		cfg->rt_priority_set = true;
		return 0;
	case OPT_TASK_STATE:
		if (!name_index(val, ls_task_state__name, &cfg->task_state))
			return 0;
		return usage_error(err, cfg->cmd,
				   "invalid task state '%s' for %s: expected auto, storage or hash",
				   val, opt);
	default:
		return -ENOENT;
	}
}

/* One option into cfg: opt is its name as typed, val its value or NULL. */
static int apply_opt(struct ls_config *cfg, FILE *err, const struct opt_def *def,
		     const char *opt, const char *val)
{
	static int (*const groups[])(struct ls_config *cfg, FILE *err, enum opt_id id,
				     const char *opt, const char *val) = {
		apply_switch, apply_scope_opt, apply_output_opt, apply_alert_opt, apply_metrics_opt,
		apply_trace_opt,
	};
	size_t i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		rc = groups[i](cfg, err, def->id, opt, val);
		if (rc != -ENOENT)
			return rc;
	}
	return 0;
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
			return usage_error(err, LS_CMD_WATCH,
					   "invalid interval '%s': expected seconds or a duration of 100ms or more, like 1, 5 or 500ms",
					   pos[0]);
		cfg->interval_ns = v;
	}
	if (npos >= 2) {
		if (ls_parse_u64(pos[1], UINT64_MAX, &v) || !v)
			return usage_error(err, LS_CMD_WATCH,
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
		return usage_error(err, cfg->cmd, "--user-stacks and --stack-copy go without --no-stacks");
	if (cfg->folded) {
		if (cfg->json || (cfg->report_format != LS_FORMAT_TEXT &&
				  cfg->report_format != LS_FORMAT_FOLDED))
			return usage_error(err, cfg->cmd, "--folded and %s: choose one output",
					   cfg->json ? "--json" : "--format");
		cfg->report_format = LS_FORMAT_FOLDED;
	}
	switch (cfg->cmd) {
	case LS_CMD_WATCH:
		if (cfg->pending_after_ns && cfg->pending_after_ns < cfg->threshold_ns)
			return usage_error(err, cfg->cmd,
					   "--pending-after must not be below the threshold: a wait shorter than the threshold is no stall");
		if ((cfg->force || cfg->no_cmdline) && !cfg->output)
			return usage_error(err, cfg->cmd, "%s goes with -o FILE",
					   cfg->force ? "--force" : "--no-cmdline");
		if (cfg->compress_set && !cfg->output && !cfg->flight_dir)
			return usage_error(err, cfg->cmd,
					   "--compress goes with -o FILE or --flight-recorder DIR");
		if (cfg->exec_argv && cfg->exec_file)
			return usage_error(err, cfg->cmd, "--exec and --exec-file: give one hook");
		if (cfg->metrics_interval_ns && !cfg->metrics_file && !cfg->metrics_listen)
			return usage_error(err, cfg->cmd, "--metrics-interval goes with --metrics-file PATH or --metrics-listen ADDR:PORT");
		if ((cfg->flight_keep_ns || cfg->flight_max_files) && !cfg->flight_dir)
			return usage_error(err, cfg->cmd, "%s goes with --flight-recorder DIR",
					   cfg->flight_keep_ns ? "--keep" : "--max-files");
		if (cfg->flight_dir && !cfg->n_slo && !cfg->rules_file)
			return usage_error(err, cfg->cmd,
					   "--flight-recorder goes with --slo RULE or --rules FILE: a violation is what makes it write");
		if ((cfg->exec_timeout_ns || cfg->exec_limit) && !cfg->exec_argv && !cfg->exec_file)
			return usage_error(err, cfg->cmd, "%s goes with --exec or --exec-file",
					   cfg->exec_timeout_ns ? "--exec-timeout" : "--exec-limit");
		if ((cfg->exec_argv || cfg->exec_file || cfg->exit_on_violation) &&
		    !cfg->n_slo && !cfg->rules_file)
			return usage_error(err, cfg->cmd, "%s goes with --slo RULE or --rules FILE",
					   cfg->exit_on_violation ? "--exit-on-violation" :
					   cfg->exec_argv ? "--exec" : "--exec-file");
		return parse_watch_positionals(cfg, err, pos, npos);
	case LS_CMD_RECORD:
		if (!cfg->output)
			return usage_error(err, cfg->cmd,
					   "missing -o FILE: the file to record into");
		return 0;
	case LS_CMD_REPORT:
		if (!npos)
			return usage_error(err, cfg->cmd, "missing FILE: the recording to report on");
		cfg->input = cfg->inputs[0];
		if (cfg->force && !cfg->output)
			return usage_error(err, cfg->cmd, "--force goes with -o FILE");
		if ((cfg->n_slo || cfg->rules_file) && cfg->report_format != LS_FORMAT_TEXT &&
		    cfg->report_format != LS_FORMAT_JSON)
			return usage_error(err, cfg->cmd, "%s goes with --format text or json",
					   cfg->n_slo ? "--slo" : "--rules");
		/* times of day may cross midnight: cmd_report() sorts them out */
		if (cfg->has_to && !cfg->wall_clock && cfg->to_ns <= cfg->from_ns)
			return usage_error(err, cfg->cmd, "--to must be later than --from");
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
		return usage_error(err, cfg->cmd,
				   "unexpected argument '%s': watch takes at most an interval and a count",
				   arg);
	case LS_CMD_REPORT:
		return usage_error(err, cfg->cmd,
				   "too many files at '%s': more than %d, give their directory instead",
				   arg, LS_MAX_INPUTS);
	case LS_CMD_TOP:
		return usage_error(err, cfg->cmd,
				   "unexpected argument '%s': top takes options only (-i INTERVAL, -n COUNT)",
				   arg);
	default:
		return usage_error(err, cfg->cmd,
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
			return usage_error(err, cfg->cmd, "unknown option '--%.*s'", (int)len, name);
		snprintf(opt, 64, "--%s", (*def)->long_name);
		if (eq && !(*def)->has_arg)
			return usage_error(err, cfg->cmd, "option '%s' takes no value", opt);
		if (eq)
			*val = eq + 1;
		return 0;
	}
	*def = find_short(defs, n, arg[1]);
	if (!*def)
		return usage_error(err, cfg->cmd, "unknown option '-%c'", arg[1]);
	snprintf(opt, 64, "-%c", arg[1]);
	if (arg[2] && !(*def)->has_arg)
		return usage_error(err, cfg->cmd, "unknown option '%s': options go one per dash", arg);
	if (arg[2])
		*val = arg + 2;
	return 0;
}

/* --exec: like find -exec, every word after argv[*i] up to a lone ';' is the hook's argv. */
static int take_exec(struct ls_config *cfg, FILE *err, int argc, char *const argv[], int *i)
{
	int end = *i + 1;

	if (cfg->exec_argv)
		return usage_error(err, cfg->cmd, "--exec given twice: one hook");
	while (end < argc && strcmp(argv[end], ";"))
		end++;
	if (end == argc)
		return usage_error(err, cfg->cmd,
				   "--exec needs a ';' after the program and its arguments (from a shell: \\;)");
	if (end == *i + 1)
		return usage_error(err, cfg->cmd, "--exec needs a program before its ';'");
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
				return usage_error(err, cfg->cmd, "option '%s' needs a value", opt);
			val = argv[++i];
		}
		if (def->id == OPT_EXEC)
			rc = take_exec(cfg, err, argc, argv, &i);
		else
			rc = apply_opt(cfg, err, def, opt, val);
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
			return usage_error(err, LS_CMD_NONE,
					   "unknown option '%s': options other than --help and --version go after the command",
					   arg);
		return usage_error(err, LS_CMD_NONE,
				   "unknown command '%s': the commands are watch, top, record and report", arg);
	}
	return usage_error(err, LS_CMD_NONE, "missing command: expected watch, top, record or report");
}

void cli__usage(FILE *f, enum ls_command cmd)
{
	if (cmd == LS_CMD_WATCH) {
		fprintf(f,
"Usage: lockstall watch [-d DURATION] [-t THRESHOLD] [-p PID] [--json] [--top N]\n"
"                       [--per-pid] [--hist-min DURATION]\n"
"                       [-o FILE [--force] [--no-cmdline]] [--compress MODE]\n"
"                       [--slo RULE]... [--rules FILE] [--exit-on-violation]\n"
"                       [--exec PROGRAM [ARG]... ';' | --exec-file FILE]\n"
"                       [--exec-timeout DURATION] [--exec-limit N]\n"
"                       [--metrics-file PATH] [--metrics-listen ADDR:PORT]\n"
"                       [--metrics-interval DURATION]\n"
"                       [--flight-recorder DIR [--keep DURATION] [--max-files N]]\n"
"                       [--backend BACKEND] [--btf FILE] [--task-state WHERE]\n"
"                       [--locks LIST] [--rt-priority PRIO]\n"
"                       [--user-stacks MODE] [--stack-copy SIZE] [--no-stacks]\n"
"                       [--symbol-memory SIZE]\n"
"                       [--pending-after DURATION] [--pending-every DURATION]\n"
"                       [--folded] [-v] [interval [count]]\n"
"\n"
"Trace lock waits (mmap_lock, and futexes: pthread mutexes) until Ctrl-C and\n"
"print one record per stall: the waiting task, the lock, the task(s) holding\n"
"it, and why each holder was off CPU.\n"
"A summary with histograms of wait, hold and off-CPU time follows at the end.\n"
"\n"
"Options:\n"
"  -d, --duration DURATION   stop after DURATION: 5 (seconds), 5s, 500ms, 2m\n"
"  -t, --threshold DURATION  report waits of at least DURATION (default 10ms);\n"
"                            a unit is required: 500us, 10ms, 1s\n"
"  -p, --pid PID             only stalls whose waiter or holder is in process\n"
"                            PID, or on its memory; histograms of PID only\n"
"      --json                JSON Lines on stdout: one object per stall, then\n"
"                            a summary\n"
"      --top N               histograms printed per kind, most total time first\n"
"                            (default 10, 0 for all)\n"
"      --per-pid             a histogram per process (default: one per command\n"
"                            name, summed over its processes)\n"
"      --hist-min DURATION   only histograms with a sample that may reach\n"
"                            DURATION, and hold and off-CPU ones only when a\n"
"                            lock wait did (default 1ms; 0: all); the others\n"
"                            are counted in one line\n"
"  -o, --output FILE         also record everything to FILE, for 'lockstall\n"
"                            report' later (see 'lockstall record --help')\n"
"      --force               replace FILE if it exists (never through a symlink)\n"
"      --no-cmdline          do not read the command lines of the processes seen\n"
"      --compress MODE       how FILE and the flight recordings are written:\n"
"                            zstd (default, level 3), zstd:LEVEL (1 to 19) or\n"
"                            none (raw); report reads them all\n"
"      --pending-after DURATION\n"
"                            report a wait still going on after DURATION\n"
"                            (default 1s, never below the threshold): PENDING\n"
"                            in text, {\"type\":\"pending\"} in JSON, with the\n"
"                            holders and the verdict so far; waits still open\n"
"                            at exit are reported so too (at_exit)\n"
"      --pending-every DURATION\n"
"                            repeat the report while the wait lasts (default\n"
"                            10s; 0: once)\n"
"  -v, --verbose             libbpf messages and ring buffer statistics on stderr\n"
"      --slo RULE            an SLO rule (repeatable): selectors pid=, comm=\n"
"                            (exact or glob), cgroup= (a cgroup v2 path and\n"
"                            below it), policy=, verdict=, cause=, and one\n"
"                            condition: wait>=50ms (one stall) or\n"
"                            stalled>=200ms/10s (stalled time in a sliding\n"
"                            window); every=DURATION: fire at most so often\n"
"      --rules FILE          rules, one a line, '#' comments; SIGHUP re-reads\n"
"                            it (a bad file keeps the rules in use)\n"
"      --exit-on-violation   stop at the first violation, print the summary,\n"
"                            exit 3\n"
"      --exec PROGRAM [ARG]... ';'\n"
"                            run PROGRAM (no shell) on each violation, the\n"
"                            violation as JSON on its stdin, LOCKSTALL_*\n"
"                            variables in its environment\n"
"      --exec-file FILE      the same, the program and its arguments one a line\n"
"      --exec-timeout DURATION  kill a hook after DURATION (default 10s)\n"
"      --exec-limit N        hooks running at once (default 4); beyond, skipped\n"
"      --metrics-file PATH   write Prometheus metrics (text format, for\n"
"                            node_exporter's textfile collector) to PATH,\n"
"                            replaced whole at every --metrics-interval\n"
"                            (default 10s) and at exit\n"
"      --metrics-listen ADDR:PORT  serve the same at http://ADDR:PORT/metrics;\n"
"                            a bare :PORT is 127.0.0.1 (0.0.0.0:PORT or\n"
"                            [::]:PORT for every interface)\n"
"      --flight-recorder DIR keep the last --keep of events in memory and, when\n"
"                            a rule fires, write them and the next 2s to a\n"
"                            recording in DIR, for 'lockstall report'\n"
"      --keep DURATION       how much before a violation (default 30s)\n"
"      --max-files N         recordings kept in DIR, the oldest removed first\n"
"                            (default 10; 256MiB at most in all)\n"
"      --backend BACKEND     where lock events come from: auto (default: the\n"
"                            first of these that works), tracepoint (the\n"
"                            mmap_lock tracepoints, 5.11+), fentry or kprobe\n"
"                            (the rwsem functions behind the lock)\n"
"      --btf FILE            the kernel's BTF from FILE, for kernels without\n"
"                            /sys/kernel/btf/vmlinux\n"
"      --task-state WHERE    where the kernel side keeps per-task state: auto\n"
"                            (default), storage (BPF task storage, 5.15+) or\n"
"                            hash (a hash map, for 5.10; the default there)\n"
"      --locks LIST          which locks to trace, comma-separated: mmap\n"
"                            (always), futex (pthread mutexes and other\n"
"                            user-space locks: where the kernel refuses\n"
"                            fentry, every syscall then costs more), kernel\n"
"                            (the kernel's mutexes, rwsems, rt_mutexes and\n"
"                            percpu-rwsems, 5.19+), all.  Default: all the\n"
"                            kernel supports, futexes only by fentry; what\n"
"                            is not traced is said on stderr\n"
"      --rt-priority PRIO    run at SCHED_FIFO PRIO (1-99; 0: as started):\n"
"                            where busy real-time tasks leave lockstall too\n"
"                            little CPU to keep up and events are lost\n"
"                            (stderr says so).  Default 1: the reading thread\n"
"                            only, above normal tasks, below real-time ones,\n"
"                            and raised to 49 while it falls behind\n"
"      --user-stacks MODE    user stacks under each stall: dwarf (default:\n"
"                            registers and the top of the stack are copied and\n"
"                            unwound here, like perf --call-graph dwarf), fp\n"
"                            (the kernel's frame-pointer walk: one frame for\n"
"                            most distribution binaries) or none\n"
"      --stack-copy SIZE     bytes of user stack copied for dwarf (default 16K,\n"
"                            512 to 32K)\n"
"      --no-stacks           no stacks at all, kernel ones included, and so no\n"
"                            names for locks (they come with the stacks: a\n"
"                            futex's variable, a kernel lock's caller)\n""      --symbol-memory SIZE  memory for the files read to name frames and\n"
"                            locks (default 64M, 1M to 64G); the bytes read\n"
"                            per second are bounded by it too.  Names that do\n"
"                            not fit come out unknown, counted at the end\n"
"      --folded              print folded stacks of the stall time at the end\n"
"                            instead (flamegraph.pl, speedscope)\n"
"  -h, --help                show this help\n"
"\n"
"Arguments:\n"
"  interval [count]          print the histograms every interval seconds (or\n"
"                            500ms), count times, then the summary (default:\n"
"                            until stopped)\n"
"\n"
"Exit status: 0 done, 1 tracing or writing failed, 2 bad command line or\n"
"rule, 3 an SLO rule was broken (--exit-on-violation).\n"
"\n"
"Examples:\n"
"  lockstall watch                # until Ctrl-C, waits of 10ms or more\n"
"  lockstall watch -t 1ms         # report waits of 1ms or more\n"
"  lockstall watch -d 30s         # trace for 30 seconds, then the summary\n"
"  lockstall watch -p 1234        # only stalls involving process 1234\n"
"  lockstall watch 1 10           # histograms every second, 10 times\n"
"  lockstall watch --json | jq .  # stalls as JSON Lines, for tools\n"
"  lockstall watch -o run.lst     # watch, and keep a recording\n"
"  lockstall watch -d 60s --folded | flamegraph.pl >stalls.svg\n"
"  lockstall watch --slo 'comm=db-* wait>=50ms' --exec /usr/local/bin/page ';'\n");
		return;
	}
	if (cmd == LS_CMD_TOP) {
		fprintf(f,
"Usage: lockstall top [-b] [-i INTERVAL] [-n COUNT] [-d DURATION] [-t THRESHOLD]\n"
"                     [-p PID] [--backend BACKEND] [--btf FILE]\n"
"                     [--task-state WHERE] [--locks LIST] [--rt-priority PRIO]\n"
"                     [-v]\n"
"\n"
"Trace lock waits live and show, refreshed every INTERVAL: the stalls in\n"
"progress first (how long so far, the waiter, the lock, the holder and what\n"
"it is doing, who runs instead of it), then the worst victims and the top\n"
"culprits (holders, and the tasks that preempted them) over the last\n"
"interval and since start, and the events lost.\n"
"\n"
"Options:\n"
"  -b, --batch               plain snapshots on stdout, one every INTERVAL,\n"
"                            for a script or a pipe (no terminal needed)\n"
"  -i, --interval INTERVAL   refresh every INTERVAL (default 1s; 100ms or more)\n"
"  -n, --iterations COUNT    stop after COUNT screens\n"
"  -d, --duration DURATION   stop after DURATION: 5 (seconds), 5s, 500ms, 2m\n"
"  -t, --threshold DURATION  count waits of at least DURATION (default 10ms)\n"
"  -p, --pid PID             only stalls whose waiter or holder is in process\n"
"                            PID, or on its memory\n"
"      --backend BACKEND, --btf FILE, --task-state WHERE, --locks LIST,\n"
"      --rt-priority PRIO    as for watch\n"
"  -v, --verbose             libbpf messages on stderr\n"
"  -h, --help                show this help\n"
"\n"
"Keys: q quit, p or space pause, s change the sort (time in the last\n"
"interval, time since start, stalls, longest wait), f filter by process (a\n"
"PID or a part of a command name), c filter by cgroup (a cgroup v2 path and\n"
"below it), h or ? help.  Ctrl-C, SIGTERM and a closed terminal end it and\n"
"restore the terminal.\n"
"\n"
"Exit status: 0 done, 1 tracing failed, 2 bad command line (or no terminal\n"
"without -b).\n"
"\n"
"Examples:\n"
"  lockstall top                  # until q\n"
"  lockstall top -i 2 -t 1ms      # every 2 seconds, waits of 1ms or more\n"
"  lockstall top -b -n 10 >log    # ten snapshots, one a second, into a file\n");
		return;
	}
	if (cmd == LS_CMD_RECORD) {
		fprintf(f,
"Usage: lockstall record -o FILE [-d DURATION] [-t THRESHOLD] [-p PID] [--force]\n"
"                        [--no-cmdline] [--compress MODE]\n"
"                        [--backend BACKEND] [--btf FILE]\n"
"                        [--task-state WHERE] [--locks LIST] [--rt-priority PRIO]\n"
"                        [--user-stacks MODE] [--stack-copy SIZE] [--no-stacks]\n"
"                        [-v]\n"
"\n"
"Trace lock waits until Ctrl-C (or -d) and write every record the analysis\n"
"needs to FILE, with the host, kernel, options and the names of the processes\n"
"seen; print nothing but progress on stderr.  'lockstall report FILE' later,\n"
"on any machine, prints what 'lockstall watch' would have printed.\n"
"\n"
"Options:\n"
"  -o, --output FILE         the recording; created with mode 0600, never\n"
"                            through a symlink\n"
"  -d, --duration DURATION   stop after DURATION: 5 (seconds), 5s, 500ms, 2m\n"
"  -t, --threshold DURATION  waits of at least DURATION (default 10ms): the\n"
"                            kernel sends shorter waits only when they went off\n"
"                            CPU, so a report cannot go below it\n"
"  -p, --pid PID             the report's default -p; everything is recorded\n"
"      --force               replace FILE if it exists\n"
"      --no-cmdline          do not read /proc/PID/cmdline of the processes seen\n"
"                            (read once per process, at the end: it takes that\n"
"                            process's mmap_lock)\n"
"      --compress MODE       zstd (default, level 3), zstd:LEVEL (1 to 19) or\n"
"                            none (the raw format): a zstd frame ends every\n"
"                            second, so a file cut short still reads\n"
"  -v, --verbose             libbpf messages on stderr\n"
"      --backend BACKEND     auto (default), tracepoint, fentry or kprobe: as\n"
"                            for watch; the one used is in the recording\n"
"      --btf FILE            the kernel's BTF from FILE (as for watch)\n"
"      --task-state WHERE    auto (default), storage or hash: as for watch\n"
"      --locks LIST          mmap, futex, kernel, all: as for watch\n"
"      --rt-priority PRIO    SCHED_FIFO PRIO (0-99, default 1): as for watch\n"
"      --user-stacks MODE    dwarf (default), fp or none; --stack-copy SIZE,\n"
"                            --no-stacks: as for watch.  The mappings of the\n"
"                            processes whose stacks were taken, and their\n"
"                            files' build-ids, are recorded: report names\n"
"                            their frames after they exited, and refuses a\n"
"                            file rebuilt since\n"
"  -h, --help                show this help\n"
"\n"
"Exit status: 0 done, 1 tracing or writing failed (the file then ends at its\n"
"last whole chunk, or frame, and still reads), 2 bad command line.\n"
"\n"
"Examples:\n"
"  lockstall record -o incident.lst -d 60s\n"
"  lockstall record -o incident.lst -t 1ms   # shorter waits, bigger file\n");
		return;
	}
	if (cmd == LS_CMD_REPORT) {
		fprintf(f,
"Usage: lockstall report FILE [--format FORMAT] [-o OUT [--force]]\n"
"                        [-t THRESHOLD] [-p PID] [--top N] [--per-pid]\n"
"                        [--hist-min DURATION] [--from T] [--to T]\n"
"                        [--slo RULE]... [--rules FILE]\n"
"                        [--pending-after DURATION] [--pending-every DURATION]\n"
"       lockstall report FILE|DIR... [--host PATTERN] [--format FORMAT]\n"
"                        [-o OUT [--force]] [-t THRESHOLD] [-p PID] [--top N]\n"
"                        [--from T] [--to T]\n"
"\n"
"Replay a recording made by 'lockstall record' or 'lockstall watch -o' into\n"
"the same analysis and print what 'lockstall watch' printed (or would have,\n"
"for record): the same file gives the same output, byte for byte.  Where and\n"
"when it was recorded goes to stderr.\n"
"\n"
"Several files, a directory (every file in it) or --host: a fleet's report.\n"
"Each recording is read as one report would read it, then all are merged:\n"
"the culprits and victims by command and by cgroup with the hosts each is\n"
"on, a row per host, the fleet's worst stalls in UTC, the wait histograms\n"
"per command added up.  Recordings of one boot that overlap count a stall\n"
"once.  Files that cannot be read are named and left out.\n"
"\n"
"Options:\n"
"      --format FORMAT       text (default) or json, as 'watch' and\n"
"                            'watch --json' print (--json is short for json);\n"
"                            markdown (for a postmortem or a ticket), html\n"
"                            (one self-contained page with SVG timelines) or\n"
"                            perfetto (Chrome trace-event JSON: open it in\n"
"                            ui.perfetto.dev): the whole run's report;\n"
"                            folded: folded stacks of the stall time\n"
"                            (flamegraph.pl, speedscope)\n"
"      --folded              short for --format folded\n"
"  -o, --output OUT          write to OUT instead of stdout (mode 0600, never\n"
"                            through a symlink)\n"
"      --force               replace OUT if it exists\n"
"  -t, --threshold DURATION  report waits of at least DURATION (default: the\n"
"                            recording's); not below the recording's threshold:\n"
"                            the kernel did not send shorter waits unless they\n"
"                            went off CPU\n"
"  -p, --pid PID             only stalls involving process PID (default: the\n"
"                            recording's -p, if any)\n"
"      --top N               histograms printed per kind (default: the\n"
"                            recording's, else 10; 0 for all)\n"
"      --per-pid             a histogram per process, not per command name\n"
"      --hist-min DURATION   only histograms with a sample that may reach\n"
"                            DURATION (default 1ms; 0: all)\n"
"      --slo RULE, --rules FILE\n"
"                            judge the stalls reported by SLO rules, as\n"
"                            'watch --slo' does, and print the violations\n"
"                            (text and json only; no hooks)\n"
"      --from T, --to T      only stalls that began from T until before T: a\n"
"                            time since the recording began, as the text\n"
"                            output's +S.mmm column counts (2, 1.5s, 500ms),\n"
"                            or a UTC time of day, as the header on stderr\n"
"                            shows (07:24:10, 07:24:10.250); the summary\n"
"                            counts those stalls only\n"
"      --pending-after DURATION, --pending-every DURATION\n"
"                            waits still going on, as 'watch' reports them\n"
"                            (defaults 1s and 10s), from the recording's ticks\n"
"      --host PATTERN        a fleet's hosts whose name matches PATTERN (a\n"
"                            shell glob: 'web-*'); -t, -p, --from and --to\n"
"                            apply to each host's recordings; --top: rows per\n"
"                            table and histograms (default 10)\n"
"  -h, --help                show this help\n"
"\n"
"Exit status: 0 done (also for a damaged file: what could be read, with a\n"
"warning), 1 the file cannot be read or OUT written (a fleet: none could be\n"
"read), 2 bad command line, 4 a fleet's report with files left out.\n"
"\n"
"Examples:\n"
"  lockstall report incident.lst\n"
"  lockstall report incident.lst --format json -o incident.json\n"
"  lockstall report incident.lst --from 10s --to 12s -p 1234\n"
"  lockstall report /srv/flight/*/ --host 'db-*' --format html -o fleet.html\n");
		return;
	}
	fprintf(f,
"Usage: lockstall <command> [options]\n"
"       lockstall --help | --version\n"
"\n"
"Find priority inversion and lock stalls: a low-priority task holds a lock (a\n"
"process's mmap_lock, a pthread mutex, a kernel mutex or rwsem) and is not\n"
"running, and a high-priority task stalls on the lock.  Each stall is told as\n"
"waiter <- lock <- holder(s) <- why each holder was not running.\n"
"watch, top and record need root; report does not.\n"
"\n"
"Commands:\n"
"  watch      trace live and print one causal record per stall\n"
"  top        trace live: stalls in progress, victims and culprits, refreshed\n"
"  record     trace live into a file, for a report later\n"
"  report     print what watch would have, from a recording\n"
"\n"
"Options:\n"
"  -h, --help     show this help\n"
"      --version  print the version\n"
"\n"
"Run 'lockstall watch --help' (top, record, report) for the options of a command.\n");
}
