/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ring buffer every record leaves through: ls_emit_reserve() (reserve,
 * zero, stamp) and ls_emit_submit(), or for STACK ls_hdr_fill() and
 * bpf_ringbuf_output().  A record the ring buffer refused is counted twice:
 * pending goes into this CPU's next record as lost_before (the engine
 * learns where the hole is), total is for the loader.
 */
#ifndef LOCKSTALL_RING_BPF_H
#define LOCKSTALL_RING_BPF_H

#include "config.bpf.h"

struct ls_drops {
	__u64 pending;		/* since this CPU's last record: its next lost_before */
	__u64 total;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ls_drops);
} drops SEC(".maps");

/*
 * The default size (--ring-buffer sets another): for bursts of stalls, not
 * for lock traffic, since a wait that ends below the threshold sends
 * nothing.  The stress suite of make test, every futex wait sent under
 * stress-ng --mutex, checks that it still keeps up.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* One record lost; give back the count a failed record had taken (ls_hdr_fill). */
static __always_inline void ls_drops_count(__u64 taken)
{
	__u32 zero = 0;
	struct ls_drops *d = bpf_map_lookup_elem(&drops, &zero);

	if (d) {
		d->pending += 1 + taken;
		d->total++;
	}
}

/* Stamp a header; takes this CPU's pending drop count into it, and returns it. */
static __always_inline __u64 ls_hdr_fill(struct ls_hdr *h, __u16 type, __u32 size, __u64 now)
{
	__u32 zero = 0;
	struct ls_drops *d = bpf_map_lookup_elem(&drops, &zero);
	__u64 lost = 0;

	if (d) {
		lost = d->pending;
		d->pending = 0;
	}
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->lost_before = lost > 0xffff ? 0xffff : lost;
	h->ts = now;
	return lost;
}

static __always_inline void *ls_emit_reserve(__u16 type, __u32 size, __u64 now)
{
	struct ls_hdr *h;

	h = bpf_ringbuf_reserve(&events, size, 0);
	if (!h) {
		ls_drops_count(0);
		return NULL;
	}
	__builtin_memset(h, 0, size);
	ls_hdr_fill(h, type, size, now);
	return h;
}

/*
 * Wake the reader only when a good part of the ring is full: it polls at
 * least every 100 ms anyway, and a wakeup per record would make lockstall
 * preempt the very tasks it watches (each SWITCH waking the reader, whose
 * run is another SWITCH on a watched CPU).
 */
#define LS_RB_WAKEUP_BYTES (1 << 20)

static __always_inline __u64 ls_rb_wakeup_flags(void)
{
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	return avail >= LS_RB_WAKEUP_BYTES ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void ls_emit_submit(void *rec)
{
	bpf_ringbuf_submit(rec, ls_rb_wakeup_flags());
}

#endif /* LOCKSTALL_RING_BPF_H */
