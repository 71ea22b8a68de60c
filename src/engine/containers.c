// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The two containers the engine is built from: a u64-keyed hash table and a
 * bounded ring deque.  Both allocate only when they grow, so the per-record
 * path costs no malloc once the tables have reached their working size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine/internal.h"

#define MAP_MIN_CAP 16

/* splitmix64's finalizer: keys are tids, small integers, and kernel addresses. */
static __u64 map__hash(__u64 k)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 31;
	return k;
}

void map__init(struct map *m, __u32 max)
{
	memset(m, 0, sizeof(*m));
	m->max = max;
}

void map__free(struct map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

void *map__get(const struct map *m, __u64 key)
{
	__u32 mask, i;

	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	/* Invariant: at most half the slots are full, so this ends. */
	for (i = map__hash(key) & mask; m->slots[i].val; i = (i + 1) & mask)
		if (m->slots[i].key == key)
			return m->slots[i].val;
	return NULL;
}

static void map__insert(struct map_slot *slots, __u32 cap, __u64 key, void *val)
{
	__u32 mask = cap - 1, i;

	for (i = map__hash(key) & mask; slots[i].val; i = (i + 1) & mask)
		;
	slots[i].key = key;
	slots[i].val = val;
}

static int map__grow(struct map *m)
{
	__u32 cap = m->cap ? m->cap * 2 : MAP_MIN_CAP, i;
	struct map_slot *slots;

	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].val)
			map__insert(slots, cap, m->slots[i].key, m->slots[i].val);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int map__put(struct map *m, __u64 key, void *val)
{
	int err;

	if (m->n >= m->max)
		return -ENOSPC;
	if ((m->n + 1) * 2 > m->cap) {
		err = map__grow(m);
		if (err)
			return err;
	}
	map__insert(m->slots, m->cap, key, val);
	m->n++;
	return 0;
}

void map__del(struct map *m, __u64 key)
{
	__u32 mask, i, j, home;

	if (!m->cap)
		return;
	mask = m->cap - 1;
	for (i = map__hash(key) & mask; m->slots[i].val; i = (i + 1) & mask)
		if (m->slots[i].key == key)
			break;
	if (!m->slots[i].val)
		return;
	/*
	 * Backward shift: pull later entries of the probe run into the hole
	 * unless that would move one before its home slot.
	 */
	for (j = (i + 1) & mask; m->slots[j].val; j = (j + 1) & mask) {
		home = map__hash(m->slots[j].key) & mask;
		/* j's home lies cyclically in (i, j]: it must stay. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].val = NULL;
	m->slots[i].key = 0;
	m->n--;
}

void ring__init(struct ring *r, __u32 esize)
{
	memset(r, 0, sizeof(*r));
	r->esize = esize;
}

void ring__free(struct ring *r)
{
	free(r->buf);
	r->buf = NULL;
	r->head = r->n = r->cap = 0;
}

static int ring__resize(struct ring *r, __u32 cap)
{
	char *buf;
	__u32 i;

	buf = malloc((size_t)cap * r->esize);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < r->n; i++)
		memcpy(buf + (size_t)i * r->esize, ring__at(r, i), r->esize);
	free(r->buf);
	r->buf = buf;
	r->head = 0;
	r->cap = cap;
	return 0;
}

int ring__reserve(struct ring *r, __u32 max)
{
	__u32 cap;

	if (r->n < r->cap)
		return 0;
	if (r->cap >= max)
		return -ENOSPC;
	cap = r->cap ? r->cap * 2 : (max < 8 ? max : 8);
	if (cap > max)
		cap = max;
	return ring__resize(r, cap);
}

void *ring__push(struct ring *r)
{
	void *slot = ring__at(r, r->n);

	r->n++;
	return slot;
}

void ring__pop_front(struct ring *r)
{
	if (!r->n)
		return;
	r->head = (r->head + 1) & (r->cap - 1);
	r->n--;
}

void ring__push_sorted(struct ring *r, const void *elem, ring_key_fn key)
{
	__u64 k = key(elem);
	__u32 i = r->n;

	ring__push(r);
	for (; i > 0 && key(ring__at(r, i - 1)) > k; i--)
		memcpy(ring__at(r, i), ring__at(r, i - 1), r->esize);
	memcpy(ring__at(r, i), elem, r->esize);
}

__u32 ring__first_after(const struct ring *r, __u64 k, ring_key_fn key)
{
	__u32 lo = 0, hi = r->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (key(ring__at(r, mid)) <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
