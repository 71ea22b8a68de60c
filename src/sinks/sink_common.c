// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Histogram selection and stream errors, shared by the text and JSON sinks
 * so both print the same histograms in the same order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/sink_common.h"

/*
 * Most total time first: that is where the time went.  Ties fall back to
 * count, then pid and mode, so the order never depends on map iteration.
 */
static int hist_cmp(const void *a, const void *b)
{
	const struct ls_hist_entry *x = *(const struct ls_hist_entry *const *)a;
	const struct ls_hist_entry *y = *(const struct ls_hist_entry *const *)b;

	if (x->hist.sum_ns != y->hist.sum_ns)
		return x->hist.sum_ns > y->hist.sum_ns ? -1 : 1;
	if (x->hist.count != y->hist.count)
		return x->hist.count > y->hist.count ? -1 : 1;
	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	if (x->key.write != y->key.write)
		return x->key.write < y->key.write ? -1 : 1;
	return 0;
}

int hist__select(const struct ls_hist_set *h, unsigned int kind, const struct sink_opts *opts,
		 const struct ls_hist_entry ***out, size_t *n, size_t *n_more)
{
	const struct ls_hist_entry **v = NULL;
	size_t i, k = 0;

	*out = NULL;
	*n = 0;
	*n_more = 0;
	if (!h || !h->n)
		return 0;
	v = calloc(h->n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < h->n; i++) {
		const struct ls_hist_entry *e = &h->v[i];

		/*
		 * No time in it says nothing: the kernel counts every hold in
		 * the off-CPU histogram, also those that never left the CPU.
		 */
		if (e->key.kind != kind || !e->hist.count || !e->hist.sum_ns)
			continue;
		if (opts->filter_pid && e->key.tgid != opts->filter_pid)
			continue;
		v[k++] = e;
	}
	qsort(v, k, sizeof(*v), hist_cmp);
	if (opts->top && k > opts->top) {
		*n_more = k - opts->top;
		k = opts->top;
	}
	*out = v;
	*n = k;
	return 0;
}

/*
 * errno is not cleared first: when a write inside an earlier fprintf failed,
 * the error flag is set and errno still says why (EPIPE after "| head").
 */
int sink__flush(FILE *f)
{
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	return errno == EPIPE ? -EPIPE : -EIO;
}

/*
 * The priority a task would have without priority inheritance, to tell when
 * task->prio shows a boost (it can hold an rt_mutex besides mmap_lock).
 */
static int sink__normal_prio(const struct ls_task *t)
{
	switch (t->policy) {
	case LS_POLICY_FIFO:
	case LS_POLICY_RR:
		return 99 - t->rt_prio;
	case LS_POLICY_DEADLINE:
		return -1;
	}
	return 120 + t->nice;
}

const char *sink__sched_text(const struct ls_task *t, char *buf, size_t len)
{
	const char *name = ls_policy_name(t->policy);
	size_t i, n;
	int w;

	if (!strcmp(name, "unknown")) {
		w = snprintf(buf, len, "policy %u", t->policy);
	} else {
		w = snprintf(buf, len, "SCHED_");
		for (i = 0, n = (size_t)w; name[i] && n + 1 < len; i++, n++)
			buf[n] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
		buf[n] = '\0';
		w = (int)n;
	}
	if (w < 0 || (size_t)w >= len)
		return buf;
	if (t->policy == LS_POLICY_FIFO || t->policy == LS_POLICY_RR)
		w += snprintf(buf + w, len - w, " rt %u", t->rt_prio);
	else if (t->policy == LS_POLICY_NORMAL || t->policy == LS_POLICY_BATCH)
		w += snprintf(buf + w, len - w, " nice %d", t->nice);
	if ((size_t)w < len && t->prio < sink__normal_prio(t))
		snprintf(buf + w, len - w, " boosted to prio %d", t->prio);
	return buf;
}
