/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Hooks: a program run on each SLO violation (watch --exec), never through
 * a shell.  The argv is exactly what the operator gave; what comes from the
 * traced system (a comm, anything a traced process can choose) goes only
 * into the hook's stdin, as JSON, never into its argv.
 *
 * Nothing here blocks tracing: hooks__run() starts the program and
 * returns; its stdin is fed through a non-blocking pipe by hooks__poll(),
 * which the watch loop calls every turn, and which also reaps hooks that
 * ended (waitpid WNOHANG) and SIGKILLs the process group of those past
 * their timeout.  Beyond max_running hooks at once, violations are counted
 * as skipped.  Each hook runs in a process group of its own (so a timeout
 * kills what it started too), with stdout sent to lockstall's stderr (our
 * stdout carries data) and the signal dispositions reset.
 */
#ifndef LOCKSTALL_HOOKS_H
#define LOCKSTALL_HOOKS_H

#include <stddef.h>
#include <linux/types.h>

#define HOOKS_DEFAULT_MAX_RUNNING	4
#define HOOKS_DEFAULT_TIMEOUT_NS	(10 * 1000000000ULL)
#define HOOKS_MAX_RUNNING		64

struct hooks_opts {
	char *const *argv;	/* NULL-terminated; argv[0] a path, or a name looked up in PATH */
	unsigned int max_running;	/* 0: HOOKS_DEFAULT_MAX_RUNNING */
	__u64 timeout_ns;	/* 0: HOOKS_DEFAULT_TIMEOUT_NS */
};

struct hooks_stats {
	__u64 runs;		/* started */
	__u64 failures;		/* could not start, exited non-zero or died of a signal */
	__u64 timeouts;		/* killed after timeout_ns */
	__u64 skipped;		/* not started: max_running were running */
};

struct hooks;
struct slo_violation;

/* Copies argv.  NULL on ENOMEM. */
struct hooks *hooks__new(const struct hooks_opts *o);
/*
 * Start one hook with input (len bytes) on its stdin and, in its
 * environment, ours plus env (NULL-terminated "NAME=value" strings, which
 * replace ours of the same name).  what names the violation in messages.
 * Returns 0 (started, or counted as skipped or failed and told on stderr).
 */
int hooks__run(struct hooks *h, const char *input, size_t len, char *const env[],
	       const char *what);
/* Feed stdins, reap, kill the overdue.  now_ns: CLOCK_MONOTONIC. */
void hooks__poll(struct hooks *h, __u64 now_ns);
/* How many are running. */
unsigned int hooks__running(const struct hooks *h);
/* Wait for every running hook to end, each at most until its timeout. */
void hooks__drain(struct hooks *h);
void hooks__stats(const struct hooks *h, struct hooks_stats *out);
/* Kill what still runs (SIGKILL to its group), reap, free. */
void hooks__free(struct hooks *h);

/*
 * A violation's environment for hooks__run(), into env (HOOKS_ENV_MAX
 * entries, NULL-terminated; each string malloc'd): returns how many.
 */
#define HOOKS_ENV_MAX 21
size_t hooks__env(const struct slo_violation *v, char **env);

/*
 * A --exec-file: one argument per line, the program first, taken verbatim
 * (no quoting, no expansion) but for the line's end; empty lines and lines
 * that start with '#' are skipped.  A regular file of at most
 * HOOKS_MAX_FILE bytes and HOOKS_MAX_ARGS arguments.  *argv_out is
 * NULL-terminated and malloc'd, as is each string (hooks_argv__free).  0,
 * or -errno with err set.
 */
#define HOOKS_MAX_FILE (1 << 20)
#define HOOKS_MAX_ARGS 4096
int hooks_argv__read(const char *path, char ***argv_out, char *err, size_t err_len);
void hooks_argv__free(char **argv);

#endif /* LOCKSTALL_HOOKS_H */
