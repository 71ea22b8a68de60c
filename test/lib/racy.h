/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The racy rule's cases (SYM_RACY_NS), for every cache of parsed files: a
 * file read just after its last change is read again at the next ask; one
 * read long after, once.
 */
#ifndef LOCKSTALL_TEST_RACY_H
#define LOCKSTALL_TEST_RACY_H

#include <stddef.h>
#include <linux/types.h>
#include "symbols/symbols.h"

struct racy_case {
	__u64 read_after_ns;	/* the wall clock at the reads, after the file's ctime */
	size_t reads;		/* of two asks */
};

#define RACY_CASES_N 2
extern struct racy_case racy_cases[RACY_CASES_N];

/*
 * A budget whose clocks stand still: the read rate's at one second of its
 * own, the wall clock rc->read_after_ns past path's ctime.
 */
void racy_budget__init(struct sym_budget *b, const char *path, const struct racy_case *rc);

#endif /* LOCKSTALL_TEST_RACY_H */
