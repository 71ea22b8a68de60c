// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * recstats: what a recording's kernel side sent for each futex or kernel
 * lock wait.  Counts the records the kernel sent (user space's HIST, MARK,
 * TICK and LOST left out) by type, and the waits the kernel's own
 * histograms counted (their last cumulative counts, futex and kernel lock
 * kinds), and prints one JSON object for scripts/bench: records per
 * contended wait is records / waits.
 *
 *	build/bench/recstats FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/trace_file.h"

#define RECSTATS_KEYS	4096	/* histogram keys kept: one per process, kind and mode */

struct hist_last {
	struct ls_hist_key key;
	__u64 count;
};

struct recstats {
	unsigned long long by_type[LS_REC_TYPE_MAX];
	unsigned long long records;
	struct hist_last last[RECSTATS_KEYS];
	size_t n_last;
	__u32 features;
};

static bool recstats__from_user_space(__u16 type)
{
	return type == LS_REC_HIST || type == LS_REC_MARK || type == LS_REC_TICK ||
	       type == LS_REC_LOST;
}

/* A HIST record of a lock kind other than mmap_lock: its count is the latest. */
static void recstats__hist(struct recstats *s, const struct ls_rec_hist *h)
{
	size_t i;

	if (h->key.kind < LS_HIST_WAIT_FUTEX || h->key.kind >= LS_HIST_KIND_N)
		return;
	for (i = 0; i < s->n_last; i++)
		if (!memcmp(&s->last[i].key, &h->key, offsetof(struct ls_hist_key, flags)))
			break;
	if (i == s->n_last) {
		if (s->n_last == RECSTATS_KEYS)
			return;
		s->last[s->n_last++].key = h->key;
	}
	s->last[i].count = h->hist.count;
}

static void recstats__record(struct recstats *s, const void *rec, size_t len)
{
	const struct ls_hdr *h = rec;

	if (len < sizeof(*h) || h->type >= LS_REC_TYPE_MAX)
		return;
	if (h->type == LS_REC_HIST && len >= sizeof(struct ls_rec_hist))
		recstats__hist(s, rec);
	if (h->type == LS_REC_MARK && len >= sizeof(struct ls_rec_mark) &&
	    ((const struct ls_rec_mark *)rec)->kind == LS_MARK_BEGIN)
		s->features = ((const struct ls_rec_mark *)rec)->features;
	if (recstats__from_user_space(h->type))
		return;
	s->by_type[h->type]++;
	s->records++;
}

static void recstats__print(const struct recstats *s)
{
	static const struct {
		const char *name;
		__u16 type;
	} shown[] = {
		{ "wait_begin", LS_REC_WAIT_BEGIN }, { "wait_end", LS_REC_WAIT_END },
		{ "owner", LS_REC_OWNER }, { "switch", LS_REC_SWITCH },
		{ "wakeup", LS_REC_WAKEUP }, { "migrate", LS_REC_MIGRATE },
	};
	unsigned long long waits = 0;
	size_t i;

	for (i = 0; i < s->n_last; i++)
		waits += s->last[i].count;
	printf("{\"records\": %llu, \"waits\": %llu, \"quiet\": %s", s->records, waits,
	       s->features & LS_FEAT_QUIET_WAITS ? "true" : "false");
	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		printf(", \"%s\": %llu", shown[i].name, s->by_type[shown[i].type]);
	printf("}\n");
}

int main(int argc, char **argv)
{
	struct recstats *s = calloc(1, sizeof(*s));
	struct trace_reader *r;
	const void *rec;
	size_t len;
	int rc;

	if (argc != 2 || !s) {
		fprintf(stderr, "usage: recstats FILE\n");
		return 2;
	}
	if (trace_reader__open(&r, argv[1], stderr) < 0)
		return 1;
	while ((rc = trace_reader__next_record(r, &rec, &len)) > 0)
		recstats__record(s, rec, len);
	trace_reader__close(r);
	if (rc < 0) {
		fprintf(stderr, "recstats: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	recstats__print(s);
	free(s);
	return 0;
}
