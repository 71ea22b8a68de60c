// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* See sink.h. */
#include <stdlib.h>
#include "top/sink.h"

struct top_sink {
	struct sink base;
	struct top_model *model;
	int (*refresh)(void *ctx, __u64 t0_ns, __u64 now_ns);
	void *ctx;
};

static int top_sink__stall(struct sink *s, const struct ls_stall *st)
{
	struct top_sink *t = (struct top_sink *)s;

	return st->pending ? top_model__pending(t->model, st) : top_model__stall(t->model, st);
}

static int top_sink__interval(struct sink *s, const struct ls_hist_set *h)
{
	struct top_sink *t = (struct top_sink *)s;

	return t->refresh ? t->refresh(t->ctx, s->opts.t0_ns, h->end_ns) : 0;
}

static void top_sink__free(struct sink *s)
{
	free(s);
}

static const struct sink_ops top_sink_ops = {
	.name = "top",
	.stall = top_sink__stall,
	.interval = top_sink__interval,
	.free = top_sink__free,
};

struct sink *sink_top__new(struct top_model *m, const struct sink_opts *opts,
			   int (*refresh)(void *ctx, __u64 t0_ns, __u64 now_ns), void *ctx)
{
	struct top_sink *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	sink__init(&t->base, &top_sink_ops, NULL, opts);
	t->model = m;
	t->refresh = refresh;
	t->ctx = ctx;
	return &t->base;
}
