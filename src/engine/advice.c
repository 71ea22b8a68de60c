// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One line per stall on which knob it points to.  A cause the kernel gave
 * comes first (it names the fix); else the verdict and the culprit's state
 * say what kind of fix it needs.  Constant strings: the sinks print the
 * names (cgroup, quota, tasks) next to it, escaped as they escape them.
 */
#include "engine/engine.h"

static const char *advice__state(enum ls_holder_state s)
{
	switch (s) {
	case LS_STATE_PREEMPTED:
		return "the holder waited for a CPU while it held the lock: give it a higher priority or a CPU its preemptors do not use";
	case LS_STATE_BLOCKED:
		return "the holder slept while it held the lock: its stack and waker say on what";
	case LS_STATE_GRANTED_NOT_RUNNING:
		return "the lock was handed to a task that then waited for a CPU: give it a higher priority or a CPU of its own";
	case LS_STATE_UNKNOWN:
		return "no record said where the holder was for most of the wait: nothing to point at for certain";
	case LS_STATE_RUNNING:
		break;
	}
	return "the holder ran under the lock: shorten what it does under it";
}

const char *ls_advice(const struct ls_stall *st)
{
	const char *a = ls_cause_row(st->cause)->advice;

	if (a)
		return a;
	if (st->unknown_reason)
		return "the waits seemed to go round in a cycle, but that is not certain: see each wait's own stall when it ends, or run again with fewer events lost";
	if (st->verdict == LS_VERDICT_DEADLOCK)
		return "the waits go round in a cycle and none will end by itself: take these locks in one order everywhere";
	if (!st->n_holders)
		return "no holder was seen: nothing to point at";
	if (st->lost_in_window)
		return "events were lost during the wait: nothing to point at for certain";
	/* an unknown verdict without drops: who held the lock is not known */
	if (st->holders[0].how == LS_OWNER_RELEASER)
		return "only the task that released the lock and woke the waiter is known, not who held it all along: see where the lock is taken";
	if (st->holders[0].how == LS_OWNER_HINT)
		return "only the last reader to take the rwsem is known, not all its readers: see where it is taken for read";
	if (!ls_task_seen(&st->holders[0].task))
		return "the lock named its holder's TID, but no record showed that task: who it is and where it was are not known";
	if (st->verdict == LS_VERDICT_CONTENTION)
		return "the holders ran under the lock: shorten what they do under it, or take the lock less often";
	return advice__state(st->holders[0].state);
}
