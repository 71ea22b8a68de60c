// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Histograms: the kernel's cumulative counts per process and kind (HIST
 * records), kept for the summary, and their differences per interval.
 *
 * A host starts processes all day, and each one's histograms would stay to
 * the end of the run.  The final ones of an exited process
 * (LS_HIST_F_EXITED) are kept apart only up to ENGINE_HIST_EXITED; past it
 * the half with the least time is summed into one entry per command, so
 * the set stays bounded while the processes that matter keep their own.
 * The choice depends on the records only: a report of a recording sums
 * what its watch summed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine/internal.h"
#include "engine/sink.h"

static __u64 hist__pack(const struct ls_hist_key *k)
{
	return (__u64)k->tgid << 32 | (__u64)k->kind << 8 | k->write;
}

/* A command's entry: bit 63 (no real tgid reaches it), a hash of comm, kind, mode. */
static __u64 hist__cmd_pack(const char *comm, __u8 kind, __u8 write, __u32 probe)
{
	__u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < LS_COMM_LEN && comm[i]; i++)
		h = (h ^ (__u8)comm[i]) * 0x100000001b3ULL;
	h += probe;
	return 1ULL << 63 | (h & 0x7fffffffffffULL) << 16 | (__u64)kind << 8 | write;
}

/* The index + 1 of a process's entry, 0 when it has none. */
static __u32 hist__find(const struct engine *e, const struct ls_hist_key *k)
{
	return (__u32)(uintptr_t)map__get(&e->hist_idx, hist__pack(k));
}

/* The index + 1 of the entry summing comm's exited processes (0: none); *key: its map key. */
static __u32 hist__cmd_find(const struct engine *e, const char *comm, __u8 kind, __u8 write,
			    __u64 *key)
{
	const struct ls_hist_entry *ent;
	uintptr_t idx;
	__u32 probe;

	/* Each probe meets a different entry: it ends within the table's size. */
	for (probe = 0;; probe++) {
		*key = hist__cmd_pack(comm, kind, write, probe);
		idx = (uintptr_t)map__get(&e->hist_idx, *key);
		if (!idx)
			return 0;
		ent = &e->cum.v[idx - 1];
		if (ent->procs && ent->key.kind == kind && ent->key.write == write &&
		    !strncmp(ent->hist.comm, comm, LS_COMM_LEN))
			return (__u32)idx;
	}
}

static __u64 hist__key_of(const struct engine *e, size_t i)
{
	const struct ls_hist_entry *ent = &e->cum.v[i];
	__u64 key;

	if (!ent->procs)
		return hist__pack(&ent->key);
	hist__cmd_find(e, ent->hist.comm, ent->key.kind, ent->key.write, &key);
	return key;
}

static int hist__grow(struct engine *e)
{
	size_t n = e->cum.alloc ? e->cum.alloc * 2 : 64;
	struct ls_hist_entry *v;
	struct ls_hist *p;

	v = realloc(e->cum.v, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->cum.v = v;
	p = realloc(e->prev, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	e->prev = p;
	e->cum.alloc = e->prev_alloc = n;
	return 0;
}

/* A new zeroed entry under key, or NULL (table full, no memory). */
static struct ls_hist_entry *hist__append(struct engine *e, __u64 key)
{
	struct ls_hist_entry *ent;

	if ((e->cum.n == e->cum.alloc && hist__grow(e)) ||
	    map__put(&e->hist_idx, key, (void *)(uintptr_t)(e->cum.n + 1)))
		return NULL;
	ent = &e->cum.v[e->cum.n];
	memset(ent, 0, sizeof(*ent));
	memset(&e->prev[e->cum.n], 0, sizeof(e->prev[0]));
	e->cum.n++;
	return ent;
}

/* Take entry i (map key key) out; the last entry moves into its place. */
static void hist__remove(struct engine *e, size_t i, __u64 key)
{
	size_t last = e->cum.n - 1;
	__u64 moved;

	map__del(&e->hist_idx, key);
	if (i != last) {
		moved = hist__key_of(e, last);
		map__del(&e->hist_idx, moved);
		e->cum.v[i] = e->cum.v[last];
		e->prev[i] = e->prev[last];
		/* cannot fail: an entry was just taken out */
		map__put(&e->hist_idx, moved, (void *)(uintptr_t)(i + 1));
	}
	e->cum.n--;
}

static void hist__add(struct ls_hist *dst, const struct ls_hist *src)
{
	unsigned int k;

	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	for (k = 0; k < LS_HIST_SLOTS; k++)
		dst->slots[k] += src->slots[k];
}

/* Sum exited entry i into its command's (with its last interval's counts, so deltas hold). */
static void hist__fold(struct engine *e, size_t i)
{
	static const char others[LS_COMM_LEN];
	struct ls_hist_entry one = e->cum.v[i], *ent;
	struct ls_hist prev = e->prev[i];
	const char *comm = one.hist.comm;
	__u64 key;
	__u32 idx;

	hist__remove(e, i, hist__pack(&one.key));
	e->hist_exited--;
	idx = hist__cmd_find(e, comm, one.key.kind, one.key.write, &key);
	if (!idx && e->hist_cmds >= ENGINE_HIST_CMDS) {
		comm = others;
		idx = hist__cmd_find(e, comm, one.key.kind, one.key.write, &key);
	}
	if (!idx) {
		ent = hist__append(e, key);
		if (!ent) {
			e->sum.evicted++;
			return;
		}
		ent->key.kind = one.key.kind;
		ent->key.write = one.key.write;
		memcpy(ent->hist.comm, comm, LS_COMM_LEN);
		e->hist_cmds += comm != others;
		idx = (__u32)e->cum.n;
	}
	ent = &e->cum.v[idx - 1];
	ent->procs++;
	hist__add(&ent->hist, &one.hist);
	hist__add(&e->prev[idx - 1], &prev);
}

/* Least time first; ties by count, then key: the same choice on every replay. */
static int hist__cmp_least(const void *a, const void *b)
{
	const struct ls_hist_entry *x = a, *y = b;

	if (x->hist.sum_ns != y->hist.sum_ns)
		return x->hist.sum_ns < y->hist.sum_ns ? -1 : 1;
	if (x->hist.count != y->hist.count)
		return x->hist.count < y->hist.count ? -1 : 1;
	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	if (x->key.kind != y->key.kind)
		return x->key.kind < y->key.kind ? -1 : 1;
	return (x->key.write > y->key.write) - (x->key.write < y->key.write);
}

/* Too many exited processes kept apart: sum the half with the least time per command. */
static void hist__fold_least(struct engine *e)
{
	struct ls_hist_entry *v;
	size_t i, n = 0;
	__u32 idx;

	v = malloc(e->hist_exited * sizeof(*v));
	if (!v)
		return;		/* tried again at the next exit */
	for (i = 0; i < e->cum.n && n < e->hist_exited; i++)
		if (e->cum.v[i].exited)
			v[n++] = e->cum.v[i];
	qsort(v, n, sizeof(*v), hist__cmp_least);
	/* by key: folding moves entries around */
	for (i = 0; i < n / 2; i++) {
		idx = hist__find(e, &v[i].key);
		if (idx && e->cum.v[idx - 1].exited)
			hist__fold(e, idx - 1);
	}
	free(v);
}

/*
 * A record naming process tgid as comm (a lock record's process, a leader's
 * exit): its histograms take that name.  The kernel names a histogram when
 * it makes it, so a shell's child that exec'd "ps" would otherwise count
 * as "bash"; the newest name the stream gave wins, from either side.
 */
void hists__rename(struct engine *e, __u32 tgid, const char comm[LS_COMM_LEN])
{
	struct ls_hist_key k = { .tgid = tgid };
	unsigned int i;
	__u32 idx;

	if (!tgid || !comm[0] || !e->cum.n)
		return;
	/* Every kind in modes 0 and 1, or in its one mode (LS_HIST_ANY_MODE). */
	for (i = 0; i < 2 * LS_HIST_KIND_N; i++) {
		k.kind = (__u8)(i / 2);
		k.write = ls_hist_lock_kind(k.kind) >= 0 ? (__u8)(i % 2) : LS_HIST_ANY_MODE;
		if (i % 2 && k.write == LS_HIST_ANY_MODE)
			continue;
		idx = hist__find(e, &k);
		if (idx && !e->cum.v[idx - 1].procs)
			memcpy(e->cum.v[idx - 1].hist.comm, comm, LS_COMM_LEN);
	}
}

void hists__update(struct engine *e, const struct ls_rec_hist *r)
{
	__u32 idx = hist__find(e, &r->key);
	struct ls_hist_entry *ent;

	if (idx && e->cum.v[idx - 1].procs) {
		/* A tgid past 2^31 only in a crafted record: no such process. */
		e->sum.bad_records++;
		return;
	}
	if (idx && e->cum.v[idx - 1].exited) {
		/* Its pid came back as a new process: the old one's counts are final. */
		hist__fold(e, idx - 1);
		idx = 0;
	}
	if (!idx) {
		ent = hist__append(e, hist__pack(&r->key));
		if (!ent) {
			e->sum.evicted++;
			return;
		}
		ent->key.tgid = r->key.tgid;
		ent->key.kind = r->key.kind;
		ent->key.write = r->key.write;
		idx = (__u32)e->cum.n;
	}
	ent = &e->cum.v[idx - 1];
	/* Cumulative: the latest replaces. */
	ent->hist = r->hist;
	if ((r->key.flags & LS_HIST_F_EXITED) && !ent->exited) {
		ent->exited = true;
		if (++e->hist_exited > ENGINE_HIST_EXITED)
			hist__fold_least(e);
	}
}

/* The difference since the previous interval, to the sink; then remember. */
int hists__interval(struct engine *e, __u64 ts)
{
	const struct ls_hist *cur, *old;
	struct ls_hist_entry *d, *v;
	size_t i, k;

	if (e->ival.alloc < e->cum.n) {
		v = realloc(e->ival.v, e->cum.alloc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		e->ival.v = v;
		e->ival.alloc = e->cum.alloc;
	}
	e->ival.n = 0;
	for (i = 0; i < e->cum.n; i++) {
		cur = &e->cum.v[i].hist;
		old = &e->prev[i];
		if (cur->count == old->count)
			continue;
		d = &e->ival.v[e->ival.n++];
		*d = e->cum.v[i];
		/* Counts went back: the kernel map was reset, all of it is new. */
		if (cur->count > old->count) {
			d->hist.count = cur->count - old->count;
			d->hist.sum_ns = u64_sat_sub(cur->sum_ns, old->sum_ns);
			for (k = 0; k < LS_HIST_SLOTS; k++)
				d->hist.slots[k] = u64_sat_sub(cur->slots[k], old->slots[k]);
		}
		e->prev[i] = *cur;
	}
	e->ival.start_ns = e->ival_start ? e->ival_start : e->cum.start_ns;
	e->ival.end_ns = ts;
	e->ival_start = ts;
	return sink__interval(e->sink, &e->ival);
}

void hists__free(struct engine *e)
{
	map__free(&e->hist_idx);
	free(e->cum.v);
	free(e->prev);
	free(e->ival.v);
}
