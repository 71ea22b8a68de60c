// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See hooks.h.  posix_spawn() rather than fork(): lockstall may hold a lot
 * of memory (engine state, BPF maps mapped in), and the child must do
 * nothing between fork and exec that could block or allocate.  No SIGCHLD
 * handler: hooks are reaped with waitpid(WNOHANG) from the watch loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "alert/hooks.h"
#include "alert/slo.h"
#include "util.h"

extern char **environ;

#define HOOK_WHAT_LEN	64
#define DRAIN_STEP_NS	(10 * NSEC_PER_MSEC)

struct hook {
	pid_t pid;		/* 0: free slot */
	int in_fd;		/* the write end of its stdin, -1 once all is written */
	char *input;
	size_t len, off;
	__u64 deadline_ns;
	bool killed;		/* by us, for the timeout */
	char what[HOOK_WHAT_LEN];
};

struct hooks {
	char **argv;
	unsigned int max_running;
	__u64 timeout_ns;
	struct hook slots[HOOKS_MAX_RUNNING];
	struct hooks_stats stats;
};

static void argv__free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void hooks_argv__free(char **argv)
{
	argv__free(argv);
}

struct hooks *hooks__new(const struct hooks_opts *o)
{
	struct hooks *h = calloc(1, sizeof(*h));
	size_t n = 0, i;

	if (!h)
		return NULL;
	while (o->argv[n])
		n++;
	h->argv = calloc(n + 1, sizeof(*h->argv));
	if (!h->argv)
		goto nomem;
	for (i = 0; i < n; i++) {
		h->argv[i] = strdup(o->argv[i]);
		if (!h->argv[i])
			goto nomem;
	}
	h->max_running = o->max_running ? o->max_running : HOOKS_DEFAULT_MAX_RUNNING;
	if (h->max_running > HOOKS_MAX_RUNNING)
		h->max_running = HOOKS_MAX_RUNNING;
	h->timeout_ns = o->timeout_ns ? o->timeout_ns : HOOKS_DEFAULT_TIMEOUT_NS;
	for (i = 0; i < HOOKS_MAX_RUNNING; i++)
		h->slots[i].in_fd = -1;
	return h;
nomem:
	argv__free(h->argv);
	free(h);
	return NULL;
}

static void hook__close_input(struct hook *k)
{
	if (k->in_fd >= 0)
		close(k->in_fd);
	k->in_fd = -1;
	free(k->input);
	k->input = NULL;
}

/* As much of the input as the pipe takes now; EOF once it is all there. */
static void hook__feed(struct hook *k)
{
	while (k->in_fd >= 0 && k->off < k->len) {
		ssize_t n = write(k->in_fd, k->input + k->off, k->len - k->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			/* EPIPE: the hook does not read its stdin; that is its business */
			break;
		}
		k->off += (size_t)n;
	}
	hook__close_input(k);
}

/* environ without the names env sets, then env. */
static char **env__merge(char *const env[])
{
	size_t n = 0, m = 0, i, j, k = 0;
	char **out;

	while (environ && environ[n])
		n++;
	while (env && env[m])
		m++;
	out = calloc(n + m + 1, sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		bool replaced = false;

		for (j = 0; j < m && !replaced; j++) {
			const char *eq = strchr(env[j], '=');
			size_t nl = eq ? (size_t)(eq - env[j]) + 1 : strlen(env[j]);

			replaced = !strncmp(environ[i], env[j], nl);
		}
		if (!replaced)
			out[k++] = environ[i];
	}
	for (j = 0; j < m; j++)
		out[k++] = env[j];
	out[k] = NULL;
	return out;
}

static int hook__spawn(struct hooks *h, struct hook *k, char *const env[])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dflt;
	int pipefd[2], rc;
	char **envp;
	pid_t pid;

	envp = env__merge(env);
	if (!envp)
		return ENOMEM;
	if (pipe2(pipefd, O_CLOEXEC)) {
		rc = errno;
		free(envp);
		return rc;
	}
	/* a big violation fits the pipe at once when the kernel allows it */
	if (k->len > 65536)
		fcntl(pipefd[1], F_SETPIPE_SZ, (int)(k->len < (1 << 20) ? k->len : (1 << 20)));
	fcntl(pipefd[1], F_SETFL, O_NONBLOCK);

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, pipefd[0], 0);
	/* our stdout carries data (JSON Lines): the hook's output goes with our messages */
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	sigemptyset(&none);
	/* we ignore SIGPIPE, and an ignored signal stays ignored across exec */
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGHUP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	/* its own process group: the timeout kills all it started */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(&pid, h->argv[0], &fa, &attr, h->argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(envp);
	close(pipefd[0]);
	if (rc) {
		close(pipefd[1]);
		return rc;
	}
	k->pid = pid;
	k->in_fd = pipefd[1];
	return 0;
}

int hooks__run(struct hooks *h, const char *input, size_t len, char *const env[],
	       const char *what)
{
	struct hook *k = NULL;
	unsigned int i, running = 0;
	int rc;

	for (i = 0; i < HOOKS_MAX_RUNNING; i++) {
		if (h->slots[i].pid)
			running++;
		else if (!k)
			k = &h->slots[i];
	}
	if (running >= h->max_running || !k) {
		h->stats.skipped++;
		fprintf(stderr, "lockstall: hook not run for %s: %u already running\n", what, running);
		return 0;
	}
	memset(k, 0, sizeof(*k));
	k->in_fd = -1;
	snprintf(k->what, sizeof(k->what), "%s", what);
	k->input = malloc(len ? len : 1);
	if (!k->input) {
		h->stats.failures++;
		fprintf(stderr, "lockstall: hook not run for %s: %s\n", what, strerror(ENOMEM));
		return 0;
	}
	memcpy(k->input, input, len);
	k->len = len;
	rc = hook__spawn(h, k, env);
	if (rc) {
		free(k->input);
		k->input = NULL;
		k->pid = 0;
		h->stats.failures++;
		fprintf(stderr, "lockstall: cannot run hook %s for %s: %s\n", h->argv[0], what,
			strerror(rc));
		return 0;
	}
	h->stats.runs++;
	k->deadline_ns = ls_now_ns() + h->timeout_ns;
	hook__feed(k);
	return 0;
}

static void hook__ended(struct hooks *h, struct hook *k, int status)
{
	if (k->killed) {
		h->stats.timeouts++;
		fprintf(stderr, "lockstall: hook %s for %s killed after %llums (--exec-timeout)\n",
			h->argv[0], k->what, (unsigned long long)(h->timeout_ns / NSEC_PER_MSEC));
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		h->stats.failures++;
		fprintf(stderr, "lockstall: hook %s for %s exited with status %d\n", h->argv[0],
			k->what, WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		h->stats.failures++;
		fprintf(stderr, "lockstall: hook %s for %s killed by signal %d\n", h->argv[0],
			k->what, WTERMSIG(status));
	}
	hook__close_input(k);
	k->pid = 0;
}

void hooks__poll(struct hooks *h, __u64 now_ns)
{
	unsigned int i;

	for (i = 0; i < HOOKS_MAX_RUNNING; i++) {
		struct hook *k = &h->slots[i];
		int status;
		pid_t r;

		if (!k->pid)
			continue;
		hook__feed(k);
		if (!k->killed && now_ns >= k->deadline_ns) {
			/* the group: whatever the hook started goes too */
			kill(-k->pid, SIGKILL);
			kill(k->pid, SIGKILL);
			k->killed = true;
		}
		do
			r = waitpid(k->pid, &status, WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == k->pid || (r < 0 && errno == ECHILD))
			hook__ended(h, k, r == k->pid ? status : 0);
	}
}

unsigned int hooks__running(const struct hooks *h)
{
	unsigned int i, n = 0;

	for (i = 0; i < HOOKS_MAX_RUNNING; i++)
		n += h->slots[i].pid != 0;
	return n;
}

void hooks__drain(struct hooks *h)
{
	const struct timespec step = { 0, (long)DRAIN_STEP_NS };

	for (;;) {
		hooks__poll(h, ls_now_ns());
		if (!hooks__running(h))
			return;
		/* bounded: each hook is killed at its deadline */
		nanosleep(&step, NULL);
	}
}

void hooks__stats(const struct hooks *h, struct hooks_stats *out)
{
	*out = h->stats;
}

void hooks__free(struct hooks *h)
{
	unsigned int i;

	if (!h)
		return;
	for (i = 0; i < HOOKS_MAX_RUNNING; i++) {
		struct hook *k = &h->slots[i];

		if (k->pid) {
			kill(-k->pid, SIGKILL);
			kill(k->pid, SIGKILL);
			while (waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		hook__close_input(k);
	}
	argv__free(h->argv);
	free(h);
}

struct argv_file {
	const char *path;
	char **argv;
	size_t n;
	char *err;
	size_t err_len;
};

/* One line of --exec-file: one argument; blank lines and # comments are none. */
static int argv_file__line(void *ctx, char *line, size_t len)
{
	struct argv_file *a = ctx;
	char **v;

	if (!len || line[0] == '#')
		return 0;
	if (memchr(line, '\0', len)) {
		snprintf(a->err, a->err_len, "%s: argument %zu has a NUL byte", a->path, a->n + 1);
		return -EINVAL;
	}
	if (a->n >= HOOKS_MAX_ARGS) {
		snprintf(a->err, a->err_len, "%s: more than %d arguments", a->path, HOOKS_MAX_ARGS);
		return -E2BIG;
	}
	v = realloc(a->argv, (a->n + 2) * sizeof(*v));
	if (!v)
		goto nomem;
	a->argv = v;
	a->argv[a->n] = strdup(line);
	if (!a->argv[a->n])
		goto nomem;
	a->argv[++a->n] = NULL;
	return 0;
nomem:
	snprintf(a->err, a->err_len, "%s: %s", a->path, strerror(ENOMEM));
	return -ENOMEM;
}

int hooks_argv__read(const char *path, char ***argv_out, char *err, size_t err_len)
{
	struct argv_file a = { .path = path, .err = err, .err_len = err_len };
	int rc;

	*argv_out = NULL;
	rc = ls_read_lines(path, HOOKS_MAX_FILE, argv_file__line, &a, err, err_len);
	if (!rc && !a.n) {
		rc = -EINVAL;
		snprintf(err, err_len, "%s: no program in it: expected one argument per line, the program first",
			 path);
	}
	if (rc) {
		argv__free(a.argv);
		return rc;
	}
	*argv_out = a.argv;
	return 0;
}

static void env__add(char **env, size_t *n, const char *name, unsigned long long v)
{
	if (asprintf(&env[*n], "%s=%llu", name, v) >= 0)
		(*n)++;
}

/*
 * A hook's environment: numbers, names of our own vocabulary and the rule
 * the operator wrote; nothing a traced process could choose (its comm is
 * in the JSON on stdin only).
 */
size_t hooks__env(const struct slo_violation *v, char **env)
{
	const struct ls_stall *st = v->n_stalls ? v->stalls[0] : NULL;
	size_t n = 0, i;

	if (asprintf(&env[n], "LOCKSTALL_RULE=%s", v->rule->text) >= 0)
		n++;
	env__add(env, &n, "LOCKSTALL_RULE_INDEX", v->rule_index + 1);
	if (asprintf(&env[n], "LOCKSTALL_KIND=%s", v->rule->kind == SLO_WAIT ? "wait" : "stalled") >= 0)
		n++;
	env__add(env, &n, "LOCKSTALL_VALUE_NS", v->value_ns);
	env__add(env, &n, "LOCKSTALL_LIMIT_NS", v->rule->limit_ns);
	if (v->rule->kind == SLO_STALLED)
		env__add(env, &n, "LOCKSTALL_WINDOW_NS", v->rule->window_ns);
	env__add(env, &n, "LOCKSTALL_SUPPRESSED", v->suppressed);
	if (st) {
		if (asprintf(&env[n], "LOCKSTALL_VERDICT=%s", ls_verdict_name(st->verdict)) >= 0)
			n++;
		env__add(env, &n, "LOCKSTALL_WAIT_NS", st->lock_wait_ns);
		/* 1: the wait is still going on (a pending report), LOCKSTALL_WAIT_NS so far */
		env__add(env, &n, "LOCKSTALL_PENDING", st->pending);
		env__add(env, &n, "LOCKSTALL_WAITER_PID", st->waiter.tgid);
		env__add(env, &n, "LOCKSTALL_WAITER_TID", st->waiter.tid);
		/* the id only: names in a delegated subtree are the traced side's choice */
		env__add(env, &n, "LOCKSTALL_WAITER_CGROUP_ID", st->waiter_cgroup_id);
		env__add(env, &n, "LOCKSTALL_MM_PID", st->lock.tgid);
		for (i = 0; i < st->n_chain && i < LS_MAX_HOPS; i++) {
			if (st->chain[i].role != LS_ROLE_HOLDER)
				continue;
			env__add(env, &n, "LOCKSTALL_HOLDER_PID", st->chain[i].task.tgid);
			env__add(env, &n, "LOCKSTALL_HOLDER_TID", st->chain[i].task.tid);
			break;
		}
	}
	env[n] = NULL;
	return n;
}
