// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * STACK records in the engine: parked on their task, then carried by the
 * stall (the waiter's) or kept with the completed hold (a holder's); a
 * stack for another lock, or one whose record never came, is dropped; the
 * memory they take is bounded; malformed ones are counted and skipped.
 */
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "engine/internal.h"
#include "lib/engine_fixture.h"
#include "util.h"

TestSuite(engine_stacks, .init = fixture__setup, .fini = fixture__teardown);

static const __u64 waiter_ips[] = { 0xffffffff81000100ULL, 0xffffffff81000200ULL };
static const __u64 holder_ips[] = { 0xffffffff81000300ULL };

/* The classic inversion (scenario__preempted_holder), with stacks before HOLD and WAIT_END. */
static void inversion_with_stacks(const struct ls_lock_id *hold_stack_mm, const struct ls_lock_id *wait_stack_mm)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(49) };

	stream__switch(&efx.s, 0, T(1), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(2));
	stream__switch(&efx.s, 0, T(50), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__stack(&efx.s, 0, T(51), &efx.holder, hold_stack_mm, LS_STACK_HOLD_OFF, holder_ips,
		      ARRAY_SIZE(holder_ips), 256);
	stream__hold(&efx.s, 0, T(51), &efx.holder, &efx.mm, &h);
	stream__wakeup(&efx.s, 0, T(51), &efx.waiter, LS_TASK_F_WAITING, &efx.holder, 1, NULL);
	stream__switch(&efx.s, 1, T(52), NULL, 0, false, &efx.waiter, LS_TASK_F_WAITING);
	stream__stack(&efx.s, 1, T(53), &efx.waiter, wait_stack_mm, LS_STACK_WAIT, waiter_ips,
		      ARRAY_SIZE(waiter_ips), 0);
	{
		struct stream_lock w = { .start = T(2), .write = true,
					 .flags = LS_LOCK_F_BEGIN_SENT };

		stream__wait_end(&efx.s, 1, T(53), &efx.waiter, &efx.mm, &w);
	}
}

Test(engine_stacks, stall_carries_waiter_and_holder_stacks)
{
	const struct ls_stall *st;
	struct engine_debug d;

	inversion_with_stacks(&efx.mm, &efx.mm);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_not_null(st->waiter_stack, "the waiter's stack did not reach the stall");
	cr_assert_eq(st->waiter_stack->tid, efx.waiter.tid);
	cr_assert_eq(st->waiter_stack->why, LS_STACK_WAIT);
	cr_assert_eq(st->waiter_stack->nr_kernel, 2);
	cr_assert_eq(st->waiter_stack->kernel[1], waiter_ips[1]);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_not_null(st->holders[0].stack, "the holder's stack did not reach the stall");
	cr_assert_eq(st->holders[0].stack->why, LS_STACK_HOLD_OFF);
	cr_assert_eq(st->holders[0].stack->kernel[0], holder_ips[0]);
	cr_assert_eq(st->holders[0].stack->copy_len, 256);
	cr_assert_null(st->waiter_frames, "the engine resolves nothing");

	/* the waiter's went with its stall; the holder's stays with its hold */
	engine__debug(efx.e, &d);
	cr_assert_eq(d.stack_bytes, sizeof(struct ls_rec_stack) + 256);
	cr_assert_eq(engine__finish(efx.e), 0);
	cr_assert_eq(efx.cs->summary.bad_records, 0);
}

/* Parked for another mm (its own record was lost): never shown as this lock's. */
Test(engine_stacks, stack_of_another_lock_is_dropped)
{
	struct ls_lock_id other = stream__mm(0xffff888000999000ULL, 300, "other");
	const struct ls_stall *st;
	struct engine_debug d;

	inversion_with_stacks(&other, &other);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	st = fixture__stall(0);
	cr_assert_null(st->waiter_stack);
	cr_assert_null(st->holders[0].stack);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.stack_bytes, 0, "%llu bytes of stacks left", (unsigned long long)d.stack_bytes);
}

/* A wait under the threshold: its stack goes with it, no stall. */
Test(engine_stacks, short_wait_frees_its_stack)
{
	struct stream_lock w = { .start = T(0), .write = true };
	struct engine_debug d;

	stream__stack(&efx.s, 1, T(1), &efx.waiter, &efx.mm, LS_STACK_WAIT, waiter_ips, 2, 4096);
	stream__wait_end(&efx.s, 1, T(1), &efx.waiter, &efx.mm, &w);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, 0);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.stack_bytes, 0);
}

/* Stacks whose records never come (lost) stay bounded in memory. */
Test(engine_stacks, memory_is_bounded)
{
	struct engine_debug d;
	__u32 i;

	for (i = 0; i < 3000; i++) {
		struct ls_task t = stream__task(1000 + i, 1000 + i, LS_POLICY_NORMAL, 0, 0, "t");

		stream__stack(&efx.s, 0, T(1) + i, &t, &efx.mm, LS_STACK_WAIT, waiter_ips, 2,
			      LS_USTACK_COPY_MAX);
	}
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	engine__debug(efx.e, &d);
	cr_assert_leq(d.stack_bytes, ENGINE_MAX_STACK_BYTES);
	cr_assert_gt(d.stack_bytes, ENGINE_MAX_STACK_BYTES / 2);
	cr_assert(fixture__run() == 0);
	cr_assert_gt(efx.cs->summary.evicted, 0, "stacks past the bound were not counted");
}

struct bad_stack {
	char name[40];
	__u32 field;		/* which one to break */
	__u64 value;
};

enum { BAD_WHY, BAD_NR_KERNEL, BAD_NR_USER, BAD_COPY_LEN, BAD_SIZE, BAD_TID, BAD_MODE };

static struct bad_stack bad_stacks[] = {
	{ "why 0", BAD_WHY, 0 },
	{ "why past the last", BAD_WHY, LS_STACK_NOW + 1 },
	{ "too many kernel frames", BAD_NR_KERNEL, LS_KSTACK_MAX + 1 },
	{ "too many user frames", BAD_NR_USER, LS_USTACK_MAX + 1 },
	{ "copy longer than the record", BAD_COPY_LEN, 65 },
	{ "size not the length", BAD_SIZE, sizeof(struct ls_rec_stack) + 8 },
	{ "tid 0", BAD_TID, 0 },
	{ "unknown user mode", BAD_MODE, LS_USTACK_DWARF + 1 },
};

ParameterizedTestParameters(engine_stacks, malformed_is_counted)
{
	return cr_make_param_array(struct bad_stack, bad_stacks, ARRAY_SIZE(bad_stacks));
}

ParameterizedTest(struct bad_stack *c, engine_stacks, malformed_is_counted)
{
	unsigned char buf[sizeof(struct ls_rec_stack) + 64];
	struct ls_rec_stack *r = (struct ls_rec_stack *)buf;
	struct engine_debug d;

	memset(buf, 0, sizeof(buf));
	r->hdr.type = LS_REC_STACK;
	r->hdr.size = sizeof(buf);
	r->hdr.ts = T(1);
	r->tid = 7;
	r->tgid = 7;
	r->why = LS_STACK_WAIT;
	r->copy_len = 64;
	switch (c->field) {
	case BAD_WHY:
		r->why = (__u8)c->value;
		break;
	case BAD_NR_KERNEL:
		r->nr_kernel = (__u16)c->value;
		break;
	case BAD_NR_USER:
		r->nr_user = (__u16)c->value;
		break;
	case BAD_COPY_LEN:
		r->copy_len = (__u32)c->value;
		break;
	case BAD_SIZE:
		r->hdr.size = (__u16)c->value;
		break;
	case BAD_TID:
		r->tid = 0;
		break;
	case BAD_MODE:
		r->user_mode = (__u8)c->value;
		break;
	}
	stream__raw(&efx.s, buf, sizeof(buf));
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->summary.bad_records, 1, "%s: not counted as malformed", c->name);
	engine__debug(efx.e, &d);
	cr_assert_eq(d.stack_bytes, 0, "%s: kept", c->name);
}
