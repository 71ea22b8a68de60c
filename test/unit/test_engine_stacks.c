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

/*
 * --stack-interval: a WAIT_END or HOLD with LS_LOCK_F_STACK_SAME comes
 * without its stack, and its stall shows the last one its task sent for
 * the same lock, kind and op, marked as earlier.
 */
static const struct ls_op op_mmap = { .kind = LS_OP_SYSCALL, .syscall = 9 };
static const struct ls_op op_munmap = { .kind = LS_OP_SYSCALL, .syscall = 11 };
static const struct ls_op op_fault = { .kind = LS_OP_PAGE_FAULT, .addr = 0x1000 };

/* A 20 ms wait of the waiter on lock in op ending at end; kip: its stack, NULL: none (SAME). */
static void same__wait(const struct ls_lock_id *lock, const struct ls_op *op, __u64 end,
		       const __u64 *kip)
{
	struct stream_lock w = { .start = end - MS(20), .write = true, .op = *op };

	if (kip)
		stream__stack(&efx.s, 1, end, &efx.waiter, lock, LS_STACK_WAIT, kip, 1, 64);
	else
		w.flags = LS_LOCK_F_STACK_SAME;
	stream__wait_end(&efx.s, 1, end, &efx.waiter, lock, &w);
}

/* The innermost kernel frame of stall i's waiter stack; 0: none.  Earlier: marked so. */
static __u64 same__frame(unsigned int i, bool *earlier)
{
	const struct ls_rec_stack *s = fixture__stall(i)->waiter_stack;

	*earlier = s && (s->flags & LS_STACK_F_EARLIER);
	return s ? s->kernel[0] : 0;
}

static const __u64 ip_a[] = { 0xffffffff81000a00ULL };
static const __u64 ip_b[] = { 0xffffffff81000b00ULL };

Test(engine_stacks, same_reuses_the_last_stack_of_its_op)
{
	bool earlier;

	/* mmap and munmap alternate, as a loop makes them: each op its own stack */
	same__wait(&efx.mm, &op_mmap, T(100), ip_a);
	same__wait(&efx.mm, &op_munmap, T(200), ip_b);
	same__wait(&efx.mm, &op_mmap, T(300), NULL);
	same__wait(&efx.mm, &op_munmap, T(400), NULL);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, 4);
	cr_assert_eq(same__frame(0, &earlier), ip_a[0]);
	cr_assert(!earlier, "a stack taken for its own stall is not earlier");
	cr_assert_eq(same__frame(1, &earlier), ip_b[0]);
	cr_assert_eq(same__frame(2, &earlier), ip_a[0], "mmap's stall took another op's stack");
	cr_assert(earlier, "a reused stack is not marked earlier");
	cr_assert_eq(same__frame(3, &earlier), ip_b[0], "munmap's stall took another op's stack");
	cr_assert(earlier);
	cr_assert_eq(efx.cs->summary.bad_records, 0);
}

/* What a reuse may not take: another lock's, another kind's, one pushed out. */
Test(engine_stacks, same_never_takes_another_locks_stack)
{
	struct ls_lock_id other = stream__mm(0xffff888000999000ULL, 300, "other");
	bool earlier;

	same__wait(&other, &op_mmap, T(100), ip_a);
	same__wait(&efx.mm, &op_mmap, T(200), NULL);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);
	cr_assert_eq(same__frame(1, &earlier), 0, "a stack of another lock was reused");
}

Test(engine_stacks, same_keeps_as_many_ops_as_the_kernel)
{
	static const __u64 ips[LS_STACK_SAME_SLOTS + 1] = { 0xffffffff81001000ULL, 0xffffffff81002000ULL,
							    0xffffffff81003000ULL, 0xffffffff81004000ULL,
							    0xffffffff81005000ULL };
	struct ls_op op = { .kind = LS_OP_SYSCALL };
	bool earlier;
	int i;

	_Static_assert(LS_STACK_SAME_SLOTS + 1 == ARRAY_SIZE(ips), "one op more than the slots");
	/* one op more than the slots: the oldest, the first, is pushed out */
	for (i = 0; i <= LS_STACK_SAME_SLOTS; i++) {
		op.syscall = 100 + i;
		same__wait(&efx.mm, &op, T(100 * (i + 1)), &ips[i]);
	}
	op.syscall = 100;
	same__wait(&efx.mm, &op, T(1000), NULL);
	op.syscall = 101;
	same__wait(&efx.mm, &op, T(1100), NULL);
	same__wait(&efx.mm, &op_fault, T(1200), NULL);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, LS_STACK_SAME_SLOTS + 4);
	cr_assert_eq(same__frame(LS_STACK_SAME_SLOTS + 1, &earlier), 0, "the oldest was kept");
	cr_assert_eq(same__frame(LS_STACK_SAME_SLOTS + 2, &earlier), ips[1]);
	cr_assert(earlier);
	cr_assert_eq(same__frame(LS_STACK_SAME_SLOTS + 3, &earlier), 0, "a fault took a syscall's stack");
}

/* A stack from the stream that says it is earlier is not believed: that mark is the engine's. */
Test(engine_stacks, earlier_mark_comes_only_from_the_engine)
{
	unsigned char buf[sizeof(struct ls_rec_stack) + 64];
	struct ls_rec_stack *r = (struct ls_rec_stack *)buf;
	struct stream_lock w = { .start = T(80), .write = true, .op = op_mmap };
	bool earlier;

	memset(buf, 0, sizeof(buf));
	r->hdr.type = LS_REC_STACK;
	r->hdr.size = sizeof(buf);
	r->hdr.ts = T(100);
	r->tid = efx.waiter.tid;
	r->tgid = efx.waiter.tgid;
	r->lock_id = efx.mm.id;
	r->why = LS_STACK_WAIT;
	r->flags = LS_STACK_F_EARLIER;
	r->nr_kernel = 1;
	r->kernel[0] = ip_a[0];
	r->copy_len = 64;
	stream__raw(&efx.s, buf, sizeof(buf));
	stream__wait_end(&efx.s, 1, T(100), &efx.waiter, &efx.mm, &w);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	cr_assert_eq(same__frame(0, &earlier), ip_a[0]);
	cr_assert(!earlier, "the stream's claim was believed");
}

/* A hold's reuse takes the last hold stack of its op, not the wait's. */
Test(engine_stacks, same_hold_takes_a_hold_stack)
{
	struct stream_lock h = { .start = T(100), .acquired = T(100), .op = op_mmap };
	struct stream_lock w = { .start = T(139), .op = op_mmap };
	const struct ls_stall *st;

	stream__stack(&efx.s, 0, T(120), &efx.holder, &efx.mm, LS_STACK_HOLD_LONG, ip_b, 1, 64);
	stream__hold(&efx.s, 0, T(120), &efx.holder, &efx.mm, &h);
	/* the holder's own wait, with a stack of the same op */
	stream__stack(&efx.s, 0, T(140), &efx.holder, &efx.mm, LS_STACK_WAIT, ip_a, 1, 64);
	stream__wait_end(&efx.s, 0, T(140), &efx.holder, &efx.mm, &w);
	/* then the inversion, its hold reusing */
	h.start = T(140);
	h.acquired = T(140);
	h.offcpu = MS(30);
	h.flags = LS_LOCK_F_STACK_SAME;
	stream__switch(&efx.s, 0, T(141), &efx.holder, LS_TASK_F_HOLDING, true, &efx.hog, 0);
	scenario__wait_begin(&efx.waiter, true, T(142));
	stream__switch(&efx.s, 0, T(170), &efx.hog, 0, true, &efx.holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(171), &efx.holder, &efx.mm, &h);
	stream__wakeup(&efx.s, 0, T(171), &efx.waiter, LS_TASK_F_WAITING, &efx.holder, 1, NULL);
	stream__switch(&efx.s, 1, T(172), NULL, 0, false, &efx.waiter, LS_TASK_F_WAITING);
	w = (struct stream_lock){ .start = T(142), .write = true, .flags = LS_LOCK_F_BEGIN_SENT };
	stream__wait_end(&efx.s, 1, T(172), &efx.waiter, &efx.mm, &w);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_geq(efx.cs->n_stalls, 1);
	st = fixture__stall(efx.cs->n_stalls - 1);
	cr_assert_eq(st->waiter.tid, efx.waiter.tid);
	cr_assert_eq(st->n_holders, 1);
	cr_assert_not_null(st->holders[0].stack, "the hold did not reuse its last hold stack");
	cr_assert_eq(st->holders[0].stack->kernel[0], ip_b[0], "a hold took a wait's stack");
	cr_assert(st->holders[0].stack->flags & LS_STACK_F_EARLIER);
}

/* A fault's records do not say where it was taken: its stack is never one to reuse. */
Test(engine_stacks, fault_stacks_are_never_reused)
{
	bool earlier;

	cr_assert_eq(ls_op_key(&op_fault), 0);
	cr_assert_neq(ls_op_key(&op_mmap), ls_op_key(&op_munmap));
	same__wait(&efx.mm, &op_fault, T(100), ip_a);
	same__wait(&efx.mm, &op_fault, T(200), NULL);
	cr_assert_eq(stream__feed(&efx.s, fixture__engine()), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);
	cr_assert_eq(same__frame(0, &earlier), ip_a[0]);
	cr_assert_eq(same__frame(1, &earlier), 0, "a fault's stall took another fault's stack");
}
