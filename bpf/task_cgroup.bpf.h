/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The cgroup of the tasks a stall names that no lock record of theirs
 * carries: futex and kernel lock owners, and what ran on a
 * holder's CPU instead of it.  LS_REC_TASK_CGROUP (abi.h) is sent beside
 * the record that names the task in that role, only when user space does
 * not know the id yet, or was told LS_TASK_CGROUP_RESEND_NS ago: one LRU
 * hash lookup per such record, a record of its own once per task and
 * second at most.  Included after throttle.bpf.h and reclaim.bpf.h (struct
 * cgroup, kernfs_node, css_set).
 */
#ifndef LOCKSTALL_TASK_CGROUP_BPF_H
#define LOCKSTALL_TASK_CGROUP_BPF_H

#include "throttle.bpf.h"
#include "emit.bpf.h"
#include "watch.bpf.h"

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct css_set___dfl {
	struct cgroup *dfl_cgrp;	/* the default (v2) hierarchy's cgroup */
};

struct task_struct___cg {
	struct css_set___dfl *cgroups;
};

#pragma clang attribute pop

/* What user space was told of a tid, and when. */
struct ls_cg_sent {
	__u64 cgroup_id;
	__u64 sent_ns;
};

/* Tasks of stalls at once, far more than ever take part; an evicted one is only sent again. */
#define LS_TASK_CGROUP_MAX 4096

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LS_TASK_CGROUP_MAX);
	__type(key, __u32);
	__type(value, struct ls_cg_sent);
} task_cgroups SEC(".maps");

/* The flags of a task whose cgroup a stall names as a holder's. */
#define LS_TASK_F_HOLDER_ROLE (LS_TASK_F_HOLDING | LS_TASK_F_GRANTED | LS_TASK_F_OWNER)

/*
 * Tell user space that tid (of process tgid) is in cgroup id, unless it
 * knows.  A global function, verified once on its own, with scalars only:
 * inlined into the switch path, its branches multiplied that program's
 * states past the verifier's limit.
 */
__noinline int ls_task_cgroup_tell(__u32 tid, __u32 tgid, __u64 id, __u64 now)
{
	struct ls_rec_task_cgroup *r;
	struct ls_cg_sent *s, sent;

	if (!tid)
		return 0;	/* an idle task: never a holder nor a preemptor */
	s = bpf_map_lookup_elem(&task_cgroups, &tid);
	if (s && s->cgroup_id == id && now - s->sent_ns < LS_TASK_CGROUP_RESEND_NS)
		return 0;
	r = ls_emit_reserve(LS_REC_TASK_CGROUP, sizeof(*r), now);
	if (!r)
		return 0;	/* not noted as told: the next record tries again */
	r->tid = tid;
	r->tgid = tgid;
	r->cgroup_id = id;
	ls_emit_submit(r);
	sent.cgroup_id = id;
	sent.sent_ns = now;
	if (s)
		*s = sent;
	else
		bpf_map_update_elem(&task_cgroups, &tid, &sent, BPF_ANY);
	return 1;
}

/*
 * The task at address t: its cgroup v2 id to user space.  Probe reads: t
 * may be only an address (a CPU's curr), gone by now.  Each of these
 * helpers is off with cfg.task_cgroups (rodata) when the loader is.
 */
static __always_inline void ls_task_cgroup_at(__u64 t, __u64 now)
{
	struct task_struct___cg *tc = (void *)t;
	struct task_struct *task = (void *)t;

	if (cfg.task_cgroups && t)
		ls_task_cgroup_tell(BPF_CORE_READ(task, pid), BPF_CORE_READ(task, tgid),
				    BPF_CORE_READ(tc, cgroups, dfl_cgrp, kn, id), now);
}

static __always_inline void ls_emit_task_cgroup(struct task_struct *t, __u64 now)
{
	struct task_struct___cg *tc = (void *)t;

	if (cfg.task_cgroups)
		ls_task_cgroup_tell(BPF_CORE_READ(t, pid), BPF_CORE_READ(t, tgid),
				    BPF_CORE_READ(tc, cgroups, dfl_cgrp, kn, id), now);
}

/* What runs on cpu (its watch line's curr): it runs instead of a holder there. */
static __always_inline void ls_emit_cpu_curr_cgroup(__u32 cpu, __u64 now)
{
	struct ls_watch *w;

	if (!cfg.task_cgroups)
		return;
	w = bpf_map_lookup_elem(&watch, &cpu);
	if (w)
		ls_task_cgroup_at(w->curr, now);
}

/*
 * The switch path's part, one call with scalars (a global function takes
 * no task pointer): prev is current at the tracepoint, and next is this
 * CPU's curr by now (ls_switch_watched()).  prev's cgroup when it holds,
 * next's when it runs instead of a holder (watched) or holds.
 */
__noinline int ls_switch_cgroups(__u32 prev_flags, __u32 next_flags, __u32 watched, __u32 cpu,
				 __u64 now)
{
	if (prev_flags & LS_TASK_F_HOLDER_ROLE)
		ls_task_cgroup_at(bpf_get_current_task(), now);
	if (watched || (next_flags & LS_TASK_F_HOLDER_ROLE))
		ls_emit_cpu_curr_cgroup(cpu, now);
	return 0;
}

#endif /* LOCKSTALL_TASK_CGROUP_BPF_H */
