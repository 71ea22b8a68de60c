/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A holder reclaiming or compacting memory in its own allocation:
 * the vmscan and compaction tracepoints, which fire in the allocating task.
 * Each costs one task-state lookup; only a task that holds a followed lock
 * (or owns one a waiter waits on) goes further, and the record names the
 * memory cgroup whose limit made it reclaim.  Included after throttle.bpf.h
 * (kernfs names, struct cgroup_subsys_state).
 */
#ifndef LOCKSTALL_RECLAIM_BPF_H
#define LOCKSTALL_RECLAIM_BPF_H

#include "throttle.bpf.h"
#include "emit.bpf.h"

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct css_set {
	struct cgroup_subsys_state *subsys[0];
};

struct page_counter {
	struct {
		long counter;
	} usage;		/* atomic_long_t */
	unsigned long high;
	unsigned long max;
};

struct mem_cgroup {
	struct cgroup_subsys_state css;
	struct page_counter memory;
};

struct task_struct___reclaim {
	struct css_set *cgroups;
};

enum cgroup_subsys_id {
	memory_cgrp_id = 4,	/* a placeholder: bpf_core_enum_value() reads the kernel's */
};

#pragma clang attribute pop

/* RECLAIM records are built here (the cgroup's names), then copied out: see throttle_buf. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ls_rec_reclaim);
} reclaim_buf SEC(".maps");

/* The task's memory cgroup (CONFIG_MEMCG), or NULL. */
static __always_inline struct mem_cgroup *ls_task_memcg(struct task_struct *p)
{
	struct task_struct___reclaim *t = (void *)p;
	struct cgroup_subsys_state *css = NULL;
	struct css_set *cset;
	__u32 id;

	if (!bpf_core_enum_value_exists(enum cgroup_subsys_id, memory_cgrp_id))
		return NULL;
	id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	cset = BPF_CORE_READ(t, cgroups);
	if (!cset || id >= 64)
		return NULL;
	bpf_probe_read_kernel(&css, sizeof(css), (void *)cset +
			      bpf_core_field_offset(struct css_set, subsys) + id * sizeof(css));
	return (struct mem_cgroup *)css;	/* css is its first member */
}

/*
 * The memory cgroup, from p's up, whose limit stopped the charge: usage
 * within a charge batch of max (where the kernel's batch charge fails),
 * else over high.  Fills r's cgroup fields; nothing when none is.
 */
static __always_inline void ls_reclaim_memcg(struct ls_rec_reclaim *r, struct task_struct *p)
{
	struct mem_cgroup *m = ls_task_memcg(p), *high = NULL;
	__u64 usage, max, hi, high_usage = 0, high_lim = 0;
	struct cgroup *cgrp;
	int i;

	for (i = 0; i < LS_CG_DEPTH && m; i++) {
		usage = BPF_CORE_READ(m, memory.usage.counter);
		max = BPF_CORE_READ(m, memory.max);
		hi = BPF_CORE_READ(m, memory.high);
		if (usage + LS_MEMCG_BATCH > max)
			break;
		if (!high && usage > hi) {
			high = m;
			high_usage = usage;
			high_lim = hi;
		}
		m = (struct mem_cgroup *)BPF_CORE_READ(m, css.parent);
	}
	if (i < LS_CG_DEPTH && m) {
		r->limit = LS_MEMCG_LIMIT_MAX;
		r->usage_pages = usage;
		r->limit_pages = max;
	} else if (high) {
		m = high;
		r->limit = LS_MEMCG_LIMIT_HIGH;
		r->usage_pages = high_usage;
		r->limit_pages = high_lim;
	} else {
		return;
	}
	cgrp = BPF_CORE_READ(m, css.cgroup);
	r->cgroup_id = BPF_CORE_READ(cgrp, kn, id);
	r->hierarchy_id = BPF_CORE_READ(cgrp, root, hierarchy_id);
	if (ls_cg_names(cgrp, r->names, &r->depth))
		r->flags |= LS_RECLAIM_F_TRUNC;
}

static __always_inline bool ls_emit_reclaim(struct task_struct *p, __u8 kind, __u64 now)
{
	struct ls_rec_reclaim *r;
	__u32 zero = 0;
	__u64 taken;

	r = bpf_map_lookup_elem(&reclaim_buf, &zero);
	if (!r)
		return false;
	__builtin_memset(r, 0, sizeof(*r));
	r->tid = BPF_CORE_READ(p, pid);
	r->tgid = BPF_CORE_READ(p, tgid);
	r->kind = kind;
	if (kind == LS_RECLAIM_MEMCG)
		ls_reclaim_memcg(r, p);
	taken = ls_hdr_fill(&r->hdr, LS_REC_RECLAIM, sizeof(*r), now);
	if (bpf_ringbuf_output(&events, r, sizeof(*r), ls_rb_wakeup_flags())) {
		ls_drops_count(taken);
		return false;
	}
	return true;
}

/* current begins reclaim or compaction: followed only if it holds a lock. */
static __always_inline int ls_reclaim_begin(__u8 kind)
{
	struct task_struct *p = ls_current();
	struct ls_task_state *st = task_state__lookup(p);
	__u64 now;

	if (!st || st->reclaim_kind ||
	    !(ls_state_flags(st) & (LS_TASK_F_HOLDING | LS_TASK_F_OWNER)))
		return 0;
	now = bpf_ktime_get_ns();
	if (!ls_emit_reclaim(p, kind, now))
		return 0;
	st->reclaim_kind = kind;
	st->reclaim_start_ns = now;
	return 0;
}

/* ... and ends it; one of another kind nested in it is not followed. */
static __always_inline int ls_reclaim_end(__u8 kind, __u64 nr_reclaimed)
{
	struct task_struct *p = ls_current();
	struct ls_task_state *st = task_state__lookup(p);
	struct ls_rec_reclaim_end *r;

	if (!st || st->reclaim_kind != kind)
		return 0;
	st->reclaim_kind = 0;
	r = ls_emit_reserve(LS_REC_RECLAIM_END, sizeof(*r), bpf_ktime_get_ns());
	if (!r)
		return 0;
	r->tid = BPF_CORE_READ(p, pid);
	r->tgid = BPF_CORE_READ(p, tgid);
	r->nr_reclaimed = nr_reclaimed;
	r->kind = kind;
	ls_emit_submit(r);
	return 0;
}

SEC("tp_btf/mm_vmscan_direct_reclaim_begin")
int BPF_PROG(ls_direct_reclaim_begin)
{
	return ls_reclaim_begin(LS_RECLAIM_DIRECT);
}

SEC("tp_btf/mm_vmscan_direct_reclaim_end")
int BPF_PROG(ls_direct_reclaim_end, unsigned long nr_reclaimed)
{
	return ls_reclaim_end(LS_RECLAIM_DIRECT, nr_reclaimed);
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_begin")
int BPF_PROG(ls_memcg_reclaim_begin)
{
	return ls_reclaim_begin(LS_RECLAIM_MEMCG);
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_end")
int BPF_PROG(ls_memcg_reclaim_end, unsigned long nr_reclaimed)
{
	return ls_reclaim_end(LS_RECLAIM_MEMCG, nr_reclaimed);
}

/* compact_zone(): direct compaction in the allocating task (kcompactd holds no lock). */
SEC("tp_btf/mm_compaction_begin")
int BPF_PROG(ls_compaction_begin)
{
	return ls_reclaim_begin(LS_RECLAIM_COMPACT);
}

SEC("tp_btf/mm_compaction_end")
int BPF_PROG(ls_compaction_end)
{
	return ls_reclaim_end(LS_RECLAIM_COMPACT, 0);
}

#endif /* LOCKSTALL_RECLAIM_BPF_H */
