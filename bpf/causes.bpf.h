/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Why a holder could not run, as the switch and wakeup programs ask it:
 * the causes' doors at the end of this file are the only calls they make,
 * so a new cause is its code and state here plus a line in a door.
 *  - throttled, rt_throttled: throttle.bpf.h, through ls_cause_of();
 *  - io: io.bpf.h, a holder that sleeps in an I/O wait;
 *  - pinned: a runnable holder that may not run on every CPU (affinity,
 *    cpuset) waits for its own while others idle.  Each CPU's idle time is
 *    kept here at its idle task's switches (idle_clock): the kernel's own
 *    counters (tick_sched, the runqueues) are per-CPU symbols that BPF can
 *    only reach with CONFIG_KALLSYMS_ALL.  At the holder's runnable
 *    switch-out or wakeup the idle clocks of the CPUs it may not use are
 *    noted; at its switch-in their growth goes out in LS_REC_RUNNABLE.  A
 *    CPU it may use is never counted: it could have migrated there.
 *  - steal: the hypervisor ran something else on the holder's vCPU while it
 *    "ran": its run queue's prev_steal_time (CONFIG_PARAVIRT_TIME_ACCOUNTING,
 *    updated by update_rq_clock() before every switch), read at the
 *    holder's switch-in and switch-out.
 * Only holders pay for the reads; every switch pays two pid loads, and a
 * switch to or from the idle task one clock read and a store to its own CPU's line.
 */
#ifndef LOCKSTALL_CAUSES_BPF_H
#define LOCKSTALL_CAUSES_BPF_H

#include "emit.bpf.h"
#include "io.bpf.h"
#include "task_state.bpf.h"
#include "throttle.bpf.h"

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct task_struct___pinned {
	int nr_cpus_allowed;
	const void *cpus_ptr;	/* struct cpumask *: bit n for CPU n, from CPU 0 up */
};

struct rq___steal {
	__u64 prev_steal_time;
};

#pragma clang attribute pop

/*
 * A task's own state of the causes that keep some, in its task state's
 * cause[] words (as the kernel's skb->cb): only this file reads them,
 * always through this struct.  Zero when made.
 */
struct ls_cause_task {
	/* steal: its CPU's steal clock at its switch-in; steal_in_ns 0: none */
	__u64 steal_in_ns;
	__u64 steal_in;
	__u64 steal_ns;		/* ... stolen up to its switch-out, for the STEAL record */
	__u64 steal_on_ns;	/* ... the stretch on CPU it was stolen in */
};
_Static_assert(sizeof(struct ls_cause_task) <= sizeof(((struct ls_task_state *)0)->cause),
	       "struct ls_task_state's cause[] words");

static __always_inline struct ls_cause_task *ls_cause_task(struct ls_task_state *st)
{
	return (struct ls_cause_task *)st->cause;
}

/* One CPU's idle time; seq is odd while its CPU writes, so another CPU reads it whole. */
struct ls_idle_clock {
	__u64 seq;
	__u64 since;		/* idle since then; 0: running, or not yet seen go idle */
	__u64 total;		/* idle time before since */
	__u64 pad[5];		/* a cache line each: a CPU writes only its own */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LS_PINNED_CPUS);
	__type(key, __u32);
	__type(value, struct ls_idle_clock);
} idle_clock SEC(".maps");

/* A CPU switches to or from its idle task (pid 0): its idle clock starts or stops. */
static __always_inline void ls_idle_switch(struct task_struct *prev, struct task_struct *next,
					   __u32 cpu)
{
	/* The switch's own arguments: BTF pointers, plain loads. */
	bool to_idle = !next->pid, from_idle = !prev->pid;
	struct ls_idle_clock *c;
	__u64 now;

	if (!cfg.nr_cpus || to_idle == from_idle)
		return;
	c = bpf_map_lookup_elem(&idle_clock, &cpu);
	if (!c)
		return;
	now = bpf_ktime_get_ns();
	LS_ONCE(c->seq) = c->seq + 1;
	ls_barrier();
	if (to_idle) {
		LS_ONCE(c->since) = now;
	} else if (c->since) {
		/* Idle since before the tracing began: not counted, never more than seen. */
		LS_ONCE(c->total) = c->total + (now - c->since);
		LS_ONCE(c->since) = 0;
	}
	ls_barrier();
	LS_ONCE(c->seq) = c->seq + 1;
}

/* CPU cpu's idle time up to now into *out; false if it was being written: not counted. */
static __always_inline bool ls_idle_read(__u32 cpu, __u64 now, __u64 *out)
{
	struct ls_idle_clock *c = bpf_map_lookup_elem(&idle_clock, &cpu);
	__u64 seq, since, total;
	if (!c)
		return false;
	seq = LS_ONCE(c->seq);
	ls_barrier();
	since = LS_ONCE(c->since);
	total = LS_ONCE(c->total);
	ls_barrier();
	if ((seq & 1) || LS_ONCE(c->seq) != seq)
		return false;
	*out = total + (since && now > since ? now - since : 0);
	return true;
}

/* A pinned holder off CPU runnable: the idle clocks of the CPUs it may not use, then. */
struct ls_pinned_open {
	__u64 start_ns;
	__u64 allowed;
	__u32 nr_allowed;
	__u32 pad;
	/* At the switch-in: which CPUs idled, and the most one did. */
	__u64 idle_cpus;
	__u64 most;
	__u64 idle[LS_PINNED_CPUS];	/* 1 + CPU n's idle clock; 0: not counted */
};

/* Built here, then copied into pinned_open: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ls_pinned_open);
} pinned_buf SEC(".maps");

/*
 * By tid (a global function takes no pointer); few at once: only pinned
 * holders off CPU runnable; an LRU drops what a lost switch-in left.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 512);
	__type(key, __u64);
	__type(value, struct ls_pinned_open);
} pinned_open SEC(".maps");

/* Entries in pinned_open, roughly: the switch-in skips the lookup at 0. */
__u64 pinned_open_n = 0;

static __always_inline __u32 ls_pinned_ncpus(void)
{
	return cfg.nr_cpus < LS_PINNED_CPUS ? cfg.nr_cpus : LS_PINNED_CPUS;
}

/*
 * Note the idle clocks of the CPUs outside allowed, from now on, for the
 * switch-in of task tid: LS_CAUSE_F_PINNED, or 0 if it could not be kept.
 * A global function: the verifier checks its loop once, not once per path
 * of the switch handler.
 */
__noinline int ls_pinned_note(__u32 tid, __u64 now, __u64 allowed, __u32 nr_allowed)
{
	__u32 zero = 0, n = ls_pinned_ncpus(), i;
	struct ls_pinned_open *o = bpf_map_lookup_elem(&pinned_buf, &zero);
	__u64 key = tid, v;

	if (!o)
		return 0;
	o->start_ns = now;
	o->allowed = allowed;
	o->nr_allowed = nr_allowed;
	for (i = 0; i < LS_PINNED_CPUS; i++) {
		o->idle[i] = 0;
		if (i < n && !(allowed & (1ULL << i)) && ls_idle_read(i, now, &v))
			o->idle[i] = v + 1;
	}
	if (bpf_map_update_elem(&pinned_open, &key, o, BPF_ANY))
		return 0;
	__sync_fetch_and_add(&pinned_open_n, 1);
	return LS_CAUSE_F_PINNED;
}

/* LS_CAUSE_F_PINNED if p, runnable off CPU from now on, may not use every CPU. */
static __always_inline __u8 ls_pinned_cause(struct task_struct *p, __u64 now)
{
	struct task_struct___pinned *t = (void *)p;
	__u64 allowed = 0;
	int nr;

	if (!ls_pinned_ncpus() || !bpf_core_field_exists(t->cpus_ptr))
		return 0;
	nr = BPF_CORE_READ(t, nr_cpus_allowed);
	if (nr <= 0 || nr >= cfg.nr_cpus)
		return 0;
	/* The kernel's mask is NR_CPUS bits, at least 64: its first word is always there. */
	bpf_probe_read_kernel(&allowed, sizeof(allowed), BPF_CORE_READ(t, cpus_ptr));
	return ls_pinned_note(BPF_CORE_READ(p, pid), now, allowed, nr);
}

/*
 * The growth of the noted idle clocks of task tid up to now: which CPUs
 * idled, the most one did, into its entry.  Global, as ls_pinned_note().
 */
__noinline int ls_pinned_idle(__u32 tid, __u64 now)
{
	__u64 key = tid, v, d;
	struct ls_pinned_open *o = bpf_map_lookup_elem(&pinned_open, &key);
	__u32 i;

	if (!o)
		return -1;
	o->idle_cpus = 0;
	o->most = 0;
	for (i = 0; i < LS_PINNED_CPUS; i++) {
		if (!o->idle[i] || !ls_idle_read(i, now, &v) || v + 1 <= o->idle[i])
			continue;
		d = v + 1 - o->idle[i];
		o->idle_cpus |= 1ULL << i;
		if (d > o->most)
			o->most = d;
	}
	return 0;
}

/*
 * Task tid switches in at now: if it sat pinned while CPUs it could not
 * use idled, the RUNNABLE record.  Global, as ls_pinned_note().
 */
__noinline int ls_pinned_end(__u32 tid, __u32 tgid, __u64 now)
{
	__u64 key = tid, most;
	struct ls_pinned_open *o;
	struct ls_rec_runnable *r;

	if (ls_pinned_idle(tid, now))
		return 0;
	o = bpf_map_lookup_elem(&pinned_open, &key);
	if (!o)
		return 0;
	most = o->most;
	if (most > now - o->start_ns)
		most = now - o->start_ns;
	r = most ? ls_emit_reserve(LS_REC_RUNNABLE, sizeof(*r), now) : NULL;
	if (r) {
		r->tid = tid;
		r->tgid = tgid;
		r->start_ns = o->start_ns;
		r->allowed = o->allowed;
		r->idle_cpus = o->idle_cpus;
		r->idle_ns = most;
		r->nr_cpus_allowed = o->nr_allowed;
		r->nr_cpus = cfg.nr_cpus;
		ls_emit_submit(r);
	}
	if (!bpf_map_delete_elem(&pinned_open, &key))
		__sync_fetch_and_add(&pinned_open_n, -1);
	return 0;
}

/* The steal time of p's CPU's run queue so far; 0 where the kernel keeps none. */
static __always_inline __u64 ls_steal_clock(struct task_struct *p)
{
	struct task_struct___causes *t = (void *)p;
	struct cfs_rq___rq *cfs_rq = (void *)BPF_CORE_READ(t, se.cfs_rq);
	struct rq___steal *rq;

	if (!bpf_core_field_exists(cfs_rq->rq) || !cfs_rq)
		return 0;
	rq = (void *)BPF_CORE_READ(cfs_rq, rq);
	if (!bpf_core_field_exists(rq->prev_steal_time) || !rq)
		return 0;
	return BPF_CORE_READ(rq, prev_steal_time);
}

/* A task with lock state switches in at now: its CPU's steal clock, for its switch-out. */
static __always_inline void ls_steal_in(struct ls_cause_task *st, struct task_struct *p, __u64 now)
{
	if (!cfg.steal)
		return;
	st->steal_in_ns = now;
	st->steal_in = ls_steal_clock(p);
}

/*
 * A holder switches out: LS_CAUSE_F_STEAL if its CPU was stolen since its
 * switch-in, the amounts kept for ls_emit_steal() after the SWITCH.
 */
static __always_inline __u8 ls_steal_out(struct ls_cause_task *st, struct task_struct *p,
					 __u64 now)
{
	__u64 in = st->steal_in_ns, cur;

	if (!cfg.steal)
		return 0;
	st->steal_in_ns = 0;
	if (!in || now <= in)
		return 0;
	cur = ls_steal_clock(p);
	if (cur <= st->steal_in)
		return 0;
	st->steal_ns = cur - st->steal_in;
	st->steal_on_ns = now - in;
	return LS_CAUSE_F_STEAL;
}

static __always_inline void ls_emit_steal(struct ls_cause_task *st, struct task_struct *p,
					  __u64 now)
{
	struct ls_rec_steal *r = ls_emit_reserve(LS_REC_STEAL, sizeof(*r), now);

	if (!r)
		return;
	r->tid = BPF_CORE_READ(p, pid);
	r->tgid = BPF_CORE_READ(p, tgid);
	r->on_ns = st->steal_on_ns;
	r->steal_ns = st->steal_ns;
	ls_emit_submit(r);
}

/*
 * The doors.  A task with lock state leaves the CPU at now: what it ran
 * through since its switch-in, LS_CAUSE_F_* for its SWITCH (holder: it
 * holds or owns a lock).  A holder whose CPU was stolen says
 * LS_CAUSE_F_STEAL.  After it, why it cannot run: ls_cause_of() if it is
 * runnable, ls_causes_asleep() if not.
 */
static __always_inline __u8 ls_causes_ran(struct ls_task_state *st, struct task_struct *prev,
					  bool holder, __u64 now)
{
	struct ls_cause_task *c = ls_cause_task(st);

	if (!holder) {
		c->steal_in_ns = 0;
		return 0;
	}
	return ls_steal_out(c, prev, now);
}

/*
 * Why the holder p, runnable and off CPU from now on (at its switch-out or
 * its wakeup), cannot run: LS_CAUSE_F_*.
 */
static __always_inline __u8 ls_cause_of(struct task_struct *p, __u64 now)
{
	return ls_sched_cause_of(p, now) | ls_pinned_cause(p, now);
}

/* Why the holder prev, asleep in prev_state from now on, cannot run: an I/O wait. */
static __always_inline __u8 ls_causes_asleep(struct task_struct *prev, unsigned int prev_state)
{
	return ls_in_io_wait(prev, prev_state) ? LS_CAUSE_F_IO : 0;
}

/* The records that follow prev's SWITCH (state st), as its cause says. */
static __always_inline void ls_causes_told(struct ls_task_state *st, struct task_struct *prev,
					   __u8 cause, __u64 now)
{
	if (cause & LS_CAUSE_F_IO)
		ls_emit_io_dev(prev, st, now);
	if (cause & LS_CAUSE_F_STEAL)
		ls_emit_steal(ls_cause_task(st), prev, now);
}

/* next (state st; tid, tgid), with lock state, comes back on CPU at now. */
static __always_inline void ls_causes_in(struct ls_task_state *st, struct task_struct *next,
					 __u32 tid, __u32 tgid, __u64 now)
{
	ls_throttle_close(next, now);
	if (pinned_open_n)
		ls_pinned_end(tid, tgid, now);
	ls_steal_in(ls_cause_task(st), next, now);
}

#endif /* LOCKSTALL_CAUSES_BPF_H */
