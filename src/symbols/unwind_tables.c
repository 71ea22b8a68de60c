// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind tables of one ELF file (unwind_file.h): its PT_LOAD segments
 * and the table of .eh_frame_hdr where it has one; else a table built
 * here over .eh_frame, and over .debug_frame rewritten into .eh_frame's
 * form (see uw_tab_kind).  Everything is read from the file's image in
 * memory, bounds-checked: a file is what a traced process says it is.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/unwind_file.h"

/* Bytes of a pointer-sized DWARF encoding's format, or -1 for ones .eh_frame_hdr never uses. */
static int uw_enc_size(__u8 enc)
{
	switch (enc & 0x0f) {
	case 0x00:		/* absptr */
	case 0x04:		/* udata8 */
	case 0x0c:		/* sdata8 */
		return 8;
	case 0x02:		/* udata2 */
	case 0x0a:		/* sdata2 */
		return 2;
	case 0x03:		/* udata4 */
	case 0x0b:		/* sdata4 */
		return 4;
	default:
		return -1;
	}
}

/*
 * .eh_frame_hdr: version 1, then the encodings of eh_frame_ptr, fde_count
 * and the table, the two values, the table of (initial location, FDE)
 * pairs relative to the header.  libunwind searches only the sdata4
 * datarel table, the one every linker writes.
 */
static int uw_parse_eh_frame_hdr(struct uw_file *f, __u64 off, __u64 vaddr, __u64 size)
{
	const __u8 *h;
	int ptr_size, cnt_size;
	__u64 count = 0, pos;

	if (off > f->im.len || size > f->im.len - off || size < 4)
		return -EINVAL;
	h = (const __u8 *)f->im.bytes + off;
	if (h[0] != 1 || h[3] != UW_EH_TABLE_ENC || h[2] == UW_EH_OMIT || (h[2] & 0x70))
		return -ENOENT;
	ptr_size = h[1] == UW_EH_OMIT ? 0 : uw_enc_size(h[1]);
	cnt_size = uw_enc_size(h[2]);
	if (ptr_size < 0 || cnt_size < 0)
		return -EINVAL;
	pos = 4 + (__u64)ptr_size;
	if (pos + cnt_size > size)
		return -EINVAL;
	/* x86-64 is little-endian, like the host: the low bytes come first. */
	memcpy(&count, h + pos, cnt_size);
	pos += cnt_size;
	if (count == 0 || count > (size - pos) / 8)
		return -EINVAL;
	f->eh.kind = UW_TAB_HDR;
	f->eh.frames = vaddr;
	f->eh.table = vaddr + pos;
	f->eh.count = count;
	return 0;
}

/* ---- tables built here: .eh_frame without a header, .debug_frame ---- */

/* A byte range of the file being parsed, read with bounds checks. */
struct uw_buf {
	const __u8 *p;
	__u64 len;
	__u64 pos;
	bool bad;
};

static __u64 uw_get(struct uw_buf *b, unsigned int n)
{
	__u64 v = 0;

	if (b->bad || n > b->len || b->pos > b->len - n) {
		b->bad = true;
		return 0;
	}
	memcpy(&v, b->p + b->pos, n);	/* little-endian, like x86-64 */
	b->pos += n;
	return v;
}

static __u64 uw_get_uleb(struct uw_buf *b)
{
	__u64 v = 0;
	unsigned int shift = 0;
	__u8 byte;

	do {
		byte = uw_get(b, 1);
		if (shift < 64)
			v |= (__u64)(byte & 0x7f) << shift;
		shift += 7;
	} while ((byte & 0x80) && !b->bad);
	return v;
}

/* The C string at the current position; NULL past the end. */
static const char *uw_get_str(struct uw_buf *b)
{
	const char *str = (const char *)b->p + b->pos;

	while (!b->bad && uw_get(b, 1))
		;
	return b->bad ? NULL : str;
}

/*
 * A pointer in DWARF encoding enc at the current position, whose own
 * link-time address is at_vaddr: absolute or pc-relative, the two that
 * FDEs use.  Returns false for any other.
 */
static bool uw_get_ptr(struct uw_buf *b, __u8 enc, __u64 at_vaddr, __u64 *out)
{
	int size = uw_enc_size(enc);
	__u64 v;

	if (size < 0 || (enc & 0x70) > 0x10)
		return false;
	v = uw_get(b, size);
	if (size == 2 && (enc & 0x08))
		v = (__u64)(__s64)(__s16)v;
	else if (size == 4 && (enc & 0x08))
		v = (__u64)(__s64)(__s32)v;
	if (enc & 0x10)
		v += at_vaddr;
	*out = v;
	return !b->bad;
}

/*
 * An .eh_frame CIE's FDE pointer encoding: after version, augmentation,
 * alignments and return column, the 'z' data holds it under 'R'.
 */
static bool uw_eh_cie_enc(const struct uw_buf *sec, __u64 off, __u8 *enc)
{
	struct uw_buf b = { .p = sec->p, .len = sec->len, .pos = off };
	__u64 len = uw_get(&b, 4), version;
	const char *aug;

	if (len == 0 || len == 0xffffffff || uw_get(&b, 4) != 0)
		return false;
	version = uw_get(&b, 1);
	aug = uw_get_str(&b);
	if (!aug)
		return false;
	uw_get_uleb(&b);	/* code alignment */
	uw_get_uleb(&b);	/* data alignment: sleb, skipped the same way */
	if (version == 1)
		uw_get(&b, 1);
	else
		uw_get_uleb(&b);
	*enc = 0x04;		/* udata8: no 'R', address-sized */
	if (aug[0] != 'z')
		return !b.bad && !aug[0];
	uw_get_uleb(&b);
	for (aug++; *aug && !b.bad; aug++) {
		__u8 penc;
		int size;

		switch (*aug) {
		case 'R':
			*enc = uw_get(&b, 1);
			return !b.bad;
		case 'L':
			uw_get(&b, 1);
			break;
		case 'P':
			penc = uw_get(&b, 1);
			size = uw_enc_size(penc);
			if (size < 0)
				return false;
			uw_get(&b, size);
			break;
		case 'S':
		case 'B':
			break;
		default:
			return false;
		}
	}
	return !b.bad;
}

/* A growing array of table entries. */
struct uw_entries {
	struct uw_entry *e;
	size_t n, cap;
};

static int uw_entries_add(struct uw_entries *t, const struct uw_file *f, __u64 start, __u64 fde)
{
	/* Only functions in the text: FDEs of discarded code say 0 in .debug_frame. */
	if (start < f->text_lo || start >= f->text_hi || start - f->text_lo > INT32_MAX ||
	    fde > INT32_MAX)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct uw_entry *e = realloc(t->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		t->e = e;
		t->cap = cap;
	}
	t->e[t->n].start = start - f->text_lo;
	t->e[t->n].fde = fde;
	t->n++;
	return 0;
}

static int uw_entry_cmp(const void *a, const void *b)
{
	const struct uw_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The FDEs of .eh_frame (at vaddr in the process), by initial location. */
static int uw_scan_eh_frame(const struct uw_file *f, const struct uw_buf *sec, __u64 vaddr,
			    struct uw_entries *t)
{
	__u64 pos = 0, cie_off = ~0ULL;
	__u8 enc = 0;
	int err;

	while (sec->len - pos >= 8) {
		struct uw_buf b = { .p = sec->p, .len = sec->len, .pos = pos };
		__u64 len = uw_get(&b, 4), id_pos = b.pos, id, start;

		if (len == 0 || len == 0xffffffff || len > sec->len - id_pos || len < 4)
			break;	/* the terminator, 64-bit DWARF (never in .eh_frame), or junk */
		id = uw_get(&b, 4);
		pos = id_pos + len;
		if (!id || id > id_pos)
			continue;	/* a CIE, or an FDE pointing before the section */
		if (id_pos - id != cie_off) {
			cie_off = id_pos - id;
			if (!uw_eh_cie_enc(sec, cie_off, &enc)) {
				cie_off = ~0ULL;
				continue;
			}
		}
		if (!uw_get_ptr(&b, enc, vaddr + b.pos, &start))
			continue;
		err = uw_entries_add(t, f, start, pos - len - 4);
		if (err)
			return err;
	}
	return 0;
}

/* A .debug_frame CIE as the rewrite needs it. */
struct uw_dcie {
	__u64 off, new_off;
	bool ok;
};

/* CIEs are recorded in section order: sorted by off. */
static struct uw_dcie *uw_dcie_find(struct uw_dcie *cies, size_t n, __u64 off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cies[mid].off == off)
			return &cies[mid];
		if (cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A new CIE at the end of *cies; NULL: out of memory. */
static struct uw_dcie *uw_dcie_push(struct uw_dcie **cies, size_t *nr, size_t *cap)
{
	struct uw_dcie *n;

	if (*nr == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		n = realloc(*cies, *cap * sizeof(*n));
		if (!n)
			return NULL;
		*cies = n;
	}
	return &(*cies)[(*nr)++];
}

/*
 * A .debug_frame CIE (at id, its id field, len bytes from there) into
 * .eh_frame's form at o: id 0, version 4 as 3 without the shrink bytes of
 * its address and segment sizes, the rest after the empty augmentation.
 */
static void uw_dcie_write(__u8 *o, const __u8 *id, __u64 len, __u8 ver, __u64 shrink)
{
	__u64 body = 6 + shrink;

	memcpy(o, &(__u32){ len - shrink }, 4);
	memset(o + 4, 0, 4);
	o[8] = ver == 4 ? 3 : ver;
	o[9] = '\0';
	memcpy(o + 10, id + body, len - body);
}

/* An FDE (at id, its CIE offset field) at o: length, CIE pointer back, the same bytes. */
static void uw_dfde_write(__u8 *o, const __u8 *id, __u64 len, __u32 cie_back)
{
	memcpy(o, &len, 4);
	memcpy(o + 4, &cie_back, 4);
	memcpy(o + 8, id + 4, len - 4);
}

/*
 * .debug_frame into .eh_frame's form, which is all libunwind's remote
 * search parses: a CIE's id 0xffffffff becomes 0, version 4 becomes 3 and
 * loses its address and segment sizes, an FDE's CIE offset (from the
 * section's start) becomes a distance back from itself.  FDE addresses stay
 * absolute (udata8, as the empty augmentation implies): the caller adds the
 * bias through load_offset.  Two passes, the first to place the CIEs; an FDE
 * before its CIE (legal, never seen) is left out.
 */
static int uw_rewrite_debug_frame(const struct uw_file *f, const struct uw_buf *sec,
				  __u8 **out, __u64 *out_len, struct uw_entries *t)
{
	struct uw_dcie *cies = NULL;
	size_t nr_cies = 0, cap = 0;
	__u64 pos, new_pos = 0;
	__u8 *o = NULL;
	int pass, err = 0;

	for (pass = 0; pass < 2; pass++) {
		pos = 0;
		new_pos = 0;
		while (sec->len - pos >= 8) {
			struct uw_buf b = { .p = sec->p, .len = sec->len, .pos = pos };
			__u64 len = uw_get(&b, 4), id_pos = b.pos, id, ver, shrink;
			struct uw_dcie *c;
			const char *aug;

			if (len == 0xffffffff || len > sec->len - id_pos || len < 4)
				break;	/* 64-bit DWARF: not written by gcc or clang for x86-64 */
			id = uw_get(&b, 4);
			pos = id_pos + len;
			if (id != 0xffffffff) {
				c = pass ? uw_dcie_find(cies, nr_cies, id) : NULL;
				/* .eh_frame's CIE pointer only points back */
				if (c && c->ok && c->new_off <= new_pos && len >= 20) {
					uw_dfde_write(o + new_pos, sec->p + id_pos, len,
						      new_pos + 4 - c->new_off);
					err = uw_entries_add(t, f, uw_get(&b, 8), new_pos);
					if (err)
						goto cleanup;
				}
				new_pos += 4 + len;
				continue;
			}
			ver = uw_get(&b, 1);
			aug = uw_get_str(&b);
			if (pass == 0) {
				c = uw_dcie_push(&cies, &nr_cies, &cap);
				if (!c) {
					err = -ENOMEM;
					goto cleanup;
				}
				c->off = id_pos - 4;
				c->new_off = new_pos;
				/* an augmentation would need parsing: gcc and clang write none here */
				c->ok = aug && !aug[0] && len >= 8 &&
					(ver == 1 || ver == 3 || (ver == 4 && uw_get(&b, 1) == 8 &&
								  uw_get(&b, 1) == 0)) && !b.bad;
			} else {
				c = uw_dcie_find(cies, nr_cies, id_pos - 4);
			}
			shrink = c && c->ok && ver == 4 ? 2 : 0;
			if (pass && c && c->ok)
				uw_dcie_write(o + new_pos, sec->p + id_pos, len, (__u8)ver, shrink);
			new_pos += 4 + len - shrink;
		}
		if (pass == 0) {
			/* zeros after: the terminator, and slack for word reads of the last bytes */
			o = calloc(1, new_pos + 16);
			if (!o) {
				err = -ENOMEM;
				goto cleanup;
			}
		}
	}
	*out = o;
	*out_len = new_pos + 16;
	o = NULL;
cleanup:
	free(o);
	free(cies);
	return err;
}

/* The section called name, as a byte range of the file, and its address. */
static bool uw_section(const struct uw_file *f, const char *name, struct uw_buf *b, __u64 *vaddr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(f->elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & SHF_COMPRESSED) || !(n = elf_strptr(f->elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name))
			continue;
		if (sh.sh_offset > f->im.len || sh.sh_size > f->im.len - sh.sh_offset)
			return false;
		memset(b, 0, sizeof(*b));
		b->p = (const __u8 *)f->im.bytes + sh.sh_offset;
		b->len = sh.sh_size;
		*vaddr = sh.sh_addr;
		return true;
	}
	return false;
}

/*
 * The tables this file needs built: .eh_frame's when it has no header,
 * .debug_frame's always when it has one (gcc puts there what it leaves out
 * of .eh_frame with -fno-asynchronous-unwind-tables).  Laid out in synth as
 * eh table, debug table, rewritten .debug_frame.
 */
static int uw_build_tables(struct uw_file *f)
{
	struct uw_entries eh = { 0 }, dbg = { 0 };
	struct uw_buf sec;
	__u8 *frames = NULL;
	__u64 frames_len = 0, vaddr, off;
	int err = 0;

	if (!f->eh.kind && uw_section(f, ".eh_frame", &sec, &vaddr) && vaddr) {
		err = uw_scan_eh_frame(f, &sec, vaddr, &eh);
		if (err)
			goto cleanup;
		f->eh.frames = vaddr;
	}
	if (uw_section(f, ".debug_frame", &sec, &vaddr)) {
		err = uw_rewrite_debug_frame(f, &sec, &frames, &frames_len, &dbg);
		if (err)
			goto cleanup;
	}
	if (!eh.n && !dbg.n)
		goto cleanup;
	f->synth_len = (eh.n + dbg.n) * sizeof(struct uw_entry) + frames_len;
	if (f->synth_len > 1ULL << UW_SYNTH_SHIFT) {
		f->synth_len = 0;
		goto cleanup;	/* beyond a synthetic slot: do without */
	}
	f->synth = malloc(f->synth_len);
	if (!f->synth) {
		f->synth_len = 0;
		err = -ENOMEM;
		goto cleanup;
	}
	off = 0;
	if (eh.n) {
		qsort(eh.e, eh.n, sizeof(*eh.e), uw_entry_cmp);
		memcpy(f->synth, eh.e, eh.n * sizeof(*eh.e));
		f->eh.kind = UW_TAB_EH;
		f->eh.table = 0;
		f->eh.count = eh.n;
		off = eh.n * sizeof(*eh.e);
	}
	if (dbg.n) {
		qsort(dbg.e, dbg.n, sizeof(*dbg.e), uw_entry_cmp);
		memcpy(f->synth + off, dbg.e, dbg.n * sizeof(*dbg.e));
		f->dbg.kind = UW_TAB_DEBUG;
		f->dbg.table = off;
		f->dbg.count = dbg.n;
		off += dbg.n * sizeof(*dbg.e);
		memcpy(f->synth + off, frames, frames_len);
		f->dbg.frames = off;
	}
cleanup:
	free(eh.e);
	free(dbg.e);
	free(frames);
	return err;
}

int uw_file__parse(struct uw_file *f)
{
	GElf_Ehdr eh;
	size_t n, i;
	bool have_hdr = false;
	__u64 hdr_off = 0, hdr_vaddr = 0, hdr_size = 0;

	if (elf_kind(f->elf) != ELF_K_ELF || gelf_getclass(f->elf) != ELFCLASS64 ||
	    !gelf_getehdr(f->elf, &eh) || eh.e_machine != EM_X86_64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || elf_getphdrnum(f->elf, &n))
		return -ENOEXEC;
	f->text_lo = ~0ULL;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		struct uw_seg *s;

		if (!gelf_getphdr(f->elf, i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_GNU_EH_FRAME) {
			have_hdr = true;
			hdr_off = ph.p_offset;
			hdr_vaddr = ph.p_vaddr;
			hdr_size = ph.p_filesz;
		}
		if (ph.p_type != PT_LOAD || f->nr_segs == UW_SEGS_MAX)
			continue;
		s = &f->segs[f->nr_segs++];
		s->vaddr = ph.p_vaddr;
		s->memsz = ph.p_memsz;
		s->offset = ph.p_offset;
		s->flags = ph.p_flags;
		/* A truncated file must not make us read past its end. */
		if (ph.p_offset >= f->im.len)
			s->filesz = 0;
		else if (ph.p_filesz > f->im.len - ph.p_offset)
			s->filesz = f->im.len - ph.p_offset;
		else
			s->filesz = ph.p_filesz;
		if ((s->flags & PF_X) && s->memsz) {
			if (s->vaddr < f->text_lo)
				f->text_lo = s->vaddr;
			if (s->vaddr + s->memsz > f->text_hi)
				f->text_hi = s->vaddr + s->memsz;
		}
	}
	if (!f->nr_segs)
		return -ENOEXEC;
	if (f->text_lo > f->text_hi)
		f->text_lo = f->text_hi = 0;
	/* a header this code cannot read is as good as none */
	if (have_hdr)
		uw_parse_eh_frame_hdr(f, hdr_off, hdr_vaddr, hdr_size);
	return uw_build_tables(f);
}
