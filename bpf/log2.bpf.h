/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Log2 buckets for the kernel-side histograms (layout in abi.h). */
#ifndef LOCKSTALL_LOG2_BPF_H
#define LOCKSTALL_LOG2_BPF_H

/* Plain C: test/unit/test_bpf_log2.c compiles it too, with the C library's types. */
#ifdef __bpf__
#include "config.bpf.h"
#endif

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

/*
 * ns / 1000 without a divide below 2^31 ns (2.1 s): every lock event takes
 * this path, and a 64-bit divide is slow on every CPU.  M = ceil(2^42 / 1000)
 * overshoots 2^42 / 1000 by less than 0.9, so ns * M / 2^42 exceeds
 * ns / 1000 by less than 2^31 * 0.9 / 2^42 < 1/1000: never enough to carry
 * past the next integer, as ns / 1000 is at most 999/1000 below it.
 * ns * M < 2^31 * 2^33 cannot overflow.
 */
#define LS_NS_PER_US_RECIP 4398046512ULL

static __always_inline __u64 ls_ns_to_us(__u64 ns)
{
	if (ns < (1ULL << 31))
		return (ns * LS_NS_PER_US_RECIP) >> 42;
	return ns / 1000;
}

/* Slot 0: < 1 us; slot i: [2^(i-1), 2^i) us; the last slot takes the rest. */
static __always_inline __u32 ls_hist_slot(__u64 ns)
{
	__u64 us = ls_ns_to_us(ns);
	__u32 slot;

	if (!us)
		return 0;
	slot = ls_log2(us) + 1;
	if (slot > LS_HIST_SLOTS - 1)
		slot = LS_HIST_SLOTS - 1;
	return slot;
}

#endif /* LOCKSTALL_LOG2_BPF_H */
