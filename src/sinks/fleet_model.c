// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See fleet.h.  A recording's summary is filled by one thread only (its
 * session's); the fleet is merged by one thread once every recording is in.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/fleet.h"
#include "sinks/sink_common.h"

/* Grow *v (elements of size sz) to hold one more; 0 or -ENOMEM. */
static int fleet__grow(void **v, size_t *alloc, size_t n, size_t sz)
{
	size_t a = *alloc ? *alloc * 2 : 16;
	void *p;

	if (n < *alloc)
		return 0;
	p = reallocarray(*v, a, sz);
	if (!p)
		return -ENOMEM;
	*v = p;
	*alloc = a;
	return 0;
}

struct fleet_rec *fleet_rec__new(const char *file)
{
	struct fleet_rec *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->file = strdup(file);
	if (!r->file) {
		free(r);
		return NULL;
	}
	return r;
}

void fleet_rec__free(struct fleet_rec *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_cgs; i++)
		free(r->cgs[i].path);
	free(r->cgs);
	free(r->stalls);
	free(r->hists);
	free(r->note);
	free(r->file);
	free(r);
}

void fleet_rec__meta(struct fleet_rec *r, const char *key, const char *val)
{
	static const struct {
		const char *key;
		size_t off, len;
	} keys[] = {
		{ "host", offsetof(struct fleet_rec, host), sizeof(r->host) },
		{ "boot_id", offsetof(struct fleet_rec, boot_id), sizeof(r->boot_id) },
		{ "kernel.release", offsetof(struct fleet_rec, kernel), sizeof(r->kernel) },
		{ "lockstall.version", offsetof(struct fleet_rec, version), sizeof(r->version) },
	};
	size_t i;

	for (i = 0; val && i < ARRAY_SIZE(keys); i++) {
		if (!strcmp(key, keys[i].key))
			ls_text(val, 256, (char *)r + keys[i].off, keys[i].len);
	}
}

/* A cgroup id as 1 + its index in r->cgs, added if new; 0: unknown, too many, no memory. */
static __u16 fleet_rec__cg(struct fleet_rec *r, __u64 id)
{
	struct fleet_cgroup *c;
	size_t i;

	if (!id)
		return 0;
	/* a recording's stalls name few cgroups, the same ones again and again */
	for (i = r->n_cgs; i-- > 0;) {
		if (r->cgs[i].id == id)
			return (__u16)(i + 1);
	}
	if (r->n_cgs == FLEET_MAX_CGROUPS)
		return 0;
	c = reallocarray(r->cgs, r->n_cgs + 1, sizeof(*c));
	if (!c)
		return 0;
	r->cgs = c;
	r->cgs[r->n_cgs] = (struct fleet_cgroup){ .id = id };
	return (__u16)++r->n_cgs;
}

int fleet_rec__cgroup_paths(struct fleet_rec *r, const char *(*path)(void *ctx, __u64 id),
			    void *ctx)
{
	const char *p;
	size_t i;

	for (i = 0; i < r->n_cgs; i++) {
		p = path(ctx, r->cgs[i].id);
		if (!p || r->cgs[i].path)
			continue;
		r->cgs[i].path = strdup(p);
		if (!r->cgs[i].path)
			return -ENOMEM;
	}
	return 0;
}

const char *fleet_rec__cgroup(const struct fleet_rec *r, __u16 cg)
{
	return cg && cg <= r->n_cgs ? r->cgs[cg - 1].path : NULL;
}

int fleet_rec__stall(struct fleet_rec *r, const struct ls_stall *st)
{
	struct fleet_stall *s;

	if (st->pending) {
		r->open_at_end += st->at_exit;
		return 0;
	}
	if (r->n_stalls == FLEET_MAX_STALLS) {
		r->stalls_dropped++;
		return 0;
	}
	if (fleet__grow((void **)&r->stalls, &r->alloc_stalls, r->n_stalls, sizeof(*s)))
		return -ENOMEM;
	s = &r->stalls[r->n_stalls++];
	memset(s, 0, sizeof(*s));
	s->start_ns = st->start_ns;
	s->lock_wait_ns = st->lock_wait_ns;
	s->lock = st->lock;
	s->waiter_tid = st->waiter.tid;
	s->waiter_tgid = st->waiter.tgid;
	s->verdict = (__u8)st->verdict;
	s->cause = (__u8)st->cause;
	memcpy(s->waiter, st->waiter.comm, LS_COMM_LEN);
	s->waiter_cg = fleet_rec__cg(r, st->waiter_cgroup_id);
	if (st->n_holders) {
		s->holder_tid = st->holders[0].task.tid;
		s->holder_tgid = st->holders[0].task.tgid;
		memcpy(s->holder, st->holders[0].task.comm, LS_COMM_LEN);
		s->holder_cg = fleet_rec__cg(r, st->holders[0].cgroup_id);
	}
	return 0;
}

void fleet_stall__names(const struct fleet_stall *s, struct fleet_names *n)
{
	ls_comm_text(s->waiter, n->waiter, sizeof(n->waiter));
	n->holder[0] = '\0';
	if (s->holder_tid)
		ls_comm_text(s->holder, n->holder, sizeof(n->holder));
	sink__lock_text(&s->lock, n->lock, sizeof(n->lock));
}

void fleet_hist__add(struct ls_hist *to, const struct ls_hist *h)
{
	unsigned int i;

	to->count += h->count;
	to->sum_ns += h->sum_ns;
	for (i = 0; i < LS_HIST_SLOTS; i++)
		to->slots[i] += h->slots[i];
}

static bool fleet__wait_kind(unsigned int kind)
{
	return kind == LS_HIST_WAIT || kind >= LS_HIST_WAIT_FUTEX;
}

/* Sum e into the recording's histogram of its command, kind and mode. */
static int fleet_rec__hist(struct fleet_rec *r, const struct ls_hist_entry *e)
{
	struct fleet_hist *h = NULL;
	size_t i;

	for (i = 0; i < r->n_hists && !h; i++) {
		if (r->hists[i].kind == e->key.kind && r->hists[i].write == e->key.write &&
		    !memcmp(r->hists[i].hist.comm, e->hist.comm, LS_COMM_LEN))
			h = &r->hists[i];
	}
	if (!h) {
		if (fleet__grow((void **)&r->hists, &r->alloc_hists, r->n_hists, sizeof(*h)))
			return -ENOMEM;
		h = &r->hists[r->n_hists++];
		memset(h, 0, sizeof(*h));
		memcpy(h->hist.comm, e->hist.comm, LS_COMM_LEN);
		h->kind = e->key.kind;
		h->write = e->key.write;
	}
	fleet_hist__add(&h->hist, &e->hist);
	return 0;
}

/* pid: -p, the histograms of that process only (0: all). */
static int fleet_rec__take_summary(struct fleet_rec *r, const struct ls_summary *sum, __u32 pid)
{
	const struct ls_hist_entry *e;
	size_t i;

	/* the stalls are all in: give back what the doubling left over */
	if (r->n_stalls && r->n_stalls < r->alloc_stalls) {
		struct fleet_stall *v = reallocarray(r->stalls, r->n_stalls, sizeof(*v));

		if (v) {
			r->stalls = v;
			r->alloc_stalls = r->n_stalls;
		}
	}
	r->start_ns = sum->start_ns;
	r->end_ns = sum->end_ns;
	r->lost_events = sum->lost_events;
	for (i = 0; sum->hists && i < sum->hists->n; i++) {
		e = &sum->hists->v[i];
		if (!fleet__wait_kind(e->key.kind) || !e->hist.count || (pid && e->key.tgid != pid))
			continue;
		if (fleet_rec__hist(r, e))
			return -ENOMEM;
	}
	return 0;
}

int fleet_rec__summary(struct fleet_rec *r, const struct ls_summary *sum)
{
	return fleet_rec__take_summary(r, sum, 0);
}

__u64 fleet_rec__utc(const struct fleet_rec *r, __u64 mono_ns)
{
	return r->has_clock ? (__u64)((long long)mono_ns + r->offset_ns) : 0;
}

/* ---- the sink a recording's session writes to ------------------------ */

struct fleet_sink {
	struct sink base;
	struct fleet_rec *rec;
};

static int fleet_sink__stall(struct sink *s, const struct ls_stall *st)
{
	return fleet_rec__stall(((struct fleet_sink *)s)->rec, st);
}

static int fleet_sink__summary(struct sink *s, const struct ls_summary *sum)
{
	return fleet_rec__take_summary(((struct fleet_sink *)s)->rec, sum, s->opts.filter_pid);
}

static void fleet_sink__free(struct sink *s)
{
	free(s);
}

static const struct sink_ops fleet_sink_ops = {
	.name = "fleet",
	.stall = fleet_sink__stall,
	.summary = fleet_sink__summary,
	.free = fleet_sink__free,
};

struct sink *fleet_rec__sink(struct fleet_rec *r, const struct sink_opts *opts)
{
	struct fleet_sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	sink__init(&s->base, &fleet_sink_ops, NULL, opts);
	s->rec = r;
	return &s->base;
}

/* ---- the fleet ------------------------------------------------------- */

void fleet__init(struct fleet *f)
{
	memset(f, 0, sizeof(*f));
}

int fleet__add(struct fleet *f, struct fleet_rec *r)
{
	if (fleet__grow((void **)&f->recs, &f->alloc_recs, f->n_recs, sizeof(*f->recs))) {
		fleet_rec__free(r);
		return -ENOMEM;
	}
	f->recs[f->n_recs++] = r;
	return 0;
}

int fleet__bad(struct fleet *f, const char *file, const char *why)
{
	struct fleet_bad *b;

	if (fleet__grow((void **)&f->bad, &f->alloc_bad, f->n_bad, sizeof(*b)))
		return -ENOMEM;
	b = &f->bad[f->n_bad];
	b->file = strdup(file);
	b->why = strdup(why);
	if (!b->file || !b->why) {
		free(b->file);
		free(b->why);
		return -ENOMEM;
	}
	f->n_bad++;
	return 0;
}

void fleet__free(struct fleet *f)
{
	size_t i;

	for (i = 0; i < f->n_recs; i++)
		fleet_rec__free(f->recs[i]);
	for (i = 0; i < f->n_bad; i++) {
		free(f->bad[i].file);
		free(f->bad[i].why);
	}
	free(f->recs);
	free(f->bad);
	free(f->rows);
	free(f->culprits.v);
	free(f->culprit_services.v);
	free(f->victims.v);
	free(f->victim_services.v);
	free(f->hists);
	free(f->overlaps);
	memset(f, 0, sizeof(*f));
}
