// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpf/log2.bpf.h: the kernel side's histogram buckets, compiled here as
 * plain C.  Its divide-free ns -> us must agree with a real divide
 * everywhere, or a wait lands one bucket off.
 */
#include <linux/types.h>
#include <criterion/criterion.h>
#include <lockstall/abi.h>

#include "../../bpf/log2.bpf.h"

static __u32 slot_by_divide(__u64 ns)
{
	__u64 us = ns / 1000;
	__u32 slot = 0;

	while (us) {
		slot++;
		us >>= 1;
	}
	return slot > LS_HIST_SLOTS - 1 ? LS_HIST_SLOTS - 1 : slot;
}

TestSuite(bpf_log2);

Test(bpf_log2, us_at_every_bucket_edge)
{
	unsigned int k;
	int d;

	for (k = 0; k < 40; k++) {
		__u64 edge = 1000ULL << k;

		for (d = -2; d <= 2; d++) {
			__u64 ns = edge + d;

			cr_assert_eq(ls_ns_to_us(ns), ns / 1000, "ns %llu", (unsigned long long)ns);
			cr_assert_eq(ls_hist_slot(ns), slot_by_divide(ns), "ns %llu",
				     (unsigned long long)ns);
		}
	}
}

Test(bpf_log2, us_around_the_fast_path_limit)
{
	__u64 ns;

	for (ns = (1ULL << 31) - 5000; ns < (1ULL << 31) + 5000; ns++)
		cr_assert_eq(ls_ns_to_us(ns), ns / 1000, "ns %llu", (unsigned long long)ns);
	cr_assert_eq(ls_ns_to_us(~0ULL), ~0ULL / 1000);
	cr_assert_eq(ls_hist_slot(~0ULL), LS_HIST_SLOTS - 1);
	cr_assert_eq(ls_hist_slot(0), 0);
	cr_assert_eq(ls_hist_slot(999), 0);
	cr_assert_eq(ls_hist_slot(1000), 1);
}

/* Where a reciprocal is most likely to be off: just below each multiple of 1000. */
Test(bpf_log2, us_below_every_multiple_of_1000)
{
	__u64 ns;

	for (ns = 999; ns < (1ULL << 31); ns += 999 + 1000 * 997)
		cr_assert_eq(ls_ns_to_us(ns), ns / 1000, "ns %llu", (unsigned long long)ns);
	for (ns = (1ULL << 31) - 1; ns > (1ULL << 31) - 2000000; ns -= 1000)
		cr_assert_eq(ls_ns_to_us(ns), ns / 1000, "ns %llu", (unsigned long long)ns);
}

Test(bpf_log2, us_on_a_pseudo_random_sweep)
{
	__u64 x = 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < 1000000; i++) {
		__u64 ns;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		ns = x >> (31 + (i % 4));	/* below and above 2^31 */
		cr_assert_eq(ls_ns_to_us(ns), ns / 1000, "ns %llu", (unsigned long long)ns);
	}
}
