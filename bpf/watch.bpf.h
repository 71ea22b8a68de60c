/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The per-CPU watch line (struct ls_watch, map watch): how many runnable
 * holders wait for each CPU (ls_watch_raise/lower()), what each CPU runs,
 * and the last user page fault taken there (ls_fault_of(), ls_fault_keep()).
 */
#ifndef LOCKSTALL_WATCH_BPF_H
#define LOCKSTALL_WATCH_BPF_H

#include "task_state.bpf.h"

/*
 * Per CPU: n counts tasks runnable there, not running, while holding or
 * granted the lock; curr is the task that CPU switched to last.  A plain
 * array, not per-CPU, since a wakeup on one CPU raises another CPU's count
 * and reads its curr; one cache line each so the switch path of one CPU
 * does not bounce another's line.  BPF_F_MMAPABLE for its page-aligned
 * values: a plain array's start 56 bytes into a line (6.18), so every
 * entry would straddle two.
 *
 * curr stands in for rq->curr: the per-CPU runqueues variable is a typed
 * ksym, which only kernels with CONFIG_KALLSYMS_ALL can resolve.
 *
 * fault is the last user page fault taken on this CPU, by fault_task.  It
 * is noted here, not in the task's storage: most faults never take
 * mmap_lock (per-VMA locks), and a task storage lookup at every fault
 * would cost more than the rest of the handler; this line costs next to
 * nothing.  It moves to the task's storage at the task's next
 * switch-out (ls_fault_keep()), the only way off this CPU, so the task's
 * last fault is always in one of the two: here while fault_task is
 * current, else in its storage.
 */
struct ls_watch {
	__u64 n;
	__u64 curr;		/* task_struct address; 0 until the CPU switched once */
	__u64 fault_task;	/* whose fault is in fault; 0: none */
	struct ls_fault fault;
	__u64 pad[1];
};
_Static_assert(sizeof(struct ls_watch) == 64, "ls_watch is one cache line");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1024);	/* the loader sets the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct ls_watch);
} watch SEC(".maps");

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
