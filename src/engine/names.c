// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Names and orderings every module shares: verdicts, states, roles,
 * scheduling policies, what a task was doing, and which task matters more.
 */
#include <stdio.h>
#include "engine/engine.h"

/* The verdicts' one table: the word outputs and rules use, and the words people read. */
static const struct {
	const char *name;
	const char *text;
} verdicts[LS_VERDICT_N] = {
	[LS_VERDICT_PRIORITY_INVERSION] = { "priority_inversion", "priority inversion" },
	[LS_VERDICT_HOLDER_OFF_CPU] = { "holder_off_cpu", "holder off CPU" },
	[LS_VERDICT_CONTENTION] = { "contention", "contention" },
	[LS_VERDICT_DEADLOCK] = { "deadlock", "deadlock" },
	[LS_VERDICT_UNKNOWN] = { "unknown", "unknown" },
};

const char *ls_verdict_name(enum ls_verdict v)
{
	return (unsigned int)v < LS_VERDICT_N ? verdicts[v].name : "unknown";
}

const char *ls_verdict_text(enum ls_verdict v)
{
	return (unsigned int)v < LS_VERDICT_N ? verdicts[v].text : "unknown";
}

/* Why a cycle of waits is no deadlock: the JSON word, and the words people read. */
static const struct {
	const char *name;
	const char *text;
} unknown_reasons[LS_UNKNOWN_REASON_N] = {
	[LS_UNKNOWN_CYCLE_LOCK_TWICE] = { "cycle_lock_twice",
					  "the cycle passes twice through one lock, which has one owner" },
	[LS_UNKNOWN_CYCLE_STALE_OWNER] = { "cycle_stale_owner",
					   "an owner was read before the waits overlapped, and the lock changed hands since" },
	[LS_UNKNOWN_CYCLE_EVENTS_LOST] = { "cycle_events_lost",
					   "records were lost while the cycle's waits went on" },
};

const char *ls_unknown_reason_name(enum ls_unknown_reason r)
{
	return (unsigned int)r < LS_UNKNOWN_REASON_N ? unknown_reasons[r].name : NULL;
}

const char *ls_unknown_reason_text(enum ls_unknown_reason r)
{
	return (unsigned int)r < LS_UNKNOWN_REASON_N ? unknown_reasons[r].text : NULL;
}

const char *ls_state_name(enum ls_holder_state s)
{
	switch (s) {
	case LS_STATE_RUNNING:
		return "running";
	case LS_STATE_PREEMPTED:
		return "preempted";
	case LS_STATE_BLOCKED:
		return "blocked";
	case LS_STATE_GRANTED_NOT_RUNNING:
		return "granted_not_running";
	case LS_STATE_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *ls_role_name(enum ls_role r)
{
	switch (r) {
	case LS_ROLE_WAITER:
		return "waiter";
	case LS_ROLE_QUEUED_WRITER:
		return "queued_writer";
	case LS_ROLE_HOLDER:
		return "holder";
	case LS_ROLE_PREEMPTOR:
		return "preemptor";
	case LS_ROLE_WAKER:
		return "waker";
	case LS_ROLE_N:
		break;
	}
	return "unknown";
}

const char *ls_cause_name(enum ls_cause c)
{
	return ls_cause_row(c)->name;
}

const char *ls_reclaim_kind_name(unsigned int kind)
{
	switch (kind) {
	case LS_RECLAIM_DIRECT:
		return "direct";
	case LS_RECLAIM_MEMCG:
		return "memcg";
	case LS_RECLAIM_COMPACT:
		return "compaction";
	}
	return "unknown";
}

const char *ls_lock_kind_name(unsigned int kind)
{
	return ls_lock_kind(kind)->name;
}

const char *ls_owner_how_name(unsigned int how)
{
	static const char *const names[LS_OWNER_HOW_N] = {
		[LS_OWNER_FUTEX_WORD] = "futex_word",
		[LS_OWNER_PTHREAD] = "pthread_owner",
		[LS_OWNER_KLOCK] = "lock_owner",
		[LS_OWNER_HINT] = "reader_hint",
		[LS_OWNER_RELEASER] = "releaser",
		[LS_OWNER_RWLOCK_WRITER] = "rwlock_writer",
	};

	return how < LS_OWNER_HOW_N ? names[how] : NULL;
}

const char *ls_policy_name(unsigned int policy)
{
	switch (policy) {
	case LS_POLICY_NORMAL:
		return "normal";
	case LS_POLICY_FIFO:
		return "fifo";
	case LS_POLICY_RR:
		return "rr";
	case LS_POLICY_BATCH:
		return "batch";
	case LS_POLICY_IDLE:
		return "idle";
	case LS_POLICY_DEADLINE:
		return "deadline";
	}
	return "unknown";
}

/*
 * x86_64 syscalls that take or can wait on mmap_lock, or that a holder is
 * commonly found in.  Anything else prints as syscall_N: a number is more
 * honest than a guess.
 */
static const struct {
	int nr;
	const char *name;
} syscall_names[] = {
	{ 0, "read" },		{ 1, "write" },		{ 2, "open" },
	{ 9, "mmap" },		{ 10, "mprotect" },	{ 11, "munmap" },
	{ 12, "brk" },		{ 16, "ioctl" },	{ 17, "pread64" },
	{ 18, "pwrite64" },	{ 19, "readv" },	{ 20, "writev" },
	{ 25, "mremap" },	{ 26, "msync" },	{ 27, "mincore" },
	{ 28, "madvise" },	{ 56, "clone" },	{ 57, "fork" },
	{ 58, "vfork" },	{ 59, "execve" },	{ 60, "exit" },
	{ 149, "mlock" },	{ 150, "munlock" },	{ 151, "mlockall" },
	{ 152, "munlockall" },	{ 157, "prctl" },	{ 202, "futex" },
	{ 231, "exit_group" },	{ 237, "mbind" },	{ 238, "set_mempolicy" },
	{ 239, "get_mempolicy" }, { 256, "migrate_pages" }, { 257, "openat" },
	{ 279, "move_pages" },	{ 295, "preadv" },	{ 310, "process_vm_readv" },
	{ 311, "process_vm_writev" }, { 323, "userfaultfd" }, { 324, "membarrier" },
	{ 325, "mlock2" },	{ 329, "pkey_mprotect" }, { 435, "clone3" },
	{ 440, "process_madvise" }, { 449, "futex_waitv" }, { 450, "set_mempolicy_home_node" },
	{ 453, "map_shadow_stack" }, { 455, "futex_wait" }, { 462, "mseal" },
};

const char *ls_op_name(const struct ls_op *op, char *buf, size_t len)
{
	size_t i;

	switch (op->kind) {
	case LS_OP_PAGE_FAULT:
		snprintf(buf, len, "page_fault");
		return buf;
	case LS_OP_SYSCALL:
		for (i = 0; i < sizeof(syscall_names) / sizeof(syscall_names[0]); i++) {
			if (syscall_names[i].nr == op->syscall) {
				snprintf(buf, len, "%s", syscall_names[i].name);
				return buf;
			}
		}
		snprintf(buf, len, "syscall_%d", op->syscall);
		return buf;
	}
	snprintf(buf, len, "unknown");
	return buf;
}

/*
 * Scheduling classes in the order the kernel serves them.  batch sits below
 * normal because it is the policy people give work that may wait; idle runs
 * only when nothing else wants the CPU.  An unknown policy counts as normal.
 */
static int policy_rank(unsigned int policy)
{
	switch (policy) {
	case LS_POLICY_DEADLINE:
		return 4;
	case LS_POLICY_FIFO:
	case LS_POLICY_RR:
		return 3;
	case LS_POLICY_BATCH:
		return 1;
	case LS_POLICY_IDLE:
		return 0;
	}
	return 2;
}

/*
 * Never compare task->prio alone: a SCHED_IDLE task reports prio 120 like a
 * nice-0 SCHED_OTHER one, and a PI-boosted task reports its boost.
 */
/*
 * The rank and RT priority the scheduler ran t at.  A PI boost shows as a
 * prio in the RT range (below 100) above what t's own policy gives: on
 * PREEMPT_RT a writer holding mmap_lock owns an rt_mutex, and a waiter
 * blocked on it lends the holder its priority.  A boosted holder counts
 * as SCHED_FIFO at that priority: preempted all the same, it was not
 * neglected for being unimportant.  (prio is read when the record is sent:
 * a hold's at its release, while the waiters still boost it.)
 */
static int effective_rank(const struct ls_task *t, int *rt_prio)
{
	int rank = policy_rank(t->policy);

	*rt_prio = t->rt_prio;
	if (rank < 4 && t->prio >= 0 && t->prio < 100 && 99 - t->prio > (rank == 3 ? *rt_prio : -1)) {
		*rt_prio = 99 - t->prio;
		return 3;
	}
	return rank;
}

int ls_task_importance_cmp(const struct ls_task *a, const struct ls_task *b)
{
	int pa, pb, ra = effective_rank(a, &pa), rb = effective_rank(b, &pb);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	switch (ra) {
	case 3:
		if (pa != pb)
			return pa < pb ? -1 : 1;
		return 0;
	case 2:
	case 1:
		/* lower nice matters more */
		if (a->nice != b->nice)
			return a->nice > b->nice ? -1 : 1;
		return 0;
	}
	return 0;
}
