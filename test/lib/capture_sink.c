// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A sink that keeps deep copies of what it receives: see capture_sink.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/capture_sink.h"

static void *capture__xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "capture_sink: out of memory\n");
		abort();
	}
	return p;
}

static struct capture_sink *capture__of(struct sink *s)
{
	return (struct capture_sink *)s;	/* sink is the first member */
}

/* dst gets its own copy of src's entries. */
static void capture__copy_set(struct ls_hist_set *dst, const struct ls_hist_set *src)
{
	free(dst->v);
	*dst = *src;
	dst->v = NULL;
	dst->alloc = src->n;
	if (src->n) {
		dst->v = capture__xrealloc(NULL, src->n * sizeof(*dst->v));
		memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	}
}

/* Point the copy's pointers at the copy's arrays. */
static void capture__fixup(struct capture_stall *c)
{
	unsigned int i;

	c->st.holders = c->holders;
	c->st.renames = c->renames;
	if (c->st.waiter_stack)
		c->st.waiter_stack = &c->waiter_stack;
	for (i = 0; i < c->st.n_holders && i < LS_MAX_HOLDERS; i++) {
		c->holders[i].spells = c->spells ? c->spells + i * LS_MAX_SPELLS : NULL;
		if (c->holders[i].stack)
			c->holders[i].stack = &c->holder_stacks[i];
		if (c->holders[i].throttle)
			c->holders[i].throttle = &c->holder_throttles[i];
	}
}

static int capture__stall(struct sink *s, const struct ls_stall *st)
{
	struct capture_sink *cs = capture__of(s);
	struct capture_stall *c;
	unsigned int n = st->n_holders, i;

	if (cs->fail)
		return cs->fail;
	if (cs->n_stalls == cs->stalls_alloc) {
		cs->stalls_alloc = cs->stalls_alloc ? cs->stalls_alloc * 2 : 8;
		cs->stalls = capture__xrealloc(cs->stalls, cs->stalls_alloc * sizeof(*cs->stalls));
	}
	c = &cs->stalls[cs->n_stalls++];
	memset(c, 0, sizeof(*c));
	c->st = *st;
	if (n > LS_MAX_HOLDERS)
		n = LS_MAX_HOLDERS;
	if (n && st->holders)
		memcpy(c->holders, st->holders, n * sizeof(*c->holders));
	if (n) {
		c->spells = capture__xrealloc(NULL, n * LS_MAX_SPELLS * sizeof(*c->spells));
		for (i = 0; i < n; i++) {
			if (c->holders[i].n_spells > LS_MAX_SPELLS)
				c->holders[i].n_spells = LS_MAX_SPELLS;
			if (c->holders[i].n_spells && c->holders[i].spells)
				memcpy(c->spells + i * LS_MAX_SPELLS, c->holders[i].spells,
				       c->holders[i].n_spells * sizeof(*c->spells));
		}
	}
	if (c->st.n_renames > LS_MAX_RENAMES)
		c->st.n_renames = LS_MAX_RENAMES;
	if (c->st.n_renames)
		memcpy(c->renames, st->renames, c->st.n_renames * sizeof(*c->renames));
	if (st->waiter_stack)
		c->waiter_stack = *st->waiter_stack;
	for (i = 0; i < n; i++)
		if (c->holders[i].stack)
			c->holder_stacks[i] = *c->holders[i].stack;
	for (i = 0; i < n; i++)
		if (c->holders[i].throttle)
			c->holder_throttles[i] = *c->holders[i].throttle;
	c->st.waiter_frames = NULL;
	for (i = 0; i < n; i++)
		c->holders[i].frames = NULL;
	/* Fixed up on every read too: the array may have moved since. */
	capture__fixup(c);
	return 0;
}

static int capture__interval(struct sink *s, const struct ls_hist_set *h)
{
	struct capture_sink *cs = capture__of(s);

	if (cs->fail)
		return cs->fail;
	if (cs->n_intervals == cs->intervals_alloc) {
		cs->intervals_alloc = cs->intervals_alloc ? cs->intervals_alloc * 2 : 8;
		cs->intervals = capture__xrealloc(cs->intervals,
						  cs->intervals_alloc * sizeof(*cs->intervals));
	}
	memset(&cs->intervals[cs->n_intervals], 0, sizeof(cs->intervals[0]));
	capture__copy_set(&cs->intervals[cs->n_intervals++], h);
	return 0;
}

static int capture__summary(struct sink *s, const struct ls_summary *sum)
{
	struct capture_sink *cs = capture__of(s);

	if (cs->fail)
		return cs->fail;
	cs->n_summaries++;
	cs->summary = *sum;
	if (sum->hists)
		capture__copy_set(&cs->summary_hists, sum->hists);
	cs->summary.hists = &cs->summary_hists;
	return 0;
}

static void capture__free(struct sink *s)
{
	capture_sink__free(capture__of(s));
}

static const struct sink_ops capture_ops = {
	.name = "capture",
	.stall = capture__stall,
	.interval = capture__interval,
	.summary = capture__summary,
	.free = capture__free,
};

struct capture_sink *capture_sink__new(void)
{
	struct capture_sink *cs = capture__xrealloc(NULL, sizeof(*cs));

	memset(cs, 0, sizeof(*cs));
	cs->sink.ops = &capture_ops;
	return cs;
}

void capture_sink__free(struct capture_sink *cs)
{
	size_t i;

	if (!cs)
		return;
	for (i = 0; i < cs->n_intervals; i++)
		free(cs->intervals[i].v);
	free(cs->intervals);
	free(cs->summary_hists.v);
	for (i = 0; i < cs->n_stalls; i++)
		free(cs->stalls[i].spells);
	free(cs->stalls);
	free(cs);
}

const struct ls_stall *capture_sink__stall(const struct capture_sink *cs, size_t i)
{
	struct capture_stall *c;

	if (i >= cs->n_stalls)
		return NULL;
	c = &cs->stalls[i];
	capture__fixup(c);
	return &c->st;
}

const struct ls_hist_entry *capture_sink__find(const struct ls_hist_set *set, __u32 tgid,
					       __u8 kind, __u8 write)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->v[i].key.tgid == tgid && set->v[i].key.kind == kind &&
		    set->v[i].key.write == write)
			return &set->v[i];
	return NULL;
}
