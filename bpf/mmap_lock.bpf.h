/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mm->mmap_lock: the wait and hold state machine.  Every backend (the
 * tracepoints in lockstall.bpf.c, fentry and kprobes in backend_rwsem.bpf.h)
 * calls ls_on_start_locking(), ls_on_acquire_returned() and
 * ls_on_released(); the rules for what is sent are at the top of
 * lockstall.bpf.c.
 */
#ifndef LOCKSTALL_MMAP_LOCK_BPF_H
#define LOCKSTALL_MMAP_LOCK_BPF_H

#include "emit.bpf.h"
#include "hist.bpf.h"
#include "stack.bpf.h"

/* For bpftool map dump. */
__u64 hold_overflows = 0;	/* holds not followed: both slots busy */

/* Which hold slot a new hold of mm takes; -1: both busy (counted). */
static __always_inline int ls_hold_slot(struct ls_task_state *st, __u64 mm)
{
	/*
	 * A task cannot hold one mm twice, so an active slot on the same mm is
	 * a hold whose release we missed (e.g. a non-owner release): reuse it.
	 */
	if (!(st->hold[0].flags & LS_H_ACTIVE) || st->hold[0].mm == mm)
		return 0;
	if (!(st->hold[1].flags & LS_H_ACTIVE) || st->hold[1].mm == mm)
		return 1;
	__sync_fetch_and_add(&hold_overflows, 1);
	return -1;
}

/* The slot of an open hold of mm (only a write hold if write_only); -1: none. */
static __always_inline int ls_hold_find(const struct ls_task_state *st, __u64 mm, bool write_only)
{
	if ((st->hold[0].flags & LS_H_ACTIVE) && st->hold[0].mm == mm &&
	    (!write_only || st->hold[0].write))
		return 0;
	if ((st->hold[1].flags & LS_H_ACTIVE) && st->hold[1].mm == mm &&
	    (!write_only || st->hold[1].write))
		return 1;
	return -1;
}

static __always_inline __u8 ls_wait_end_flags(const struct ls_wait_state *w, bool granted,
					      bool trylock)
{
	__u8 flags = 0;

	if (w->flags & LS_W_BEGIN_SENT)
		flags |= LS_LOCK_F_BEGIN_SENT;
	if (granted)
		flags |= LS_LOCK_F_GRANTED;
	if (trylock)
		flags |= LS_LOCK_F_TRYLOCK;
	return flags;
}

/*
 * The stack a WAIT_END of cur (current) brings: where it is.  Returns the
 * WAIT_END's flag for one left out, as one was sent moments before.
 */
static __always_inline __u8 ls_wait_stack(void *ctx, struct ls_task_state *st,
					  struct task_struct *cur, __u64 now, __u64 mm)
{
	struct ls_stack_event s = {
		.why = LS_STACK_WAIT,
		.now = now,
		.lock = mm,
	};
	__u32 op = ls_stack_op(cur, st);

	if (!ls_stack_due(st, false, mm, op, now))
		return LS_LOCK_F_STACK_SAME;
	if (ls_emit_stack(ctx, &s, cur))
		ls_stack_sent(st, false, mm, op, now);
	return 0;
}

/*
 * The stack a HOLD of t (current) brings: where it was off CPU, else where
 * it is.  Returns the HOLD's flag for one left out, as for ls_wait_stack().
 */
static __always_inline __u8 ls_hold_stack(void *ctx, struct ls_task_state *st,
					  struct task_struct *t, __u64 now, __u64 mm)
{
	struct ls_stack_event s = {
		.why = LS_STACK_HOLD_LONG,
		.now = now,
		.lock = mm,
	};
	__u32 op = ls_stack_op(t, st);

	if (st->off_kstack_valid) {
		s.why = LS_STACK_HOLD_OFF;
		s.kstack = st->off_kstack;
		s.kstack_len = st->off_kstack_len;
	}
	if (!ls_stack_due(st, true, mm, op, now))
		return LS_LOCK_F_STACK_SAME;
	if (ls_emit_stack(ctx, &s, t))
		ls_stack_sent(st, true, mm, op, now);
	return 0;
}

/*
 * t is current, except at sched_process_exit (also current, but exiting:
 * no stack worth sending).  ctx is the program's, for bpf_get_stack().
 */
static __always_inline void ls_hold_end(void *ctx, struct ls_task_state *st, __u32 k,
					struct task_struct *t, __u64 now, __u8 end_flags)
{
	struct ls_hold_state *h = &st->hold[k & 1];
	__u64 granted_ns = (h->flags & LS_H_GRANTED) ? st->grant.hold_ns[k & 1] : 0;
	__u64 start = granted_ns ? granted_ns : h->acquired_ns;
	__u64 held = now > start ? now - start : 0;
	__u8 flags = end_flags;

	ls_hist_add_cur(st, ls_hist_kind_mode(LS_HIST_HOLD, LS_HIST_ANY_MODE), held);
	/* Its count is of holds that went off CPU: zeros would drown them. */
	if (h->offcpu_ns)
		ls_hist_add_cur(st, ls_hist_kind_mode(LS_HIST_OFFCPU, LS_HIST_ANY_MODE),
				h->offcpu_ns);
	if (h->flags & LS_H_GRANTED)
		flags |= LS_LOCK_F_GRANTED;
	/*
	 * A downgrade alone is no reason to send: on 6.18 every munmap
	 * downgrades, and a short on-CPU write hold cannot explain a stall.
	 */
	if ((flags & ~LS_LOCK_F_DOWNGRADED) || h->offcpu_ns || held >= cfg.min_hold_ns) {
		struct ls_lock_event e;

		/* Only holds long enough to matter to a stall bring their stack. */
		if (cfg.kstacks && held >= cfg.min_hold_ns && !(end_flags & LS_LOCK_F_EXITED))
			flags |= ls_hold_stack(ctx, st, t, now, h->mm);
		e = (struct ls_lock_event){
			.type = LS_REC_HOLD,
			.now = now,
			.lock = h->mm,
			.start_ns = start,
			.granted_ns = granted_ns,
			.acquired_ns = h->acquired_ns,
			.offcpu_ns = h->offcpu_ns,
			.write = h->write,
			.success = 1,
			.flags = flags,
		};
		if (ls_emit_lock_cur(&e, st))
			st->seen = 1;
	}
	h->flags = 0;
}

static __always_inline int ls_on_start_locking(struct mm_struct *mm, bool write)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st;
	struct ls_wait_state *w;

	if (ls_is_self(cur))
		return 0;
	st = task_state__get(cur);
	if (!st)
		return 0;
	task_state__arm(cur, st);
	w = &st->wait;
	w->lock = (__u64)mm;
	w->start_ns = bpf_ktime_get_ns();
	w->write = write;
	w->flags = LS_W_ACTIVE;
	/* A fault inside a futex call: that wait's state is overwritten, and ends here. */
	w->kind = LS_LOCK_MMAP;
	w->owner_how = LS_OWNER_NONE;
	w->owner_tid = 0;
	return 0;
}

/*
 * The wait of t goes off CPU for the first time: WAIT_BEGIN (t is current
 * but in the scan of waits begun before tracing, which announces them).  A
 * call, not inlined: the verifier then walks the rest of the switch
 * handler once after it, not once per path through the record's making.
 */
static __noinline void ls_wait_begin(struct ls_task_state *st, struct task_struct *t, __u64 now)
{
	struct ls_wait_state *w = &st->wait;
	struct ls_lock_event e = {
		.type = LS_REC_WAIT_BEGIN,
		.now = now,
		.lock = w->lock,
		.start_ns = w->start_ns,
		.granted_ns = (w->flags & LS_W_GRANTED) ? st->grant.wait_ns : 0,
		.write = w->write,
		.flags = (w->flags & LS_W_GRANTED) ? LS_LOCK_F_GRANTED : 0,
	};

	if (ls_emit_lock(&e, t, st))
		w->flags |= LS_W_BEGIN_SENT;
}

static __always_inline void ls_wait_end(void *ctx, struct ls_task_state *st,
					struct task_struct *cur, __u64 now, bool success)
{
	struct ls_wait_state *w = &st->wait;
	struct ls_hold_state *h;
	int k;
	__u64 waited = now > w->start_ns ? now - w->start_ns : 0;
	/* A failed wait was not granted, whatever woke it (a fatal signal). */
	bool granted = success && (w->flags & LS_W_GRANTED);
	bool trylock = !success && !(w->flags & LS_W_WENT_OFF);

	/* Each lock kind's waits have their own histograms (mmap_lock: LS_HIST_WAIT). */
	if (!trylock)
		ls_hist_add_cur(st, ls_hist_kind_mode(ls_hist_wait_kind(w->kind), w->write), waited);
	/* A wait still quiet here was short (ls_owned_wait_end()): told only if its OWNER was. */
	if (ls_wait_told(w) &&
	    ((w->flags & (LS_W_WENT_OFF | LS_W_OWNER_SENT)) || waited >= cfg.min_wait_ns)) {
		__u8 flags = ls_wait_end_flags(w, granted, trylock);
		struct ls_lock_event e;

		/*
		 * A stall, or close to one: where the waiter is.  Its user
		 * stack and registers have not changed since it asked for the
		 * lock (it has not been back in user space), and the kernel
		 * stack is the path that asked.
		 */
		if (cfg.kstacks && !trylock && waited >= cfg.min_wait_ns)
			flags |= ls_wait_stack(ctx, st, cur, now, w->lock);
		e = (struct ls_lock_event){
			.type = LS_REC_WAIT_END,
			.now = now,
			.lock = w->lock,
			.start_ns = w->start_ns,
			.granted_ns = granted ? st->grant.wait_ns : 0,
			.write = w->write,
			.success = success,
			.flags = flags,
		};
		if (ls_emit_lock_cur(&e, st))
			st->seen = 1;
	}
	w->flags = 0;
	/* A futex's holds are in user space: its owner is followed instead. */
	if (!success || w->kind)
		return;
	/* A new hold with none other open: the saved switch-out stack is stale. */
	if (!ls_holding(st))
		st->off_kstack_valid = 0;
	k = ls_hold_slot(st, w->lock);
	if (k < 0)
		return;
	h = &st->hold[k & 1];
	h->mm = w->lock;
	h->acquired_ns = now;
	h->offcpu_ns = 0;
	if (granted) {
		st->grant.hold_ns[k & 1] = st->grant.wait_ns;
		h->offcpu_ns = st->grant.wait_offcpu_ns;
	}
	h->write = w->write;
	h->flags = LS_H_ACTIVE | (granted ? LS_H_GRANTED : 0);
}

/* The state of cur (current) at a lock event; NULL: none, or lockstall itself. */
static __always_inline struct ls_task_state *ls_lock_task_state(struct task_struct *cur)
{
	return ls_is_self(cur) ? NULL : task_state__lookup(cur);
}

static __always_inline int ls_on_acquire_returned(void *ctx, struct mm_struct *mmp, bool write,
						  bool success)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st;
	struct ls_hold_state *h;
	__u64 mm = (__u64)mmp, now;
	int k;

	st = ls_lock_task_state(cur);
	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	if ((st->wait.flags & LS_W_ACTIVE) && st->wait.lock == mm) {
		ls_wait_end(ctx, st, cur, now, success);
		return 0;
	}
	/* mmap_write_downgrade(): acquire_returned(read) with no start_locking. */
	if (write || !success)
		return 0;
	k = ls_hold_find(st, mm, true);
	if (k < 0)
		return 0;
	ls_hold_end(ctx, st, k, cur, now, LS_LOCK_F_DOWNGRADED);
	h = &st->hold[k & 1];
	h->acquired_ns = now;
	h->offcpu_ns = 0;
	h->write = 0;
	h->flags = LS_H_ACTIVE;
	return 0;
}

static __always_inline int ls_on_released(void *ctx, struct mm_struct *mmp, bool write)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st;
	int k;

	st = ls_lock_task_state(cur);
	if (!st)
		return 0;
	k = ls_hold_find(st, (__u64)mmp, false);
	if (k < 0)
		return 0;	/* began before we attached */
	ls_hold_end(ctx, st, k, cur, bpf_ktime_get_ns(), 0);
	return 0;
}

#endif /* LOCKSTALL_MMAP_LOCK_BPF_H */
