// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwinder's files: of each ELF file its headers and unwind sections
 * read into private memory (elf_image__read, never mapped), parsed
 * (unwind_tables.c), charged to the memory budget it shares with the
 * symbolizer, and read again when stat says it changed, or when it was
 * read just as it changed (racy, as the symbolizer's).  A file an unwind
 * in progress uses is never let go.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/internal.h"
#include "symbols/unwind.h"
#include "symbols/unwind_file.h"
#include "util.h"

void uw_file_release(struct unwinder *u, struct uw_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	sym_budget__release(u->budget, f->charged);
	elf_image__free(&f->im);
	free(f->synth);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* The least recently used file but f that no unwind in progress uses; NULL: none. */
static struct uw_file *uw_lru(struct unwinder *u, const struct uw_file *f)
{
	struct uw_file *victim = NULL;
	unsigned int i;

	for (i = 0; i < u->max_files; i++) {
		struct uw_file *c = &u->files[i];

		if (c != f && c->path && c->charged && c->checked != u->gen &&
		    (!victim || c->last_use < victim->last_use))
			victim = c;
	}
	return victim;
}

/* Before f's file of size bytes is read: room for its copy, so old and new are not held at once. */
static void uw_make_room(struct unwinder *u, const struct uw_file *f, off_t size)
{
	struct uw_file *victim;
	size_t limit, want;

	if (!u->budget)
		return;
	limit = sym_budget__limit(u->budget);
	want = size > 0 && (__u64)size < limit ? (size_t)size : limit;
	while (u->budget->used > limit - want && (victim = uw_lru(u, f)))
		uw_file_release(u, victim);
}

/*
 * Charge f's bytes to the budget, letting go of the least recently used
 * files no unwind in progress uses; -ENOMEM when they do not fit even so.
 */
static int uw_file_charge(struct unwinder *u, struct uw_file *f)
{
	size_t cost = f->im.held + f->synth_len;
	struct uw_file *victim;

	while (sym_budget__charge(u->budget, cost)) {
		victim = uw_lru(u, f);
		if (!victim) {
			u->budget->too_big++;
			return -ENOMEM;
		}
		uw_file_release(u, victim);
	}
	f->charged = u->budget ? cost : 0;
	return 0;
}

/*
 * Fill a free slot from path; on failure the slot keeps the error (a
 * negative cache entry).  The path is the traced process's to change: it
 * is opened without blocking or following a link, and only as the file
 * that is mapped (want's device and inode), never another one put there.
 */
static void uw_file_load(struct unwinder *u, struct uw_file *f, const char *path,
			 const struct unwind_map *want)
{
	struct stat st;
	int fd, err = 0;

	f->path = strdup(path);
	if (!f->path) {
		f->err = -ENOMEM;
		return;
	}
	fd = ls_open_regular(path, false, &st);
	if (fd < 0) {
		err = fd == -EINVAL ? -ENOEXEC : fd;
		goto cleanup;
	}
	/* not cached as the file's: the right one may be back at the path */
	if (want->ino && (want->ino != (__u64)st.st_ino || want->dev != (__u64)st.st_dev)) {
		err = -ESTALE;
		goto cleanup;
	}
	sym_version__of(&f->ver, &st);
	f->racy = sym_budget__racy(u->budget, &st);
	err = elf_image__read(&f->im, fd, u->budget, SIZE_MAX, ELF_IMAGE_UNWIND);
	if (err)
		goto cleanup;
	uw_make_room(u, f, (off_t)f->im.held);
	f->elf = elf_memory(f->im.bytes, f->im.len);
	err = f->elf ? uw_file__parse(f) : -ENOEXEC;
	if (!err)
		err = uw_file_charge(u, f);
cleanup:
	if (fd >= 0)
		close(fd);
	/* no room or no time this once: not the file's fault, read it again next time */
	if (err == -EAGAIN || err == -ENOMEM || err == -ESTALE)
		f->ver.size = -1;
	/* a file that failed keeps its error, not its copy and tables, which nothing charged */
	if (err) {
		if (f->elf)
			elf_end(f->elf);
		f->elf = NULL;
		elf_image__free(&f->im);
		free(f->synth);
		f->synth = NULL;
		f->synth_len = 0;
	}
	f->err = err;
}

/* uw_mod entries point at the files of the unwind in progress: none of those is evicted. */
int uw_file_get(struct unwinder *u, const struct unwind_map *map, struct uw_file **out)
{
	struct uw_file *f = NULL, *victim = NULL;
	unsigned int i;

	for (i = 0; i < u->max_files; i++) {
		struct uw_file *c = &u->files[i];

		if (c->path && !strcmp(c->path, map->path)) {
			f = c;
			break;
		}
		if (c->checked == u->gen && c->path)
			continue;
		if (!victim || !c->path || (victim->path && c->last_use < victim->last_use))
			victim = c;
	}
	if (f && f->checked != u->gen) {
		struct stat st;

		if (f->racy || stat(map->path, &st) || !sym_version__same(&f->ver, &st) ||
		    (map->ino && (map->ino != (__u64)f->ver.ino || map->dev != (__u64)f->ver.dev))) {
			uw_file_release(u, f);
			victim = f;
			f = NULL;
		}
	}
	if (!f) {
		if (!victim)
			return -ENOENT;	/* every slot serves this very unwind */
		if (victim->path)
			uw_file_release(u, victim);
		f = victim;
		uw_file_load(u, f, map->path, map);
		if (!f->path)
			return -ENOMEM;
	}
	f->checked = u->gen;
	f->last_use = ++u->clock;
	*out = f;
	return f->err;
}
