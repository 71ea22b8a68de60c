// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/alert/slo_rules.c and slo.c: the rule parser (tables of good, bad
 * and hostile lines) and the evaluation (selectors, wait and stalled
 * conditions, the sliding window, the rate limit) from synthetic stalls,
 * and the violation's JSON.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include "alert/slo.h"
#include "util.h"

#define MSEC(x) ((__u64)(x) * 1000000ULL)

/* ---- parser ----------------------------------------------------------- */

/*
 * Strings inline: Criterion runs each case in its own process.  want: for
 * rc 0, the rule as rule_text() renders it ("" for no rule); else a part
 * of the error, and col the column the error must name (0: not checked).
 */
struct parse_case {
	char line[112];
	int rc;
	char want[160];
	int col;
};

static void rule_text(const struct slo_rules *rules, char *buf, size_t len)
{
	const struct slo_rule *r;
	FILE *f;

	buf[0] = '\0';
	if (!rules->n)
		return;
	r = &rules->v[0];
	f = fmemopen(buf, len, "w");
	fprintf(f, "%s", r->kind == SLO_WAIT ? "wait" : "stalled");
	fprintf(f, " limit=%llu", (unsigned long long)r->limit_ns);
	if (r->kind == SLO_STALLED)
		fprintf(f, " window=%llu", (unsigned long long)r->window_ns);
	fprintf(f, " every=%llu", (unsigned long long)r->every_ns);
	if (r->has_pid)
		fprintf(f, " pid=%u", r->pid);
	if (r->has_comm)
		fprintf(f, " comm=%s", r->comm);
	if (r->has_holder_comm)
		fprintf(f, " holder_comm=%s", r->holder_comm);
	if (r->has_policy)
		fprintf(f, " policy=%u", r->policy);
	if (r->has_verdict)
		fprintf(f, " verdict=%s", ls_verdict_name(r->verdict));
	if (r->cgroup.path)
		fprintf(f, " cgroup%s=%s", r->cgroup.glob ? "~" : "", r->cgroup.path);
	if (r->holder_cgroup.path)
		fprintf(f, " holder_cgroup%s=%s", r->holder_cgroup.glob ? "~" : "",
			r->holder_cgroup.path);
	if (r->has_cause)
		fprintf(f, " cause=%s", ls_cause_name(r->cause));
	if (r->has_lock)
		fprintf(f, " lock=%s", ls_lock_kind_name(r->lock_kind));
	fprintf(f, " text=[%s]", r->text);
	fclose(f);
}

static struct parse_case cases[] = {
	{ "wait>=50ms", 0, "wait limit=50000000 every=10000000000 text=[wait>=50ms]", 0 },
	{ "comm=db-* policy=fifo wait>=50ms", 0,
	  "wait limit=50000000 every=10000000000 comm=db-* policy=1 text=[comm=db-* policy=fifo wait>=50ms]", 0 },
	{ "pid=42 stalled>=200ms/10s", 0,
	  "stalled limit=200000000 window=10000000000 every=10000000000 pid=42 text=[pid=42 stalled>=200ms/10s]", 0 },
	{ "  verdict=priority_inversion\twait>=1s every=1m  # page me", 0,
	  "wait limit=1000000000 every=60000000000 verdict=priority_inversion text=[verdict=priority_inversion\twait>=1s every=1m]", 0 },
	{ "verdict=any wait>=1ms", 0, "wait limit=1000000 every=10000000000 text=[verdict=any wait>=1ms]", 0 },
	{ "comm=a#b wait>=1ms", 0, "wait limit=1000000 every=10000000000 comm=a#b text=[comm=a#b wait>=1ms]", 0 },
	{ "policy=idle stalled>=1ms/1ms every=5s", 0,
	  "stalled limit=1000000 window=1000000 every=5000000000 policy=5 text=[policy=idle stalled>=1ms/1ms every=5s]", 0 },
	{ "# only a comment", 0, "", 0 },
	{ "", 0, "", 0 },
	{ " \t\r\n", 0, "", 0 },

	{ "wait>50ms", -EINVAL, "expected key=value or a condition", 1 },
	{ "wait=50ms", -EINVAL, "unknown key 'wait'", 1 },
	{ "comm", -EINVAL, "expected key=value", 1 },
	{ "=x wait>=1ms", -EINVAL, "expected key=value", 1 },
	{ "comm=x", -EINVAL, "no condition", 7 },
	{ "wait>=50", -EINVAL, "invalid duration '50' for wait>=", 7 },
	{ "wait>=0ms", -EINVAL, "expected a duration above zero", 7 },
	{ "wait>=-5ms", -EINVAL, "invalid duration", 7 },
	{ "wait>=99999999999999999999s", -EINVAL, "invalid duration", 7 },
	{ "wait>=18446744073709551615s", -EINVAL, "invalid duration", 7 },
	{ "stalled>=200ms", -EINVAL, "expected stalled>=DURATION/WINDOW", 10 },
	{ "stalled>=20s/10s", -EINVAL, "longer than its window", 10 },
	{ "stalled>=1ms/", -EINVAL, "for the window", 14 },
	{ "stalled>=/1s", -EINVAL, "invalid duration '' for stalled>=", 10 },
	{ "wait>=1ms wait>=2ms", -EINVAL, "a second condition", 11 },
	{ "wait>=1ms stalled>=2ms/1s", -EINVAL, "a second condition", 11 },
	{ "load>=5 wait>=1ms", -EINVAL, "unknown condition 'load>='", 1 },
	{ "pid=0 wait>=1ms", -EINVAL, "invalid pid '0'", 5 },
	{ "pid=4194305 wait>=1ms", -EINVAL, "expected a process ID from 1 to 4194304", 5 },
	{ "pid=18446744073709551616 wait>=1ms", -EINVAL, "invalid pid", 5 },
	{ "pid=12ab wait>=1ms", -EINVAL, "invalid pid", 5 },
	{ "pid=1 pid=2 wait>=1ms", -EINVAL, "pid= given twice", 11 },
	{ "comm=a comm=b wait>=1ms", -EINVAL, "comm= given twice", 13 },
	{ "holder_comm=a* comm=b wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 comm=b holder_comm=a* text=[holder_comm=a* comm=b wait>=1ms]", 0 },
	{ "holder_comm=a holder_comm=b wait>=1ms", -EINVAL, "holder_comm= given twice", 27 },
	{ "policy=realtime wait>=1ms", -EINVAL, "unknown policy 'realtime'", 8 },
	{ "verdict=bad wait>=1ms", -EINVAL, "unknown verdict 'bad'", 9 },
	{ "cause=throttled wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cause=throttled text=[cause=throttled wait>=1ms]", 0 },
	{ "cause=reclaim wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cause=reclaim text=[cause=reclaim wait>=1ms]", 0 },
	{ "cause=rt_throttled wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cause=rt_throttled text=[cause=rt_throttled wait>=1ms]", 0 },
	{ "cause=io wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cause=io text=[cause=io wait>=1ms]", 0 },
	{ "cause=runnable wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cause=runnable text=[cause=runnable wait>=1ms]", 0 },
	{ "cause=steal wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cause=steal text=[cause=steal wait>=1ms]", 0 },
	{ "cause=slow wait>=1ms", -EINVAL,
	  "unknown cause 'slow': expected one of none, throttled, reclaim, rt_throttled, io, runnable, steal", 7 },
	{ "cause=none cause=none wait>=1ms", -EINVAL, "cause= given twice", 18 },
	{ "lock=mmap_lock wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 lock=mmap_lock text=[lock=mmap_lock wait>=1ms]", 0 },
	{ "lock=futex wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 lock=futex text=[lock=futex wait>=1ms]", 0 },
	{ "wait>=1ms lock=percpu_rwsem", 0,
	  "wait limit=1000000 every=10000000000 lock=percpu_rwsem text=[wait>=1ms lock=percpu_rwsem]", 0 },
	{ "lock=spinlock wait>=1ms", -EINVAL,
	  "unknown lock 'spinlock': expected one of mmap_lock, futex, pi_futex, mutex, rwsem, rt_mutex, percpu_rwsem", 6 },
	{ "lock=any wait>=1ms", -EINVAL, "unknown lock 'any'", 6 },
	{ "lock=futex lock=mutex wait>=1ms", -EINVAL, "lock= given twice", 17 },
	{ "verdict=stuck wait>=1ms", -EINVAL,
	  "expected one of priority_inversion, holder_off_cpu, contention, unknown, deadlock, or any", 9 },
	{ "verdict=deadlock wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 verdict=deadlock text=[verdict=deadlock wait>=1ms]", 0 },
	{ "every=0s wait>=1ms", -EINVAL, "invalid duration '0s' for every=", 7 },
	{ "every=1s every=2s wait>=1ms", -EINVAL, "every= given twice", 16 },
	/* cgroup=: normalised, so that matching is a string compare ("~": a glob) */
	{ "cgroup=/system.slice/db.service wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cgroup=/system.slice/db.service text=[cgroup=/system.slice/db.service wait>=1ms]", 0 },
	{ "cgroup=/a/b/ wait>=1ms", 0, "wait limit=1000000 every=10000000000 cgroup=/a/b text=[cgroup=/a/b/ wait>=1ms]", 0 },
	{ "cgroup=//a//b// wait>=1ms", 0, "wait limit=1000000 every=10000000000 cgroup=/a/b text=[cgroup=//a//b// wait>=1ms]", 0 },
	{ "cgroup=/ wait>=1ms", 0, "wait limit=1000000 every=10000000000 cgroup=/ text=[cgroup=/ wait>=1ms]", 0 },
	{ "cgroup=/// wait>=1ms", 0, "wait limit=1000000 every=10000000000 cgroup=/ text=[cgroup=/// wait>=1ms]", 0 },
	{ "cgroup=/system.slice/*.service wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cgroup~=/system.slice/*.service text=[cgroup=/system.slice/*.service wait>=1ms]", 0 },
	{ "cgroup=/a/[bc]?d wait>=1ms", 0, "wait limit=1000000 every=10000000000 cgroup~=/a/[bc]?d text=[cgroup=/a/[bc]?d wait>=1ms]", 0 },
	/* escapes come out as ls_cgroup_text() writes them: \xNN lowercase, printable ASCII as itself */
	{ "cgroup=/my\\x20app/caf\\xC3\\xA9 wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cgroup=/my\\x20app/caf\\xc3\\xa9 text=[cgroup=/my\\x20app/caf\\xC3\\xA9 wait>=1ms]", 0 },
	{ "cgroup=/\\x41\\x2fb\\x5c wait>=1ms", 0, "wait limit=1000000 every=10000000000 cgroup=/A/b\\x5c text=[cgroup=/\\x41\\x2fb\\x5c wait>=1ms]", 0 },
	{ "cgroup=/a/..b/.c wait>=1ms", 0, "wait limit=1000000 every=10000000000 cgroup=/a/..b/.c text=[cgroup=/a/..b/.c wait>=1ms]", 0 },
	{ "cgroup=system.slice wait>=1ms", -EINVAL, "expected a cgroup v2 path from the cgroup2 root", 8 },
	{ "cgroup= wait>=1ms", -EINVAL, "expected a cgroup v2 path from the cgroup2 root", 8 },
	{ "cgroup=/sys/fs/cgroup/../etc wait>=1ms", -EINVAL, "'.' or '..' in a cgroup path", 8 },
	{ "cgroup=/a/./b wait>=1ms", -EINVAL, "'.' or '..'", 8 },
	{ "cgroup=/.. wait>=1ms", -EINVAL, "'.' or '..'", 8 },
	{ "cgroup=/a/\\x2e\\x2e wait>=1ms", -EINVAL, "'.' or '..'", 8 },
	{ "cgroup=/a\\x00b wait>=1ms", -EINVAL, "a backslash not followed by xNN, or \\x00", 8 },
	{ "cgroup=/a\\q wait>=1ms", -EINVAL, "a backslash not followed by xNN", 8 },
	{ "cgroup=/a\\x4 wait>=1ms", -EINVAL, "a backslash not followed by xNN", 8 },
	{ "cgroup=/a\\ wait>=1ms", -EINVAL, "a backslash not followed by xNN", 8 },
	{ "cgroup=/a cgroup=/b wait>=1ms", -EINVAL, "cgroup= given twice", 18 },
	/* holder_cgroup=: the same paths, of the holders */
	{ "holder_cgroup=/batch.slice// wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 holder_cgroup=/batch.slice text=[holder_cgroup=/batch.slice// wait>=1ms]", 0 },
	{ "cgroup=/db holder_cgroup=/batch/* wait>=1ms", 0,
	  "wait limit=1000000 every=10000000000 cgroup=/db holder_cgroup~=/batch/* text=[cgroup=/db holder_cgroup=/batch/* wait>=1ms]", 0 },
	{ "holder_cgroup=batch wait>=1ms", -EINVAL, "expected a cgroup v2 path from the cgroup2 root", 15 },
	{ "holder_cgroup=/a holder_cgroup=/b wait>=1ms", -EINVAL, "holder_cgroup= given twice", 32 },
	{ "foo=bar wait>=1ms", -EINVAL, "unknown key 'foo'", 1 },
	{ "comm= wait>=1ms", -EINVAL, "expected a comm or a glob of 1 to 64 bytes", 6 },
	{ "comm=\xc3\xa9t\xc3\xa9 wait>=1ms", -EINVAL, "byte 0xc3: expected printable ASCII", 6 },
	{ "comm=\x1b[2J wait>=1ms", -EINVAL, "byte 0x1b", 6 },
	{ "wait>=1ms\x7f", -EINVAL, "byte 0x7f", 10 },
};

ParameterizedTestParameters(slo, parse)
{
	return cr_make_param_array(struct parse_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct parse_case *c, slo, parse)
{
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN], got[512], col[32];
	int rc;

	rc = slo_rules__parse_line(&rules, c->line, strlen(c->line), "--slo", err, sizeof(err));
	cr_assert_eq(rc, c->rc, "'%s': rc %d, want %d (%s)", c->line, rc, c->rc, err);
	if (rc) {
		cr_assert_eq(rules.n, 0);
		cr_assert(strstr(err, c->want), "'%s': error '%s' does not say '%s'", c->line, err,
			  c->want);
		cr_assert(!strncmp(err, "--slo: rule '", 13), "error names no rule: %s", err);
		snprintf(col, sizeof(col), "column %d:", c->col);
		cr_assert(!c->col || strstr(err, col), "'%s': error '%s' is not at %s", c->line,
			  err, col);
		return;
	}
	rule_text(&rules, got, sizeof(got));
	cr_assert_str_eq(got, c->want, "'%s'", c->line);
	slo_rules__free(&rules);
}

/* Error text is printed to terminals: whatever the rule holds, it is plain ASCII. */
static void assert_printable(const char *s)
{
	for (; *s; s++)
		cr_assert((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f,
			  "byte 0x%02x in an error message", (unsigned char)*s);
}

Test(slo, nul_byte)
{
	static const char line[] = "comm=a\0b wait>=1ms";
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN];

	cr_assert_eq(slo_rules__parse_line(&rules, line, sizeof(line) - 1, "r", err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "column 7: a NUL byte"), "%s", err);
	cr_assert(strstr(err, "comm=a\\x00b"), "the quote shows the NUL: %s", err);
	assert_printable(err);
}

Test(slo, huge_lines)
{
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN], *line = malloc(10240);
	size_t i;

	/* 10 KB: refused whole, the error stays short and printable */
	for (i = 0; i < 10240; i++)
		line[i] = (char)(i % 3 ? 'a' : 0xff);
	cr_assert_eq(slo_rules__parse_line(&rules, line, 10240, "r", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "longer than 4096 bytes"), "%s", err);
	cr_assert_lt(strlen(err), 400);
	assert_printable(err);

	/* just under the limit, mostly blanks: a rule */
	memset(line, ' ', SLO_MAX_LINE);
	memcpy(line + SLO_MAX_LINE - 9, "wait>=1ms", 9);
	cr_assert_eq(slo_rules__parse_line(&rules, line, SLO_MAX_LINE, "r", err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(rules.n, 1);
	cr_assert_str_eq(rules.v[0].text, "wait>=1ms");
	slo_rules__free(&rules);

	/* one long word */
	memset(line, 'x', 4000);
	memcpy(line, "comm=", 5);
	cr_assert_eq(slo_rules__parse_line(&rules, line, 4000, "r", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "1 to 64 bytes"), "%s", err);
	assert_printable(err);
	free(line);
}

/* A cgroup path is bounded, and a long one is refused whole, never cut into another path. */
Test(slo, cgroup_long_paths)
{
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN], line[SLO_MAX_LINE];
	size_t n;

	n = (size_t)snprintf(line, sizeof(line), "cgroup=/");
	memset(line + n, 'x', SLO_MAX_CGROUP - 1);
	n += SLO_MAX_CGROUP - 1;
	n += (size_t)snprintf(line + n, sizeof(line) - n, " wait>=1ms");
	cr_assert_eq(slo_rules__parse_line(&rules, line, n, "r", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(strlen(rules.v[0].cgroup.path), SLO_MAX_CGROUP);
	slo_rules__free(&rules);

	n = (size_t)snprintf(line, sizeof(line), "cgroup=/");
	memset(line + n, 'x', SLO_MAX_CGROUP);
	n += SLO_MAX_CGROUP;
	n += (size_t)snprintf(line + n, sizeof(line) - n, " wait>=1ms");
	cr_assert_eq(slo_rules__parse_line(&rules, line, n, "r", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "column 8: a cgroup path longer than 1024 bytes"), "%s", err);
	cr_assert_lt(strlen(err), 400);
	cr_assert_eq(rules.n, 0);

	/* 255 escapes: 1020 bytes of rule, 255 of name, 1021 of text */
	n = (size_t)snprintf(line, sizeof(line), "cgroup=/");
	for (int i = 0; i < 255; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "\\xff");
	n += (size_t)snprintf(line + n, sizeof(line) - n, " wait>=1ms");
	cr_assert_eq(slo_rules__parse_line(&rules, line, n, "r", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(strlen(rules.v[0].cgroup.path), 1 + 255 * 4);
	slo_rules__free(&rules);
}

/* The caller's check of cgroup= paths: what it is asked, and its answer in the error. */
struct check_log {
	char asked[4][64];
	int n;
};

static int check_exists(void *ctx, const char *path, char *why, size_t why_len)
{
	struct check_log *log = ctx;

	if (log->n < 4)
		snprintf(log->asked[log->n++], sizeof(log->asked[0]), "%s", path);
	if (!strcmp(path, "/gone")) {
		snprintf(why, why_len, "no cgroup /gone under /mnt");
		return -ENOENT;
	}
	return 0;
}

Test(slo, cgroup_paths_checked)
{
	char path[] = "/tmp/lockstall-slo-XXXXXX", err[SLO_ERR_LEN];
	const char *const lines[] = { "cgroup=/system.slice/*.service/x wait>=1ms",
				      "cgroup=/a/b/ wait>=1ms", "cgroup=/*/b wait>=1ms" };
	struct check_log log = { 0 };
	struct slo_cgroup_check chk = { check_exists, &log };
	struct slo_rules rules = { 0 };
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fprintf(f, "cgroup=/kept wait>=1ms\n# a comment\npid=1 cgroup=/gone wait>=5ms\n");
	fclose(f);
	cr_assert_eq(slo_rules__read(&rules, lines, 3, NULL, &chk, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(log.n, 3);
	cr_assert_str_eq(log.asked[0], "/system.slice", "a glob: its fixed components");
	cr_assert_str_eq(log.asked[1], "/a/b");
	cr_assert_str_eq(log.asked[2], "/");
	slo_rules__free(&rules);

	/* a path that is not there: the rule, the column and why; no rule taken */
	log.n = 0;
	cr_assert_eq(slo_rules__read(&rules, NULL, 0, path, &chk, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, ":3: rule 'pid=1 cgroup=/gone wait>=5ms', column 14: no cgroup /gone under /mnt"),
		  "%s", err);
	cr_assert_eq(rules.n, 0);
	/* without a check (report: the recording's cgroups, not this host's) */
	cr_assert_eq(slo_rules__read(&rules, NULL, 0, path, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rules.n, 2);
	slo_rules__free(&rules);
	unlink(path);
}

Test(slo, hostile_bytes_every_position)
{
	static const char *const goods[] = { "comm=x* wait>=5ms", "cgroup=/a/\\x20b* wait>=5ms" };
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN], line[64];
	size_t i, g, len;
	unsigned int b;

	/* every byte value at every place: a rule or an error, never a crash */
	for (g = 0; g < ARRAY_SIZE(goods); g++) {
		len = strlen(goods[g]);
		for (i = 0; i < len; i++) {
			for (b = 0; b < 256; b++) {
				int rc;

				memcpy(line, goods[g], len);
				line[i] = (char)b;
				rc = slo_rules__parse_line(&rules, line, len, "r", err, sizeof(err));
				cr_assert(rc == 0 || rc == -EINVAL, "rc %d", rc);
				if (rc)
					assert_printable(err);
				/* a cgroup= that parsed is a path: '/' first, never empty */
				if (rules.n && rules.v[0].cgroup.path)
					cr_assert_eq(rules.v[0].cgroup.path[0], '/', "%s",
						     rules.v[0].cgroup.path);
				slo_rules__free(&rules);
			}
		}
	}
}

Test(slo, parse_file)
{
	char path[] = "/tmp/lockstall-slo-XXXXXX", err[SLO_ERR_LEN];
	struct slo_rules rules = { 0 };
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fprintf(f, "# fleet budgets\r\n\ncomm=db-* wait>=50ms\r\n   # indented comment\n"
		   "pid=1 stalled>=200ms/10s  # init\n");
	fclose(f);
	cr_assert_eq(slo_rules__parse_file(&rules, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rules.n, 2);
	cr_assert_str_eq(rules.v[0].text, "comm=db-* wait>=50ms");
	cr_assert_str_eq(rules.v[1].text, "pid=1 stalled>=200ms/10s");

	/* a bad line: nothing of the file is taken, the error names path:line */
	f = fopen(path, "w");
	fprintf(f, "wait>=1ms\n\nwait>=1xs\n");
	fclose(f);
	cr_assert_eq(slo_rules__parse_file(&rules, path, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, ":3: rule 'wait>=1xs', column 7: invalid duration"), "%s", err);
	cr_assert_eq(rules.n, 2, "the rules had before stay as they were");
	slo_rules__free(&rules);

	/* too many */
	f = fopen(path, "w");
	for (int i = 0; i <= SLO_MAX_RULES; i++)
		fprintf(f, "pid=%d wait>=1ms\n", i + 1);
	fclose(f);
	cr_assert_eq(slo_rules__parse_file(&rules, path, err, sizeof(err)), -E2BIG);
	cr_assert(strstr(err, "more than 256 rules"), "%s", err);
	cr_assert_eq(rules.n, 0);
	unlink(path);

	cr_assert_eq(slo_rules__parse_file(&rules, path, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "cannot read"), "%s", err);
}

/* ---- evaluation ------------------------------------------------------- */

struct fired {
	size_t n;
	size_t rule[64];
	__u64 value[64], suppressed[64], window_stalls[64], at[64];
	size_t n_stalls[64];
	__u32 holder_tid[64];	/* of the latest stall carried */
	char json[4096];	/* the last violation as JSON */
};

static struct fired fired;

static int on_violation(void *ctx, const struct slo_violation *v)
{
	struct fired *f = ctx;
	FILE *m;

	cr_assert_lt(f->n, 64);
	f->rule[f->n] = v->rule_index;
	f->value[f->n] = v->value_ns;
	f->suppressed[f->n] = v->suppressed;
	f->window_stalls[f->n] = v->window_stalls;
	f->at[f->n] = v->at_ns;
	f->n_stalls[f->n] = v->n_stalls;
	f->holder_tid[f->n] = v->n_stalls && v->stalls[0]->n_holders ?
			      v->stalls[0]->holders[0].task.tid : 0;
	m = fmemopen(f->json, sizeof(f->json), "w");
	slo_violation__write_json(m, v);
	fclose(m);
	f->n++;
	return 0;
}

static struct ls_task task(__u32 tid, __u32 tgid, __u8 policy, const char *comm)
{
	struct ls_task t = { .tid = tid, .tgid = tgid, .policy = policy, .prio = 120 };

	memcpy(t.comm, comm, strnlen(comm, LS_COMM_LEN));
	return t;
}

/*
 * One stall of the victim (tid 11, process 10, SCHED_FIFO, "victim") that
 * ended at end_ms and waited wait_ms on the lock, held by tid 21 of process
 * 20 ("reader"), preempted by tid 31 ("hog").  The holders array is the
 * caller's: the evaluator must copy what it keeps.
 */
static struct ls_holder holder_buf;

static struct ls_stall stall(__u64 end_ms, __u64 wait_ms)
{
	struct ls_stall st = { 0 };

	memset(&holder_buf, 0, sizeof(holder_buf));
	holder_buf.task = task(21, 20, LS_POLICY_IDLE, "reader");
	holder_buf.offcpu_ns = MSEC(wait_ms);
	st.seq = end_ms;
	st.end_ns = MSEC(1000 + end_ms);
	st.wait_ns = st.lock_wait_ns = MSEC(wait_ms);
	st.start_ns = st.end_ns - st.wait_ns;
	st.write = true;
	st.acquired = true;
	st.lock = (struct ls_lock_id){ .id = 0xffff888012345678ULL, .tgid = 10 };
	memcpy(st.lock.comm, "victim", 6);
	st.waiter = task(11, 10, LS_POLICY_FIFO, "victim");
	st.holders = &holder_buf;
	st.n_holders = 1;
	st.chain[0] = (struct ls_hop){ .task = st.waiter, .role = LS_ROLE_WAITER, .write = true };
	st.chain[1] = (struct ls_hop){ .task = holder_buf.task, .role = LS_ROLE_HOLDER };
	st.chain[2] = (struct ls_hop){ .task = task(31, 30, LS_POLICY_NORMAL, "hog"),
				       .role = LS_ROLE_PREEMPTOR };
	st.n_chain = 3;
	st.verdict = LS_VERDICT_PRIORITY_INVERSION;
	return st;
}

static struct slo *make(const char *const lines[])
{
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN];
	struct slo *slo;
	size_t i;

	memset(&fired, 0, sizeof(fired));
	for (i = 0; lines[i]; i++)
		cr_assert_eq(slo_rules__parse_line(&rules, lines[i], strlen(lines[i]), "t", err,
						   sizeof(err)), 0, "%s", err);
	slo = slo__new(&rules, on_violation, &fired);
	cr_assert_not_null(slo);
	cr_assert_eq(rules.n, 0, "the rules were taken");
	return slo;
}

static void feed(struct slo *slo, struct ls_stall st)
{
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	/* what the engine's array held is gone after the call */
	memset(&holder_buf, 0xa5, sizeof(holder_buf));
}

Test(slo, selectors)
{
	const char *const lines[] = {
		"pid=10 wait>=10ms",			/* 0: yes */
		"pid=11 wait>=10ms",			/* 1: a tid, not the process */
		"comm=vic* wait>=10ms",			/* 2: yes */
		"comm=victim wait>=10ms",		/* 3: yes, exact */
		"comm=vic wait>=10ms",			/* 4: no, exact */
		"policy=fifo wait>=10ms",		/* 5: yes */
		"policy=idle wait>=10ms",		/* 6: the holder's, not the waiter's */
		"verdict=priority_inversion wait>=10ms",	/* 7: yes */
		"verdict=contention wait>=10ms",	/* 8: no */
		"verdict=any comm=?ictim pid=10 policy=fifo wait>=10ms",	/* 9: yes */
		"wait>=21ms",				/* 10: too short a wait */
		"cause=none wait>=10ms",		/* 11: yes, nothing was said */
		"cause=throttled wait>=10ms",		/* 12: no */
		"lock=mmap_lock wait>=10ms",		/* 13: yes */
		"lock=futex wait>=10ms",		/* 14: no */
		NULL,
	};
	struct slo *slo = make(lines);
	static const size_t want[] = { 0, 2, 3, 5, 7, 9, 11, 13 };
	size_t i;

	feed(slo, stall(100, 20));
	cr_assert_eq(fired.n, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		cr_assert_eq(fired.rule[i], want[i]);
		cr_assert_eq(fired.value[i], MSEC(20));
		cr_assert_eq(fired.n_stalls[i], 1);
		cr_assert_eq(fired.holder_tid[i], 21, "the stall was copied with its holders");
	}
	slo__free(slo);
}

/* lock= selects by the stall's lock kind, whatever else the stall is. */
Test(slo, lock_selects_the_kind)
{
	const char *const lines[] = {
		"lock=futex wait>=10ms",		/* 0: yes */
		"lock=mmap_lock wait>=10ms",		/* 1: no */
		"lock=pi_futex wait>=10ms",		/* 2: no: a plain futex */
		NULL,
	};
	struct slo *slo = make(lines);
	struct ls_stall st = stall(100, 20);

	st.lock.kind = LS_LOCK_FUTEX;
	feed(slo, st);
	cr_assert_eq(fired.n, 1);
	cr_assert_eq(fired.rule[0], 0);
	slo__free(slo);
}

/*
 * A budget rule's violation carries earlier stalls of its window, long
 * after their callbacks: the resolver reuses its frames for every stall
 * and the cgroup cache may drop a path, so each must be the stall's own
 * copy, not the memory the next stall was given.
 */
static struct ls_stall stall_with(__u64 end_ms, struct ls_frames *waiter, struct ls_frames *holder,
				  __u64 cgroup_id, const char *cgroup)
{
	struct ls_stall st = stall(end_ms, 20);

	st.waiter_frames = waiter;
	st.waiter_cgroup_id = cgroup_id;
	st.waiter_cgroup = cgroup;
	holder_buf.frames = holder;
	return st;
}

Test(slo, window_stalls_keep_their_own_stacks_and_paths)
{
	const char *const lines[] = { "stalled>=30ms/10s", NULL };
	struct slo *slo = make(lines);
	struct ls_frame fv[2] = { { .addr = 0x1000, .sym = "frame_of_a", .module = "vmlinux" },
				  { .addr = 0x2000, .sym = "holder_of_a", .module = "vmlinux" } };
	struct ls_frames wf = { .v = &fv[0], .n = 1, .n_kernel = 1, .user_method = "none" };
	struct ls_frames hf = { .v = &fv[1], .n = 1, .n_kernel = 1, .user_method = "none" };
	char path[32] = "/slice/a.service";

	feed(slo, stall_with(100, &wf, &hf, 77, path));
	cr_assert_eq(fired.n, 0);
	/* the resolver's and the cache's memory, given to the next stall */
	fv[0].sym = "frame_of_b";
	fv[1].sym = "holder_of_b";
	strcpy(path, "/slice/b.service");
	feed(slo, stall_with(200, &wf, &hf, 78, path));
	cr_assert_eq(fired.n, 1);
	cr_assert_eq(fired.n_stalls[0], 2);
	cr_assert(strstr(fired.json, "frame_of_a"), "%s", fired.json);
	cr_assert(strstr(fired.json, "holder_of_a"), "%s", fired.json);
	cr_assert(strstr(fired.json, "frame_of_b"), "%s", fired.json);
	cr_assert(strstr(fired.json, "/slice/a.service"), "%s", fired.json);
	cr_assert(strstr(fired.json, "/slice/b.service"), "%s", fired.json);
	slo__free(slo);
}

/* A comm is matched as ls_comm_text() prints it: hostile bytes as \xNN, never raw. */
Test(slo, comm_glob_on_text)
{
	const char *const lines[] = { "comm=\\x1b[2J* wait>=1ms", "comm=*[* wait>=1ms", NULL };
	struct slo *slo = make(lines);
	struct ls_stall st = stall(100, 20);

	memcpy(st.waiter.comm, "\x1b[2Jevil\xff", 9);
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 2);
	slo__free(slo);
}

/*
 * cgroup=PATH: the waiter's cgroup is PATH or below it, on whole
 * components; a glob matches the waiter's ancestor at its depth.
 */
Test(slo, cgroup_subtree)
{
	const char *const lines[] = {
		"cgroup=/a/b wait>=10ms",	/* 0: below it */
		"cgroup=/a wait>=10ms",		/* 1: further below */
		"cgroup=/a/b/c wait>=10ms",	/* 2: itself */
		"cgroup=/a/bc wait>=10ms",	/* 3: a sibling whose name starts the same: no */
		"cgroup=/a/b/c/d wait>=10ms",	/* 4: below the waiter: no */
		"cgroup=/ wait>=10ms",		/* 5: the root: every known cgroup */
		"cgroup=/a/* wait>=10ms",	/* 6: /a/b matches */
		"cgroup=/*/b wait>=10ms",	/* 7: /a/b matches */
		"cgroup=/a/b* wait>=10ms",	/* 8: /a/b matches */
		"cgroup=/a/c* wait>=10ms",	/* 9: no */
		"cgroup=/a/b/c/* wait>=10ms",	/* 10: the waiter is not below /a/b/c: no */
		"cgroup=/*/*/c wait>=10ms",	/* 11: itself */
		"cgroup=/a/b/ comm=victim wait>=10ms",	/* 12: with other selectors */
		"cgroup=/x/b pid=10 wait>=10ms",	/* 13: no */
		NULL,
	};
	struct slo *slo = make(lines);
	static const size_t want[] = { 0, 1, 2, 5, 6, 7, 8, 11, 12 };
	struct ls_stall st = stall(100, 20);
	char path[] = "/a/b/c";
	size_t i;

	st.waiter_cgroup_id = 77;
	st.waiter_cgroup = path;
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		cr_assert_eq(fired.rule[i], want[i], "fired %zu: rule %zu", i, fired.rule[i]);
	slo__free(slo);
}

/* The sibling /a/bc is not below /a/b, and an unknown cgroup (id 0, or no path) matches nothing. */
Test(slo, cgroup_sibling_and_unknown)
{
	const char *const lines[] = { "cgroup=/a/b wait>=10ms", "cgroup=/ wait>=10ms",
				      "cgroup=/* wait>=10ms", NULL };
	struct slo *slo = make(lines);
	struct ls_stall st = stall(100, 20);
	char sibling[] = "/a/bc", root[] = "/";
	struct ls_holder h;

	st.waiter_cgroup_id = 78;
	st.waiter_cgroup = sibling;
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 2);
	cr_assert_eq(fired.rule[0], 1);
	cr_assert_eq(fired.rule[1], 2);

	/* the root itself: "/" matches, a glob of one component does not */
	memset(&fired, 0, sizeof(fired));
	st = stall(20000, 20);
	st.waiter_cgroup_id = 1;
	st.waiter_cgroup = root;
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 1);
	cr_assert_eq(fired.rule[0], 1);

	/* unknown: nothing, whatever the holder's cgroup */
	memset(&fired, 0, sizeof(fired));
	st = stall(40000, 20);
	h = *st.holders;
	h.cgroup_id = 79;
	h.cgroup = "/a/b";
	st.holders = &h;
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 0, "a stall of an unknown cgroup matched");
	slo__free(slo);
}

/*
 * holder_cgroup= selects by the holders' cgroups: any holder below the
 * path matches, the waiter's cgroup does not count, and a holder whose
 * cgroup is unknown matches nothing.
 */
Test(slo, holder_cgroup_selects_by_any_holder)
{
	const char *const lines[] = { "holder_cgroup=/batch wait>=10ms",	/* 0 */
				      "holder_cgroup=/db wait>=10ms",	/* 1: the waiter's, not a holder's */
				      "cgroup=/db holder_cgroup=/batch/* wait>=10ms",	/* 2 */
				      NULL };
	struct slo *slo = make(lines);
	struct ls_stall st = stall(100, 20);
	struct ls_holder h[2];

	h[0] = *st.holders;
	h[1] = *st.holders;
	h[0].cgroup_id = 80;
	h[0].cgroup = "/system.slice/a.service";
	h[1].cgroup_id = 81;
	h[1].cgroup = "/batch/job7";
	st.holders = h;
	st.n_holders = 2;
	st.waiter_cgroup_id = 82;
	st.waiter_cgroup = "/db";
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 2);
	cr_assert_eq(fired.rule[0], 0);
	cr_assert_eq(fired.rule[1], 2);

	memset(&fired, 0, sizeof(fired));
	st = stall(20000, 20);
	h[0].cgroup = NULL;	/* not known */
	h[0].cgroup_id = 0;
	st.holders = h;
	st.n_holders = 1;
	st.waiter_cgroup = "/batch";
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 0, "an unknown holder cgroup, or the waiter's, matched");
	slo__free(slo);
}

/*
 * holder_comm= matches any holder, any hop of the chain past the waiter
 * (a hop through a wait that ended: the reader behind the mutex's
 * holder), and the holders of locks a holder waited on; never the waiter,
 * never a task only the TID of which is known.
 */
Test(slo, holder_comm_matches_any_hop)
{
	const char *const lines[] = { "holder_comm=reader wait>=10ms",	/* 0: the holder */
				      "holder_comm=hog wait>=10ms",	/* 1: a hop */
				      "holder_comm=agent wait>=10ms",	/* 2: a hop through a wait */
				      "holder_comm=victim wait>=10ms",	/* 3: the waiter: no */
				      "holder_comm=nobody wait>=10ms",	/* 4: no */
				      "holder_comm=*kswap* wait>=10ms",	/* 5: a lock a holder waited on */
				      NULL };
	struct slo *slo = make(lines);
	struct ls_stall st = stall(100, 20);

	st.chain[3] = st.chain[2];
	st.chain[2] = (struct ls_hop){ .task = task(41, 40, LS_POLICY_IDLE, "agent"),
				       .role = LS_ROLE_HOLDER, .has_lock = true, .stall_seq = 7 };
	st.n_chain = 4;
	holder_buf.n_waited = 1;
	holder_buf.waited[0].holder = task(51, 50, LS_POLICY_NORMAL, "kswapd0");
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 4);
	cr_assert_eq(fired.rule[0], 0);
	cr_assert_eq(fired.rule[1], 1);
	cr_assert_eq(fired.rule[2], 2);
	cr_assert_eq(fired.rule[3], 5);

	memset(&fired, 0, sizeof(fired));
	st = stall(20000, 20);
	holder_buf.task = (struct ls_task){ .tid = 21 };	/* known by its TID only */
	st.chain[1].task = holder_buf.task;
	st.n_chain = 2;
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 0, "a task without a name matched");
	slo__free(slo);
}

/* A violation carries copies of its stalls' paths: the resolver's may be gone by then. */
Test(slo, cgroup_paths_copied)
{
	const char *const lines[] = { "cgroup=/db stalled>=30ms/1s", NULL };
	struct slo *slo = make(lines);
	char wpath[] = "/db/worker", hpath[] = "/backup.slice";
	struct ls_stall st = stall(100, 20);
	json_error_t jerr;
	json_t *j, *x;

	st.waiter_cgroup_id = 4242;
	st.waiter_cgroup = wpath;
	holder_buf.cgroup_id = 4343;
	holder_buf.cgroup = hpath;
	feed(slo, st);
	memset(wpath, 'X', sizeof(wpath) - 1);
	memset(hpath, 'Y', sizeof(hpath) - 1);
	cr_assert_eq(fired.n, 0);
	strcpy(wpath, "/db/worker");
	st = stall(200, 20);
	st.waiter_cgroup_id = 4242;
	st.waiter_cgroup = wpath;
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 1);
	j = json_loads(fired.json, 0, &jerr);
	cr_assert_not_null(j, "not JSON (%s): %s", jerr.text, fired.json);
	x = json_object_get(j, "victim");
	cr_assert_str_eq(json_string_value(json_object_get(x, "cgroup")), "/db/worker");
	cr_assert_eq(json_integer_value(json_object_get(x, "cgroup_id")), 4242);
	/* the older stall, from its own copy */
	x = json_array_get(json_object_get(j, "stalls"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(x, "waiter"), "cgroup")),
			 "/db/worker", "%s", fired.json);
	x = json_array_get(json_object_get(x, "holders"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(x, "cgroup")), "/backup.slice");
	cr_assert_eq(json_integer_value(json_object_get(x, "cgroup_id")), 4343);
	/* the latest stall's holder: no cgroup known */
	x = json_array_get(json_object_get(json_array_get(json_object_get(j, "stalls"), 0),
					   "holders"), 0);
	cr_assert(json_is_null(json_object_get(x, "cgroup")), "%s", fired.json);
	cr_assert_eq(json_integer_value(json_object_get(x, "cgroup_id")), 0);
	json_decref(j);
	slo__free(slo);
}

Test(slo, wait_rate_limit)
{
	const char *const lines[] = { "wait>=10ms every=1s", NULL };
	struct slo *slo = make(lines);
	struct slo_stats stats;
	int i;

	/* a stall every 100 ms for 2.5 s: fires at 0, 1.0 and 2.0 s */
	for (i = 0; i <= 25; i++)
		feed(slo, stall((__u64)i * 100, 20));
	cr_assert_eq(fired.n, 3);
	cr_assert_eq(fired.at[0], MSEC(1000));
	cr_assert_eq(fired.suppressed[0], 0);
	cr_assert_eq(fired.at[1], MSEC(2000));
	cr_assert_eq(fired.suppressed[1], 9);
	cr_assert_eq(fired.at[2], MSEC(3000));
	cr_assert_eq(fired.suppressed[2], 9);
	slo__stats(slo, &stats);
	cr_assert_eq(stats.violations, 3);
	cr_assert_eq(stats.suppressed, 23);
	slo__free(slo);
}

Test(slo, stalled_window)
{
	const char *const lines[] = { "stalled>=100ms/1s every=1ms", NULL };
	struct slo *slo = make(lines);

	feed(slo, stall(0, 40));
	feed(slo, stall(500, 40));
	cr_assert_eq(fired.n, 0, "80 ms in the window");
	feed(slo, stall(900, 40));
	cr_assert_eq(fired.n, 1);
	cr_assert_eq(fired.value[0], MSEC(120));
	cr_assert_eq(fired.window_stalls[0], 3);
	cr_assert_eq(fired.n_stalls[0], 3, "the violation carries the window's stalls");
	/* at 1.0 s the stall that ended at 0 leaves: the window is (now - 1s, now] */
	feed(slo, stall(1000, 10));
	cr_assert_eq(fired.n, 1, "40 + 40 + 10 ms left in the window");
	feed(slo, stall(1400, 20));
	cr_assert_eq(fired.n, 2);
	cr_assert_eq(fired.value[1], MSEC(110));
	cr_assert_eq(fired.window_stalls[1], 4);
	/* long after: all gone */
	feed(slo, stall(5000, 50));
	cr_assert_eq(fired.n, 2);
	slo__free(slo);
}

/* The default rate limit of a stalled rule is its window: PSI triggers fire once per window. */
Test(slo, stalled_rate_limit_is_the_window)
{
	const char *const lines[] = { "stalled>=10ms/1s", NULL };
	struct slo *slo = make(lines);
	int i;

	for (i = 0; i < 20; i++)
		feed(slo, stall((__u64)i * 100, 20));
	cr_assert_eq(fired.n, 2);
	cr_assert_eq(fired.at[1] - fired.at[0], MSEC(1000));
	cr_assert_eq(fired.suppressed[1], 9);
	slo__free(slo);
}

/* Stalls arrive a little out of order (per-CPU buffers): time never goes back. */
Test(slo, out_of_order)
{
	const char *const lines[] = { "stalled>=50ms/1s every=1ms", NULL };
	struct slo *slo = make(lines);

	feed(slo, stall(2000, 30));
	feed(slo, stall(500, 30));	/* ended before the window: nothing */
	cr_assert_eq(fired.n, 0);
	feed(slo, stall(1990, 30));	/* late but inside */
	cr_assert_eq(fired.n, 1);
	cr_assert_eq(fired.value[0], MSEC(60));
	cr_assert_eq(fired.at[0], MSEC(3000));
	slo__free(slo);
}

Test(slo, set_rules_starts_afresh)
{
	const char *const lines[] = { "wait>=10ms every=60m", NULL };
	struct slo_rules rules = { 0 };
	char err[SLO_ERR_LEN];
	struct slo *slo = make(lines);

	feed(slo, stall(0, 20));
	feed(slo, stall(100, 20));
	cr_assert_eq(fired.n, 1);
	cr_assert_eq(slo_rules__parse_line(&rules, "comm=nobody wait>=1ms", 21, "t", err,
					   sizeof(err)), 0);
	cr_assert_eq(slo_rules__parse_line(&rules, "wait>=10ms every=60m", 20, "t", err,
					   sizeof(err)), 0);
	slo__set_rules(slo, &rules);
	cr_assert_eq(slo__n_rules(slo), 2);
	feed(slo, stall(200, 20));
	cr_assert_eq(fired.n, 2, "a new rule has no rate limit behind it");
	cr_assert_eq(fired.rule[1], 1);
	slo__free(slo);
}

Test(slo, violation_json)
{
	const char *const lines[] = { "comm=victim stalled>=30ms/1s", NULL };
	struct slo *slo = make(lines);
	struct ls_stall st;
	json_error_t jerr;
	json_t *j, *x;

	feed(slo, stall(100, 20));
	st = stall(200, 20);
	st.chain[2].task.comm[0] = '"';	/* a preemptor named to break JSON */
	st.chain[2].task.comm[1] = '\n';
	cr_assert_eq(slo__on_stall(slo, &st), 0);
	cr_assert_eq(fired.n, 1);
	j = json_loads(fired.json, 0, &jerr);
	cr_assert_not_null(j, "not JSON (%s): %s", jerr.text, fired.json);
	cr_assert_str_eq(json_string_value(json_object_get(j, "type")), "violation");
	cr_assert_str_eq(json_string_value(json_object_get(j, "rule")), "comm=victim stalled>=30ms/1s");
	cr_assert_eq(json_integer_value(json_object_get(j, "rule_index")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(j, "kind")), "stalled");
	cr_assert_eq(json_integer_value(json_object_get(j, "value_ns")), MSEC(40));
	cr_assert_eq(json_integer_value(json_object_get(j, "limit_ns")), MSEC(30));
	cr_assert_eq(json_integer_value(json_object_get(j, "window_ns")), MSEC(1000));
	cr_assert_eq(json_integer_value(json_object_get(j, "suppressed")), 0);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "victim"), "tid")), 11);
	x = json_object_get(j, "stalls");
	cr_assert_eq(json_array_size(x), 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(x, 0), "type")), "stall");
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(x, 0), "end_ns")), MSEC(1200),
		     "latest first");
	x = json_object_get(j, "culprits");
	/* holder, then the hog as the latest stall names it; the older stall's hog is the same tid: once */
	cr_assert_eq(json_array_size(x), 2, "%s", fired.json);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(x, 0), "tid")), 21);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(x, 0), "role")), "holder");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(x, 1), "comm")), "\"\ng");
	json_decref(j);
	slo__free(slo);
}

Test(slo, no_rules)
{
	const char *const lines[] = { NULL };
	struct slo *slo = make(lines);

	feed(slo, stall(100, 20));
	cr_assert_eq(fired.n, 0);
	cr_assert_eq(slo__n_rules(slo), 0);
	slo__free(slo);
}

/* A wait still going on, start_ms to now_ms, as a pending report shows it. */
static struct ls_stall pending(__u64 start_ms, __u64 now_ms, __u32 report)
{
	struct ls_stall st = stall(now_ms, now_ms - start_ms);

	st.seq = 0;
	st.pending = true;
	st.acquired = false;
	st.pending_reports = report;
	return st;
}

/* The stall that ends a wait seen pending: the same waiter and start. */
static struct ls_stall ended(__u64 start_ms, __u64 end_ms, __u32 reports)
{
	struct ls_stall st = stall(end_ms, end_ms - start_ms);

	st.pending_reports = reports;
	return st;
}

Test(slo, wait_rule_fires_on_a_pending_report_once)
{
	const char *const lines[] = { "wait>=1s every=1ms", NULL };
	struct slo *slo = make(lines);

	feed(slo, pending(0, 500, 1));
	cr_assert_eq(fired.n, 0, "not long enough yet");
	feed(slo, pending(0, 1100, 2));
	cr_assert_eq(fired.n, 1, "fires while the wait goes on");
	cr_assert_eq(fired.value[0], MSEC(1100));
	feed(slo, pending(0, 2100, 3));
	feed(slo, ended(0, 5000, 3));
	cr_assert_eq(fired.n, 1, "neither a later report nor the final stall is a second violation");
	/* another wait of the same waiter is a new one */
	feed(slo, ended(6000, 7500, 0));
	cr_assert_eq(fired.n, 2);
	slo__free(slo);
}

Test(slo, stalled_rule_counts_the_time_a_pending_wait_accrued)
{
	const char *const lines[] = { "stalled>=2s/10s every=1ms", NULL };
	struct slo *slo = make(lines);

	feed(slo, pending(0, 1000, 1));
	feed(slo, pending(0, 1900, 2));
	cr_assert_eq(fired.n, 0, "1.9s accrued");
	feed(slo, pending(0, 2100, 3));
	cr_assert_eq(fired.n, 1, "2.1s accrued, counted once each");
	cr_assert_eq(fired.value[0], MSEC(2100));
	feed(slo, ended(0, 2500, 3));
	cr_assert_eq(fired.n, 1, "the final stall adds the rest, and does not fire again");
	/* a new stall finds the whole of the first wait in the window: 2.5s + 0.1s */
	feed(slo, ended(2600, 2700, 0));
	cr_assert_eq(fired.n, 2);
	cr_assert_eq(fired.value[1], MSEC(2600));
	slo__free(slo);
}
