// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The pass-through half of the output port (sink.h): a stage in front of
 * another sink passes on what it does not change.
 */
#include <stdlib.h>
#include "engine/sink.h"

void sink_pass__init(struct sink_pass *p, const struct sink_ops *ops, struct sink *inner)
{
	sink__init(&p->base, ops, inner->out, &inner->opts);
	p->inner = inner;
}

int sink_pass__interval(struct sink *s, const struct ls_hist_set *h)
{
	return sink__interval(((struct sink_pass *)s)->inner, h);
}

int sink_pass__summary(struct sink *s, const struct ls_summary *sum)
{
	return sink__summary(((struct sink_pass *)s)->inner, sum);
}

void sink_pass__free(struct sink *s)
{
	free(s);
}
