/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Futex waits (user-space locks: futex(2), futex_waitv(2) and futex2's
 * futex_wait(2)), from fentry and fexit on those
 * syscalls' functions where the kernel's trampolines work, else from the
 * raw syscall tracepoints (tp_btf sys_enter/sys_exit, every syscall, the
 * futex number checked first): the classic syscalls:sys_enter_futex
 * would need tracefs mounted to attach, which a host need not have.
 * Either syscall tracepoint sends every syscall of every task down the
 * kernel's slow path while attached; fentry costs only the futex calls.
 * The wait is the task's ls_wait_state with kind set, so the switch path
 * sends its WAIT_BEGIN and switches as for an mmap_lock wait, and the
 * call's exit ends it through ls_owned_wait_end() (no hold: a futex is
 * held in user space); a quiet wait (owner.bpf.h) sends them only if it
 * lasts min_wait_ns.
 *
 * The owner, most precise first, read at the wait (never from user space,
 * never under a lock): the TID in a PI futex word (FUTEX_LOCK_PI*); for a
 * FUTEX_WAIT with val 2, what glibc's lll_lock_wait() passes for a
 * contended pthread_mutex_t, the mutex's __owner (offset 8 on x86-64,
 * the futex word at 0), believed only if it is a thread of the waiter's
 * own process; for a FUTEX_WAIT with val 3, what glibc's pthread_rwlock_t
 * waits pass while a writer holds the lock (1 | PTHREAD_RWLOCK_FUTEX_USED,
 * a reader on __wrphase_futex, a writer on __writers_futex), the rwlock's
 * __cur_writer, the lock named by the rwlock's address; a word waited on
 * with 3 that is neither is no lock wait and is not traced.  The owner
 * is found with bpf_task_from_pid() (6.2+): its
 * task storage counts the waiters that named it (LS_TASK_F_OWNER: its
 * switches are sent while one waits), and an LS_REC_OWNER record says
 * where it was as the wait began.  Without the kfunc (before 6.2) the
 * owner is followed by its TID instead (owner_tid.bpf.h).  No owner: the
 * engine may name the releaser (the waker), marked as such.
 *
 * The hash object (5.10: no kfuncs, no task storage) has the programs,
 * never loaded ("?" sections), so both objects keep one skeleton layout.
 */
#ifndef LOCKSTALL_FUTEX_BPF_H
#define LOCKSTALL_FUTEX_BPF_H

#include "owner.bpf.h"

#define LS_FUTEX_WAIT		0
#define LS_FUTEX_LOCK_PI	6
#define LS_FUTEX_WAIT_BITSET	9
#define LS_FUTEX_WAIT_REQUEUE_PI 11
#define LS_FUTEX_LOCK_PI2	13
#define LS_FUTEX_CMD_MASK	0x7f	/* without FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */
#define LS_FUTEX_TID_MASK	0x3fffffff
#define LS_GLIBC_MUTEX_OWNER	8	/* offsetof(pthread_mutex_t, __data.__owner), x86-64 */
#define LS_GLIBC_LOCK_WAITERS	2	/* lll_lock_wait(): "locked, maybe waiters" */
#define LS_GLIBC_RWLOCK_WAIT	3	/* 1 | PTHREAD_RWLOCK_FUTEX_USED: a writer holds it */

#define LS_NR_FUTEX		202	/* x86_64 */
#define LS_NR_FUTEX_WAITV	449	/* x86_64, 5.16+ */
#define LS_NR_FUTEX_WAIT	455	/* x86_64, 6.7+: futex2's futex_wait(2) */
#define LS_FUTEX2_SIZE_MASK	0x3
#define LS_FUTEX2_SIZE_U32	0x2	/* the only size futex_wait(2) takes yet */

/* Which futex call a wait is in: each reads its arguments its own way. */
enum ls_futex_call {
	LS_CALL_FUTEX,
	LS_CALL_WAITV,
	LS_CALL_WAIT2,
	LS_CALL_NONE,
};

/* The futex call of syscall number id; LS_CALL_NONE for the others. */
static __always_inline enum ls_futex_call ls_futex_call_of(long id)
{
	switch (id) {
	case LS_NR_FUTEX:
		return LS_CALL_FUTEX;
	case LS_NR_FUTEX_WAITV:
		return LS_CALL_WAITV;
	case LS_NR_FUTEX_WAIT:
		return LS_CALL_WAIT2;
	}
	return LS_CALL_NONE;
}

/* A futex call's arguments, from its registers (x86_64 syscall ABI), and the wait's mode. */
struct ls_futex_args {
	__u64 uaddr;
	__u64 op;
	__u64 val;
	__u8 write;		/* 0: a reader of a glibc rwlock (ls_rwlock_owner()); else 1 */
};

#ifndef LS_TASK_STATE_HASH

/* The head of glibc's x86-64 pthread_mutex_t (struct __pthread_mutex_s). */
struct ls_glibc_mutex {
	__u32 lock;		/* the futex word */
	__u32 count;
	__u32 owner;		/* the holder's TID */
	__u32 nusers;
	__u32 kind;
};

/* Kind bits glibc sets on a mutex that waits with FUTEX_WAIT: type, robust, shared, elision. */
#define LS_GLIBC_KIND_OK	(0x3 | 0x10 | 0x80 | 0x100 | 0x200)

/*
 * glibc's x86-64 pthread_rwlock_t (struct __pthread_rwlock_arch_t, 2.25+)
 * as 32-bit words, read as one window from 12 bytes before the futex word
 * so that both words a waiter may block on fall inside it: a reader waits
 * on __wrphase_futex (the rwlock 8 bytes before the word, window word 1),
 * a writer on __writers_futex (12 bytes before, window word 0).
 */
#define LS_RWLOCK_WIN_OFF	12	/* offsetof(__writers_futex) */
#define LS_RWLOCK_READERS	0	/* __readers: WRPHASE 1, WRLOCKED 2, readers << 3 */
#define LS_RWLOCK_WRITERS_FUTEX	3	/* 1 (| FUTEX_USED) while a writer holds WRLOCKED */
#define LS_RWLOCK_PAD3		4
#define LS_RWLOCK_PAD4		5
#define LS_RWLOCK_CUR_WRITER	6	/* the TID of the writer holding it */
#define LS_RWLOCK_SHARED	7	/* 0 or 1 (PTHREAD_PROCESS_SHARED) */
#define LS_RWLOCK_ELISION	8	/* __rwelision in the low byte, then __pad1's first 3 */
#define LS_RWLOCK_PAD1		9	/* the rest of __pad1 */
#define LS_RWLOCK_PAD2		10	/* and 11: __pad2 */
#define LS_RWLOCK_FLAGS		12	/* PTHREAD_RWLOCK_PREFER_READER_NP .. _WRITER_NONRECURSIVE_NP */
#define LS_RWLOCK_WRPHASE	1
#define LS_RWLOCK_WRLOCKED	2
#define LS_RWLOCK_READER_SHIFT	3
#define LS_RWLOCK_WIN_WORDS	14	/* the 13 words up to __flags, from either start */

/*
 * The lock kind of a futex op that waits on a lock; 0 (mmap_lock: not
 * traced) for the others.  A plain FUTEX_WAIT counts only with val 2,
 * glibc's "locked, maybe waiters", or 3, a write-locked rwlock's (checked
 * against the rwlock's memory later): condition variables, semaphores and
 * barriers wait for an event, not for a holder, and are left out.
 */
static __always_inline __u8 ls_futex_kind(__u64 op, __u64 val)
{
	switch (op & LS_FUTEX_CMD_MASK) {
	case LS_FUTEX_WAIT:
	case LS_FUTEX_WAIT_BITSET:
		return val == LS_GLIBC_LOCK_WAITERS || val == LS_GLIBC_RWLOCK_WAIT ?
		       LS_LOCK_FUTEX : LS_LOCK_NONE;
	case LS_FUTEX_LOCK_PI:
	case LS_FUTEX_LOCK_PI2:
	case LS_FUTEX_WAIT_REQUEUE_PI:
		return LS_LOCK_PI_FUTEX;
	}
	return LS_LOCK_NONE;
}

/*
 * Another task's mm whose mmap_lock is write-locked or has waiters: reading
 * its memory (access_process_vm()) would wait for that lock, which a stuck
 * task of the traced system may hold for good.  Checked just before the
 * read; what is lost is the owner, never the scan.
 */
static __always_inline bool ls_mm_lock_busy(struct task_struct *t)
{
	__u64 mm = (__u64)LS_TASK_PTR(t, mm);
	long count;

	if (!mm || bpf_probe_read_kernel(&count, sizeof(count), (void *)(mm + ls_mmap_lock_offset())))
		return true;
	return count & (LS_RWSEM_WRITER_LOCKED | LS_RWSEM_FLAG_WAITERS);
}

/*
 * Read a waiter's memory: current's at its futex call (other NULL, a
 * constant the compiler drops the other branch for), or another task's in
 * the sleepable scan (bpf_copy_from_user_task(), 5.18+).
 */
static __always_inline long ls_futex_read(void *dst, __u32 size, __u64 addr,
					  struct task_struct *other)
{
	if (!other)
		return bpf_probe_read_user(dst, size, (void *)addr);
	if (ls_mm_lock_busy(other))
		return -16;	/* -EBUSY */
	return bpf_copy_from_user_task(dst, size, (void *)addr, other, 0);
}

/*
 * The words f look like a glibc rwlock a writer holds: WRLOCKED, with
 * __writers_futex set as the primary writer sets it, glibc's zero padding
 * and a __shared and __flags it sets.  Any word waited on with 2 or 3 is
 * tried: a futex word just after a pointer must not pass.
 */
static __always_inline bool ls_rwlock_write_locked(const __u32 *f)
{
	return (f[LS_RWLOCK_READERS] & LS_RWLOCK_WRLOCKED) && (f[LS_RWLOCK_WRITERS_FUTEX] & 1) &&
	       !f[LS_RWLOCK_PAD3] && !f[LS_RWLOCK_PAD4] && !(f[LS_RWLOCK_ELISION] & ~0xffU) &&
	       !f[LS_RWLOCK_PAD1] && !f[LS_RWLOCK_PAD2] && !f[LS_RWLOCK_PAD2 + 1] &&
	       f[LS_RWLOCK_SHARED] <= 1 && f[LS_RWLOCK_FLAGS] <= 2;
}

/* The rwlock starting at word `at` of the window is held by a writer: that writer. */
static __always_inline __s32 ls_rwlock_writer(const __u32 *win, int at)
{
	const __u32 *f = win + at;

	if (!ls_rwlock_write_locked(f))
		return 0;
	return (__s32)f[LS_RWLOCK_CUR_WRITER] > 0 ? (__s32)f[LS_RWLOCK_CUR_WRITER] : 0;
}

/*
 * A FUTEX_WAIT with val 3 on a glibc rwlock that a writer holds: the
 * writer, and ctx->uaddr becomes the rwlock's address (a reader and a
 * writer wait on different words of it).  Which word it waits on says
 * whose wait it is: __wrphase_futex a reader's (ctx->write 0),
 * __writers_futex a writer's.  0: no such rwlock, no lock.
 * The two readings exclude each other: read at the wrong start, __pad3
 * or __pad4 is the non-zero __writers_futex or __cur_writer.
 */
static __always_inline __u32 ls_rwlock_owner(struct ls_futex_args *ctx, __u8 *how,
					     struct task_struct *other)
{
	__u64 win_addr = ctx->uaddr - LS_RWLOCK_WIN_OFF;
	__u32 win[LS_RWLOCK_WIN_WORDS];
	__s32 writer;

	if (ls_futex_read(win, sizeof(win), win_addr, other))
		return 0;
	writer = ls_rwlock_writer(win, 1);
	if (writer) {
		ctx->uaddr = win_addr + 4;	/* a reader: __wrphase_futex */
		ctx->write = 0;
	} else {
		writer = ls_rwlock_writer(win, 0);
		if (!writer)
			return 0;
		ctx->uaddr = win_addr;		/* a writer: __writers_futex */
	}
	*how = LS_OWNER_RWLOCK_WRITER;
	return writer;
}

/*
 * A FUTEX_WAIT with val 2 on a glibc rwlock's __wrphase_futex (8 bytes in)
 * by a writer that waits for its readers to leave: write-locked, still in
 * its read phase, with readers and no writer yet, glibc's padding and
 * flags.  ctx->uaddr becomes the rwlock's address, as for the waits above.
 * No word names a reader: the owner stays unknown (the releaser, later).
 */
static __always_inline void ls_rwlock_readers_wait(struct ls_futex_args *ctx,
						   struct task_struct *other)
{
	__u64 rwlock = ctx->uaddr - 8;
	__u32 f[LS_RWLOCK_WIN_WORDS - 1];

	if (ls_futex_read(f, sizeof(f), rwlock, other))
		return;
	if (!ls_rwlock_write_locked(f) || (f[LS_RWLOCK_READERS] & LS_RWLOCK_WRPHASE) ||
	    !(f[LS_RWLOCK_READERS] >> LS_RWLOCK_READER_SHIFT) || f[LS_RWLOCK_CUR_WRITER])
		return;
	ctx->uaddr = rwlock;
}

/* The owner's TID as the lock's memory says, and how it was found; 0: none. */
static __always_inline __u32 ls_futex_owner(struct ls_futex_args *ctx, __u8 kind, __u8 *how,
					    struct task_struct *other)
{
	__u64 uaddr = ctx->uaddr;
	struct ls_glibc_mutex m;
	__u32 word = 0;

	if ((ctx->op & LS_FUTEX_CMD_MASK) == LS_FUTEX_WAIT_REQUEUE_PI)
		return 0;	/* a condition variable: its mutex is uaddr2, taken later */
	if (kind == LS_LOCK_PI_FUTEX) {
		if (ls_futex_read(&word, sizeof(word), uaddr, other))
			return 0;
		*how = LS_OWNER_FUTEX_WORD;
		return word & LS_FUTEX_TID_MASK;
	}
	if (ctx->val == LS_GLIBC_RWLOCK_WAIT)
		return ls_rwlock_owner(ctx, how, other);
	if (ls_futex_read(&m, sizeof(m), uaddr, other))
		return 0;
	/*
	 * A locked glibc mutex: someone uses it, its kind is one glibc
	 * makes, and not PI or PP (those never FUTEX_WAIT).  Other words
	 * waited on with 2 (glibc's internal locks) fail this, mostly.
	 */
	if (!m.nusers || (m.kind & ~LS_GLIBC_KIND_OK)) {
		ls_rwlock_readers_wait(ctx, other);
		return 0;
	}
	*how = LS_OWNER_PTHREAD;
	return m.owner;
}

/*
 * The lock a futex call of t with arguments a waits on: its kind
 * (LS_LOCK_NONE: not traced) and its owner as the lock's memory says
 * (0: none known), read from current's memory (other NULL) or t's.
 */
static __always_inline __u8 ls_futex_lock(struct ls_futex_args *a, struct task_struct *t,
					  struct task_struct *other, __u32 *owner, __u8 *how)
{
	__u8 kind = ls_futex_kind(a->op, a->val);

	*owner = 0;
	*how = LS_OWNER_NONE;
	if (kind == LS_LOCK_NONE)
		return kind;
	*owner = ls_futex_owner(a, kind, how, other);
	/* Waited on with 3 and no rwlock a writer holds: an event, not a lock. */
	if (!*owner && kind == LS_LOCK_FUTEX && a->val == LS_GLIBC_RWLOCK_WAIT)
		return LS_LOCK_NONE;
	if (*owner == (__u32)t->pid)
		*owner = 0;
	if (!*owner)
		*how = LS_OWNER_NONE;
	return kind;
}

/* t's wait on the lock at a->uaddr begins at now: its state; then its owner is followed. */
static __always_inline void ls_futex_wait_set(struct ls_task_state *st,
					      const struct ls_futex_args *a, __u8 kind,
					      __u32 owner, __u8 how, __u64 now, __u8 flags)
{
	struct ls_wait_state *w = &st->wait;

	w->lock = a->uaddr;
	w->start_ns = now;
	w->write = a->write;
	w->flags = flags;
	w->kind = kind;
	w->owner_tid = owner;
	w->owner_how = how;
}

/* The owner the wait named, followed; forgotten when not a thread it may be (ls_owner_begin()). */
static __always_inline void ls_futex_follow_owner(struct task_struct *t, struct ls_task_state *st,
						  __u64 now)
{
	if (st->wait.owner_tid && !ls_owner_begin(t, st, NULL, now)) {
		st->wait.owner_tid = 0;
		st->wait.owner_how = LS_OWNER_NONE;
	}
}

/*
 * futex_waitv(2)'s first futex (struct futex_waitv: val, uaddr, flags):
 * the wait is told as a FUTEX_WAIT on it.  All its waits are traced, events
 * too (no val tells them apart there); an owner is named only where a
 * lock convention applies (val 2 or 3, checked as for FUTEX_WAIT), else
 * none.  LS_LOCK_NONE: the vector is empty or cannot be read.
 */
static __always_inline __u8 ls_futex_waitv_lock(struct pt_regs *regs, struct ls_futex_args *a,
						struct task_struct *t, __u32 *owner, __u8 *how)
{
	__u64 first[2];

	*owner = 0;
	*how = LS_OWNER_NONE;
	if (!regs->si || bpf_probe_read_user(first, sizeof(first), (void *)regs->di))
		return LS_LOCK_NONE;
	a->val = first[0];
	a->uaddr = first[1];
	a->op = LS_FUTEX_WAIT;
	if (a->val == LS_GLIBC_LOCK_WAITERS || a->val == LS_GLIBC_RWLOCK_WAIT)
		*owner = ls_futex_owner(a, LS_LOCK_FUTEX, how, NULL);
	if (*owner == (__u32)t->pid)
		*owner = 0;
	if (!*owner)
		*how = LS_OWNER_NONE;
	return LS_LOCK_FUTEX;
}

/*
 * The arguments of a futex(2) call, or of futex2's futex_wait(2) (6.7+:
 * uaddr, val, mask, flags), told as the FUTEX_WAIT_BITSET it is; false
 * for a word size it does not take (it fails EINVAL).
 */
static __always_inline bool ls_futex_args_of(const struct pt_regs *regs, enum ls_futex_call call,
					     struct ls_futex_args *a)
{
	a->uaddr = regs->di;
	a->write = 1;
	if (call == LS_CALL_WAIT2) {
		a->op = LS_FUTEX_WAIT_BITSET;
		a->val = regs->si;
		return (regs->r10 & LS_FUTEX2_SIZE_MASK) == LS_FUTEX2_SIZE_U32;
	}
	a->op = regs->si;
	a->val = regs->dx;
	return true;
}

static __always_inline int ls_futex_enter(struct pt_regs *regs, enum ls_futex_call call)
{
	struct task_struct *cur = ls_current();
	struct ls_futex_args a = { .write = 1 };
	struct ls_task_state *st;
	__u8 kind, how;
	__u32 owner;
	__u64 now;

	if (ls_is_self(cur))
		return 0;
	if (call == LS_CALL_WAITV)
		kind = ls_futex_waitv_lock(regs, &a, cur, &owner, &how);
	else if (ls_futex_args_of(regs, call, &a))
		kind = ls_futex_lock(&a, cur, NULL, &owner, &how);
	else
		return 0;
	if (kind == LS_LOCK_NONE)
		return 0;
	st = task_state__get(cur);
	if (!st)
		return 0;
	task_state__arm(cur, st);
	now = bpf_ktime_get_ns();
	ls_futex_wait_set(st, &a, kind, owner, how, now, ls_owned_wait_flags());
	ls_futex_follow_owner(cur, st, now);
	return 0;
}

/* futex_waitv returns the index of the futex that woke it: any ret >= 0 is success. */
static __always_inline int ls_futex_exit(void *ctx, long ret, enum ls_futex_call call)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st = task_state__lookup(cur);

	if (!st || !(st->wait.flags & LS_W_ACTIVE) ||
	    (st->wait.kind != LS_LOCK_FUTEX && st->wait.kind != LS_LOCK_PI_FUTEX))
		return 0;
	ls_owned_wait_end(ctx, st, cur, call == LS_CALL_WAITV ? ret >= 0 : ret == 0);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ls_sys_enter, struct pt_regs *regs, long id)
{
	enum ls_futex_call call = ls_futex_call_of(id);

	if (call == LS_CALL_NONE)
		return 0;
	return ls_futex_enter(regs, call);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ls_sys_exit, struct pt_regs *regs, long ret)
{
	enum ls_futex_call call = ls_futex_call_of(regs->orig_ax);

	if (call == LS_CALL_NONE)
		return 0;
	return ls_futex_exit(ctx, ret, call);
}

/*
 * The same from fentry and fexit on the x86-64 futex syscalls' own
 * functions, where the kernel's trampolines work (src/loader/probe.c chooses,
 * cfg.futex_fentry): then only futex calls pay, not every syscall.
 */
SEC("?fentry/__x64_sys_futex")
int BPF_PROG(ls_futex_fentry, struct pt_regs *regs)
{
	return ls_futex_enter(regs, LS_CALL_FUTEX);
}

SEC("?fexit/__x64_sys_futex")
int BPF_PROG(ls_futex_fexit, struct pt_regs *regs, long ret)
{
	return ls_futex_exit(ctx, ret, LS_CALL_FUTEX);
}

SEC("?fentry/__x64_sys_futex_waitv")
int BPF_PROG(ls_futex_waitv_fentry, struct pt_regs *regs)
{
	return ls_futex_enter(regs, LS_CALL_WAITV);
}

SEC("?fexit/__x64_sys_futex_waitv")
int BPF_PROG(ls_futex_waitv_fexit, struct pt_regs *regs, long ret)
{
	return ls_futex_exit(ctx, ret, LS_CALL_WAITV);
}

SEC("?fentry/__x64_sys_futex_wait")
int BPF_PROG(ls_futex_wait2_fentry, struct pt_regs *regs)
{
	return ls_futex_enter(regs, LS_CALL_WAIT2);
}

SEC("?fexit/__x64_sys_futex_wait")
int BPF_PROG(ls_futex_wait2_fexit, struct pt_regs *regs, long ret)
{
	return ls_futex_exit(ctx, ret, LS_CALL_WAIT2);
}
#else
SEC("?tp_btf/sys_enter")
int BPF_PROG(ls_sys_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(ls_sys_exit, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("?fentry/__x64_sys_futex")
int BPF_PROG(ls_futex_fentry, struct pt_regs *regs)
{
	return 0;
}

SEC("?fexit/__x64_sys_futex")
int BPF_PROG(ls_futex_fexit, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("?fentry/__x64_sys_futex_waitv")
int BPF_PROG(ls_futex_waitv_fentry, struct pt_regs *regs)
{
	return 0;
}

SEC("?fexit/__x64_sys_futex_waitv")
int BPF_PROG(ls_futex_waitv_fexit, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("?fentry/__x64_sys_futex_wait")
int BPF_PROG(ls_futex_wait2_fentry, struct pt_regs *regs)
{
	return 0;
}

SEC("?fexit/__x64_sys_futex_wait")
int BPF_PROG(ls_futex_wait2_fexit, struct pt_regs *regs, long ret)
{
	return 0;
}
#endif

#endif /* LOCKSTALL_FUTEX_BPF_H */
