// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Folded stacks, the input of flamegraph.pl and speedscope: one line per
 * distinct stack, "comm;outermost;...;innermost;[what] value", printed at
 * the end of the run, sorted so two runs diff cleanly.
 *
 * Two kinds of time, each ending in a frame of its own so one flame graph
 * can hold both:
 *   [mmap_lock read|write wait]  a stall's lock wait (lock_wait_ns), on the
 *                                waiter's stack;
 *   [off CPU holding mmap_lock]  a holder's off-CPU time inside that wait,
 *                                on the holder's stack, less the part it
 *                                waited on another lock, which is
 *   [off CPU holding futex, waiting for mmap_lock];
 * a futex or kernel lock by its kind's name in place of mmap_lock.
 * Values are microseconds.  Stalls without a stack still count, on
 * "comm;[no stack]".  Kernel frames carry the usual "_[k]" suffix.
 *
 * Bounded: FOLDED_MAX_LINES distinct lines; the time of later new ones goes
 * to "comm;[more stacks]" so no time is lost from the totals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/sinks.h"
#include "sinks/sink_common.h"
#include "util.h"

#define FOLDED_MAX_LINES	65536
#define FOLDED_LINE_MAX		8192

struct folded_line {
	char *key;
	__u64 us;
};

struct folded_sink {
	struct sink base;
	struct folded_line *v;	/* open addressing on the key's hash; key NULL: empty */
	size_t cap, n;
	int err;		/* ENOMEM seen: said at the end */
};

static struct folded_sink *to_folded(struct sink *s)
{
	return (struct folded_sink *)s;
}

static __u64 folded__hash(const char *s)
{
	__u64 h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int folded__grow(struct folded_sink *fs)
{
	size_t cap = fs->cap ? fs->cap * 2 : 1024, i, j;
	struct folded_line *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < fs->cap; i++) {
		if (!fs->v[i].key)
			continue;
		for (j = folded__hash(fs->v[i].key) & (cap - 1); v[j].key; j = (j + 1) & (cap - 1))
			;
		v[j] = fs->v[i];
	}
	free(fs->v);
	fs->v = v;
	fs->cap = cap;
	return 0;
}

/*
 * The line of key, added if missing while there are fewer than limit lines.
 * NULL: not there and no room (or no memory).
 */
static struct folded_line *folded__find(struct folded_sink *fs, const char *key, size_t limit)
{
	size_t i;

	if (fs->cap) {
		for (i = folded__hash(key) & (fs->cap - 1); fs->v[i].key; i = (i + 1) & (fs->cap - 1))
			if (!strcmp(fs->v[i].key, key))
				return &fs->v[i];
	}
	if (fs->n >= limit)
		return NULL;
	if ((fs->n + 1) * 2 > fs->cap && folded__grow(fs))
		return NULL;
	for (i = folded__hash(key) & (fs->cap - 1); fs->v[i].key; i = (i + 1) & (fs->cap - 1))
		;
	fs->v[i].key = strdup(key);
	if (!fs->v[i].key)
		return NULL;
	fs->n++;
	return &fs->v[i];
}

static void folded__add(struct folded_sink *fs, const char *comm, const char *key, __u64 ns)
{
	struct folded_line *l = folded__find(fs, key, FOLDED_MAX_LINES);
	char more[LS_COMM_TEXT_LEN + 32];

	if (!l) {
		/* full: keep the time, under the process (a reserve for these lines) */
		snprintf(more, sizeof(more), "%s;[more stacks]", comm);
		l = folded__find(fs, more, FOLDED_MAX_LINES + FOLDED_MAX_LINES / 8);
		if (!l) {
			fs->err = -ENOMEM;
			return;
		}
	}
	l->us += ns / 1000;
}

/*
 * Append one frame's name to buf at *len, after a ';': in the name, ';'
 * and line ends become '_' (they are the format's separators; the count
 * follows the last space, so spaces in names are fine).
 */
static void put(char *buf, size_t *len, const char *s)
{
	if (*len && *len + 1 < FOLDED_LINE_MAX)
		buf[(*len)++] = ';';
	for (; *s && *len + 1 < FOLDED_LINE_MAX; s++)
		buf[(*len)++] = (*s == ';' || *s == '\n' || *s == '\r') ? '_' : *s;
	buf[*len] = 0;
}

static void put_frame(char *buf, size_t *len, const struct ls_frame *f)
{
	char name[SINK_NAME_TEXT_MAX], tmp[SINK_NAME_TEXT_MAX + 8];

	/* unknown frames of one file fold together */
	if (f->sym)
		ls_text(f->sym, (size_t)-1, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "[%s]",
			 ls_text(f->module ? sink__basename(f->module) : "unknown", (size_t)-1, tmp,
				 sizeof(name) - 2));
	snprintf(tmp, sizeof(tmp), "%s%s", name, f->kind == LS_FRAME_KERNEL ? "_[k]" : "");
	put(buf, len, tmp);
}

static void folded__stack(struct folded_sink *fs, const struct ls_task *task,
			  const struct ls_frames *fr, const char *what, __u64 ns)
{
	char comm[LS_COMM_TEXT_LEN];
	char *buf = malloc(FOLDED_LINE_MAX);
	size_t len = 0;
	unsigned int i;

	if (!buf) {
		fs->err = -ENOMEM;
		return;
	}
	buf[0] = 0;
	/* only its TID is known: no name to fold under */
	if (!ls_task_seen(task))
		snprintf(comm, sizeof(comm), "[not seen]");
	else
		ls_comm_text(task->comm, comm, sizeof(comm));
	put(buf, &len, comm);
	if (!fr || !fr->n) {
		put(buf, &len, "[no stack]");
	} else {
		/* outermost first: user frames from the last, then kernel ones */
		for (i = fr->n; i > fr->n_kernel; i--)
			put_frame(buf, &len, &fr->v[i - 1]);
		for (i = fr->n_kernel; i > 0; i--)
			put_frame(buf, &len, &fr->v[i - 1]);
	}
	put(buf, &len, what);
	folded__add(fs, comm, buf, ns);
	free(buf);
}

/* A holder's off-CPU time: by the other locks it waited on, the rest under held. */
static void folded__holder(struct folded_sink *fs, const struct ls_stall *st,
			   const struct ls_holder *h, const char *held)
{
	__u64 rest = h->offcpu_ns, ns;
	char what[80];
	unsigned int k;

	for (k = 0; k < h->n_waited && k < LS_MAX_WAITED && rest; k++) {
		ns = h->waited[k].ns < rest ? h->waited[k].ns : rest;
		rest -= ns;
		snprintf(what, sizeof(what), "[off CPU holding %s, waiting for %s]",
			 ls_lock_kind_name(st->lock.kind), ls_lock_kind_name(h->waited[k].lock.kind));
		folded__stack(fs, &h->task, h->frames, what, ns);
	}
	if (rest)
		folded__stack(fs, &h->task, h->frames, held, rest);
}

static int folded__stall(struct sink *s, const struct ls_stall *st)
{
	struct folded_sink *fs = to_folded(s);
	const char *lock = ls_lock_kind_name(st->lock.kind);
	char wait[48], held[48];
	unsigned int i;

	/* Stall time is counted once, when the wait ends: not per report. */
	if (st->pending)
		return 0;
	snprintf(wait, sizeof(wait), "[%s %s wait]", lock, st->write ? "write" : "read");
	snprintf(held, sizeof(held), "[off CPU holding %s]", lock);
	folded__stack(fs, &st->waiter, st->waiter_frames, wait, st->lock_wait_ns);
	for (i = 0; i < st->n_holders; i++)
		folded__holder(fs, st, &st->holders[i], held);
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	return strcmp(x->key, y->key);
}

static int folded__summary(struct sink *s, const struct ls_summary *sum)
{
	struct folded_sink *fs = to_folded(s);
	size_t i, n = 0;

	/* pack the lines to the front, then sort: no lookups after the summary */
	for (i = 0; i < fs->cap; i++) {
		if (!fs->v[i].key)
			continue;
		fs->v[n] = fs->v[i];
		if (i != n)
			fs->v[i].key = NULL;
		n++;
	}
	if (n)
		qsort(fs->v, n, sizeof(fs->v[0]), line_cmp);
	for (i = 0; i < n; i++)
		if (fs->v[i].us)
			fprintf(s->out, "%s %llu\n", fs->v[i].key, (unsigned long long)fs->v[i].us);
	if (fs->err)
		fprintf(stderr, "lockstall: folded stacks: out of memory, some stacks were left out\n");
	if (sum->lost_events)
		fprintf(stderr, "lockstall: %llu events were lost: the folded stacks may miss stalls\n",
			(unsigned long long)sum->lost_events);
	return sink__flush(s->out);
}

static void folded__free(struct sink *s)
{
	struct folded_sink *fs = to_folded(s);
	size_t i;

	for (i = 0; i < fs->cap; i++)
		free(fs->v[i].key);
	free(fs->v);
	free(fs);
}

static const struct sink_ops folded_ops = {
	.name = "folded",
	.stall = folded__stall,
	.summary = folded__summary,
	.free = folded__free,
};

struct sink *sink_folded__new(FILE *out, const struct sink_opts *opts)
{
	struct folded_sink *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return NULL;
	sink__init(&fs->base, &folded_ops, out, opts);
	return &fs->base;
}
