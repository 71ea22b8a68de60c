// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/alert/hooks.c without root: real shell-script hooks in a temporary
 * directory, their stdin and environment checked through the file each
 * writes, their exit status and timeouts through the counts.  A test waits
 * on the hooks themselves (hooks__drain returns once they ended); a
 * timeout is brought on by handing hooks__poll() a clock past the deadline,
 * never by waiting for it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "alert/hooks.h"
#include "alert/slo.h"
#include "lib/tmpdir.h"
#include "util.h"

static char dir[256];
static struct hooks *hk;

static void setup(void)
{
	/* as main() does: a hook that closed its stdin must not kill us (EPIPE instead) */
	signal(SIGPIPE, SIG_IGN);
	tmpdir__make(dir, sizeof(dir), "hooks");
}

static void teardown(void)
{
	hooks__free(hk);
	hk = NULL;
	tmpdir__remove(dir);
}

TestSuite(hook, .init = setup, .fini = teardown);

/* dir/name, a shell script of body, executable; its path into path. */
static void script(char *path, size_t len, const char *name, const char *body)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fprintf(f, "#!/bin/sh\n%s\n", body);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(path, 0700), 0);
}

static struct hooks *start(const char *path, unsigned int max_running, __u64 timeout_ns)
{
	char *argv[] = { (char *)path, NULL };
	struct hooks_opts o = { .argv = argv, .max_running = max_running, .timeout_ns = timeout_ns };
	struct hooks *h = hooks__new(&o);

	cr_assert_not_null(h);
	return h;
}

/* The whole of a small file, NUL-terminated, into buf. */
static const char *slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static struct hooks_stats stats(void)
{
	struct hooks_stats st;

	hooks__stats(hk, &st);
	return st;
}

Test(hook, gets_stdin_and_env)
{
	static const char input[] = "{\"rule\":\"wait>10ms\"}\n";
	char path[300], out[300], env_out[320], buf[1024];
	char *env[] = { env_out, "LOCKSTALL_RULE=wait>10ms", "LOCKSTALL_VALUE_NS=12000000", NULL };

	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(env_out, sizeof(env_out), "OUT=%s", out);
	script(path, sizeof(path), "hook",
	       "{ cat; echo \"rule=$LOCKSTALL_RULE value=$LOCKSTALL_VALUE_NS\"; } > \"$OUT\"");
	hk = start(path, 0, 0);
	cr_assert_eq(hooks__run(hk, input, strlen(input), env, "rule 1"), 0);
	hooks__drain(hk);
	cr_expect_str_eq(slurp(out, buf, sizeof(buf)),
			 "{\"rule\":\"wait>10ms\"}\nrule=wait>10ms value=12000000\n");
	cr_expect_eq(stats().runs, 1);
	cr_expect_eq(stats().failures, 0);
	cr_expect_eq(stats().timeouts, 0);
	cr_expect_eq(hooks__running(hk), 0);
}

/* env replaces ours of the same name; the rest of ours is passed on. */
Test(hook, env_replaces_ours)
{
	char path[300], out[300], env_out[320], buf[256];
	char *env[] = { env_out, "LOCKSTALL_TEST_VAR=theirs", NULL };

	cr_assert_eq(setenv("LOCKSTALL_TEST_VAR", "ours", 1), 0);
	cr_assert_eq(setenv("LOCKSTALL_TEST_KEPT", "kept", 1), 0);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(env_out, sizeof(env_out), "OUT=%s", out);
	script(path, sizeof(path), "hook",
	       "echo \"$LOCKSTALL_TEST_VAR $LOCKSTALL_TEST_KEPT\" > \"$OUT\"");
	hk = start(path, 0, 0);
	hooks__run(hk, "", 0, env, "rule 1");
	hooks__drain(hk);
	cr_expect_str_eq(slurp(out, buf, sizeof(buf)), "theirs kept\n");
}

struct status_case {
	const char *body;
	__u64 failures;
};

static struct status_case status_cases[] = {
	{ "exit 0", 0 },
	{ "exit 3", 1 },
	{ "kill -KILL $$", 1 },
	/* a hook that does not read its stdin is no failure of ours */
	{ "exec 0<&-; exit 0", 0 },
};

Test(hook, exit_status)
{
	static char input[100000];
	char path[300];
	size_t i;

	/* more than a pipe holds at once unless it is grown */
	memset(input, 'x', sizeof(input));
	for (i = 0; i < ARRAY_SIZE(status_cases); i++) {
		const struct status_case *c = &status_cases[i];
		char name[16];

		snprintf(name, sizeof(name), "hook%zu", i);
		script(path, sizeof(path), name, c->body);
		hk = start(path, 0, 0);
		hooks__run(hk, input, sizeof(input), NULL, "rule 1");
		hooks__drain(hk);
		cr_expect_eq(stats().runs, 1, "%s", c->body);
		cr_expect_eq(stats().failures, c->failures, "%s: %llu failures", c->body,
			     (unsigned long long)stats().failures);
		cr_expect_eq(stats().timeouts, 0, "%s", c->body);
		hooks__free(hk);
		hk = NULL;
	}
}

Test(hook, cannot_start)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/missing", dir);
	hk = start(path, 0, 0);
	cr_assert_eq(hooks__run(hk, "", 0, NULL, "rule 1"), 0);
	cr_expect_eq(stats().runs, 0);
	cr_expect_eq(stats().failures, 1);
	cr_expect_eq(hooks__running(hk), 0);
}

/* Past its deadline a hook is killed, with what it started (its process group). */
Test(hook, timeout_kills)
{
	char path[300];

	script(path, sizeof(path), "hook", "exec tail -f /dev/null");
	hk = start(path, 0, 5 * NSEC_PER_SEC);
	hooks__run(hk, "", 0, NULL, "rule 1");
	hooks__poll(hk, ls_now_ns());
	cr_assert_eq(hooks__running(hk), 1, "the hook ended by itself");
	cr_expect_eq(stats().timeouts, 0);
	hooks__poll(hk, ls_now_ns() + 6 * NSEC_PER_SEC);
	hooks__drain(hk);
	cr_expect_eq(stats().timeouts, 1);
	cr_expect_eq(stats().failures, 0, "a timeout counts as a timeout only");
	cr_expect_eq(hooks__running(hk), 0);
}

Test(hook, max_running_skips)
{
	char path[300];

	script(path, sizeof(path), "hook", "exec tail -f /dev/null");
	hk = start(path, 1, 0);
	hooks__run(hk, "", 0, NULL, "rule 1");
	hooks__run(hk, "", 0, NULL, "rule 2");
	cr_expect_eq(stats().runs, 1);
	cr_expect_eq(stats().skipped, 1);
	cr_expect_eq(hooks__running(hk), 1);
	/* teardown's hooks__free kills it */
}

struct argv_case {
	const char *text;
	int rc;
	const char *argv[4];
};

static struct argv_case argv_cases[] = {
	{ "/bin/echo\n# a comment\n\nhello world\n", 0, { "/bin/echo", "hello world" } },
	{ "/bin/true", 0, { "/bin/true" } },
	{ "# only a comment\n\n", -EINVAL, { NULL } },
};

static void argv_file__check(const struct argv_case *c, size_t len)
{
	char path[300], err[256] = "";
	char **argv = NULL;
	size_t i;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/exec-file", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(c->text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	rc = hooks_argv__read(path, &argv, err, sizeof(err));
	cr_assert_eq(rc, c->rc, "rc %d (%s)", rc, err);
	if (rc) {
		cr_expect_null(argv);
		cr_expect_not_null(strstr(err, path), "the error names the file: %s", err);
		return;
	}
	for (i = 0; c->argv[i]; i++)
		cr_expect_str_eq(argv[i], c->argv[i]);
	cr_expect_null(argv[i]);
	hooks_argv__free(argv);
}

Test(hook, argv_file)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(argv_cases); i++)
		argv_file__check(&argv_cases[i], strlen(argv_cases[i].text));
}

/* A NUL byte inside an argument: refused, not cut short. */
Test(hook, argv_file_nul)
{
	static const char text[] = "/bin/echo\na\0b\n";
	const struct argv_case c = { text, -EINVAL, { NULL } };

	argv_file__check(&c, sizeof(text) - 1);
}

Test(hook, argv_file_missing)
{
	char path[300], err[512] = "";
	char **argv = NULL;

	snprintf(path, sizeof(path), "%s/none", dir);
	cr_expect_eq(hooks_argv__read(path, &argv, err, sizeof(err)), -ENOENT);
	cr_expect_null(argv);
	cr_expect_not_null(strstr(err, "cannot read"), "%s", err);
}

/* envs[0..n) has exactly this "NAME=value". */
static bool env__has(char *const *envs, size_t n, const char *want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(envs[i], want))
			return true;
	return false;
}

/*
 * A window rule broken by a pending stall with a holder: the fullest
 * environment a hook gets, within HOOKS_ENV_MAX, the holder's ids from
 * the first holder of the chain (not the preemptor before it).
 */
Test(hook, env_of_violation)
{
	struct slo_rule rule = {
		.text = (char *)"stalled>10ms/1s", .kind = SLO_STALLED,
		.limit_ns = 10000000, .window_ns = 1000000000,
	};
	struct ls_stall st = {
		.verdict = LS_VERDICT_PRIORITY_INVERSION, .lock_wait_ns = 25000000, .pending = true,
		.waiter = { .tgid = 100, .tid = 101 }, .waiter_cgroup_id = 7, .n_chain = 3,
		.chain = {
			{ .task = { .tgid = 100, .tid = 101 }, .role = LS_ROLE_WAITER },
			{ .task = { .tgid = 300, .tid = 301 }, .role = LS_ROLE_PREEMPTOR },
			{ .task = { .tgid = 200, .tid = 202 }, .role = LS_ROLE_HOLDER },
		},
	};
	const struct ls_stall *stalls[] = { &st };
	struct slo_violation v = {
		.rule = &rule, .rule_index = 1, .value_ns = 30000000, .suppressed = 4,
		.stalls = stalls, .n_stalls = 1,
	};
	static const char *const want[] = {
		"LOCKSTALL_RULE=stalled>10ms/1s", "LOCKSTALL_RULE_INDEX=2", "LOCKSTALL_KIND=stalled",
		"LOCKSTALL_VALUE_NS=30000000", "LOCKSTALL_WINDOW_NS=1000000000",
		"LOCKSTALL_SUPPRESSED=4", "LOCKSTALL_VERDICT=priority_inversion",
		"LOCKSTALL_WAIT_NS=25000000", "LOCKSTALL_PENDING=1", "LOCKSTALL_WAITER_TID=101",
		"LOCKSTALL_WAITER_CGROUP_ID=7", "LOCKSTALL_HOLDER_PID=200", "LOCKSTALL_HOLDER_TID=202",
	};
	char *envs[HOOKS_ENV_MAX];
	size_t n = hooks__env(&v, envs), i;

	cr_assert_lt(n, HOOKS_ENV_MAX);
	cr_expect_null(envs[n]);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		cr_expect(env__has(envs, n, want[i]), "no %s", want[i]);
	for (i = 0; i < n; i++)
		free(envs[i]);
}

/* A wait rule without a stall: its own numbers only, no window. */
Test(hook, env_of_wait_rule)
{
	struct slo_rule rule = { .text = (char *)"wait>5ms", .kind = SLO_WAIT, .limit_ns = 5000000 };
	struct slo_violation v = { .rule = &rule, .value_ns = 6000000 };
	char *envs[HOOKS_ENV_MAX];
	size_t n = hooks__env(&v, envs), i;

	cr_expect_eq(n, 6);
	cr_expect(env__has(envs, n, "LOCKSTALL_KIND=wait"));
	cr_expect(env__has(envs, n, "LOCKSTALL_LIMIT_NS=5000000"));
	cr_expect_not(env__has(envs, n, "LOCKSTALL_WINDOW_NS=0"));
	for (i = 0; i < n; i++)
		free(envs[i]);
}
