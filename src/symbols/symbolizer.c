// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The facade: kernel addresses through a ksyms loaded once, user addresses
 * through the process's mappings and a cache of elf_files keyed by
 * (build-id, path), bounded in files and, through the budget, in bytes.
 * See symbols.h for why.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/internal.h"
#include "util.h"

struct cache_ent {
	struct elf_file *ef;
	char *path;		/* the mapping's path; "" for a debug file found by build-id */
	__u8 build_id[LS_BUILD_ID_MAX];
	size_t build_id_len;	/* 0: the file has none, only (path, stat) identify it */
	struct sym_version ver;	/* of the file on disk read: a live mapping is matched by it */
	bool debug_only;	/* symbols of a debug file, the mapped file not at hand */
	bool racy;		/* read just as it changed: its stat alone does not vouch for it */
	__u64 used;		/* LRU tick */
	size_t charged;		/* bytes charged to the budget */
};

/*
 * What a path looked like the last time it was asked about, for files
 * that change between asks (a memfd rewritten, a file touched): each
 * change seen in a row doubles the asks that go unanswered before the
 * file is read again, so a file that changes more often than it is asked
 * about stops costing a read per ask.  A path asked about twice unchanged
 * is read at once.
 */
struct churn_ent {
	char *path;		/* NULL: free */
	struct sym_version ver;	/* as it was at the last ask */
	unsigned int streak;	/* changes seen in a row */
	unsigned int skip;	/* asks still to go unanswered */
	__u64 used;
};

struct symbolizer {
	char *kallsyms;
	char *debug_root;
	struct ksyms *ks;
	int ks_err;
	bool ks_tried;
	struct cache_ent *ents;
	size_t n, cap;
	__u64 tick;
	struct sym_budget *budget;
	struct sym_budget own_budget;	/* when the caller gave none */
	struct churn_ent churn[SYMBOLIZER_CHURN_PATHS];
};

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cap = opts && opts->max_files ? opts->max_files : SYMBOLIZER_MAX_FILES;
	s->budget = opts && opts->budget ? opts->budget : &s->own_budget;
	s->ents = calloc(s->cap, sizeof(*s->ents));
	if (opts && opts->kallsyms)
		s->kallsyms = strdup(opts->kallsyms);
	if (opts && opts->debug_root)
		s->debug_root = strdup(opts->debug_root);
	if (!s->ents || (opts && opts->kallsyms && !s->kallsyms) ||
	    (opts && opts->debug_root && !s->debug_root)) {
		symbolizer__free(s);
		return NULL;
	}
	return s;
}

static void cache_ent__clear(struct symbolizer *s, struct cache_ent *e)
{
	sym_budget__release(s->budget, e->charged);
	elf_file__free(e->ef);
	free(e->path);
	memset(e, 0, sizeof(*e));
}

void symbolizer__free(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		cache_ent__clear(s, &s->ents[i]);
	for (i = 0; i < SYMBOLIZER_CHURN_PATHS; i++)
		free(s->churn[i].path);
	free(s->ents);
	ksyms__free(s->ks);
	free(s->kallsyms);
	free(s->debug_root);
	free(s);
}

const struct ksyms *symbolizer__ksyms(struct symbolizer *s, int *err)
{
	if (!s->ks_tried) {
		s->ks_tried = true;
		s->ks_err = ksyms__load(&s->ks, s->kallsyms);
	}
	if (err)
		*err = s->ks_err;
	return s->ks;
}

int symbolizer__kernel(struct symbolizer *s, __u64 addr, struct ls_sym *out)
{
	const struct ksyms *ks;
	int err;

	if (!s || !out)
		return -EINVAL;
	ks = symbolizer__ksyms(s, &err);
	if (!ks) {
		ls_sym__unknown(out, LS_SYM_NO_MAPPING);
		return err;
	}
	ksyms__find(ks, addr, out);
	return 0;
}

/* ---- the cache ---- */

static bool same_build_id(const __u8 *a, size_t alen, const __u8 *b, size_t blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

static struct cache_ent *cache__find_id(struct symbolizer *s, const __u8 *id, size_t len,
					const char *path)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct cache_ent *e = &s->ents[i];

		if (same_build_id(e->build_id, e->build_id_len, id, len) && !strcmp(e->path, path))
			return e;
	}
	return NULL;
}

static struct cache_ent *cache__find_stat(struct symbolizer *s, const char *path, const struct stat *st)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct cache_ent *e = &s->ents[i];

		if (!e->debug_only && sym_version__same(&e->ver, st) && !strcmp(e->path, path))
			return e;
	}
	return NULL;
}

/* The least recently used entry but keep; NULL when there is none. */
static struct cache_ent *cache__lru(struct symbolizer *s, const struct cache_ent *keep)
{
	struct cache_ent *e = NULL;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (&s->ents[i] != keep && (!e || s->ents[i].used < e->used))
			e = &s->ents[i];
	}
	return e;
}

/* Drop e, the last entry taking its slot. */
static void cache__remove(struct symbolizer *s, struct cache_ent *e)
{
	cache_ent__clear(s, e);
	*e = s->ents[--s->n];
	memset(&s->ents[s->n], 0, sizeof(*e));
}

/*
 * Charge bytes more for e (NULL: one not in the cache yet), letting go
 * of the least recently used other files until they fit; -ENOMEM when
 * they do not even then.
 */
static int cache__charge(struct symbolizer *s, struct cache_ent *e, size_t bytes)
{
	struct cache_ent *victim;
	size_t slot = e ? (size_t)(e - s->ents) : 0;

	while (sym_budget__charge(s->budget, bytes)) {
		victim = cache__lru(s, e);
		if (!victim) {
			s->budget->too_big++;
			return -ENOMEM;
		}
		/* the last entry moves into the victim's slot: follow e */
		if (e && e == &s->ents[s->n - 1])
			slot = (size_t)(victim - s->ents);
		cache__remove(s, victim);
		if (e)
			e = &s->ents[slot];
	}
	if (e)
		e->charged += bytes;
	return 0;
}

/*
 * Before a file of size bytes is read: let go of the least recently used
 * files until its copy would fit, so that old and new are not held at once.
 */
static void cache__make_room(struct symbolizer *s, off_t size)
{
	size_t limit = sym_budget__limit(s->budget);
	size_t want = size > 0 && (__u64)size < limit ? (size_t)size : limit;

	while (s->n && s->budget->used > limit - want)
		cache__remove(s, cache__lru(s, NULL));
}

/*
 * The file st describes is about to be read: its earlier versions without
 * a build-id go.  Only their stat could find them, and it cannot again: a
 * mapping shows an inode's content as it is now, and ctime never goes back.
 */
static void cache__drop_versions(struct symbolizer *s, const struct stat *st)
{
	size_t i = 0;

	while (i < s->n) {
		struct cache_ent *e = &s->ents[i];

		if (!e->build_id_len && !e->debug_only && e->ver.dev == st->st_dev &&
		    e->ver.ino == st->st_ino && !sym_version__same(&e->ver, st))
			cache__remove(s, e);
		else
			i++;
	}
}

/* e was read from the file st describes (racy: just as it changed, SYM_RACY_NS). */
static void cache__set_stat(struct symbolizer *s, struct cache_ent *e, const struct stat *st)
{
	sym_version__of(&e->ver, st);
	e->racy = sym_budget__racy(s->budget, st);
}

/*
 * Insert ef under path (taking ownership, also on error).  A full cache
 * drops its least recently used file (fds), and so does a spent budget
 * (bytes), until ef fits; -ENOMEM when it does not.
 */
static int cache__insert(struct symbolizer *s, struct elf_file *ef, const char *path,
			 const struct stat *st, bool debug_only, struct cache_ent **out)
{
	size_t cost = elf_file__cost(ef);
	struct cache_ent *e;
	const __u8 *id;
	size_t len;

	if (cache__charge(s, NULL, cost)) {
		elf_file__free(ef);
		return -ENOMEM;
	}
	if (s->n == s->cap)
		cache__remove(s, cache__lru(s, NULL));
	e = &s->ents[s->n++];
	e->charged = cost;
	e->path = strdup(path);
	if (!e->path) {
		elf_file__free(ef);
		cache__remove(s, e);
		return -ENOMEM;
	}
	e->ef = ef;
	if (!elf_file__build_id(ef, &id, &len)) {
		memcpy(e->build_id, id, len);
		e->build_id_len = len;
	}
	if (st)
		cache__set_stat(s, e, st);
	e->debug_only = debug_only;
	e->used = ++s->tick;
	*out = e;
	return 0;
}

/* path's record of changes, a new one (the oldest's slot) when create. */
static struct churn_ent *churn__get(struct symbolizer *s, const char *path, bool create)
{
	struct churn_ent *c, *old = &s->churn[0];
	size_t i;

	for (i = 0; i < SYMBOLIZER_CHURN_PATHS; i++) {
		c = &s->churn[i];
		if (c->path && !strcmp(c->path, path))
			return c;
		if (!c->path || (old->path && c->used < old->used))
			old = c;
	}
	if (!create)
		return NULL;
	free(old->path);
	memset(old, 0, sizeof(*old));
	old->path = strdup(path);
	return old->path ? old : NULL;
}

/* A path found in the cache as it was: it is not changing between asks. */
static void churn__steady(struct symbolizer *s, const char *path, const struct stat *st)
{
	struct churn_ent *c = churn__get(s, path, false);

	if (!c)
		return;
	sym_version__of(&c->ver, st);
	c->streak = 0;
	c->skip = 0;
}

/*
 * A live file not in the cache is asked about, as st: true when it is to
 * be read now, false when it changed since the last ask, again, and its
 * turn has not come (counted).
 */
static bool churn__may_read(struct symbolizer *s, const char *path, const struct stat *st)
{
	struct churn_ent *c = churn__get(s, path, true);
	bool changed;

	if (!c)
		return true;
	changed = c->used && !sym_version__same(&c->ver, st);
	sym_version__of(&c->ver, st);
	c->used = ++s->tick;
	if (!changed) {
		c->streak = 0;
		c->skip = 0;
		return true;
	}
	if (c->skip) {
		c->skip--;
		s->budget->churning++;
		return false;
	}
	if (c->streak < SYMBOLIZER_CHURN_MAX_SHIFT)
		c->streak++;
	c->skip = (1u << c->streak) - 1;
	return true;
}

/*
 * Where to open m's file, and its stat: through /proc/<pid>/map_files for
 * a deleted file of a live process (the mapped file itself), through
 * /proc/<pid>/root for its mount namespace, else -- or once the process
 * is gone -- the path as it is (the caller checks the inode or build-id).
 */
static int stat_mapped(const struct proc_maps *maps, const struct proc_map *m, char *buf, size_t len,
		       struct stat *st)
{
	if (maps->pid && m->deleted)
		snprintf(buf, len, "/proc/%u/map_files/%llx-%llx", maps->pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
	else if (maps->pid)
		snprintf(buf, len, "/proc/%u/root%s", maps->pid, m->path);
	if (maps->pid && !stat(buf, st))
		return 0;
	if (maps->pid && m->deleted)
		return -ENOENT;
	snprintf(buf, len, "%s", m->path);
	return stat(buf, st) ? -errno : 0;
}

/* fd is the file st describes. */
static bool same_inode(int fd, const struct stat *st)
{
	struct stat now;

	return !fstat(fd, &now) && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/*
 * The file mapped at m as it is on disk now: its path to open into buf,
 * its stat, and its cache entry when one vouches for it (else *e NULL, or
 * a racy one).  -ESTALE: another file at that path now.
 */
static int live_stat(struct symbolizer *s, const struct proc_maps *maps, const struct proc_map *m,
		     char *buf, size_t len, struct stat *st, struct cache_ent **e)
{
	int err = stat_mapped(maps, m, buf, len, st);

	*e = NULL;
	if (err)
		return err;
	/* another file at that path now: not the one that was mapped */
	if (m->inode && (__u64)st->st_ino != m->inode)
		return -ESTALE;
	*e = cache__find_stat(s, m->path, st);
	return 0;
}

/* Open the file as it is on disk now, or find it in the cache. */
static int lookup_live(struct symbolizer *s, const struct proc_maps *maps, const struct proc_map *m,
		       struct cache_ent **out)
{
	struct cache_ent *e;
	struct elf_file *ef;
	char buf[PATH_MAX + 64];
	struct stat st;
	const __u8 *id;
	size_t len;
	int err;

	err = live_stat(s, maps, m, buf, sizeof(buf), &st, &e);
	if (err)
		return err;
	if (e && !e->racy) {
		churn__steady(s, m->path, &st);
		*out = e;
		return 0;
	}
	/* read as it changed: it may have changed again unseen, so read it once more */
	if (e)
		cache__remove(s, e);
	cache__drop_versions(s, &st);
	if (!churn__may_read(s, m->path, &st))
		return -EAGAIN;
	cache__make_room(s, st.st_size);
	err = elf_file__open_with(&ef, buf, s->debug_root, s->budget);
	if (err)
		return err;
	if (!same_inode(elf_file__fd(ef), &st)) {
		/* swapped after the stat: not the file that is mapped either */
		elf_file__free(ef);
		return -ESTALE;
	}
	if (!elf_file__build_id(ef, &id, &len) && (e = cache__find_id(s, id, len, m->path))) {
		/* the same build seen through another stat (a copy, a touch): keep one */
		elf_file__free(ef);
		cache__set_stat(s, e, &st);
		*out = e;
		return 0;
	}
	return cache__insert(s, ef, m->path, &st, false, out);
}

/* The mapping carries the build-id it had (a recording): only that build will do. */
static int lookup_build_id(struct symbolizer *s, const struct proc_maps *maps, const struct proc_map *m,
			   struct cache_ent **out)
{
	struct elf_file *ef = NULL;
	char buf[PATH_MAX + 64];
	struct stat st;
	const __u8 *id;
	size_t len;
	int err;

	*out = cache__find_id(s, m->build_id, m->build_id_len, m->path);
	if (*out)
		return 0;
	*out = cache__find_id(s, m->build_id, m->build_id_len, "");
	if (*out)
		return 0;
	err = stat_mapped(maps, m, buf, sizeof(buf), &st);
	if (!err)
		err = elf_file__open_with(&ef, buf, s->debug_root, s->budget);
	if (!err) {
		if (!elf_file__build_id(ef, &id, &len) &&
		    same_build_id(id, len, m->build_id, m->build_id_len))
			return cache__insert(s, ef, m->path, &st, false, out);
		elf_file__free(ef);
		err = -ESTALE;
	}
	/* changed or gone: its debug file still has the names of that build */
	if (!elf_file__open_debug_with(&ef, m->build_id, m->build_id_len, s->debug_root, s->budget))
		return cache__insert(s, ef, "", NULL, true, out);
	return err;
}

/* The file's mapping at offset 0, which a debug-only elf_file takes its bias from. */
static const struct proc_map *first_mapping(const struct proc_maps *maps, const struct proc_map *m)
{
	size_t i;

	for (i = 0; i < maps->n; i++) {
		const struct proc_map *f = &maps->v[i];

		if (!f->pgoff && f->inode == m->inode && f->dev_major == m->dev_major &&
		    f->dev_minor == m->dev_minor && !strcmp(f->path, m->path))
			return f;
	}
	return NULL;
}

/* Mapping m's cache entry and bias; the status when it cannot. */
static int resolve_map(struct symbolizer *s, const struct proc_maps *maps, const struct proc_map *m,
		       struct ls_file_info *info, enum ls_sym_status *status)
{
	const struct proc_map *base;
	struct cache_ent *e;
	int err;

	memset(info, 0, sizeof(*info));
	info->map = m;
	*status = LS_SYM_NO_FILE;
	if (!proc_map__is_file(m))
		return -ENOENT;
	err = m->build_id_len ? lookup_build_id(s, maps, m, &e) : lookup_live(s, maps, m, &e);
	if (err) {
		if (err == -ESTALE)
			*status = LS_SYM_FILE_CHANGED;
		else if (err == -EAGAIN || err == -EFBIG || err == -ENOMEM)
			*status = LS_SYM_SKIPPED;
		return err;
	}
	e->used = ++s->tick;
	base = e->debug_only ? first_mapping(maps, m) : m;
	if (!base || elf_file__bias(e->ef, base, &info->bias)) {
		*status = LS_SYM_NO_SYMBOL;
		return -ENOENT;
	}
	info->elf = e->ef;
	*status = LS_SYM_OK;
	return 0;
}

/* ip to mapping, cache entry and bias; the status when it cannot. */
static int resolve(struct symbolizer *s, const struct proc_maps *maps, __u64 ip, struct ls_file_info *info,
		   enum ls_sym_status *status)
{
	const struct proc_map *m = proc_maps__find(maps, ip);

	if (!m) {
		memset(info, 0, sizeof(*info));
		*status = LS_SYM_NO_MAPPING;
		return -ENOENT;
	}
	return resolve_map(s, maps, m, info, status);
}

/*
 * The file mapping whose data m holds: m itself, or for the anonymous
 * mapping right after a file's writable one, that one (the kernel maps a
 * segment's .bss past the file's last page as anonymous memory).  NULL:
 * heap, stack, other anonymous memory.
 */
static const struct proc_map *data_mapping(const struct proc_maps *maps, const struct proc_map *m)
{
	const struct proc_map *prev = m > maps->v ? m - 1 : NULL;

	if (proc_map__is_file(m))
		return m;
	if (m->path[0] || m->inode || !prev || prev->end != m->start || !proc_map__is_file(prev) ||
	    !(prev->perms & PROC_MAP_W) || !(m->perms & PROC_MAP_W))
		return NULL;
	return prev;
}

/* m, or a copy of it with the build-id another mapping of its file carries. */
static const struct proc_map *with_build_id(const struct proc_maps *maps, const struct proc_map *m,
					    struct proc_map *copy)
{
	size_t i;

	if (m->build_id_len)
		return m;
	for (i = 0; i < maps->n; i++) {
		const struct proc_map *f = &maps->v[i];

		if (f->build_id_len && f->inode == m->inode && f->dev_major == m->dev_major &&
		    f->dev_minor == m->dev_minor && !strcmp(f->path, m->path)) {
			*copy = *m;
			memcpy(copy->build_id, f->build_id, f->build_id_len);
			copy->build_id_len = f->build_id_len;
			return copy;
		}
	}
	return m;
}

/*
 * The data symbol of ef at vaddr: a window of ef's table is read when none
 * kept covers it, and charged; a window that does not fit, or a read the
 * second's rate has no room for, gives no name (LS_SYM_SKIPPED).
 */
static void data_symbol(struct symbolizer *s, struct elf_file *ef, __u64 vaddr,
			struct ls_sym *out)
{
	size_t before = elf_file__cost(ef), after;
	size_t i;
	int err = elf_file__find_data(ef, vaddr, out);

	after = elf_file__cost(ef);
	if (after > before) {
		for (i = 0; i < s->n && s->ents[i].ef != ef; i++)
			;
		if (i == s->n || cache__charge(s, &s->ents[i], after - before)) {
			elf_file__drop_data(ef);
			err = -ENOMEM;
		}
	}
	if (err == -EAGAIN || err == -ENOMEM)
		ls_sym__unknown(out, LS_SYM_SKIPPED);
}

int symbolizer__data(struct symbolizer *s, const struct proc_maps *maps, __u64 addr,
		     struct ls_sym *out)
{
	const struct proc_map *m, *fm;
	enum ls_sym_status status;
	struct ls_file_info info;
	struct proc_map copy;

	if (!s || !maps || !out)
		return -EINVAL;
	m = proc_maps__find(maps, addr);
	fm = m ? data_mapping(maps, m) : NULL;
	ls_sym__unknown(out, m ? LS_SYM_NO_FILE : LS_SYM_NO_MAPPING);
	if (!fm)
		return 0;
	out->module = fm->path;
	out->module_off = addr - fm->start + fm->pgoff;
	m = with_build_id(maps, fm, &copy);
	/* gone: the path may hold another build by now, only a build-id says it does not */
	if (!maps->pid && !m->build_id_len)
		return 0;
	if (resolve_map(s, maps, m, &info, &status)) {
		out->status = (__u8)status;
		return 0;
	}
	data_symbol(s, info.elf, addr - info.bias, out);
	out->module = fm->path;
	out->module_off = addr - fm->start + fm->pgoff;
	return 0;
}

int symbolizer__user(struct symbolizer *s, const struct proc_maps *maps, __u64 addr, struct ls_sym *out)
{
	enum ls_sym_status status;
	struct ls_file_info info;

	if (!s || !maps || !out)
		return -EINVAL;
	if (resolve(s, maps, addr, &info, &status)) {
		ls_sym__unknown(out, status);
	} else {
		elf_file__find(info.elf, addr - info.bias, out);
	}
	if (info.map) {
		out->module = info.map->path[0] ? info.map->path : NULL;
		out->module_off = addr - info.map->start + info.map->pgoff;
	}
	return 0;
}

int symbolizer__build_id(struct symbolizer *s, const struct proc_maps *maps,
			 const struct proc_map *m, __u8 *id, size_t *len)
{
	char buf[PATH_MAX + 64];
	struct cache_ent *e;
	struct stat st, opened;
	int fd, err;

	if (!s || !maps || !m || !proc_map__is_file(m))
		return -EINVAL;
	err = live_stat(s, maps, m, buf, sizeof(buf), &st, &e);
	if (err)
		return err;
	if (e && !e->racy) {
		if (!e->build_id_len)
			return -ENOENT;
		memcpy(id, e->build_id, e->build_id_len);
		*len = e->build_id_len;
		return 0;
	}
	/* a page's worth against the rate, whatever the notes take */
	err = sym_budget__take_read(s->budget, 4096);
	if (err)
		return err;
	fd = ls_open_regular(buf, true, &opened);
	if (fd < 0)
		return fd == -EINVAL ? -ENOEXEC : fd;
	err = same_inode(fd, &st) ? elf_build_id_of_fd(fd, id, len) : -ESTALE;
	close(fd);
	return err;
}

int symbolizer__file(struct symbolizer *s, const struct proc_maps *maps, __u64 ip, struct ls_file_info *out)
{
	enum ls_sym_status status;

	if (!s || !maps || !out)
		return -EINVAL;
	return resolve(s, maps, ip, out, &status);
}
