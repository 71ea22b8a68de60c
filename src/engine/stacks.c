// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * STACK records: where a waiter or a holder was.  The kernel sends one just
 * before the WAIT_END or HOLD it belongs to; the engine parks it on the
 * task, then moves it to what that record makes (the stall being emitted,
 * or the completed hold a later stall may name).  Stacks are never
 * interpreted here: the stall carries the raw record, and the session's
 * stack resolver (src/resolve/stacks.c) turns it into frames for the sinks.
 *
 * Memory: one pending stack per task and kind, one per completed hold, all
 * counted in e->stack_bytes against ENGINE_MAX_STACK_BYTES; past it a new
 * stack is dropped (and counted as evicted), never the stream.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine/internal.h"

bool stack__valid(const void *rec, size_t len)
{
	struct ls_rec_stack r;

	if (len < sizeof(r) || len > 0xffff || len % 8)
		return false;
	memcpy(&r, rec, sizeof(r));
	if (r.hdr.size != len || r.hdr.cpu >= ENGINE_MAX_CPUS)
		return false;
	if (r.why < LS_STACK_WAIT || r.why > LS_STACK_NOW)
		return false;
	if (r.nr_kernel > LS_KSTACK_MAX || r.nr_user > LS_USTACK_MAX)
		return false;
	if (r.user_mode > LS_USTACK_DWARF || r.copy_len > len - sizeof(r))
		return false;
	return r.tid != 0;
}

void stack__free(struct engine *e, struct ls_rec_stack *s)
{
	if (!s)
		return;
	e->stack_bytes -= s->hdr.size;
	free(s);
}

/* A copy of rec (validated), within the memory bound; NULL: counted as evicted. */
static struct ls_rec_stack *stack__copy(struct engine *e, const void *rec, size_t len)
{
	struct ls_rec_stack *s;

	if (e->stack_bytes + len > ENGINE_MAX_STACK_BYTES) {
		e->sum.evicted++;
		return NULL;
	}
	/* The copy keeps the record's alignment whatever the caller's buffer had. */
	s = malloc(len);
	if (!s) {
		e->sum.evicted++;
		return NULL;
	}
	memcpy(s, rec, len);
	e->stack_bytes += len;
	return s;
}

/* Replace *slot with a copy of rec (validated). */
static void stack__park(struct engine *e, struct ls_rec_stack **slot, const void *rec, size_t len)
{
	stack__free(e, *slot);
	*slot = stack__copy(e, rec, len);
	/* The engine's own mark: a record that claims it is not believed. */
	if (*slot)
		(*slot)->flags &= ~LS_STACK_F_EARLIER;
}

void stacks__record(struct engine *e, const void *rec, size_t len)
{
	struct ls_rec_stack r;
	struct ls_task id = { 0 };
	struct task *tk;

	memcpy(&r, rec, sizeof(r));
	id.tid = r.tid;
	id.tgid = r.tgid;
	/*
	 * A wait that never went off CPU, or a hold the engine never saw
	 * begin, has no task yet: make one, the record it belongs to names
	 * it in full right after.
	 */
	tk = tasks__get(e, &id);
	if (!tk)
		return;
	tk->last_ts = u64_max(tk->last_ts, r.hdr.ts);
	if (r.why == LS_STACK_NOW)
		stack__park(e, &tk->now_stack, rec, len);
	else
		stack__park(e, r.why == LS_STACK_WAIT ? &tk->wait_stack : &tk->hold_stack,
			    rec, len);
}

bool stack__is_now(const void *rec)
{
	return ((const struct ls_rec_stack *)rec)->why == LS_STACK_NOW;
}

struct ls_rec_stack *stack__take(struct engine *e, struct ls_rec_stack **slot, __u64 lock_id)
{
	struct ls_rec_stack *s = *slot;

	if (!s)
		return NULL;
	*slot = NULL;
	/* Parked for another lock (its own record was lost): not this one's. */
	if (s->lock_id != lock_id) {
		stack__free(e, s);
		return NULL;
	}
	return s;
}

/* tk's last stack for (hold, lock, op); NULL: none kept. */
static struct last_stack *stack__last_find(struct task *tk, bool hold, __u64 lock_id, __u32 op)
{
	int i;

	for (i = 0; i < LS_STACK_SAME_SLOTS; i++) {
		struct last_stack *l = &tk->last_stack[i];

		if (l->s && l->hold == hold && l->op == op && l->s->lock_id == lock_id)
			return l;
	}
	return NULL;
}

/* Where a new last stack goes: its key's slot, else a free one, else the oldest (as BPF does). */
static struct last_stack *stack__last_slot(struct task *tk, bool hold, __u64 lock_id, __u32 op)
{
	struct last_stack *k = stack__last_find(tk, hold, lock_id, op);
	int i;

	if (k)
		return k;
	k = &tk->last_stack[0];
	for (i = 0; i < LS_STACK_SAME_SLOTS; i++) {
		struct last_stack *l = &tk->last_stack[i];

		if (!l->s || (k->s && l->s->hdr.ts < k->s->hdr.ts))
			k = l;
	}
	return k;
}

struct ls_rec_stack *stack__for(struct engine *e, struct task *tk, bool hold,
				const struct ls_rec_lock *r)
{
	__u32 op = ls_op_key(&r->op);
	struct last_stack *l;
	struct ls_rec_stack *s;

	/*
	 * The kernel sent one for this task, lock, kind and op moments
	 * before (--stack-interval): that one, marked as earlier.  Not kept
	 * (memory ran out): none.
	 */
	if (r->flags & LS_LOCK_F_STACK_SAME) {
		l = stack__last_find(tk, hold, r->lock.id, op);
		s = l ? stack__copy(e, l->s, l->s->hdr.size) : NULL;
		if (s)
			s->flags |= LS_STACK_F_EARLIER;
		return s;
	}
	s = stack__take(e, hold ? &tk->hold_stack : &tk->wait_stack, r->lock.id);
	if (s && op) {
		l = stack__last_slot(tk, hold, r->lock.id, op);
		stack__free(e, l->s);
		l->s = stack__copy(e, s, s->hdr.size);
		l->op = op;
		l->hold = hold;
	}
	return s;
}

void stacks__drop_task(struct engine *e, struct task *tk)
{
	int i;

	stack__free(e, tk->wait_stack);
	stack__free(e, tk->hold_stack);
	stack__free(e, tk->now_stack);
	for (i = 0; i < LS_STACK_SAME_SLOTS; i++)
		stack__free(e, tk->last_stack[i].s);
}
