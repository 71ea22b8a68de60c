// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/sinks/json.c: the JSON Lines schema is a contract other tools parse.
 * Every line is read back with jansson and every contract field is checked
 * for presence, type and value.
 */
#include <errno.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include "unit/sink_fixture.h"
#include "util.h"

static const struct sink_opts default_opts = { .top = 10, .t0_ns = FX_T0 };

/* ---- reading the output back ---- */

struct lines {
	json_t *v[16];
	size_t n;
};

/* Every line must be exactly one JSON object, and the output end in a newline. */
static void parse_lines(const char *text, struct lines *out)
{
	const char *p = text, *nl;
	json_error_t err;

	memset(out, 0, sizeof(*out));
	cr_assert(*text, "no output");
	cr_assert_eq(text[strlen(text) - 1], '\n', "output does not end in a newline");
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		cr_assert_lt(out->n, ARRAY_SIZE(out->v));
		out->v[out->n] = json_loadb(p, (size_t)(nl - p), 0, &err);
		cr_assert_not_null(out->v[out->n], "line %zu: %s: %.*s", out->n + 1, err.text,
				   (int)(nl - p), p);
		cr_assert(json_is_object(out->v[out->n]), "line %zu is not an object", out->n + 1);
		out->n++;
	}
}

static void free_lines(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		json_decref(l->v[i]);
}

static json_t *field(json_t *o, const char *key, json_type type)
{
	json_t *v = json_object_get(o, key);

	cr_assert_not_null(v, "field '%s' missing", key);
	if (type == JSON_TRUE || type == JSON_FALSE)
		cr_assert(json_is_boolean(v), "field '%s' is not a boolean", key);
	else
		cr_assert_eq(json_typeof(v), type, "field '%s' has type %d, want %d", key,
			     json_typeof(v), type);
	return v;
}

static void expect_u(json_t *o, const char *key, unsigned long long want)
{
	json_t *v = field(o, key, JSON_INTEGER);

	cr_assert_geq(json_integer_value(v), 0, "'%s' negative", key);
	cr_assert_eq((unsigned long long)json_integer_value(v), want, "'%s': %lld, want %llu", key,
		     json_integer_value(v), want);
}

static void expect_i(json_t *o, const char *key, long long want)
{
	cr_assert_eq(json_integer_value(field(o, key, JSON_INTEGER)), want, "'%s'", key);
}

static void expect_s(json_t *o, const char *key, const char *want)
{
	cr_assert_str_eq(json_string_value(field(o, key, JSON_STRING)), want, "'%s'", key);
}

static void expect_b(json_t *o, const char *key, bool want)
{
	cr_assert_eq(json_is_true(field(o, key, JSON_TRUE)), want, "'%s'", key);
}

static void expect_absent(json_t *o, const char *key)
{
	cr_assert_null(json_object_get(o, key), "field '%s' must be absent", key);
}

/* pid, tid, comm, policy, prio, nice, rt_prio */
static void expect_task(json_t *o, const struct ls_task *t, const char *comm, const char *policy)
{
	expect_u(o, "pid", t->tgid);
	expect_u(o, "tid", t->tid);
	expect_s(o, "comm", comm);
	expect_s(o, "policy", policy);
	expect_i(o, "prio", t->prio);
	expect_i(o, "nice", t->nice);
	expect_u(o, "rt_prio", t->rt_prio);
}

static char *json_of_stall(const struct ls_stall *st)
{
	struct fx_out o;
	struct sink *s;

	fx_out_open(&o);
	s = sink_json__new(o.f, &default_opts);
	cr_assert_not_null(s);
	cr_assert_eq(sink__stall(s, st), 0);
	/* flushed at once: a consumer tailing the output sees the whole line now */
	cr_assert_gt(o.len, 0);
	cr_assert_eq(o.buf[o.len - 1], '\n');
	sink__free(s);
	return (char *)fx_out_close(&o);
}

/* ---- stalls ---- */

Test(sink_json, stall_contract)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *o, *mm, *w, *hs, *h0, *pb, *ch, *obs;
	char *text;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	st.holders_dropped = 0;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	cr_assert_eq(l.n, 1, "one line per stall");
	o = l.v[0];

	expect_s(o, "type", "stall");
	expect_u(o, "seq", 3);
	expect_s(o, "lock", "mmap_lock");
	expect_s(o, "mode", "write");
	expect_b(o, "acquired", true);
	expect_u(o, "start_ns", st.start_ns);
	expect_u(o, "end_ns", st.end_ns);
	expect_u(o, "wait_ns", 23400000);
	expect_u(o, "lock_wait_ns", 23400000);
	expect_u(o, "run_delay_ns", 0);

	mm = field(o, "mm", JSON_OBJECT);
	expect_u(mm, "pid", 1234);
	expect_s(mm, "comm", "victim");
	expect_s(mm, "id", "0xffff888012345600");

	w = field(o, "waiter", JSON_OBJECT);
	expect_task(w, &st.waiter, "victim", "fifo");
	expect_u(w, "rt_prio", 50);
	expect_s(w, "op", "mmap");
	/* page-fault-only fields */
	expect_absent(w, "addr");
	expect_absent(w, "vma_lock_fallback");

	hs = field(o, "holders", JSON_ARRAY);
	cr_assert_eq(json_array_size(hs), 1);
	h0 = json_array_get(hs, 0);
	expect_task(h0, &h.task, "reader", "idle");
	expect_s(h0, "mode", "read");
	expect_s(h0, "op", "munmap");
	expect_u(h0, "held_ns", 25100000);
	expect_u(h0, "overlap_ns", 23400000);
	expect_u(h0, "offcpu_ns", 23000000);
	expect_s(h0, "state", "preempted");
	expect_b(h0, "granted", false);
	expect_b(h0, "downgraded", false);
	expect_u(h0, "preempted_other_ns", 0);
	expect_absent(h0, "woken_by");
	pb = field(h0, "preempted_by", JSON_ARRAY);
	cr_assert_eq(json_array_size(pb), 1);
	expect_u(json_array_get(pb, 0), "pid", 3001);
	expect_u(json_array_get(pb, 0), "tid", 3001);
	expect_s(json_array_get(pb, 0), "comm", "hog");
	expect_s(json_array_get(pb, 0), "policy", "normal");
	expect_u(json_array_get(pb, 0), "ns", 22900000);
	/* extras beyond the minimum contract */
	expect_u(h0, "hold_start_ns", h.hold_start_ns);
	expect_u(h0, "hold_end_ns", h.hold_end_ns);
	expect_b(h0, "released", true);
	obs = field(h0, "offcpu_by_state", JSON_OBJECT);
	expect_u(obs, "preempted", 23000000);
	expect_u(obs, "blocked", 0);
	expect_u(obs, "granted_not_running", 0);

	expect_u(o, "holders_dropped", 0);

	ch = field(o, "chain", JSON_ARRAY);
	cr_assert_eq(json_array_size(ch), 3);
	expect_u(json_array_get(ch, 0), "pid", 1234);
	expect_u(json_array_get(ch, 0), "tid", 1240);
	expect_s(json_array_get(ch, 0), "comm", "victim");
	expect_s(json_array_get(ch, 0), "role", "waiter");
	expect_s(json_array_get(ch, 0), "mode", "write");
	expect_u(json_array_get(ch, 0), "ns", 0);
	expect_s(json_array_get(ch, 1), "role", "holder");
	expect_s(json_array_get(ch, 1), "mode", "read");
	expect_u(json_array_get(ch, 1), "ns", 23000000);
	expect_s(json_array_get(ch, 2), "role", "preemptor");
	expect_s(json_array_get(ch, 2), "comm", "hog");
	expect_absent(json_array_get(ch, 2), "mode");
	expect_u(json_array_get(ch, 2), "ns", 22900000);

	expect_s(o, "verdict", "priority_inversion");
	expect_u(o, "lost_in_window", 0);
	/* one object per line: no pretty printing */
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1);
	free_lines(&l);
	free(text);
}

/* began_before_tracing: present, true, only for a wait that began before tracing. */
Test(sink_json, began_before_tracing)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	char *text;
	int pending;

	for (pending = 0; pending < 2; pending++) {
		fx_holder_reader(&h);
		if (pending)
			fx_stall_pending(&st, &h);
		else
			fx_stall(&st, &h, 1);
		text = json_of_stall(&st);
		parse_lines(text, &l);
		expect_absent(l.v[0], "began_before_tracing");
		free_lines(&l);
		free(text);
		st.began_before = true;
		text = json_of_stall(&st);
		parse_lines(text, &l);
		expect_s(l.v[0], "type", pending ? "pending" : "stall");
		expect_b(l.v[0], "began_before_tracing", true);
		expect_absent(l.v[0], "found_late");
		free_lines(&l);
		free(text);
		/* found by a later scan: said so instead */
		st.found_late = true;
		text = json_of_stall(&st);
		parse_lines(text, &l);
		expect_b(l.v[0], "found_late", true);
		expect_absent(l.v[0], "began_before_tracing");
		free_lines(&l);
		free(text);
	}
}

/*
 * A run that looked for causes: the stall's cause and advice, the holder's
 * time by cause with what the kernel named (the limit, the cgroup, escaped).
 */
Test(sink_json, causes_throttled_and_reclaim)
{
	struct ls_throttle thr = { .cgroup_id = 77, .hierarchy_id = 0, .quota_ns = FX_MS(10),
				   .period_ns = FX_MS(100), .path = "/batch" };
	struct ls_reclaim rc = { .kind = LS_RECLAIM_MEMCG, .limit = LS_MEMCG_LIMIT_MAX,
				 .hierarchy_id = 4, .cgroup_id = 88, .usage_bytes = 16769024,
				 .limit_bytes = 16777216, .path = "/lsr/a b\"" };
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *o, *h0, *c, *t, *r;
	char *text;

	fx_holder_reader(&h);
	h.cause_ns[LS_CAUSE_THROTTLED] = FX_MS(3);
	h.cause_ns[LS_CAUSE_RECLAIM] = FX_MS(12);
	h.cause = LS_CAUSE_RECLAIM;
	h.throttle = &thr;
	h.reclaim = &rc;
	fx_stall(&st, &h, 1);
	st.cause = LS_CAUSE_RECLAIM;
	st.advice = ls_advice(&st);
	text = json_of_stall(&st);
	parse_lines(text, &l);
	o = l.v[0];
	expect_s(o, "cause", "reclaim");
	expect_s(o, "advice", st.advice);
	h0 = json_array_get(field(o, "holders", JSON_ARRAY), 0);
	expect_s(h0, "cause", "reclaim");
	c = field(h0, "causes", JSON_OBJECT);
	cr_assert_eq(json_object_size(c), 2);
	t = field(c, "throttled", JSON_OBJECT);
	expect_u(t, "ns", FX_MS(3));
	expect_s(t, "cgroup", "/batch");
	expect_u(t, "cgroup_version", 2);
	expect_u(t, "quota_ns", FX_MS(10));
	r = field(c, "reclaim", JSON_OBJECT);
	expect_u(r, "ns", FX_MS(12));
	expect_s(r, "kind", "memcg");
	expect_s(r, "cgroup", "/lsr/a\\x20b\"");
	expect_u(r, "cgroup_id", 88);
	expect_u(r, "cgroup_version", 1);
	expect_s(r, "limit", "max");
	expect_u(r, "limit_bytes", 16777216);
	expect_u(r, "usage_bytes", 16769024);
	free_lines(&l);
	free(text);

	/* Compaction names no cgroup: only its kind. */
	rc.kind = LS_RECLAIM_COMPACT;
	rc.limit = LS_MEMCG_LIMIT_NONE;
	h.cause_ns[LS_CAUSE_THROTTLED] = 0;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	h0 = json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0);
	r = field(field(h0, "causes", JSON_OBJECT), "reclaim", JSON_OBJECT);
	expect_s(r, "kind", "compaction");
	expect_absent(r, "cgroup");
	expect_absent(r, "limit");
	free_lines(&l);
	free(text);
}

/* rt_throttled: its time only (no limit is known), as the stall's cause with its advice. */
Test(sink_json, cause_rt_throttled)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *h0, *c, *t;
	char *text;

	fx_holder_reader(&h);
	h.cause_ns[LS_CAUSE_RT_THROTTLED] = FX_MS(200);
	h.cause = LS_CAUSE_RT_THROTTLED;
	fx_stall(&st, &h, 1);
	st.cause = LS_CAUSE_RT_THROTTLED;
	st.advice = ls_advice(&st);
	text = json_of_stall(&st);
	parse_lines(text, &l);
	expect_s(l.v[0], "cause", "rt_throttled");
	expect_s(l.v[0], "advice", st.advice);
	cr_assert(strstr(st.advice, "sched_rt_runtime_us"), "advice: %s", st.advice);
	h0 = json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0);
	expect_s(h0, "cause", "rt_throttled");
	c = field(h0, "causes", JSON_OBJECT);
	cr_assert_eq(json_object_size(c), 1);
	t = field(c, "rt_throttled", JSON_OBJECT);
	expect_u(t, "ns", FX_MS(200));
	cr_assert_eq(json_object_size(t), 1, "nothing but its time");
	free_lines(&l);
	free(text);
}

/* I/O: the time, and the device as MAJ:MIN and numbers when the kernel named it. */
Test(sink_json, causes_io)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *h0, *io;
	char *text;

	fx_holder_reader(&h);
	h.cause_ns[LS_CAUSE_IO] = FX_MS(12);
	h.cause = LS_CAUSE_IO;
	h.io_dev = 8U << 20 | 16;
	memset(h.io_disk, 'd', sizeof(h.io_disk));	/* 32 bytes, no NUL */
	fx_stall(&st, &h, 1);
	st.cause = LS_CAUSE_IO;
	st.advice = ls_advice(&st);
	text = json_of_stall(&st);
	parse_lines(text, &l);
	expect_s(l.v[0], "cause", "io");
	h0 = json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0);
	expect_s(h0, "cause", "io");
	io = field(field(h0, "causes", JSON_OBJECT), "io", JSON_OBJECT);
	expect_u(io, "ns", FX_MS(12));
	expect_s(io, "device", "8:16");
	expect_u(io, "major", 8);
	expect_u(io, "minor", 16);
	expect_s(io, "disk", "dddddddddddddddddddddddddddddddd");
	free_lines(&l);
	free(text);

	h.io_dev = 0;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	h0 = json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0);
	io = field(field(h0, "causes", JSON_OBJECT), "io", JSON_OBJECT);
	expect_u(io, "ns", FX_MS(12));
	expect_absent(io, "device");
	expect_absent(io, "major");
	expect_absent(io, "disk");
	free_lines(&l);
	free(text);
}

Test(sink_json, stall_no_holders)
{
	struct ls_stall st;
	struct lines l;
	char *text;

	fx_stall(&st, NULL, 0);
	st.acquired = false;
	st.lost_in_window = 12;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	cr_assert_eq(json_array_size(field(l.v[0], "holders", JSON_ARRAY)), 0);
	cr_assert_eq(json_array_size(field(l.v[0], "chain", JSON_ARRAY)), 1);
	expect_b(l.v[0], "acquired", false);
	expect_s(l.v[0], "verdict", "unknown");
	expect_u(l.v[0], "lost_in_window", 12);
	expect_absent(l.v[0], "unknown_reason");
	free_lines(&l);
	free(text);
}

/* A cycle of waits not known to be a deadlock says why, by its JSON word. */
Test(sink_json, cycle_in_doubt_says_why)
{
	struct ls_stall st;
	struct lines l;
	char *text;

	fx_stall(&st, NULL, 0);
	st.verdict = LS_VERDICT_UNKNOWN;
	st.unknown_reason = LS_UNKNOWN_CYCLE_LOCK_TWICE;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	expect_s(l.v[0], "verdict", "unknown");
	expect_s(l.v[0], "unknown_reason", "cycle_lock_twice");
	free_lines(&l);
	free(text);
}

/* Only its TID known: null where a zeroed struct would say 0, "" and normal. */
Test(sink_json, unseen_holder_has_nulls)
{
	json_t *h, *hop;
	struct ls_holder hd;
	struct ls_stall st;
	struct lines l;
	char *text;

	fx_stall_unseen_owner(&st, &hd);
	text = json_of_stall(&st);
	parse_lines(text, &l);
	h = json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0);
	field(h, "pid", JSON_NULL);
	expect_u(h, "tid", 2002);
	field(h, "comm", JSON_NULL);
	expect_s(h, "policy", "unknown");
	field(h, "prio", JSON_NULL);
	field(h, "nice", JSON_NULL);
	field(h, "rt_prio", JSON_NULL);
	expect_s(h, "state", "unknown");
	expect_u(h, "unseen_ns", st.lock_wait_ns);
	hop = json_array_get(field(l.v[0], "chain", JSON_ARRAY), 1);
	field(hop, "pid", JSON_NULL);
	field(hop, "comm", JSON_NULL);
	expect_u(hop, "tid", 2002);
	expect_s(l.v[0], "verdict", "unknown");
	free_lines(&l);
	free(text);
}

Test(sink_json, stall_several_holders)
{
	struct ls_holder h[3];
	struct ls_stall st;
	struct lines l;
	json_t *hs;
	char *text;
	int i;

	for (i = 0; i < 3; i++) {
		fx_holder_reader(&h[i]);
		h[i].task.tid = 2001 + i;
	}
	h[1].write = true;
	h[1].state = LS_STATE_BLOCKED;
	h[1].has_waker = true;
	fx_task(&h[1].woken_by, 77, 78, "disk", LS_POLICY_NORMAL, 0, 0);
	h[2].state = LS_STATE_GRANTED_NOT_RUNNING;
	h[2].granted = true;
	h[2].downgraded = true;
	h[2].n_preempted_by = 0;
	h[2].preempted_other_ns = 5;
	fx_stall(&st, h, 3);
	st.holders_dropped = 40;
	st.verdict = LS_VERDICT_HOLDER_OFF_CPU;
	text = json_of_stall(&st);
	parse_lines(text, &l);

	hs = field(l.v[0], "holders", JSON_ARRAY);
	cr_assert_eq(json_array_size(hs), 3);
	for (i = 0; i < 3; i++)
		expect_u(json_array_get(hs, i), "tid", 2001 + i);
	expect_s(json_array_get(hs, 1), "mode", "write");
	expect_s(json_array_get(hs, 1), "state", "blocked");
	{
		json_t *wb = field(json_array_get(hs, 1), "woken_by", JSON_OBJECT);

		expect_u(wb, "pid", 77);
		expect_u(wb, "tid", 78);
		expect_s(wb, "comm", "disk");
	}
	expect_s(json_array_get(hs, 2), "state", "granted_not_running");
	expect_b(json_array_get(hs, 2), "granted", true);
	expect_b(json_array_get(hs, 2), "downgraded", true);
	cr_assert_eq(json_array_size(field(json_array_get(hs, 2), "preempted_by", JSON_ARRAY)), 0);
	expect_u(json_array_get(hs, 2), "preempted_other_ns", 5);
	expect_u(l.v[0], "holders_dropped", 40);
	expect_s(l.v[0], "verdict", "holder_off_cpu");
	free_lines(&l);
	free(text);
}

Test(sink_json, page_fault_fields)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *w, *h0;
	char *text;

	fx_holder_reader(&h);
	h.op.kind = LS_OP_PAGE_FAULT;
	h.op.addr = 0x5555000;
	fx_stall(&st, &h, 1);
	st.write = false;
	st.op.kind = LS_OP_PAGE_FAULT;
	st.op.syscall = -1;
	st.op.addr = 0x7f1234567000ULL;
	st.vma_lock_fallback = true;
	st.verdict = LS_VERDICT_CONTENTION;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	w = field(l.v[0], "waiter", JSON_OBJECT);
	expect_s(w, "op", "page_fault");
	expect_u(w, "addr", 0x7f1234567000ULL);
	expect_b(w, "vma_lock_fallback", true);
	expect_s(l.v[0], "mode", "read");
	expect_s(l.v[0], "verdict", "contention");
	h0 = json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0);
	expect_s(h0, "op", "page_fault");
	expect_u(h0, "addr", 0x5555000);
	free_lines(&l);
	free(text);

	st.vma_lock_fallback = false;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	expect_b(field(l.v[0], "waiter", JSON_OBJECT), "vma_lock_fallback", false);
	free_lines(&l);
	free(text);
}

Test(sink_json, every_policy_name)
{
	static const struct {
		__u8 policy;
		const char *name;
	} p[] = {
		{ LS_POLICY_NORMAL, "normal" }, { LS_POLICY_BATCH, "batch" },
		{ LS_POLICY_IDLE, "idle" },     { LS_POLICY_FIFO, "fifo" },
		{ LS_POLICY_RR, "rr" },         { LS_POLICY_DEADLINE, "deadline" },
	};
	struct ls_stall st;
	struct lines l;
	size_t i;
	char *text;

	for (i = 0; i < ARRAY_SIZE(p); i++) {
		fx_stall(&st, NULL, 0);
		fx_task(&st.waiter, 1, 2, "t", p[i].policy, -3, 7);
		text = json_of_stall(&st);
		parse_lines(text, &l);
		expect_task(field(l.v[0], "waiter", JSON_OBJECT), &st.waiter, "t", p[i].name);
		free_lines(&l);
		free(text);
	}
}

/*
 * comm_was / comm_now: present on the tasks whose name changed, absent
 * elsewhere, so consumers that know only "comm" read what they always did.
 */
Test(sink_json, renamed_tasks_carry_their_other_name)
{
	struct ls_rename r[3];
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *h0, *chain;
	char *text;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	fx_rename(&r[0], 2001, "reader", "bash", true);
	fx_rename(&r[1], 1234, "victim", "\"}\n", false);
	fx_rename(&r[2], 3001, "hog", "ps", false);
	st.renames = r;
	st.n_renames = 3;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	cr_assert_eq(l.n, 1);
	h0 = json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0);
	expect_s(h0, "comm", "reader");
	expect_s(h0, "comm_was", "bash");
	expect_absent(h0, "comm_now");
	expect_s(json_array_get(field(h0, "preempted_by", JSON_ARRAY), 0), "comm_now", "ps");
	expect_s(field(l.v[0], "mm", JSON_OBJECT), "comm_now", "\"}\n");
	/* the waiter is the mm's process but another tid: no rename of its own */
	expect_absent(field(l.v[0], "waiter", JSON_OBJECT), "comm_now");
	expect_absent(field(l.v[0], "waiter", JSON_OBJECT), "comm_was");
	chain = field(l.v[0], "chain", JSON_ARRAY);
	expect_s(json_array_get(chain, 1), "comm_was", "bash");
	expect_s(json_array_get(chain, 2), "comm_now", "ps");
	free_lines(&l);
	free(text);
}

Test(sink_json, hostile_comm_stays_valid_json)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *h0;
	char *text;
	const unsigned char *p;

	fx_holder_reader(&h);
	fx_comm(h.task.comm, FX_HOSTILE_COMM);
	memcpy(h.preempted_by[0].task.comm, "\"\\\"}]\n,{\"x\":12}\"", 16);	/* 16, no NUL */
	fx_stall(&st, &h, 1);
	memcpy(st.lock.comm, "\xc3\xa9t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" "ab\xe2\x82", 16);
	text = json_of_stall(&st);

	for (p = (const unsigned char *)text; *p; p++)
		cr_assert(*p >= 0x20 || *p == '\n', "raw control byte 0x%02x", *p);
	parse_lines(text, &l);
	cr_assert_eq(l.n, 1, "a comm broke the line");
	h0 = json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0);
	/* 0xff is no UTF-8: it reads as U+FFFD, never as U+00FF */
	expect_s(h0, "comm", "\n\x1b[2J<script>\xef\xbf\xbd");
	expect_s(json_array_get(field(h0, "preempted_by", JSON_ARRAY), 0), "comm",
		 "\"\\\"}]\n,{\"x\":12}\"");
	/* valid UTF-8 passes; the sequence cut at byte 16 is read byte by byte */
	expect_s(field(l.v[0], "mm", JSON_OBJECT), "comm",
		 "\xc3\xa9t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" "ab\xef\xbf\xbd\xef\xbf\xbd");
	expect_s(json_array_get(field(l.v[0], "chain", JSON_ARRAY), 1), "comm",
		 "\n\x1b[2J<script>\xef\xbf\xbd");
	free_lines(&l);
	free(text);
}

/* ---- histograms ---- */

static void hist_set(struct ls_hist_set *set, struct ls_hist_entry *e, size_t n)
{
	memset(set, 0, sizeof(*set));
	set->v = e;
	set->n = n;
	set->start_ns = FX_T0 + NSEC_PER_SEC;
	set->end_ns = FX_T0 + 2 * NSEC_PER_SEC;
}

static void expect_hist(json_t *h, __u32 pid, const char *comm, const char *mode, __u64 sum)
{
	json_t *slots;
	size_t i;

	expect_u(h, "pid", pid);
	expect_s(h, "comm", comm);
	if (mode)
		expect_s(h, "mode", mode);
	else
		expect_absent(h, "mode");
	expect_u(h, "count", 9);
	expect_u(h, "sum_ns", sum);
	slots = field(h, "log2_usecs", JSON_ARRAY);
	cr_assert_eq(json_array_size(slots), LS_HIST_SLOTS);
	for (i = 0; i < LS_HIST_SLOTS; i++) {
		json_t *v = json_array_get(slots, i);

		cr_assert(json_is_integer(v));
		cr_assert_eq(json_integer_value(v), i == 0 ? 3 : i == 3 ? 6 : 0, "slot %zu", i);
	}
}

Test(sink_json, interval_histograms)
{
	struct sink_opts opts = { .top = 2 };
	struct ls_hist_entry e[5];
	struct ls_hist_set set;
	struct fx_out o;
	struct sink *s;
	struct lines l;
	json_t *hs, *wait;

	fx_hist(&e[0], 1, LS_HIST_WAIT, 0, "small", 1000);
	fx_hist(&e[1], 2, LS_HIST_WAIT, 1, "big", 9000000);
	fx_hist(&e[2], 3, LS_HIST_WAIT, 0, "middle", 5000000);
	fx_hist(&e[3], 4, LS_HIST_HOLD, LS_HIST_ANY_MODE, "holder", 7000000);
	fx_hist(&e[4], 4, LS_HIST_OFFCPU, LS_HIST_ANY_MODE, "holder", 6000000);
	hist_set(&set, e, 5);

	fx_out_open(&o);
	s = sink_json__new(o.f, &opts);
	cr_assert_eq(sink__interval(s, &set), 0);
	set.start_ns = set.end_ns;
	set.end_ns += NSEC_PER_SEC;
	set.n = 0;
	cr_assert_eq(sink__interval(s, &set), 0);
	sink__free(s);
	parse_lines(fx_out_close(&o), &l);

	cr_assert_eq(l.n, 2, "one line per interval");
	expect_s(l.v[0], "type", "histograms");
	expect_u(l.v[0], "start_ns", FX_T0 + NSEC_PER_SEC);
	expect_u(l.v[0], "end_ns", FX_T0 + 2 * NSEC_PER_SEC);
	expect_u(l.v[0], "duration_ns", NSEC_PER_SEC);
	hs = field(l.v[0], "histograms", JSON_OBJECT);
	wait = field(hs, "wait", JSON_ARRAY);
	/* most total time first, --top 2 */
	cr_assert_eq(json_array_size(wait), 2);
	expect_hist(json_array_get(wait, 0), 2, "big", "write", 9000000);
	expect_hist(json_array_get(wait, 1), 3, "middle", "read", 5000000);
	cr_assert_eq(json_array_size(field(hs, "hold", JSON_ARRAY)), 1);
	expect_hist(json_array_get(field(hs, "hold", JSON_ARRAY), 0), 4, "holder", NULL, 7000000);
	expect_hist(json_array_get(field(hs, "offcpu", JSON_ARRAY), 0), 4, "holder", NULL, 6000000);

	/* an empty interval still says it happened, with empty lists */
	hs = field(l.v[1], "histograms", JSON_OBJECT);
	cr_assert_eq(json_array_size(field(hs, "wait", JSON_ARRAY)), 0);
	cr_assert_eq(json_array_size(field(hs, "hold", JSON_ARRAY)), 0);
	cr_assert_eq(json_array_size(field(hs, "offcpu", JSON_ARRAY)), 0);
	free_lines(&l);
	fx_out_free(&o);
}

/* A lock kind's wait histogram: under its key, "lock" naming the kind. */
struct hist_key_case {
	unsigned int kind;	/* enum ls_hist_kind */
	char key[24];
	char lock[16];
};

ParameterizedTestParameters(sink_json, lock_wait_histogram_keys)
{
	static struct hist_key_case cases[] = {
		{ LS_HIST_WAIT, "wait", "mmap_lock" },
		{ LS_HIST_WAIT_FUTEX, "futex_wait", "futex" },
		{ LS_HIST_WAIT_PI_FUTEX, "pi_futex_wait", "pi_futex" },
		{ LS_HIST_WAIT_MUTEX, "mutex_wait", "mutex" },
		{ LS_HIST_WAIT_RWSEM, "rwsem_wait", "rwsem" },
		{ LS_HIST_WAIT_RT_MUTEX, "rt_mutex_wait", "rt_mutex" },
		{ LS_HIST_WAIT_PERCPU_RWSEM, "percpu_rwsem_wait", "percpu_rwsem" },
	};

	return cr_make_param_array(struct hist_key_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct hist_key_case *c, sink_json, lock_wait_histogram_keys)
{
	struct sink_opts opts = { .top = 0 };
	struct ls_hist_set set;
	struct ls_hist_entry e;
	struct fx_out o;
	struct sink *s;
	struct lines l;
	json_t *hs, *v;

	fx_hist(&e, 7, c->kind, 1, "waiter", 4000);
	hist_set(&set, &e, 1);
	fx_out_open(&o);
	s = sink_json__new(o.f, &opts);
	cr_assert_eq(sink__interval(s, &set), 0);
	sink__free(s);
	parse_lines(fx_out_close(&o), &l);

	hs = field(l.v[0], "histograms", JSON_OBJECT);
	v = field(hs, c->key, JSON_ARRAY);
	cr_assert_eq(json_array_size(v), 1, "%s", c->key);
	expect_hist(json_array_get(v, 0), 7, "waiter", "write", 4000);
	expect_s(json_array_get(v, 0), "lock", c->lock);
	cr_assert_eq(json_object_size(hs), LS_HIST_KIND_N, "one key per histogram kind");
	free_lines(&l);
	fx_out_free(&o);
}

Test(sink_json, histograms_filtered_by_pid)
{
	struct sink_opts opts = { .top = 0, .filter_pid = 3 };
	struct ls_hist_entry e[3];
	struct ls_hist_set set;
	struct fx_out o;
	struct sink *s;
	struct lines l;
	json_t *wait;

	fx_hist(&e[0], 1, LS_HIST_WAIT, 0, "a", 1000);
	fx_hist(&e[1], 3, LS_HIST_WAIT, 0, "b", 900);
	fx_hist(&e[2], 3, LS_HIST_WAIT, 1, "b", 800);
	hist_set(&set, e, 3);
	fx_out_open(&o);
	s = sink_json__new(o.f, &opts);
	cr_assert_eq(sink__interval(s, &set), 0);
	sink__free(s);
	parse_lines(fx_out_close(&o), &l);
	wait = field(field(l.v[0], "histograms", JSON_OBJECT), "wait", JSON_ARRAY);
	cr_assert_eq(json_array_size(wait), 2);
	expect_u(json_array_get(wait, 0), "pid", 3);
	expect_u(json_array_get(wait, 1), "pid", 3);
	free_lines(&l);
	fx_out_free(&o);
}

/* ---- summary ---- */

Test(sink_json, summary_contract)
{
	struct ls_hist_entry e[2];
	struct ls_hist_set set;
	struct ls_summary sum = {
		.start_ns = FX_T0,
		.end_ns = FX_T0 + 10 * NSEC_PER_SEC,
		.duration_ns = 10 * NSEC_PER_SEC,
		.stalls = 6,
		.stalls_by_verdict = { 1, 2, 3, 0 },
		.events = 12345,
		.lost_events = 77,
		.bad_records = 2,
		.evicted = 4,
		.hists = &set,
	};
	struct fx_out o;
	struct sink *s;
	struct lines l;
	json_t *o0, *v, *hs;

	fx_hist(&e[0], 1234, LS_HIST_WAIT, 1, "victim", 5000000);
	fx_hist(&e[1], 2001, LS_HIST_OFFCPU, LS_HIST_ANY_MODE, "reader", 4000000);
	hist_set(&set, e, 2);
	fx_out_open(&o);
	s = sink_json__new(o.f, &default_opts);
	cr_assert_eq(sink__summary(s, &sum), 0);
	sink__free(s);
	parse_lines(fx_out_close(&o), &l);
	cr_assert_eq(l.n, 1);
	o0 = l.v[0];

	expect_s(o0, "type", "summary");
	expect_u(o0, "duration_ns", 10 * NSEC_PER_SEC);
	expect_u(o0, "start_ns", FX_T0);
	expect_u(o0, "end_ns", FX_T0 + 10 * NSEC_PER_SEC);
	expect_u(o0, "stalls", 6);
	v = field(o0, "stalls_by_verdict", JSON_OBJECT);
	/* deadlock only once one was seen: summaries without one read as before */
	cr_assert_eq(json_object_size(v), LS_VERDICT_N - 1);
	cr_assert_null(json_object_get(v, "deadlock"));
	expect_u(v, "priority_inversion", 1);
	expect_u(v, "holder_off_cpu", 2);
	expect_u(v, "contention", 3);
	expect_u(v, "unknown", 0);
	expect_u(o0, "events", 12345);
	expect_u(o0, "lost_events", 77);
	expect_u(o0, "bad_records", 2);
	expect_u(o0, "evicted", 4);
	hs = field(o0, "histograms", JSON_OBJECT);
	cr_assert_eq(json_array_size(field(hs, "wait", JSON_ARRAY)), 1);
	expect_hist(json_array_get(field(hs, "wait", JSON_ARRAY), 0), 1234, "victim", "write", 5000000);
	cr_assert_eq(json_array_size(field(hs, "hold", JSON_ARRAY)), 0);
	expect_hist(json_array_get(field(hs, "offcpu", JSON_ARRAY), 0), 2001, "reader", NULL, 4000000);
	free_lines(&l);
	fx_out_free(&o);
}

Test(sink_json, summary_without_histograms)
{
	struct ls_summary sum = { .stalls = 0 };
	struct fx_out o;
	struct sink *s;
	struct lines l;
	json_t *hs;

	fx_out_open(&o);
	s = sink_json__new(o.f, &default_opts);
	cr_assert_eq(sink__summary(s, &sum), 0);
	sink__free(s);
	parse_lines(fx_out_close(&o), &l);
	hs = field(l.v[0], "histograms", JSON_OBJECT);
	cr_assert_eq(json_array_size(field(hs, "wait", JSON_ARRAY)), 0);
	expect_u(l.v[0], "stalls", 0);
	free_lines(&l);
	fx_out_free(&o);
}

/* A whole run: stalls, intervals, summary, each its own line, in order. */
Test(sink_json, json_lines_stream)
{
	struct ls_holder h;
	struct ls_stall st;
	struct ls_hist_set set;
	struct ls_summary sum = { .stalls = 2 };
	struct fx_out o;
	struct sink *s;
	struct lines l;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	hist_set(&set, NULL, 0);
	fx_out_open(&o);
	s = sink_json__new(o.f, &default_opts);
	cr_assert_eq(sink__stall(s, &st), 0);
	cr_assert_eq(sink__interval(s, &set), 0);
	st.seq = 4;
	cr_assert_eq(sink__stall(s, &st), 0);
	cr_assert_eq(sink__summary(s, &sum), 0);
	sink__free(s);
	parse_lines(fx_out_close(&o), &l);
	cr_assert_eq(l.n, 4);
	expect_s(l.v[0], "type", "stall");
	expect_u(l.v[0], "seq", 3);
	expect_s(l.v[1], "type", "histograms");
	expect_u(l.v[2], "seq", 4);
	expect_s(l.v[3], "type", "summary");
	free_lines(&l);
	fx_out_free(&o);
}

Test(sink_json, full_disk_is_enospc)
{
	struct ls_stall st;
	struct ls_summary sum = { .stalls = 0 };
	struct sink *s;
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	fx_stall(&st, NULL, 0);
	s = sink_json__new(f, &default_opts);
	cr_assert_eq(sink__stall(s, &st), -ENOSPC);
	cr_assert_eq(sink__summary(s, &sum), -ENOSPC);
	sink__free(s);
	fclose(f);
}

/* A wait still open: "type":"pending", no seq, the holder as it is now. */
Test(sink_json, pending_contract)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *o, *h0;
	char *text;

	fx_stall_pending(&st, &h);
	st.at_exit = true;
	text = json_of_stall(&st);
	parse_lines(text, &l);
	cr_assert_eq(l.n, 1);
	o = l.v[0];
	expect_s(o, "type", "pending");
	expect_absent(o, "seq");
	expect_u(o, "report", 2);
	cr_assert(json_is_true(field(o, "at_exit", JSON_TRUE)));
	expect_u(o, "first_report_ns", FX_T0 + FX_MS(2234));
	expect_u(o, "start_ns", FX_T0 + FX_MS(1234));
	expect_u(o, "wait_ns", 23400000);
	expect_s(o, "verdict", "priority_inversion");
	h0 = json_array_get(field(o, "holders", JSON_ARRAY), 0);
	cr_assert_not_null(h0);
	expect_s(h0, "state_now", "preempted");
	expect_u(h0, "state_since_ns", FX_T0 + FX_MS(1000));
	cr_assert(json_is_false(field(h0, "mm_confirmed", JSON_FALSE)));
	cr_assert(json_is_false(field(h0, "released", JSON_FALSE)));
	free_lines(&l);
	free(text);
}

/* A stall that was reported pending says so; one that was not has no such fields. */
Test(sink_json, stall_refers_to_pending_reports)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	char *text;

	fx_holder_reader(&h);
	fx_stall(&st, &h, 1);
	text = json_of_stall(&st);
	parse_lines(text, &l);
	expect_absent(l.v[0], "pending_reports");
	expect_absent(json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0), "state_now");
	free_lines(&l);
	free(text);

	st.pending_reports = 3;
	st.pending_first_ns = FX_T0 + FX_MS(2000);
	text = json_of_stall(&st);
	parse_lines(text, &l);
	expect_s(l.v[0], "type", "stall");
	expect_u(l.v[0], "pending_reports", 3);
	expect_u(l.v[0], "first_report_ns", FX_T0 + FX_MS(2000));
	free_lines(&l);
	free(text);
}

/* A kernel lock's lock_id: no process, its names (any bytes) as JSON strings. */
Test(sink_json, kernel_lock_names)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *lock;
	char *text;

	fx_holder_reader(&h);
	h.how = LS_OWNER_KLOCK;
	fx_stall(&st, &h, 1);
	st.lock.kind = LS_LOCK_MUTEX;
	st.lock.id = 0xffffffff83a0c2e0ULL;
	st.lock.tgid = 0;
	st.lock_name = "cgroup_mutex\n\"x";
	st.lock_caller = "cgroup_mkdir";
	text = json_of_stall(&st);
	parse_lines(text, &l);
	cr_assert_eq(l.n, 1);
	expect_s(l.v[0], "lock", "mutex");
	lock = field(l.v[0], "lock_id", JSON_OBJECT);
	expect_s(lock, "kind", "mutex");
	expect_s(lock, "addr", "0xffffffff83a0c2e0");
	expect_s(lock, "name", "cgroup_mutex\n\"x");
	expect_s(lock, "caller", "cgroup_mkdir");
	expect_absent(lock, "pid");
	expect_s(json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0), "found_by", "lock_owner");
	free_lines(&l);
	free(text);
}

/* A chain hop's lock has its names too (no caller: that is the waiter's). */
Test(sink_json, chain_hop_lock_names)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *lock;
	char *text;

	fx_stall_hop_lock(&st, &h, "g_queue+0x10\n", "/usr/lib/app");
	text = json_of_stall(&st);
	parse_lines(text, &l);
	cr_assert_eq(l.n, 1);
	lock = field(json_array_get(field(l.v[0], "chain", JSON_ARRAY), 1), "lock", JSON_OBJECT);
	expect_s(lock, "kind", "futex");
	expect_s(lock, "name", "g_queue+0x10\n");
	expect_s(lock, "module", "/usr/lib/app");
	expect_absent(lock, "caller");
	free_lines(&l);
	free(text);
}

/* By name: "processes" and "pids" say whose; what was left out is counted per kind. */
Test(sink_json, histograms_by_name_say_whose_and_what_was_left_out)
{
	struct sink_opts opts = { .top = 1, .hist_min_ns = 1000000 };
	struct ls_hist_entry e[5];
	struct ls_hist_set set;
	struct fx_out o;
	struct sink *s;
	struct lines l;
	json_t *wait, *h, *pids, *cut;

	fx_hist(&e[0], 7, LS_HIST_WAIT, 0, "ps", 2000000);
	e[0].hist.slots[12] = 1;
	fx_hist(&e[1], 9, LS_HIST_WAIT, 0, "ps", 3000000);
	fx_hist(&e[2], 8, LS_HIST_WAIT, 0, "bash", 1000000);
	e[2].hist.slots[12] = 1;
	fx_hist(&e[3], 5, LS_HIST_WAIT, 1, "quiet", 1000);
	fx_hist(&e[4], 5, LS_HIST_HOLD, LS_HIST_ANY_MODE, "quiet", 1000);
	hist_set(&set, e, 5);
	fx_out_open(&o);
	s = sink_json__new(o.f, &opts);
	cr_assert_eq(sink__interval(s, &set), 0);
	sink__free(s);
	parse_lines(fx_out_close(&o), &l);

	wait = field(field(l.v[0], "histograms", JSON_OBJECT), "wait", JSON_ARRAY);
	cr_assert_eq(json_array_size(wait), 1);
	h = json_array_get(wait, 0);
	expect_s(h, "comm", "ps");
	expect_u(h, "pid", 9);		/* the one with most time */
	expect_u(h, "processes", 2);
	expect_u(h, "sum_ns", 5000000);
	pids = field(h, "pids", JSON_ARRAY);
	cr_assert_eq(json_array_size(pids), 2);
	cr_assert_eq(json_integer_value(json_array_get(pids, 0)), 9);
	cr_assert_eq(json_integer_value(json_array_get(pids, 1)), 7);
	cr_assert(json_is_false(json_object_get(l.v[0], "histograms_per_pid")));
	expect_u(l.v[0], "histograms_min_ns", 1000000);
	cut = field(l.v[0], "histograms_not_shown", JSON_OBJECT);
	expect_u(field(cut, "wait", JSON_OBJECT), "top", 1);		/* bash */
	expect_u(field(cut, "wait", JSON_OBJECT), "under_min", 1);	/* quiet */
	expect_u(field(cut, "hold", JSON_OBJECT), "under_min", 1);
	expect_u(field(cut, "offcpu", JSON_OBJECT), "top", 0);
	free_lines(&l);
	fx_out_free(&o);
}

/* runnable: the CPUs as lists and counts; steal: its time only. */
Test(sink_json, cause_runnable_and_steal)
{
	struct ls_holder h;
	struct ls_stall st;
	struct lines l;
	json_t *c, *rn;
	char *text;

	fx_holder_reader(&h);
	h.cause_ns[LS_CAUSE_RUNNABLE] = FX_MS(40);
	h.cause_ns[LS_CAUSE_STEAL] = FX_MS(3);
	h.cause = LS_CAUSE_RUNNABLE;
	h.pinned = (struct ls_pinned){ .allowed = 0x2, .idle_cpus = 0x5, .nr_cpus_allowed = 1,
				       .nr_cpus = 3 };
	fx_stall(&st, &h, 1);
	st.cause = LS_CAUSE_RUNNABLE;
	st.advice = ls_advice(&st);
	text = json_of_stall(&st);
	parse_lines(text, &l);
	expect_s(l.v[0], "cause", "runnable");
	c = field(json_array_get(field(l.v[0], "holders", JSON_ARRAY), 0), "causes", JSON_OBJECT);
	rn = field(c, "runnable", JSON_OBJECT);
	expect_u(rn, "ns", FX_MS(40));
	expect_s(rn, "allowed_cpus", "1");
	expect_u(rn, "nr_cpus_allowed", 1);
	expect_u(rn, "nr_cpus", 3);
	expect_s(rn, "idle_cpus", "0,2");
	expect_u(field(c, "steal", JSON_OBJECT), "ns", FX_MS(3));
	cr_assert_null(json_object_get(field(c, "steal", JSON_OBJECT), "allowed_cpus"));
	cr_assert(strstr(json_string_value(json_object_get(l.v[0], "advice")), "affinity"));
	free_lines(&l);
	free(text);
}

/* A PI futex's owner says whether it was boosted in time; other holders say nothing of it. */
Test(sink_json, pi_boost_fields)
{
	struct ls_holder h;
	struct ls_stall st;
	char *text;

	fx_stall_pi_late(&st, &h);
	text = json_of_stall(&st);
	cr_assert_not_null(strstr(text, "\"pi_boosted_in_time\":false,\"pi_unboosted_ns\":22900000"),
			   "%s", text);
	free(text);
	st.lock.kind = LS_LOCK_FUTEX;
	h.how = LS_OWNER_PTHREAD;
	text = json_of_stall(&st);
	cr_assert_null(strstr(text, "pi_boosted_in_time"), "%s", text);
	free(text);
}
