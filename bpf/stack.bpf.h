/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* STACK records: where a waiter or a holder was (LS_STACK_*), built in stack_bufs. */
#ifndef LOCKSTALL_STACK_BPF_H
#define LOCKSTALL_STACK_BPF_H

#include "compat.bpf.h"

#include "emit.bpf.h"

/*
 * What stacks cost, timed where it is spent (two clock reads per stack,
 * and stacks are rare): STACK records made and the time making them took,
 * and the kernel stacks saved after a holder's long off-CPU spell.
 */
__u64 stack_records = 0;
__u64 stack_ns = 0;
__u64 kstack_saves = 0;
__u64 kstack_save_ns = 0;

/*
 * STACK records are built here, per CPU, then copied into the ring buffer
 * with bpf_ringbuf_output(): their size depends on how much user stack
 * could be copied, and a reservation's size must be a constant.  Too big
 * for a per-CPU array (32 KiB values at most): a plain array with one
 * entry per CPU (the loader sets max_entries).  Only the lock tracepoints
 * fill it, in process context with preemption off (tracepoint callbacks),
 * so nothing else runs on this CPU's entry while it is in use.
 */
struct ls_stack_buf {
	struct ls_rec_stack rec;
	/* slack past LS_USTACK_COPY_MAX: the copy loop's masked bounds */
	__u8 copy[LS_USTACK_COPY_MAX + 8192];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct ls_stack_buf);
} stack_bufs SEC(".maps");

#define LS_PAGE_SIZE 4096

/*
 * Copy the user stack from sp up, page by page: bpf_probe_read_user() is
 * all or nothing, and the stack's mapping may end (or a page be swapped
 * out) before want bytes.  Returns the bytes copied.  Never faults pages
 * in and takes no lock: the copy is of current's memory only.
 */
static __always_inline __u32 ls_copy_ustack(__u8 *dst, __u64 sp, __u32 want)
{
	__u32 done = 0;
	int i;

	for (i = 0; i < LS_USTACK_COPY_MAX / LS_PAGE_SIZE + 1; i++) {
		__u32 chunk = LS_PAGE_SIZE - ((sp + done) & (LS_PAGE_SIZE - 1));
		__u32 off = done;

		if (done >= want)
			break;
		if (chunk > want - done)
			chunk = want - done;
		/* The verifier needs the bounds it cannot infer through the loop. */
		barrier_var(off);
		barrier_var(chunk);
		off &= LS_USTACK_COPY_MAX - 1;
		chunk &= 2 * LS_PAGE_SIZE - 1;
		if (bpf_probe_read_user(dst + off, chunk, (const void *)(sp + done)))
			break;
		done += chunk;
	}
	return done;
}

/* Which STACK record to send, built with a designated initializer. */
struct ls_stack_event {
	__u64 now;		/* the record's timestamp: the one of the record it precedes */
	__u64 lock;		/* the lock's id, or 0 */
	const __u64 *kstack;	/* a kernel stack saved earlier; NULL: current's, now */
	__u32 kstack_len;	/* bytes in kstack */
	__u8 why;		/* LS_STACK_* */
};

/* The kernel stack: e->kstack when set, else current's now. */
static __always_inline void ls_stack_kernel(void *ctx, struct ls_rec_stack *r,
					    const struct ls_stack_event *e)
{
	__u32 kstack_len = e->kstack_len;
	long n;

	if (e->kstack) {
		if (kstack_len > sizeof(r->kernel))
			kstack_len = sizeof(r->kernel);
		bpf_probe_read_kernel(r->kernel, kstack_len & (sizeof(r->kernel) * 2 - 1),
				      e->kstack);
		n = kstack_len;
	} else {
		n = bpf_get_stack(ctx, r->kernel, sizeof(r->kernel), 0);
	}
	if (n > 0) {
		r->nr_kernel = n / 8;
		if (n >= sizeof(r->kernel))
			r->flags |= LS_STACK_F_KERNEL_TRUNC;
	}
}

/* The user registers, in DWARF's x86-64 numbering (LS_UREG_* in the ABI). */
static __always_inline void ls_stack_regs(struct ls_rec_stack *r, const struct pt_regs *regs)
{
	r->uregs[0] = regs->ax;
	r->uregs[1] = regs->dx;
	r->uregs[2] = regs->cx;
	r->uregs[3] = regs->bx;
	r->uregs[4] = regs->si;
	r->uregs[5] = regs->di;
	r->uregs[6] = regs->bp;
	r->uregs[7] = regs->sp;
	r->uregs[8] = regs->r8;
	r->uregs[9] = regs->r9;
	r->uregs[10] = regs->r10;
	r->uregs[11] = regs->r11;
	r->uregs[12] = regs->r12;
	r->uregs[13] = regs->r13;
	r->uregs[14] = regs->r14;
	r->uregs[15] = regs->r15;
	r->uregs[16] = regs->ip;
	r->flags |= LS_STACK_F_REGS;
}

/*
 * For --user-stacks dwarf: cur's user registers and the bytes of its
 * stack into b->copy.  Returns the bytes of b->copy to send: whole 8-byte
 * words, the padding zeroed.
 */
static __always_inline __u32 ls_stack_dwarf(struct ls_stack_buf *b, struct task_struct *cur)
{
	struct ls_rec_stack *r = &b->rec;
	struct pt_regs *regs, regs_copy;
	__u32 copied;

	regs = LS_USER_REGS(cur, &regs_copy);
	if (!regs)
		return 0;
	ls_stack_regs(r, regs);
	copied = ls_copy_ustack(b->copy, regs->sp, cfg.ustack_copy);
	if (copied < cfg.ustack_copy)
		r->flags |= LS_STACK_F_COPY_SHORT;
	r->copy_len = copied;
	/* Zero the padding to the next multiple of 8: no stale bytes leave. */
	copied &= LS_USTACK_COPY_MAX - 1;
	*(__u64 *)(b->copy + (copied & ~7u)) &= (copied & 7) ? ~0ULL >> (64 - 8 * (copied & 7)) : 0;
	return (copied + 7) & ~7u;
}

#ifndef LS_TASK_STATE_HASH
/*
 * ls_stack_dwarf() of current, as a global function: the copy's loop is
 * checked once, not once per path through each program that sends a
 * stack.  Every stack is current's (ls_emit_stack()).
 */
__noinline int ls_stack_dwarf_cur(struct ls_stack_buf *b)
{
	if (!b)
		return 0;
	return ls_stack_dwarf(b, bpf_get_current_task_btf());
}

static __always_inline __u32 ls_stack_dwarf_call(struct ls_stack_buf *b, struct task_struct *cur)
{
	/* Any scalar to the verifier: ls_emit_stack() bounds the record's size. */
	return ls_stack_dwarf_cur(b);
}
#else
static __always_inline __u32 ls_stack_dwarf_call(struct ls_stack_buf *b, struct task_struct *cur)
{
	return ls_stack_dwarf(b, cur);
}
#endif

/*
 * The user side as --user-stacks asks: frame pointers' addresses, and for
 * dwarf the registers and the stack's bytes (ls_stack_dwarf()).  Returns
 * the bytes of b->copy to send.
 */
static __always_inline __u32 ls_stack_user(void *ctx, struct ls_stack_buf *b,
					   struct task_struct *cur)
{
	struct ls_rec_stack *r = &b->rec;
	long n;

	if (!LS_TASK_PTR(cur, mm) || (LS_TASK_READ(cur, flags) & (PF_KTHREAD | PF_IO_WORKER))) {
		r->flags |= LS_STACK_F_KTHREAD;
		return 0;
	}
	r->user_mode = cfg.ustack_mode;
	if (cfg.ustack_mode == LS_USTACK_NONE)
		return 0;
	n = bpf_get_stack(ctx, r->user, sizeof(r->user), BPF_F_USER_STACK);
	if (n > 0) {
		r->nr_user = n / 8;
		if (n >= sizeof(r->user))
			r->flags |= LS_STACK_F_USER_TRUNC;
	}
	if (cfg.ustack_mode != LS_USTACK_DWARF)
		return 0;
	return ls_stack_dwarf_call(b, cur);
}

/*
 * Send where current (cur) is: a STACK record, just before the WAIT_END or
 * HOLD it belongs to (same timestamp), so the engine has it when that record
 * arrives.  Its kernel stack is e->kstack when set (the holder's long
 * off-CPU spell), else current's now.
 */
static __always_inline bool ls_emit_stack(void *ctx, const struct ls_stack_event *e,
					  struct task_struct *cur)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_stack_buf *b = bpf_map_lookup_elem(&stack_bufs, &cpu);
	__u64 t0 = bpf_ktime_get_ns();
	struct ls_rec_stack *r;
	__u64 taken, size;	/* 64 bits: the bound checked is the register passed on */
	bool sent = true;

	if (!b)
		return false;
	r = &b->rec;
	__builtin_memset(r, 0, sizeof(*r));
	r->tid = LS_TASK_READ(cur, pid);
	r->tgid = LS_TASK_READ(cur, tgid);
	r->lock_id = e->lock;
	r->why = e->why;
	ls_stack_kernel(ctx, r, e);
	size = sizeof(*r) + ls_stack_user(ctx, b, cur);
	barrier_var(size);
	if (size > sizeof(*r) + LS_USTACK_COPY_MAX)
		size = sizeof(*r) + LS_USTACK_COPY_MAX;
	taken = ls_hdr_fill(&r->hdr, LS_REC_STACK, size, e->now);
	/*
	 * The reader reads a process's mappings when its first STACK
	 * arrives; waking it for each (BPF_RB_FORCE_WAKEUP) would shorten the
	 * time a short-lived process has to exit first, but costs more than
	 * the whole record (an IPI, a VM exit on a guest).  It polls every
	 * 100 ms anyway.
	 */
	if (bpf_ringbuf_output(&events, r, size, ls_rb_wakeup_flags())) {
		ls_drops_count(taken);
		sent = false;
	}
	__sync_fetch_and_add(&stack_records, 1);
	__sync_fetch_and_add(&stack_ns, bpf_ktime_get_ns() - t0);
	return sent;
}

/*
 * The op key (ls_op_key()) of what cur (current) is doing: equal for the
 * same syscall; 0 for a user fault or a kernel thread.
 */
static __always_inline __u32 ls_stack_op(struct task_struct *cur, const struct ls_task_state *st)
{
	struct ls_op op;

	ls_op_fill(&op, cur, st);
	return ls_op_key(&op);
}

/*
 * Whether a wait or hold of lock in op brings a stack at now: not if one
 * for the same lock, kind and op went less than stack_interval_ns ago.
 * The caller then sets LS_LOCK_F_STACK_SAME, and the engine reuses that one.
 */
static __always_inline bool ls_stack_due(const struct ls_task_state *st, bool hold, __u64 lock,
					 __u32 op, __u64 now)
{
	int i;

	if (!op)
		return true;
	for (i = 0; i < LS_STACK_SAME_SLOTS; i++) {
		const struct ls_stack_sent *s = &st->stack_sent[i];

		if (s->ns && s->lock == lock && s->op == op && s->hold == hold &&
		    now - s->ns < cfg.stack_interval_ns)
			return false;
	}
	return true;
}

/* A stack went out at now: into the slot of its key, else the oldest (as the engine does). */
static __always_inline void ls_stack_sent(struct ls_task_state *st, bool hold, __u64 lock,
					  __u32 op, __u64 now)
{
	int i, k = 0;

	if (!op)
		return;
	for (i = 0; i < LS_STACK_SAME_SLOTS; i++) {
		const struct ls_stack_sent *s = &st->stack_sent[i];

		if (s->lock == lock && s->op == op && s->hold == hold) {
			k = i;
			break;
		}
		if (s->ns < st->stack_sent[k].ns)
			k = i;
	}
	st->stack_sent[k & (LS_STACK_SAME_SLOTS - 1)] = (struct ls_stack_sent){
		.lock = lock, .ns = now, .op = op, .hold = hold,
	};
}

/*
 * Where a holder (state ns) was while it was off CPU, for its HOLD's stack:
 * taken as it comes back, where it still sits (in __schedule, under the
 * path that holds the lock), and only after a spell long enough to matter
 * (the caller's test): a stack walk is costly, and most spells are short.
 */
static __always_inline void ls_kstack_save(struct ls_task_state *ns, struct task_struct *next)
{
	__u64 t0 = bpf_ktime_get_ns();
	long n = bpf_get_task_stack(next, ns->off_kstack, sizeof(ns->off_kstack), 0);

	ns->off_kstack_len = n > 0 ? n : 0;
	ns->off_kstack_valid = 1;
	__sync_fetch_and_add(&kstack_saves, 1);
	__sync_fetch_and_add(&kstack_save_ns, bpf_ktime_get_ns() - t0);
}

#endif /* LOCKSTALL_STACK_BPF_H */
