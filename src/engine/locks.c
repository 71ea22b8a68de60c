// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per lock (an mmap_lock, a futex, a kernel lock): the completed holds and
 * write waits a later stall may need, the waits in progress, and the holds
 * known open.  WAIT_BEGIN, WAIT_END and HOLD records land here.
 *
 * Retention: a completed hold or wait stays while a wait in progress on the
 * same lock began before it ended (the stall that wait becomes may need it),
 * else for retain = max(threshold, 1 s) after it ended.  On top of that,
 * ENGINE_LOCK_MAX_* per lock and ENGINE_MAX_* in all; evictions are counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine/internal.h"

/* ---- the lock table ---------------------------------------------------- */

#define LOCK_KEY_PROBES 8	/* keys tried per identity: hash collisions */

/*
 * The table key of a lock's identity, probe p.  An mmap_lock is keyed by its
 * mm's address alone; other locks by a hash of (kind, id,
 * process for a private futex): a different identity found at a key moves
 * on to the next probe.
 */
static __u64 lock__key(__u8 kind, __u64 id, __u32 tgid, __u32 p)
{
	const __u64 mix = 0x9e3779b97f4a7c15ULL;

	if (kind == LS_LOCK_MMAP && !p)
		return id;
	return (id ^ ((__u64)kind << 56) ^ (tgid * mix)) + (p + 1) * mix;
}

static struct lock *locks__lookup(struct engine *e, __u8 kind, __u64 id, __u32 tgid)
{
	struct lock *lk;
	__u32 p;

	if (!ls_lock_is_user(kind))
		tgid = 0;
	for (p = 0; p < LOCK_KEY_PROBES; p++) {
		lk = map__get(&e->locks, lock__key(kind, id, tgid, p));
		if (lk && lk->kind == kind && lk->id == id && lk->key_tgid == tgid)
			return lk;
	}
	return NULL;
}

struct lock *locks__find(struct engine *e, __u64 id)
{
	return locks__lookup(e, LS_LOCK_MMAP, id, 0);
}

static int locks__insert(struct engine *e, struct lock *lk)
{
	__u32 p;

	for (p = 0; p < LOCK_KEY_PROBES; p++) {
		lk->key = lock__key(lk->kind, lk->id, lk->key_tgid, p);
		if (!map__get(&e->locks, lk->key))
			return map__put(&e->locks, lk->key, lk);
	}
	return -ENOSPC;
}

struct lock *locks__get(struct engine *e, const struct ls_lock_id *info)
{
	__u8 kind = info->kind;
	struct lock *lk;

	/* The feed refuses such records: no kind is filed as another. */
	if (kind >= LS_LOCK_KIND_N)
		return NULL;
	lk = locks__lookup(e, kind, info->id, info->tgid);
	if (lk)
		goto out;
	lk = calloc(1, sizeof(*lk));
	if (!lk)
		goto evict;
	lk->id = info->id;
	lk->kind = kind;
	lk->key_tgid = ls_lock_is_user(kind) ? info->tgid : 0;
	if (locks__insert(e, lk)) {
		free(lk);
		goto evict;
	}
	ring__init(&lk->holds, sizeof(struct hold *));
	ring__init(&lk->waits, sizeof(struct wwait));
	list__init(&lk->open_waits);
	list__init(&lk->open_holds);
out:
	/* The owner may be unknown in one record and known in the next. */
	if (info->tgid || !lk->info.tgid)
		lk->info = *info;
	lk->info.kind = kind;
	lk->last_ts = e->now;
	return lk;
evict:
	e->sum.evicted++;
	return NULL;
}

static __u64 lock__min_open_start(struct lock *lk)
{
	struct list_node *pos, *tmp;
	struct task *tk;

	if (!lk->n_open_waits)
		return ~0ULL;
	if (!lk->min_open_valid) {
		lk->min_open_start = ~0ULL;
		list_for_each_safe(pos, tmp, &lk->open_waits) {
			tk = container_of(pos, struct task, wait_node);
			lk->min_open_start = u64_min(lk->min_open_start, tk->wait_start);
		}
		lk->min_open_valid = true;
	}
	return lk->min_open_start;
}

__u64 hold__end(const void *elem)
{
	return (*(struct hold *const *)elem)->end;
}

__u64 wwait__end(const void *elem)
{
	return ((const struct wwait *)elem)->end;
}

/* Something on lk that ended at end: may a stall still need it? */
static bool lock__keep(struct engine *e, struct lock *lk, __u64 end)
{
	if (!ts_older(e->now, end, e->retain))
		return true;
	return lock__min_open_start(lk) < end;
}

static void lock__evict_hold(struct engine *e, struct lock *lk)
{
	hold__free(e, *(struct hold **)ring__at(&lk->holds, 0));
	ring__pop_front(&lk->holds);
	e->n_holds--;
}

static void lock__evict_wait(struct engine *e, struct lock *lk)
{
	ring__pop_front(&lk->waits);
	e->n_waits--;
}

/*
 * Earliest end first.  Both rings are sorted by end and whatever is kept
 * for one item is kept for any that ended later, so stop at the first keeper.
 */
static void lock__prune(struct engine *e, struct lock *lk)
{
	struct hold *h;
	struct wwait *w;

	while (lk->holds.n) {
		h = *(struct hold **)ring__at(&lk->holds, 0);
		if (lock__keep(e, lk, h->end))
			break;
		lock__evict_hold(e, lk);
	}
	while (lk->waits.n) {
		w = ring__at(&lk->waits, 0);
		if (lock__keep(e, lk, w->end))
			break;
		lock__evict_wait(e, lk);
	}
}

bool locks__sweep(struct engine *e, struct lock *lk)
{
	lock__prune(e, lk);
	if (lk->holds.n || lk->waits.n || lk->n_open_waits || !list__empty(&lk->open_holds))
		return false;
	map__del(&e->locks, lk->key);
	ring__free(&lk->holds);
	ring__free(&lk->waits);
	free(lk);
	return true;
}

void locks__free_all(struct engine *e)
{
	struct lock *lk;
	__u32 i, j;

	for (i = 0; i < e->locks.cap; i++) {
		lk = map__slot(&e->locks, i);
		if (!lk)
			continue;
		for (j = 0; j < lk->holds.n; j++)
			hold__free(e, *(struct hold **)ring__at(&lk->holds, j));
		ring__free(&lk->holds);
		ring__free(&lk->waits);
		free(lk);
	}
	map__free(&e->locks);
	e->n_holds = e->n_waits = 0;
}

/* Store a completed hold; the table owns h from here on (or frees it). */
static void lock__store_hold(struct engine *e, struct lock *lk, struct hold *h)
{
	int err;

	if (e->n_holds >= ENGINE_MAX_HOLDS) {
		/* Full over all locks: make room in this one, or drop the new one. */
		if (!lk->holds.n)
			goto drop;
		lock__evict_hold(e, lk);
		e->sum.evicted++;
	}
	err = ring__reserve(&lk->holds, ENGINE_LOCK_MAX_HOLDS);
	if (err && lk->holds.n) {
		lock__evict_hold(e, lk);
		e->sum.evicted++;
	} else if (err) {
		goto drop;
	}
	ring__push_sorted(&lk->holds, &h, hold__end);
	e->n_holds++;
	return;
drop:
	hold__free(e, h);
	e->sum.evicted++;
}

static void lock__store_wait(struct engine *e, struct lock *lk, const struct ls_task *t,
			   __u64 start, __u64 end)
{
	struct wwait w = { .task = *t, .start = start, .end = end };
	int err;

	if (e->n_waits >= ENGINE_MAX_WAITS) {
		if (!lk->waits.n)
			goto drop;
		lock__evict_wait(e, lk);
		e->sum.evicted++;
	}
	err = ring__reserve(&lk->waits, ENGINE_LOCK_MAX_WAITS);
	if (err && lk->waits.n) {
		lock__evict_wait(e, lk);
		e->sum.evicted++;
	} else if (err) {
		goto drop;
	}
	ring__push_sorted(&lk->waits, &w, wwait__end);
	e->n_waits++;
	return;
drop:
	e->sum.evicted++;
}

/* ---- holds ----------------------------------------------------------- */

static void hold__count_spell(const struct spell *sp, __u64 start, __u64 end, void *ctx)
{
	(*(__u32 *)ctx)++;
}

static void hold__copy_spell(const struct spell *sp, __u64 start, __u64 end, void *ctx)
{
	struct hold *h = ctx;
	struct spell *dst = &h->spells[h->n_spells++];

	*dst = *sp;
	dst->start = start;
	dst->end = end;
}

/* A throttled spell in the hold: keep the limit its task was last throttled by. */
static void hold__keep_throttle(struct hold *h, const struct task *tk)
{
	__u32 i;

	if (!tk || !tk->throttle)
		return;
	for (i = 0; i < h->n_spells; i++) {
		if (!(h->spells[i].cause & LS_CAUSE_F_THROTTLED))
			continue;
		h->throttle = malloc(sizeof(*h->throttle));
		if (h->throttle)
			*h->throttle = *tk->throttle;
		return;
	}
}

static void hold__count_reclaim(__u64 start, __u64 end, void *ctx)
{
	(*(__u32 *)ctx)++;
}

static void hold__copy_reclaim(__u64 start, __u64 end, void *ctx)
{
	struct hold *h = ctx;
	struct rspan *dst = &h->reclaims[h->n_reclaims++];

	dst->start = start;
	dst->end = end;
}

/* Its task's reclaims inside the hold, and what the latest said of its cgroup. */
static void hold__keep_reclaims(struct hold *h, const struct task *tk)
{
	tasks__for_each_reclaim(tk, h->start, h->end, hold__copy_reclaim, h);
	if (!h->n_reclaims || !tk->reclaim)
		return;
	h->reclaim = malloc(sizeof(*h->reclaim));
	if (h->reclaim)
		*h->reclaim = *tk->reclaim;
}

struct hold *hold__new(const struct task *tk, __u64 start, __u64 end)
{
	struct hold *h;
	__u32 n = 0, nr = 0;

	if (tk) {
		tasks__for_each_spell(tk, start, end, hold__count_spell, &n);
		tasks__for_each_reclaim(tk, start, end, hold__count_reclaim, &nr);
	}
	h = calloc(1, sizeof(*h) + n * sizeof(h->spells[0]) + nr * sizeof(h->reclaims[0]));
	if (!h)
		return NULL;
	h->start = start;
	h->end = end;
	h->released = true;
	h->reclaims = (struct rspan *)&h->spells[n];
	if (tk && tk->spells_lost_to > start)
		h->spells_lost_to = tk->spells_lost_to;
	if (tk) {
		tasks__for_each_spell(tk, start, end, hold__copy_spell, h);
		hold__keep_reclaims(h, tk);
	}
	hold__keep_throttle(h, tk);
	return h;
}

void hold__free(struct engine *e, struct hold *h)
{
	if (!h)
		return;
	stack__free(e, h->stack);
	free(h->throttle);
	free(h->reclaim);
	free(h);
}

void locks__end_open_hold(struct engine *e, struct open_hold *oh)
{
	if (!oh->used)
		return;
	list__del(&oh->node);
	oh->used = false;
	oh->lock = NULL;
}

static void task__open_hold(struct engine *e, struct task *tk, struct lock *lk,
			    const struct ls_rec_lock *r, __u64 start, __u64 seen_ts,
			    bool write, bool granted, bool downgraded)
{
	struct open_hold *oh = NULL;
	int i;

	for (i = 0; i < TASK_OPEN_HOLDS; i++) {
		if (tk->oh[i].used && tk->oh[i].lock == lk)
			oh = &tk->oh[i];	/* the old one's end was lost */
		else if (!tk->oh[i].used && !oh)
			oh = &tk->oh[i];
	}
	if (!oh) {
		/* More than the kernel can hold: the oldest end was lost. */
		oh = tk->oh[0].start <= tk->oh[1].start ? &tk->oh[0] : &tk->oh[1];
		e->sum.evicted++;
	}
	locks__end_open_hold(e, oh);
	oh->lock = lk;
	oh->op = r->op;
	oh->cgroup_id = r->cgroup_id;
	oh->start = start;
	oh->seen_ts = seen_ts;
	oh->write = write;
	oh->granted = granted;
	oh->downgraded = downgraded;
	oh->used = true;
	list__add(&lk->open_holds, &oh->node);
	tk->flags |= LS_TASK_F_HOLDING;
}

/*
 * An exclusive period on lk from `from` on: every other open hold that
 * began before it (all of them, or the writers only when the new holder
 * is a reader) must have ended, silently.
 */
static void lock__end_open_holds(struct engine *e, struct lock *lk, const struct task *except,
			       bool writers_only, __u64 before)
{
	struct list_node *pos, *tmp;
	struct open_hold *oh;

	list_for_each_safe(pos, tmp, &lk->open_holds) {
		oh = container_of(pos, struct open_hold, node);
		if (oh->task == except || (writers_only && !oh->write) || oh->start > before)
			continue;
		locks__end_open_hold(e, oh);
	}
}

/* ---- waits ----------------------------------------------------------- */

static void task__name_owner(struct task *tk, const struct ls_lock_id *lock, __u64 start,
			     __u32 owner_tid, __u8 how)
{
	tk->wait_owner_start = start;
	tk->wait_owner_tid = owner_tid;
	tk->wait_owner_how = how;
	tk->wait_lock = *lock;
}

/* The wait ended (r: its WAIT_END; NULL: it never was one): keep it as the last. */
static void task__forget_owner(struct task *tk, const struct ls_rec_lock *r)
{
	if (!tk)
		return;
	if (r && tk->wait_owner_tid) {
		tk->last_wait.lock = tk->wait_lock;
		tk->last_wait.start = tk->wait_owner_start;
		tk->last_wait.end = stall__lock_end(r);
		tk->last_wait.owner_tid = tk->wait_owner_tid;
		tk->last_wait.owner_how = tk->wait_owner_how;
	}
	tk->wait_owner_tid = 0;
	tk->wait_owner_how = LS_OWNER_NONE;
	tk->deadlock_reported = false;
	tk->cycle_doubt = LS_UNKNOWN_NONE;
	tk->has_wait_waker = false;
}

void locks__end_wait(struct engine *e, struct task *tk)
{
	struct lock *lk = tk->waiting_on;

	if (!tk->waiting)
		return;
	list__del(&tk->wait_node);
	if (lk) {
		lk->n_open_waits--;
		if (tk->wait_start <= lk->min_open_start)
			lk->min_open_valid = false;
	}
	tk->waiting = false;
	tk->wait_prior = 0;
	tk->waiting_on = NULL;
}

/* A wait of tk that began at start ended already: what comes of it now is stale. */
static bool locks__stale_wait(const struct task *tk, __u64 start)
{
	return tk->ended_start && start <= tk->ended_start;
}

int locks__wait_begin(struct engine *e, const struct ls_rec_lock *r)
{
	struct task *tk = tasks__get(e, &r->task);
	struct lock *lk;

	if (!tk || locks__stale_wait(tk, r->start_ns))
		return 0;
	task__seen(tk, &r->task, r->hdr.ts);
	lk = locks__get(e, &r->lock);
	if (!lk)
		return 0;
	/* Told twice (a quiet wait's end and the scan, bpf/prior.bpf.h): one wait. */
	if (tk->waiting && tk->waiting_on == lk && tk->wait_start == r->start_ns)
		return 0;
	locks__end_wait(e, tk);	/* a wait still open here lost its WAIT_END */
	if (lk->n_open_waits >= ENGINE_LOCK_MAX_OPEN) {
		e->sum.evicted++;
		return 0;
	}
	tk->waiting = true;
	tk->waiting_on = lk;
	tk->wait_start = r->start_ns;
	tk->wait_write = !!r->write;
	tk->wait_op = r->op;
	tk->wait_cgroup_id = r->cgroup_id;
	tk->wait_prior = r->flags & (LS_LOCK_F_PRIOR | LS_LOCK_F_LATE);
	tk->pend_reports = 0;
	tk->pend_first = 0;
	tk->flags |= LS_TASK_F_WAITING;
	if (r->owner_tid && r->owner_how != LS_OWNER_RELEASER)
		task__name_owner(tk, &r->lock, r->start_ns, r->owner_tid, r->owner_how);
	if (!lk->n_open_waits) {
		lk->min_open_start = r->start_ns;
		lk->min_open_valid = true;
	} else if (lk->min_open_valid) {
		lk->min_open_start = u64_min(lk->min_open_start, r->start_ns);
	}
	list__add(&lk->open_waits, &tk->wait_node);
	lk->n_open_waits++;
	return 0;
}

int locks__wait_end(struct engine *e, const struct ls_rec_lock *r)
{
	__u64 ts = r->hdr.ts, start = r->start_ns, hold_start;
	bool acquired = r->success && !(r->flags & LS_LOCK_F_EXITED);
	struct stall_pend pend = { 0 };
	struct ls_rec_stack *ws;
	struct task *tk;
	struct lock *lk;
	int err = 0;

	/* A failed trylock never waited: it leaves nothing behind. */
	if (r->flags & LS_LOCK_F_TRYLOCK) {
		task__forget_owner(tasks__find(e, &r->task), NULL);
		return 0;
	}
	tk = tasks__find(e, &r->task);
	if (!tk && acquired)
		tk = tasks__get(e, &r->task);
	if (tk) {
		task__seen(tk, &r->task, ts);
		/* The wait that pending reports spoke of: the final stall refers to them. */
		if (tk->waiting && tk->wait_start == start && tk->pend_reports) {
			pend.reports = tk->pend_reports;
			pend.first_ns = tk->pend_first;
		}
		locks__end_wait(e, tk);
		tk->flags &= ~(LS_TASK_F_WAITING | LS_TASK_F_GRANTED);
		tk->ended_start = u64_max(tk->ended_start, start);
	}
	lk = locks__get(e, &r->lock);
	if (lk && acquired) {
		lk->acquired_ts = ts;
		lk->acquired_tid = r->task.tid;
	}
	if (lk && r->write && ls_lock_kind(lk->kind)->writer_first)
		lock__store_wait(e, lk, &r->task, start, u64_max(ts, start));
	ws = tk ? stack__for(e, tk, false, r) : NULL;
	/*
	 * The lock is to blame until it was handed over, not for the run delay
	 * after.  A futex or kernel lock wait that failed (a timeout, a signal)
	 * is not known to have waited for the lock all along: not judged.
	 */
	if (ts >= start && stall__lock_end(r) - start >= e->opts.threshold_ns &&
	    (r->lock.kind == LS_LOCK_MMAP || r->success)) {
		e->wait_stack = ws;
		err = stall__emit(e, r, lk, &pend);
		e->wait_stack = NULL;
	}
	stack__free(e, ws);
	err = err < 0 ? err : 0;
	task__forget_owner(tk, r);
	if (acquired && tk && lk && lk->kind == LS_LOCK_MMAP) {
		hold_start = r->granted_ns && r->granted_ns <= ts ? r->granted_ns : ts;
		lock__end_open_holds(e, lk, tk, !r->write, ts);
		task__open_hold(e, tk, lk, r, hold_start, ts, !!r->write,
				r->granted_ns != 0, false);
	}
	if (lk)
		lock__prune(e, lk);
	return err;
}

void locks__hold(struct engine *e, const struct ls_rec_lock *r)
{
	__u64 end = r->hdr.ts, start = u64_min(r->start_ns, r->hdr.ts);
	struct task *tk = tasks__find(e, &r->task);
	struct lock *lk = locks__get(e, &r->lock);
	bool downgraded = r->flags & LS_LOCK_F_DOWNGRADED;
	bool open_left = false;
	struct hold *h;
	int i;

	if (tk) {
		task__seen(tk, &r->task, end);
		for (i = 0; i < TASK_OPEN_HOLDS; i++)
			if (tk->oh[i].used && tk->oh[i].lock == lk)
				locks__end_open_hold(e, &tk->oh[i]);
	}
	if (!lk)
		return;
	h = hold__new(tk, start, end);
	if (h) {
		h->task = r->task;
		h->cgroup_id = r->cgroup_id;
		h->op = r->op;
		h->write = !!r->write;
		h->granted = r->granted_ns || (r->flags & LS_LOCK_F_GRANTED);
		h->downgraded = downgraded;
		if (tk)
			h->stack = stack__for(e, tk, true, r);
		lock__store_hold(e, lk, h);
	} else {
		e->sum.evicted++;
	}
	if (r->write)
		lock__end_open_holds(e, lk, tk, false, end);
	if (tk && downgraded && r->write && !(r->flags & LS_LOCK_F_EXITED))
		task__open_hold(e, tk, lk, r, end, end, false, false, true);
	if (tk) {
		for (i = 0; i < TASK_OPEN_HOLDS; i++)
			open_left |= tk->oh[i].used;
		if (!open_left)
			tk->flags &= ~LS_TASK_F_HOLDING;
	}
	lock__prune(e, lk);
}

/* ---- owners and deadlocks ---------------------------------------------- */

/* An owner read from the lock itself: a hint or a releaser may hold nothing. */
static bool owner__exact(__u8 how)
{
	return how == LS_OWNER_FUTEX_WORD || how == LS_OWNER_PTHREAD || how == LS_OWNER_KLOCK ||
	       how == LS_OWNER_RWLOCK_WRITER;
}

/*
 * tk waits on an exact owner, named at least the threshold before now;
 * again: also when its cycle was reported already.
 */
static bool locks__waits_on_owner(const struct engine *e, const struct task *tk, __u64 now,
				  bool again)
{
	return tk->wait_owner_tid && (again || !tk->deadlock_reported) &&
	       owner__exact(tk->wait_owner_how) && tk->wait_owner_start + e->opts.threshold_ns <= now;
}

/*
 * Does following owners from tk come back to tk?  The task of the cycle
 * whose wait began last (it closed the cycle), or NULL.  An owner is read
 * as a wait begins and may have let go since: only a cycle whose every
 * wait has lasted the threshold counts.  At most LS_MAX_HOPS hops: a
 * longer cycle is not told from a long chain.
 */
static struct task *locks__cycle(struct engine *e, struct task *tk, __u64 now, bool again)
{
	struct task *cur = tk, *last = tk;
	int depth;

	for (depth = 0; depth < LS_MAX_HOPS - 1; depth++) {
		if (!locks__waits_on_owner(e, cur, now, again))
			return NULL;
		if (cur->wait_owner_start > last->wait_owner_start ||
		    (cur->wait_owner_start == last->wait_owner_start && cur->tid > last->tid))
			last = cur;
		cur = map__get(&e->tasks, cur->wait_owner_tid);
		if (!cur)
			return NULL;
		if (cur == tk)
			return depth ? last : NULL;	/* not its own owner: a stale read */
	}
	return NULL;
}

static bool lock__same(const struct ls_lock_id *a, const struct ls_lock_id *b)
{
	return a->kind == b->kind && a->id == b->id &&
	       (!ls_lock_is_user(a->kind) || a->tgid == b->tgid);
}

/*
 * tk named its owner before the lock changed hands: another task got the
 * lock after that read, so the owner it names may hold nothing now.
 */
static bool locks__owner_stale(struct engine *e, const struct task *tk)
{
	const struct ls_lock_id *l = &tk->wait_lock;
	struct lock *lk;

	if (l->kind >= LS_LOCK_KIND_N)
		return false;
	lk = locks__lookup(e, l->kind, l->id, l->tgid);
	return lk && lk->acquired_ts > tk->wait_owner_start && lk->acquired_tid != tk->wait_owner_tid;
}

/*
 * Why the cycle through tk may be no deadlock, or LS_UNKNOWN_NONE: an
 * exclusive lock has one owner, so no cycle passes twice through one; an
 * owner read is a moment's truth; lost records may have ended a wait.
 */
static __u8 locks__cycle_doubt(struct engine *e, struct task *tk, __u64 now)
{
	struct task *hop[LS_MAX_HOPS], *cur = tk;
	__u64 first = tk->wait_owner_start;
	int n = 0, i, j;

	while (cur && n < LS_MAX_HOPS) {
		hop[n++] = cur;
		first = u64_min(first, cur->wait_owner_start);
		cur = map__get(&e->tasks, cur->wait_owner_tid);
		if (cur == tk)
			break;
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (lock__same(&hop[i]->wait_lock, &hop[j]->wait_lock))
				return LS_UNKNOWN_CYCLE_LOCK_TWICE;
	for (i = 0; i < n; i++)
		if (locks__owner_stale(e, hop[i]))
			return LS_UNKNOWN_CYCLE_STALE_OWNER;
	if (engine__lost_in(e, first, now))
		return LS_UNKNOWN_CYCLE_EVENTS_LOST;
	return LS_UNKNOWN_NONE;
}

int locks__deadlocks(struct engine *e, __u64 now)
{
	struct task *tk, *last;
	__u32 i;
	int err;

	for (i = 0; i < e->tasks.cap; i++) {
		tk = map__slot(&e->tasks, i);
		if (!tk || !(last = locks__cycle(e, tk, now, false)))
			continue;
		err = stall__deadlock(e, last, locks__cycle_doubt(e, last, now));
		if (err < 0)
			return err;
	}
	return 0;
}

bool locks__in_deadlock(struct engine *e, struct task *tk, __u64 now)
{
	return tk->deadlock_reported && !tk->cycle_doubt && locks__cycle(e, tk, now, true);
}

int locks__owner(struct engine *e, const struct ls_rec_owner *r)
{
	struct task *tk = tasks__get(e, &r->waiter);

	if ((r->owner_flags & LS_OWNER_F_LATE) && tk && locks__stale_wait(tk, r->start_ns))
		return 0;
	tasks__owner(e, r);
	if (!tk || r->owner_state == LS_OWNER_GONE || r->how == LS_OWNER_RELEASER)
		return 0;
	task__seen(tk, &r->waiter, r->hdr.ts);
	/* A new wait: what the last one named is over. */
	task__forget_owner(tk, NULL);
	task__name_owner(tk, &r->lock, r->start_ns, r->owner.tid, r->how);
	return 0;
}
