// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fleet__merge(): the recordings (fleet_model.c) into rows per host,
 * rankings, histograms, the worst stalls and the overlaps.  Every order is
 * total (ties broken by name, then host), so the same files give the same
 * report whatever order the threads finished in.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/fleet.h"

static int rec_cmp(const void *a, const void *b)
{
	const struct fleet_rec *x = *(const struct fleet_rec *const *)a;
	const struct fleet_rec *y = *(const struct fleet_rec *const *)b;
	int c = strcmp(x->host, y->host);

	if (c)
		return c;
	c = strcmp(x->boot_id, y->boot_id);
	if (c)
		return c;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->file, y->file);
}

/* A stall's identity in its boot: the waiter's tid, then its start. */
static int stall_cmp(const void *a, const void *b)
{
	const struct fleet_stall *x = a, *y = b;

	if (x->waiter_tid != y->waiter_tid)
		return x->waiter_tid < y->waiter_tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return 0;
}

/*
 * One boot: the same boot id; without one (older recordings), the same
 * wall-clock offset, which stays put within a boot but for clock steps.
 */
static bool same_boot(const struct fleet_rec *a, const struct fleet_rec *b)
{
	long long d = a->offset_ns - b->offset_ns;

	if (strcmp(a->host, b->host))
		return false;
	if (a->boot_id[0] || b->boot_id[0])
		return !strcmp(a->boot_id, b->boot_id);
	return a->has_clock && b->has_clock && d < FLEET_SAME_OFFSET_NS && d > -FLEET_SAME_OFFSET_NS;
}

/* b's stalls that a (earlier, overlapping) holds too are b's repeats. */
static __u64 mark_dups(const struct fleet_rec *a, struct fleet_rec *b)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < b->n_stalls; i++) {
		if (b->stalls[i].dup || !bsearch(&b->stalls[i], a->stalls, a->n_stalls,
						 sizeof(*a->stalls), stall_cmp))
			continue;
		b->stalls[i].dup = true;
		n++;
	}
	return n;
}

static int fleet__overlap(struct fleet *f, struct fleet_rec *a, struct fleet_rec *b)
{
	struct fleet_overlap *o;

	o = reallocarray(f->overlaps, f->n_overlaps + 1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	f->overlaps = o;
	o += f->n_overlaps++;
	o->a = a;
	o->b = b;
	o->dup_stalls = mark_dups(a, b);
	/* cumulative histograms of one boot's overlapping spans: the longer one's only */
	if (b->end_ns - b->start_ns > a->end_ns - a->start_ns)
		a->hists_left_out = true;
	else
		b->hists_left_out = true;
	return 0;
}

/* Recordings sorted by host, boot, start: assign rows, find the overlaps. */
static int fleet__rows(struct fleet *f)
{
	struct fleet_rec *r, *p;
	size_t i, j;

	for (i = 0; i < f->n_recs; i++)
		qsort(f->recs[i]->stalls, f->recs[i]->n_stalls, sizeof(struct fleet_stall), stall_cmp);
	qsort(f->recs, f->n_recs, sizeof(*f->recs), rec_cmp);
	f->rows = calloc(f->n_recs ? f->n_recs : 1, sizeof(*f->rows));
	if (!f->rows)
		return -ENOMEM;
	for (i = 0; i < f->n_recs; i++) {
		r = f->recs[i];
		if (!i || strcmp(f->recs[i - 1]->host, r->host))
			f->rows[f->n_rows++].host = r->host;
		r->row = (unsigned int)f->n_rows - 1;
		for (j = i; j-- > 0 && same_boot(f->recs[j], r);) {
			p = f->recs[j];
			if (p->end_ns > r->start_ns && fleet__overlap(f, p, r))
				return -ENOMEM;
		}
	}
	return 0;
}

static void fleet__row_add(struct fleet *f, struct fleet_row *w, const struct fleet_rec *r)
{
	__u64 first = fleet_rec__utc(r, r->start_ns), last = fleet_rec__utc(r, r->end_ns);
	size_t i;

	w->recordings++;
	/* an overlapped recording's losses are of the span the other one covers */
	if (!r->hists_left_out)
		w->lost_events += r->lost_events;
	w->stalls_dropped += r->stalls_dropped;
	w->damaged += r->damage != 0;
	w->kernel = r->kernel;
	w->version = r->version;
	w->has_clock = r->has_clock;
	if (r->has_clock) {
		if (!w->first_utc_ns || first < w->first_utc_ns)
			w->first_utc_ns = first;
		if (last > w->last_utc_ns)
			w->last_utc_ns = last;
		if (!f->first_utc_ns || first < f->first_utc_ns)
			f->first_utc_ns = first;
		if (last > f->last_utc_ns)
			f->last_utc_ns = last;
	} else {
		f->all_clocks = false;
	}
	for (i = 0; i < r->n_stalls; i++) {
		if (r->stalls[i].dup) {
			f->dup_stalls++;
			continue;
		}
		w->stalls++;
		if (r->stalls[i].lock_wait_ns > w->worst_ns)
			w->worst_ns = r->stalls[i].lock_wait_ns;
	}
	if (!r->hists_left_out)
		f->lost_events += r->lost_events;
}

/* ---- rankings --------------------------------------------------------- */

/* name: a comm (LS_COMM_LEN bytes, maybe without NUL) or a cgroup path's text */
struct credit {
	const char *name;
	size_t max;		/* bytes of name compared */
	unsigned int row;
	__u64 ns;
};

static int credit_name_cmp(const struct credit *x, const struct credit *y)
{
	return strncmp(x->name, y->name, x->max);
}

static int credit_cmp(const void *a, const void *b)
{
	const struct credit *x = a, *y = b;
	int c = credit_name_cmp(x, y);

	if (c)
		return c;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int rank_cmp(const void *a, const void *b)
{
	const struct fleet_rank *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The name a stall credits in a ranking: a field of struct fleet_stall. */
enum rank_by { BY_HOLDER, BY_HOLDER_CGROUP, BY_WAITER, BY_WAITER_CGROUP };

static const char *credit_name(const struct fleet_rec *r, const struct fleet_stall *s,
			       enum rank_by by)
{
	switch (by) {
	case BY_HOLDER:
		return s->holder_tid ? s->holder : NULL;
	case BY_HOLDER_CGROUP:
		return fleet_rec__cgroup(r, s->holder_cg);
	case BY_WAITER:
		return s->waiter;
	default:
		return fleet_rec__cgroup(r, s->waiter_cg);
	}
}

static size_t fleet__credits(const struct fleet *f, enum rank_by by, size_t max, struct credit *c)
{
	const struct fleet_stall *s;
	size_t i, j, n = 0;

	for (i = 0; i < f->n_recs; i++) {
		for (j = 0; j < f->recs[i]->n_stalls; j++) {
			s = &f->recs[i]->stalls[j];
			if (s->dup || !credit_name(f->recs[i], s, by))
				continue;
			c[n++] = (struct credit){ credit_name(f->recs[i], s, by), max, f->recs[i]->row,
						  s->lock_wait_ns };
		}
	}
	return n;
}

/* A host's own culprit: the command that cost it most (ties: the first by name). */
static void row_culprit(struct fleet_row *w, const char *comm, __u64 ns)
{
	if (ns <= w->top_culprit_ns)
		return;
	w->top_culprit_ns = ns;
	ls_comm_text(comm, w->top_culprit, sizeof(w->top_culprit));
}

static int fleet__rank(struct fleet *f, enum rank_by by, struct fleet_ranks *out)
{
	struct credit *c = calloc(f->stalls ? f->stalls : 1, sizeof(*c));
	size_t max = by == BY_HOLDER || by == BY_WAITER ? LS_COMM_LEN : (size_t)-1;
	struct fleet_rank *k = NULL;
	size_t i, n;
	__u64 row_ns = 0;

	if (!c)
		return -ENOMEM;
	n = fleet__credits(f, by, max, c);
	qsort(c, n, sizeof(*c), credit_cmp);
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->v) {
		free(c);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!k || credit_name_cmp(&c[i - 1], &c[i])) {
			k = &out->v[out->n++];
			ls_text(c[i].name, max, k->name, sizeof(k->name));
		}
		k->ns += c[i].ns;
		k->stalls++;
		if (k->last_row != c[i].row + 1) {
			k->hosts++;
			k->last_row = c[i].row + 1;
			row_ns = 0;
		}
		row_ns += c[i].ns;
		if (by == BY_HOLDER)
			row_culprit(&f->rows[c[i].row], c[i].name, row_ns);
	}
	qsort(out->v, out->n, sizeof(*out->v), rank_cmp);
	free(c);
	return 0;
}

/* ---- histograms, worst stalls ----------------------------------------- */

static int hist_key_cmp(const struct fleet_hist *x, const struct fleet_hist *y)
{
	int c = memcmp(x->hist.comm, y->hist.comm, LS_COMM_LEN);

	if (c)
		return c;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->write < y->write ? -1 : x->write > y->write;
}

static int hist_cmp(const void *a, const void *b)
{
	const struct fleet_hist *x = a, *y = b;
	int c = hist_key_cmp(x, y);

	if (c)
		return c;
	return x->last_row < y->last_row ? -1 : x->last_row > y->last_row;
}

static int hist_time_cmp(const void *a, const void *b)
{
	const struct fleet_hist *x = a, *y = b;

	if (x->hist.sum_ns != y->hist.sum_ns)
		return x->hist.sum_ns > y->hist.sum_ns ? -1 : 1;
	return hist_key_cmp(x, y);
}

/* Every recording's histograms (but those left out), each stamped with its row. */
static struct fleet_hist *fleet__all_hists(const struct fleet *f, size_t *n)
{
	struct fleet_hist *all;
	size_t i, j, total = 0;

	for (i = 0; i < f->n_recs; i++)
		total += f->recs[i]->n_hists;
	all = calloc(total ? total : 1, sizeof(*all));
	if (!all)
		return NULL;
	*n = 0;
	for (i = 0; i < f->n_recs; i++) {
		for (j = 0; !f->recs[i]->hists_left_out && j < f->recs[i]->n_hists; j++) {
			all[*n] = f->recs[i]->hists[j];
			all[(*n)++].last_row = f->recs[i]->row;
		}
	}
	return all;
}

static int fleet__hists(struct fleet *f)
{
	struct fleet_hist *all, *h = NULL;
	size_t i, n;

	all = fleet__all_hists(f, &n);
	if (!all)
		return -ENOMEM;
	qsort(all, n, sizeof(*all), hist_cmp);
	for (i = 0; i < n; i++) {
		if (!h || hist_key_cmp(h, &all[i])) {
			h = &all[f->n_hists++];
			if (h != &all[i])
				*h = all[i];
			h->hosts = 1;
			h->last_row = all[i].last_row;
			continue;
		}
		fleet_hist__add(&h->hist, &all[i].hist);
		h->hosts += h->last_row != all[i].last_row;
		h->last_row = all[i].last_row;
	}
	qsort(all, f->n_hists, sizeof(*all), hist_time_cmp);
	f->hists = all;
	return 0;
}

/* Longest lock wait first; among equals, by host, then the earlier. */
static bool worse(const struct fleet_worst *a, const struct fleet_worst *b)
{
	int c;

	if (a->st->lock_wait_ns != b->st->lock_wait_ns)
		return a->st->lock_wait_ns > b->st->lock_wait_ns;
	c = strcmp(a->rec->host, b->rec->host);
	if (c)
		return c < 0;
	return a->st->start_ns < b->st->start_ns;
}

static void fleet__worst_one(struct fleet *f, struct fleet_worst w)
{
	unsigned int i;

	if (f->n_worst == FLEET_MAX_WORST && !worse(&w, &f->worst[f->n_worst - 1]))
		return;
	i = f->n_worst < FLEET_MAX_WORST ? f->n_worst++ : f->n_worst - 1;
	for (; i > 0 && worse(&w, &f->worst[i - 1]); i--)
		f->worst[i] = f->worst[i - 1];
	f->worst[i] = w;
}

static void fleet__worst(struct fleet *f)
{
	size_t i, j;

	for (i = 0; i < f->n_recs; i++) {
		for (j = 0; j < f->recs[i]->n_stalls; j++) {
			if (!f->recs[i]->stalls[j].dup)
				fleet__worst_one(f, (struct fleet_worst){ f->recs[i],
									  &f->recs[i]->stalls[j] });
		}
	}
}

int fleet__merge(struct fleet *f)
{
	size_t i;

	f->all_clocks = true;
	if (fleet__rows(f))
		return -ENOMEM;
	for (i = 0; i < f->n_recs; i++)
		fleet__row_add(f, &f->rows[f->recs[i]->row], f->recs[i]);
	for (i = 0; i < f->n_rows; i++)
		f->stalls += f->rows[i].stalls;
	if (fleet__rank(f, BY_HOLDER, &f->culprits) ||
	    fleet__rank(f, BY_HOLDER_CGROUP, &f->culprit_services) ||
	    fleet__rank(f, BY_WAITER, &f->victims) ||
	    fleet__rank(f, BY_WAITER_CGROUP, &f->victim_services) || fleet__hists(f))
		return -ENOMEM;
	fleet__worst(f);
	return 0;
}
