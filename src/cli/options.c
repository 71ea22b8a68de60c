// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What each option's value means: the handlers, by group, that check a
 * value and set it in struct ls_config, with one line on err when it is
 * wrong.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "cli/internal.h"
#include "record/trace_file.h"
#include "alert/metrics_http.h"
#include "symbols/symbols.h"
#include "util.h"

#define LS_SYMBOL_MEMORY_MAX	(64ull << 30)
#define LS_RING_BUFFER_MIN	(1ull << 20)
#define LS_RING_BUFFER_MAX	(1ull << 30)

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

/* --locks's words, in the order of parse_locks()'s bits[]. */
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
	return cli_usage_error(err, cfg->cmd,
			       "invalid lock list '%s' for %s: expected a comma-separated list of mmap, futex, kernel, or all",
			       val, opt);
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
		return cli_usage_error(err, cmd,
				       "invalid threshold '%s' for %s: expected a duration above zero, like 500us, 10ms, 1s",
				       val, opt);
	}
	if (!ls_parse_duration(val, 1, &ns))
		return cli_usage_error(err, cmd,
				       "invalid threshold '%s' for %s: add a unit, like %sus, %sms or %ss",
				       val, opt, val, val, val);
	return cli_usage_error(err, cmd,
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
 * says -ENOENT for the others, so cli_apply_opt() can ask them in turn.
 */

/* --OPT: a file or directory name, never empty. */
static int parse_name(struct ls_config *cfg, FILE *err, const char *opt, const char *val,
		      const char *what, const char **out)
{
	if (!*val)
		return cli_usage_error(err, cfg->cmd, "empty %s name for %s", what, opt);
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
			return cli_usage_error(err, cfg->cmd,
					       "invalid duration '%s' for %s: expected seconds or a duration above zero, like 5, 5s, 500ms",
					       val, opt);
		cfg->duration_ns = v;
		return 0;
	case OPT_THRESHOLD:
		cfg->threshold_set = true;
		return parse_threshold(err, cfg->cmd, opt, val, &cfg->threshold_ns);
	case OPT_PID:
		if (ls_parse_u64(val, LS_PID_MAX, &v) || !v)
			return cli_usage_error(err, cfg->cmd,
					       "invalid PID '%s' for %s: expected a process ID from 1 to %u",
					       val, opt, LS_PID_MAX);
		cfg->pid = (__u32)v;
		cfg->pid_set = true;
		return 0;
	case OPT_INTERVAL:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || v < LS_MIN_TOP_INTERVAL_NS)
			return cli_usage_error(err, cfg->cmd,
					       "invalid interval '%s' for %s: expected seconds, 100ms or more, like 1, 2s or 500ms",
					       val, opt);
		cfg->interval_ns = v;
		return 0;
	case OPT_ITERATIONS:
		if (ls_parse_u64(val, UINT64_MAX, &v) || !v)
			return cli_usage_error(err, cfg->cmd,
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
		return cli_usage_error(err, cfg->cmd,
				       "invalid time '%s' for %s: expected a time since the recording began (2s, 1.5s, 500ms) or a UTC time of day (HH:MM:SS[.fff])",
				       val, opt);
	if ((cfg->has_from || cfg->has_to) && wall != cfg->wall_clock)
		return cli_usage_error(err, cfg->cmd,
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
	return cli_usage_error(err, cfg->cmd,
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
			return cli_usage_error(err, cfg->cmd,
					       "invalid number '%s' for %s: expected how many histograms to print per kind, 0 for all",
					       val, opt);
		cfg->top = (unsigned int)v;
		cfg->top_set = true;
		return 0;
	case OPT_HIST_MIN:
		/* a unit is required, as for -t: "1" is no more seconds than microseconds */
		if (strcmp(val, "0") && ls_parse_duration(val, 0, &cfg->hist_min_ns))
			return cli_usage_error(err, cfg->cmd,
					       "invalid duration '%s' for %s: expected a duration like 500us, 1ms, or 0 for every histogram",
					       val, opt);
		if (!strcmp(val, "0"))
			cfg->hist_min_ns = 0;
		return 0;
	case OPT_FORMAT:
		if (name_index(val, format_word, &format))
			return cli_usage_error(err, cfg->cmd,
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
			return cli_usage_error(err, cfg->cmd,
					       "invalid duration '%s' for %s: expected seconds or a duration above zero, like 1, 1s, 500ms",
					       val, opt);
		cfg->pending_after_ns = v;
		return 0;
	case OPT_PENDING_EVERY:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v))
			return cli_usage_error(err, cfg->cmd,
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
			return cli_usage_error(err, cfg->cmd,
					       "more than %d --slo options: put the rules in a --rules file",
					       LS_MAX_SLO_ARGS);
		cfg->slo[cfg->n_slo++] = val;
		return 0;
	case OPT_RULES:
		if (*val && cfg->rules_file)
			return cli_usage_error(err, cfg->cmd, "%s given twice: one rules file", opt);
		return parse_name(cfg, err, opt, val, "file", &cfg->rules_file);
	case OPT_EXEC_FILE:
		return parse_name(cfg, err, opt, val, "file", &cfg->exec_file);
	case OPT_EXEC_TIMEOUT:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || !v)
			return cli_usage_error(err, cfg->cmd,
					       "invalid timeout '%s' for %s: expected seconds or a duration above zero, like 10, 10s, 500ms",
					       val, opt);
		cfg->exec_timeout_ns = v;
		return 0;
	case OPT_EXEC_LIMIT:
		if (ls_parse_u64(val, 64, &v) || !v)
			return cli_usage_error(err, cfg->cmd,
					       "invalid number '%s' for %s: expected how many hooks may run at once, 1 to 64",
					       val, opt);
		cfg->exec_limit = (unsigned int)v;
		return 0;
	case OPT_FLIGHT_RECORDER:
		return parse_name(cfg, err, opt, val, "directory", &cfg->flight_dir);
	case OPT_KEEP:
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || !v || v > 3600 * NSEC_PER_SEC)
			return cli_usage_error(err, cfg->cmd,
					       "invalid duration '%s' for %s: expected seconds or a duration above zero and at most 1h, like 30, 30s, 2m",
					       val, opt);
		cfg->flight_keep_ns = v;
		return 0;
	case OPT_MAX_FILES:
		if (ls_parse_u64(val, 10000, &v) || !v)
			return cli_usage_error(err, cfg->cmd,
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
			return cli_usage_error(err, cfg->cmd,
					       "invalid interval '%s' for %s: expected seconds or a duration of 100ms or more, like 10, 10s, 500ms",
					       val, opt);
		cfg->metrics_interval_ns = v;
		return 0;
	case OPT_METRICS_LISTEN:
		if (metrics_http__parse_addr(val, &ss, &len))
			return cli_usage_error(err, cfg->cmd,
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
			return cli_usage_error(err, cfg->cmd,
					       "invalid value '%s' for %s: expected none, fp or dwarf", val, opt);
		return 0;
	case OPT_STACK_COPY:
		cfg->stack_opts_set = true;
		if (ls_parse_size(val, &v) || v < 512 || v > LS_USTACK_COPY_MAX)
			return cli_usage_error(err, cfg->cmd,
					       "invalid size '%s' for %s: expected bytes from 512 to %u, like 8K or 16384",
					       val, opt, LS_USTACK_COPY_MAX);
		/* whole 8-byte words: the record's padding rule */
		cfg->ustack_copy = (__u32)v & ~7u;
		return 0;
	case OPT_STACK_INTERVAL:
		cfg->stack_opts_set = true;
		if (ls_parse_duration(val, NSEC_PER_SEC, &v) || v > LS_STACK_INTERVAL_MAX)
			return cli_usage_error(err, cfg->cmd,
					       "invalid duration '%s' for %s: expected 0 to 1s, like 500ms, or 0 for a stack with every stall",
					       val, opt);
		cfg->stack_interval_ns = v;
		return 0;
	case OPT_SYMBOL_MEMORY:
		if (ls_parse_size(val, &v) || v < SYM_BUDGET_MIN || v > LS_SYMBOL_MEMORY_MAX)
			return cli_usage_error(err, cfg->cmd,
					       "invalid size '%s' for %s: expected bytes from 1M to 64G, like 64M",
					       val, opt);
		cfg->symbol_memory = v;
		return 0;
	case OPT_RING_BUFFER:
		/* the kernel takes a power of two of whole pages */
		if (ls_parse_size(val, &v) || v < LS_RING_BUFFER_MIN || v > LS_RING_BUFFER_MAX ||
		    (v & (v - 1)))
			return cli_usage_error(err, cfg->cmd,
					       "invalid size '%s' for %s: expected a power of two from 1M to 1G, like 32M",
					       val, opt);
		cfg->ring_buffer = (__u32)v;
		return 0;
	case OPT_BACKEND:
		if (!name_index(val, ls_backend__name, &cfg->backend))
			return 0;
		return cli_usage_error(err, cfg->cmd,
				       "invalid backend '%s' for %s: expected auto, tracepoint, fentry or kprobe",
				       val, opt);
	case OPT_BTF:
		cfg->btf_path = val;
		return 0;
	case OPT_LOCKS:
		return parse_locks(val, opt, cfg, err);
	case OPT_RT_PRIORITY:
		if (ls_parse_u64(val, 99, &v))
			return cli_usage_error(err, cfg->cmd,
					       "invalid priority '%s' for %s: expected a SCHED_FIFO priority from 1 to 99, or 0 for none",
					       val, opt);
		cfg->rt_priority = (unsigned int)v;
		cfg->rt_priority_set = true;
		return 0;
	case OPT_TASK_STATE:
		if (!name_index(val, ls_task_state__name, &cfg->task_state))
			return 0;
		return cli_usage_error(err, cfg->cmd,
				       "invalid task state '%s' for %s: expected auto, storage or hash",
				       val, opt);
	default:
		return -ENOENT;
	}
}

int cli_apply_opt(struct ls_config *cfg, FILE *err, const struct opt_def *def,
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
