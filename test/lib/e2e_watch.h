/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One end-to-end run: `lockstall watch --json` traces while one workload
 * (test/workloads/) runs to completion; then lockstall is stopped with
 * SIGINT and every line it printed is parsed.  The steps assert as they go
 * (Criterion), so a test reads as: run, then check findings against the
 * workload's ground truth.
 *
 * Environment (set by `make test-e2e`):
 *   LOCKSTALL_BIN        the lockstall binary
 *   LOCKSTALL_WORKLOADS  the directory of the workload binaries
 *   LOCKSTALL_E2E        "required": a test that would skip fails instead
 *   LOCKSTALL_BACKEND    if set, watch runs with --backend=<it> (test/kernels)
 */
#ifndef LOCKSTALL_TEST_E2E_WATCH_H
#define LOCKSTALL_TEST_E2E_WATCH_H

#include <stdbool.h>
#include <jansson.h>
#include "lib/e2e_proc.h"

/* The threshold every run uses: below the workloads' stalls, above the noise. */
#define E2E_THRESHOLD "5ms"

struct e2e_watch {
	struct e2e_proc lockstall;
	struct e2e_proc workload;
	json_t *truth;		/* the workload's ground-truth object */
	json_t *stalls;		/* array: every "stall" line, in order */
	json_t *violations;	/* array: every "violation" line (watch --slo), in order */
	json_t *pending;	/* array: every "pending" line (waits still going on), in order */
	json_t *lines;		/* array: every line, in order */
	json_t *summary;	/* the "summary" line */
};

#define E2E_WATCH_INIT { .lockstall = E2E_PROC_INIT, .workload = E2E_PROC_INIT }

/*
 * Skip the calling test with why (or fail it when LOCKSTALL_E2E=required)
 * unless LOCKSTALL_BIN is an executable and, with need_bpf, we are root and
 * LOCKSTALL_WORKLOADS is set.  Returns LOCKSTALL_BIN.
 */
const char *e2e_require(bool need_bpf);

/*
 * The watch arguments that trace futexes (--locks all): the default leaves
 * them off where only the syscall tracepoints can trace futex calls.
 */
extern const char *const e2e_futexes[];

/* Run $LOCKSTALL_WORKLOADS/workload with args (NULL-terminated) under lockstall. */
void e2e_watch__run(struct e2e_watch *w, const char *workload, const char *const args[]);
/* The same with more arguments for lockstall watch (NULL-terminated, at most 16). */
void e2e_watch__run_with(struct e2e_watch *w, const char *workload, const char *const args[],
			 const char *const watch_args[]);
/*
 * The most general run: watch_args as above; before_stop (may be NULL) is
 * called once the workload has finished, while lockstall still traces
 * (e.g. to scrape its metrics); stop_signal (0: SIGINT) then stops it.
 */
struct e2e_watch_opts {
	const char *const *watch_args;
	void (*before_stop)(struct e2e_watch *w, void *ctx);
	void *ctx;
	int stop_signal;
	/*
	 * Set: lockstall is stopped as soon as the workload prints a line
	 * holding this text, while the workload goes on (a wait still open
	 * at lockstall's exit); then the workload is awaited.
	 */
	const char *stop_on;
	/* Set: the workload's LD_PRELOAD (lockstall's environment keeps none). */
	const char *preload;
};
void e2e_watch__run_opts(struct e2e_watch *w, const char *workload, const char *const args[],
			 const struct e2e_watch_opts *o);
/*
 * A wait under way before lockstall starts: the workload first; lockstall
 * (as e2e_watch__run_with) once the workload printed a line holding begun,
 * its ground truth (w->truth); lockstall is stopped once its stdout holds
 * found (or the workload ended: a failure); then the workload is killed.
 * With release, a signal: once found, the workload gets it instead, which
 * ends its wait, and is awaited (its last line's fields join w->truth)
 * before lockstall is stopped.
 */
void e2e_watch__run_after(struct e2e_watch *w, const char *workload, const char *const args[],
			  const char *begun, const char *found, int release,
			  const char *const watch_args[]);
void e2e_watch__release(struct e2e_watch *w);

/* Run the lockstall binary with args to completion, no workload; for CLI tests. */
void e2e_run_cli(struct e2e_proc *p, const char *const args[]);

/*
 * With LOCKSTALL_JSON_LOG set, append out (lockstall's JSON Lines) to that
 * file: make test-e2e validates it against scripts/lockstall.schema.json.
 */
void e2e_json_log(const char *out);

/* Field access that fails the test when the field is missing or mistyped. */
json_int_t e2e_int(const json_t *obj, const char *key);
const char *e2e_str(const json_t *obj, const char *key);
const json_t *e2e_array(const json_t *obj, const char *key);
const json_t *e2e_object(const json_t *obj, const char *key);

/*
 * The histogram of kind ("wait", "futex_wait", "mutex_wait"...) and mode
 * ("read", "write") in a summary whose "pids" has pid, or NULL.
 */
const json_t *e2e_hist(const json_t *summary, const char *kind, json_int_t pid, const char *mode);
/* How many samples of a histogram object are in the slot of us microseconds or above. */
json_int_t e2e_hist_at_least(const json_t *hist, json_int_t us);
/* The log2 slot a value of ns falls in (slot i: [2^(i-1), 2^i) us, slot 0 under 1 us). */
int e2e_hist_slot(json_int_t ns);
/* The highest slot with a sample, -1 for none. */
int e2e_hist_top(const json_t *hist);

/* The holder of a "stall" object with this tid, or NULL. */
const json_t *e2e_holder_with_tid(const json_t *stall, json_int_t tid);
/* The entry of holder's "preempted_by" with this tid, or NULL. */
const json_t *e2e_preemptor_with_tid(const json_t *holder, json_int_t tid);
/* The stall of waiter tid that began within 1 ms of start_ns (a judge's clock), or NULL. */
const json_t *e2e_stall_of(const struct e2e_watch *w, json_int_t tid, json_int_t start_ns);

/*
 * Expect that no stall of process pid in stalls names cause (a stall's
 * "cause", a holder's "causes" key); returns how many stalls it had.
 */
json_int_t e2e_expect_no_cause(const json_t *stalls, json_int_t pid, const char *cause);

/*
 * PREEMPT_RT turns rwsems into rwbase_rt on an rt_mutex
 * (src/engine/preempt-rt.md): a writer holder is boosted by the tasks it
 * blocks, so the inversion of mprotect_fault cannot form there and has its
 * own test, and long_hold's holder seldom sits runnable.  A reader holder
 * is not boosted: proc_reader's inversion forms as elsewhere.
 */
bool e2e_kernel_is_preempt_rt(void);

/* Under qemu's TCG (test/kernels sets LOCKSTALL_E2E_TCG): everything runs many times slower. */
bool e2e_under_tcg(void);

/* Skips the test where the kernel has no futex2 futex_wait(2) (6.7+). */
void e2e_need_futex2(void);

/* Is the running kernel's release at least major.minor? */
bool e2e_kernel_at_least(int major, int minor);

/*
 * Owners followed by TID, as on kernels before 6.2 (no bpf_task_from_pid()),
 * forced where the kfunc exists: a suite's .init; then that lockstall w said
 * so on stderr.
 */
void e2e_owner_by_tid(void);
void e2e_watch__said_by_tid(const struct e2e_watch *w);

/* Write text into the existing file path (a sysctl, a cgroup file): 0 or -errno. */
int e2e_write_file(const char *path, const char *text);

/* Stacks (JSON "stack" arrays, innermost first). */
/* The index of the first frame of kind ("kernel", "user") whose symbol starts with prefix, or -1. */
int e2e_frame_index(const json_t *stack, const char *kind, const char *prefix);
/* "sym < sym < ?" for messages. */
const char *e2e_stack_text(const json_t *stack, char *buf, size_t len);
/*
 * Fail unless task has a stack holding frames ("k:name" kernel, "u:name"
 * user, name a prefix of the symbol), each below the one before it;
 * frames ends with NULL.
 */
void e2e_check_stack(const json_t *task, const char *const frames[]);

#endif /* LOCKSTALL_TEST_E2E_WATCH_H */
