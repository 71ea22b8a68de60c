/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Log2 buckets for the kernel-side histograms (layout in abi.h). */
#ifndef LOCKSTALL_LOG2_BPF_H
#define LOCKSTALL_LOG2_BPF_H

/* floor(log2(v)) for v > 0, branch-free so the verifier sees one path. */
static __always_inline __u32 ls_log2(__u64 v)
{
	__u32 r, shift;

	r = (v > 0xffffffffULL) << 5;
	v >>= r;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (__u32)(v >> 1);
	return r;
}

/* Slot 0: < 1 us; slot i: [2^(i-1), 2^i) us; the last slot takes the rest. */
static __always_inline __u32 ls_hist_slot(__u64 ns)
{
	__u64 us = ns / 1000;
	__u32 slot;

	if (!us)
		return 0;
	slot = ls_log2(us) + 1;
	if (slot > LS_HIST_SLOTS - 1)
		slot = LS_HIST_SLOTS - 1;
	return slot;
}

#endif /* LOCKSTALL_LOG2_BPF_H */
