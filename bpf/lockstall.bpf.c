// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall, kernel side: follow every task that waits for or holds a
 * traced lock (mmap_lock, futexes, the kernel's mutexes and rwsems) or that
 * a waiter waits on, and tell user space when such a task goes off CPU, is
 * woken, migrates or exits, and who runs in its place.
 * src/engine/DESIGN.md is the contract; the mmap_lock programs' sending
 * rules are here (the other locks' are in their parts):
 *
 *  WAIT_BEGIN  at the first switch-out of a wait (start_locking .. acquire_returned).
 *  WAIT_END    at acquire_returned when the wait went off CPU (so a WAIT_BEGIN
 *              was at least attempted) or lasted at least cfg.min_wait_ns; at
 *              exit for a wait that went off CPU (LS_LOCK_F_EXITED).
 *  HOLD        at release when the holder was off CPU while holding, or was
 *              granted, or held at least cfg.min_hold_ns (a write hold that
 *              ends in a downgrade follows the same rule, with
 *              LS_LOCK_F_DOWNGRADED); always for a hold open at exit
 *              (LS_LOCK_F_EXITED).
 *  SWITCH      when prev or next waits, holds or is granted, or watch[cpu] > 0.
 *  WAKEUP      when the wakee waits or holds.  (A quiet futex or kernel lock
 *              wait is not waiting for these two: owner.bpf.h.)
 *  MIGRATE     when the task raised a watch, or waits or holds while queued.
 *  EXIT        at sched_process_exit of a task that appeared with lock state
 *              in a record; again at its final switch (TASK_DEAD) if it took
 *              the lock after sched_process_exit (exit_mm) and was seen again.
 *
 * Histograms count every wait (except a trylock that failed at once) and
 * every hold, whether or not a record was sent for it; the off-CPU one
 * counts the holds that went off CPU.  Short samples reach them in batches
 * (ls_hist_add()): a task's last few are added when it leaves the CPU.
 *
 * This file holds the scheduler's and mmap_lock's programs; the work is in
 * parts by concern, each with the maps it owns, including the parts it
 * uses (src/README.md lists them; scripts/check-includes checks that each
 * compiles alone).  The parts below with programs of their own: the rwsem
 * backends, futexes, kernel locks, waits begun before tracing, reclaim, I/O.
 */

#include "config.bpf.h"
#include "emit.bpf.h"
#include "hist.bpf.h"
#include "mmap_lock.bpf.h"
#include "sched.bpf.h"
#include "backend_rwsem.bpf.h"
#include "futex.bpf.h"
#include "io.bpf.h"
#include "klock.bpf.h"
#include "prior.bpf.h"
#include "reclaim.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Lock tracepoints -------------------------------------------------------- */

/* 6.8+: (mm, write[, success]) */
SEC("tp_btf/mmap_lock_start_locking")
int BPF_PROG(ls_start_locking, struct mm_struct *mm, bool write)
{
	return ls_on_start_locking(mm, write);
}

SEC("tp_btf/mmap_lock_acquire_returned")
int BPF_PROG(ls_acquire_returned, struct mm_struct *mm, bool write, bool success)
{
	return ls_on_acquire_returned(ctx, mm, write, success);
}

SEC("tp_btf/mmap_lock_released")
int BPF_PROG(ls_released, struct mm_struct *mm, bool write)
{
	return ls_on_released(ctx, mm, write);
}

/* Older kernels: (mm, memcg_path, write[, success]).  The loader picks one set. */
SEC("tp_btf/mmap_lock_start_locking")
int BPF_PROG(ls_start_locking_memcg, struct mm_struct *mm, const char *memcg_path, bool write)
{
	return ls_on_start_locking(mm, write);
}

SEC("tp_btf/mmap_lock_acquire_returned")
int BPF_PROG(ls_acquire_returned_memcg, struct mm_struct *mm, const char *memcg_path, bool write,
	     bool success)
{
	return ls_on_acquire_returned(ctx, mm, write, success);
}

SEC("tp_btf/mmap_lock_released")
int BPF_PROG(ls_released_memcg, struct mm_struct *mm, const char *memcg_path, bool write)
{
	return ls_on_released(ctx, mm, write);
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(ls_page_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);

	/*
	 * No self filter: lockstall's own lock events are left out, so its
	 * faults are never read.  fault_task is cleared first and set last:
	 * on PREEMPT_RT this program can be preempted, and a switch-out in
	 * between must not keep a half-written fault as this task's (a torn
	 * one would still have to match the task's saved registers).
	 */
	if (!w)
		return 0;
	w->fault_task = 0;
	w->fault.ip = regs->ip;
	w->fault.sp = regs->sp;
	w->fault.addr = address;
	w->fault.err = error_code;
	w->fault_task = (__u64)ls_current();
	return 0;
}

/* Scheduler tracepoints ----------------------------------------------------- */

SEC("tp_btf/sched_switch")
int BPF_PROG(ls_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return ls_switch(preempt, prev, next, prev_state, true);
}

/*
 * Before 5.18, no prev_state (ls_switch_prev_state()); the loader picks one
 * of the two.  Without the cgroups of holders and preemptors: 5.10's
 * verifier gives up on the switch with them.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(ls_sched_switch_nostate, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return ls_switch(preempt, prev, next, ls_switch_prev_state(preempt, prev), false);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(ls_sched_waking, struct task_struct *p)
{
	struct ls_task_state *st;

	/* First, before any helper: only armed tasks and owners have anything here. */
	if (!task_state__armed(p))
		return 0;
	st = ls_owner_take_marks(p, task_state__lookup(p));
	if (!st || (!ls_state_flags(st) && !ls_wait_quiet(st)))
		return 0;
	ls_task_fill(&st->waker, ls_current());
	return 0;
}

/*
 * The wakeup of a quiet wait (st, of p): noted as a grant, and the end of
 * the wait as far as its stall goes, so one that lasted min_wait_ns turns
 * ordinary here (ls_wait_promote()) and its WAKEUP names the releaser.
 * false: still quiet, nothing to send.  *now: the clock, read here.
 */
static __always_inline bool ls_wakeup_quiet(struct ls_task_state *st, struct task_struct *p,
					    __u64 *now)
{
	*now = bpf_ktime_get_ns();
	if (*now - st->wait.start_ns >= cfg.min_wait_ns) {
		ls_wait_promote(st, p, *now);
		return true;
	}
	if (!(st->wait.flags & LS_W_GRANTED))
		ls_wait_grant(st, *now);
	st->waker.tid = 0;
	st->waker.tgid = 0;
	return false;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(ls_sched_wakeup, struct task_struct *p)
{
	struct ls_task_state *st;
	struct ls_rec_wakeup *r;
	bool raised;
	__u8 cause = 0;
	__u32 cpu;
	__u64 now;
	__u8 f;

	/* First, before any helper: only armed tasks and owners have anything here. */
	if (!task_state__armed(p))
		return 0;
	st = ls_owner_take_marks(p, task_state__lookup(p));
	if (!st)
		return 0;
	now = 0;
	if (ls_wait_quiet(st) && !ls_wakeup_quiet(st, p, &now))
		return 0;
	f = ls_state_flags(st);
	if (!f)
		return 0;
	cpu = ls_task_cpu(p);
	if (!now)
		now = bpf_ktime_get_ns();
	if ((f & (LS_TASK_F_WAITING | LS_TASK_F_GRANTED)) == LS_TASK_F_WAITING) {
		ls_wait_grant(st, now);
		f |= LS_TASK_F_GRANTED;
	}
	/* Only if it is off CPU: a task woken before it switched out keeps running. */
	raised = (f & LS_TASK_F_HOLDER_ROLE) && st->offcpu_start_ns;
	if (raised) {
		ls_watch_raise(st, cpu);
		cause = ls_cause_of(p, now);
		ls_owner_io_dev_at_wakeup(p, st, now);
	}

	r = ls_emit_reserve(LS_REC_WAKEUP, sizeof(*r), now);
	if (r) {
		ls_task_fill(&r->wakee, p);
		r->waker = st->waker;
		ls_task_fill_cpu_curr(&r->target_curr, cpu);
		r->target_cpu = cpu;
		r->wakee_flags = f;
		r->wakee_cause = cause;
		ls_emit_submit(r);
		st->seen = 1;
		if (f & LS_TASK_F_HOLDER_ROLE)
			ls_emit_task_cgroup(p, now);
		if (raised)
			ls_emit_cpu_curr_cgroup(cpu, now);
	}
	st->waker.tid = 0;
	st->waker.tgid = 0;
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(ls_sched_migrate_task, struct task_struct *p, int dest_cpu)
{
	struct ls_task_state *st;
	struct ls_rec_migrate *r;
	bool raised;
	__u64 now;
	__u8 f;

	/* First, before any helper: only armed tasks and owners have anything here. */
	if (!task_state__armed(p))
		return 0;
	st = ls_owner_take_marks(p, task_state__lookup(p));
	if (!st)
		return 0;
	f = ls_state_flags(st);
	raised = st->watch_slot != 0;
	/* A wakeup's migration (not on_rq yet) is told by WAKEUP.target_cpu. */
	if (!raised && !(f && p->on_rq))
		return 0;
	if (raised)
		ls_watch_raise(st, dest_cpu);
	now = bpf_ktime_get_ns();
	r = ls_emit_reserve(LS_REC_MIGRATE, sizeof(*r), now);
	if (!r)
		return 0;
	ls_task_fill(&r->task, p);
	ls_task_fill_cpu_curr(&r->dest_curr, dest_cpu);
	r->from_cpu = ls_task_cpu(p);
	r->to_cpu = dest_cpu;
	r->flags = f;
	ls_emit_submit(r);
	if (f)
		st->seen = 1;
	if (raised)
		ls_emit_cpu_curr_cgroup(dest_cpu, now);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ls_sched_process_exit, struct task_struct *p)
{
	struct ls_task_state *st = task_state__lookup(p);
	struct ls_wait_state *w;
	__u64 now;
	__u8 f;

	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	f = ls_state_flags(st);
	ls_watch_lower(st);
	if (st->hold[0].flags & LS_H_ACTIVE)
		ls_hold_end(ctx, st, 0, p, now, LS_LOCK_F_EXITED);
	if (st->hold[1].flags & LS_H_ACTIVE)
		ls_hold_end(ctx, st, 1, p, now, LS_LOCK_F_EXITED);
	/*
	 * From here on its samples go straight to the slot: the loader frees
	 * an exited process's slots once it is gone, which may come before
	 * this task's final switch.
	 */
	ls_hist_flush_all(st, p);
	st->pend.exiting = 1;
	w = &st->wait;
	if ((w->flags & (LS_W_ACTIVE | LS_W_WENT_OFF)) == (LS_W_ACTIVE | LS_W_WENT_OFF) &&
	    ls_wait_told(w)) {
		struct ls_lock_event e = {
			.type = LS_REC_WAIT_END,
			.now = now,
			.lock = w->lock,
			.start_ns = w->start_ns,
			.write = w->write,
			.flags = LS_LOCK_F_EXITED |
				 ((w->flags & LS_W_BEGIN_SENT) ? LS_LOCK_F_BEGIN_SENT : 0),
		};

		/* p is current: the tracepoint runs in the exiting task. */
		if (ls_emit_lock_cur(&e, st))
			st->seen = 1;
	}
	w->flags = 0;
	st->offcpu_start_ns = 0;
	st->waker.tid = 0;
	if (st->seen)
		ls_emit_exit(st, p, now, f);
	return 0;
}

/*
 * An exec renames the process (p leads it by now, under its new name): its
 * histograms take the name too, so a shell's child that exec'd "ps" counts
 * as ps whether user space reads it live or after it exited.  A lookup per
 * histogram kind and mode per exec, nothing per lock event.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(ls_sched_process_exec, struct task_struct *p)
{
	struct ls_hist_key key = {};
	struct ls_hist_slot *s;
	__u32 i, *idx;

	/* Every kind twice (modes 0 and 1): those without modes say ANY both times. */
	for (i = 0; i < 2 * LS_HIST_KIND_N; i++) {
		ls_hist_key_fill(&key, i >> 1, i & 1, p);
		if ((i & 1) && key.write == LS_HIST_ANY_MODE)
			continue;
		idx = bpf_map_lookup_elem(&hist_index, &key);
		if (!idx)
			continue;
		s = bpf_map_lookup_elem(&hist_slots, idx);
		if (s)
			ls_process_comm(s->hist.comm, p);
	}
	return 0;
}

