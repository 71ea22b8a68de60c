// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The stages' one struct sink_ops (sink.h): each call goes to the stage's
 * own op if it has one, else on to the sink behind it.
 */
#include <stdlib.h>
#include "engine/sink.h"

static int pass__stall(struct sink *s, const struct ls_stall *st)
{
	struct sink_pass *p = (struct sink_pass *)s;

	return p->pass->stall ? p->pass->stall(p, st) : sink__stall(p->inner, st);
}

static int pass__interval(struct sink *s, const struct ls_hist_set *h)
{
	struct sink_pass *p = (struct sink_pass *)s;

	return p->pass->interval ? p->pass->interval(p, h) : sink__interval(p->inner, h);
}

static int pass__summary(struct sink *s, const struct ls_summary *sum)
{
	struct sink_pass *p = (struct sink_pass *)s;

	return p->pass->summary ? p->pass->summary(p, sum) : sink__summary(p->inner, sum);
}

static void pass__free(struct sink *s)
{
	free(s);
}

static const struct sink_ops pass_ops = {
	.name = "stage",
	.stall = pass__stall,
	.interval = pass__interval,
	.summary = pass__summary,
	.free = pass__free,
};

void *sink_pass__new(size_t size, const struct sink_pass_ops *ops, struct sink *inner)
{
	struct sink_pass *p;

	if (size < sizeof(*p))
		return NULL;
	p = calloc(1, size);
	if (!p)
		return NULL;
	sink__init(&p->base, &pass_ops, inner->out, &inner->opts);
	p->pass = ops;
	p->inner = inner;
	return p;
}
