// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/cli/: the command line is a contract (scripts, the end-to-end
 * tests).  Every case is argv in, config or one error line + exit code 2 out.
 */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "cli/cli.h"
#include "record/trace_file.h"
#include "util.h"

/*
 * Strings inline: Criterion runs each case in a fresh process (see
 * test_util.c).  want is, for rc 0, the config as config_text() renders it
 * (the command, then only the fields that differ from the defaults), else a
 * part of the error line.
 */
struct cli_case {
	char args[96];		/* after "lockstall", split on blanks */
	int rc;
	char want[112];
	char try_cmd[8];	/* the help the error points to: "watch", ..., or no command */
};

static void config_text(const struct ls_config *c, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	fprintf(f, "%s", c->cmd == LS_CMD_WATCH ? "watch" : c->cmd == LS_CMD_RECORD ? "record" :
			 c->cmd == LS_CMD_REPORT ? "report" : c->cmd == LS_CMD_TOP ? "top" : "none");
	if (c->input)
		fprintf(f, " in=%s", c->input);
	if (c->n_inputs > 1)
		fprintf(f, " inputs=%u", c->n_inputs);
	if (c->host_pattern)
		fprintf(f, " host=%s", c->host_pattern);
	if (c->help)
		fprintf(f, " help");
	if (c->version)
		fprintf(f, " version");
	if (c->threshold_ns != LS_DEFAULT_THRESHOLD_NS)
		fprintf(f, " t=%llu", (unsigned long long)c->threshold_ns);
	if (c->duration_ns)
		fprintf(f, " d=%llu", (unsigned long long)c->duration_ns);
	if (c->pid)
		fprintf(f, " p=%u", c->pid);
	if (c->json)
		fprintf(f, " json");
	if (c->report_format == LS_FORMAT_MARKDOWN)
		fprintf(f, " markdown");
	else if (c->report_format == LS_FORMAT_HTML)
		fprintf(f, " html");
	else if (c->report_format == LS_FORMAT_PERFETTO)
		fprintf(f, " perfetto");
	if (c->top != LS_DEFAULT_TOP)
		fprintf(f, " top=%u", c->top);
	if (c->per_pid)
		fprintf(f, " per-pid");
	if (c->hist_min_ns != LS_DEFAULT_HIST_MIN_NS)
		fprintf(f, " hist-min=%llu", (unsigned long long)c->hist_min_ns);
	if (c->verbose)
		fprintf(f, " v");
	if (c->interval_ns)
		fprintf(f, " interval=%llu", (unsigned long long)c->interval_ns);
	if (c->count)
		fprintf(f, " count=%llu", (unsigned long long)c->count);
	if (c->locks != (LS_LOCKS_ALL | LS_LOCKS_DEFAULT))
		fprintf(f, " locks=%u", c->locks);
	if (c->rt_priority != LS_DEFAULT_RT_PRIORITY || c->rt_priority_set)
		fprintf(f, " fifo=%u", c->rt_priority);
	if (c->ring_buffer)
		fprintf(f, " ring=%u", c->ring_buffer);
	if (c->output)
		fprintf(f, " o=%s", c->output);
	if (c->force)
		fprintf(f, " force");
	if (c->no_cmdline)
		fprintf(f, " nocmd");
	if (c->compress_level != LS_TRACE_ZSTD_LEVEL)
		fprintf(f, " zstd=%d", c->compress_level);
	if (c->has_from)
		fprintf(f, " from=%llu", (unsigned long long)c->from_ns);
	if (c->has_to)
		fprintf(f, " to=%llu", (unsigned long long)c->to_ns);
	if (c->wall_clock)
		fprintf(f, " wall");
	/* report: which settings override the recording's */
	if (c->cmd == LS_CMD_REPORT && (c->threshold_set || c->pid_set || c->top_set))
		fprintf(f, " set=%s%s%s", c->threshold_set ? "t" : "", c->pid_set ? "p" : "",
			c->top_set ? "top" : "");
	fclose(f);
}

ParameterizedTestParameters(cli, parse)
{
	static struct cli_case cases[] = {
		{ "watch", 0, "watch", "" },
		{ "watch -t 500us", 0, "watch t=500000", "" },
		{ "watch -t1s", 0, "watch t=1000000000", "" },
		{ "watch --threshold=2ms", 0, "watch t=2000000", "" },
		{ "watch --threshold 1.5ms", 0, "watch t=1500000", "" },
		{ "watch -t 10ms", 0, "watch", "" },
		{ "watch -d 5", 0, "watch d=5000000000", "" },
		{ "watch -d 500ms", 0, "watch d=500000000", "" },
		{ "watch --duration=2m", 0, "watch d=120000000000", "" },
		{ "watch -p 1234", 0, "watch p=1234", "" },
		{ "watch --pid=4194304", 0, "watch p=4194304", "" },
		{ "watch --json", 0, "watch json", "" },
		{ "watch --top 3", 0, "watch top=3", "" },
		{ "watch --top=0", 0, "watch top=0", "" },
		{ "watch --per-pid", 0, "watch per-pid", "" },
		{ "watch --hist-min 500us", 0, "watch hist-min=500000", "" },
		{ "watch --hist-min=0", 0, "watch hist-min=0", "" },
		{ "watch --hist-min 1ms", 0, "watch", "" },
		{ "report x.lst --per-pid --hist-min 2ms", 0, "report in=x.lst per-pid hist-min=2000000", "" },
		{ "watch -v", 0, "watch v", "" },
		{ "watch --verbose", 0, "watch v", "" },
		{ "watch 1 10", 0, "watch interval=1000000000 count=10", "" },
		{ "watch 2", 0, "watch interval=2000000000", "" },
		{ "watch 500ms 3", 0, "watch interval=500000000 count=3", "" },
		/* options after positionals, and "--" */
		{ "watch 1 10 --json -t 1ms", 0, "watch t=1000000 json interval=1000000000 count=10", "" },
		{ "watch -- 1 10", 0, "watch interval=1000000000 count=10", "" },
		/* the last of a repeated option wins */
		{ "watch -t 1ms -t 2ms", 0, "watch t=2000000", "" },
		{ "watch -d 5 -t 20ms -p 7 --json --top 1 -v 3 4", 0,
		  "watch t=20000000 d=5000000000 p=7 json top=1 v interval=3000000000 count=4", "" },
		/* help and version */
		{ "--help", 0, "none help", "" },
		{ "-h", 0, "none help", "" },
		{ "help", 0, "none help", "" },
		{ "help watch", 0, "watch help", "" },
		{ "watch --help", 0, "watch help", "" },
		{ "watch -t 1ms -h", 0, "watch help t=1000000", "" },
		{ "watch --help --bogus", 0, "watch help", "" },
		{ "--version", 0, "none version", "" },
		/* usage errors: exit code 2, one line naming the problem */
		{ "", 2, "missing command", "" },
		{ "frobnicate", 2, "unknown command 'frobnicate'", "" },
		{ "--bogus", 2, "unknown option '--bogus'", "" },
		{ "-t 10ms watch", 2, "unknown option '-t'", "" },
		{ "watch --bogus", 2, "unknown option '--bogus'", "watch" },
		{ "watch --bogus=1", 2, "unknown option '--bogus'", "watch" },
		{ "watch -x", 2, "unknown option '-x'", "watch" },
		{ "watch -vx", 2, "unknown option '-vx'", "watch" },
		{ "watch -t abc", 2,
		  "invalid threshold 'abc' for -t: expected a duration like 500us, 10ms, 1s", "watch" },
		{ "watch --threshold=abc", 2, "invalid threshold 'abc' for --threshold", "watch" },
		{ "watch -t 10", 2, "invalid threshold '10' for -t: add a unit, like 10us, 10ms or 10s",
		  "watch" },
		{ "watch -t 0ms", 2, "invalid threshold '0ms' for -t: expected a duration above zero",
		  "watch" },
		{ "watch -t -5ms", 2, "invalid threshold '-5ms' for -t", "watch" },
		{ "watch -t 99999999999999999999s", 2, "invalid threshold '99999999999999999999s'",
		  "watch" },
		{ "watch -t", 2, "option '-t' needs a value", "watch" },
		{ "watch --threshold", 2, "option '--threshold' needs a value", "watch" },
		{ "watch -d 0", 2, "invalid duration '0' for -d", "watch" },
		{ "watch -d 5x", 2, "invalid duration '5x' for -d", "watch" },
		{ "watch -p 0", 2, "invalid PID '0' for -p: expected a process ID from 1 to 4194304",
		  "watch" },
		{ "watch -p abc", 2, "invalid PID 'abc' for -p", "watch" },
		{ "watch -p -1", 2, "invalid PID '-1' for -p", "watch" },
		{ "watch -p 4194305", 2, "invalid PID '4194305' for -p", "watch" },
		{ "watch --pid=12x", 2, "invalid PID '12x' for --pid", "watch" },
		{ "watch --top abc", 2, "invalid number 'abc' for --top", "watch" },
		{ "watch --hist-min 1", 2, "invalid duration '1' for --hist-min", "watch" },
		{ "watch --hist-min -1ms", 2, "invalid duration '-1ms' for --hist-min", "watch" },
		{ "record -o x --per-pid", 2, "unknown option '--per-pid'", "record" },
		{ "watch --top -1", 2, "invalid number '-1' for --top", "watch" },
		{ "watch --json=1", 2, "option '--json' takes no value", "watch" },
		{ "watch 0", 2, "invalid interval '0'", "watch" },
		{ "watch abc", 2, "invalid interval 'abc'", "watch" },
		{ "watch -", 2, "invalid interval '-'", "watch" },
		/* an interval below 100ms would flood the terminal */
		{ "watch 1ns", 2, "invalid interval '1ns': expected seconds or a duration of 100ms or more",
		  "watch" },
		{ "watch 99ms", 2, "invalid interval '99ms'", "watch" },
		{ "watch 100ms", 0, "watch interval=100000000", "" },
		{ "watch --metrics-file m --metrics-interval 1ns", 2,
		  "invalid interval '1ns' for --metrics-interval: expected seconds or a duration of 100ms or more",
		  "watch" },
		{ "watch 1 0", 2, "invalid count '0'", "watch" },
		{ "watch 1 x", 2, "invalid count 'x'", "watch" },
		{ "watch 1 2 3", 2, "unexpected argument '3'", "watch" },
		{ "watch -- 1 2 -v", 2, "unexpected argument '-v'", "watch" },
		/* watch -o */
		{ "watch -o run.lst", 0, "watch o=run.lst", "" },
		{ "watch --json -o run.lst --force --no-cmdline 1", 0,
		  "watch json interval=1000000000 o=run.lst force nocmd", "" },
		{ "watch --output=run.lst", 0, "watch o=run.lst", "" },
		{ "watch --force", 2, "--force goes with -o FILE", "watch" },
		{ "watch --no-cmdline", 2, "--no-cmdline goes with -o FILE", "watch" },
		{ "watch -o", 2, "option '-o' needs a value", "watch" },
		{ "watch --output=", 2, "empty file name for --output", "watch" },
		/* --compress: recordings are zstd at level 3 unless said otherwise */
		{ "watch -o run.lst --compress=none", 0, "watch o=run.lst zstd=0", "" },
		{ "watch -o run.lst --compress zstd", 0, "watch o=run.lst", "" },
		{ "watch -o run.lst --compress=zstd:19", 0, "watch o=run.lst zstd=19", "" },
		{ "watch --compress=none", 2, "--compress goes with -o FILE or --flight-recorder DIR",
		  "watch" },
		{ "record -o r.lst --compress=zstd:1", 0, "record o=r.lst zstd=1", "" },
		{ "record -o r.lst --compress=zstd:0", 2,
		  "invalid compression 'zstd:0' for --compress: expected none, zstd or zstd:LEVEL (1 to 19)",
		  "record" },
		{ "record -o r.lst --compress=zstd:20", 2, "invalid compression 'zstd:20'", "record" },
		{ "record -o r.lst --compress=gzip", 2, "invalid compression 'gzip'", "record" },
		{ "record -o r.lst --compress=zstd:", 2, "invalid compression 'zstd:'", "record" },
		{ "report r.lst --compress=none", 2, "unknown option '--compress'", "report" },
		/* record */
		{ "record -o r.lst", 0, "record o=r.lst", "" },
		{ "record -o r.lst -d 30s -t 1ms -p 42 --force --no-cmdline -v", 0,
		  "record t=1000000 d=30000000000 p=42 v o=r.lst force nocmd", "" },
		{ "help record", 0, "record help", "" },
		{ "record --help", 0, "record help", "" },
		{ "record", 2, "missing -o FILE: the file to record into", "record" },
		{ "record -d 5", 2, "missing -o FILE", "record" },
		{ "record -o r.lst extra", 2, "unexpected argument 'extra': record writes to -o FILE",
		  "record" },
		{ "record -o r.lst --json", 2, "unknown option '--json'", "record" },
		{ "record -o r.lst -t 5", 2, "invalid threshold '5' for -t: add a unit", "record" },
		{ "record -o r.lst 1", 2, "unexpected argument '1'", "record" },
		/* report */
		{ "report r.lst", 0, "report in=r.lst", "" },
		{ "report r.lst --format json", 0, "report in=r.lst json", "" },
		{ "report --format=text r.lst", 0, "report in=r.lst", "" },
		{ "report r.lst --json", 0, "report in=r.lst json", "" },
		{ "report r.lst --format markdown", 0, "report in=r.lst markdown", "" },
		{ "report r.lst --format=html -o r.html", 0, "report in=r.lst html o=r.html", "" },
		{ "report r.lst --format perfetto", 0, "report in=r.lst perfetto", "" },
		{ "report r.lst --format html --json", 0, "report in=r.lst json", "" },
		{ "report r.lst --json --format markdown", 0, "report in=r.lst markdown", "" },
		{ "report r.lst -o out.txt --force", 0, "report in=r.lst o=out.txt force", "" },
		{ "report r.lst -t 10ms -p 7 --top 0", 0, "report in=r.lst p=7 top=0 set=tptop", "" },
		{ "report r.lst --from 2s --to 2500ms", 0,
		  "report in=r.lst from=2000000000 to=2500000000", "" },
		{ "report r.lst --from 1.5", 0, "report in=r.lst from=1500000000", "" },
		{ "report r.lst --from 07:24:10 --to 07:24:10.25", 0,
		  "report in=r.lst from=26650000000000 to=26650250000000 wall", "" },
		{ "report r.lst --to 23:59:59.999999999", 0, "report in=r.lst to=86399999999999 wall",
		  "" },
		{ "report r.lst --from 23:00:00 --to 01:00:00", 0,
		  "report in=r.lst from=82800000000000 to=3600000000000 wall", "" },
		{ "report r.lst --from 24:00:00", 2, "invalid time '24:00:00' for --from", "report" },
		{ "report r.lst --from 7:24:10", 2, "invalid time '7:24:10'", "report" },
		{ "report r.lst --from 07:60:00", 2, "invalid time '07:60:00'", "report" },
		{ "report r.lst --from 07:24:10.", 2, "invalid time '07:24:10.'", "report" },
		{ "report r.lst --from 07:24:10.1234567891", 2, "invalid time", "report" },
		{ "report r.lst --from 07:24:10 --to 5s", 2, "--from and --to must both be times of day",
		  "report" },
		{ "report r.lst --to 0", 2, "--to must be later than --from", "report" },
		{ "report -- -odd-name.lst", 0, "report in=-odd-name.lst", "" },
		{ "help report", 0, "report help", "" },
		{ "report", 2, "missing FILE: the recording to report on", "report" },
		/* a fleet's recordings */
		{ "report a.lst b.lst", 0, "report in=a.lst inputs=2", "" },
		{ "report fleet/ --host db-* c.lst", 0, "report in=fleet/ inputs=2 host=db-*", "" },
		{ "report fleet/ --host=", 2, "empty host name for --host", "report" },
		{ "report r.lst --format xml", 2, "invalid format 'xml' for --format: expected text, json, markdown, html, perfetto or folded",
		  "report" },
		{ "report r.lst --from 2s --to 1s", 2, "--to must be later than --from", "report" },
		{ "report r.lst --from soon", 2, "invalid time 'soon' for --from", "report" },
		{ "report r.lst --force", 2, "--force goes with -o FILE", "report" },
		{ "report r.lst -d 5", 2, "unknown option '-d'", "report" },
		{ "report r.lst -t 0s", 2, "invalid threshold '0s' for -t", "report" },
		/* --locks: mmap_lock always; the default is all that can be traced cheaply */
		{ "watch --locks mmap", 0, "watch locks=1", "" },
		{ "watch --locks futex", 0, "watch locks=3", "" },
		{ "watch --locks kernel", 0, "watch locks=5", "" },
		{ "record -o r.lst --locks mmap,futex,kernel", 0, "record locks=7 o=r.lst", "" },
		{ "watch --locks all", 0, "watch locks=7", "" },
		{ "watch --locks futex,,", 0, "watch locks=3", "" },
		{ "watch --locks mutex", 2, "invalid lock list 'mutex' for --locks", "watch" },
		{ "report r.lst --locks futex", 2, "unknown option '--locks'", "report" },
		/* --rt-priority: a SCHED_FIFO priority, for the live commands only */
		{ "watch --rt-priority 50", 0, "watch fifo=50", "" },
		{ "record -o r.lst --rt-priority=1", 0, "record fifo=1 o=r.lst", "" },
		{ "watch --rt-priority 99", 0, "watch fifo=99", "" },
		{ "watch --rt-priority 0", 0, "watch fifo=0", "" },
		{ "watch --rt-priority 100", 2, "invalid priority '100' for --rt-priority", "watch" },
		{ "watch --rt-priority high", 2, "invalid priority 'high' for --rt-priority", "watch" },
		{ "report r.lst --rt-priority 5", 2, "unknown option '--rt-priority'", "report" },
		/* --ring-buffer: a power of two the kernel takes, for the live commands only */
		{ "watch --ring-buffer 32M", 0, "watch ring=33554432", "" },
		{ "record -o r.lst --ring-buffer=1M", 0, "record ring=1048576 o=r.lst", "" },
		{ "top --ring-buffer 1G", 0, "top interval=1000000000 ring=1073741824", "" },
		{ "watch --ring-buffer 24M", 2,
		  "invalid size '24M' for --ring-buffer: expected a power of two from 1M to 1G, like 32M",
		  "watch" },
		{ "watch --ring-buffer 512K", 2, "invalid size '512K' for --ring-buffer", "watch" },
		{ "watch --ring-buffer 2G", 2, "invalid size '2G' for --ring-buffer", "watch" },
		{ "watch --ring-buffer big", 2, "invalid size 'big' for --ring-buffer", "watch" },
		{ "report r.lst --ring-buffer 8M", 2, "unknown option '--ring-buffer'", "report" },
	};

	return cr_make_param_array(struct cli_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct cli_case *c, cli, parse)
{
	char args[sizeof(c->args)], *argv[32], *tok, *save = NULL;
	char *errbuf = NULL, *nl, got[256];
	size_t errlen = 0;
	struct ls_config cfg;
	int argc = 0, rc;
	FILE *err;

	argv[argc++] = "lockstall";
	memcpy(args, c->args, sizeof(args));
	for (tok = strtok_r(args, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;

	err = open_memstream(&errbuf, &errlen);
	rc = cli__parse(argc, argv, &cfg, err);
	fclose(err);

	cr_assert_eq(rc, c->rc, "'%s': rc %d, want %d (stderr: %s)", c->args, rc, c->rc, errbuf);
	if (rc == 0) {
		cr_assert_eq(errlen, 0, "'%s': wrote to stderr: %s", c->args, errbuf);
		config_text(&cfg, got, sizeof(got));
		cr_assert_str_eq(got, c->want, "'%s': got '%s'", c->args, got);
	} else {
		char see[64];

		/* "lockstall: <problem> (see 'lockstall[ watch] --help')\n" and nothing else */
		cr_assert(!strncmp(errbuf, "lockstall: ", 11), "'%s': %s", c->args, errbuf);
		cr_assert_not_null(strstr(errbuf, c->want), "'%s': want '%s' in: %s", c->args,
				   c->want, errbuf);
		nl = strchr(errbuf, '\n');
		cr_assert_not_null(nl);
		cr_assert_eq(nl[1], '\0', "'%s': more than one line: %s", c->args, errbuf);
		snprintf(see, sizeof(see), " (see 'lockstall%s%s --help')\n",
			 c->try_cmd[0] ? " " : "", c->try_cmd);
		cr_assert(errlen >= strlen(see) && !strcmp(errbuf + errlen - strlen(see), see),
			  "'%s': want the line to end in \"%s\": %s", c->args, see, errbuf);
	}
	free(errbuf);
}

/* The parser keeps no state between calls: a second parse sees fresh defaults. */
Test(cli, parse_twice_is_independent)
{
	char *a1[] = { "lockstall", "watch", "-t", "1ms", "--json", "-p", "9", "2", "3", NULL };
	char *a2[] = { "lockstall", "watch", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli__parse(9, a1, &cfg, stderr), 0);
	cr_assert_eq(cfg.threshold_ns, NSEC_PER_MSEC);
	cr_assert_eq(cli__parse(2, a2, &cfg, stderr), 0);
	cr_assert_eq(cfg.threshold_ns, LS_DEFAULT_THRESHOLD_NS);
	cr_assert_eq(cfg.json, false);
	cr_assert_eq(cfg.pid, 0);
	cr_assert_eq(cfg.interval_ns, 0);
	cr_assert_eq(cfg.count, 0);
}

static char *usage_text(enum ls_command cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cli__usage(f, cmd);
	fclose(f);
	return buf;
}

Test(cli, watch_help)
{
	char *h = usage_text(LS_CMD_WATCH);
	static const char *const must[] = {
		"Usage: lockstall watch [-d DURATION] [-t THRESHOLD] [-p PID] [--json] [--top N]",
		"[-v] [interval [count]]", "-d, --duration", "-t, --threshold", "default 10ms",
		"-p, --pid", "--json", "--top N", "-v, --verbose", "-h, --help", "Exit status:",
		"Examples:", "lockstall watch 1 10", "lockstall watch -t 1ms",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(must); i++)
		cr_assert_not_null(strstr(h, must[i]), "watch --help lacks '%s'", must[i]);
	cr_assert_eq(h[strlen(h) - 1], '\n');
	free(h);
}

Test(cli, record_and_report_help)
{
	char *rec = usage_text(LS_CMD_RECORD), *rep = usage_text(LS_CMD_REPORT);
	static const char *const rec_must[] = {
		"Usage: lockstall record -o FILE", "-d, --duration", "-t, --threshold", "--force",
		"--no-cmdline", "mmap_lock", "--compress MODE", "zstd:LEVEL", "Exit status:",
	};
	static const char *const rep_must[] = {
		"Usage: lockstall report FILE", "--format", "text (default) or json", "--from",
		"--to", "not below the recording's threshold", "-o, --output", "Exit status:",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rec_must); i++)
		cr_assert_not_null(strstr(rec, rec_must[i]), "record --help lacks '%s'", rec_must[i]);
	for (i = 0; i < ARRAY_SIZE(rep_must); i++)
		cr_assert_not_null(strstr(rep, rep_must[i]), "report --help lacks '%s'", rep_must[i]);
	free(rec);
	free(rep);
}

Test(cli, top_help)
{
	char *h = usage_text(LS_CMD_NONE);

	cr_assert(!strncmp(h, "Usage: lockstall <command>", 26), "%s", h);
	cr_assert_not_null(strstr(h, "  watch "));
	cr_assert_not_null(strstr(h, "  record "));
	cr_assert_not_null(strstr(h, "  report "));
	cr_assert_not_null(strstr(h, "--version"));
	cr_assert_not_null(strstr(h, "lockstall watch --help"));
	free(h);
}

/* Help lines fit an 80-column terminal. */
Test(cli, help_fits_80_columns)
{
	enum ls_command cmds[] = { LS_CMD_NONE, LS_CMD_WATCH, LS_CMD_RECORD, LS_CMD_REPORT };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		char *h = usage_text(cmds[i]), *line, *save = NULL;

		for (line = strtok_r(h, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			cr_assert_leq(strlen(line), 80, "too long: '%s'", line);
		free(h);
	}
}
