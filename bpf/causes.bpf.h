/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Why a holder could not run (issue 17): what the scheduler and the memory
 * allocator say about a task that holds the lock.  Included by
 * lockstall.bpf.c after its record helpers; nothing here runs for tasks
 * without lock state.
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
 */
#ifndef LOCKSTALL_CAUSES_BPF_H
#define LOCKSTALL_CAUSES_BPF_H

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
};

struct cfs_bandwidth {
	__s64 period;		/* ktime_t */
	__u64 quota;
};

struct task_group {
	struct cgroup_subsys_state css;
	struct cfs_bandwidth cfs_bandwidth;
};

struct cfs_rq {
	struct task_group *tg;
	int throttle_count;
};

struct sched_entity {
	struct sched_entity *parent;
	struct cfs_rq *cfs_rq;
};

struct task_struct___causes {
	struct sched_entity se;
	bool throttled;		/* 6.18+: dequeued by the throttle task work */
};

#pragma clang attribute pop

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

/* The THROTTLE record for p, whose cfs_rq is out of quota; false if it could not go. */
static __always_inline bool ls_emit_throttle(struct task_struct *p, struct cfs_rq *cfs_rq,
					     __u64 now, bool task_model)
{
	struct ls_rec_throttle *r = ls_emit_reserve(LS_REC_THROTTLE, sizeof(*r), now);
	struct task_group *tg = BPF_CORE_READ(cfs_rq, tg);
	struct cgroup *cgrp = BPF_CORE_READ(tg, css.cgroup);
	struct kernfs_node *kn = BPF_CORE_READ(cgrp, kn), *up;
	int i;

	if (!r)
		return false;
	r->tid = BPF_CORE_READ(p, pid);
	r->tgid = BPF_CORE_READ(p, tgid);
	r->cgroup_id = BPF_CORE_READ(kn, id);
	r->quota_ns = BPF_CORE_READ(tg, cfs_bandwidth.quota);
	r->period_ns = BPF_CORE_READ(tg, cfs_bandwidth.period);
	r->hierarchy_id = BPF_CORE_READ(cgrp, root, hierarchy_id);
	r->flags = task_model ? LS_THROTTLE_F_TASK : 0;
	for (i = 0; i < LS_CG_DEPTH && kn; i++) {
		up = ls_kn_parent(kn);
		if (!up)
			break;	/* the hierarchy's root has no name of its own */
		bpf_probe_read_kernel_str(r->names[i], LS_CG_NAME, BPF_CORE_READ(kn, name));
		r->depth = i + 1;
		kn = up;
	}
	if (kn && ls_kn_parent(kn))
		r->flags |= LS_THROTTLE_F_TRUNC;
	ls_emit_submit(r);
	return true;
}

/*
 * Why the holder p, runnable and off CPU from now on, cannot run:
 * LS_CAUSE_F_* for the SWITCH or WAKEUP about to be sent (after the
 * THROTTLE record that names the cgroup).  A few loads; called only for
 * holders that went off CPU runnable or were woken.
 */
static __always_inline __u8 ls_cause_of(struct task_struct *p, __u64 now)
{
	struct task_struct___causes *t = (void *)p;
	bool task_model = bpf_core_field_exists(t->throttled);
	struct cfs_rq *cfs_rq;

	if (task_model && !BPF_CORE_READ(t, throttled))
		return 0;
	cfs_rq = ls_throttled_cfs_rq(p);
	if (!cfs_rq)
		return 0;
	return ls_emit_throttle(p, cfs_rq, now, task_model) ? LS_CAUSE_F_THROTTLED : 0;
}

#endif /* LOCKSTALL_CAUSES_BPF_H */
