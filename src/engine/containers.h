/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine's containers (containers.c): struct map, a u64 -> pointer
 * hash; struct ring, a bounded deque; intrusive doubly linked lists.
 * They know nothing of tasks or locks; engine/internal.h includes them.
 */
#ifndef LOCKSTALL_ENGINE_CONTAINERS_H
#define LOCKSTALL_ENGINE_CONTAINERS_H

#include <stdbool.h>
#include <stddef.h>
#include <lockstall/abi.h>

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/*
 * Open addressing, linear probing, backward-shift deletion (no tombstones).
 * val == NULL marks an empty slot, so NULL cannot be stored.  Holds at most
 * max entries, at most half the slots full.
 */
struct map_slot {
	__u64 key;
	void *val;
};

struct map {
	struct map_slot *slots;
	__u32 cap;		/* power of two, or 0 before the first put */
	__u32 n;
	__u32 max;
};

void map__init(struct map *m, __u32 max);
void map__free(struct map *m);
void *map__get(const struct map *m, __u64 key);
/* 0, -ENOSPC at max entries, -ENOMEM.  The key must not be present. */
int map__put(struct map *m, __u64 key, void *val);
void map__del(struct map *m, __u64 key);
/* The entry in slot i (i < m->cap), or NULL: for sweeps over the table. */
static inline void *map__slot(const struct map *m, __u32 i)
{
	return i < m->cap ? m->slots[i].val : NULL;
}

/* A deque of fixed-size elements in a power-of-two ring; grows on demand. */
struct ring {
	void *buf;
	__u32 head;		/* index of the oldest element */
	__u32 n;
	__u32 cap;
	__u32 esize;
};

void ring__init(struct ring *r, __u32 esize);
void ring__free(struct ring *r);
/*
 * Make room for one more element, growing up to max (a power of two):
 * 0, or -ENOSPC when full at max (the caller pops the front and pushes),
 * or -ENOMEM.
 */
int ring__reserve(struct ring *r, __u32 max);
/* Append at the back; needs room (ring__reserve). */
void *ring__push(struct ring *r);
void ring__pop_front(struct ring *r);

/* The sort key of a ring element (an end time). */
typedef __u64 (*ring_key_fn)(const void *elem);
/*
 * Append elem (esize bytes, needs room) keeping the ring sorted by key:
 * it moves back past larger keys, so nearly sorted input costs O(1).
 */
void ring__push_sorted(struct ring *r, const void *elem, ring_key_fn key);
/* In a ring sorted by key: the index of the first element with key > k. */
__u32 ring__first_after(const struct ring *r, __u64 k, ring_key_fn key);

static inline void *ring__at(const struct ring *r, __u32 i)
{
	return (char *)r->buf + (size_t)((r->head + i) & (r->cap - 1)) * r->esize;
}

/* ---- intrusive lists ------------------------------------------------- */

struct list_node {
	struct list_node *prev, *next;
};

static inline void list__init(struct list_node *h)
{
	h->prev = h->next = h;
}

static inline bool list__empty(const struct list_node *h)
{
	return h->next == h;
}

static inline void list__add(struct list_node *h, struct list_node *n)
{
	n->next = h;
	n->prev = h->prev;
	h->prev->next = n;
	h->prev = n;
}

static inline void list__del(struct list_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	list__init(n);
}

#define list_for_each_safe(pos, tmp, head) \
	for (pos = (head)->next, tmp = pos->next; pos != (head); pos = tmp, tmp = pos->next)

#endif /* LOCKSTALL_ENGINE_CONTAINERS_H */
