// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /proc/<pid>/maps text to a sorted array of mappings.
 *
 * The text may come from a recording, so it is untrusted: every field is
 * checked, every size bounded, and a line that does not parse is dropped
 * (counted), never guessed at.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/internal.h"
#include "util.h"

#define DELETED_SUFFIX " (deleted)"

struct maps_builder {
	struct proc_map *v;
	size_t n, alloc;
	size_t *path_off;	/* offsets into strings until the end, then pointers */
	char *strings;
	size_t slen;
	size_t dropped;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* "rwxp": each position its letter or '-'; the last 'p' or 's'. */
static int parse_perms(const char **p, const char *end, __u8 *perms)
{
	const char *s = *p;
	static const char want[3] = { 'r', 'w', 'x' };
	int i;

	if (end - s < 4)
		return -EINVAL;
	*perms = 0;
	for (i = 0; i < 3; i++) {
		if (s[i] == want[i])
			*perms |= (__u8)(1 << i);
		else if (s[i] != '-')
			return -EINVAL;
	}
	if (s[3] == 's')
		*perms |= PROC_MAP_SHARED;
	else if (s[3] != 'p')
		return -EINVAL;
	*p = s + 4;
	return 0;
}

static int expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -EINVAL;
	(*p)++;
	return 0;
}

static int parse_dec(const char **p, const char *end, __u64 *out)
{
	const char *s = *p;
	__u64 v = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (~0ULL - 9) / 10)
			return -EINVAL;
		v = v * 10 + (__u64)(*s - '0');
	}
	*p = s;
	*out = v;
	return 0;
}

/* One line, without its '\n'.  -EINVAL: drop it. */
static int parse_line(const char *s, const char *end, struct proc_map *m, const char **path,
		      size_t *path_len)
{
	__u64 major, minor;
	const char *nul;

	memset(m, 0, sizeof(*m));
	if (sym_parse_hex(&s, end, &m->start) || expect(&s, end, '-') ||
	    sym_parse_hex(&s, end, &m->end) || expect(&s, end, ' ') ||
	    parse_perms(&s, end, &m->perms) || expect(&s, end, ' ') ||
	    sym_parse_hex(&s, end, &m->pgoff) || expect(&s, end, ' ') ||
	    sym_parse_hex(&s, end, &major) || expect(&s, end, ':') ||
	    sym_parse_hex(&s, end, &minor) || expect(&s, end, ' ') ||
	    parse_dec(&s, end, &m->inode))
		return -EINVAL;
	if (m->start >= m->end || major > 0xffffffffULL || minor > 0xffffffffULL)
		return -EINVAL;
	m->dev_major = (__u32)major;
	m->dev_minor = (__u32)minor;
	if (s < end && !is_blank(*s))
		return -EINVAL;
	while (s < end && is_blank(*s))
		s++;
	/* a NUL cannot be in a path: it ends the field */
	nul = memchr(s, '\0', (size_t)(end - s));
	if (nul)
		end = nul;
	if ((size_t)(end - s) >= sizeof(DELETED_SUFFIX) - 1 &&
	    !memcmp(end - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX, sizeof(DELETED_SUFFIX) - 1)) {
		m->deleted = true;
		end -= sizeof(DELETED_SUFFIX) - 1;
	}
	if (end - s >= PROC_MAPS_PATH_MAX)
		return -EINVAL;
	*path = s;
	*path_len = (size_t)(end - s);
	return 0;
}

static int builder__add(struct maps_builder *b, const struct proc_map *m, const char *path, size_t plen)
{
	void *nv, *no;

	if (b->n == PROC_MAPS_MAX_ENTRIES)
		return -E2BIG;
	if (b->n == b->alloc) {
		size_t alloc = b->alloc ? b->alloc * 2 : 64;

		nv = realloc(b->v, alloc * sizeof(*b->v));
		if (!nv)
			return -ENOMEM;
		b->v = nv;
		no = realloc(b->path_off, alloc * sizeof(*b->path_off));
		if (!no)
			return -ENOMEM;
		b->path_off = no;
		b->alloc = alloc;
	}
	/* strings was sized for the whole text: a path always fits */
	memcpy(b->strings + b->slen, path, plen);
	b->strings[b->slen + plen] = '\0';
	b->path_off[b->n] = b->slen;
	b->slen += plen + 1;
	b->v[b->n] = *m;
	/* the offset rides in path until the strings stop moving */
	b->v[b->n].path = (const char *)(uintptr_t)b->path_off[b->n];
	b->n++;
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct proc_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* equal starts: keep text order, which the offsets in path encode */
	return (uintptr_t)x->path < (uintptr_t)y->path ? -1 : (uintptr_t)x->path > (uintptr_t)y->path;
}

/* A line that does not parse is dropped; only running out of memory or room stops. */
static int builder__line(void *ctx, const char *line, const char *end)
{
	struct maps_builder *b = ctx;
	struct proc_map m;
	const char *path;
	size_t plen;

	if (line == end)
		return 0;
	if (parse_line(line, end, &m, &path, &plen)) {
		b->dropped++;
		return 0;
	}
	return builder__add(b, &m, path, plen);
}

int proc_maps__parse(struct proc_maps **out, const char *text, size_t len)
{
	struct maps_builder b = { 0 };
	struct proc_maps *maps = NULL;
	size_t i, kept;
	int err = 0;

	*out = NULL;
	if (len > PROC_MAPS_MAX_TEXT)
		return -E2BIG;
	/* every path is a part of a line, plus its NUL: len + 1 covers them all */
	b.strings = malloc(len + 1);
	maps = calloc(1, sizeof(*maps));
	if (!b.strings || !maps) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = ls_for_each_line(text, len, builder__line, &b);
	if (err)
		goto cleanup;
	if (b.n)	/* qsort's base must not be NULL, even for no elements */
		qsort(b.v, b.n, sizeof(*b.v), cmp_start);
	/* overlaps: the kernel never writes them, so the text was tampered with */
	for (i = 0, kept = 0; i < b.n; i++) {
		if (kept && b.v[i].start < b.v[kept - 1].end) {
			b.dropped++;
			continue;
		}
		b.v[kept++] = b.v[i];
	}
	for (i = 0; i < kept; i++)
		b.v[i].path = b.strings + (uintptr_t)b.v[i].path;
	maps->v = b.v;
	maps->n = kept;
	maps->dropped = b.dropped;
	maps->strings = b.strings;
	b.v = NULL;
	b.strings = NULL;
	*out = maps;
	maps = NULL;
cleanup:
	free(b.v);
	free(b.path_off);
	free(b.strings);
	free(maps);
	return err;
}

int proc_maps__read_text(__u32 pid, char **text, size_t *len)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	return ls_read_file(path, PROC_MAPS_MAX_TEXT, text, len);
}

int proc_maps__load_pid(struct proc_maps **out, __u32 pid)
{
	char *text;
	size_t len;
	int err;

	*out = NULL;
	err = proc_maps__read_text(pid, &text, &len);
	if (err)
		return err;
	err = proc_maps__parse(out, text, len);
	free(text);
	if (!err)
		(*out)->pid = pid;
	return err;
}

void proc_maps__free(struct proc_maps *maps)
{
	if (!maps)
		return;
	free(maps->v);
	free(maps->strings);
	free(maps);
}

const struct proc_map *proc_maps__find(const struct proc_maps *maps, __u64 addr)
{
	/* start is proc_map's first field: the first mapping starting past addr */
	size_t i = maps ? sym_upper_bound(maps->v, maps->n, sizeof(*maps->v), addr) : 0;

	if (!i || addr >= maps->v[i - 1].end)
		return NULL;
	return &maps->v[i - 1];
}

_Static_assert(offsetof(struct proc_map, start) == 0, "sym_upper_bound keys on start");

int proc_maps__set_build_id(struct proc_maps *maps, size_t i, const __u8 *id, size_t len)
{
	if (!maps || i >= maps->n || !id || !len || len > LS_BUILD_ID_MAX)
		return -EINVAL;
	memcpy(maps->v[i].build_id, id, len);
	maps->v[i].build_id_len = (__u8)len;
	return 0;
}

bool proc_map__is_file(const struct proc_map *m)
{
	return m && m->path[0] == '/';
}
