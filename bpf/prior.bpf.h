/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Waits that began before tracing: a process hangs, then lockstall
 * starts, and the entry of those waits has passed.  Once, right after
 * attaching, user space reads a sleepable task iterator (ls_prior_waits,
 * src/loader/iter.c) that finds tasks asleep in a futex wait (futex.bpf.h) or,
 * where the kernel keeps task_struct.blocked_on (6.16+), waiting on a
 * kernel mutex (klock.bpf.h), and gives each the state the live entry
 * would have given it, marked LS_W_PRIOR.  From then on it is any other
 * wait, ended by the live programs: sys_exit or fexit, contention_end;
 * under fentry a futex wait that began before the trampoline has no fexit
 * and ends at ls_prior_unqueue() or ls_prior_unqueue_pi().
 *
 * The hash object (5.10: no task storage) has the programs, never loaded
 * ("?" sections), so both objects keep one skeleton layout.
 */
#ifndef LOCKSTALL_PRIOR_BPF_H
#define LOCKSTALL_PRIOR_BPF_H

#include "futex.bpf.h"
#include "klock.bpf.h"

/*
 * Set by user space for the scans after start-up: the kernel skipped one
 * of our programs (its recursion guard), and a wait it would have seen
 * begin may be going on unknown.  Such a wait is LS_W_LATE too.
 */
bool prior_late = false;

#ifndef LS_TASK_STATE_HASH
/* 6.16+: the mutex a task waits on, set around the mutex's wait loop (kernel/locking/mutex.c). */
struct task_struct___blocked_on {
	struct mutex *blocked_on;
} __attribute__((preserve_access_index));

/*
 * t asleep as a futex wait sleeps (interruptible, not stopped or traced,
 * on no CPU) in a kernel entry that is the futex call: its
 * saved user registers are that call's arguments.
 */
static __always_inline bool ls_prior_futex_args(struct task_struct *t, struct ls_futex_args *a)
{
	unsigned int state = ls_task_sched_state(t);
	enum ls_futex_call call;
	struct pt_regs *regs;

	/* on_rq is no test: asleep, it may stay queued (delayed dequeue, ls_task_where()) */
	if ((t->flags & PF_KTHREAD) || t->on_cpu ||
	    (state & (TASK_INTERRUPTIBLE | __TASK_STOPPED | __TASK_TRACED)) != TASK_INTERRUPTIBLE)
		return false;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs)
		return false;
	call = ls_futex_call_of(regs->orig_ax);
	if (call != LS_CALL_FUTEX && call != LS_CALL_WAIT2)
		return false;
	return ls_futex_args_of(regs, call, a);
}

/*
 * A wait the scan announced ended before the scan made it active: its
 * sys_exit passed unseen, so the scan ends it, as failed (not judged).
 */
static __always_inline void ls_prior_undo(struct ls_task_state *st, struct task_struct *t,
					  __u64 start)
{
	struct ls_lock_event e = {
		.type = LS_REC_WAIT_END,
		.now = bpf_ktime_get_ns(),
		.lock = st->wait.lock,
		.start_ns = start,
		.write = st->wait.write,
		.flags = LS_LOCK_F_BEGIN_SENT,
	};
	__u32 owner = st->wait.owner_tid;

	ls_emit_lock(&e, t, st);
	st->wait.flags = 0;
	st->wait.owner_tid = 0;
	st->wait.owner_how = LS_OWNER_NONE;
	st->offcpu_start_ns = 0;
	if (owner)
		ls_owner_end(st, owner);
}

/*
 * The kernel mutex t waits on and is off CPU in; 0: none.  The loader
 * turns prior_mutex on only where blocked_on is a struct mutex pointer
 * (a kernel with CONFIG_DEBUG_MUTEXES before 6.16 has a mutex_waiter
 * there); on PREEMPT_RT a mutex is an rt_mutex and never sets it.
 */
static __always_inline __u64 ls_prior_mutex_of(struct task_struct *t)
{
	struct task_struct___blocked_on *b = (void *)t;

	if (!cfg.prior_mutex || !bpf_core_field_exists(b->blocked_on) || t->on_cpu)
		return 0;
	return (__u64)BPF_CORE_READ(b, blocked_on);
}

/* A wait the scan found: its lock (as a futex call's arguments), kind and owner. */
struct ls_prior_found {
	struct ls_futex_args a;	/* uaddr: the futex word or the mutex */
	__u32 owner;
	__u8 kind;
	__u8 how;
};

/* t's futex wait, judged and its owner read as ls_futex_enter() would; false: none. */
static __always_inline bool ls_prior_futex(struct task_struct *t, struct ls_prior_found *f)
{
	if (!cfg.prior_futex || !ls_prior_futex_args(t, &f->a))
		return false;
	/* no end of its own for ls_prior_unqueue*() to see: left to sys_exit */
	if (cfg.futex_fentry && (f->a.op & LS_FUTEX_CMD_MASK) == LS_FUTEX_WAIT_REQUEUE_PI)
		return false;
	f->kind = ls_futex_lock(&f->a, t, t, &f->owner, &f->how);
	return f->kind != LS_LOCK_NONE;
}

/* t's kernel mutex wait and the mutex's owner, as ls_klock_follow() reads it; false: none. */
static __always_inline bool ls_prior_mutex(struct task_struct *t, struct ls_prior_found *f)
{
	__u64 lock = ls_prior_mutex_of(t);
	struct task_struct *o;

	if (!lock)
		return false;
	f->a.uaddr = lock;
	f->a.write = 1;
	f->kind = LS_LOCK_MUTEX;
	o = ls_klock_owner_task((void *)lock, f->kind, &f->how);
	f->owner = o ? (__u32)BPF_CORE_READ(o, pid) : 0;
	if (!f->owner || f->owner == (__u32)t->pid) {
		f->owner = 0;
		f->how = LS_OWNER_NONE;
	}
	return true;
}

/* Still in the wait found, with no switch since: its end will be seen. */
static __always_inline bool ls_prior_still(struct task_struct *t, const struct ls_prior_found *f,
					   __u64 switches)
{
	struct ls_futex_args again;

	if (t->nvcsw + t->nivcsw != switches)
		return false;
	if (f->kind == LS_LOCK_MUTEX)
		return ls_prior_mutex_of(t) == f->a.uaddr;
	return ls_prior_futex_args(t, &again);
}

/*
 * The scan: a task in a wait that began before tracing gets the state
 * ls_futex_enter() or ls_klock_begin() would have given it, marked
 * LS_W_PRIOR (its start is now, the scan's time), and the OWNER and
 * WAIT_BEGIN its switch-out would have sent.  Sleepable, to read the
 * task's memory as ls_futex_enter() reads current's.  Writes the tid of
 * each wait found to its output.
 */
SEC("?iter.s/task")
int ls_prior_waits(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct ls_prior_found f = {};
	struct ls_task_state *st;
	__u64 switches, now;
	__u32 tid;

	if (!t || ls_is_self(t))
		return 0;
	switches = t->nvcsw + t->nivcsw;
	if (!ls_prior_futex(t, &f) && !ls_prior_mutex(t, &f))
		return 0;
	st = task_state__get(t);
	/* A wait the live programs saw after attaching is followed already. */
	if (!st || (st->wait.flags & LS_W_ACTIVE))
		return 0;
	task_state__arm(t, st);
	now = bpf_ktime_get_ns();
	/*
	 * The records first, the wait active last: a live end that sees it
	 * active sends its WAIT_END after them, never before.
	 */
	ls_futex_wait_set(st, &f.a, f.kind, f.owner, f.how, now,
			  LS_W_WENT_OFF | LS_W_PRIOR | (prior_late ? LS_W_LATE : 0));
	st->offcpu_start_ns = now;
	ls_futex_follow_owner(t, st, now);
	ls_wait_begin(st, t, now);
	st->seen = 1;
	st->wait.flags |= LS_W_ACTIVE;
	if (ls_prior_still(t, &f, switches)) {
		tid = t->pid;
		bpf_seq_write(ctx->meta->seq, &tid, sizeof(tid));
		return 0;
	}
	/* It woke meanwhile; unless its live end ended this wait already (or began another). */
	if ((st->wait.flags & LS_W_ACTIVE) && st->wait.start_ns == now)
		ls_prior_undo(st, t, now);
	return 0;
}

/*
 * A quiet wait must not outlive min_wait_ns unseen, still going on (a
 * pending stall, a deadlock): user space reads this scan before each of
 * its ticks, and each quiet wait that long turns ordinary here, its
 * OWNER and WAIT_BEGIN sent (ls_wait_promote()).  A slack keeps it off
 * waits that end as it looks: their end decides alone (the engine drops
 * a WAIT_BEGIN that comes after its wait's end).
 */
#define LS_QUIET_SLACK_NS	1000000ULL

SEC("?iter/task")
int ls_quiet_waits(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct ls_task_state *st;
	__u64 now;

	if (!t || !task_state__armed(t))
		return 0;
	st = task_state__lookup(t);
	if (!st || !ls_wait_quiet(st))
		return 0;
	now = bpf_ktime_get_ns();
	if (now - st->wait.start_ns >= cfg.min_wait_ns + LS_QUIET_SLACK_NS)
		ls_wait_promote(st, t, now);
	return 0;
}

/* current's state if the wait it is in is one the scan found, of this kind; else NULL. */
static __always_inline struct ls_task_state *ls_prior_wait(struct task_struct *cur, __u8 kind)
{
	struct ls_task_state *st = task_state__lookup(cur);

	if (!st || (st->wait.flags & (LS_W_ACTIVE | LS_W_PRIOR)) != (LS_W_ACTIVE | LS_W_PRIOR) ||
	    st->wait.kind != kind)
		return NULL;
	return st;
}

/*
 * With the fentry programs, a wait the scan found has no fexit to end it:
 * its call began before the trampoline.  It ends where the woken task
 * leaves the futex's queue instead.  A FUTEX_WAIT at futex_unqueue(): 0, a
 * wake took it off the queue; else a timeout, a signal or a spurious
 * wakeup, ended as failed (never judged).  A PI lock at
 * futex_unqueue_pi(), acquired if the futex word names it.
 */
SEC("?fexit/futex_unqueue")
int BPF_PROG(ls_prior_unqueue, void *q, int ret)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st = ls_prior_wait(cur, LS_LOCK_FUTEX);

	if (st)
		ls_owned_wait_end(ctx, st, cur, ret == 0);
	return 0;
}

SEC("?fentry/futex_unqueue_pi")
int BPF_PROG(ls_prior_unqueue_pi, void *q)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st = ls_prior_wait(cur, LS_LOCK_PI_FUTEX);
	__u32 word = 0;

	if (!st)
		return 0;
	bpf_probe_read_user(&word, sizeof(word), (void *)st->wait.lock);
	ls_owned_wait_end(ctx, st, cur, (word & LS_FUTEX_TID_MASK) == (__u32)cur->pid);
	return 0;
}
#else
SEC("?iter.s/task")
int ls_prior_waits(struct bpf_iter__task *ctx)
{
	return 0;
}

SEC("?iter/task")
int ls_quiet_waits(struct bpf_iter__task *ctx)
{
	return 0;
}

SEC("?fexit/futex_unqueue")
int BPF_PROG(ls_prior_unqueue, void *q, int ret)
{
	return 0;
}

SEC("?fentry/futex_unqueue_pi")
int BPF_PROG(ls_prior_unqueue_pi, void *q)
{
	return 0;
}
#endif

#endif /* LOCKSTALL_PRIOR_BPF_H */
