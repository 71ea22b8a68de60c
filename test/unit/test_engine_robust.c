// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A hostile or corrupt stream: malformed records are counted and skipped,
 * garbage never crashes or hangs the engine, and its memory stays bounded.
 */
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"
#include "util.h"

TestSuite(robust, .init = fixture__setup, .fini = fixture__teardown);

struct bad_case {
	char name[48];		/* inline: Criterion copies params into its worker */
	__u16 type;
	__u16 size;		/* hdr.size */
	size_t len;		/* bytes handed to engine__feed */
	size_t patch_off;	/* then write patch (4 bytes) here, if patch_len */
	__u32 patch;
	size_t patch_len;
};

#define OFF(type, field) offsetof(struct type, field)

#define BAD(name_, type_, size_, len_) \
	{ .name = name_, .type = type_, .size = size_, .len = len_ }
#define BAD_FIELD(name_, type_, size_, off_, val_, plen_) \
	{ .name = name_, .type = type_, .size = size_, .len = size_, \
	  .patch_off = off_, .patch = val_, .patch_len = plen_ }

static struct bad_case bad_cases[] = {
	BAD("empty", LS_REC_SWITCH, 88, 0),
	BAD("shorter than a header", LS_REC_SWITCH, 88, 8),
	BAD("zero size", LS_REC_SWITCH, 0, 16),
	BAD("zero size, zero type", 0, 0, 16),
	BAD("truncated", LS_REC_SWITCH, 88, 80),
	BAD("size field short of the type", LS_REC_SWITCH, 80, 80),
	BAD("size field past the type", LS_REC_SWITCH, 96, 96),
	BAD("size field and length disagree", LS_REC_SWITCH, 88, 96),
	BAD("lock record of switch size", LS_REC_HOLD, 88, 88),
	BAD("unknown type 9", 9, 24, 24),
	BAD("unknown type 0", 0, 16, 16),
	BAD("type max", LS_REC_TYPE_MAX, 24, 24),
	BAD("type 0xffff", 0xffff, 16, 16),
	BAD("mark kind 0", LS_REC_MARK, 24, 24),
	BAD_FIELD("cpu past the bound", LS_REC_SWITCH, 88, OFF(ls_hdr, cpu), ENGINE_MAX_CPUS, 2),
	BAD_FIELD("wakeup target cpu", LS_REC_WAKEUP, 120, OFF(ls_rec_wakeup, target_cpu),
		  0xffffffff, 4),
	BAD_FIELD("migrate to cpu", LS_REC_MIGRATE, 96, OFF(ls_rec_migrate, to_cpu),
		  ENGINE_MAX_CPUS, 4),
	BAD_FIELD("migrate from cpu", LS_REC_MIGRATE, 96, OFF(ls_rec_migrate, from_cpu),
		  1u << 31, 4),
	BAD_FIELD("hist kind", LS_REC_HIST, 312, OFF(ls_rec_hist, key.kind), LS_HIST_KIND_N, 1),
	BAD_FIELD("hist mode", LS_REC_HIST, 312, OFF(ls_rec_hist, key.write), 5, 1),
	BAD_FIELD("mark kind 9", LS_REC_MARK, 24, OFF(ls_rec_mark, kind), 9, 4),
};

ParameterizedTestParameters(robust, malformed_record)
{
	return cr_make_param_array(struct bad_case, bad_cases, ARRAY_SIZE(bad_cases));
}

ParameterizedTest(struct bad_case *c, robust, malformed_record)
{
	unsigned char buf[512];
	struct ls_hdr hdr = { .type = c->type, .size = c->size, .lost_before = 9, .ts = T(1) };
	struct ls_summary sum;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &hdr, sizeof(hdr));
	if (c->patch_len)
		memcpy(buf + c->patch_off, &c->patch, c->patch_len);
	cr_assert_eq(engine__feed(fixture__engine(), c->len ? buf : NULL, c->len), 0);
	engine__summary(efx.e, &sum);
	cr_assert_eq(sum.events, 1, "%s", c->name);
	cr_assert_eq(sum.bad_records, 1, "%s", c->name);
	cr_assert_eq(sum.lost_events, 0, "%s: a bad record's lost_before is not trusted", c->name);
}

/* The control: the same buffer, well formed, is not bad. */
Test(robust, well_formed_control)
{
	struct ls_summary sum;

	stream__switch(&efx.s, 0, T(1), NULL, 0, false, NULL, 0);
	stream__mark(&efx.s, T(2), LS_MARK_END, 0);
	cr_assert_eq(fixture__run(), 0);
	engine__summary(efx.e, &sum);
	cr_assert_eq(sum.events, 2);
	cr_assert_eq(sum.bad_records, 0);
}

/* Records at odd addresses (a trace file read into a byte buffer) still parse. */
Test(robust, unaligned_records)
{
	unsigned char buf[512 + 3];
	struct ls_summary sum;

	scenario__preempted_holder(&efx.holder, true, &efx.waiter, true, &efx.hog);
	{
		size_t off = 0, i;

		for (i = 0; i < efx.s.n; i++) {
			memcpy(buf + 3, efx.s.buf + off, efx.s.lens[i]);
			cr_assert_eq(engine__feed(fixture__engine(), buf + 3, efx.s.lens[i]), 0);
			off += efx.s.lens[i];
		}
	}
	engine__summary(efx.e, &sum);
	cr_assert_eq(sum.bad_records, 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
}

/* xorshift64*: a fixed stream of garbage, the same on every run. */
static __u64 prng(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static const __u16 known_types[] = {
	LS_REC_WAIT_BEGIN, LS_REC_WAIT_END, LS_REC_HOLD, LS_REC_SWITCH, LS_REC_WAKEUP,
	LS_REC_MIGRATE, LS_REC_EXIT, LS_REC_HIST, LS_REC_MARK, LS_REC_LOST,
};

#define LOCK_SIZE sizeof(struct ls_rec_lock)
static const __u16 known_sizes[] = { LOCK_SIZE, LOCK_SIZE, LOCK_SIZE, 88, 120, 96, 56, 312, 24, 40 };

/*
 * Garbage of three kinds: random bytes; a valid header on random bytes;
 * and a valid header whose ids, flags and times are drawn from small sets,
 * so records collide on the same tasks, mms and CPUs and the engine's
 * deeper paths (spells, holds, stalls) run on nonsense.
 */
static void garbage(struct stream *s, __u64 seed, unsigned int n)
{
	unsigned char buf[400];
	struct ls_hdr hdr;
	__u64 st = seed, r, ts = T(0);
	unsigned int i, k, len, kind;

	for (i = 0; i < n; i++) {
		r = prng(&st);
		kind = r % 3;
		len = (r >> 8) % sizeof(buf);
		for (k = 0; k < sizeof(buf); k += 8) {
			r = prng(&st);
			memcpy(buf + k, &r, 8);
		}
		if (kind) {
			k = prng(&st) % ARRAY_SIZE(known_types);
			len = known_sizes[k];
			memset(&hdr, 0, sizeof(hdr));
			hdr.type = known_types[k];
			hdr.size = len;
			hdr.cpu = prng(&st) % 8;
			hdr.lost_before = prng(&st) % 64 ? 0 : 1;
			ts += prng(&st) % MS(5);
			hdr.ts = prng(&st) % 16 ? ts : prng(&st);
			memcpy(buf, &hdr, sizeof(hdr));
		}
		if (kind == 2) {
			/* Small id spaces: tids 1..8 in tgids 1..2, 3 mms, CPUs < 8. */
			for (k = 16; k + 8 <= len; k += 8) {
				r = prng(&st);
				if (r % 4 == 0)
					r = 1 + r % 8;		/* tid/tgid/cpu-like */
				else if (r % 4 == 1)
					r = ts - (r >> 8) % MS(100);	/* time-like */
				else if (r % 4 == 2)
					r = 0x1000 * (1 + r % 3);	/* mm-like */
				memcpy(buf + k, &r, 8);
			}
		}
		stream__raw(s, buf, len);
	}
}

struct fuzz_case {
	__u64 seed;
	__u64 threshold_ns;
	__u32 filter_pid;
};

static struct fuzz_case fuzz_cases[] = {
	{ 0x9e3779b97f4a7c15ULL, 10000000, 0 },
	{ 0x0123456789abcdefULL, 0, 0 },	/* every WAIT_END is a stall */
	{ 0xfeedfacecafebeefULL, 1, 2 },
};

ParameterizedTestParameters(robust, random_bytes)
{
	return cr_make_param_array(struct fuzz_case, fuzz_cases, ARRAY_SIZE(fuzz_cases));
}

ParameterizedTest(struct fuzz_case *c, robust, random_bytes)
{
	const unsigned int n = 60000;
	struct engine_debug d;
	struct ls_summary sum;
	size_t i, want_stalls;

	efx.opts.threshold_ns = c->threshold_ns;
	efx.opts.filter_pid = c->filter_pid;
	garbage(&efx.s, c->seed, n);
	cr_assert_eq(fixture__run(), 0);
	engine__summary(efx.e, &sum);
	cr_assert_eq(sum.events, n);
	cr_assert_gt(sum.bad_records, 0);
	cr_assert_lt(sum.bad_records, n, "some garbage must get past validation");
	cr_assert_eq(sum.stalls, efx.cs->n_stalls);
	if (!c->threshold_ns)
		cr_assert_gt(efx.cs->n_stalls, 0, "threshold 0 on garbage finds stalls");
	/* Whatever came out is internally consistent. */
	for (i = 0; i < efx.cs->n_stalls; i++) {
		const struct ls_stall *st = fixture__stall(i);

		cr_assert_leq(st->n_holders, LS_MAX_HOLDERS);
		cr_assert_geq(st->n_chain, 1);
		cr_assert_leq(st->n_chain, LS_MAX_HOPS);
		cr_assert_lt(st->verdict, LS_VERDICT_N);
		cr_assert_eq(st->chain[0].role, LS_ROLE_WAITER);
		if (st->n_holders)
			cr_assert_leq(st->holders[0].offcpu_ns, st->holders[0].overlap_ns);
	}
	want_stalls = 0;
	for (i = 0; i < LS_VERDICT_N; i++)
		want_stalls += sum.stalls_by_verdict[i];
	cr_assert_eq(want_stalls, sum.stalls);
	engine__debug(efx.e, &d);
	cr_assert_leq(d.tasks, ENGINE_MAX_TASKS);
	cr_assert_leq(d.lossy_spans, ENGINE_LOSSY_SPANS);
	cr_assert_leq(d.hist_keys, ENGINE_MAX_HIST_KEYS);
}

/* Endless losses: the lossy spans stay bounded, the count stays exact. */
Test(robust, lossy_spans_bounded)
{
	struct engine_debug d;
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		stream__lost_before(&efx.s, 2);
		stream__switch(&efx.s, i % 4, T(i), NULL, 0, false, NULL, 0);
	}
	stream__lost(&efx.s, T(1000), 5, T(999), T(1000));
	cr_assert_eq(fixture__run(), 0);
	engine__debug(efx.e, &d);
	cr_assert_leq(d.lossy_spans, ENGINE_LOSSY_SPANS);
	cr_assert_eq(efx.cs->summary.lost_events, 2005);
}

/* A holder preempted through a storm of switches: the runner history stays bounded. */
Test(robust, runner_history_bounded)
{
	static const struct ls_task a = FX_NORMAL(201, 201, 0, "a");
	static const struct ls_task b = FX_NORMAL(202, 202, 0, "b");
	struct stream_lock h = { .start = T(0), .write = true };
	struct engine_debug d;
	const struct ls_stall *st;
	unsigned int i, n = 2 * ENGINE_RUNS_MAX + 100;

	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &a, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	for (i = 0; i < n; i++)
		stream__switch(&efx.s, 0, T(3) + i * 2000ULL, i % 2 ? &b : &a, 0, true,
			       i % 2 ? &a : &b, 0);
	stream__switch(&efx.s, 0, T(300), &a, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(301), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(2), T(303), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	engine__debug(efx.e, &d);
	cr_assert_leq(d.runs, ENGINE_RUNS_MAX);
	cr_assert_eq(efx.cs->summary.stalls_short, 1, "history overwritten while it mattered");
	st = fixture__stall(0);
	cr_assert(st->history_short, "the stall does not say it lost history");
	cr_assert_eq(st->holders[0].offcpu_ns, MS(298));
	cr_assert_eq(st->holders[0].n_preempted_by, 2);
	/* the overwritten span is still off-CPU time, just unnamed */
	cr_assert_gt(st->holders[0].preempted_other_ns, 0);
	cr_assert_eq(st->holders[0].preempted_by[0].ns + st->holders[0].preempted_by[1].ns +
		     st->holders[0].preempted_other_ns, MS(298));
}

/* History overwritten on a busy CPU before any wait began costs no stall anything. */
Test(robust, runner_history_turnover_is_not_eviction)
{
	static const struct ls_task a = FX_NORMAL(201, 201, 0, "a");
	static const struct ls_task b = FX_NORMAL(202, 202, 0, "b");
	struct stream_lock h = { .start = T(0), .write = true };
	const struct ls_stall *st;
	unsigned int i, n = 2 * ENGINE_RUNS_MAX + 100;

	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &a, 0);
	for (i = 0; i < n; i++)
		stream__switch(&efx.s, 0, T(3) + i * 2000ULL, i % 2 ? &b : &a, 0, true,
			       i % 2 ? &a : &b, 0);
	/* the waiter comes after the turnover, while the hogs still run */
	scenario__wait_begin(&efx.waiter, true, T(270));
	stream__switch(&efx.s, 0, T(300), &a, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(301), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(270), T(303), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	st = fixture__stall(0);
	cr_assert_eq(efx.cs->summary.evicted, 0);
	cr_assert_eq(st->holders[0].offcpu_ns, MS(30));
	cr_assert_eq(st->holders[0].preempted_other_ns, 0);
}

/* Histogram keys beyond the bound are dropped, counted. */
Test(robust, hist_keys_bounded)
{
	struct ls_hist h;
	struct engine_debug d;
	unsigned int i, n = ENGINE_MAX_HIST_KEYS + 100;

	memset(&h, 0, sizeof(h));
	h.count = 1;
	for (i = 0; i < n; i++)
		stream__hist(&efx.s, T(1), i + 1, LS_HIST_WAIT, 0, &h);
	cr_assert_eq(fixture__run(), 0);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.hist_keys, ENGINE_MAX_HIST_KEYS);
	cr_assert_eq(efx.cs->summary.evicted, 100);
	cr_assert_eq(efx.cs->summary.hists->n, ENGINE_MAX_HIST_KEYS);
}

/*
 * A holder preempted on several CPUs in turn, each through a full runner
 * history: more run visits than one stall may make.  The time past the
 * budget is summed unnamed, so named + unnamed still equals off-CPU time.
 */
Test(robust, stall_work_bounded)
{
	static const struct ls_task a = FX_NORMAL(201, 201, 0, "a");
	static const struct ls_task b = FX_NORMAL(202, 202, 0, "b");
	struct stream_lock h = { .start = T(0), .write = true };
	const struct ls_holder *hd;
	__u64 ts = T(2), named = 0;
	unsigned int cpu, i, k;

	scenario__wait_begin(&efx.waiter, true, T(1));
	/* enough CPUs of full history to exceed the per-stall budget */
	unsigned int n_cpus = ENGINE_STALL_RUN_BUDGET / (ENGINE_RUNS_MAX - 1) + 1;

	for (cpu = 2; cpu < 2 + n_cpus; cpu++) {
		stream__switch(&efx.s, cpu, ts, &efx.holder, LS_TASK_F_HOLDING, true, &a, 0);
		/* ENGINE_RUNS_MAX - 1 runs: the history holds them all. */
		for (i = 0; i < ENGINE_RUNS_MAX - 2; i++) {
			ts += 1000;
			stream__switch(&efx.s, cpu, ts, i % 2 ? &b : &a, 0, true, i % 2 ? &a : &b, 0);
		}
		ts += 1000;
		stream__switch(&efx.s, cpu, ts, &a, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	}
	stream__hold(&efx.s, 1 + n_cpus, ts + MS(1), &efx.holder, &efx.mm, &h);
	scenario__wait_end(&efx.waiter, true, T(1), ts + MS(3), &efx.holder);
	cr_assert_eq(fixture__run(), 0);
	hd = &fixture__stall(0)->holders[0];
	cr_assert_eq(hd->offcpu_ns, (__u64)n_cpus * (ENGINE_RUNS_MAX - 1) * 1000);
	cr_assert_eq(efx.cs->summary.evicted, 0);
	cr_assert_gt(hd->preempted_other_ns, 0, "the budget was not reached");
	for (k = 0; k < hd->n_preempted_by; k++)
		named += hd->preempted_by[k].ns;
	cr_assert_eq(named + hd->preempted_other_ns, hd->offcpu_ns);
}
