/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The sched_switch handler: the off-CPU accounting of waiters and holders,
 * WAIT_BEGIN at a wait's first switch-out, the watch counts and SWITCH.
 */
#ifndef LOCKSTALL_SCHED_BPF_H
#define LOCKSTALL_SCHED_BPF_H

/*
 * The hot path.  Tasks without lock state cost two storage lookups and one
 * array read; nothing is sent unless prev or next has state or this CPU has
 * a runnable holder waiting to run.
 */
static __always_inline int ls_on_switch(bool preempt, struct task_struct *prev,
					struct task_struct *next, unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);
	struct ls_task_state *ps = ls_fault_keep(w, prev, task_state__lookup(prev), prev_state);
	struct ls_task_state *ns = task_state__lookup(next);
	__u8 pf = ps ? ls_state_flags(ps) : 0;
	__u8 pf_after = pf;
	__u8 nf = ns ? ls_state_flags(ns) : 0;
	bool runnable = preempt || prev_state == TASK_RUNNING;
	struct ls_rec_switch *r;
	__u64 now = 0;

	if (ps && ls_hist_pending(ps))
		ls_hist_flush_all(ps, prev);
	if (pf) {
		struct ls_wait_state *w = &ps->wait;

		now = bpf_ktime_get_ns();
		ps->offcpu_start_ns = now;
		if ((w->flags & LS_W_ACTIVE) && !(w->flags & LS_W_WENT_OFF)) {
			w->flags |= LS_W_WENT_OFF;
			ls_wait_begin(ps, prev, now);
		}
		/* Asleep again before acquire_returned: the wakeup did not grant it. */
		if ((w->flags & LS_W_GRANTED) && !runnable) {
			w->flags &= ~LS_W_GRANTED;
		}
		pf_after = ls_state_flags(ps);
		if (runnable && (pf_after & (LS_TASK_F_HOLDING | LS_TASK_F_GRANTED)))
			ls_watch_raise(ps, cpu);
		else
			ls_watch_lower(ps);
	} else if (ps && (prev_state & TASK_DEAD) && ps->seen) {
		/* Took the lock after sched_process_exit (exit_mm): its last word. */
		now = bpf_ktime_get_ns();
		ls_emit_exit(ps, prev, now, 0);
	}

	if (ns && (ns->offcpu_start_ns || ns->watch_slot)) {
		__u64 start = ns->offcpu_start_ns;

		if (!now)
			now = bpf_ktime_get_ns();
		if (start && now > start) {
			__u64 off = now - start;
			struct ls_wait_state *w = &ns->wait;

			if (ns->hold[0].flags & LS_H_ACTIVE)
				ns->hold[0].offcpu_ns += off;
			if (ns->hold[1].flags & LS_H_ACTIVE)
				ns->hold[1].offcpu_ns += off;
			/*
			 * Where a holder was while it was off CPU, for its HOLD's
			 * stack: taken as it comes back, where it still sits (in
			 * __schedule, under the path that holds the lock), and
			 * only after a spell long enough to matter -- a stack
			 * walk costs microseconds, and most spells are short.
			 */
			if (cfg.kstacks && off >= cfg.min_hold_ns && ls_holding(ns) &&
			    !ns->off_kstack_valid) {
				__u64 t0 = bpf_ktime_get_ns();
				long n = bpf_get_task_stack(next, ns->off_kstack,
							    sizeof(ns->off_kstack), 0);

				ns->off_kstack_len = n > 0 ? n : 0;
				ns->off_kstack_valid = 1;
				__sync_fetch_and_add(&kstack_saves, 1);
				__sync_fetch_and_add(&kstack_save_ns, bpf_ktime_get_ns() - t0);
			}
			if ((w->flags & (LS_W_ACTIVE | LS_W_GRANTED)) ==
			    (LS_W_ACTIVE | LS_W_GRANTED)) {
				if (ns->grant.wait_ns > start)
					start = ns->grant.wait_ns;
				if (now > start)
					ns->grant.wait_offcpu_ns += now - start;
			}
		}
		ns->offcpu_start_ns = 0;
		ls_watch_lower(ns);
	}

	if (!ls_switch_watched(w, next) && !pf && !nf)
		return 0;
	if (!now)
		now = bpf_ktime_get_ns();
	r = ls_emit_reserve(LS_REC_SWITCH, sizeof(*r), now);
	if (!r)
		return 0;
	ls_task_fill(&r->prev, prev);
	ls_task_fill(&r->next, next);
	r->prev_runnable = runnable;
	r->prev_flags = pf_after;
	r->next_flags = nf;
	ls_emit_submit(r);
	if (pf)
		ps->seen = 1;
	if (nf)
		ns->seen = 1;
	return 0;
}

/* The switch; then a dead task's state goes (task_state__delete()). */
static __always_inline int ls_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next, unsigned int prev_state)
{
	ls_on_switch(preempt, prev, next, prev_state);
	if (prev_state & TASK_DEAD)
		task_state__delete(prev);
	return 0;
}

#endif /* LOCKSTALL_SCHED_BPF_H */
