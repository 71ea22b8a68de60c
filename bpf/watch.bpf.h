/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The per-CPU watch line (struct ls_watch, map watch): how many runnable
 * holders wait for each CPU (ls_watch_raise/lower()), what each CPU runs,
 * and the last user page fault taken there (ls_fault_of(), ls_fault_keep()).
 */
#ifndef LOCKSTALL_WATCH_BPF_H
#define LOCKSTALL_WATCH_BPF_H

static __always_inline void ls_watch_add(__u32 cpu, __u64 delta)
{
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);

	/* Raised on one CPU, lowered on another: atomics. */
	if (w)
		__sync_fetch_and_add(&w->n, delta);
}

static __always_inline void ls_watch_raise(struct ls_task_state *st, __u32 cpu)
{
	__u32 slot = st->watch_slot;

	if (slot == cpu + 1)
		return;
	if (slot)
		ls_watch_add(slot - 1, (__u64)-1);
	ls_watch_add(cpu, 1);
	st->watch_slot = cpu + 1;
}

static __always_inline void ls_watch_lower(struct ls_task_state *st)
{
	__u32 slot = st->watch_slot;

	if (!slot)
		return;
	ls_watch_add(slot - 1, (__u64)-1);
	st->watch_slot = 0;
}

/* The switch path's one array access: note next as curr, read the count. */
static __always_inline bool ls_switch_watched(struct ls_watch *w, struct task_struct *next)
{
	if (!w)
		return false;
	w->curr = (__u64)next;
	return (__s64)w->n > 0;
}


/*
 * What runs on another CPU: only an address, which may have exited since,
 * so probe reads.  tid stays 0 (unknown) if the CPU has not switched yet.
 */
static __always_inline void ls_task_fill_cpu_curr(struct ls_task *out, __u32 cpu)
{
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);

	if (!w || !w->curr)
		return;
	ls_task_fill_probe(out, (struct task_struct *)w->curr);
}


/* cur's last user page fault: on this CPU's line while noted there, else kept in st. */
static __always_inline const struct ls_fault *ls_fault_of(struct task_struct *cur,
							  const struct ls_task_state *st)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);

	if (w && w->fault_task == (__u64)cur)
		return &w->fault;
	return &st->fault;
}


/*
 * prev leaves this CPU: its fault noted on this CPU's line goes to its
 * storage (made if need be: the fault may yet take mmap_lock, e.g. retried
 * under it after I/O).  A dying task's is dropped.
 */
static __always_inline struct ls_task_state *ls_fault_keep(struct ls_watch *w,
							   struct task_struct *prev,
							   struct ls_task_state *ps,
							   unsigned int prev_state)
{
	if (!w || w->fault_task != (__u64)prev)
		return ps;
	w->fault_task = 0;
	if (prev_state & TASK_DEAD)
		return ps;
	if (!ps)
		ps = task_state__get(prev);
	if (ps)
		ps->fault = w->fault;
	return ps;
}

#endif /* LOCKSTALL_WATCH_BPF_H */
