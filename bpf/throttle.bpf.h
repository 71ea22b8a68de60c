/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A holder runnable off CPU kept off by a budget: its cgroup's CFS quota
 * or its CPU's RT runtime (LS_CAUSE_F_THROTTLED, LS_CAUSE_F_RT_THROTTLED),
 * for causes.bpf.h, and the kernel's cgroup structs that reclaim.bpf.h and
 * task_cgroup.bpf.h name cgroups with.  Nothing here runs for tasks without
 * lock state.
 *
 * CFS bandwidth throttling has two models (kernel/sched/fair.c):
 *  - before 6.18 a cgroup out of quota is taken off its parent's run queue
 *    at once, with every task in it, kernel mode or not: its cfs_rq (and
 *    those below) have throttle_count > 0 until the period timer refills it;
 *  - from 6.18 (commit e1fad12dcb66, "sched/fair: Switch to task based
 *    throttle model") a task of a throttled cgroup runs on until it returns
 *    to user space, where a task work dequeues it and sets task->throttled.
 *    A holder of a kernel lock therefore is never throttled while it holds.
 * The first model is told by throttle_count at the holder's switch-out or
 * wakeup; the second by task->throttled (the field exists only there).
 *
 * RT throttling (kernel/sched/rt.c): an RT run queue that ran its tasks for
 * its budget in a period (sched_rt_runtime_us of sched_rt_period_us, or its
 * group's cpu.rt_runtime_us) is taken off the CPU with rt_throttled set,
 * until the period timer refills it.  With CONFIG_RT_GROUP_SCHED each task
 * group has its rt_rq per CPU (the root group's is rq->rt), a task's
 * rt.rt_rq, and a group's entity sits on its parent's; without it only
 * rq->rt throttles, and from 6.12 (commit 5f6bd380c7bd, "sched/rt: Remove
 * default bandwidth control") it never does: the fair server (dl_server)
 * keeps fair tasks from starving instead, and rt_throttled stays 0.
 */
#ifndef LOCKSTALL_THROTTLE_BPF_H
#define LOCKSTALL_THROTTLE_BPF_H

#include "compat.bpf.h"
#include "emit.bpf.h"

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct kernfs_node {
	const char *name;
	__u64 id;
	struct kernfs_node *parent;
};

/* 6.15 renamed kernfs_node.parent (commit 633488947ef6, an RCU pointer now). */
struct kernfs_node___new {
	struct kernfs_node *__parent;
};

struct cgroup_root {
	int hierarchy_id;
};

struct cgroup {
	struct kernfs_node *kn;
	struct cgroup_root *root;
};

struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
};

struct cfs_bandwidth {
	__s64 period;		/* ktime_t */
	__u64 quota;
	__u64 throttled_time;	/* all its cfs_rqs', summed at each unthrottle */
};

struct task_group {
	struct cgroup_subsys_state css;
	struct cfs_bandwidth cfs_bandwidth;
};

struct cfs_rq {
	struct task_group *tg;
	int throttle_count;
	__u64 throttled_clock_self_time;	/* 6.5+: this cfs_rq's, ancestors' throttles included */
};

struct sched_entity {
	struct sched_entity *parent;
	struct cfs_rq *cfs_rq;
};

struct rt_rq {
	int rt_throttled;
	unsigned int rt_nr_boosted;	/* CONFIG_RT_GROUP_SCHED: PI-boosted tasks run on */
};

struct rq {
	struct rt_rq rt;
};

/* cfs_rq.rq: CONFIG_FAIR_GROUP_SCHED (the CPU's rq for kernels without RT groups) */
struct cfs_rq___rq {
	struct rq *rq;
};

struct sched_rt_entity {
	struct sched_rt_entity *parent;	/* CONFIG_RT_GROUP_SCHED, as rt_rq */
	struct rt_rq *rt_rq;		/* the rt_rq it is queued on */
};

struct task_struct___causes {
	struct sched_entity se;
	struct sched_rt_entity rt;
	bool throttled;		/* 6.18+: dequeued by the throttle task work */
};

#pragma clang attribute pop

/*
 * THROTTLE records are built here, then copied out with bpf_ringbuf_output():
 * 6.1's verifier loses a ring buffer reservation held across the name loop
 * ("Unreleased reference").  sched_switch and sched_wakeup run with the run
 * queue locked and interrupts off, so never nest on one CPU's entry.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ls_rec_throttle);
} throttle_buf SEC(".maps");

/* A holder off CPU throttled: its counters then, for the time at its switch-in. */
struct ls_throttle_open {
	struct cfs_rq *own;	/* the task's cfs_rq (throttled_clock_self_time) */
	struct task_group *tg;	/* the throttled group (cfs_bandwidth.throttled_time) */
	__u64 self_time;
	__u64 group_time;
};

/* Few at once: only holders off CPU throttled; an LRU drops what a lost switch-in left. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct ls_throttle_open);
} throttle_open SEC(".maps");

/* Entries in throttle_open, roughly: the switch-in skips the lookup at 0. */
__u64 throttle_open_n = 0;

/* The group scheduler's levels walked up from a task: cgroups nest this deep at most here. */
#define LS_CG_WALK 8

static __always_inline struct kernfs_node *ls_kn_parent(struct kernfs_node *kn)
{
	struct kernfs_node___new *k = (void *)kn;

	if (bpf_core_field_exists(k->__parent))
		return BPF_CORE_READ(k, __parent);
	return BPF_CORE_READ(kn, parent);
}

/* The outermost cfs_rq of p's hierarchy that is throttled, or NULL. */
static __always_inline struct cfs_rq *ls_throttled_cfs_rq(struct task_struct *p)
{
	struct task_struct___causes *t = (void *)p;
	struct sched_entity *se = &t->se;
	struct cfs_rq *cfs_rq, *found = NULL;
	int i;

	/* CONFIG_FAIR_GROUP_SCHED and CONFIG_CFS_BANDWIDTH: else nothing is throttled. */
	if (!bpf_core_field_exists(se->cfs_rq) || !bpf_core_field_exists(found->throttle_count))
		return NULL;
	for (i = 0; i < LS_CG_WALK && se; i++) {
		cfs_rq = BPF_CORE_READ(se, cfs_rq);
		if (!cfs_rq || BPF_CORE_READ(cfs_rq, throttle_count) <= 0)
			break;
		found = cfs_rq;
		se = BPF_CORE_READ(se, parent);
	}
	return found;
}

/*
 * cgrp's directory names, leaf first, into names[] (depth of them used);
 * true if the path goes on above LS_CG_DEPTH names.
 */
static __always_inline bool ls_cg_names(struct cgroup *cgrp, char names[LS_CG_DEPTH][LS_CG_NAME],
					__u8 *depth)
{
	struct kernfs_node *kn = BPF_CORE_READ(cgrp, kn), *up;
	int i;

	for (i = 0; i < LS_CG_DEPTH && kn; i++) {
		up = ls_kn_parent(kn);
		if (!up)
			break;	/* the hierarchy's root has no name of its own */
		bpf_probe_read_kernel_str(names[i], LS_CG_NAME, BPF_CORE_READ(kn, name));
		*depth = i + 1;
		kn = up;
	}
	return kn && ls_kn_parent(kn);
}

/* The THROTTLE record for p, whose cfs_rq is out of quota; false if it could not go. */
static __always_inline bool ls_emit_throttle(struct task_struct *p, struct cfs_rq *cfs_rq,
					     __u64 now, bool task_model)
{
	struct task_group *tg = BPF_CORE_READ(cfs_rq, tg);
	struct cgroup *cgrp = BPF_CORE_READ(tg, css.cgroup);
	struct ls_rec_throttle *r;
	__u32 zero = 0;
	__u64 taken;

	r = bpf_map_lookup_elem(&throttle_buf, &zero);
	if (!r)
		return false;
	__builtin_memset(r, 0, sizeof(*r));
	r->tid = BPF_CORE_READ(p, pid);
	r->tgid = BPF_CORE_READ(p, tgid);
	r->cgroup_id = BPF_CORE_READ(cgrp, kn, id);
	r->quota_ns = BPF_CORE_READ(tg, cfs_bandwidth.quota);
	r->period_ns = BPF_CORE_READ(tg, cfs_bandwidth.period);
	r->hierarchy_id = BPF_CORE_READ(cgrp, root, hierarchy_id);
	r->flags = task_model ? LS_THROTTLE_F_TASK : 0;
	if (ls_cg_names(cgrp, r->names, &r->depth))
		r->flags |= LS_THROTTLE_F_TRUNC;
	taken = ls_hdr_fill(&r->hdr, LS_REC_THROTTLE, sizeof(*r), now);
	if (bpf_ringbuf_output(&events, r, sizeof(*r), ls_rb_wakeup_flags())) {
		ls_drops_count(taken);
		return false;
	}
	return true;
}

/* This cfs_rq's throttled time so far (6.5+), else 0. */
static __always_inline __u64 ls_cfs_rq_self_time(struct cfs_rq *cfs_rq)
{
	if (!bpf_core_field_exists(cfs_rq->throttled_clock_self_time))
		return 0;
	return BPF_CORE_READ(cfs_rq, throttled_clock_self_time);
}

/* Note the counters the switch-in will read the throttled time from. */
static __always_inline void ls_throttle_open(struct task_struct *p, struct cfs_rq *throttled)
{
	struct task_struct___causes *t = (void *)p;
	struct cfs_rq *own = BPF_CORE_READ(t, se.cfs_rq);
	struct task_group *tg = BPF_CORE_READ(throttled, tg);
	struct ls_throttle_open o = { .own = own, .tg = tg };
	__u64 key = (__u64)p;

	o.self_time = ls_cfs_rq_self_time(own);
	o.group_time = BPF_CORE_READ(tg, cfs_bandwidth.throttled_time);
	if (!bpf_map_update_elem(&throttle_open, &key, &o, BPF_ANY))
		__sync_fetch_and_add(&throttle_open_n, 1);
}

/* LS_CAUSE_F_THROTTLED if fair task p's cgroup is out of CFS quota (its THROTTLE sent). */
static __always_inline __u8 ls_cfs_cause_of(struct task_struct *p, __u64 now)
{
	struct task_struct___causes *t = (void *)p;
	bool task_model = bpf_core_field_exists(t->throttled);
	struct cfs_rq *cfs_rq;

	if (task_model && !BPF_CORE_READ(t, throttled))
		return 0;
	cfs_rq = ls_throttled_cfs_rq(p);
	if (!cfs_rq || !ls_emit_throttle(p, cfs_rq, now, task_model))
		return 0;
	ls_throttle_open(p, cfs_rq);
	return LS_CAUSE_F_THROTTLED;
}

/* rt_rq_throttled(): out of budget, and no PI-boosted task in it that may run on. */
static __always_inline bool ls_rt_rq_throttled(struct rt_rq *rt_rq)
{
	if (!rt_rq || !bpf_core_field_exists(rt_rq->rt_throttled) ||
	    !BPF_CORE_READ(rt_rq, rt_throttled))
		return false;
	return !bpf_core_field_exists(rt_rq->rt_nr_boosted) || !BPF_CORE_READ(rt_rq, rt_nr_boosted);
}

/*
 * Whether the RT run queue of RT task p on its CPU, or one above it, is
 * throttled: its group's rt_rq and its ancestors' (CONFIG_RT_GROUP_SCHED),
 * else the CPU's (rq->rt, found through its cfs_rq: the per-CPU runqueues
 * ksym needs CONFIG_KALLSYMS_ALL).
 */
static __always_inline bool ls_rt_throttled(struct task_struct___causes *t)
{
	struct sched_rt_entity *rt_se = &t->rt;
	struct cfs_rq___rq *cfs_rq;
	struct rq *rq;
	int i;

	if (bpf_core_field_exists(rt_se->rt_rq)) {
		for (i = 0; i < LS_CG_WALK && rt_se; i++) {
			if (ls_rt_rq_throttled(BPF_CORE_READ(rt_se, rt_rq)))
				return true;
			rt_se = BPF_CORE_READ(rt_se, parent);
		}
		return false;
	}
	cfs_rq = (void *)BPF_CORE_READ(t, se.cfs_rq);
	if (!bpf_core_field_exists(cfs_rq->rq) || !cfs_rq)
		return false;
	rq = BPF_CORE_READ(cfs_rq, rq);
	return rq && ls_rt_rq_throttled(&rq->rt);
}

/* Priorities below this are SCHED_FIFO/SCHED_RR (the kernel's MAX_RT_PRIO); -1 is deadline. */
#define LS_MAX_RT_PRIO 100

/*
 * Why the holder p, runnable and off CPU from now on, cannot run as its
 * scheduling class says: LS_CAUSE_F_* for the SWITCH or WAKEUP about to be
 * sent (after the THROTTLE record that names the cgroup).  A few loads;
 * called only for holders that went off CPU runnable or were woken, through
 * ls_cause_of() (causes.bpf.h).
 */
static __always_inline __u8 ls_sched_cause_of(struct task_struct *p, __u64 now)
{
	int prio = BPF_CORE_READ(p, prio);

	if (prio < 0)
		return 0;	/* SCHED_DEADLINE: neither budget applies */
	/* An RT task is on no cfs_rq: its cgroup's CFS quota does not stop it. */
	if (prio >= LS_MAX_RT_PRIO)
		return ls_cfs_cause_of(p, now);
	return ls_rt_throttled((void *)p) ? LS_CAUSE_F_RT_THROTTLED : 0;
}

/*
 * A holder switches in: if it went off CPU throttled, say for how long, from
 * the counters' growth since (the unthrottle adds the whole throttle to them).
 */
static __always_inline void ls_throttle_close(struct task_struct *p, __u64 now)
{
	struct ls_rec_unthrottle *r;
	struct ls_throttle_open *o;
	struct task_group *tg;
	struct cfs_rq *own;
	__u64 key = (__u64)p;

	if (!throttle_open_n)
		return;
	o = bpf_map_lookup_elem(&throttle_open, &key);
	if (!o)
		return;
	r = ls_emit_reserve(LS_REC_UNTHROTTLE, sizeof(*r), now);
	if (r) {
		own = o->own;
		tg = o->tg;
		r->tid = BPF_CORE_READ(p, pid);
		r->tgid = BPF_CORE_READ(p, tgid);
		if (bpf_core_field_exists(own->throttled_clock_self_time)) {
			r->throttled_ns = ls_cfs_rq_self_time(own) - o->self_time;
		} else {
			r->throttled_ns = BPF_CORE_READ(tg, cfs_bandwidth.throttled_time) -
					  o->group_time;
			r->flags = LS_UNTHROTTLE_F_GROUP;
		}
		ls_emit_submit(r);
	}
	if (!bpf_map_delete_elem(&throttle_open, &key))
		__sync_fetch_and_add(&throttle_open_n, -1);
}

#endif /* LOCKSTALL_THROTTLE_BPF_H */
