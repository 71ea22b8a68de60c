// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which histograms the outputs show, and how they are cut: one per command
 * name (or per process), the quiet ones counted, most total time first.
 * The text, JSON, Markdown and HTML sinks all select here, so every format
 * shows the same histograms in the same order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/sink_common.h"

/* comm as the kernel gives it: at most LS_COMM_LEN bytes, NUL-terminated when shorter. */
static int comm_cmp(const char *a, const char *b)
{
	size_t la = strnlen(a, LS_COMM_LEN), lb = strnlen(b, LS_COMM_LEN);
	int c = memcmp(a, b, la < lb ? la : lb);

	if (c)
		return c;
	return la < lb ? -1 : la > lb;
}

/* Members of one view next to each other (mode, then name), most time first in it. */
static int member_cmp(const void *a, const void *b)
{
	const struct ls_hist_entry *x = *(const struct ls_hist_entry *const *)a;
	const struct ls_hist_entry *y = *(const struct ls_hist_entry *const *)b;
	int c;

	if (x->key.write != y->key.write)
		return x->key.write < y->key.write ? -1 : 1;
	c = comm_cmp(x->hist.comm, y->hist.comm);
	if (c)
		return c;
	if (x->hist.sum_ns != y->hist.sum_ns)
		return x->hist.sum_ns > y->hist.sum_ns ? -1 : 1;
	return x->key.tgid < y->key.tgid ? -1 : x->key.tgid > y->key.tgid;
}

/*
 * Most total time first: that is where the time went.  Ties fall back to
 * count, name, mode and pid, so the order never depends on map iteration.
 */
static int view_cmp(const void *a, const void *b)
{
	const struct hist_view *x = a, *y = b;
	int c;

	if (x->hist.sum_ns != y->hist.sum_ns)
		return x->hist.sum_ns > y->hist.sum_ns ? -1 : 1;
	if (x->hist.count != y->hist.count)
		return x->hist.count > y->hist.count ? -1 : 1;
	c = comm_cmp(x->hist.comm, y->hist.comm);
	if (c)
		return c;
	if (x->key.write != y->key.write)
		return x->key.write < y->key.write ? -1 : 1;
	return x->key.tgid < y->key.tgid ? -1 : x->key.tgid > y->key.tgid;
}

static bool same_view(const struct ls_hist_entry *a, const struct ls_hist_entry *b, bool per_pid)
{
	return !per_pid && a->key.write == b->key.write && !comm_cmp(a->hist.comm, b->hist.comm);
}

static void view__add(struct hist_view *v, const struct ls_hist_entry *e)
{
	unsigned int i;

	if (!v->processes || (!v->n_pids && !e->procs)) {
		/* key.tgid: a live process's, the one with most time */
		v->key = e->key;
		memcpy(v->hist.comm, e->hist.comm, sizeof(v->hist.comm));
	}
	/* an entry with procs is the engine's sum of exited processes of one name */
	v->processes += e->procs ? e->procs : 1;
	v->exited += e->procs;
	if (!e->procs && v->n_pids < HIST_VIEW_PIDS)
		v->pids[v->n_pids++] = e->key.tgid;
	v->hist.count += e->hist.count;
	v->hist.sum_ns += e->hist.sum_ns;
	for (i = 0; i < LS_HIST_SLOTS; i++)
		v->hist.slots[i] += e->hist.slots[i];
}

/*
 * Quiet: no sample in it may have reached min_ns.  Slot i holds
 * [2^(i-1), 2^i) us and the last one everything longer, so a slot whose
 * upper bound is above min_ns may hold one.
 */
static bool view__quiet(const struct hist_view *v, __u64 min_ns)
{
	int i;

	if (!min_ns)
		return false;
	for (i = LS_HIST_SLOTS - 1; i >= 0; i--) {
		if (v->hist.slots[i])
			return i < LS_HIST_SLOTS - 1 && (1000ULL << i) <= min_ns;
	}
	return true;
}

/* An entry the options let through: of kind, with time in it, of the pid asked for. */
static bool entry__wanted(const struct ls_hist_entry *e, unsigned int kind,
			  const struct sink_opts *opts)
{
	/*
	 * No time in it says nothing: the kernel counts every hold in the
	 * off-CPU histogram, also those that never left the CPU.
	 */
	if (e->key.kind != kind || !e->hist.count || !e->hist.sum_ns)
		return false;
	return !opts->filter_pid || e->key.tgid == opts->filter_pid;
}

/*
 * Some lock wait, of any process, may have reached opts->hist_min_ns.
 * Holds only matter when someone waited (-p of a holder still wants its
 * holds when another process waited on it).
 */
static bool hist__waited(const struct ls_hist_set *h, const struct sink_opts *opts)
{
	struct sink_opts all = *opts;
	struct hist_view one;
	size_t i;

	all.filter_pid = 0;
	for (i = 0; i < h->n; i++) {
		if (!entry__wanted(&h->v[i], LS_HIST_WAIT, &all))
			continue;
		memset(&one, 0, sizeof(one));
		view__add(&one, &h->v[i]);
		if (!view__quiet(&one, opts->hist_min_ns))
			return true;
	}
	return false;
}

/* The entries of kind the options let through, members of one view next to each other. */
static const struct ls_hist_entry **hist__members(const struct ls_hist_set *h, unsigned int kind,
						  const struct sink_opts *opts, size_t *n)
{
	const struct ls_hist_entry **m = calloc(h->n, sizeof(*m));
	size_t i, k = 0;

	if (!m)
		return NULL;
	for (i = 0; i < h->n; i++) {
		if (entry__wanted(&h->v[i], kind, opts))
			m[k++] = &h->v[i];
	}
	qsort(m, k, sizeof(*m), member_cmp);
	*n = k;
	return m;
}

int hist__select(const struct ls_hist_set *h, unsigned int kind, const struct sink_opts *opts,
		 struct hist_sel *sel)
{
	const struct ls_hist_entry **m;
	size_t n, i, k = 0;

	memset(sel, 0, sizeof(*sel));
	if (!h || !h->n)
		return 0;
	m = hist__members(h, kind, opts, &n);
	if (!m)
		return -ENOMEM;
	/* Holds and off-CPU spells are mmap_lock's: shown when its waits are. */
	if (ls_hist_lock_kind(kind) < 0 && opts->hist_min_ns && !hist__waited(h, opts)) {
		/* each member once: what --hist-min 0 would show, counted */
		sel->no_wait = true;
		for (i = 0; i < n; i++)
			sel->n_quiet += !i || !same_view(m[i - 1], m[i], opts->per_pid);
		free(m);
		return 0;
	}
	sel->v = calloc(n ? n : 1, sizeof(*sel->v));
	if (!sel->v) {
		free(m);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (i && !same_view(m[i - 1], m[i], opts->per_pid)) {
			if (view__quiet(&sel->v[k], opts->hist_min_ns)) {
				memset(&sel->v[k], 0, sizeof(sel->v[k]));
				sel->n_quiet++;
			} else {
				k++;
			}
		}
		view__add(&sel->v[k], m[i]);
	}
	if (n && view__quiet(&sel->v[k], opts->hist_min_ns))
		sel->n_quiet++;
	else if (n)
		k++;
	free(m);
	qsort(sel->v, k, sizeof(*sel->v), view_cmp);
	if (opts->top && k > opts->top) {
		sel->n_more = k - opts->top;
		k = opts->top;
	}
	sel->n = k;
	return 0;
}

void hist_sel__release(struct hist_sel *sel)
{
	free(sel->v);
	memset(sel, 0, sizeof(*sel));
}
