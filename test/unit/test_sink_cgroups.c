// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cgroups of holders and preemptors in every output: JSON
 * gives each its id and path; text, Markdown and HTML print a holder's
 * where it is not the waiter's and a preemptor's where it is not its
 * holder's, escaped for the format; a stall from a run that did not tell
 * them (ls_stall.task_cgroups false) prints as before.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include "sink_fixture.h"
#include "sinks/report.h"

#define CG_WAITER	"/db.service"
#define CG_READER	"/batch"
#define CG_OTHER	"/batch/a<b>&c"
#define CG_HOG		"/hog.slice"

static const struct report_meta meta = {
	.input = "x.lst",
	.host = "h",
	.kernel = "6.18",
	.version = "v",
	.cpus = 2,
	.threshold_ns = 10000000,
};

/*
 * victim (in CG_WAITER) waits on two holders: reader (CG_READER),
 * preempted by hog (CG_HOG) and by a thread of its own cgroup; and
 * reader-b (CG_OTHER), preempted by hog whose cgroup was not told.
 */
static void two_holders(struct ls_stall *st, struct ls_holder h[2], bool told)
{
	fx_holder_reader(&h[0]);
	h[0].cgroup_id = 11;
	h[0].cgroup = CG_READER;
	h[0].preempted_by[0].cgroup_id = 12;
	h[0].preempted_by[0].cgroup = CG_HOG;
	fx_task(&h[0].preempted_by[1].task, 2001, 2002, "reader-2", LS_POLICY_NORMAL, 0, 0);
	h[0].preempted_by[1].ns = 100000;
	h[0].preempted_by[1].cgroup_id = 11;
	h[0].preempted_by[1].cgroup = CG_READER;
	h[0].n_preempted_by = 2;
	fx_holder_reader(&h[1]);
	fx_task(&h[1].task, 2101, 2101, "reader-b", LS_POLICY_IDLE, 0, 0);
	h[1].offcpu_ns = 1000000;
	h[1].cgroup_id = 13;
	h[1].cgroup = CG_OTHER;
	h[1].preempted_by[0].cgroup_id = 0;
	fx_stall(st, h, 2);
	st->waiter_cgroup_id = 10;
	st->waiter_cgroup = CG_WAITER;
	st->task_cgroups = told;
}

typedef struct sink *(*sink_new_fn)(FILE *out, const struct sink_opts *opts);

static struct sink *md_new(FILE *out, const struct sink_opts *opts)
{
	return sink_markdown__new(out, opts, &meta);
}

static struct sink *html_new(FILE *out, const struct sink_opts *opts)
{
	return sink_html__new(out, opts, &meta);
}

/* The whole output of one stall and a summary through a fresh sink; the caller frees it. */
static char *output_of(sink_new_fn fn, bool told)
{
	struct sink_opts opts = { .top = 10, .t0_ns = FX_T0 };
	struct ls_summary sum = { .start_ns = FX_T0, .end_ns = FX_T0 + FX_MS(2000),
				  .duration_ns = FX_MS(2000), .stalls = 1 };
	struct ls_holder h[2];
	struct ls_stall st;
	struct fx_out o;
	struct sink *s;

	two_holders(&st, h, told);
	sum.stalls_by_verdict[st.verdict] = 1;
	fx_out_open(&o);
	s = fn(o.f, &opts);
	cr_assert_not_null(s);
	cr_assert_eq(sink__stall(s, &st), 0);
	cr_assert_eq(sink__summary(s, &sum), 0);
	sink__free(s);
	return (char *)fx_out_close(&o);
}

static void assert_has(const char *out, const char *want)
{
	cr_assert_not_null(strstr(out, want), "missing: %s\nin:\n%s", want, out);
}

static void assert_lacks(const char *out, const char *what)
{
	cr_assert_null(strstr(out, what), "unwanted: %s\nin:\n%s", what, out);
}

TestSuite(sink_cgroups, .timeout = 30);

Test(sink_cgroups, text_where_they_differ)
{
	char *out = output_of(sink_text__new, true);

	/* the first holder's on the stall's line, as before */
	assert_has(out, "\n  cgroup   " CG_WAITER " (waiter)  " CG_READER " (holder)\n");
	assert_has(out, " 22.9ms  cgroup " CG_HOG "\n");
	/* a preemptor in its holder's cgroup, one whose cgroup is unknown: nothing */
	assert_has(out, "preempted by reader-2[2001/2002] SCHED_NORMAL nice 0 100us\n");
	assert_has(out, "           cgroup   " CG_OTHER "\n");
	cr_assert_eq(strstr(out, CG_HOG), strstr(out, " 22.9ms  cgroup " CG_HOG) + 16, "only once");
	cr_assert_null(strstr(strstr(out, CG_HOG) + 1, CG_HOG), "%s", out);
	free(out);
}

Test(sink_cgroups, markdown_and_html_escape_them)
{
	char *md = output_of(md_new, true), *html = output_of(html_new, true);

	assert_has(md, " (cgroup /db.service)\n");
	assert_has(md, "for 22.9ms (cgroup /hog.slice)\n");
	assert_has(md, " (cgroup /batch/a&lt;b&gt;&amp;c)\n");
	assert_has(md, "(98%): preempted (cgroup /batch)\n");
	assert_has(html, "22.9ms (cgroup <code>/hog.slice</code>)");
	assert_has(html, " (cgroup <code>/batch/a&lt;b&gt;&amp;c</code>)");
	assert_lacks(html, "a<b>");
	free(md);
	free(html);
}

/* An index, not the function: Criterion may run a test in a process of its own (ASLR). */
ParameterizedTestParameters(sink_cgroups, untold_prints_as_before)
{
	static int which[] = { 0, 1, 2 };

	return cr_make_param_array(int, which, sizeof(which) / sizeof(which[0]));
}

/* A recording whose kernel side did not tell them: no new line, no new words. */
ParameterizedTest(int *which, sink_cgroups, untold_prints_as_before)
{
	static const sink_new_fn fns[] = { sink_text__new, md_new, html_new };
	char *out = output_of(fns[*which], false);

	assert_lacks(out, CG_HOG);
	assert_lacks(out, "a&lt;b");
	assert_lacks(out, "(cgroup");
	free(out);
}

/* JSON: every preemptor's id and path (null: unknown), and every holder's. */
Test(sink_cgroups, json_every_one)
{
	char *out = output_of(sink_json__new, true);
	json_t *root, *holders, *pre;
	json_error_t jerr;

	root = json_loadb(out, strcspn(out, "\n"), 0, &jerr);
	cr_assert_not_null(root, "%s: %s", jerr.text, out);
	holders = json_object_get(root, "holders");
	cr_assert_eq(json_array_size(holders), 2);
	pre = json_object_get(json_array_get(holders, 0), "preempted_by");
	cr_assert_eq(json_array_size(pre), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(pre, 0), "cgroup_id")), 12);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(pre, 0), "cgroup")),
			 CG_HOG);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(pre, 1), "cgroup")),
			 CG_READER);
	pre = json_object_get(json_array_get(holders, 1), "preempted_by");
	cr_assert(json_is_null(json_object_get(json_array_get(pre, 0), "cgroup")));
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(pre, 0), "cgroup_id")), 0);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(holders, 1), "cgroup")),
			 CG_OTHER);
	json_decref(root);
	free(out);

	/* untold: the preemptors' entries as they were */
	out = output_of(sink_json__new, false);
	root = json_loadb(out, strcspn(out, "\n"), 0, &jerr);
	cr_assert_not_null(root);
	pre = json_object_get(json_array_get(json_object_get(root, "holders"), 0), "preempted_by");
	cr_assert_null(json_object_get(json_array_get(pre, 0), "cgroup_id"));
	json_decref(root);
	free(out);
}
