// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lock kinds, a row each: the name every output, metric and rule
 * gives it, its wait histogram's key in JSON, where its identity lives,
 * and whether its readers queue behind a waiting writer (glibc's rwlock
 * prefers readers by default).  A new kind is its value in enum
 * ls_lock_kind (include/lockstall/abi.h), a row here, and the BPF programs
 * that send its waits (src/README.md, "Adding a lock kind").
 */
#include "engine/engine.h"

static const struct ls_lock_kind_row rows[LS_LOCK_KIND_N] = {
	[LS_LOCK_MMAP] = { "mmap_lock", "mmap", "wait", LS_LOCK_IN_MM, true },
	[LS_LOCK_FUTEX] = { "futex", "futex", "futex_wait", LS_LOCK_IN_USER, false },
	[LS_LOCK_PI_FUTEX] = { "pi_futex", "pi_futex", "pi_futex_wait", LS_LOCK_IN_USER, false },
	[LS_LOCK_MUTEX] = { "mutex", "mutex", "mutex_wait", LS_LOCK_IN_KERNEL, false },
	[LS_LOCK_RWSEM] = { "rwsem", "rwsem", "rwsem_wait", LS_LOCK_IN_KERNEL, true },
	[LS_LOCK_RT_MUTEX] = { "rt_mutex", "rt_mutex", "rt_mutex_wait", LS_LOCK_IN_KERNEL, false },
	[LS_LOCK_PERCPU_RWSEM] = { "percpu_rwsem", "percpu_rwsem", "percpu_rwsem_wait",
				   LS_LOCK_IN_KERNEL, true },
};

static const struct ls_lock_kind_row row_none = { "none", "none", "other", LS_LOCK_IN_NONE, false };
static const struct ls_lock_kind_row row_unknown = { "unknown", "unknown", "other", LS_LOCK_IN_NONE,
						     false };

const struct ls_lock_kind_row *ls_lock_kind(unsigned int kind)
{
	if (kind < LS_LOCK_KIND_N)
		return &rows[kind];
	return kind == LS_LOCK_NONE ? &row_none : &row_unknown;
}
