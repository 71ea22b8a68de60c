/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The lock records: ls_emit_lock() sends WAIT_BEGIN, WAIT_END and HOLD
 * (ls_emit_lock_cur() those of current), ls_emit_exit() EXIT; the lock and op fields they share.  Every record
 * leaves through ring.bpf.h.
 */
#ifndef LOCKSTALL_EMIT_BPF_H
#define LOCKSTALL_EMIT_BPF_H

#include "compat.bpf.h"
#include "ring.bpf.h"
#include "task_state.bpf.h"
#include "watch.bpf.h"


/*
 * mm is only an address here (kept in task storage), so probe reads.  Owner
 * is mm->owner when the kernel has it (CONFIG_MEMCG), else t when mm is t's.
 */
static __always_inline void ls_mm_fill(struct ls_lock_id *out, __u64 mm, struct task_struct *t)
{
	struct mm_struct *m = (struct mm_struct *)mm;
	struct task_struct *owner = NULL;

	out->id = mm;
	if (bpf_core_field_exists(m->owner))
		owner = BPF_CORE_READ(m, owner);
	if (owner) {
		out->tgid = BPF_CORE_READ(owner, tgid);
		BPF_CORE_READ_INTO(&out->comm, owner, group_leader, comm);
	} else if ((__u64)LS_TASK_PTR(t, mm) == mm) {
		ls_process_comm(out->comm, t);
		out->tgid = LS_TASK_READ(t, tgid);
	}
}

/*
 * A futex or kernel lock wait's lock: a futex is a user address in the
 * waiter's process; a kernel lock's address is its identity (tgid 0).
 */
static __always_inline void ls_lock_fill(struct ls_lock_id *out, const struct ls_wait_state *w,
					 struct task_struct *t)
{
	out->id = w->lock;
	out->kind = w->kind;
	if (w->kind != LS_LOCK_FUTEX && w->kind != LS_LOCK_PI_FUTEX)
		return;
	out->tgid = LS_TASK_READ(t, tgid);
	ls_process_comm(out->comm, t);
}

static __always_inline void ls_op_fill(struct ls_op *op, struct task_struct *cur,
				       const struct ls_task_state *st)
{
	const struct ls_fault *f;
	struct pt_regs *regs, regs_copy;
	__u64 ip, sp, orig_ax;

	op->addr = 0;
	op->syscall = -1;
	op->kind = LS_OP_UNKNOWN;
	op->fault_flags = 0;
	if (!LS_TASK_PTR(cur, mm) || (LS_TASK_READ(cur, flags) & (PF_KTHREAD | PF_IO_WORKER)))
		return;
	regs = LS_USER_REGS(cur, &regs_copy);
	if (!regs)
		return;
	ip = regs->ip;
	sp = regs->sp;
	orig_ax = regs->orig_ax;
	/*
	 * In a user fault the saved user regs are the fault's, and the x86
	 * exception entry sets orig_ax to -1 (no syscall to restart); in a
	 * syscall, orig_ax is its number.  Checking orig_ax keeps a syscall
	 * whose user ip and sp happen to equal an earlier fault's (the
	 * instruction after a syscall faulted) from passing for that fault.
	 */
	f = ls_fault_of(cur, st);
	if (f->ip && ip == f->ip && sp == f->sp && (__s64)orig_ax == -1) {
		op->kind = LS_OP_PAGE_FAULT;
		op->addr = f->addr;
		op->fault_flags = f->err & (LS_PF_WRITE | LS_PF_USER | LS_PF_INSTR);
		return;
	}
	op->kind = LS_OP_SYSCALL;
	op->syscall = (__s32)orig_ax;
}

/*
 * What a WAIT_BEGIN, WAIT_END or HOLD says beyond the task: built by the
 * caller with a designated initializer, so fields it leaves out are 0.
 */
struct ls_lock_event {
	__u64 now;		/* the record's timestamp */
	__u64 lock;		/* the lock's id: ls_lock_id.id */
	__u64 start_ns;
	__u64 granted_ns;
	__u64 acquired_ns;
	__u64 offcpu_ns;
	__u16 type;		/* LS_REC_WAIT_BEGIN, LS_REC_WAIT_END or LS_REC_HOLD */
	__u8 write;
	__u8 success;
	__u8 flags;		/* LS_LOCK_F_* */
};

/*
 * Another task's cgroup v2 id, as bpf_get_current_cgroup_id() reads
 * current's: its css_set's default cgroup's kernfs id.  Flavours of the
 * kernel's structs, only the fields read (throttle.bpf.h has its own).
 */
struct kernfs_node___emit {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup___emit {
	struct kernfs_node___emit *kn;
} __attribute__((preserve_access_index));

struct css_set___emit {
	struct cgroup___emit *dfl_cgrp;
} __attribute__((preserve_access_index));

struct task_struct___emit {
	struct css_set___emit *cgroups;
} __attribute__((preserve_access_index));

static __always_inline __u64 ls_task_cgroup_id(struct task_struct *t)
{
	if ((__u64)t == (__u64)ls_current())
		return bpf_get_current_cgroup_id();
	return BPF_CORE_READ((struct task_struct___emit *)t, cgroups, dfl_cgrp, kn, id);
}

/* t and its state st send e; false if the ring buffer had no room. */
static __always_inline bool ls_emit_lock(const struct ls_lock_event *e, struct task_struct *t,
					 const struct ls_task_state *st)
{
	struct ls_rec_lock *r = ls_emit_reserve(e->type, sizeof(*r), e->now);
	__u8 prior = 0;

	if (!r)
		return false;
	ls_task_fill(&r->task, t);
	if (e->type != LS_REC_HOLD && st->wait.kind && st->wait.lock == e->lock) {
		ls_lock_fill(&r->lock, &st->wait, t);
		r->owner_how = st->wait.owner_how;
		r->owner_tid = st->wait.owner_tid;
		if (st->wait.flags & LS_W_PRIOR)
			prior = st->wait.flags & LS_W_LATE ? LS_LOCK_F_LATE : LS_LOCK_F_PRIOR;
	} else {
		ls_mm_fill(&r->lock, e->lock, t);
	}
	ls_op_fill(&r->op, t, st);
	r->start_ns = e->start_ns;
	r->granted_ns = e->granted_ns;
	r->acquired_ns = e->acquired_ns;
	r->offcpu_ns = e->offcpu_ns;
	r->write = e->write;
	r->success = e->success;
	r->flags = e->flags | prior;
	/*
	 * t is current but in the scan of waits begun before tracing
	 * (sched_switch's prev is still current at the tracepoint,
	 * sched_process_exit runs in the exiting task).
	 */
	r->cgroup_id = ls_task_cgroup_id(t);
	ls_emit_submit(r);
	return true;
}

#ifndef LS_TASK_STATE_HASH
/*
 * ls_emit_lock() of current, as a global function: the verifier checks it
 * once, not once per path through each program that ends a wait or a
 * hold.  It takes no task pointer (a global function cannot), and current
 * is what every caller but the scan of earlier waits sends about.
 */
__noinline int ls_emit_lock_cur(const struct ls_lock_event *e, const struct ls_task_state *st)
{
	if (!e || !st)
		return 0;
	return ls_emit_lock(e, bpf_get_current_task_btf(), st);
}
#else
static __always_inline int ls_emit_lock_cur(const struct ls_lock_event *e,
					    const struct ls_task_state *st)
{
	return ls_emit_lock(e, ls_current(), st);
}
#endif

static __always_inline void ls_emit_exit(struct ls_task_state *st, struct task_struct *t,
					 __u64 now, __u8 flags)
{
	struct ls_rec_exit *r = ls_emit_reserve(LS_REC_EXIT, sizeof(*r), now);

	st->seen = 0;
	if (!r)
		return;
	ls_task_fill(&r->task, t);
	r->flags = flags;
	ls_emit_submit(r);
}

#endif /* LOCKSTALL_EMIT_BPF_H */
