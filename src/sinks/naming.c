// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The naming worker and its queue: see naming.h for what and why.
 *
 * An item is a stall (or an interval) between the stage and its delivery.
 * The queue's lock guards the list, each item's state and refs; the
 * worker writes an item's names only while it is NAMING, and the record
 * side reads them only once it is READY.  An item the record side gave up
 * waiting for (ABANDONED) is delivered from its copy without names; the
 * worker drops its work on it, and the last of the two to let go frees it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/sink.h"
#include "resolve/stacks.h"
#include "sinks/naming.h"
#include "sinks/sink_common.h"
#include "util.h"

#define NAMING_IDLE_NS	(100 * 1000 * 1000ULL)	/* the worker collects this often when idle */
#define NAMING_NAMES	(3 + 2 * LS_MAX_HOPS)	/* lock name, caller, module; each hop's two */

enum item_state {
	ITEM_WAITING,		/* for the worker */
	ITEM_NAMING,
	ITEM_READY,		/* named, or needs none (an interval) */
	ITEM_ABANDONED,		/* delivered unnamed while the worker had it */
};

struct item {
	struct item *next;
	enum item_state state;
	int refs;		/* the queue's (until delivered) and the worker's */
	__u64 queued_ns;
	bool is_interval;
	bool unnamed;		/* queued without names: the queue was full */
	struct ls_hist_set hist;	/* is_interval: its copy */
	struct stall_copy raw;	/* the stall as the engine gave it */
	struct ls_rec_stack *stacks[1 + LS_MAX_HOLDERS];	/* [0] the waiter's, [1 + i] holder i's */
	struct stall_copy named;	/* READY: with frames */
	char *names[NAMING_NAMES];	/* named's lock names */
	bool has_names;		/* named is whole */
};

/* A process's mappings, read by the worker, for the record side's on_maps. */
struct maps_note {
	struct maps_note *next;
	__u32 tgid;
	char *maps, *ids;
	size_t maps_len, ids_len;
};

struct naming {
	struct naming_opts o;
	struct sink *inner;	/* the stage's: where items are delivered */
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;	/* the queue */
	pthread_cond_t wake;	/* the worker: an item, or stop */
	pthread_cond_t done;	/* the record side: an item named, or the worker stopped */
	pthread_mutex_t namer;	/* what the worker names with (the stacks) */
	struct item *head, *tail;
	unsigned int n_items;	/* read without the lock: whether there is anything */
	unsigned int n_waiting;	/* WAITING or NAMING */
	bool stop, stopped;
	bool stuck;		/* it did not stop when asked: it keeps everything */
	struct naming_stats stats;
	struct maps_note *notes, **notes_tail;
	/* naming__new_stacks: the resolver's on_maps, called on the record side */
	struct stacks *sk;
	stacks_maps_fn on_maps;
	void *on_maps_ctx;
	/* the record side's frames for a stall delivered unnamed */
	struct ls_frames unnamed_fr[1 + LS_MAX_HOLDERS];
	struct ls_frame unnamed_v[1 + LS_MAX_HOLDERS][STACKS_MAX_FRAMES];
	struct ls_holder unnamed_holders[LS_MAX_HOLDERS];
};

/* ---- items ------------------------------------------------------------- */

static void item__free_names(struct item *it)
{
	size_t i;

	stall_copy__release(&it->named);
	for (i = 0; i < NAMING_NAMES; i++) {
		free(it->names[i]);
		it->names[i] = NULL;
	}
}

static void item__free(struct item *it)
{
	size_t i;

	item__free_names(it);
	stall_copy__release(&it->raw);
	for (i = 0; i < ARRAY_SIZE(it->stacks); i++)
		free(it->stacks[i]);
	free(it->hist.v);
	free(it);
}

/* Drop a reference, queue lock held. */
static void item__put(struct item *it)
{
	if (--it->refs == 0)
		item__free(it);
}

static struct ls_rec_stack *stack__dup(const struct ls_rec_stack *r)
{
	struct ls_rec_stack *c;

	if (!r || r->hdr.size < sizeof(*r))
		return NULL;
	c = malloc(r->hdr.size);
	if (c)
		memcpy(c, r, r->hdr.size);
	return c;
}

/* The copy's stall points to the copies of its STACK records. */
static void item__point_stacks(struct item *it)
{
	unsigned int i;

	it->raw.st.waiter_stack = it->stacks[0];
	for (i = 0; i < it->raw.st.n_holders; i++)
		it->raw.holders[i].stack = it->stacks[1 + i];
}

/* The stall and its STACK records, copied: the engine's live only during the call. */
static struct item *item__new_stall(const struct ls_stall *st)
{
	struct item *it = calloc(1, sizeof(*it));
	unsigned int i;

	if (!it)
		return NULL;
	it->refs = 1;
	if (stall_copy__set(&it->raw, st)) {
		free(it);
		return NULL;
	}
	it->stacks[0] = stack__dup(st->waiter_stack);
	for (i = 0; i < it->raw.st.n_holders; i++)
		it->stacks[1 + i] = stack__dup(st->holders[i].stack);
	item__point_stacks(it);
	return it;
}

static struct item *item__new_interval(const struct ls_hist_set *h)
{
	struct item *it = calloc(1, sizeof(*it));

	if (!it)
		return NULL;
	it->refs = 1;
	it->is_interval = true;
	it->state = ITEM_READY;
	it->hist = *h;
	it->hist.v = h->n ? malloc(h->n * sizeof(*h->v)) : NULL;
	if (h->n && !it->hist.v) {
		free(it);
		return NULL;
	}
	if (h->n)
		memcpy(it->hist.v, h->v, h->n * sizeof(*h->v));
	it->hist.alloc = h->n;
	return it;
}

static char *dup_name(char **slot, const char *s)
{
	*slot = s ? strdup(s) : NULL;
	return *slot;
}

/* The namer's result (valid until its reset) into blocks the item owns. */
static void item__keep_names(struct item *it, const struct ls_stall *named)
{
	struct ls_stall *st = &it->named.st;
	unsigned int i, k = 0;

	if (stall_copy__set(&it->named, named))
		return;
	it->has_names = true;
	st->waiter_stack = NULL;
	st->lock_name = dup_name(&it->names[k++], named->lock_name);
	st->lock_caller = dup_name(&it->names[k++], named->lock_caller);
	st->lock_module = dup_name(&it->names[k++], named->lock_module);
	for (i = 0; i < st->n_chain && i < LS_MAX_HOPS; i++) {
		st->chain[i].lock_name = dup_name(&it->names[k++], named->chain[i].lock_name);
		st->chain[i].lock_module = dup_name(&it->names[k++], named->chain[i].lock_module);
	}
}

/* ---- mappings for the record side --------------------------------------- */

/* The resolver's on_maps on the worker: kept for the record side's thread. */
static int naming__note_maps(void *ctx, __u32 tgid, const char *maps, size_t maps_len,
			     const char *ids, size_t ids_len)
{
	struct naming *nq = ctx;
	struct maps_note *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->maps = malloc(maps_len + 1);
	n->ids = malloc(ids_len + 1);
	if (!n->maps || !n->ids) {
		free(n->maps);
		free(n->ids);
		free(n);
		return -ENOMEM;
	}
	memcpy(n->maps, maps, maps_len);
	n->maps[maps_len] = 0;
	memcpy(n->ids, ids, ids_len);
	n->ids[ids_len] = 0;
	n->tgid = tgid;
	n->maps_len = maps_len;
	n->ids_len = ids_len;
	pthread_mutex_lock(&nq->lock);
	*nq->notes_tail = n;
	nq->notes_tail = &n->next;
	pthread_mutex_unlock(&nq->lock);
	return 0;
}

/* The record side: the mappings the worker read, to on_maps (a recording's). */
static void naming__flush_notes(struct naming *nq)
{
	struct maps_note *n, *next;

	pthread_mutex_lock(&nq->lock);
	n = nq->notes;
	nq->notes = NULL;
	nq->notes_tail = &nq->notes;
	pthread_mutex_unlock(&nq->lock);
	for (; n; n = next) {
		next = n->next;
		if (nq->on_maps)
			nq->on_maps(nq->on_maps_ctx, n->tgid, n->maps, n->maps_len, n->ids,
				    n->ids_len);
		free(n->maps);
		free(n->ids);
		free(n);
	}
}

/* ---- the worker -------------------------------------------------------- */

void naming__free(struct naming *nq);

/* CLOCK_REALTIME, what the condition variables and timed locks wait by, ns from now */
static struct timespec naming__abstime(__u64 ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)(ns % 1000000000ULL);
	ts.tv_sec += (time_t)(ns / 1000000000ULL) + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

static struct item *naming__next_waiting(struct naming *nq)
{
	struct item *it;

	for (it = nq->head; it; it = it->next)
		if (!it->is_interval && it->state == ITEM_WAITING)
			return it;
	return NULL;
}

/* Name one item, queue lock held on entry and on return (not while naming). */
static void naming__name_one(struct naming *nq, struct item *it)
{
	struct ls_holder holders[LS_MAX_HOLDERS];
	struct ls_stall out;

	it->state = ITEM_NAMING;
	it->refs++;
	pthread_mutex_unlock(&nq->lock);

	pthread_mutex_lock(&nq->namer);
	nq->o.ops->name(nq->o.ctx, &it->raw.st, &out, holders);
	item__keep_names(it, &out);
	if (nq->o.ops->reset)
		nq->o.ops->reset(nq->o.ctx);
	pthread_mutex_unlock(&nq->namer);

	pthread_mutex_lock(&nq->lock);
	if (it->state == ITEM_NAMING) {
		it->state = ITEM_READY;
		nq->n_waiting--;
	}
	item__put(it);
	pthread_cond_broadcast(&nq->done);
}

static void naming__collect(struct naming *nq)
{
	if (!nq->o.ops->collect)
		return;
	pthread_mutex_unlock(&nq->lock);
	pthread_mutex_lock(&nq->namer);
	nq->o.ops->collect(nq->o.ctx);
	pthread_mutex_unlock(&nq->namer);
	pthread_mutex_lock(&nq->lock);
}

static void *naming__run(void *arg)
{
	struct naming *nq = arg;
	struct timespec ts;
	struct item *it;

	pthread_mutex_lock(&nq->lock);
	while (!nq->stop) {
		it = naming__next_waiting(nq);
		if (it) {
			naming__name_one(nq, it);
			continue;
		}
		/* mappings read meanwhile are taken in while their processes live */
		naming__collect(nq);
		if (nq->stop || naming__next_waiting(nq))
			continue;
		ts = naming__abstime(NAMING_IDLE_NS);
		pthread_cond_timedwait(&nq->wake, &nq->lock, &ts);
	}
	nq->stopped = true;
	pthread_cond_broadcast(&nq->done);
	pthread_mutex_unlock(&nq->lock);
	return NULL;
}

/* The queue, not started: naming__start(). */
static struct naming *naming__alloc(const struct naming_opts *o)
{
	struct naming *nq = calloc(1, sizeof(*nq));

	if (!nq)
		return NULL;
	nq->o = *o;
	if (!nq->o.queue)
		nq->o.queue = NAMING_QUEUE;
	if (!nq->o.queue_max)
		nq->o.queue_max = NAMING_QUEUE_MAX;
	if (!nq->o.late_ns)
		nq->o.late_ns = NAMING_LATE_NS;
	nq->notes_tail = &nq->notes;
	pthread_mutex_init(&nq->lock, NULL);
	pthread_mutex_init(&nq->namer, NULL);
	pthread_cond_init(&nq->wake, NULL);
	pthread_cond_init(&nq->done, NULL);
	return nq;
}

/* 0, or the errno of a thread not started (nq is freed then). */
static int naming__start(struct naming *nq)
{
	sigset_t all, old;
	int err;

	/* signals are the loop's (stop, reload): the worker takes none */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&nq->thread, NULL, naming__run, nq);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		naming__free(nq);
		errno = err;
		return err;
	}
	nq->started = true;
	return 0;
}

struct naming *naming__new(const struct naming_opts *o)
{
	struct naming *nq = naming__alloc(o);

	return nq && !naming__start(nq) ? nq : NULL;
}

/* Whether the worker stopped within wait_ns; joined if so. */
static bool naming__join(struct naming *nq, __u64 wait_ns)
{
	struct timespec ts = naming__abstime(wait_ns);
	bool stopped;

	pthread_mutex_lock(&nq->lock);
	nq->stop = true;
	pthread_cond_signal(&nq->wake);
	while (!nq->stopped && pthread_cond_timedwait(&nq->done, &nq->lock, &ts) != ETIMEDOUT)
		;
	stopped = nq->stopped;
	pthread_mutex_unlock(&nq->lock);
	if (stopped)
		pthread_join(nq->thread, NULL);
	return stopped;
}

bool naming__stop(struct naming *nq, __u64 wait_ns)
{
	stacks_maps_fn fn;
	void *ctx;

	if (!nq)
		return true;
	if (nq->stuck || (nq->started && !naming__join(nq, wait_ns))) {
		nq->stuck = true;
		return false;
	}
	nq->started = false;
	naming__flush_notes(nq);
	/* the resolver is the record side's again: it calls on_maps itself */
	if (nq->sk)
		stacks__set_on_maps(nq->sk, nq->on_maps, nq->on_maps_ctx, &fn, &ctx);
	nq->sk = NULL;
	return true;
}

/* ---- delivery, on the record side -------------------------------------- */

/*
 * The head, if it may go now: named, or given up on (all, the queue over
 * its bound, or waiting late_ns); then it goes without names.  Queue lock held.
 */
static struct item *naming__pop(struct naming *nq, bool all, __u64 now)
{
	struct item *it = nq->head;

	if (!it)
		return NULL;
	if (it->state != ITEM_READY) {
		if (!all && nq->n_items <= nq->o.queue_max && now - it->queued_ns < nq->o.late_ns)
			return NULL;
		nq->n_waiting--;
		nq->stats.late++;
		it->unnamed = true;
		/* the worker lets go of it when it is done; it never looks at it again */
		it->state = it->state == ITEM_NAMING ? ITEM_ABANDONED : ITEM_READY;
	} else if (!it->is_interval && !it->unnamed) {
		nq->stats.named++;
	}
	nq->head = it->next;
	if (!nq->head)
		nq->tail = NULL;
	__atomic_store_n(&nq->n_items, nq->n_items - 1, __ATOMIC_RELAXED);
	return it;
}

/* The copy without names: frames of addresses, saying why. */
static int naming__deliver_unnamed(struct naming *nq, const struct item *it)
{
	const char *note = "names not looked up: the naming queue was full or late (lockstall was busy naming)";
	struct ls_stall c = it->raw.st;
	unsigned int i;

	if (it->stacks[0]) {
		stacks__unnamed(it->stacks[0], &nq->unnamed_fr[0], nq->unnamed_v[0],
				STACKS_MAX_FRAMES, note);
		c.waiter_frames = &nq->unnamed_fr[0];
	}
	memcpy(nq->unnamed_holders, c.holders, c.n_holders * sizeof(c.holders[0]));
	for (i = 0; i < c.n_holders; i++) {
		if (!it->stacks[1 + i])
			continue;
		stacks__unnamed(it->stacks[1 + i], &nq->unnamed_fr[1 + i], nq->unnamed_v[1 + i],
				STACKS_MAX_FRAMES, note);
		nq->unnamed_holders[i].frames = &nq->unnamed_fr[1 + i];
	}
	c.holders = nq->unnamed_holders;
	return sink__stall(nq->inner, &c);
}

static int naming__deliver_one(struct naming *nq, struct item *it)
{
	if (it->is_interval)
		return sink__interval(nq->inner, &it->hist);
	if (it->unnamed || !it->has_names)
		return naming__deliver_unnamed(nq, it);
	return sink__stall(nq->inner, &it->named.st);
}

/* all: first let the worker name what waits, for wait_ns at most. */
static void naming__wait_named(struct naming *nq, __u64 wait_ns)
{
	struct timespec ts = naming__abstime(wait_ns);

	pthread_mutex_lock(&nq->lock);
	while (nq->n_waiting && !nq->stopped &&
	       pthread_cond_timedwait(&nq->done, &nq->lock, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&nq->lock);
}

int naming__deliver(struct naming *nq, bool all, __u64 wait_ns)
{
	__u64 now = ls_now_ns();
	struct item *it;
	int err = 0;

	if (__atomic_load_n(&nq->notes, __ATOMIC_RELAXED))
		naming__flush_notes(nq);
	if (!__atomic_load_n(&nq->n_items, __ATOMIC_RELAXED))
		return 0;
	if (all && wait_ns)
		naming__wait_named(nq, wait_ns);
	for (;;) {
		pthread_mutex_lock(&nq->lock);
		it = naming__pop(nq, all, now);
		pthread_mutex_unlock(&nq->lock);
		if (!it)
			break;
		/* an error stops the run, but what is queued is still delivered */
		if (!err)
			err = naming__deliver_one(nq, it);
		pthread_mutex_lock(&nq->lock);
		item__put(it);
		pthread_mutex_unlock(&nq->lock);
	}
	return err;
}

/* ---- the stage ---------------------------------------------------------- */

struct naming_sink {
	struct sink_pass pass;	/* first: the stage */
	struct naming *nq;
};

/* Unnamed, its STACK records keep their fixed part: the stack bytes are for unwinding. */
static void item__trim_stacks(struct item *it)
{
	struct ls_rec_stack *r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(it->stacks); i++) {
		if (!it->stacks[i] || it->stacks[i]->hdr.size <= sizeof(*r))
			continue;
		r = realloc(it->stacks[i], sizeof(*r));
		if (!r)
			continue;
		r->hdr.size = sizeof(*r);
		r->copy_len = 0;
		it->stacks[i] = r;
	}
	item__point_stacks(it);
}

/* Queue lock held: it goes last, to be named if fewer than queue wait. */
static void naming__push(struct naming *nq, struct item *it)
{
	it->queued_ns = ls_now_ns();
	if (it->is_interval) {
		/* nothing to name */
	} else if (nq->n_waiting >= nq->o.queue) {
		it->unnamed = true;
		it->state = ITEM_READY;
		nq->stats.queue_full++;
		item__trim_stacks(it);
	} else {
		it->state = ITEM_WAITING;
		if (++nq->n_waiting > nq->stats.max_waiting)
			nq->stats.max_waiting = nq->n_waiting;
		pthread_cond_signal(&nq->wake);
	}
	if (nq->tail)
		nq->tail->next = it;
	else
		nq->head = it;
	nq->tail = it;
	__atomic_store_n(&nq->n_items, nq->n_items + 1, __ATOMIC_RELAXED);
}

static int naming_sink__stall(struct sink_pass *p, const struct ls_stall *st)
{
	struct naming *nq = ((struct naming_sink *)p)->nq;
	struct item *it = item__new_stall(st);
	int err;

	if (!it) {
		/* no memory for a copy: what waits goes first, this one unnamed */
		err = naming__deliver(nq, true, 0);
		return err ?: sink__stall(p->inner, st);
	}
	pthread_mutex_lock(&nq->lock);
	naming__push(nq, it);
	pthread_mutex_unlock(&nq->lock);
	return naming__deliver(nq, false, 0);
}

static int naming_sink__interval(struct sink_pass *p, const struct ls_hist_set *h)
{
	struct naming *nq = ((struct naming_sink *)p)->nq;
	struct item *it;
	int err = naming__deliver(nq, false, 0);

	if (err || !__atomic_load_n(&nq->n_items, __ATOMIC_RELAXED))
		return err ?: sink__interval(p->inner, h);
	it = item__new_interval(h);
	if (!it)
		return naming__deliver(nq, true, 0) ?: sink__interval(p->inner, h);
	pthread_mutex_lock(&nq->lock);
	naming__push(nq, it);
	pthread_mutex_unlock(&nq->lock);
	return 0;
}

static int naming_sink__summary(struct sink_pass *p, const struct ls_summary *sum)
{
	struct naming *nq = ((struct naming_sink *)p)->nq;
	int err = naming__deliver(nq, true, nq->o.late_ns);
	struct ls_summary copy = *sum;

	copy.stalls_unnamed = naming__unnamed(nq);
	return err ?: sink__summary(p->inner, &copy);
}

static const struct sink_pass_ops naming_sink_ops = {
	.name = "naming",
	.stall = naming_sink__stall,
	.interval = naming_sink__interval,
	.summary = naming_sink__summary,
};

struct sink *sink_naming__new(struct sink *inner, struct naming *nq)
{
	struct naming_sink *ns = sink_pass__new(sizeof(*ns), &naming_sink_ops, inner);

	if (!ns)
		return NULL;
	ns->nq = nq;
	nq->inner = inner;
	return &ns->pass.base;
}

static void stacks_ops__name(void *ctx, const struct ls_stall *st, struct ls_stall *out,
			     struct ls_holder holders[LS_MAX_HOLDERS])
{
	stacks__name_stall(ctx, st, out, holders);
}

static void stacks_ops__reset(void *ctx)
{
	stacks__reset(ctx);
}

static void stacks_ops__collect(void *ctx)
{
	stacks__drain(ctx, 0);
}

static const struct naming_ops stacks_ops = {
	.name = stacks_ops__name,
	.reset = stacks_ops__reset,
	.collect = stacks_ops__collect,
};

struct naming *naming__new_stacks(struct stacks *sk)
{
	struct naming_opts o = { .ops = &stacks_ops, .ctx = sk };
	struct naming *nq = naming__alloc(&o);

	if (!nq)
		return NULL;
	/* before the worker starts: from then on, the worker's calls are noted */
	nq->sk = sk;
	stacks__set_on_maps(sk, naming__note_maps, nq, &nq->on_maps, &nq->on_maps_ctx);
	return naming__start(nq) ? NULL : nq;
}

void naming__free(struct naming *nq)
{
	struct item *it, *next;

	if (!nq)
		return;
	/* a worker stuck in a read keeps all of it: freed by exit */
	if (!naming__stop(nq, NAMING_STOP_NS))
		return;
	for (it = nq->head; it; it = next) {
		next = it->next;
		item__free(it);
	}
	naming__flush_notes(nq);
	pthread_mutex_destroy(&nq->lock);
	pthread_mutex_destroy(&nq->namer);
	pthread_cond_destroy(&nq->wake);
	pthread_cond_destroy(&nq->done);
	free(nq);
}

void naming__stats(struct naming *nq, struct naming_stats *st)
{
	pthread_mutex_lock(&nq->lock);
	*st = nq->stats;
	pthread_mutex_unlock(&nq->lock);
}

__u64 naming__unnamed(struct naming *nq)
{
	struct naming_stats st;

	if (!nq)
		return 0;
	naming__stats(nq, &st);
	return st.queue_full + st.late;
}

bool naming__lock(struct naming *nq, __u64 wait_ns)
{
	struct timespec ts = naming__abstime(wait_ns);

	if (!wait_ns)
		return !pthread_mutex_trylock(&nq->namer);
	return !pthread_mutex_timedlock(&nq->namer, &ts);
}

void naming__unlock(struct naming *nq)
{
	pthread_mutex_unlock(&nq->namer);
}
