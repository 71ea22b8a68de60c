// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An ELF file's bytes as names or unwinding need them.  The copy has the
 * file's size and layout, so libelf parses it as the file, but only the
 * headers and what the use needs are read into it: for names the symbol
 * and string tables, the notes and .gnu_debuglink; for unwinding
 * .eh_frame_hdr, .eh_frame and .debug_frame.  Code and data, most of a
 * binary, stay untouched zero pages: never read, never resident, never
 * charged, and elf_image__range() says they were not read.  The file is
 * never mapped: the traced process may shrink it at any time.
 *
 * Also the build-id from the notes alone (elf_build_id_of_fd), a few
 * hundred bytes read by hand, without libelf.
 */
#include <errno.h>
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "symbols/internal.h"

struct image_plan {
	struct elf_image_range r[ELF_IMAGE_MAX_RANGES];
	size_t n;
	size_t done;		/* the first ranges, read already to choose the others */
	__u64 bytes;		/* read, each range in whole pages */
	enum elf_image_use use;
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
	if (p->n == ELF_IMAGE_MAX_RANGES) {
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

static bool section_wanted(const Elf64_Shdr *sh, const char *name, enum elf_image_use use)
{
	if (use == ELF_IMAGE_UNWIND)
		return !strcmp(name, ".eh_frame") || !strcmp(name, ".eh_frame_hdr") ||
		       !strcmp(name, ".debug_frame");
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

/* A segment the use reads whole: notes for a build-id, the unwind table's header. */
static bool segment_wanted(const Elf64_Phdr *ph, enum elf_image_use use)
{
	return ph->p_type == (use == ELF_IMAGE_UNWIND ? PT_GNU_EH_FRAME : PT_NOTE);
}

static int read_range(int fd, __u8 *img, __u64 off, __u64 len)
{
	return sym_pread(fd, img + off, (size_t)len, off);
}

/* The ranges planned and not read yet, read. */
static int image_read(int fd, __u8 *img, struct image_plan *p)
{
	int err;

	for (; p->done < p->n; p->done++) {
		err = read_range(fd, img, p->r[p->done].off, p->r[p->done].len);
		if (err)
			return err;
	}
	return 0;
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
	err = image_read(fd, img, p);
	if (err)
		return err;
	sh = shdr_at(img, &eh, eh.e_shstrndx);
	if (sh.sh_type == SHT_STRTAB && plan_add(p, size, sh.sh_offset, sh.sh_size) && !p->whole) {
		err = image_read(fd, img, p);
		if (err)
			return err;
		strs = sh;
	}
	for (i = 0; i < eh.e_shnum && !p->whole; i++) {
		if (i == eh.e_shstrndx)
			continue;	/* planned and read above when it is one */
		sh = shdr_at(img, &eh, i);
		/* one out of the file is libelf's to refuse; nothing is read for it */
		if (sh.sh_type != SHT_NOBITS &&
		    section_wanted(&sh, section_name(img, size, &strs, sh.sh_name), p->use))
			plan_add(p, size, sh.sh_offset, sh.sh_size);
	}
	for (i = 0; i < eh.e_phnum && !p->whole; i++) {
		ph = phdr_at(img, &eh, i);
		if (segment_wanted(&ph, p->use))
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

int elf_image__read(struct elf_image *im, int fd, struct sym_budget *b, size_t max,
		    enum elf_image_use use)
{
	struct image_plan p = { .use = use, .whole = use == ELF_IMAGE_WHOLE };
	struct stat before, after;
	__u8 *img = NULL;
	size_t size;
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
		p.done = 0;
		p.n = 1;
		p.r[0].off = 0;
		p.r[0].len = size;
		p.bytes = page_span(0, size);
	}
	/* a small file's ranges share its few pages: never more than all of them */
	if (p.bytes > page_span(0, size))
		p.bytes = page_span(0, size);
	if (!err && b && p.bytes > sym_budget__limit(b) / 2) {
		b->too_big++;
		err = -EFBIG;
	}
	if (!err)
		err = sym_budget__take_read(b, (size_t)p.bytes);
	if (!err)
		err = image_read(fd, img, &p);
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
	memcpy(im->r, p.r, sizeof(p.r));
	im->n = p.n;
	return 0;
}

bool elf_image__range(const struct elf_image *im, __u64 off, struct elf_image_range *out)
{
	size_t i;

	for (i = 0; i < im->n; i++) {
		if (off >= im->r[i].off && off - im->r[i].off < im->r[i].len) {
			*out = im->r[i];
			return true;
		}
	}
	return false;
}

void elf_image__free(struct elf_image *im)
{
	if (im->bytes)
		munmap(im->bytes, im->len);
	memset(im, 0, sizeof(*im));
}

/* Largest note segment read for a build-id: theirs are a few hundred bytes. */
#define NOTE_SEG_MAX	4096
#define PHDRS_MAX	256

/* NT_GNU_BUILD_ID among the notes in buf (aligned to align), else -ENOENT. */
static int build_id_in_notes(const __u8 *buf, size_t len, size_t align, __u8 *id, size_t *idlen)
{
	size_t off = 0, name_at, desc_at, next;
	Elf64_Nhdr nh;

	while (len - off >= sizeof(nh)) {
		memcpy(&nh, buf + off, sizeof(nh));
		name_at = off + sizeof(nh);
		desc_at = name_at + ((nh.n_namesz + align - 1) & ~(align - 1));
		next = desc_at + ((nh.n_descsz + align - 1) & ~(align - 1));
		/* sizes from the file: each step checked against what was read */
		if (nh.n_namesz > len || nh.n_descsz > len || desc_at > len || next > len ||
		    desc_at + nh.n_descsz > len)
			return -ENOENT;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name_at, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= LS_BUILD_ID_MAX) {
			memcpy(id, buf + desc_at, nh.n_descsz);
			*idlen = nh.n_descsz;
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

int elf_build_id_of_fd(int fd, __u8 *id, size_t *len)
{
	Elf64_Phdr ph[PHDRS_MAX];
	__u8 notes[NOTE_SEG_MAX];
	Elf64_Ehdr eh;
	size_t i;

	if (sym_pread(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(ph[0]) || eh.e_phnum > PHDRS_MAX)
		return -ENOEXEC;
	if (sym_pread(fd, ph, eh.e_phnum * sizeof(ph[0]), eh.e_phoff))
		return -ENOEXEC;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE || !ph[i].p_filesz || ph[i].p_filesz > sizeof(notes))
			continue;
		if (sym_pread(fd, notes, ph[i].p_filesz, ph[i].p_offset))
			continue;
		if (!build_id_in_notes(notes, ph[i].p_filesz, ph[i].p_align == 8 ? 8 : 4, id, len))
			return 0;
	}
	return -ENOENT;
}
