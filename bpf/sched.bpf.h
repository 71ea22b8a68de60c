/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The sched_switch handler: the off-CPU accounting of waiters and holders,
 * WAIT_BEGIN at a wait's first switch-out, the watch counts and SWITCH.
 */
#ifndef LOCKSTALL_SCHED_BPF_H
#define LOCKSTALL_SCHED_BPF_H

#include "causes.bpf.h"
#include "emit.bpf.h"
#include "hist.bpf.h"
#include "io.bpf.h"
#include "mmap_lock.bpf.h"
#include "owner_tid.bpf.h"
#include "stack.bpf.h"
#include "task_cgroup.bpf.h"
#include "watch.bpf.h"

/*
 * prev (state ps, flags LS_TASK_F_*) leaves the CPU at now in prev_state:
 * its off-CPU spell starts, a wait's first one sends WAIT_BEGIN, and a
 * holder (or a granted waiter) still runnable raises this CPU's watch, and
 * *cause says why it cannot run (causes.bpf.h).  Returns its flags after.
 */
static __always_inline __u8 ls_switch_out(struct ls_task_state *ps, struct task_struct *prev,
					  __u32 cpu, bool runnable, unsigned int prev_state,
					  __u64 now, __u8 *cause)
{
	struct ls_wait_state *w = &ps->wait;
	bool holder;
	__u8 f;

	ps->offcpu_start_ns = now;
	if ((w->flags & LS_W_ACTIVE) && !(w->flags & LS_W_WENT_OFF)) {
		w->flags |= LS_W_WENT_OFF;
		if (!(w->flags & LS_W_QUIET))
			ls_wait_begin(ps, prev, now);
	}
	/* Asleep again before acquire_returned: the wakeup did not grant it. */
	if ((w->flags & LS_W_GRANTED) && !runnable) {
		w->flags &= ~LS_W_GRANTED;
	}
	f = ls_state_flags(ps);
	holder = f & (LS_TASK_F_HOLDING | LS_TASK_F_OWNER);
	*cause |= ls_causes_ran(ps, prev, holder, now);
	if (runnable && (f & (LS_TASK_F_HOLDING | LS_TASK_F_GRANTED | LS_TASK_F_OWNER))) {
		ls_watch_raise(ps, cpu);
		*cause |= ls_cause_of(prev, now);
	} else {
		ls_watch_lower(ps);
		if (!runnable && holder)
			*cause |= ls_causes_asleep(prev, prev_state);
	}
	return f;
}

/*
 * ns's off-CPU spell ends at now: it counts into its open holds and,
 * granted, into its wait's grant; its watch goes.  Returns whether the
 * caller must save the stack it was off CPU in (ls_kstack_save()).
 */
static __always_inline bool ls_spell_end(struct ls_task_state *ns, __u64 now)
{
	__u64 start = ns->offcpu_start_ns;
	bool save = false;

	if (start && now > start) {
		__u64 off = now - start;
		struct ls_wait_state *w = &ns->wait;

		if (ns->hold[0].flags & LS_H_ACTIVE)
			ns->hold[0].offcpu_ns += off;
		if (ns->hold[1].flags & LS_H_ACTIVE)
			ns->hold[1].offcpu_ns += off;
		if (cfg.kstacks && off >= cfg.min_hold_ns && ls_holding(ns) && !ns->off_kstack_valid)
			save = true;
		if ((w->flags & (LS_W_ACTIVE | LS_W_GRANTED)) == (LS_W_ACTIVE | LS_W_GRANTED)) {
			if (ns->grant.wait_ns > start)
				start = ns->grant.wait_ns;
			if (now > start)
				ns->grant.wait_offcpu_ns += now - start;
		}
	}
	ns->offcpu_start_ns = 0;
	ls_watch_lower(ns);
	return save;
}

/*
 * next (state ns; tid, tgid) comes back on CPU at now: its spell ends
 * (ls_spell_end()), and what it was kept off by.  Returns 1 if the stack
 * of its spell off CPU must be saved (ls_kstack_save(), which takes next
 * as a BTF pointer: the global function's caller does it).
 */
static __always_inline int ls_switch_in(struct ls_task_state *ns, struct task_struct *next,
					__u32 tid, __u32 tgid, __u64 now)
{
	int save = ls_spell_end(ns, now);

	ls_causes_in(ns, next, tid, tgid, now);
	return save;
}

/*
 * Whether st still has anything a switch, wakeup or migration must read
 * or end: if not, its task is disarmed (task_state__arm()).
 */
static __always_inline bool ls_state_busy(const struct ls_task_state *st)
{
	return ls_state_flags(st) || ls_wait_quiet(st) || st->offcpu_start_ns || st->watch_slot ||
	       st->owner_watch ||
	       st->io_dev || st->reclaim_kind || ls_hist_pending(st);
}

/* After its switch: a task's state, if any, disarmed when idle or dying. */
static __always_inline void ls_switch_settle(struct ls_task_state *st, bool dead)
{
	if (st && (dead || !ls_state_busy(st)))
		task_state__disarm(st);
}

/* How a switch goes on, for its SWITCH record: the CPU above these bits. */
#define LS_SW_RUNNABLE	0x1
#define LS_SW_WATCHED	0x2
#define LS_SW_CGROUPS	0x4
#define LS_SW_CPU_SHIFT	8

/*
 * prev (state ps) leaves the CPU: returns its flags before, *pf_after
 * after its switch-out, *cause why it cannot run.  *now: the clock, read
 * here if 0 and needed.
 */
static __always_inline __u8 ls_switch_prev_part(struct ls_task_state *ps, struct task_struct *prev,
						__u32 cpu, bool runnable, unsigned int prev_state,
						__u64 *now, __u8 *pf_after, __u8 *cause)
{
	__u8 pf = ls_state_flags(ps);

	*pf_after = pf;
	if (ls_hist_pending(ps))
		ls_hist_flush_all(ps, prev);
	if (!runnable)
		ls_io_sleep(ps, prev, prev_state);
	if (pf) {
		if (!*now)
			*now = bpf_ktime_get_ns();
		*pf_after = ls_switch_out(ps, prev, cpu, runnable, prev_state, *now, cause);
	} else if (ls_wait_quiet(ps)) {
		/* As ls_switch_out() keeps them for any wait; nothing is sent. */
		ps->wait.flags |= LS_W_WENT_OFF;
		if (!runnable)
			ps->wait.flags &= ~LS_W_GRANTED;
	} else if ((prev_state & TASK_DEAD) && ps->seen) {
		/* Took the lock after sched_process_exit (exit_mm): its last word. */
		if (!*now)
			*now = bpf_ktime_get_ns();
		ls_emit_exit(ps, prev, *now, 0);
	}
	return pf;
}

/*
 * The SWITCH record of prev (state ps, or none; its flags pf_after, its
 * cause) to next (*nt, or read from next where nt is NULL; its flags nf),
 * and what follows it: its causes' records, the cgroups.  how:
 * LS_SW_*.  Returns whether the record went.
 */
static __always_inline bool ls_switch_emit_part(struct ls_task_state *ps, struct task_struct *prev,
						struct task_struct *next, const struct ls_task *nt,
						__u8 pf_after, __u8 nf, __u8 cause, __u32 how,
						__u64 now)
{
	struct ls_rec_switch *r = ls_emit_reserve(LS_REC_SWITCH, sizeof(*r), now);

	if (!r)
		return false;
	ls_task_fill(&r->prev, prev);
	if (nt)
		r->next = *nt;
	else
		ls_task_fill(&r->next, next);
	r->prev_runnable = !!(how & LS_SW_RUNNABLE);
	r->prev_flags = pf_after;
	r->next_flags = nf;
	r->prev_cause = cause;
	/* Read back: branches on cause itself would make the verifier tell each value apart. */
	cause = LS_ONCE(r->prev_cause);
	ls_emit_submit(r);
	if (ps)
		ls_causes_told(ps, prev, cause, now);
	/*
	 * LS_SW_CGROUPS comes from a constant: where it is not set the
	 * compiler drops the call, and with it the global function, which a
	 * verifier before 6.8 checks even when rodata makes the call dead
	 * (5.10's gives up on the switch).
	 */
	if ((how & LS_SW_CGROUPS) && cfg.task_cgroups)
		ls_switch_cgroups(pf_after, nf, (how & LS_SW_WATCHED) || (ps && ps->watch_slot),
				  how >> LS_SW_CPU_SHIFT, now);
	return true;
}

#ifndef LS_TASK_STATE_HASH
/*
 * With task storage the parts are global functions, which the verifier
 * checks once each rather than once per path through the others.  They
 * take no task pointer: prev is current (bpf_get_current_task_btf()), next
 * an address for probe reads (this CPU's curr by now, a scalar to the
 * verifier), or what the handler read of it; the tasks' states come as
 * pointers to memory.  Flags go in and out packed a byte each: a global
 * function returns one scalar and takes five arguments at most.
 */
__noinline int ls_switch_prev(struct ls_task_state *ps, __u32 cpu, __u32 runnable,
			      __u32 prev_state, __u64 now)
{
	__u8 pf, pf_after, cause = 0;

	if (!ps)
		return 0;
	pf = ls_switch_prev_part(ps, bpf_get_current_task_btf(), cpu, runnable, prev_state, &now,
				 &pf_after, &cause);
	return pf | pf_after << 8 | (__u32)cause << 16;
}

/* ls_switch_in() of next at address next_addr. */
__noinline int ls_switch_next(struct ls_task_state *ns, __u64 next_addr, __u32 tid, __u32 tgid,
			      __u64 now)
{
	if (!ns)
		return 0;
	return ls_switch_in(ns, (struct task_struct *)next_addr, tid, tgid, now);
}

/* flags: prev's after its switch-out, next's, prev's cause, a byte each. */
__noinline int ls_switch_emit(struct ls_task_state *ps, const struct ls_task *nt, __u32 flags,
			      __u32 how, __u64 now)
{
	if (!nt)
		return 0;
	return ls_switch_emit_part(ps, bpf_get_current_task_btf(), NULL, nt, flags, flags >> 8,
				   flags >> 16, how, now);
}

static __always_inline __u8 ls_switch_prev_call(struct ls_task_state *ps, struct task_struct *prev,
						__u32 cpu, bool runnable, unsigned int prev_state,
						__u64 *now, __u8 *pf_after, __u8 *cause)
{
	__u32 sw;

	if (!*now)
		*now = bpf_ktime_get_ns();
	sw = ls_switch_prev(ps, cpu, runnable, prev_state, *now);
	*pf_after = sw >> 8;
	*cause = sw >> 16;
	return sw;
}

static __always_inline __u64 ls_switch_next_call(struct ls_task_state *ns, struct task_struct *next,
						 struct ls_watch *w, __u64 now)
{
	if (!now)
		now = bpf_ktime_get_ns();
	if (ls_switch_next(ns, LS_ONCE(w->curr), next->pid, next->tgid, now))
		ls_kstack_save(ns, next);
	return now;
}

static __always_inline bool ls_switch_emit_call(struct ls_task_state *ps, struct task_struct *prev,
						struct task_struct *next, __u8 pf_after, __u8 nf,
						__u8 cause, __u32 how, __u64 now)
{
	struct ls_task nt = {};

	ls_task_fill(&nt, next);
	return ls_switch_emit(ps, &nt, pf_after | nf << 8 | (__u32)cause << 16, how, now);
}
#else
/* The hash object's task is an address no global function could read: one body. */
static __always_inline __u8 ls_switch_prev_call(struct ls_task_state *ps, struct task_struct *prev,
						__u32 cpu, bool runnable, unsigned int prev_state,
						__u64 *now, __u8 *pf_after, __u8 *cause)
{
	return ls_switch_prev_part(ps, prev, cpu, runnable, prev_state, now, pf_after, cause);
}

static __always_inline __u64 ls_switch_next_call(struct ls_task_state *ns, struct task_struct *next,
						 struct ls_watch *w, __u64 now)
{
	if (!now)
		now = bpf_ktime_get_ns();
	if (ls_switch_in(ns, next, next->pid, next->tgid, now))
		ls_kstack_save(ns, next);
	return now;
}

static __always_inline bool ls_switch_emit_call(struct ls_task_state *ps, struct task_struct *prev,
						struct task_struct *next, __u8 pf_after, __u8 nf,
						__u8 cause, __u32 how, __u64 now)
{
	return ls_switch_emit_part(ps, prev, next, NULL, pf_after, nf, cause, how, now);
}
#endif

/*
 * A switch of armed tasks, or with a runnable holder waiting for this CPU
 * (watched), or of a task whose page fault is on this CPU's line (w): the
 * off-CPU accounting, and SWITCH unless prev and next have no lock state
 * and nothing is watched.  Whether a task has state worth following is
 * ls_state_flags() (task_state.bpf.h).
 */
static __always_inline void ls_on_switch(bool preempt, struct task_struct *prev,
					 struct task_struct *next, unsigned int prev_state,
					 struct ls_watch *w, bool watched, __u32 cpu,
					 const bool cgroups)
{
	struct ls_task_state *ps = ls_owner_take_marks(prev, ls_fault_keep(w, prev,
						task_state__lookup(prev), prev_state));
	struct ls_task_state *ns = ls_owner_take_marks(next, task_state__lookup(next));
	__u8 nf = ns ? ls_state_flags(ns) : 0;
	bool runnable = preempt || prev_state == TASK_RUNNING;
	__u8 pf = 0, pf_after = 0, cause = 0;
	__u64 now = 0;
	__u32 how;

	if (ps)
		pf = ls_switch_prev_call(ps, prev, cpu, runnable, prev_state, &now, &pf_after,
					 &cause);
	if (ns && (ns->offcpu_start_ns || ns->watch_slot))
		now = ls_switch_next_call(ns, next, w, now);

	if (!watched && !pf && !nf)
		goto settle;
	if (!now)
		now = bpf_ktime_get_ns();
	how = cpu << LS_SW_CPU_SHIFT | (runnable ? LS_SW_RUNNABLE : 0) |
	      (watched ? LS_SW_WATCHED : 0) | (cgroups ? LS_SW_CGROUPS : 0);
	if (!ls_switch_emit_call(ps, prev, next, pf_after, nf, cause, how, now))
		goto settle;
	if (pf)
		ps->seen = 1;
	if (nf)
		ns->seen = 1;
settle:
	ls_switch_settle(ps, prev_state & TASK_DEAD);
	ls_switch_settle(ns, false);
}

/*
 * The hot path.  Every switch notes next as this CPU's curr and keeps the
 * idle clocks; then one test, plain loads only: nothing is watched on this
 * CPU, prev left no fault on its line, prev does not die, and neither task
 * is armed or a lock's owner (task_state__armed()).  Then the switch (ls_on_switch()), and a dead
 * task's state goes (task_state__delete()).  cgroups: whether this program
 * tells holders' and preemptors' cgroups.
 */
static __always_inline int ls_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next, unsigned int prev_state,
				     const bool cgroups)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);
	bool watched;

	if (!w)
		return 0;
	ls_idle_switch(prev, next, cpu);
	/* Before the switch-in lowers next's own count: its RUNNABLE needs this SWITCH. */
	watched = ls_switch_watched(w, next);
	if (!watched && w->fault_task != (__u64)prev && !(prev_state & TASK_DEAD) &&
	    !task_state__armed(prev) && !task_state__armed(next))
		return 0;
	ls_on_switch(preempt, prev, next, prev_state, w, watched, cpu, cgroups);
	if (prev_state & TASK_DEAD)
		task_state__delete(prev);
	return 0;
}

#endif /* LOCKSTALL_SCHED_BPF_H */
