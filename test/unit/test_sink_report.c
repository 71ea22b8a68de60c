// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The report sinks (Markdown, HTML, Perfetto): hostile names from the
 * traced system stay text, and the Perfetto trace is well formed (every
 * slice has a duration, slices on a track nest, every flow starts and ends
 * inside a slice) for hand-built stalls, for an engine run and for the
 * golden recording's report.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include "sink_fixture.h"
#include "sinks/report.h"
#include "lib/engine_fixture.h"
#include "lib/trace_fixture.h"

/* 16 bytes each, no NUL: the kernel's comm at its longest. */
#define HOSTILE_SCRIPT	"<script>alert(1)"
#define HOSTILE_QUOTES	"\"'&<i>\x01\x7f\xc3("

static const struct report_meta hostile_meta = {
	.input = "a<script>alert(2)</script>.lst",
	.host = "<script>alert(3)</script>",
	.kernel = "6.18\"><img src=x onerror=alert(4)>",
	.version = "x&y",
	.cpus = 2,
	.threshold_ns = 10000000,
	.has_clock = true,
	.realtime_minus_monotonic_ns = 1796280000000000000LL - (long long)FX_T0,
};

static struct ls_rename hostile_renames[1];

/* A stall whose every name is hostile, with two spells (one names who ran). */
static void hostile_stall(struct ls_stall *st, struct ls_holder *h, struct ls_spell *sp)
{
	fx_holder_reader(h);
	fx_comm(h->task.comm, HOSTILE_SCRIPT);
	fx_comm(h->preempted_by[0].task.comm, HOSTILE_QUOTES);
	memset(sp, 0, 2 * sizeof(*sp));
	sp[0].start_ns = FX_T0 + FX_MS(1234);
	sp[0].end_ns = sp[0].start_ns + FX_MS(20);
	sp[0].state = LS_STATE_PREEMPTED;
	sp[0].ran_instead = h->preempted_by[0].task;
	sp[1].start_ns = sp[0].end_ns + FX_MS(1);
	sp[1].end_ns = sp[1].start_ns + FX_MS(2);
	sp[1].state = LS_STATE_BLOCKED;
	h->spells = sp;
	h->n_spells = 2;
	h->hold_start_ns = FX_T0 + FX_MS(1230);
	h->hold_end_ns = FX_T0 + FX_MS(1260);
	h->held_ns = h->hold_end_ns - h->hold_start_ns;
	fx_stall(st, h, 1);
	fx_comm(st->waiter.comm, FX_HOSTILE_COMM);
	st->chain[0].task = st->waiter;
	/* the holder exec'd inside the wait: its old name is hostile too */
	fx_rename(&hostile_renames[0], 2001, HOSTILE_SCRIPT, "<u>old</u>\x1b", true);
	st->renames = hostile_renames;
	st->n_renames = 1;
}

static const char *run_sink(struct sink *s, struct fx_out *o)
{
	struct ls_holder h;
	struct ls_spell sp[2];
	struct ls_stall st;
	struct ls_hist_entry e;
	struct ls_hist_set set = { .v = &e, .n = 1, .alloc = 1 };
	struct ls_summary sum = { .start_ns = FX_T0, .end_ns = FX_T0 + FX_MS(2000),
				  .duration_ns = FX_MS(2000), .stalls = 1, .events = 10,
				  .hists = &set };

	cr_assert_not_null(s);
	hostile_stall(&st, &h, sp);
	fx_hist(&e, 2001, LS_HIST_WAIT, 1, HOSTILE_SCRIPT, FX_MS(50));
	sum.stalls_by_verdict[st.verdict] = 1;
	cr_assert_eq(sink__stall(s, &st), 0);
	cr_assert_eq(sink__summary(s, &sum), 0);
	sink__free(s);
	return fx_out_close(o);
}

/* Nothing but our own markup: no byte from the trace can open a tag or an entity. */
static void assert_no_raw_markup(const char *out)
{
	const unsigned char *p;

	cr_assert_null(strstr(out, "<script"), "%s", out);
	cr_assert_null(strstr(out, "<img"), "%s", out);
	cr_assert_null(strstr(out, "<i>"), "%s", out);
	cr_assert_null(strstr(out, "&y"), "%s", out);
	for (p = (const unsigned char *)out; *p; p++)
		cr_assert(*p >= 0x20 || *p == '\n', "control byte 0x%02x at %zu", *p,
			  (size_t)(p - (const unsigned char *)out));
}

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (text = strstr(text, needle); text; text = strstr(text + 1, needle))
		n++;
	return n;
}

TestSuite(sink_report, .timeout = 30);

Test(sink_report, html_escapes_hostile_names)
{
	struct sink_opts opts = { 0 };
	struct fx_out o;
	const char *out;

	fx_out_open(&o);
	out = run_sink(sink_html__new(o.f, &opts, &hostile_meta), &o);
	assert_no_raw_markup(out);
	cr_assert_null(strstr(out, "\xff"), "%s", out);
	cr_assert_not_null(strstr(out, "&lt;script&gt;alert(1)"), "%s", out);
	cr_assert_not_null(strstr(out, "&lt;script&gt;alert(3)&lt;/script&gt;"), "%s", out);
	cr_assert_not_null(strstr(out, "6.18&quot;&gt;&lt;img src=x"), "%s", out);
	cr_assert_not_null(strstr(out, "&quot;&#39;&amp;&lt;i&gt;\\x01\\x7f\\xc3("), "%s", out);
	cr_assert_not_null(strstr(out, "x&amp;y"), "%s", out);
	/* the holder's name before its exec, wherever it is named: stall, chain, culprits */
	cr_assert_geq(count_of(out, "alert(1)[2001/2001] (was &lt;u&gt;old&lt;/u&gt;\\x1b)"), 2,
		      "%s", out);
	cr_assert_not_null(strstr(out, "/2001 (was &lt;u&gt;old&lt;/u&gt;\\x1b)</b>"), "%s", out);
	/* the page's own parts are there: timeline and histogram */
	cr_assert_not_null(strstr(out, "<svg class=\"timeline\""), "%s", out);
	cr_assert_not_null(strstr(out, "<svg class=\"hist\""), "%s", out);
	cr_assert_not_null(strstr(out, "</html>\n"), "%s", out);
	fx_out_free(&o);
}

Test(sink_report, markdown_escapes_hostile_names)
{
	struct sink_opts opts = { 0 };
	struct fx_out o;
	const char *out;

	fx_out_open(&o);
	out = run_sink(sink_markdown__new(o.f, &opts, &hostile_meta), &o);
	assert_no_raw_markup(out);
	cr_assert_not_null(strstr(out, "&lt;script&gt;alert(1)\\[2001/2001\\]"), "%s", out);
	cr_assert_not_null(strstr(out, "| Host | &lt;script&gt;alert(3)&lt;/script&gt; |"), "%s", out);
	cr_assert_geq(count_of(out, "alert(1)\\[2001/2001\\] (was &lt;u&gt;old&lt;/u&gt;\\\\x1b)"),
		      2, "%s", out);
	cr_assert_not_null(strstr(out, "\\\\x0a\\\\x1b\\[2J&lt;script&gt;\\\\xff\\[1234/1240\\]"), "%s",
			   out);
	fx_out_free(&o);
}

/* An owner only the TID of which is known: its TID and "not seen", no zeroed name or policy. */
Test(sink_report, unseen_holder_in_markdown_and_html)
{
	static const struct report_meta meta = { .input = "t" };
	struct ls_summary sum = { .start_ns = FX_T0, .end_ns = FX_T0 + FX_MS(2000),
				  .duration_ns = FX_MS(2000), .stalls = 1 };
	struct sink_opts opts = { 0 };
	struct sink *sinks[2];
	struct ls_holder h;
	struct ls_stall st;
	struct fx_out o[2];
	const char *out;
	int i;

	fx_stall_unseen_owner(&st, &h);
	sum.stalls_by_verdict[st.verdict] = 1;
	fx_out_open(&o[0]);
	fx_out_open(&o[1]);
	sinks[0] = sink_markdown__new(o[0].f, &opts, &meta);
	sinks[1] = sink_html__new(o[1].f, &opts, &meta);
	for (i = 0; i < 2; i++) {
		cr_assert_eq(sink__stall(sinks[i], &st), 0);
		cr_assert_eq(sink__summary(sinks[i], &sum), 0);
		sink__free(sinks[i]);
		out = fx_out_close(&o[i]);
		cr_assert_geq(count_of(out, "tid 2002 (not seen)"), 2, "%s", out);
		cr_assert(strstr(out, "policy not known"), "%s", out);
		cr_assert(strstr(out, "unknown, not seen 23.4ms"), "%s", out);
		cr_assert_null(strstr(out, "[0/2002]"), "%s", out);
		cr_assert_null(strstr(out, "\\[0/2002\\]"), "%s", out);
		fx_out_free(&o[i]);
	}
}

/* ---- Perfetto structure ------------------------------------------------ */

struct pf_slice {
	long long pid, tid;
	long long ts, end;	/* ns */
};

static long long pf_ns(json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);

	cr_assert(json_is_number(v), "event without a numeric %s", key);
	cr_assert_geq(json_number_value(v), 0, "negative %s", key);
	return (long long)(json_number_value(v) * 1000.0 + 0.5);
}

static long long pf_int(json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);

	cr_assert(json_is_integer(v), "event without an integer %s", key);
	return json_integer_value(v);
}

static int pf_slice__cmp(const void *a, const void *b)
{
	const struct pf_slice *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

static bool pf_inside(const struct pf_slice *v, size_t n, long long pid, long long tid, long long t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].tid == tid && v[i].ts <= t && t <= v[i].end)
			return true;
	return false;
}

/*
 * Check a trace: every X has ts and dur >= 0; per track the X events come
 * in time order and nest or stand apart; every flow id has one "s" and one
 * "f", the "f" not before the "s", each inside a slice of its track.
 * Returns the number of slices and, in *flows, of flows.
 */
static size_t perfetto_check(const char *text, size_t *flows)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr), *evs, *ev, *s_ev, *f_ev, *other;
	struct pf_slice *v, stack[64];
	size_t n = 0, i, k, depth;
	long long last_pid = -1, last_tid = -1, last_ts = -1;
	const char *ph;
	json_t *starts = json_object(), *ends = json_object();
	const char *id;
	char key[32];

	cr_assert_not_null(root, "not JSON: %s at line %d", jerr.text, jerr.line);
	cr_assert_str_eq(json_string_value(json_object_get(root, "displayTimeUnit")), "ns");
	evs = json_object_get(root, "traceEvents");
	cr_assert(json_is_array(evs));
	v = calloc(json_array_size(evs) + 1, sizeof(*v));
	cr_assert_not_null(v);
	json_array_foreach(evs, i, ev) {
		ph = json_string_value(json_object_get(ev, "ph"));
		cr_assert_not_null(ph, "event %zu without ph", i);
		cr_assert(json_is_string(json_object_get(ev, "name")), "event %zu without a name", i);
		if (!strcmp(ph, "X")) {
			v[n].pid = pf_int(ev, "pid");
			v[n].tid = pf_int(ev, "tid");
			v[n].ts = pf_ns(ev, "ts");
			v[n].end = v[n].ts + pf_ns(ev, "dur");
			/* per track, in time order */
			if (v[n].pid == last_pid && v[n].tid == last_tid)
				cr_assert_geq(v[n].ts, last_ts, "event %zu goes back in time", i);
			last_pid = v[n].pid;
			last_tid = v[n].tid;
			last_ts = v[n].ts;
			n++;
		} else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			snprintf(key, sizeof(key), "%lld", pf_int(ev, "id"));
			other = !strcmp(ph, "s") ? starts : ends;
			cr_assert_null(json_object_get(other, key), "flow %s: two '%s'", key, ph);
			json_object_set(other, key, ev);
		} else {
			cr_assert_str_eq(ph, "M", "event %zu: unexpected ph %s", i, ph);
		}
	}
	/* nesting, per track */
	qsort(v, n, sizeof(*v), pf_slice__cmp);
	for (i = 0, depth = 0; i < n; i++) {
		while (depth && (stack[depth - 1].pid != v[i].pid || stack[depth - 1].tid != v[i].tid ||
				 stack[depth - 1].end <= v[i].ts))
			depth--;
		if (depth)
			cr_assert_leq(v[i].end, stack[depth - 1].end,
				      "slice at %lld on %lld/%lld overlaps its parent partially",
				      v[i].ts, v[i].pid, v[i].tid);
		cr_assert_lt(depth, 64);
		stack[depth++] = v[i];
	}
	/* flows */
	cr_assert_eq(json_object_size(starts), json_object_size(ends), "unpaired flow ends");
	json_object_foreach(starts, id, s_ev) {
		f_ev = json_object_get(ends, id);
		cr_assert_not_null(f_ev, "flow %s never ends", id);
		cr_assert_leq(pf_ns(s_ev, "ts"), pf_ns(f_ev, "ts"), "flow %s ends before it starts", id);
		for (k = 0; k < 2; k++) {
			ev = k ? f_ev : s_ev;
			cr_assert(pf_inside(v, n, pf_int(ev, "pid"), pf_int(ev, "tid"), pf_ns(ev, "ts")),
				  "flow %s: its %s is in no slice", id, k ? "end" : "start");
		}
	}
	*flows = json_object_size(starts);
	json_decref(starts);
	json_decref(ends);
	json_decref(root);
	free(v);
	return n;
}

Test(sink_report, perfetto_hostile_names_and_structure)
{
	struct sink_opts opts = { 0 };
	struct fx_out o;
	const char *out;
	size_t n, flows;

	fx_out_open(&o);
	out = run_sink(sink_perfetto__new(o.f, &opts), &o);
	n = perfetto_check(out, &flows);
	/* wait, hold, 2 spells, who ran instead */
	cr_assert_eq(n, 5, "%zu slices: %s", n, out);
	/* waiter -> holder -> preemptor */
	cr_assert_eq(flows, 2, "%zu flows: %s", flows, out);
	cr_assert_not_null(strstr(out, "\\\\x01\\\\x7f\\\\xc3("), "%s", out);
	fx_out_free(&o);
}

/*
 * From the engine: two waiters behind one holder that two hogs preempt in
 * turn; the stalls share the holder, and each stall's slices still nest.
 */
Test(sink_report, perfetto_from_the_engine)
{
	static const struct ls_task waiter2 = FX_NORMAL(103, 100, 0, "waiter2");
	static const struct ls_task hog2 = FX_NORMAL(201, 201, -5, "hog2");
	struct stream_lock hold = { .start = T(0), .acquired = T(0), .write = true };
	struct sink_opts opts = { 0 };
	struct engine_opts eo = { .threshold_ns = MS(10) };
	struct stream_lock w2 = { .start = T(5), .write = true };
	struct stream_lock w2_end = { .start = T(5), .write = true,
				      .flags = LS_LOCK_F_BEGIN_SENT };
	struct engine *e;
	struct fx_out o;
	size_t n, flows;

	fixture__setup();
	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__wait_begin(&efx.s, 2, T(5), &waiter2, &efx.mm, &w2);
	stream__switch(&efx.s, 0, T(10), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__switch(&efx.s, 0, T(15), &efx.holder, LS_TASK_F_HOLDING, true, &hog2, 0);
	stream__switch(&efx.s, 0, T(30), &hog2, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(45), &efx.holder, &efx.mm, &hold);
	scenario__wait_end(&efx.waiter, true, T(2), T(48), &efx.holder);
	stream__wait_end(&efx.s, 2, T(60), &waiter2, &efx.mm, &w2_end);

	fx_out_open(&o);
	e = engine__new(&eo, sink_perfetto__new(o.f, &opts));
	cr_assert_not_null(e);
	cr_assert_eq(stream__feed(&efx.s, e), 0);
	cr_assert_eq(engine__finish(e), 0);
	engine__free(e);
	n = perfetto_check(fx_out_close(&o), &flows);
	cr_assert_geq(n, 7, "%zu slices: %s", n, o.buf);
	cr_assert_geq(flows, 3, "%zu flows: %s", flows, o.buf);
	cr_assert_not_null(strstr(o.buf, "off CPU while holding (preempted by hog2[201/201])"), "%s",
			   o.buf);
	fx_out_free(&o);
	fixture__teardown();
}

/* The golden recording's Perfetto report (test/data/golden.perfetto.json). */
Test(sink_report, perfetto_golden_structure)
{
	char path[512];
	FILE *f;
	char *buf;
	long len;
	size_t flows;

	snprintf(path, sizeof(path), "%s/golden.perfetto.json", trace_fixture__data_dir());
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, len + 1);
	cr_assert_eq(fread(buf, 1, len, f), (size_t)len);
	fclose(f);
	cr_assert_geq(perfetto_check(buf, &flows), 6);
	cr_assert_geq(flows, 4);
	free(buf);
}

/*
 * The report keeps the 20 longest lock waits whatever order they come in,
 * longest first, and counts the rest; the culprit tables rank by time.
 */
Test(sink_report, markdown_keeps_the_worst_stalls)
{
	struct sink_opts opts = { 0 };
	struct ls_summary sum = { .start_ns = FX_T0, .end_ns = FX_T0 + FX_MS(60000),
				  .duration_ns = FX_MS(60000), .stalls = 25 };
	struct ls_holder h;
	struct ls_stall st;
	struct fx_out o;
	const char *out, *p, *q;
	char want[64];
	struct sink *s;
	unsigned int i, wait_ms;

	fx_out_open(&o);
	s = sink_markdown__new(o.f, &opts, &hostile_meta);
	cr_assert_not_null(s);
	for (i = 0; i < 25; i++) {
		/* 10, 35, 60, ... ms, but in a scrambled order (7 is coprime with 25) */
		wait_ms = 10 + 25 * ((i * 7) % 25);
		fx_holder_reader(&h);
		h.task.tid = h.task.tgid = 2001 + (i % 3);
		fx_stall(&st, &h, 1);
		st.seq = i + 1;
		st.lock_wait_ns = st.wait_ns = FX_MS(wait_ms);
		cr_assert_eq(sink__stall(s, &st), 0);
	}
	cr_assert_eq(sink__summary(s, &sum), 0);
	sink__free(s);
	out = fx_out_close(&o);

	/* 610ms down to 135ms, in order; 110ms and below only counted */
	p = out;
	for (i = 0; i < 20; i++) {
		snprintf(want, sizeof(want), "### %u. Stall #", i + 1);
		q = strstr(p, want);
		cr_assert_not_null(q, "no %s in %s", want, out);
		snprintf(want, sizeof(want), ": %ums for mmap_lock", 610 - 25 * i);
		cr_assert_eq(strncmp(strchr(q + 4, ':'), want, strlen(want)), 0, "stall %u: %.60s", i + 1, q);
		p = q + 1;
	}
	cr_assert_null(strstr(out, "### 21. "), "%s", out);
	cr_assert_not_null(strstr(out, "and 5 shorter stalls"), "%s", out);
	cr_assert_not_null(strstr(out, "| 1 | `hog[3001/3001]` | SCHED_NORMAL nice 0 | 25 | 572ms |"),
			   "%s", out);
	fx_out_free(&o);
}

/* Prose says words, never the enum names JSON uses ("queued_writer", "granted_not_running"). */
Test(sink_report, reports_say_words_not_enum_names)
{
	struct sink_opts opts = { 0 };
	struct sink *(*make[2])(FILE *, const struct sink_opts *, const struct report_meta *) = {
		sink_html__new, sink_markdown__new,
	};
	struct ls_summary sum = { .start_ns = FX_T0, .end_ns = FX_T0 + FX_MS(2000),
				  .duration_ns = FX_MS(2000), .stalls = 1, .events = 10 };
	struct ls_holder h;
	struct ls_stall st;
	struct fx_out o;
	const char *out;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct sink *s;

		fx_holder_reader(&h);
		h.state = LS_STATE_GRANTED_NOT_RUNNING;
		fx_stall(&st, &h, 1);
		st.chain[1].role = LS_ROLE_QUEUED_WRITER;
		sum.stalls_by_verdict[st.verdict] = 1;
		fx_out_open(&o);
		s = make[i](o.f, &opts, &hostile_meta);
		cr_assert_eq(sink__stall(s, &st), 0);
		cr_assert_eq(sink__summary(s, &sum), 0);
		sink__free(s);
		out = fx_out_close(&o);
		cr_assert_not_null(strstr(out, "queued writer"), "%s", out);
		cr_assert_null(strstr(out, "queued_writer"), "%s", out);
		cr_assert_not_null(strstr(out, "granted not running"), "%s", out);
		cr_assert_null(strstr(out, "granted_not_running"), "%s", out);
		fx_out_free(&o);
	}
}
