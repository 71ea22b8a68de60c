// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/top/screen.c and src/top/ui.c: the screen fits the terminal whatever
 * its size, stalls in progress come first, no byte of a traced process's
 * name reaches the terminal raw; each key does what the help says.
 */
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "sink_fixture.h"
#include "top/screen.h"
#include "top/ui.h"

#define NOW (FX_T0 + 42 * NSEC_PER_SEC)

struct fx_screen {
	struct top_model *m;
	struct top_view v;
	struct top_line lines[256];
};

/* Two ended stalls (victim, reader, hog of the fixture) and one in progress. */
static void fx_screen__init(struct fx_screen *s, const char *victim_comm)
{
	struct top_query q = { .now_ns = NOW, .interval_ns = NSEC_PER_SEC };
	struct ls_holder h;
	struct ls_stall st;

	s->m = top_model__new(0);
	cr_assert_not_null(s->m);
	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	fx_comm(st.waiter.comm, victim_comm);
	st.end_ns = NOW - NSEC_PER_SEC / 2;
	top_model__stall(s->m, &st);
	st.end_ns = NOW - 5 * NSEC_PER_SEC;
	top_model__stall(s->m, &st);
	st.start_ns = NOW - 8 * NSEC_PER_SEC;
	st.end_ns = NOW;
	top_model__pending(s->m, &st);
	cr_assert_eq(top_model__query(s->m, &q, &s->v), 0);
}

static void fx_screen__fini(struct fx_screen *s)
{
	top_view__release(&s->v);
	top_model__free(s->m);
}

static size_t fx_render(struct fx_screen *s, unsigned int cols, unsigned int rows, bool batch)
{
	struct top_screen_in in = {
		.view = &s->v, .t0_ns = FX_T0, .interval_ns = NSEC_PER_SEC,
		.threshold_ns = FX_MS(10), .lost = 3, .batch = batch,
	};

	return top_screen__render(&in, cols, rows, s->lines,
				  sizeof(s->lines) / sizeof(s->lines[0]));
}

/* The first line holding text, or -1. */
static int line_of(const struct fx_screen *s, size_t n, const char *text)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strstr(s->lines[i].text, text))
			return (int)i;
	return -1;
}

struct size_case {
	unsigned int cols, rows;
	bool all_sections;	/* room for every section's rows */
};

ParameterizedTestParameters(top_screen, fits)
{
	static struct size_case cases[] = {
		{ 80, 24, true }, { 100, 30, true }, { 120, 40, true }, { 250, 60, true },
		{ 80, 12, false }, { 40, 10, false }, { 20, 4, false }, { 80, 2, false },
	};

	return cr_make_param_array(struct size_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct size_case *c, top_screen, fits)
{
	struct fx_screen s;
	size_t n, i;
	int pend, vic, cul;

	fx_screen__init(&s, "victim");
	n = fx_render(&s, c->cols, c->rows, false);
	cr_assert_eq(n, c->rows, "%ux%u: every row drawn, no more", c->cols, c->rows);
	for (i = 0; i < n; i++)
		cr_expect_leq(strlen(s.lines[i].text), c->cols, "%ux%u line %zu: %s", c->cols,
			      c->rows, i, s.lines[i].text);
	cr_expect_eq(s.lines[n - 1].kind, TOP_LINE_FOOTER, "the keys on the last line");
	if (!c->all_sections)
		goto out;
	pend = line_of(&s, n, "victim[1234/1240]");
	vic = line_of(&s, n, "WORST VICTIMS");
	cul = line_of(&s, n, "TOP CULPRITS");
	cr_expect(pend >= 0 && vic > pend && cul > vic, "in progress, victims, culprits: %d %d %d",
		  pend, vic, cul);
	cr_expect_geq(line_of(&s, n, "reader[2001]"), 0);
	cr_expect_geq(line_of(&s, n, "hog[3001]"), 0);
	cr_expect(pend >= 0 && strstr(s.lines[pend].text, " 8s "),
		  "the wait in progress is 8 s old");
out:
	fx_screen__fini(&s);
}

/* The LOCK column names the kind of lock: a futex or a kernel lock is no mmap_lock. */
Test(top_screen, lock_kind_shown)
{
	struct top_query q = { .now_ns = NOW, .interval_ns = NSEC_PER_SEC };
	struct fx_screen s = { 0 };
	struct ls_holder h;
	struct ls_stall st;
	size_t n;
	int pend, vic;

	s.m = top_model__new(0);
	cr_assert_not_null(s.m);
	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	st.lock.kind = LS_LOCK_FUTEX;
	st.end_ns = NOW - NSEC_PER_SEC / 2;
	top_model__stall(s.m, &st);
	st.lock.kind = LS_LOCK_RWSEM;
	st.lock.tgid = 0;
	st.start_ns = NOW - 8 * NSEC_PER_SEC;
	st.end_ns = NOW;
	top_model__pending(s.m, &st);
	cr_assert_eq(top_model__query(s.m, &q, &s.v), 0);
	n = fx_render(&s, 100, 30, false);
	pend = line_of(&s, n, "victim[1234/1240]");
	vic = line_of(&s, n, "futex 1234");
	cr_assert(pend >= 0 && strstr(s.lines[pend].text, "rwsem"), "the kernel lock in progress");
	cr_expect_null(strstr(s.lines[pend].text, "mmap"), "%s", s.lines[pend].text);
	cr_assert(vic > pend, "the victim's futex under WORST VICTIMS: %d %d", pend, vic);
	cr_expect_lt(line_of(&s, n, "mmap"), 0, "no mmap_lock in this run");
	fx_screen__fini(&s);
}

/*
 * A wait in a deadlock says so, even when a task of the cycle ran on its
 * holder's CPU for a moment: the cycle is why, not what ran meanwhile.
 */
Test(top_screen, deadlock_is_the_why)
{
	struct top_query q = { .now_ns = NOW, .interval_ns = NSEC_PER_SEC };
	struct fx_screen s = { 0 };
	struct ls_holder h;
	struct ls_stall st;
	size_t n;
	int pend;

	s.m = top_model__new(0);
	cr_assert_not_null(s.m);
	fx_holder_reader(&h);
	cr_assert_gt(h.n_preempted_by, 0);
	fx_stall(&st, &h, 1);
	st.lock.kind = LS_LOCK_FUTEX;
	st.verdict = LS_VERDICT_DEADLOCK;
	st.start_ns = NOW - 8 * NSEC_PER_SEC;
	st.end_ns = NOW;
	top_model__pending(s.m, &st);
	cr_assert_eq(top_model__query(s.m, &q, &s.v), 0);
	n = fx_render(&s, 120, 30, false);
	pend = line_of(&s, n, "victim[1234/1240]");
	cr_assert_geq(pend, 0);
	cr_assert(strstr(s.lines[pend].text, "deadlock"), "%s", s.lines[pend].text);
	cr_assert_null(strstr(s.lines[pend].text, "by "), "%s", s.lines[pend].text);
	fx_screen__fini(&s);
}

/* A comm with ESC, newline and a non-ASCII byte is shown escaped, never raw. */
Test(top_screen, hostile_comm_escaped)
{
	struct fx_screen s;
	size_t n, i;
	const char *p;

	fx_screen__init(&s, FX_HOSTILE_COMM);
	n = fx_render(&s, 200, 50, false);
	cr_expect_geq(line_of(&s, n, "\\x0a\\x1b[2J<script>\\xff"), 0);
	for (i = 0; i < n; i++)
		for (p = s.lines[i].text; *p; p++)
			cr_assert(*p >= 0x20 && *p <= 0x7e, "line %zu byte %#x", i,
				  (unsigned char)*p);
	fx_screen__fini(&s);
}

/* A holder that exec'd inside the wait: the stall in progress and its row say both names. */
Test(top_screen, renamed_holder_says_both_names)
{
	struct top_query q = { .now_ns = NOW, .interval_ns = NSEC_PER_SEC };
	struct fx_screen s;
	struct ls_rename r;
	struct ls_holder h;
	struct ls_stall st;
	size_t n, i, hits = 0;

	s.m = top_model__new(0);
	cr_assert_not_null(s.m);
	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	fx_rename(&r, 2001, "reader", "\x1b" "bash", true);
	st.renames = &r;
	st.n_renames = 1;
	st.end_ns = NOW - NSEC_PER_SEC / 2;
	top_model__stall(s.m, &st);
	st.start_ns = NOW - 8 * NSEC_PER_SEC;
	st.end_ns = NOW;
	top_model__pending(s.m, &st);
	cr_assert_eq(top_model__query(s.m, &q, &s.v), 0);
	n = fx_render(&s, 200, 50, false);
	for (i = 0; i < n; i++)
		hits += strstr(s.lines[i].text, "reader[2001] (was \\x1bbash)") != NULL;
	cr_expect_eq(hits, 2, "the stall in progress and the culprits' row");
	fx_screen__fini(&s);
}

/* Batch: every row, no footer, wide columns. */
Test(top_screen, batch)
{
	struct fx_screen s;
	size_t n;

	fx_screen__init(&s, "victim");
	n = fx_render(&s, 0, 0, true);
	cr_expect_eq(line_of(&s, n, "q quit"), -1, "no keys in batch mode");
	cr_expect_neq(s.lines[n - 1].kind, TOP_LINE_FOOTER);
	cr_expect_geq(line_of(&s, n, "lost events 3"), 0);
	cr_expect_geq(line_of(&s, n, "fifo 50"), 0, "the victim's class in wide columns");
	cr_expect_geq(line_of(&s, n, "preempted, idle"), 0, "the holder's state and class");
	cr_expect_geq(line_of(&s, n, "stalls 1 last 1s, 2 since start"), 0, "%s",
		      s.lines[1].text);
	fx_screen__fini(&s);
}

/* Keys, as characters; '\n' Enter, '\b' Backspace, '\e' Escape. */
struct key_case {
	char keys[24];
	int last;		/* the last key's result */
	bool paused, help;
	enum top_sort sort;
	__u32 pid;
	char comm[16];
	char cgroup[16];
	char footer[48];	/* a part of it; "" the keys */
};

ParameterizedTestParameters(top_ui, keys)
{
	static struct key_case cases[] = {
		{ "q", TOP_UI_QUIT, false, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "p", TOP_UI_REDRAW, true, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ " ", TOP_UI_REDRAW, true, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "pp", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "s", TOP_UI_REDRAW, false, false, TOP_SORT_TOTAL, 0, "", "", "" },
		{ "sss", TOP_UI_REDRAW, false, false, TOP_SORT_MAX, 0, "", "", "" },
		{ "ssss", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "x", TOP_UI_NOTHING, false, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "h", TOP_UI_REDRAW, false, true, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "?x", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "hq", TOP_UI_QUIT, false, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		/* the prompt: q and p are letters there */
		{ "f", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "",
		  "filter by process" },
		{ "fqp", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "", "): qp_" },
		{ "f123\n", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 123, "", "", "" },
		{ "fwl-v\n", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "wl-v", "", "" },
		{ "fdbx\b\n", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "db", "", "" },
		{ "f\b", TOP_UI_NOTHING, false, false, TOP_SORT_INTERVAL, 0, "", "", "): _" },
		{ "f12x\n", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "",
		  "not a process ID: 12x" },
		{ "f12\nf\n", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "f12\nfab\e", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 12, "", "", "" },
		/* control bytes never reach the prompt's text */
		{ "f\x01\x02" "ab\x7f", TOP_UI_NOTHING, false, false, TOP_SORT_INTERVAL, 0, "", "",
		  "): ab_" },
		{ "c/a/\n", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "/a", "" },
		{ "cabc\n", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "", "",
		  "not a cgroup path" },
		{ "cabc\nx", TOP_UI_NOTHING, false, false, TOP_SORT_INTERVAL, 0, "", "", "" },
		{ "c/a\nfdb\n", TOP_UI_REDRAW, false, false, TOP_SORT_INTERVAL, 0, "db", "/a", "" },
	};

	return cr_make_param_array(struct key_case, cases, sizeof(cases) / sizeof(cases[0]));
}

static int key_code(char c)
{
	switch (c) {
	case '\n':
		return TOP_KEY_ENTER;
	case '\b':
		return TOP_KEY_BACKSPACE;
	case '\e':
		return TOP_KEY_ESCAPE;
	}
	return (unsigned char)c;
}

ParameterizedTest(struct key_case *c, top_ui, keys)
{
	struct top_ui ui = { 0 };
	enum top_ui_result r = TOP_UI_NOTHING;
	char buf[160];
	const char *footer;
	size_t i;

	for (i = 0; c->keys[i]; i++)
		r = top_ui__key(&ui, key_code(c->keys[i]));
	cr_expect_eq(r, c->last, "'%s': result", c->keys);
	cr_expect_eq(ui.paused, c->paused, "'%s': paused", c->keys);
	cr_expect_eq(ui.help, c->help, "'%s': help", c->keys);
	cr_expect_eq(ui.sort, c->sort, "'%s': sort", c->keys);
	cr_expect_eq(ui.filter.pid, c->pid, "'%s': pid", c->keys);
	cr_expect_str_eq(ui.filter.comm, c->comm, "'%s': comm", c->keys);
	cr_expect_str_eq(ui.filter.cgroup, c->cgroup, "'%s': cgroup", c->keys);
	footer = top_ui__footer(&ui, buf, sizeof(buf));
	if (!c->footer[0])
		cr_expect_null(footer, "'%s': the keys in the footer, not %s", c->keys, footer);
	else
		cr_expect(footer && strstr(footer, c->footer), "'%s': footer %s", c->keys,
			  footer ? footer : "(keys)");
}
