// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per task: off-CPU spells (why a task that waits or holds was not
 * running), its wait in progress and its open holds, from the scheduler
 * records and the records of the causes (throttling, reclaim, I/O).  The
 * same records tell each CPU who runs there (cpus.c).
 */
#include <stdlib.h>
#include <string.h>
#include "engine/internal.h"

/* ---- spells ---------------------------------------------------------- */

/* Invariant: cpu.n_open counts the open runnable spells on that CPU. */
static void spell__leave_cpu(struct engine *e, const struct spell *sp, __u64 end)
{
	struct cpu *c;

	if (!spell__runnable(sp) || sp->cpu >= e->n_cpus)
		return;
	c = &e->cpus[sp->cpu];
	if (c->n_open)
		c->n_open--;
	c->last_close = u64_max(c->last_close, end);
}

/*
 * The oldest spell may still be asked for: a HOLD may come a little out of
 * order (retain), and an open hold's stall reads its spells from its start.
 */
static bool spell__oldest_needed(const struct engine *e, const struct task *tk)
{
	const struct spell *sp;
	int i;

	if (!tk->spells.n)
		return false;
	sp = ring__at(&tk->spells, 0);
	if (!ts_older(e->now, sp->end, e->retain))
		return true;
	for (i = 0; i < TASK_OPEN_HOLDS; i++)
		if (tk->oh[i].used && sp->end > tk->oh[i].start)
			return true;
	return (tk->flags & LS_TASK_F_HOLDS) != 0;
}

static void spell__close(struct engine *e, struct task *tk, __u64 ts)
{
	struct spell *sp = &tk->open, *slot;
	__u32 old_cap, max;
	int err;

	if (!tk->spell_open)
		return;
	tk->spell_open = false;
	sp->end = u64_max(ts, sp->start);
	spell__leave_cpu(e, sp, sp->end);
	/*
	 * Only time off CPU while holding (or granted) explains a stall: the
	 * spells of a task that was merely waiting are never looked at again.
	 */
	if (sp->end == sp->start || (!sp->holding && sp->state != LS_STATE_GRANTED_NOT_RUNNING))
		return;
	/*
	 * A task that holds and sleeps often (a reader of /proc/PID/environ
	 * goes off CPU once a page) needs hundreds of spells per hold; grow
	 * while they may still be needed and the budget over all tasks allows.
	 * Overwritten spells are noted: a stall that needed them says so.
	 */
	old_cap = tk->spells.cap;
	max = old_cap;
	if (e->n_spells + (old_cap ? old_cap : 8) <= ENGINE_MAX_SPELLS)
		max = tk->spells.n == old_cap && spell__oldest_needed(e, tk) ?
		      ENGINE_SPELL_RING_MAX : ENGINE_SPELL_RING;
	err = ring__reserve(&tk->spells, u64_max(max, 8));
	e->n_spells += tk->spells.cap - old_cap;
	if (err && tk->spells.n) {
		slot = ring__at(&tk->spells, 0);
		tk->spells_lost_to = u64_max(tk->spells_lost_to, slot->end);
		ring__pop_front(&tk->spells);
	} else if (err) {
		tk->spells_lost_to = u64_max(tk->spells_lost_to, sp->end);
		return;
	}
	slot = ring__push(&tk->spells);
	*slot = *sp;
}

static void spell__open(struct engine *e, struct task *tk, __u8 state, __u32 cpu, __u64 ts)
{
	const struct spell *last;

	spell__close(e, tk, ts);
	/*
	 * Invariant: a task's spells are disjoint and in order, even when
	 * record times go backwards, so off-CPU time never exceeds a hold.
	 */
	if (tk->spells.n) {
		last = ring__at(&tk->spells, tk->spells.n - 1);
		ts = u64_max(ts, last->end);
	}
	memset(&tk->open, 0, sizeof(tk->open));
	tk->open.start = ts;
	tk->open.cpu = cpu;
	tk->open.state = state;
	/* Every record that opens a spell has named the task first (task__touch()). */
	tk->open.prio = tk->info.prio;
	tk->open.holding = !!(tk->flags & LS_TASK_F_HOLDS);
	if (spell__runnable(&tk->open)) {
		struct cpu *c = cpus__get(e, cpu);

		if (!c)
			return;
		c->n_open++;
	}
	tk->spell_open = true;
}

static __u64 spell__end(const void *elem)
{
	return ((const struct spell *)elem)->end;
}

void tasks__for_each_spell(const struct task *tk, __u64 from, __u64 to, spell_fn fn, void *ctx)
{
	const struct spell *sp;
	__u64 s, t;
	__u32 i;

	/* Spells are disjoint and in order: skip those that ended before from. */
	for (i = ring__first_after(&tk->spells, from, spell__end); i < tk->spells.n; i++) {
		sp = ring__at(&tk->spells, i);
		if (sp->start >= to)
			break;
		s = u64_max(sp->start, from);
		t = u64_min(sp->end, to);
		if (t > s)
			fn(sp, s, t, ctx);
	}
	if (tk->spell_open) {
		/* Still off CPU: the spell reaches the end of the span. */
		s = u64_max(tk->open.start, from);
		if (to > s)
			fn(&tk->open, s, to, ctx);
	}
}

/* ---- tasks ----------------------------------------------------------- */

struct task *tasks__find(struct engine *e, const struct ls_task *t)
{
	struct task *tk;

	if (!t->tid)
		return NULL;
	tk = map__get(&e->tasks, t->tid);
	if (tk && tk->tgid != t->tgid) {
		/* The tid was reused (its EXIT lost): nothing carries over. */
		tasks__drop(e, tk);
		tk = NULL;
	}
	return tk;
}

struct task *tasks__get(struct engine *e, const struct ls_task *t)
{
	struct task *tk = tasks__find(e, t);
	int i;

	if (tk || !t->tid)
		return tk;
	tk = calloc(1, sizeof(*tk));
	if (!tk)
		goto evict;
	if (map__put(&e->tasks, t->tid, tk)) {
		free(tk);
		goto evict;
	}
	tk->tid = t->tid;
	tk->tgid = t->tgid;
	tk->info = *t;
	tk->last_ts = e->now;
	task__note_comm(tk, t->comm, e->now);
	ring__init(&tk->spells, sizeof(struct spell));
	ring__init(&tk->reclaims, sizeof(struct rspan));
	list__init(&tk->wait_node);
	for (i = 0; i < TASK_OPEN_HOLDS; i++) {
		list__init(&tk->oh[i].node);
		tk->oh[i].task = tk;
	}
	return tk;
evict:
	e->sum.evicted++;
	return NULL;
}

/* t->prio shows a priority-inheritance boost: above what its own policy gives. */
static bool task__boosted(const struct ls_task *t)
{
	if (t->policy == LS_POLICY_FIFO || t->policy == LS_POLICY_RR)
		return t->prio < 99 - t->rt_prio;
	return t->policy != LS_POLICY_DEADLINE && t->prio < 100;
}

void task__seen(struct task *tk, const struct ls_task *t, __u64 ts)
{
	tk->info = *t;
	tk->last_ts = u64_max(tk->last_ts, ts);
	task__note_comm(tk, t->comm, ts);
}

static void task__touch(struct engine *e, struct task *tk, const struct ls_task *t, __u64 ts)
{
	if (task__boosted(t) && ts >= tk->boost_ts) {
		tk->boost_prio = t->prio;
		tk->boost_ts = ts;
	}
	task__seen(tk, t, ts);
}

void tasks__drop(struct engine *e, struct task *tk)
{
	int i;

	if (tk->spell_open)
		spell__leave_cpu(e, &tk->open, u64_max(e->now, tk->open.start));
	locks__end_wait(e, tk);
	for (i = 0; i < TASK_OPEN_HOLDS; i++)
		if (tk->oh[i].used)
			locks__end_open_hold(e, &tk->oh[i]);
	map__del(&e->tasks, tk->tid);
	e->n_spells -= tk->spells.cap;
	ring__free(&tk->spells);
	stacks__drop_task(e, tk);
	free(tk->throttle);
	ring__free(&tk->reclaims);
	free(tk->reclaim);
	free(tk);
}

bool tasks__drop_if_idle(struct engine *e, struct task *tk)
{
	int i;

	if (ts_older(e->now, tk->last_ts, e->stale_age)) {
		/* Silent for so long with something open: its EXIT was lost. */
		if (tk->waiting || tk->spell_open || (tk->flags & LS_TASK_F_ANY))
			e->sum.evicted++;
		tasks__drop(e, tk);
		return true;
	}
	if (tk->waiting || tk->spell_open || (tk->flags & LS_TASK_F_ANY))
		return false;
	for (i = 0; i < TASK_OPEN_HOLDS; i++)
		if (tk->oh[i].used)
			return false;
	/* A HOLD may still come a little out of order: keep spells for retain. */
	if (!ts_older(e->now, tk->last_ts, e->retain))
		return false;
	tasks__drop(e, tk);
	return true;
}

void tasks__set_flags(struct engine *e, struct task *tk, __u8 flags, __u64 ts)
{
	int i;

	if ((flags & LS_TASK_F_ANY) && (!tk->follow_from || tk->follow_to)) {
		tk->follow_from = ts;
		tk->follow_to = 0;
	} else if (!(flags & LS_TASK_F_ANY) && tk->follow_from && !tk->follow_to) {
		tk->follow_to = ts;
	}
	tk->flags = flags;
	if (flags & LS_TASK_F_HOLDING)
		return;
	/* Holds nothing now: the holds it had ended without a HOLD record. */
	for (i = 0; i < TASK_OPEN_HOLDS; i++)
		if (tk->oh[i].used && tk->oh[i].seen_ts <= ts)
			locks__end_open_hold(e, &tk->oh[i]);
}

void tasks__free_all(struct engine *e)
{
	struct task *tk;
	__u32 i;

	/* Everything goes: no list surgery, the locks are freed too. */
	for (i = 0; i < e->tasks.cap; i++) {
		tk = map__slot(&e->tasks, i);
		if (!tk)
			continue;
		ring__free(&tk->spells);
		stacks__drop_task(e, tk);
		free(tk->throttle);
		ring__free(&tk->reclaims);
		free(tk->reclaim);
		free(tk);
	}
	e->n_spells = 0;
	map__free(&e->tasks);
}

/* ---- scheduler records ------------------------------------------------ */

void tasks__switch(struct engine *e, const struct ls_rec_switch *r)
{
	__u64 ts = r->hdr.ts;
	struct task *p = NULL, *n = NULL;
	struct cpu *c = cpus__get(e, r->hdr.cpu);

	if (!c)
		return;
	/* prev ran from when we last learned who runs here. */
	cpu__push_run(e, c, &r->prev, c->since, ts);
	c->runner = r->next;
	c->since = u64_max(c->since, ts);
	c->runner_known = true;

	if (r->prev.tid) {
		p = tasks__find(e, &r->prev);
		if (!p && (r->prev_flags & LS_TASK_F_ANY))
			p = tasks__get(e, &r->prev);
	}
	if (p) {
		task__touch(e, p, &r->prev, ts);
		spell__close(e, p, ts);	/* it was running: an open spell is stale */
		p->cpu_state = TASK_CPU_OFF;
		tasks__set_flags(e, p, r->prev_flags, ts);
		if (r->prev_flags & LS_TASK_F_ANY) {
			spell__open(e, p, r->prev_runnable ? LS_STATE_PREEMPTED : LS_STATE_BLOCKED,
				    r->hdr.cpu, ts);
			p->open.cause = causes__spell_flags(r->prev_cause, r->prev_runnable);
		}
	}

	if (r->next.tid && r->next.tid != r->prev.tid) {
		n = tasks__find(e, &r->next);
		/* Know it is on CPU: a wakeup now must not open a spell. */
		if (!n && (r->next_flags & LS_TASK_F_ANY))
			n = tasks__get(e, &r->next);
	}
	if (n) {
		task__touch(e, n, &r->next, ts);
		spell__close(e, n, ts);
		n->cpu_state = TASK_CPU_ON;
		tasks__set_flags(e, n, r->next_flags, ts);
	}
}

void tasks__wakeup(struct engine *e, const struct ls_rec_wakeup *r)
{
	__u64 ts = r->hdr.ts;
	__u8 state = (r->wakee_flags & LS_TASK_F_GRANTED) ?
		LS_STATE_GRANTED_NOT_RUNNING : LS_STATE_PREEMPTED;
	struct task *w;
	struct cpu *c = cpus__get(e, r->target_cpu);

	if (!c)
		return;
	cpu__set_runner(e, c, &r->target_curr, ts);

	w = tasks__find(e, &r->wakee);
	if (!w && (r->wakee_flags & LS_TASK_F_ANY))
		w = tasks__get(e, &r->wakee);
	if (!w)
		return;
	task__touch(e, w, &r->wakee, ts);
	tasks__set_flags(e, w, r->wakee_flags, ts);
	if (w->waiting || w->wait_owner_tid) {
		/* A futex's releaser, should its wait name no owner. */
		w->has_wait_waker = true;
		w->wait_waker = r->waker;
	}
	/* Woken before it got off CPU: it never stopped running. */
	if (w->cpu_state == TASK_CPU_ON && !w->spell_open)
		return;
	if (w->spell_open && w->open.state == LS_STATE_BLOCKED) {
		w->open.has_waker = true;
		w->open.waker = r->waker;
		spell__close(e, w, ts);
	}
	w->cpu_state = TASK_CPU_OFF;
	if (w->spell_open) {
		/* Runnable already: only a grant or another CPU changes the spell. */
		if (w->open.state == state && w->open.cpu == r->target_cpu) {
			w->open.cause |= causes__spell_flags(r->wakee_cause, true);
			return;
		}
		spell__close(e, w, ts);
	}
	if (r->wakee_flags & LS_TASK_F_ANY) {
		spell__open(e, w, state, r->target_cpu, ts);
		w->open.cause = causes__spell_flags(r->wakee_cause, true);
	}
}

void tasks__migrate(struct engine *e, const struct ls_rec_migrate *r)
{
	__u64 ts = r->hdr.ts;
	struct task *tk;
	__u8 state, pinned = 0;
	struct cpu *c = cpus__get(e, r->to_cpu);

	if (!c)
		return;
	cpu__set_runner(e, c, &r->dest_curr, ts);

	tk = tasks__find(e, &r->task);
	if (!tk && (r->flags & LS_TASK_F_ANY))
		tk = tasks__get(e, &r->task);
	if (!tk)
		return;
	task__touch(e, tk, &r->task, ts);
	tasks__set_flags(e, tk, r->flags, ts);
	if (tk->spell_open && !spell__runnable(&tk->open)) {
		/* A sleeper moved ahead of its wakeup: still blocked. */
		tk->open.cpu = r->to_cpu;
		return;
	}
	if (tk->spell_open) {
		/* The spell goes on, now waiting for the new CPU (its mask with it). */
		state = tk->open.state;
		pinned = tk->open.cause & LS_CAUSE_F_PINNED;
	} else if ((r->flags & LS_TASK_F_ANY) && tk->cpu_state != TASK_CPU_ON) {
		state = (r->flags & LS_TASK_F_GRANTED) ?
			LS_STATE_GRANTED_NOT_RUNNING : LS_STATE_PREEMPTED;
	} else {
		return;
	}
	spell__open(e, tk, state, r->to_cpu, ts);
	tk->open.cause = pinned;
	tk->cpu_state = TASK_CPU_OFF;
}

/*
 * "/a/b" into path (LS_THROTTLE_PATH_MAX bytes) from names[] (leaf first),
 * "/..." first when the kernel cut its top off.
 */
static void cgroup__path(char *path, const char names[LS_CG_DEPTH][LS_CG_NAME], __u8 depth,
			 bool truncated)
{
	size_t off = 0, len;
	int i;

	if (truncated) {
		memcpy(path, "/...", 4);
		off = 4;
	}
	for (i = (depth < LS_CG_DEPTH ? depth : LS_CG_DEPTH) - 1; i >= 0; i--) {
		len = strnlen(names[i], LS_CG_NAME);
		path[off++] = '/';
		memcpy(path + off, names[i], len);
		off += len;
	}
	if (!off)
		path[off++] = '/';
	path[off] = '\0';
}

void tasks__throttle(struct engine *e, const struct ls_rec_throttle *r)
{
	struct ls_task id = { .tid = r->tid, .tgid = r->tgid };
	struct task *tk = tasks__get(e, &id);
	struct ls_throttle *t;

	if (!tk)
		return;
	tk->last_ts = u64_max(tk->last_ts, r->hdr.ts);
	t = tk->throttle ? tk->throttle : malloc(sizeof(*t));
	if (!t) {
		e->sum.evicted++;
		return;
	}
	memset(t, 0, sizeof(*t));
	t->cgroup_id = r->cgroup_id;
	t->hierarchy_id = r->hierarchy_id;
	t->truncated = r->flags & LS_THROTTLE_F_TRUNC;
	t->task_model = r->flags & LS_THROTTLE_F_TASK;
	t->quota_ns = r->quota_ns;
	t->period_ns = r->period_ns;
	cgroup__path(t->path, r->names, r->depth, t->truncated);
	tk->throttle = t;
}

/* The page size of the traced host: x86_64, whose page counters lockstall reads. */
#define RECLAIM_PAGE_SIZE 4096ULL

void tasks__reclaim(struct engine *e, const struct ls_rec_reclaim *r)
{
	struct ls_task id = { .tid = r->tid, .tgid = r->tgid };
	struct task *tk = tasks__get(e, &id);
	struct ls_reclaim *rc;

	if (!tk)
		return;
	tk->last_ts = u64_max(tk->last_ts, r->hdr.ts);
	/* A reclaim whose end was lost: how long it lasted is not known, so it does not count. */
	tk->reclaim_open = true;
	tk->reclaim_start = r->hdr.ts;
	rc = tk->reclaim ? tk->reclaim : malloc(sizeof(*rc));
	if (!rc) {
		e->sum.evicted++;
		return;
	}
	memset(rc, 0, sizeof(*rc));
	rc->kind = r->kind;
	rc->limit = r->limit;
	if (r->limit != LS_MEMCG_LIMIT_NONE) {
		rc->truncated = r->flags & LS_RECLAIM_F_TRUNC;
		rc->hierarchy_id = r->hierarchy_id;
		rc->cgroup_id = r->cgroup_id;
		rc->usage_bytes = r->usage_pages * RECLAIM_PAGE_SIZE;
		rc->limit_bytes = r->limit_pages * RECLAIM_PAGE_SIZE;
		cgroup__path(rc->path, r->names, r->depth, rc->truncated);
	}
	tk->reclaim = rc;
}

void tasks__reclaim_end(struct engine *e, const struct ls_rec_reclaim_end *r)
{
	struct ls_task id = { .tid = r->tid, .tgid = r->tgid };
	struct task *tk = tasks__find(e, &id);
	struct rspan *sp;

	if (!tk || !tk->reclaim_open)
		return;
	tk->reclaim_open = false;
	tk->last_ts = u64_max(tk->last_ts, r->hdr.ts);
	if (r->hdr.ts <= tk->reclaim_start)
		return;
	if (ring__reserve(&tk->reclaims, ENGINE_RECLAIM_RING))
		ring__pop_front(&tk->reclaims);
	if (!tk->reclaims.cap) {
		e->sum.evicted++;
		return;
	}
	sp = ring__push(&tk->reclaims);
	sp->start = tk->reclaim_start;
	sp->end = r->hdr.ts;
}

void tasks__for_each_reclaim(const struct task *tk, __u64 from, __u64 to, rspan_fn fn, void *ctx)
{
	const struct rspan *sp;
	__u64 s, t;
	__u32 i;

	for (i = 0; i < tk->reclaims.n; i++) {
		sp = ring__at(&tk->reclaims, i);
		s = u64_max(sp->start, from);
		t = u64_min(sp->end, to);
		if (t > s)
			fn(s, t, ctx);
	}
	s = u64_max(tk->reclaim_start, from);
	if (tk->reclaim_open && to > s)
		fn(s, to, ctx);
}

static struct io_disk *io_disk__find(struct engine *e, __u32 dev)
{
	unsigned int i;

	for (i = 0; dev && i < ENGINE_IO_DISKS; i++)
		if (e->io_disks[i].dev == dev)
			return &e->io_disks[i];
	return NULL;
}

const char *tasks__io_disk(const struct engine *e, __u32 dev)
{
	const struct io_disk *d = io_disk__find((struct engine *)e, dev);

	return d ? d->name : NULL;
}

static void tasks__io_disk_set(struct engine *e, __u32 dev, const char name[LS_DISK_NAME_LEN])
{
	struct io_disk *d;

	if (!dev || !name[0])
		return;
	d = io_disk__find(e, dev);
	if (!d)
		d = &e->io_disks[e->io_disk_next++ % ENGINE_IO_DISKS];
	d->dev = dev;
	memcpy(d->name, name, sizeof(d->name));
}

void tasks__back_on(struct engine *e, struct task *tk, __u64 ts)
{
	spell__close(e, tk, ts);
	tk->cpu_state = TASK_CPU_ON;
}

void tasks__io_dev(struct engine *e, const struct ls_rec_io_dev *r)
{
	struct ls_task id = { .tid = r->tid, .tgid = r->tgid };
	struct task *tk = tasks__find(e, &id);

	tasks__io_disk_set(e, r->dev, r->disk);

	/* It comes just after the SWITCH or OWNER that opened the I/O wait. */
	if (!tk || !tk->spell_open || !spell__io(&tk->open))
		return;
	tk->last_ts = u64_max(tk->last_ts, r->hdr.ts);
	tk->open.io_dev = r->dev;
}

void tasks__unthrottle(struct engine *e, const struct ls_rec_unthrottle *r)
{
	struct ls_task id = { .tid = r->tid, .tgid = r->tgid };
	struct task *tk = tasks__find(e, &id);

	/* It comes just before the SWITCH that closes the spell. */
	if (!tk || !tk->spell_open || !(tk->open.cause & LS_CAUSE_F_THROTTLED))
		return;
	tk->open.cause |= SPELL_THROTTLED_TOLD;
	tk->open.throttled_ns = r->throttled_ns;
}

void tasks__exit(struct engine *e, const struct ls_rec_exit *r)
{
	struct task *tk = tasks__find(e, &r->task);

	if (tk)
		tasks__drop(e, tk);
}

/*
 * An open spell says what the kernel says of the task now (runnable, or
 * asleep on I/O or not): one that began while the task was not followed
 * may be stale (it slept, then ran unseen, then slept again).
 */
static bool owner__spell_agrees(const struct spell *sp, const struct ls_rec_owner *r)
{
	if (r->owner_state == LS_OWNER_RUNNABLE)
		return sp->state == LS_STATE_PREEMPTED || sp->state == LS_STATE_GRANTED_NOT_RUNNING;
	return sp->state == LS_STATE_BLOCKED &&
	       !(sp->cause & LS_CAUSE_F_IO) == !(r->owner_cause & LS_CAUSE_F_IO);
}

/*
 * An OWNER sent late (a quiet wait that turned out long): the owner ran as
 * the wait began, and its switches since came before this record, so
 * they, not this record, say where it is now.  Followed from the start.
 */
static void tasks__owner_late(struct engine *e, struct task *o, const struct ls_rec_owner *r)
{
	tasks__set_flags(e, o, o->flags | LS_TASK_F_OWNER, r->hdr.ts);
	o->follow_from = u64_min(o->follow_from, r->start_ns);
	/* A spell older than the wait is stale: it ran as the wait began. */
	if (o->spell_open && o->open.start < r->start_ns)
		spell__close(e, o, r->start_ns);
	if (!o->spell_open)
		o->cpu_state = TASK_CPU_ON;
}

void tasks__owner(struct engine *e, const struct ls_rec_owner *r)
{
	__u64 ts = r->hdr.ts;
	struct task *o;
	struct cpu *c;

	if (r->owner_state == LS_OWNER_GONE)
		return;
	/*
	 * Unknown (followed by TID, bpf/owner_tid.bpf.h): its next switch or
	 * wakeup says where it is; who it is, only if the kernel side read it
	 * (else only its TID is known, never filled in from zeroes).
	 */
	if (r->owner_state == LS_OWNER_UNKNOWN) {
		o = (r->owner_flags & LS_OWNER_F_TASK_READ) ? tasks__get(e, &r->owner) : NULL;
		if (o)
			task__touch(e, o, &r->owner, ts);
		return;
	}
	o = tasks__get(e, &r->owner);
	c = cpus__get(e, r->owner_cpu);
	if (!o || !c)
		return;
	task__touch(e, o, &r->owner, ts);
	if (r->owner_flags & LS_OWNER_F_LATE) {
		tasks__owner_late(e, o, r);
		return;
	}
	/* By TID its storage, so its flags, were out of the waiter's reach: what we know stays. */
	tasks__set_flags(e, o, ((e->features & LS_FEAT_OWNER_BY_TID) ? o->flags :
				r->owner_flags & LS_TASK_F_ANY) | LS_TASK_F_OWNER, ts);
	/* The record says where it was when the wait began: followed from there. */
	o->follow_from = u64_min(o->follow_from, r->start_ns);
	if (r->owner_state == LS_OWNER_RUNNING) {
		spell__close(e, o, ts);
		o->cpu_state = TASK_CPU_ON;
		return;
	}
	/*
	 * Already followed off CPU (it holds another lock, or waits): that
	 * spell goes on, if the kernel agrees.  If not, the spell was left
	 * open when the task stopped being followed (preempted as the last
	 * waiter took over, then ran and slept unseen): the kernel's word wins.
	 */
	if (o->spell_open && owner__spell_agrees(&o->open, r)) {
		/* A waiter on another lock until now: this spell is one of holding, kept. */
		o->open.holding = true;
		return;
	}
	if (r->owner_state == LS_OWNER_RUNNABLE && r->cpu_curr.tid)
		cpu__set_runner(e, c, &r->cpu_curr, ts);
	spell__open(e, o, r->owner_state == LS_OWNER_RUNNABLE ? LS_STATE_PREEMPTED :
		    LS_STATE_BLOCKED, r->owner_cpu, ts);
	if (r->owner_state == LS_OWNER_BLOCKED)
		o->open.cause = r->owner_cause & LS_CAUSE_F_IO;
	o->cpu_state = TASK_CPU_OFF;
}
