// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See flight.h.  Each record sits in a chunk as a u32 length, 4 bytes of
 * padding and the record, padded to 8 bytes: chunks are walked, never
 * indexed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "record/flight.h"
#include "util.h"

#define FLIGHT_ENTRY_HDR	8
#define FLIGHT_NAME_TRIES	100	/* "-2" .. "-100": then the name is given up */

struct flight_chunk {
	struct flight_chunk *next;
	size_t used, cap;
	__u64 max_ts;		/* newest stamp in it */
	__u64 n;		/* records */
	unsigned char data[];
};

struct flight {
	__u64 keep_ns, after_ns;
	size_t max_bytes, chunk_bytes;
	struct flight_chunk *head, *tail;	/* oldest, newest */
	__u64 newest_ts;
	__u64 cap_evicted_ts;	/* newest stamp max_bytes evicted; 0: none */
	void *begin;		/* the run's LS_MARK_BEGIN */
	size_t begin_len;
	bool pending;
	struct flight_window win;
	struct flight_stats stats;
};

static size_t entry_size(size_t len)
{
	return FLIGHT_ENTRY_HDR + ((len + 7) & ~(size_t)7);
}

struct flight *flight__new(const struct flight_opts *o)
{
	struct flight *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->keep_ns = o->keep_ns ? o->keep_ns : FLIGHT_DEFAULT_KEEP_NS;
	f->after_ns = o->after_ns ? o->after_ns : FLIGHT_AFTER_NS;
	f->max_bytes = o->max_bytes ? o->max_bytes : FLIGHT_MAX_BYTES;
	f->chunk_bytes = o->chunk_bytes ? o->chunk_bytes : FLIGHT_CHUNK_BYTES;
	if (f->chunk_bytes > f->max_bytes)
		f->chunk_bytes = f->max_bytes;
	return f;
}

/*
 * Chunks are mapped, not malloc()ed: an evicted chunk's memory goes back
 * at once, where the heap would keep the holes of a window that moved on.
 */
static struct flight_chunk *chunk__new(size_t cap)
{
	void *p = mmap(NULL, sizeof(struct flight_chunk) + cap, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void chunk__free(struct flight_chunk *c)
{
	munmap(c, sizeof(*c) + c->cap);
}

static void flight__evict(struct flight *f, bool by_cap)
{
	struct flight_chunk *c = f->head;

	f->head = c->next;
	if (!f->head)
		f->tail = NULL;
	f->stats.records -= c->n;
	f->stats.bytes -= sizeof(*c) + c->cap;
	if (by_cap) {
		f->stats.evicted_cap++;
		if (c->max_ts > f->cap_evicted_ts)
			f->cap_evicted_ts = c->max_ts;
	}
	chunk__free(c);
}

/* Older than this can go: keep before the newest, or the pending window's start. */
static __u64 flight__horizon(const struct flight *f)
{
	__u64 h = f->newest_ts > f->keep_ns ? f->newest_ts - f->keep_ns : 0;

	if (f->pending && f->win.from_ns < h)
		h = f->win.from_ns;
	return h;
}

static void flight__keep_begin(struct flight *f, const void *rec, size_t len)
{
	const struct ls_rec_mark *m = rec;
	void *copy;

	if (len < sizeof(*m) || m->hdr.type != LS_REC_MARK || m->kind != LS_MARK_BEGIN)
		return;
	copy = malloc(len);
	if (!copy)
		return;
	memcpy(copy, rec, len);
	free(f->begin);
	f->begin = copy;
	f->begin_len = len;
}

int flight__add(void *data, const void *rec, size_t len)
{
	struct flight *f = data;
	const struct ls_hdr *hdr = rec;
	size_t need = entry_size(len);
	struct flight_chunk *c = f->tail;
	__u32 len32 = (__u32)len;
	__u64 horizon;

	if (len < sizeof(*hdr) || need > f->chunk_bytes) {
		f->stats.dropped++;
		return 0;
	}
	flight__keep_begin(f, rec, len);
	if (!c || c->used + need > c->cap) {
		/* room for one more chunk, the oldest leaving first */
		while (f->head && f->stats.bytes + sizeof(*c) + f->chunk_bytes > f->max_bytes)
			flight__evict(f, true);
		c = chunk__new(f->chunk_bytes);
		if (!c) {
			/* tracing goes on; the window has a hole, counted */
			f->stats.dropped++;
			return 0;
		}
		c->next = NULL;
		c->used = 0;
		c->cap = f->chunk_bytes;
		c->max_ts = 0;
		c->n = 0;
		if (f->tail)
			f->tail->next = c;
		else
			f->head = c;
		f->tail = c;
		f->stats.bytes += sizeof(*c) + c->cap;
	}
	memcpy(c->data + c->used, &len32, sizeof(len32));
	memcpy(c->data + c->used + FLIGHT_ENTRY_HDR, rec, len);
	c->used += need;
	c->n++;
	f->stats.records++;
	if (hdr->ts > c->max_ts)
		c->max_ts = hdr->ts;
	if (hdr->ts > f->newest_ts)
		f->newest_ts = hdr->ts;
	/* the newest chunk stays: it is being filled */
	horizon = flight__horizon(f);
	while (f->head && f->head != f->tail && f->head->max_ts < horizon)
		flight__evict(f, false);
	return 0;
}

int flight__trigger(struct flight *f, __u64 at_ns, size_t rule_index)
{
	if (f->pending) {
		f->win.violations++;
		return 1;
	}
	f->pending = true;
	memset(&f->win, 0, sizeof(f->win));
	f->win.at_ns = at_ns;
	f->win.from_ns = at_ns > f->keep_ns ? at_ns - f->keep_ns : 0;
	f->win.to_ns = at_ns + f->after_ns;
	f->win.rule_index = rule_index;
	f->win.violations = 1;
	return 0;
}

bool flight__pending(const struct flight *f, struct flight_window *win)
{
	if (f->pending && win) {
		*win = f->win;
		win->truncated = f->cap_evicted_ts >= f->win.from_ns;
	}
	return f->pending;
}

int flight__write(struct flight *f, int (*fn)(void *ctx, const void *rec, size_t len), void *ctx,
		  struct flight_window *win)
{
	const struct flight_chunk *c;
	int err;

	if (!f->pending)
		return -ENOENT;
	f->pending = false;
	f->win.truncated = f->cap_evicted_ts >= f->win.from_ns;
	if (win)
		*win = f->win;
	if (!fn)
		return 0;
	if (f->begin && ((const struct ls_hdr *)f->begin)->ts < f->win.from_ns) {
		err = fn(ctx, f->begin, f->begin_len);
		if (err < 0)
			return err;
	}
	for (c = f->head; c; c = c->next) {
		size_t off = 0;

		if (c->max_ts < f->win.from_ns)
			continue;
		while (off < c->used) {
			const unsigned char *e = c->data + off;
			const struct ls_hdr *hdr = (const void *)(e + FLIGHT_ENTRY_HDR);
			__u32 len;

			memcpy(&len, e, sizeof(len));
			off += entry_size(len);
			if (hdr->ts < f->win.from_ns || hdr->ts > f->win.to_ns)
				continue;
			err = fn(ctx, hdr, len);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

void flight__stats(const struct flight *f, struct flight_stats *out)
{
	*out = f->stats;
}

void flight__free(struct flight *f)
{
	if (!f)
		return;
	while (f->head)
		flight__evict(f, false);
	free(f->begin);
	free(f);
}

int flight__create(const char *dir, __u64 realtime_ns, size_t rule_index, struct trace_writer **out,
		   char *path, size_t path_len)
{
	time_t secs = (time_t)(realtime_ns / NSEC_PER_SEC);
	char stamp[32], seq[16] = "";
	struct tm tm;
	int i, err = -EEXIST;

	if (!gmtime_r(&secs, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm))
		return -EINVAL;
	for (i = 1; i <= FLIGHT_NAME_TRIES && err == -EEXIST; i++) {
		if (i > 1)
			snprintf(seq, sizeof(seq), "-%d", i);
		if ((size_t)snprintf(path, path_len, "%s/" FLIGHT_PREFIX "%s.%03lluZ-rule%zu%s" FLIGHT_SUFFIX,
				     dir, stamp,
				     (unsigned long long)(realtime_ns % NSEC_PER_SEC / NSEC_PER_MSEC),
				     rule_index + 1, seq) >= path_len)
			return -ENAMETOOLONG;
		err = trace_writer__create(out, path, false, NULL);
	}
	return err;
}

struct flight_file {
	char *name;
	__u64 bytes;
};

static int flight_file__cmp(const void *a, const void *b)
{
	return strcmp(((const struct flight_file *)a)->name, ((const struct flight_file *)b)->name);
}

/* name matches pat, where '#' is a digit and '+' one or more digits; the rest as is. */
static bool name__match(const char *name, const char *pat)
{
	for (; *pat; pat++) {
		if (*pat == '#' || *pat == '+') {
			if (*name < '0' || *name > '9')
				return false;
			name++;
			while (*pat == '+' && *name >= '0' && *name <= '9')
				name++;
		} else if (*name++ != *pat) {
			return false;
		}
	}
	return !*name;
}

/*
 * A name flight__create() makes, and no other ("lockstall-notes.lst" is
 * the operator's), dated no later than a minute from now: a name dated
 * after now was not made by a recorder and, sorting last, would make each
 * new recording the oldest, removed at once.
 */
static bool flight__is_ours(const char *name, const char *now_stamp)
{
#define FLIGHT_NAME FLIGHT_PREFIX "########T######.###Z-rule+"
	if (!name__match(name, FLIGHT_NAME FLIGHT_SUFFIX) &&
	    !name__match(name, FLIGHT_NAME "-+" FLIGHT_SUFFIX))
		return false;
	return strncmp(name + strlen(FLIGHT_PREFIX), now_stamp, strlen(now_stamp)) <= 0;
}

/*
 * The file a recorder wrote: regular (never a symlink), one link, written
 * by us (our uid, no access for others: flight__create() gives 0600).
 */
static bool flight__is_our_file(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1 && st->st_uid == geteuid() &&
	       !(st->st_mode & 0077);
}

int flight__rotate(const char *dir, unsigned int max_files, __u64 max_bytes)
{
	struct flight_file *files = NULL, *grown;
	size_t n = 0, alloc = 0, i;
	__u64 total = 0;
	struct dirent *de;
	int removed = 0;
	DIR *d;

	time_t soon = (time_t)(ls_realtime_ns() / NSEC_PER_SEC) + 60;
	char now_stamp[32];
	struct tm tm;

	if (!gmtime_r(&soon, &tm) || !strftime(now_stamp, sizeof(now_stamp), "%Y%m%dT%H%M%S", &tm))
		return -EINVAL;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;

		/* never through a symlink, never anything but what a recorder wrote */
		if (!flight__is_ours(de->d_name, now_stamp) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !flight__is_our_file(&st))
			continue;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			grown = realloc(files, alloc * sizeof(*files));
			if (!grown)
				goto nomem;
			files = grown;
		}
		files[n].name = strdup(de->d_name);
		if (!files[n].name)
			goto nomem;
		files[n].bytes = (__u64)st.st_size;
		total += files[n].bytes;
		n++;
	}
	if (n)
		qsort(files, n, sizeof(*files), flight_file__cmp);
	for (i = 0; i + 1 < n && (n - i > max_files || total > max_bytes); i++) {
		if (unlinkat(dirfd(d), files[i].name, 0) && errno != ENOENT)
			continue;
		total -= files[i].bytes;
		removed++;
	}
	goto out;
nomem:
	removed = -ENOMEM;
out:
	for (i = 0; i < n; i++)
		free(files[i].name);
	free(files);
	closedir(d);
	return removed;
}
