// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The holders of one stall (see stall.h): find a queued writer (read
 * waiters only); take every hold on the lock that overlaps the wait and
 * conflicts with it (completed holds, and open ones a successful
 * acquisition does not rule out), or, for a lock without hold records,
 * its named owner or the waiter's waker; measure each inside the wait;
 * merge the holds of one task into one holder; sort by off-CPU time; fill
 * in each holder kept: its state, causes, spells and the preemptors
 * tallied over them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine/stall.h"


/*
 * The earliest write wait on lk, by another task, that began before this
 * read wait and ended after it began: fair rwsems queue readers behind it.
 */
void stall__find_queued_writer(struct lock *lk, struct stall_ctx *x)
{
	struct queued_writer *qw = &x->qw;
	struct list_node *pos, *tmp;
	const struct wwait *w;
	const struct task *tk;
	__u32 i;

	for (i = ring__first_after(&lk->waits, x->ws, wwait__end); i < lk->waits.n; i++) {
		w = ring__at(&lk->waits, i);
		if (w->task.tid == x->r->task.tid || w->start >= x->ws)
			continue;
		if (!qw->found || w->start < qw->start) {
			qw->found = true;
			qw->task = w->task;
			qw->start = w->start;
			qw->end = w->end;
		}
	}
	list_for_each_safe(pos, tmp, &lk->open_waits) {
		tk = container_of(pos, struct task, wait_node);
		if (!tk->wait_write || tk->tid == x->r->task.tid || tk->wait_start >= x->ws)
			continue;
		if (!qw->found || tk->wait_start < qw->start) {
			qw->found = true;
			qw->task = tk->info;
			qw->start = tk->wait_start;
			qw->end = x->we;	/* still waiting */
		}
	}
}

/* Does a hold of this mode over [start, end) block the waiter? */
static bool stall__conflicts(const struct stall_ctx *x, bool write, __u64 start, __u64 end)
{
	__u64 from, to;

	if (!span_overlap(start, end, x->ws, x->we))
		return false;
	if (x->write || write)
		return true;
	if (!x->qw.found)
		return false;
	/* A reader counts when it held while the queued writer waited ahead of us. */
	from = u64_max(x->ws, x->qw.start);
	to = u64_min(x->we, x->qw.end);
	return span_overlap(start, end, from, to) > 0;
}

static int stall__add_cand(struct engine *e, struct stall_ctx *x, struct hold *h, bool temp)
{
	struct stall_cand *c, *cands;
	struct stall_cand **order;
	__u32 n;

	if (x->n >= e->cands_alloc) {
		if (e->cands_alloc >= ENGINE_MAX_CANDS)
			goto drop;
		n = e->cands_alloc ? e->cands_alloc * 2 : 64;
		cands = realloc(e->cands, n * sizeof(*cands));
		if (!cands)
			goto drop;
		e->cands = cands;
		order = realloc(e->order, n * sizeof(*order));
		if (!order)
			goto drop;
		e->order = order;
		e->cands_alloc = n;
	}
	c = &e->cands[x->n++];
	memset(c, 0, sizeof(*c));
	c->h = h;
	c->temp = temp;
	return 0;
drop:
	x->dropped++;
	if (temp)
		hold__free(e, h);
	return -ENOSPC;
}

/* Off CPU holding, inside the wait: what an unconfirmed holder must show. */
static __u64 hold__offcpu(const struct hold *h)
{
	__u64 ns = 0;
	__u32 i;

	for (i = 0; i < h->n_spells; i++)
		if (h->spells[i].holding || h->spells[i].state == LS_STATE_GRANTED_NOT_RUNNING)
			ns += h->spells[i].end - h->spells[i].start;
	return ns;
}

/*
 * One holder of a pending wait the engine has no hold of, if tk is one:
 * false when it is not a candidate.  A waiter a wakeup granted this very
 * lock holds it, surely, in the mode it asked for; a task the kernel says
 * holds some mmap_lock is a guess (unconfirmed).
 */
static bool stall__add_unconfirmed(struct engine *e, struct stall_ctx *x, struct task *tk)
{
	bool granted = (tk->flags & LS_TASK_F_GRANTED) && tk->waiting_on &&
		       tk->waiting_on->id == x->r->lock.id;
	struct hold *h;

	if (tk->tid == x->r->task.tid || !((tk->flags & LS_TASK_F_HOLDING) || granted) ||
	    tk->oh[0].used || tk->oh[1].used)
		return false;
	h = hold__new(tk, x->ws, x->we);
	if (!h) {
		x->dropped++;
		return false;
	}
	if (hold__offcpu(h) * 2 < x->we - x->ws) {
		free(h);
		return false;
	}
	h->task = tk->info;
	/* a guess's mode is not known: it blocks the waiter, so assume it conflicts */
	h->write = granted ? tk->wait_write : true;
	h->granted = granted;
	h->released = false;
	h->unconfirmed = !granted;
	stall__add_cand(e, x, h, true);
	return true;
}

/*
 * A pending wait's holder may have taken the lock without waiting: no
 * record named its mm yet (its HOLD comes at release).  Tasks the kernel
 * says hold some mmap_lock, with no hold the engine knows, that sat off
 * CPU holding for at least half the wait so far are named as such
 * (unconfirmed): the mm owner's own threads when any is one, else those of
 * other processes (a reader of /proc/PID/...).
 */
static void stall__collect_unconfirmed(struct engine *e, struct stall_ctx *x)
{
	struct task *tk;
	bool own = false;
	__u32 i, pass;

	for (pass = 0; pass < 2 && !own; pass++) {
		for (i = 0; i < e->tasks.cap; i++) {
			tk = map__slot(&e->tasks, i);
			if (!tk || (tk->tgid == x->r->lock.tgid) != (pass == 0))
				continue;
			own |= stall__add_unconfirmed(e, x, tk) && pass == 0;
		}
	}
}

void stall__collect(struct engine *e, struct lock *lk, struct stall_ctx *x)
{
	const __u32 waiter = x->r->task.tid;
	struct list_node *pos, *tmp;
	struct open_hold *oh;
	struct hold *h;
	__u32 i;

	/* Holds that ended by the wait's start cannot overlap it. */
	for (i = ring__first_after(&lk->holds, x->ws, hold__end); i < lk->holds.n; i++) {
		h = *(struct hold **)ring__at(&lk->holds, i);
		if (h->task.tid == waiter || !stall__conflicts(x, h->write, h->start, h->end))
			continue;
		stall__add_cand(e, x, h, false);
	}
	list_for_each_safe(pos, tmp, &lk->open_holds) {
		oh = container_of(pos, struct open_hold, node);
		if (oh->task->tid == waiter)
			continue;
		/* Having the lock now rules out every incompatible holder. */
		if (x->r->success && (x->write || oh->write))
			continue;
		if (!stall__conflicts(x, oh->write, oh->start, x->we))
			continue;
		h = hold__new(oh->task, u64_min(oh->start, x->we), x->we);
		if (!h) {
			x->dropped++;
			continue;
		}
		h->task = oh->task->info;
		h->cgroup_id = oh->cgroup_id;
		h->op = oh->op;
		h->write = oh->write;
		h->granted = oh->granted;
		h->downgraded = oh->downgraded;
		h->released = false;
		stall__add_cand(e, x, h, true);
	}
	if (x->p->pending)
		stall__collect_unconfirmed(e, x);
}

/*
 * A lock without hold records (a futex, a kernel lock): the one holder is
 * the owner the waiter named, followed from its OWNER record on; else the
 * task that woke the waiter, marked as the releaser (its spells count only
 * while its own waits or holds had it followed).  Nobody when neither is
 * known: never a guess.
 */
void stall__collect_owner(struct engine *e, struct stall_ctx *x)
{
	const struct ls_rec_lock *r = x->r;
	const struct task *tk = map__get(&e->tasks, r->task.tid), *otk = NULL;
	__u32 owner = r->owner_how != LS_OWNER_RELEASER ? r->owner_tid : 0;
	__u8 how = r->owner_how;
	struct ls_task who;
	struct hold *h;

	memset(&who, 0, sizeof(who));
	if (!owner && tk && tk->wait_owner_tid && tk->wait_owner_start == r->start_ns) {
		owner = tk->wait_owner_tid;
		how = tk->wait_owner_how;
	}
	if (owner && owner != r->task.tid) {
		otk = map__get(&e->tasks, owner);
		if (otk)
			who = otk->info;
		who.tid = owner;
		/* Boosted during the wait (PI), unboosted at its release: as it ran then. */
		if (otk && otk->boost_ts >= x->ws && otk->boost_ts <= x->we &&
		    otk->boost_prio < who.prio)
			who.prio = otk->boost_prio;
	} else if (tk && tk->has_wait_waker && tk->wait_waker.tid &&
		   tk->wait_waker.tid != r->task.tid) {
		how = LS_OWNER_RELEASER;
		who = tk->wait_waker;
		otk = map__get(&e->tasks, who.tid);
	} else {
		return;
	}
	h = hold__new(otk, x->ws, x->we);
	if (!h) {
		x->dropped++;
		return;
	}
	h->task = who;
	h->write = true;
	/* A wait that got the lock saw it let go; a pending, failed or deadlocked one did not. */
	h->released = !x->p->pending && x->r->success;
	h->how = how;
	/* Its spells say where it was only while the kernel side followed it. */
	h->seen_limited = true;
	if (otk && otk->follow_from) {
		h->seen_from = otk->follow_from;
		h->seen_to = otk->follow_to ? otk->follow_to : ~0ULL;
	}
	stall__add_cand(e, x, h, true);
}

/* c's hold inside the wait, from `from` on: overlap, off-CPU time by state and cause, waker. */
static void stall__measure(const struct stall_ctx *x, struct stall_cand *c, __u64 from)
{
	const struct hold *h = c->h;
	const struct spell *sp;
	__u64 s, t, len;
	__u32 i;

	c->from = u64_max(u64_max(h->start, x->ws), from);
	c->to = u64_max(u64_min(h->end, x->we), c->from);
	c->overlap = c->to - c->from;
	if (h->seen_limited)
		c->unseen = c->overlap - span_overlap(h->seen_from, h->seen_to, c->from, c->to);
	c->pi = x->r->lock.kind == LS_LOCK_PI_FUTEX;
	causes__measure(c->cause, h, c->from, c->to);
	for (i = 0; i < h->n_spells; i++) {
		sp = &h->spells[i];
		s = u64_max(sp->start, c->from);
		t = u64_min(sp->end, c->to);
		if (t <= s || sp->state >= LS_STATE_N)
			continue;
		len = t - s;
		c->offcpu += len;
		c->by_state[sp->state] += len;
		/* A larger prio number: less important, so not boosted to the waiter's. */
		if (c->pi && spell__runnable(sp) && sp->prio > x->r->task.prio)
			c->unboosted += len;
		if (sp->state == LS_STATE_BLOCKED && len > c->blocked_longest) {
			c->blocked_longest = len;
			c->has_waker = sp->has_waker;
			c->waker = sp->waker;
		}
	}
}

static int cand__cmp_tid(const void *a, const void *b)
{
	const struct stall_cand *x = a, *y = b;

	if (x->h->task.tid != y->h->task.tid)
		return x->h->task.tid < y->h->task.tid ? -1 : 1;
	if (x->h->start != y->h->start)
		return x->h->start < y->h->start ? -1 : 1;
	return 0;
}

/* Most off CPU first, then most overlap, then lowest tid: deterministic. */
static int leader__cmp(const void *a, const void *b)
{
	const struct stall_cand *x = *(struct stall_cand *const *)a;
	const struct stall_cand *y = *(struct stall_cand *const *)b;

	if (x->offcpu != y->offcpu)
		return x->offcpu > y->offcpu ? -1 : 1;
	if (x->overlap != y->overlap)
		return x->overlap > y->overlap ? -1 : 1;
	if (x->h->task.tid != y->h->task.tid)
		return x->h->task.tid < y->h->task.tid ? -1 : 1;
	return 0;
}

static int tally__cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->task.tid != y->task.tid)
		return x->task.tid < y->task.tid ? -1 : 1;
	return 0;
}

/*
 * Sort by tid and fold each tid's holds into its first (the leader): the
 * sums become the leader's, and e->order lists the leaders.  A tid's holds
 * are measured in windows that do not overlap (they cannot, unless the
 * stream is garbage), so its off-CPU time never exceeds its overlap.
 */
__u32 stall__group(struct engine *e, struct stall_ctx *x)
{
	struct stall_cand *lead, *c;
	__u32 i, j, n = 0, k;

	if (!x->n)
		return 0;	/* e->cands may not be allocated yet: no qsort(NULL, 0) */
	qsort(e->cands, x->n, sizeof(*e->cands), cand__cmp_tid);
	for (i = 0; i < x->n; i = j) {
		lead = &e->cands[i];
		stall__measure(x, lead, 0);
		for (j = i + 1; j < x->n && e->cands[j].h->task.tid == lead->h->task.tid; j++) {
			c = &e->cands[j];
			stall__measure(x, c, e->cands[j - 1].to);
			lead->overlap += c->overlap;
			lead->offcpu += c->offcpu;
			lead->unseen += c->unseen;
			lead->unboosted += c->unboosted;
			for (k = 0; k < LS_STATE_N; k++)
				lead->by_state[k] += c->by_state[k];
			causes__fold(lead->cause, c->cause);
			if (c->blocked_longest > lead->blocked_longest) {
				lead->blocked_longest = c->blocked_longest;
				lead->has_waker = c->has_waker;
				lead->waker = c->waker;
			}
		}
		lead->n_group = j - i;
		e->order[n++] = lead;
	}
	qsort(e->order, n, sizeof(*e->order), leader__cmp);
	return n;
}

/*
 * Who ran most on the spell's CPU during the spell alone: the tally's growth
 * since e->tally_snap.  The tally is not sorted until every spell is in, so
 * an index names the same task before and after.
 */
static void spell__top_runner(const struct engine *e, __u32 n_before, struct ls_spell *out)
{
	__u64 best = 0, d;
	__u32 i;

	for (i = 0; i < e->n_tally; i++) {
		d = e->tally[i].ns - (i < n_before ? e->tally_snap[i] : 0);
		if (d > best) {
			best = d;
			out->ran_instead = e->tally[i].task;
		}
	}
}

/*
 * Tally the holder's preemptors over its runnable spells and keep its first
 * LS_MAX_SPELLS spells for timelines.  One walk serves both: a spell's own
 * top runner costs a snapshot of the tally (at most ENGINE_MAX_TALLY
 * counters), and no extra run is read, so e->run_budget bounds it
 * as it bounds the tally alone.
 */
static void stall__preemptors(struct engine *e, const struct stall_cand *lead,
			      struct ls_holder *hd, struct ls_spell *spells)
{
	const struct stall_cand *c;
	const struct spell *sp;
	struct ls_spell *out;
	__u32 i, j, k, n_before;
	__u64 s, t;

	tally__reset(e);
	for (i = 0; i < lead->n_group; i++) {
		c = &lead[i];
		/* Spells of its, inside this wait, were overwritten to bound memory. */
		if (c->h->spells_lost_to > c->from)
			e->stall_history_short = true;
		for (k = 0; k < c->h->n_spells; k++) {
			sp = &c->h->spells[k];
			s = u64_max(sp->start, c->from);
			t = u64_min(sp->end, c->to);
			if (t <= s || sp->state >= LS_STATE_N)
				continue;
			out = NULL;
			if (hd->n_spells < LS_MAX_SPELLS) {
				out = &spells[hd->n_spells++];
				memset(out, 0, sizeof(*out));
				out->start_ns = s;
				out->end_ns = t;
				out->state = sp->state;
			} else {
				hd->n_spells_dropped++;
			}
			if (!spell__runnable(sp))
				continue;
			n_before = e->n_tally;
			if (out)
				for (j = 0; j < n_before; j++)
					e->tally_snap[j] = e->tally[j].ns;
			cpus__tally(e, sp->cpu, s, t, hd->task.tid);
			if (out)
				spell__top_runner(e, n_before, out);
		}
	}
	hd->spells = spells;
	if (e->n_tally > 1)
		qsort(e->tally, e->n_tally, sizeof(*e->tally), tally__cmp);
	hd->preempted_other_ns = e->tally_other;
	for (i = 0; i < e->n_tally; i++) {
		if (i < LS_MAX_PREEMPTORS) {
			hd->preempted_by[i].task = e->tally[i].task;
			hd->preempted_by[i].ns = e->tally[i].ns;
			hd->n_preempted_by++;
		} else {
			hd->preempted_other_ns += e->tally[i].ns;
		}
	}
}

/* The causes the kernel gave for the holder's spells, the largest, and the limit behind them. */
static void stall__holder_causes(const struct engine *e, const struct stall_cand *lead,
				 struct ls_holder *hd)
{
	const char *disk;
	unsigned int k;
	__u32 i;

	for (k = 0; k < LS_CAUSE_N; k++)
		hd->cause_ns[k] = lead->cause[k].ns;
	hd->cause = LS_CAUSE_NONE;
	for (k = LS_CAUSE_NONE + 1; k < LS_CAUSE_N; k++)
		if (hd->cause_ns[k] && (hd->cause == LS_CAUSE_NONE ||
					hd->cause_ns[k] > hd->cause_ns[hd->cause]))
			hd->cause = k;
	/* A cause that explains little of the hold must not point the advice at its knob. */
	if (hd->cause_ns[hd->cause] < hd->overlap_ns / ENGINE_CAUSE_SHARE)
		hd->cause = LS_CAUSE_NONE;
	if (hd->cause_ns[LS_CAUSE_RUNNABLE]) {
		hd->pinned = lead->cause[LS_CAUSE_RUNNABLE].detail.pinned;
		hd->pinned.idle_cpus = lead->cause[LS_CAUSE_RUNNABLE].mask;
	}
	if (hd->cause_ns[LS_CAUSE_IO] && lead->cause[LS_CAUSE_IO].most) {
		hd->io_dev = lead->cause[LS_CAUSE_IO].detail.io_dev;
		disk = tasks__io_disk(e, hd->io_dev);
		if (disk)
			memcpy(hd->io_disk, disk, sizeof(hd->io_disk));
	}
	/* The latest hold's: the limit as it was last seen. */
	for (i = 0; i < lead->n_group; i++) {
		if (lead[i].h->throttle && lead[i].cause[LS_CAUSE_THROTTLED].ns)
			hd->throttle = lead[i].h->throttle;
		if (lead[i].h->reclaim && lead[i].cause[LS_CAUSE_RECLAIM].ns)
			hd->reclaim = lead[i].h->reclaim;
	}
}

void stall__fill_holder(struct engine *e, const struct stall_cand *lead,
			struct ls_holder *hd, struct ls_spell *spells)
{
	const struct stall_cand *c, *last = lead;
	unsigned int s, best = LS_STATE_RUNNING;
	__u64 last_stack_end = 0;
	__u32 i;

	memset(hd, 0, sizeof(*hd));
	hd->how = lead->h->how;
	hd->op = lead->h->op;
	hd->granted = lead->h->granted;
	hd->released = true;
	hd->lock_unconfirmed = true;
	hd->hold_start_ns = lead->h->start;
	for (i = 0; i < lead->n_group; i++) {
		c = &lead[i];
		hd->lock_unconfirmed &= c->h->unconfirmed;
		hd->write |= c->h->write;
		hd->downgraded |= c->h->downgraded;
		hd->released &= c->h->released;
		if (c->h->end >= last->h->end)
			last = c;
	}
	hd->task = last->h->task;	/* as it was when it last let go */
	hd->cgroup_id = last->h->cgroup_id;
	/* Where it was: the latest hold of the group that brought a stack. */
	for (i = 0; i < lead->n_group; i++)
		if (lead[i].h->stack && (!hd->stack || lead[i].h->end >= last_stack_end)) {
			hd->stack = lead[i].h->stack;
			last_stack_end = lead[i].h->end;
		}
	hd->hold_end_ns = last->h->end;
	hd->held_ns = hd->hold_end_ns - hd->hold_start_ns;
	hd->overlap_ns = lead->overlap;
	hd->offcpu_ns = lead->offcpu;
	memcpy(hd->offcpu_by_state, lead->by_state, sizeof(hd->offcpu_by_state));
	if (hd->offcpu_ns && hd->offcpu_ns * 2 >= hd->overlap_ns) {
		for (s = LS_STATE_RUNNING + 1; s < LS_STATE_N; s++)
			if (best == LS_STATE_RUNNING || lead->by_state[s] > lead->by_state[best])
				best = s;
	}
	hd->unseen_ns = lead->unseen;
	/* Not seen for most of it: neither running nor off CPU is known. */
	if (hd->unseen_ns && hd->unseen_ns * 2 >= hd->overlap_ns)
		best = LS_STATE_UNKNOWN;
	hd->state = best;
	if (lead->pi) {
		hd->pi_unboosted_ns = lead->unboosted;
		hd->pi_late = lead->unboosted >= ENGINE_PI_LATE_NS ||
			      lead->by_state[LS_STATE_BLOCKED] >= ENGINE_PI_LATE_NS;
	}
	stall__holder_causes(e, lead, hd);
	hd->has_waker = lead->has_waker;
	if (lead->has_waker)
		hd->woken_by = lead->waker;
	stall__preemptors(e, lead, hd, spells);
}
