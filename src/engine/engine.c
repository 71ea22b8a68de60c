// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine's front door: engine__feed validates each record, notes its
 * time and any loss it reports, hands it to tasks.c / locks.c, and sweeps a
 * little of the state for idle entries.  The summary is here too.
 *
 * Trust nothing in a record: a size that does not match its type, a CPU
 * past ENGINE_MAX_CPUS, an unknown mark or histogram kind make the record
 * bad (counted, skipped).  Everything else is bounded by the tables.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine/internal.h"
#include "engine/sink.h"

union any_rec {
	struct ls_hdr hdr;
	struct ls_rec_lock lock;
	struct ls_rec_switch sw;
	struct ls_rec_wakeup wakeup;
	struct ls_rec_migrate migrate;
	struct ls_rec_exit exit;
	struct ls_rec_owner owner;
	struct ls_rec_hist hist;
	struct ls_rec_mark mark;
	struct ls_rec_lost lost;
	struct ls_rec_tick tick;
	struct ls_rec_throttle throttle;
	struct ls_rec_unthrottle unthrottle;
	struct ls_rec_reclaim reclaim;
	struct ls_rec_reclaim_end reclaim_end;
	struct ls_rec_io_dev io_dev;
	struct ls_rec_task_cgroup task_cgroup;
	struct cause_rec cause;	/* causes.c's records */
	__u8 cause_bytes[ENGINE_CAUSE_REC_MAX];
};

/* The size a record of this type must have; 0 for unknown types. */
static size_t rec__size(__u16 type)
{
	switch (type) {
	case LS_REC_WAIT_BEGIN:
	case LS_REC_WAIT_END:
	case LS_REC_HOLD:
		return sizeof(struct ls_rec_lock);
	case LS_REC_SWITCH:
		return sizeof(struct ls_rec_switch);
	case LS_REC_WAKEUP:
		return sizeof(struct ls_rec_wakeup);
	case LS_REC_MIGRATE:
		return sizeof(struct ls_rec_migrate);
	case LS_REC_EXIT:
		return sizeof(struct ls_rec_exit);
	case LS_REC_OWNER:
		return sizeof(struct ls_rec_owner);
	case LS_REC_HIST:
		return sizeof(struct ls_rec_hist);
	case LS_REC_MARK:
		return sizeof(struct ls_rec_mark);
	case LS_REC_LOST:
		return sizeof(struct ls_rec_lost);
	case LS_REC_TICK:
		return sizeof(struct ls_rec_tick);
	case LS_REC_THROTTLE:
		return sizeof(struct ls_rec_throttle);
	case LS_REC_UNTHROTTLE:
		return sizeof(struct ls_rec_unthrottle);
	case LS_REC_RECLAIM:
		return sizeof(struct ls_rec_reclaim);
	case LS_REC_RECLAIM_END:
		return sizeof(struct ls_rec_reclaim_end);
	case LS_REC_IO_DEV:
		return sizeof(struct ls_rec_io_dev);
	case LS_REC_TASK_CGROUP:
		return sizeof(struct ls_rec_task_cgroup);
	default:
		return causes__rec_size(type);
	}
}

/* Records the BPF side makes, on the CPU in hdr.cpu. */
static bool rec__from_kernel(__u16 type)
{
	return (type >= LS_REC_WAIT_BEGIN && type <= LS_REC_OWNER) ||
	       (type >= LS_REC_THROTTLE && type <= LS_REC_RECLAIM_END) || type == LS_REC_IO_DEV ||
	       type == LS_REC_TASK_CGROUP || causes__rec_size(type);
}

/* What the size check cannot see. */
static bool rec__valid(const union any_rec *u)
{
	if (rec__from_kernel(u->hdr.type) && u->hdr.cpu >= ENGINE_MAX_CPUS)
		return false;
	switch (u->hdr.type) {
	case LS_REC_WAIT_BEGIN:
	case LS_REC_WAIT_END:
	case LS_REC_HOLD:
		/* Sinks name the lock kind and owner source by table. */
		return u->lock.lock.kind < LS_LOCK_KIND_N && u->lock.owner_how < LS_OWNER_HOW_N;
	case LS_REC_OWNER:
		return u->owner.lock.kind < LS_LOCK_KIND_N && u->owner.how < LS_OWNER_HOW_N &&
		       u->owner.owner_state <= LS_OWNER_UNKNOWN && u->owner.owner_cpu < ENGINE_MAX_CPUS;
	case LS_REC_WAKEUP:
		return u->wakeup.target_cpu < ENGINE_MAX_CPUS;
	case LS_REC_MIGRATE:
		return u->migrate.from_cpu < ENGINE_MAX_CPUS && u->migrate.to_cpu < ENGINE_MAX_CPUS;
	case LS_REC_HIST:
		/* Sinks index by kind and mode: only values the ABI defines. */
		return u->hist.key.kind < LS_HIST_KIND_N &&
		       (u->hist.key.write <= 1 || u->hist.key.write == LS_HIST_ANY_MODE);
	case LS_REC_MARK:
		return u->mark.kind >= LS_MARK_BEGIN && u->mark.kind <= LS_MARK_END;
	case LS_REC_TICK:
		return u->tick.kind >= LS_TICK_PERIODIC && u->tick.kind <= LS_TICK_EXIT;
	case LS_REC_RECLAIM:
		return u->reclaim.kind >= LS_RECLAIM_DIRECT && u->reclaim.kind < LS_RECLAIM_KIND_N &&
		       u->reclaim.limit <= LS_MEMCG_LIMIT_HIGH;
	case LS_REC_RECLAIM_END:
		return u->reclaim_end.kind >= LS_RECLAIM_DIRECT &&
		       u->reclaim_end.kind < LS_RECLAIM_KIND_N;
	default:
		return true;
	}
}

/* ---- lost records ------------------------------------------------------ */

/* Records were lost somewhere in (from, to). */
static void lossy__add(struct engine *e, __u64 from, __u64 to, __u64 count)
{
	struct lossy_span *a, *b, *sp;
	__u64 t;

	if (from > to) {
		t = from;
		from = to;
		to = t;
	}
	if (ring__reserve(&e->lossy, ENGINE_LOSSY_SPANS)) {
		/*
		 * Full: merge the two oldest.  Their union also covers the gap
		 * between them, but a wait inside that gap ended long ago.
		 */
		if (e->lossy.n < 2)
			return;
		a = ring__at(&e->lossy, 0);
		b = ring__at(&e->lossy, 1);
		b->from = u64_min(a->from, b->from);
		b->to = u64_max(a->to, b->to);
		b->count += a->count;
		ring__pop_front(&e->lossy);
	}
	sp = ring__push(&e->lossy);
	sp->from = from;
	sp->to = to;
	sp->count = count;
}

__u64 engine__lost_in(const struct engine *e, __u64 from, __u64 to)
{
	const struct lossy_span *sp;
	__u64 n = 0;
	__u32 i;

	for (i = 0; i < e->lossy.n; i++) {
		sp = ring__at(&e->lossy, i);
		if (sp->from < to && sp->to > from)
			n += sp->count;
	}
	return n;
}

/* ---- time ------------------------------------------------------------- */

static void engine__update_span(struct engine *e)
{
	e->cum.start_ns = e->have_begin ? e->begin_ts : e->first_ts;
	e->cum.end_ns = e->have_end ? e->end_ts : e->now;
}

static void engine__note_time(struct engine *e, const struct ls_hdr *hdr, bool kernel)
{
	struct cpu *c = kernel ? cpus__get(e, hdr->cpu) : NULL;
	__u64 from = 0;

	if (!e->have_ts) {
		e->have_ts = true;
		e->first_ts = e->now = hdr->ts;
	}
	e->first_ts = u64_min(e->first_ts, hdr->ts);
	e->now = u64_max(e->now, hdr->ts);
	if (hdr->lost_before) {
		/*
		 * Lost since this CPU's previous record; with none seen (or
		 * no CPU to speak of), since the beginning.
		 */
		if (c && c->seen)
			from = c->last_ts;
		e->sum.lost_events += hdr->lost_before;
		lossy__add(e, from, hdr->ts, hdr->lost_before);
	}
	if (c) {
		c->seen = true;
		c->last_ts = hdr->ts;
	}
	engine__update_span(e);
}

static void engine__lost(struct engine *e, const struct ls_rec_lost *r)
{
	__u64 last = r->last_ns ? r->last_ns : r->hdr.ts;

	if (!r->count)
		return;
	e->sum.lost_events += r->count;
	/* first_ns 0: unknown, so from the beginning. */
	lossy__add(e, r->first_ns, last, r->count);
}

static int engine__mark(struct engine *e, const struct ls_rec_mark *r)
{
	switch (r->kind) {
	case LS_MARK_BEGIN:
		e->have_begin = true;
		e->begin_ts = r->hdr.ts;
		e->features = r->features;
		if (!e->ival_start)
			e->ival_start = r->hdr.ts;
		break;
	case LS_MARK_INTERVAL:
		return hists__interval(e, r->hdr.ts);
	case LS_MARK_END:
		e->have_end = true;
		e->end_ts = r->hdr.ts;
		break;
	}
	engine__update_span(e);
	return 0;
}

/* ---- feed ------------------------------------------------------------- */

/* Look at a few table slots per record: idle state goes in O(1) amortized. */
static void engine__sweep(struct engine *e)
{
	struct task *tk;
	struct lock *lk;
	int k;

	for (k = 0; k < ENGINE_SWEEP_STEP; k++) {
		if (e->tasks.cap) {
			e->sweep_task &= e->tasks.cap - 1;
			tk = map__slot(&e->tasks, e->sweep_task);
			/* A drop may shift the next entry into this slot: look again. */
			if (!tk || !tasks__drop_if_idle(e, tk))
				e->sweep_task++;
		}
		if (e->locks.cap) {
			e->sweep_lock &= e->locks.cap - 1;
			lk = map__slot(&e->locks, e->sweep_lock);
			if (!lk || !locks__sweep(e, lk))
				e->sweep_lock++;
		}
	}
}

/* One valid fixed-size record to the module that follows it. */
static int engine__dispatch(struct engine *e, const union any_rec *u)
{
	int err = 0;

	switch (u->hdr.type) {
	case LS_REC_WAIT_BEGIN:
		err = locks__wait_begin(e, &u->lock);
		break;
	case LS_REC_WAIT_END:
		err = locks__wait_end(e, &u->lock);
		break;
	case LS_REC_HOLD:
		locks__hold(e, &u->lock);
		break;
	case LS_REC_SWITCH:
		tasks__switch(e, &u->sw);
		break;
	case LS_REC_WAKEUP:
		tasks__wakeup(e, &u->wakeup);
		break;
	case LS_REC_MIGRATE:
		tasks__migrate(e, &u->migrate);
		break;
	case LS_REC_EXIT:
		tasks__exit(e, &u->exit);
		break;
	case LS_REC_OWNER:
		err = locks__owner(e, &u->owner);
		break;
	case LS_REC_HIST:
		hists__update(e, &u->hist);
		break;
	case LS_REC_MARK:
		err = engine__mark(e, &u->mark);
		break;
	case LS_REC_LOST:
		engine__lost(e, &u->lost);
		break;
	case LS_REC_TICK:
		err = locks__deadlocks(e, e->now);
		if (!err)
			err = pending__tick(e, &u->tick);
		break;
	case LS_REC_THROTTLE:
		tasks__throttle(e, &u->throttle);
		break;
	case LS_REC_UNTHROTTLE:
		tasks__unthrottle(e, &u->unthrottle);
		break;
	case LS_REC_RECLAIM:
		tasks__reclaim(e, &u->reclaim);
		break;
	case LS_REC_RECLAIM_END:
		tasks__reclaim_end(e, &u->reclaim_end);
		break;
	case LS_REC_IO_DEV:
		tasks__io_dev(e, &u->io_dev);
		break;
	case LS_REC_TASK_CGROUP:
		task_cgroups__record(e, &u->task_cgroup);
		break;
	default:
		if (causes__rec_size(u->hdr.type))
			causes__record(e, &u->cause);
		break;
	}
	return err;
}

/* The records that name a process: a lock record's, its leader's exit. */
static void engine__note_name(struct engine *e, const union any_rec *u)
{
	switch (u->hdr.type) {
	case LS_REC_WAIT_BEGIN:
	case LS_REC_WAIT_END:
	case LS_REC_HOLD:
		hists__rename(e, u->lock.lock.tgid, u->lock.lock.comm);
		break;
	case LS_REC_EXIT:
		if (u->exit.task.tid == u->exit.task.tgid)
			hists__rename(e, u->exit.task.tgid, u->exit.task.comm);
		break;
	}
}

int engine__feed(struct engine *e, const void *rec, size_t len)
{
	union any_rec u;
	size_t want;
	int err = 0;

	e->sum.events++;
	if (!rec || len < sizeof(u.hdr))
		goto bad;
	memcpy(&u.hdr, rec, sizeof(u.hdr));
	/* Variable size, and up to 64 KiB: not copied into the union. */
	if (u.hdr.type == LS_REC_STACK) {
		if (!stack__valid(rec, len))
			goto bad;
		/* LS_STACK_NOW comes from user space, not from hdr.cpu's stream. */
		engine__note_time(e, &u.hdr, !stack__is_now(rec));
		stacks__record(e, rec, len);
		engine__sweep(e);
		return 0;
	}
	want = rec__size(u.hdr.type);
	if (!want || u.hdr.size != len || len != want)
		goto bad;
	/* A copy: the caller's buffer need not be aligned. */
	memcpy(&u, rec, len);
	if (!rec__valid(&u))
		goto bad;
	engine__note_time(e, &u.hdr, rec__from_kernel(u.hdr.type));

	engine__note_name(e, &u);
	err = engine__dispatch(e, &u);
	engine__sweep(e);
	return err < 0 ? err : 0;
bad:
	e->sum.bad_records++;
	return 0;
}

int engine__feed_aside(struct engine *e, const void *rec, size_t len)
{
	union any_rec u;

	if (!rec || len < sizeof(u.hdr) || len > sizeof(u))
		return -EINVAL;
	memcpy(&u, rec, len);
	if (u.hdr.size != len || rec__size(u.hdr.type) != len || !rec__valid(&u))
		return -EINVAL;
	if (u.hdr.type == LS_REC_HIST) {
		hists__update(e, &u.hist);
		return 0;
	}
	if (u.hdr.type == LS_REC_MARK && u.mark.kind == LS_MARK_INTERVAL)
		return hists__interval(e, u.hdr.ts);
	return -EINVAL;
}

/* ---- life cycle --------------------------------------------------------- */

struct engine *engine__new(const struct engine_opts *opts, struct sink *sink)
{
	struct engine *e;

	if (!opts || !sink) {
		errno = EINVAL;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->opts = *opts;
	e->sink = sink;
	e->features = opts->features;
	e->retain = u64_max(opts->threshold_ns, ENGINE_RETAIN_MIN_NS);
	e->stale_age = e->retain > ~0ULL / ENGINE_STALE_RETAINS ?
		~0ULL : e->retain * ENGINE_STALE_RETAINS;
	map__init(&e->tasks, ENGINE_MAX_TASKS);
	map__init(&e->locks, ENGINE_MAX_LOCKS);
	map__init(&e->task_cgroups, ENGINE_MAX_TASK_CGROUPS);
	map__init(&e->hist_idx, ENGINE_MAX_HIST_KEYS);
	ring__init(&e->lossy, sizeof(struct lossy_span));
	return e;
}

void engine__summary(const struct engine *e, struct ls_summary *out)
{
	*out = e->sum;
	out->start_ns = e->cum.start_ns;
	out->end_ns = e->cum.end_ns;
	out->duration_ns = u64_sat_sub(out->end_ns, out->start_ns);
	out->hists = &e->cum;
}

int engine__finish(struct engine *e)
{
	struct ls_summary sum;
	int err;

	if (e->finished)
		return 0;
	e->finished = true;
	engine__summary(e, &sum);
	err = sink__summary(e->sink, &sum);
	return err < 0 ? err : 0;
}

void engine__free(struct engine *e)
{
	if (!e)
		return;
	tasks__free_all(e);
	locks__free_all(e);
	task_cgroups__free_all(e);
	cpus__free_all(e);
	hists__free(e);
	ring__free(&e->lossy);
	free(e->cands);
	free(e->order);
	free(e->tally);
	free(e->pend_v);
	free(e);
}

void engine__debug(const struct engine *e, struct engine_debug *out)
{
	const struct task *tk;
	__u32 i, k;

	memset(out, 0, sizeof(*out));
	out->tasks = e->tasks.n;
	out->locks = e->locks.n;
	out->task_cgroups = e->task_cgroups.n;
	out->holds = e->n_holds;
	out->waits = e->n_waits;
	out->cpus = e->n_cpus;
	for (i = 0; i < e->n_cpus; i++)
		out->runs += e->cpus[i].runs.n;
	out->lossy_spans = e->lossy.n;
	out->hist_keys = e->cum.n;
	out->stack_bytes = e->stack_bytes;
	for (i = 0; i < e->tasks.cap; i++) {
		tk = map__slot(&e->tasks, i);
		if (!tk)
			continue;
		out->open_waits += tk->waiting;
		out->spells += tk->spells.n;
		for (k = 0; k < TASK_OPEN_HOLDS; k++)
			out->open_holds += tk->oh[k].used;
	}
}
