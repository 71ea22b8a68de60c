// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "lib/racy.h"
#include "util.h"

struct racy_case racy_cases[RACY_CASES_N] = {
	{ .read_after_ns = NSEC_PER_MSEC, .reads = 2 },
	{ .read_after_ns = NSEC_PER_SEC, .reads = 1 },
};

static __u64 racy_wall;

static __u64 racy_wall_clock(void)
{
	return racy_wall;
}

static __u64 racy_clock(void)
{
	return 7 * NSEC_PER_SEC;
}

void racy_budget__init(struct sym_budget *b, const char *path, const struct racy_case *rc)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s", path);
	racy_wall = (__u64)st.st_ctim.tv_sec * NSEC_PER_SEC + (__u64)st.st_ctim.tv_nsec +
		    rc->read_after_ns;
	*b = (struct sym_budget){ .now_ns = racy_clock, .wall_ns = racy_wall_clock };
}
