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

/* Exit codes: the contract for scripts. */
#define LS_EXIT_OK	0
#define LS_EXIT_FAILURE	1	/* runtime: no privileges, no BPF, output failed */
#define LS_EXIT_USAGE	2	/* bad command line */
#define LS_EXIT_VIOLATION	3	/* watch --exit-on-violation: an SLO rule was broken */

#define LS_DEFAULT_THRESHOLD_NS	(10 * 1000 * 1000ULL)
#define LS_DEFAULT_TOP		10
#define LS_PID_MAX		4194304	/* PID_MAX_LIMIT on 64-bit */
#define LS_DEFAULT_METRICS_INTERVAL_NS	(10 * 1000 * 1000 * 1000ULL)
#define LS_MAX_SLO_ARGS		32	/* --slo options; more rules go in a --rules file */

/* watch, record --backend: where the lock events come from */
enum ls_backend {
	LS_BACKEND_AUTO = 0,	/* the cheapest that attaches, in the order below */
	LS_BACKEND_TRACEPOINT,	/* the mmap_lock tracepoints (5.11+) */
	LS_BACKEND_FENTRY,	/* fentry/fexit on the rwsem functions (5.5+) */
	LS_BACKEND_KPROBE,	/* kprobes on the rwsem functions */
};

/* watch, record --locks: which kinds of lock are traced (bits) */
#define LS_LOCKS_MMAP	0x1	/* mmap_lock: always */
#define LS_LOCKS_FUTEX	0x2	/* user-space futex waits */
#define LS_LOCKS_KERNEL	0x4	/* the kernel's sleeping locks: not yet traced */
#define LS_LOCKS_ALL	(LS_LOCKS_MMAP | LS_LOCKS_FUTEX | LS_LOCKS_KERNEL)

/* watch, record --task-state: where the BPF side keeps per-task state */
enum ls_task_state {
	LS_TASK_STATE_AUTO = 0,	/* task storage where the kernel has it (5.15+), else hash */
	LS_TASK_STATE_STORAGE,	/* BPF task storage and the 5.15 helpers */
	LS_TASK_STATE_HASH,	/* a hash map keyed by task: the object for 5.10 */
};

enum ls_command {
	LS_CMD_NONE = 0,	/* "lockstall --help" / "--version": no command */
	LS_CMD_WATCH,
	LS_CMD_RECORD,		/* trace live into a file */
	LS_CMD_REPORT,		/* replay a file into the engine */
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
	bool verbose;		/* -v */
	__u64 interval_ns;	/* positional interval; 0: histograms only in the summary */
	__u64 count;		/* positional count; 0: until stopped */
	/* record, watch -o, report -o */
	const char *output;	/* -o: NULL for watch without a file, report to stdout */
	bool force;		/* --force: replace an existing output file */
	bool no_cmdline;	/* --no-cmdline: do not read /proc/PID/cmdline at the end */
	/* report */
	const char *input;	/* the recording */
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
	/* watch, record: STACK records (issue 5) */
	bool stacks;		/* false: --no-stacks */
	__u8 ustack_mode;	/* --user-stacks: enum ls_ustack_mode; default dwarf */
	__u32 ustack_copy;	/* --stack-copy: bytes of user stack copied for dwarf */
	bool stack_opts_set;	/* --user-stacks or --stack-copy given */
	bool folded;		/* --folded (watch, report): report_format becomes LS_FORMAT_FOLDED */
	/* watch, record: portability */
	__u8 backend;		/* --backend: enum ls_backend */
	const char *btf_path;	/* --btf FILE: kernel BTF when /sys/kernel/btf/vmlinux is missing */
	__u8 task_state;	/* --task-state: enum ls_task_state */
	__u8 locks;		/* --locks: LS_LOCKS_* */
	/* the command line as typed, for a recording's metadata */
	int argc;
	char *const *argv;
};

/*
 * Parse argv into cfg (defaults filled in).  Returns 0, or LS_EXIT_USAGE
 * after writing the problem and a "Try ..." line to err.
 */
int cli__parse(int argc, char *const argv[], struct ls_config *cfg, FILE *err);

/* The --help text of cfg->cmd (LS_CMD_NONE: the top level). */
void cli__usage(FILE *f, enum ls_command cmd);

/* --backend's word for an enum ls_backend ("auto", "tracepoint", ...). */
const char *cli__backend_name(unsigned int backend);
/* --task-state's word for an enum ls_task_state ("auto", "storage", "hash"). */
const char *cli__task_state_name(unsigned int mode);

#endif /* LOCKSTALL_CLI_H */
