/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The command line: argv in, one struct ls_config out.  No globals, no
 * getopt state: cli__parse() can run any number of times (the unit tests
 * do), and prints nothing but its one error line.
 */
#ifndef LOCKSTALL_CLI_H
#define LOCKSTALL_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <lockstall/abi.h>
#include "loader/loader.h"

/* Exit codes: the contract for scripts. */
#define LS_EXIT_OK	0
#define LS_EXIT_FAILURE	1	/* runtime: no privileges, no BPF, output failed */
#define LS_EXIT_USAGE	2	/* bad command line */
#define LS_EXIT_VIOLATION	3	/* watch --exit-on-violation: an SLO rule was broken */
#define LS_EXIT_PARTIAL	4	/* report of many files: some were left out, the rest reported */

/* report's files on the command line: more go as their directory */
#define LS_MAX_INPUTS		4096

#define LS_DEFAULT_THRESHOLD_NS	(10 * 1000 * 1000ULL)
#define LS_DEFAULT_TOP		10
/* The live loop's SCHED_FIFO priority: above every normal task, below real-time work */
#define LS_DEFAULT_RT_PRIORITY	1
/* Histograms whose every sample stayed under this are only counted: they say "all was well". */
#define LS_DEFAULT_HIST_MIN_NS	(1000 * 1000ULL)
#define LS_DEFAULT_METRICS_INTERVAL_NS	(10 * 1000 * 1000 * 1000ULL)
#define LS_DEFAULT_TOP_INTERVAL_NS	(1000 * 1000 * 1000ULL)
#define LS_MIN_TOP_INTERVAL_NS	(100 * 1000 * 1000ULL)	/* a screen a tenth of a second at most */
#define LS_MAX_SLO_ARGS		32	/* --slo options; more rules go in a --rules file */

enum ls_command {
	LS_CMD_NONE = 0,	/* "lockstall --help" / "--version": no command */
	LS_CMD_WATCH,
	LS_CMD_RECORD,		/* trace live into a file */
	LS_CMD_REPORT,		/* replay a file into the engine */
	LS_CMD_TOP,		/* trace live, a refreshed screen of stalls and culprits */
};

/* report --format: text and json are what watch prints; the rest are reports only. */
enum ls_report_format {
	LS_FORMAT_TEXT = 0,
	LS_FORMAT_JSON,
	LS_FORMAT_MARKDOWN,
	LS_FORMAT_HTML,
	LS_FORMAT_PERFETTO,	/* Chrome trace-event JSON */
	LS_FORMAT_FOLDED,	/* folded stacks for flamegraph.pl (also watch --folded) */
};

/*
 * The shortest interval (watch's histograms, --metrics-interval): the
 * tracing loop wakes every 100 ms (POLL_MS), so a shorter one could not be
 * kept, and "watch 1ns" printed its histograms as fast as it could write.
 */
#define LS_MIN_INTERVAL_NS 100000000ULL

struct ls_config {
	enum ls_command cmd;
	bool help;		/* print the help of cmd (or the top level) on stdout */
	bool version;		/* print "lockstall VERSION" on stdout */
	__u64 duration_ns;	/* -d: stop after this; 0: until Ctrl-C */
	__u64 threshold_ns;	/* -t */
	__u32 pid;		/* -p: 0 all */
	bool json;		/* --json */
	enum ls_report_format report_format;	/* report --format; json also sets json */
	unsigned int top;	/* --top: histograms per kind, 0 all */
	bool per_pid;		/* --per-pid: a histogram per process, not per command name */
	__u64 hist_min_ns;	/* --hist-min: histograms reaching this only; 0 all */
	bool verbose;		/* -v */
	__u64 interval_ns;	/* positional interval; 0: histograms only in the summary */
	__u64 count;		/* positional count; 0: until stopped */
	/* top: interval_ns is -i (default 1s), count -n */
	bool batch;		/* -b: plain snapshots on stdout, no terminal */
	/* record, watch -o, report -o */
	const char *output;	/* -o: NULL for watch without a file, report to stdout */
	bool force;		/* --force: replace an existing output file */
	bool no_cmdline;	/* --no-cmdline: do not read /proc/PID/cmdline at the end */
	int compress_level;	/* --compress (record, watch -o, flight recorder): zstd level, 0 none */
	bool compress_set;	/* --compress given */
	/* report */
	const char *input;	/* the recording: inputs[0] */
	const char *inputs[LS_MAX_INPUTS];	/* report FILE|DIR...: more than one, a fleet */
	unsigned int n_inputs;
	const char *host_pattern;	/* --host PATTERN (fnmatch): the fleet's hosts */
	bool threshold_set;	/* -t given: else the recording's */
	bool pid_set;		/* -p given: else the recording's */
	bool top_set;		/* --top given: else the recording's */
	bool has_from, has_to;	/* --from, --to */
	bool wall_clock;	/* they are UTC times of day (HH:MM:SS[.fff]), ns since midnight */
	__u64 from_ns, to_ns;	/* else: since the run's start */
	/* watch: SLO rules and what a violation does (src/alert/slo.h, src/alert/hooks.h) */
	const char *slo[LS_MAX_SLO_ARGS];	/* --slo RULE, in order */
	unsigned int n_slo;
	const char *rules_file;	/* --rules FILE: re-read on SIGHUP */
	char *const *exec_argv;	/* --exec PROGRAM [ARG...] ';': points into argv */
	int exec_argc;		/* the words before the ';' */
	const char *exec_file;	/* --exec-file FILE: one argument per line */
	__u64 exec_timeout_ns;	/* --exec-timeout; 0: the default (10s) */
	unsigned int exec_limit;	/* --exec-limit: hooks at once; 0: the default (4) */
	bool exit_on_violation;	/* --exit-on-violation: stop and exit 3 at the first */
	/* watch: Prometheus metrics for node_exporter's textfile collector */
	const char *metrics_file;	/* --metrics-file PATH */
	__u64 metrics_interval_ns;	/* --metrics-interval; 0: the default (10s) */
	const char *metrics_listen;	/* --metrics-listen ADDR:PORT: serve GET /metrics */
	/* watch: recordings of the time around each violation (src/record/flight.h) */
	const char *flight_dir;		/* --flight-recorder DIR */
	__u64 flight_keep_ns;		/* --keep; 0: the default (30s) */
	unsigned int flight_max_files;	/* --max-files; 0: the default (10) */
	/* watch, record: STACK records */
	bool stacks;		/* false: --no-stacks */
	__u8 ustack_mode;	/* --user-stacks: enum ls_ustack_mode; default dwarf */
	__u32 ustack_copy;	/* --stack-copy: bytes of user stack copied for dwarf */
	__u64 stack_interval_ns;	/* --stack-interval: one stack per task, lock and kind */
	bool stack_opts_set;	/* --user-stacks or --stack-copy given */
	__u64 symbol_memory;	/* --symbol-memory: bytes for the symbol and unwind caches; 0: default */
	bool folded;		/* --folded (watch, report): report_format becomes LS_FORMAT_FOLDED */
	/* watch, record: portability */
	__u8 backend;		/* --backend: enum ls_backend */
	const char *btf_path;	/* --btf FILE: kernel BTF when /sys/kernel/btf/vmlinux is missing */
	__u32 ring_buffer;	/* --ring-buffer: bytes of the BPF ring buffer; 0: the default */
	__u8 task_state;	/* --task-state: enum ls_task_state */
	/* watch, report: pending stalls (waits still going on) */
	__u64 pending_after_ns;	/* --pending-after; 0: the default, max(1s, threshold) */
	__u64 pending_every_ns;	/* --pending-every; 0 with pending_every_set: once */
	bool pending_every_set;
	__u8 locks;		/* --locks: LS_LOCKS_* */
	unsigned int rt_priority;	/* --rt-priority: run at SCHED_FIFO this (1..99); 0: as started */
	bool rt_priority_set;	/* given: a failure to get it is an error, and threads inherit it */
	/* the command line as typed, for a recording's metadata */
	int argc;
	char *const *argv;
};

/*
 * Parse argv into cfg (defaults filled in).  Returns 0, or LS_EXIT_USAGE
 * after writing the problem and a "Try ..." line to err.
 */
int cli__parse(int argc, char *const argv[], struct ls_config *cfg, FILE *err);

/*
 * The engine's pending settings for a run at threshold_ns: --pending-after
 * (default max(1s, threshold)) and --pending-every (default 10s).
 * -EINVAL when --pending-after is below threshold_ns (report learns the
 * threshold from the recording, so the check cannot wait for the parser).
 */
int cli__pending(const struct ls_config *cfg, __u64 threshold_ns, __u64 *after_ns,
		 __u64 *every_ns);

/* The --help text of cfg->cmd (LS_CMD_NONE: the top level). */
void cli__usage(FILE *f, enum ls_command cmd);


#endif /* LOCKSTALL_CLI_H */
