// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall report --slo/--rules over the golden recording: the same rules,
 * the same violations as watch would print, after their stalls, judged only
 * within --from/--to; the JSON lines parse; the text summary counts them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include "cli/cli.h"
#include "commands.h"
#include "lib/trace_fixture.h"
#include "util.h"

struct run {
	int rc;
	char *out, *err;
	size_t out_len, err_len;
};

/* lockstall report FILE args... (a NULL-terminated list: rules have blanks) */
static void run_file(struct run *r, const char *file, const char *const args[])
{
	char path[512], *argv[32] = { "lockstall", "report", path };
	struct ls_config cfg;
	FILE *out, *err;
	int argc = 3;

	snprintf(path, sizeof(path), "%s/%s", trace_fixture__data_dir(), file);
	while (*args && argc < 31)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	memset(r, 0, sizeof(*r));
	out = open_memstream(&r->out, &r->out_len);
	err = open_memstream(&r->err, &r->err_len);
	r->rc = cli__parse(argc, argv, &cfg, err);
	if (!r->rc)
		r->rc = cmd_report(&cfg, out, err);
	fclose(out);
	fclose(err);
}

static void run(struct run *r, const char *const args[])
{
	run_file(r, "golden.lst", args);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

Test(report_slo, json)
{
	const char *const args[] = { "--format", "json", "--slo", "wait>=10ms every=1ns",
				     "--slo", "verdict=contention wait>=1ms", NULL };
	struct run r;
	char *copy, *save = NULL, *line;
	json_t *last = NULL, *prev = NULL;
	size_t violations = 0;

	run(&r, args);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	copy = strdup(r.out);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t jerr;
		json_t *j = json_loads(line, 0, &jerr);

		cr_assert_not_null(j, "not JSON (%s): %.200s", jerr.text, line);
		if (!strcmp(json_string_value(json_object_get(j, "type")), "violation")) {
			violations++;
			/* right after its stall (or another violation of that stall) */
			cr_assert_not_null(prev);
			cr_assert(!strcmp(json_string_value(json_object_get(prev, "type")), "stall") ||
				  !strcmp(json_string_value(json_object_get(prev, "type")), "violation"),
				  "a violation after %s", json_string_value(json_object_get(prev, "type")));
		}
		json_decref(prev);
		prev = json_incref(j);
		json_decref(last);
		last = j;
	}
	free(copy);
	cr_assert_gt(violations, 0);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(last, "slo"), "violations")),
		     (json_int_t)violations);
	json_decref(prev);
	json_decref(last);
	free(r.out);
	free(r.err);
}

Test(report_slo, window_limits_the_rules)
{
	const char *const all[] = { "--slo", "wait>=10ms every=1ns", NULL };
	const char *const some[] = { "--slo", "wait>=10ms every=1ns", "--from", "300ms", "--to",
				     "400ms", NULL };
	struct run a, b;

	run(&a, all);
	run(&b, some);
	cr_assert_eq(a.rc, 0, "%s", a.err);
	cr_assert_eq(b.rc, 0, "%s", b.err);
	cr_assert_eq(count(a.out, "VIOLATION rule 1"), count(a.out, " STALL #"));
	cr_assert_eq(count(b.out, "VIOLATION rule 1"), count(b.out, " STALL #"));
	cr_assert_lt(count(b.out, "VIOLATION"), count(a.out, "VIOLATION"));
	cr_assert(strstr(b.out, "  slo      "), "no slo line in the summary: %s", b.out);
	free(a.out);
	free(a.err);
	free(b.out);
	free(b.err);
}

Test(report_slo, refused)
{
	const char *const bad[] = { "--slo", "wait>=10", NULL };
	const char *const html[] = { "--slo", "wait>=10ms", "--format", "html", NULL };
	struct run r;

	run(&r, bad);
	cr_assert_eq(r.rc, 2);
	cr_assert(strstr(r.err, "--slo: rule 'wait>=10', column 7: invalid duration"), "%s", r.err);
	cr_assert_eq(r.out_len, 0);
	free(r.out);
	free(r.err);
	run(&r, html);
	cr_assert_eq(r.rc, 2);
	cr_assert(strstr(r.err, "--slo goes with --format text or json"), "%s", r.err);
	free(r.out);
	free(r.err);
}

/*
 * cgroup= over a recording: the paths the live run resolved, kept in its
 * metadata; the waiter's cgroup decides, not the holder's.  Not checked
 * against this host's cgroups: the recording's may be anywhere.
 */
Test(report_slo, cgroup_rules)
{
	static const struct {
		const char *rule;
		size_t fired;	/* of the golden run's 3 stalls, all the victim's */
	} cases[] = {
		{ "cgroup=/system.slice wait>=10ms every=1ns", 3 },
		{ "cgroup=/system.slice/*.service wait>=10ms every=1ns", 3 },
		{ "cgroup=/user.slice wait>=10ms every=1ns", 0 },		/* the holders' */
		{ "cgroup=/system.slice/victim wait>=10ms every=1ns", 0 },	/* a name's prefix */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *const args[] = { "--slo", cases[i].rule, NULL };
		struct run r;

		run(&r, args);
		cr_assert_eq(r.rc, 0, "%s", r.err);
		cr_assert_eq(count(r.out, "VIOLATION"), cases[i].fired, "'%s': %s", cases[i].rule,
			     r.out);
		cr_assert_null(strstr(r.err, "names no cgroup"), "%s", r.err);
		free(r.out);
		free(r.err);
	}
}

/* A recording older than cgroup ids: the rule matches nothing, and lockstall says why. */
Test(report_slo, cgroup_rules_over_an_old_recording)
{
	const char *const args[] = { "--slo", "cgroup=/system.slice wait>=10ms", NULL };
	struct run r;

	run_file(&r, "golden-abi2.lst", args);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert_eq(count(r.out, "VIOLATION"), 0, "%s", r.out);
	cr_assert(strstr(r.err, "golden-abi2.lst: the recording names no cgroup (an older lockstall's, or made without cgroup v2): rule 'cgroup=/system.slice wait>=10ms' matches no stall"),
		  "%s", r.err);
	free(r.out);
	free(r.err);
}
