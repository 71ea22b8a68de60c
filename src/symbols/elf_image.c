// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An ELF file's bytes as symbols need them.  The copy has the file's
 * size and layout, so libelf parses it as the file, but only the headers,
 * the symbol and string tables, the notes and .gnu_debuglink are read into
 * it.  Code and data, most of a binary, stay untouched zero pages: never
 * read, never resident, never charged.  The file is never mapped: the
 * traced process may shrink it at any time.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "symbols/internal.h"

/* Past this many ranges to read, the file is read whole: no table grows with a hostile file. */
#define IMAGE_MAX_RANGES	64

struct image_plan {
	struct {
		__u64 off, len;
	} r[IMAGE_MAX_RANGES];
	size_t n;
	__u64 bytes;		/* read, each range in whole pages */
	bool whole;		/* read it all: too many ranges, or headers not understood */
};

static __u64 page_span(__u64 off, __u64 len)
{
	const __u64 pg = 4096;

	return ((off + len + pg - 1) & ~(pg - 1)) - (off & ~(pg - 1));
}

/* [off, off + len) of a file of size bytes, to be read; false when it is out of the file. */
static bool plan_add(struct image_plan *p, __u64 size, __u64 off, __u64 len)
{
	if (!len)
		return true;
	if (off > size || len > size - off)
		return false;
	if (p->n == IMAGE_MAX_RANGES) {
		p->whole = true;
		return true;
	}
	p->r[p->n].off = off;
	p->r[p->n].len = len;
	p->n++;
	p->bytes += page_span(off, len);
	return true;
}

/* The section's name, from a string table already in img; "" when it is not there. */
static const char *section_name(const __u8 *img, size_t size, const Elf64_Shdr *strs, __u32 at)
{
	const char *s;

	if (strs->sh_type != SHT_STRTAB || strs->sh_offset > size ||
	    strs->sh_size > size - strs->sh_offset || at >= strs->sh_size)
		return "";
	s = (const char *)img + strs->sh_offset + at;
	return memchr(s, 0, strs->sh_size - at) ? s : "";
}

static bool section_wanted(const Elf64_Shdr *sh, const char *name)
{
	switch (sh->sh_type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
	case SHT_STRTAB:
	case SHT_SYMTAB_SHNDX:
	case SHT_NOTE:
		return true;
	default:
		return !strcmp(name, ".gnu_debuglink");
	}
}

static int read_range(int fd, __u8 *img, __u64 off, __u64 len)
{
	return sym_pread(fd, img + off, (size_t)len, off);
}

/* The headers are where the file says, aligned or not: copied out, never cast. */
static Elf64_Shdr shdr_at(const __u8 *img, const Elf64_Ehdr *eh, size_t i)
{
	Elf64_Shdr sh;

	memcpy(&sh, img + eh->e_shoff + i * sizeof(sh), sizeof(sh));
	return sh;
}

static Elf64_Phdr phdr_at(const __u8 *img, const Elf64_Ehdr *eh, size_t i)
{
	Elf64_Phdr ph;

	memcpy(&ph, img + eh->e_phoff + i * sizeof(ph), sizeof(ph));
	return ph;
}

/*
 * Read the program and section headers into img, then plan the sections
 * and note segments to read.  The section names' table is read here
 * already: the other sections are chosen by their names in it.
 */
static int image_plan(int fd, __u8 *img, size_t size, struct image_plan *p)
{
	Elf64_Shdr sh, strs = { .sh_type = SHT_NULL };
	Elf64_Phdr ph;
	Elf64_Ehdr eh;
	size_t i;
	int err;

	if (size < sizeof(eh) || read_range(fd, img, 0, sizeof(eh)))
		goto whole;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(ph) ||
	    eh.e_shentsize != sizeof(sh) || !eh.e_shnum || eh.e_shstrndx >= eh.e_shnum ||
	    !plan_add(p, size, eh.e_phoff, (__u64)eh.e_phnum * sizeof(ph)) ||
	    !plan_add(p, size, eh.e_shoff, (__u64)eh.e_shnum * sizeof(sh)))
		goto whole;
	for (i = 0; i < p->n; i++) {
		err = read_range(fd, img, p->r[i].off, p->r[i].len);
		if (err)
			return err;
	}
	sh = shdr_at(img, &eh, eh.e_shstrndx);
	if (sh.sh_type == SHT_STRTAB && plan_add(p, size, sh.sh_offset, sh.sh_size) && !p->whole) {
		err = read_range(fd, img, sh.sh_offset, sh.sh_size);
		if (err)
			return err;
		strs = sh;
	}
	for (i = 0; i < eh.e_shnum && !p->whole; i++) {
		sh = shdr_at(img, &eh, i);
		/* one out of the file is libelf's to refuse; nothing is read for it */
		if (sh.sh_type != SHT_NOBITS &&
		    section_wanted(&sh, section_name(img, size, &strs, sh.sh_name)))
			plan_add(p, size, sh.sh_offset, sh.sh_size);
	}
	for (i = 0; i < eh.e_phnum && !p->whole; i++) {
		ph = phdr_at(img, &eh, i);
		if (ph.p_type == PT_NOTE)
			plan_add(p, size, ph.p_offset, ph.p_filesz);
	}
	return 0;
whole:
	p->whole = true;
	return 0;
}

static int image_map(size_t size, __u8 **out)
{
	void *img = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);

	if (img == MAP_FAILED)
		return -ENOMEM;
	*out = img;
	return 0;
}

int elf_image__read(struct elf_image *im, int fd, struct sym_budget *b, size_t max, bool whole)
{
	struct image_plan p = { .whole = whole };
	struct stat before, after;
	__u8 *img = NULL;
	size_t size, i;
	int err;

	memset(im, 0, sizeof(*im));
	if (fstat(fd, &before))
		return -errno;
	if (!S_ISREG(before.st_mode) || before.st_size <= 0)
		return -ENOEXEC;
	if ((__u64)before.st_size > max) {
		if (b)
			b->too_big++;
		return -EFBIG;
	}
	size = (size_t)before.st_size;
	err = image_map(size, &img);
	if (err)
		return err;
	if (!p.whole)
		err = image_plan(fd, img, size, &p);
	if (!err && p.whole) {
		p.n = 1;
		p.r[0].off = 0;
		p.r[0].len = size;
		p.bytes = page_span(0, size);
	}
	if (!err && b && p.bytes > sym_budget__limit(b) / 2) {
		b->too_big++;
		err = -EFBIG;
	}
	if (!err)
		err = sym_budget__take_read(b, (size_t)p.bytes);
	for (i = 0; !err && i < p.n; i++)
		err = read_range(fd, img, p.r[i].off, p.r[i].len);
	if (!err && (fstat(fd, &after) || !sym_same_version(&before, &after)))
		err = -ESTALE;
	if (err) {
		if (err == -ESTALE && b)
			b->changed++;
		munmap(img, size);
		return err;
	}
	im->bytes = img;
	im->len = size;
	im->held = (size_t)p.bytes;
	return 0;
}

void elf_image__free(struct elf_image *im)
{
	if (im->bytes)
		munmap(im->bytes, im->len);
	memset(im, 0, sizeof(*im));
}
