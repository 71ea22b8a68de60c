/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The in-kernel histograms (abi.h's ls_hist_slot, maps hist_slots,
 * hist_index, hist_free): ls_hist_add() for one sample (ls_hist_add_cur()
 * for current's), short samples held back in the task's state
 * (ls_hist_pend) until ls_hist_flush_all().
 */
#ifndef LOCKSTALL_HIST_BPF_H
#define LOCKSTALL_HIST_BPF_H

#include "log2.bpf.h"
#include "task_state.bpf.h"

/* Goes into loader_stats. */
__u64 hist_misses = 0;	/* samples lost: the histogram map was full */

/*
 * Histograms: slots in an array (hist_slots), found by key through
 * hist_index, handed out from hist_free (the loader fills it with every
 * index at start and gives back the slots of processes that exited).  A
 * task caches the indices of the slots it adds to (ls_task_state.hist):
 * the hash is looked up once per task and kind, not on every lock event.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LS_HIST_MAX);
	__type(key, __u32);
	__type(value, struct ls_hist_slot);
} hist_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LS_HIST_MAX);
	__type(key, struct ls_hist_key);
	__type(value, __u32);
} hist_index SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, LS_HIST_MAX);
	__type(value, __u32);
} hist_free SEC(".maps");

/*
 * ls_task_state.hist[]: which cached slot a histogram of kind and mode
 * uses.  The waits of futexes and kernel locks share one (a task mostly
 * waits on one kind): another kind's key misses it and takes the hash.
 */
#define LS_HIST_CACHE_LOCK	4
#define LS_HIST_CACHE_N		5

static __always_inline __u32 ls_hist_cache_idx(__u8 kind, __u8 write)
{
	switch (kind) {
	case LS_HIST_WAIT:
		return write & 1;
	case LS_HIST_HOLD:
		return 2;
	case LS_HIST_OFFCPU:
		return 3;
	}
	return LS_HIST_CACHE_LOCK;
}

/* The key of t's process's histogram of kind and mode (any mode but for waits). */
static __always_inline void ls_hist_key_fill(struct ls_hist_key *key, __u8 kind, __u8 write,
					     struct task_struct *t)
{
	key->tgid = LS_TASK_READ(t, tgid);
	key->kind = kind;
	key->write = ls_hist_lock_kind(kind) < 0 ? LS_HIST_ANY_MODE : (write & 1);
}

/* The slot of key, made if it has none (NULL: no slot left, counted). */
static __always_inline struct ls_hist_slot *ls_hist_slot_get(struct ls_hist_key *key,
							     struct task_struct *t, __u32 *out_idx)
{
	struct ls_hist_slot *s;
	__u32 *p, idx;

	p = bpf_map_lookup_elem(&hist_index, key);
	if (p) {
		idx = *p;
		*out_idx = idx;
		return bpf_map_lookup_elem(&hist_slots, &idx);
	}
	if (bpf_map_pop_elem(&hist_free, &idx))
		goto miss;
	s = bpf_map_lookup_elem(&hist_slots, &idx);
	if (!s)
		goto miss;
	s->key = *key;
	ls_process_comm(s->hist.comm, t);
	/* -EEXIST: another CPU made this key's slot first; give ours back. */
	if (bpf_map_update_elem(&hist_index, key, &idx, BPF_NOEXIST)) {
		__builtin_memset(&s->key, 0, sizeof(s->key));
		bpf_map_push_elem(&hist_free, &idx, 0);
		p = bpf_map_lookup_elem(&hist_index, key);
		if (!p)
			goto miss;
		idx = *p;
		s = bpf_map_lookup_elem(&hist_slots, &idx);
	}
	*out_idx = idx;
	return s;
miss:
	return NULL;
}

/*
 * Add samples and their sum to t's process's histogram of kind and mode:
 * one sample in slot `slot`, or (counts set) counts[i] samples in slot i
 * for i < n.  Samples the map had no room for are counted in hist_misses.
 */
static __always_inline void ls_hist_put(struct ls_task_state *st, struct task_struct *t, __u8 kind,
					__u8 write, const __u8 *counts, __u32 n, __u32 slot,
					__u64 sum_ns, __u32 total)
{
	__u32 ci = ls_hist_cache_idx(kind, write), idx, i;
	struct ls_hist_key key = {};
	struct ls_hist_slot *s = NULL;

	ls_hist_key_fill(&key, kind, write, t);
	barrier_var(ci);
	if (ci >= LS_HIST_CACHE_N)
		return;
	idx = st->hist[ci];
	/* A cached index is used only while its slot still holds this key. */
	if (idx) {
		idx--;
		s = bpf_map_lookup_elem(&hist_slots, &idx);
		if (s && *(__u64 *)&s->key != *(__u64 *)&key)
			s = NULL;
	}
	if (!s) {
		s = ls_hist_slot_get(&key, t, &idx);
		if (!s) {
			__sync_fetch_and_add(&hist_misses, total);
			return;
		}
		st->hist[ci] = idx + 1;
	}
	/*
	 * count is the sum of the slots (the loader adds it up), and comm is
	 * written only at creation -- reading the leader's comm each time
	 * touched a second task_struct; the loader renames after an exec.
	 */
	__sync_fetch_and_add(&s->hist.sum_ns, sum_ns);
	if (!counts) {
		/* clang drops a mask it can prove redundant; the verifier cannot prove it. */
		barrier_var(slot);
		slot &= LS_HIST_SLOTS - 1;
		__sync_fetch_and_add(&s->hist.slots[slot], 1);
		return;
	}
	for (i = 0; i < LS_PEND_HOLD_SLOTS && i < n; i++)
		if (counts[i])
			__sync_fetch_and_add(&s->hist.slots[i], counts[i]);
}

/* The waits of one mode st holds back go to the process's histogram. */
static __always_inline void ls_hist_flush_wait(struct ls_task_state *st, struct task_struct *t,
					       __u32 mode)
{
	struct ls_hist_pend *p = &st->pend;

	mode &= 1;
	if (!p->wait_n[mode])
		return;
	ls_hist_put(st, t, LS_HIST_WAIT, mode, &p->wait_n[mode], 1, 0, p->wait_sum_ns[mode],
		    p->wait_n[mode]);
	p->wait_n[mode] = 0;
	p->wait_sum_ns[mode] = 0;
}

static __always_inline void ls_hist_flush_hold(struct ls_task_state *st, struct task_struct *t)
{
	struct ls_hist_pend *p = &st->pend;
	__u32 total = p->hold_n[0] + p->hold_n[1] + p->hold_n[2];

	if (!total)
		return;
	ls_hist_put(st, t, LS_HIST_HOLD, LS_HIST_ANY_MODE, p->hold_n, LS_PEND_HOLD_SLOTS, 0,
		    p->hold_sum_ns, total);
	p->hold_n[0] = 0;
	p->hold_n[1] = 0;
	p->hold_n[2] = 0;
	p->hold_sum_ns = 0;
}

static __always_inline bool ls_hist_pending(const struct ls_task_state *st)
{
	const struct ls_hist_pend *p = &st->pend;

	return (p->wait_n[0] | p->wait_n[1] | p->hold_n[0] | p->hold_n[1] | p->hold_n[2]) != 0;
}

/*
 * Everything st holds back, at the task's switch-out and its exit: the
 * histograms user space reads lag a task's last few short samples only
 * while it stays on CPU.  A call, not inlined: inlined, the verifier walked
 * the switch handler after it once per path through the three puts.
 */
static __noinline void ls_hist_flush_all(struct ls_task_state *st, struct task_struct *t)
{
	ls_hist_flush_wait(st, t, 0);
	ls_hist_flush_wait(st, t, 1);
	ls_hist_flush_hold(st, t);
}

/*
 * One sample.  Most are the uncontended operation's short wait and hold,
 * and adding each to the process's slot would take two atomics on lines
 * every CPU of the process shares.  Waits under 1 us and holds under 4 us
 * are counted in the task's state instead (pend, on a line every lock event
 * touches anyway) and go to the slot when a count reaches LS_PEND_MAX, when
 * the task leaves the CPU and at its exit.  Longer ones, and off-CPU times,
 * go at once, and so do all waits of futexes and kernel locks: they are
 * contended ones only, each a syscall or a contention already.
 */
static __always_inline void ls_hist_add(struct ls_task_state *st, struct task_struct *t, __u8 kind,
					__u8 write, __u64 ns)
{
	struct ls_hist_pend *p = &st->pend;
	__u32 slot = ls_hist_slot(ns), m = write & 1;

	if (!p->exiting && kind == LS_HIST_WAIT && slot == 0) {
		p->wait_sum_ns[m] += ns;
		if (++p->wait_n[m] >= LS_PEND_MAX)
			ls_hist_flush_wait(st, t, m);
		return;
	}
	if (!p->exiting && kind == LS_HIST_HOLD && slot < LS_PEND_HOLD_SLOTS) {
		p->hold_sum_ns += ns;
		/* The verifier cannot see the bound through the slot's computation. */
		barrier_var(slot);
		if (slot < LS_PEND_HOLD_SLOTS && ++p->hold_n[slot] >= LS_PEND_MAX)
			ls_hist_flush_hold(st, t);
		return;
	}
	ls_hist_put(st, t, kind, write, NULL, 0, slot, ns, 1);
}

#ifndef LS_TASK_STATE_HASH
/*
 * ls_hist_add() of current, as a global function (kind and mode a byte
 * each in kind_mode): checked once by the verifier rather than once per
 * path through every lock program that adds a sample.
 */
__noinline int ls_hist_add_cur(struct ls_task_state *st, __u32 kind_mode, __u64 ns)
{
	if (st)
		ls_hist_add(st, bpf_get_current_task_btf(), kind_mode, kind_mode >> 8, ns);
	return 0;
}
#else
static __always_inline int ls_hist_add_cur(struct ls_task_state *st, __u32 kind_mode, __u64 ns)
{
	ls_hist_add(st, ls_current(), kind_mode, kind_mode >> 8, ns);
	return 0;
}
#endif

/* kind and mode as ls_hist_add_cur() takes them. */
static __always_inline __u32 ls_hist_kind_mode(__u8 kind, __u8 write)
{
	return kind | (__u32)write << 8;
}

#endif /* LOCKSTALL_HIST_BPF_H */
