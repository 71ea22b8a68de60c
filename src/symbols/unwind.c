// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User stacks of STACK records: DWARF unwinding with libunwind's remote API
 * over the copied registers and stack, a frame-pointer walk over the same
 * copy, and the choice between them and the kernel's list (see unwind.h).
 *
 * The target "address space" libunwind sees is made of three things:
 *  - the registers of the record (access_reg);
 *  - its stack copy, [uregs[SP], uregs[SP] + copy_len) (access_mem);
 *  - the read-only file-backed segments of the ELF files the caller's
 *    find_map places in it, read from the files themselves (access_mem):
 *    .eh_frame_hdr, .eh_frame and code.  Writable segments are refused,
 *    since the file does not hold what the process had in them;
 *  - unwind tables built here (see uw_tab_kind), at synthetic addresses.
 * Nothing else is readable: an unwind that needs more stops, and says why.
 *
 * Files are read whole into private memory (sym_read_file), never mapped:
 * a traced process may shrink or rewrite a file it maps, and a mapping of
 * it would fault (SIGBUS).  What the copies and tables take is charged to
 * a memory budget shared with the symbolizer (unwinder__set_budget).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libunwind.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/internal.h"
#include "symbols/unwind.h"
#include "util.h"

/*
 * Exported by libunwind but not declared by its headers (perf declares it
 * the same way): looks ip up in a binary-search table of the .eh_frame_hdr
 * kind that lives in the target's memory, and parses the FDE it finds.
 */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

/* The record numbers registers as DWARF does, and so does libunwind. */
_Static_assert(UNW_X86_64_RBP == LS_UREG_BP && UNW_X86_64_RSP == LS_UREG_SP &&
	       UNW_X86_64_RIP == LS_UREG_IP, "LS_UREG_* must follow libunwind's x86-64 numbering");

#define UW_FILES_DEFAULT	64
#define UW_SEGS_MAX		16	/* PT_LOAD segments kept per file; real files have 2..5 */
#define UW_MODS_MAX		16	/* files remembered with their bias within one unwind */
#define UW_PAGE_MASK		0xfffULL
#define UW_EH_TABLE_ENC		0x3b	/* DW_EH_PE_datarel | DW_EH_PE_sdata4: the searchable table */
#define UW_EH_OMIT		0xff
/* synth of files[i] is at UW_SYNTH_BASE + (i << 32): above every user address */
#define UW_SYNTH_BASE		0xffff800000000000ULL
#define UW_SYNTH_SHIFT		32
#define UW_FILES_MAX		4096

struct uw_seg {
	__u64 vaddr;
	__u64 memsz;
	__u64 offset;
	__u64 filesz;		/* clamped to the file's size */
	__u32 flags;		/* PF_* */
};

/*
 * Where a file's unwind info comes from.  libunwind's remote search wants a
 * binary-search table of (function, FDE) offsets and FDEs in .eh_frame's
 * form, both read through access_mem:
 *   UW_TAB_HDR    the table of .eh_frame_hdr, in the file's loaded data;
 *   UW_TAB_EH     no .eh_frame_hdr (static glibc binaries): a table built
 *                 here over .eh_frame, whose FDEs stay in the file;
 *   UW_TAB_DEBUG  .debug_frame (-fno-asynchronous-unwind-tables -g), not
 *                 loaded at all: rewritten into .eh_frame's form here, with
 *                 its table.
 * What is built here lives in uw_file.synth, which access_mem serves at a
 * synthetic address in the kernel half, where no user address can be.
 */
enum uw_tab_kind {
	UW_TAB_NONE = 0,
	UW_TAB_HDR,
	UW_TAB_EH,
	UW_TAB_DEBUG,
};

struct uw_table {
	enum uw_tab_kind kind;
	__u64 table;		/* HDR: link-time address; EH, DEBUG: offset in synth */
	__u64 count;		/* entries of 8 bytes */
	__u64 frames;		/* what FDE offsets count from: HDR the header's address,
				 * EH .eh_frame's, DEBUG an offset in synth */
};

/* An entry of the tables built here: offsets from text_lo and from the frames' start. */
struct uw_entry {
	__s32 start;
	__s32 fde;
};

/* One parsed ELF file, shared by every process that maps it. */
struct uw_file {
	char *path;		/* NULL: a free slot */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int err;		/* < 0: not usable at all (cannot open, not x86-64 ELF) */
	Elf *elf;
	__u8 *image;		/* the whole file, read into memory of our own */
	size_t image_size;
	size_t charged;		/* to the budget: the image and synth */
	struct uw_seg segs[UW_SEGS_MAX];
	unsigned int nr_segs;
	__u64 text_lo, text_hi;	/* link-time span of the executable segments */
	struct uw_table eh;	/* .eh_frame_hdr's table, else one built over .eh_frame */
	struct uw_table dbg;	/* one built over .debug_frame, rewritten */
	__u8 *synth;		/* the built tables and the rewritten .debug_frame */
	size_t synth_len;
	__u64 last_use;		/* LRU clock */
	__u64 checked;		/* the unwind (unwinder.gen) that last revalidated it */
};

struct unwinder {
	unw_addr_space_t as;
	struct sym_budget *budget;	/* NULL: none */
	struct uw_file *files;
	unsigned int max_files;
	__u64 clock;
	__u64 gen;
};

/* A file met in this unwind and where the process has it. */
struct uw_mod {
	struct uw_file *f;
	__u64 bias;		/* runtime address - link-time address */
	__u64 lo, hi;		/* runtime span of its PT_LOAD segments */
};

/* One unwind's state: libunwind's accessors get it as their arg. */
struct uw_ctx {
	struct unwinder *u;
	const struct ls_rec_stack *rec;
	const __u8 *copy;
	__u64 sp;
	__u64 copy_len;
	unwind_find_map_fn find_map;
	void *map_ctx;
	struct uw_mod mods[UW_MODS_MAX];
	unsigned int nr_mods;
	unsigned int next_mod;	/* round robin when mods[] is full */
	int info;		/* find_proc_info in this step: 1 not asked, 0 found, < 0 why not */
	__u64 info_addr;
	int fault;		/* the last failed memory access: -EFAULT or find_map's error */
	__u64 fault_addr;
	const __u8 *hot;	/* the file bytes of the segment read last */
	__u64 hot_lo, hot_len;	/* where they are in the target */
};

/* ---- the file cache ---- */

static void uw_file_release(struct unwinder *u, struct uw_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	sym_budget__release(u->budget, f->charged);
	free(f->image);
	free(f->synth);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

static bool uw_same_file(const struct uw_file *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec && f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

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

	if (off > f->image_size || size > f->image_size - off || size < 4)
		return -EINVAL;
	h = f->image + off;
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
		if (sh.sh_offset > f->image_size || sh.sh_size > f->image_size - sh.sh_offset)
			return false;
		memset(b, 0, sizeof(*b));
		b->p = f->image + sh.sh_offset;
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

static int uw_parse_phdrs(struct uw_file *f)
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
		if (ph.p_offset >= f->image_size)
			s->filesz = 0;
		else if (ph.p_filesz > f->image_size - ph.p_offset)
			s->filesz = f->image_size - ph.p_offset;
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

/*
 * Charge f's bytes to the budget, letting go of the least recently used
 * files no unwind in progress uses; -ENOMEM when they do not fit even so.
 */
static int uw_file_charge(struct unwinder *u, struct uw_file *f)
{
	size_t cost = f->image_size + f->synth_len;
	struct uw_file *victim;
	unsigned int i;

	while (sym_budget__charge(u->budget, cost)) {
		victim = NULL;
		for (i = 0; i < u->max_files; i++) {
			struct uw_file *c = &u->files[i];

			if (c != f && c->path && c->charged && c->checked != u->gen &&
			    (!victim || c->last_use < victim->last_use))
				victim = c;
		}
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
	void *image;
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
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	err = sym_read_file(fd, u->budget, SIZE_MAX, &image, &f->image_size);
	if (err)
		goto cleanup;
	f->image = image;
	f->elf = elf_memory(image, f->image_size);
	err = f->elf ? uw_parse_phdrs(f) : -ENOEXEC;
	if (!err)
		err = uw_file_charge(u, f);
cleanup:
	if (fd >= 0)
		close(fd);
	/* no room or no time this once: not the file's fault, read it again next time */
	if (err == -EAGAIN || err == -ENOMEM || err == -ESTALE)
		f->size = -1;
	f->err = err;
}

/*
 * The cached file for path: revalidated once per unwind, (re)loaded when
 * missing or changed.  Never evicts a file this unwind already uses, since
 * uw_mod entries point at it.
 */
static int uw_file_get(struct unwinder *u, const struct unwind_map *map, struct uw_file **out)
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

		if (stat(map->path, &st) || !uw_same_file(f, &st) ||
		    (map->ino && (map->ino != (__u64)f->ino || map->dev != (__u64)f->dev))) {
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

/* ---- the target's memory ---- */

/* Where libunwind reads what uw_build_tables() made for f. */
static __u64 uw_synth_addr(const struct unwinder *u, const struct uw_file *f)
{
	return UW_SYNTH_BASE + ((__u64)(f - u->files) << UW_SYNTH_SHIFT);
}

/*
 * The file mapped at addr and its bias in this process: from the files met
 * before in this unwind, else through find_map.
 */
static int uw_module(struct uw_ctx *c, __u64 addr, struct uw_mod **out)
{
	struct unwind_map map = { 0 };
	struct uw_file *f;
	struct uw_mod *m;
	__u64 bias = 0, lo = ~0ULL, hi = 0;
	bool found = false;
	unsigned int i;
	int err;

	for (i = 0; i < c->nr_mods; i++) {
		if (addr >= c->mods[i].lo && addr < c->mods[i].hi) {
			*out = &c->mods[i];
			return 0;
		}
	}
	err = c->find_map(c->map_ctx, addr, &map);
	if (err)
		return err < 0 ? err : -EINVAL;
	if (!map.path || addr < map.start || addr >= map.end)
		return -ENOENT;
	err = uw_file_get(c->u, &map, &f);
	if (err)
		return err;
	/*
	 * The segment that holds the mapped file offset gives the bias:
	 * file offset o sits at map.start + (o - pgoff) in the process and at
	 * seg.vaddr + (o - seg.offset) in the file.
	 */
	for (i = 0; i < f->nr_segs; i++) {
		const struct uw_seg *s = &f->segs[i];

		if (map.pgoff >= (s->offset & ~UW_PAGE_MASK) && map.pgoff < s->offset + s->filesz) {
			bias = map.start - map.pgoff - s->vaddr + s->offset;
			found = true;
			break;
		}
	}
	if (!found)
		return -ENOENT;	/* the file does not match the mapping: replaced since? */
	for (i = 0; i < f->nr_segs; i++) {
		if (f->segs[i].vaddr + bias < lo)
			lo = f->segs[i].vaddr + bias;
		if (f->segs[i].vaddr + f->segs[i].memsz + bias > hi)
			hi = f->segs[i].vaddr + f->segs[i].memsz + bias;
	}
	if (addr < lo || addr >= hi)
		return -ENOENT;
	if (c->nr_mods < UW_MODS_MAX) {
		m = &c->mods[c->nr_mods++];
	} else {
		m = &c->mods[c->next_mod];
		c->next_mod = (c->next_mod + 1) % UW_MODS_MAX;
	}
	m->f = f;
	m->bias = bias;
	m->lo = lo;
	m->hi = hi;
	*out = m;
	return 0;
}

/* The file-backed segment of m holding runtime address addr, if any. */
static const struct uw_seg *uw_seg_at(const struct uw_mod *m, __u64 addr)
{
	__u64 vaddr = addr - m->bias;
	unsigned int i;

	for (i = 0; i < m->f->nr_segs; i++) {
		const struct uw_seg *s = &m->f->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz)
			return s;
	}
	return NULL;
}

/*
 * Up to 8 bytes of read-only file data at addr; the part past the
 * segment's file bytes reads 0.  The segment becomes the hot one: libunwind
 * reads .eh_frame_hdr and .eh_frame a word at a time, mostly from one place.
 */
static int uw_read_file(struct uw_ctx *c, const struct uw_mod *m, __u64 addr)
{
	const struct uw_seg *s = uw_seg_at(m, addr);

	if (!s || (s->flags & PF_W))
		return -EFAULT;
	c->hot_lo = s->vaddr + m->bias;
	c->hot_len = s->filesz;
	c->hot = m->f->image + s->offset;
	return 1;
}

/* A word of the target: from the stack copy, else from read-only file data. */
static int uw_read(struct uw_ctx *c, __u64 addr, __u64 *val)
{
	struct uw_mod *m;
	__u64 in;
	int err;

	if (addr >= c->sp && addr - c->sp < c->copy_len && c->copy_len - (addr - c->sp) >= 8) {
		memcpy(val, c->copy + (addr - c->sp), 8);
		return 0;
	}
	if (addr >= UW_SYNTH_BASE && !(addr >= c->hot_lo && addr - c->hot_lo < c->hot_len)) {
		__u64 slot = (addr - UW_SYNTH_BASE) >> UW_SYNTH_SHIFT;
		const struct uw_file *f = slot < c->u->max_files ? &c->u->files[slot] : NULL;

		/*
		 * Only a file of this unwind: those stay cached until it ends,
		 * so the hot window cannot outlive its bytes.
		 */
		if (!f || !f->synth || f->checked != c->u->gen ||
		    addr - uw_synth_addr(c->u, f) >= f->synth_len) {
			c->fault = -EFAULT;
			c->fault_addr = addr;
			return c->fault;
		}
		c->hot_lo = uw_synth_addr(c->u, f);
		c->hot_len = f->synth_len;
		c->hot = f->synth;
	}
	if (!(addr >= c->hot_lo && addr - c->hot_lo < c->hot_len)) {
		err = uw_module(c, addr, &m);
		if (!err)
			err = uw_read_file(c, m, addr);
		if (err < 0) {
			/* Not in a file: stack beyond the copy, heap, garbage. */
			c->fault = err == -ENOENT ? -EFAULT : err;
			c->fault_addr = addr;
			return c->fault;
		}
	}
	in = addr - c->hot_lo;
	*val = 0;
	memcpy(val, c->hot + in, c->hot_len - in < 8 ? c->hot_len - in : 8);
	return 0;
}

/* ---- libunwind's accessors ---- */

/* Search one of m's tables for ip. */
static int uw_search(unw_addr_space_t as, struct uw_ctx *c, const struct uw_mod *m,
		     const struct uw_table *t, unw_word_t ip, unw_proc_info_t *pi,
		     int need_unwind_info)
{
	const struct uw_file *f = m->f;
	unw_dyn_info_t di;
	__u64 synth = uw_synth_addr(c->u, f);

	memset(&di, 0, sizeof(di));
	di.start_ip = f->text_lo + m->bias;
	di.end_ip = f->text_hi + m->bias;
	/* in words; the table's entries are two 32-bit offsets each */
	di.u.rti.table_len = t->count * sizeof(struct uw_entry) / sizeof(unw_word_t);
	switch (t->kind) {
	case UW_TAB_HDR:
		/* both offsets from the header */
		di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
		di.u.rti.segbase = t->frames + m->bias;
		di.u.rti.table_data = t->table + m->bias;
		break;
	case UW_TAB_EH:
		/* functions from start_ip, FDEs from .eh_frame in the process */
		di.format = UNW_INFO_FORMAT_IP_OFFSET;
		di.u.rti.segbase = t->frames + m->bias;
		di.u.rti.table_data = synth + t->table;
		break;
	case UW_TAB_DEBUG:
		/* FDEs in synth, their absolute addresses moved by the bias */
		di.format = UNW_INFO_FORMAT_IP_OFFSET;
		di.u.rti.segbase = synth + t->frames;
		di.u.rti.table_data = synth + t->table;
		di.load_offset = m->bias;
		break;
	default:
		return -UNW_ENOINFO;
	}
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, c);
}

static int uw_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			     int need_unwind_info, void *arg)
{
	struct uw_ctx *c = arg;
	struct uw_mod *m;
	int err;

	c->info_addr = ip;
	err = uw_module(c, ip, &m);
	if (!err && ((!m->f->eh.kind && !m->f->dbg.kind) ||
		     ip < m->f->text_lo + m->bias || ip >= m->f->text_hi + m->bias))
		err = -ENOENT;
	if (err) {
		c->info = err;
		return -UNW_ENOINFO;
	}
	c->fault = 0;
	err = uw_search(as, c, m, &m->f->eh, ip, pi, need_unwind_info);
	/* .eh_frame may cover the C runtime's functions only: then .debug_frame */
	if (err == -UNW_ENOINFO && m->f->dbg.kind) {
		c->fault = 0;
		err = uw_search(as, c, m, &m->f->dbg, ip, pi, need_unwind_info);
	}
	if (err < 0)
		c->info = c->fault ? c->fault : err == -UNW_ENOINFO ? -ENOENT : -EINVAL;
	else
		c->info = 0;
	return err;
}

static void uw_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees what dwarf_search_unwind_table allocated itself. */
}

static int uw_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	return -UNW_ENOINFO;	/* no JIT registration in a copy */
}

static int uw_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
			 void *arg)
{
	__u64 val;

	if (write)
		return -UNW_EINVAL;
	if (uw_read(arg, addr, &val))
		return -UNW_EINVAL;
	*valp = val;
	return 0;
}

static int uw_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write,
			 void *arg)
{
	const struct uw_ctx *c = arg;

	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || reg >= LS_UREGS_N)
		return -UNW_EBADREG;
	*valp = c->rec->uregs[reg];
	return 0;
}

static int uw_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			   void *arg)
{
	return -UNW_EBADREG;	/* the record has no FP registers; unwinding needs none */
}

static int uw_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int uw_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			    unw_word_t *off, void *arg)
{
	return -UNW_EINVAL;	/* symbols are the symbolizer's job */
}

/* ---- the unwinder ---- */

struct unwinder *unwinder__new(unsigned int max_files)
{
	/* libunwind copies them into the address space: no global needed */
	unw_accessors_t acc = {
		.find_proc_info = uw_find_proc_info,
		.put_unwind_info = uw_put_unwind_info,
		.get_dyn_info_list_addr = uw_get_dyn_info_list_addr,
		.access_mem = uw_access_mem,
		.access_reg = uw_access_reg,
		.access_fpreg = uw_access_fpreg,
		.resume = uw_resume,
		.get_proc_name = uw_get_proc_name,
	};
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	/* Idempotent; libelf refuses to work before it. */
	elf_version(EV_CURRENT);
	u->max_files = max_files ? max_files : UW_FILES_DEFAULT;
	if (u->max_files > UW_FILES_MAX)
		u->max_files = UW_FILES_MAX;
	u->files = calloc(u->max_files, sizeof(*u->files));
	u->as = unw_create_addr_space(&acc, 0);
	if (!u->files || !u->as) {
		unwinder__free(u);
		return NULL;
	}
	/*
	 * No caching: the same ip means different code in different
	 * processes (every non-PIE executable starts at 0x400000), and the
	 * per-step verdict of find_proc_info must come from this record.
	 */
	unw_set_caching_policy(u->as, UNW_CACHE_NONE);
	return u;
}

void unwinder__set_budget(struct unwinder *u, struct sym_budget *b)
{
	u->budget = b;
}

void unwinder__free(struct unwinder *u)
{
	unsigned int i;

	if (!u)
		return;
	for (i = 0; u->files && i < u->max_files; i++)
		if (u->files[i].path)
			uw_file_release(u, &u->files[i]);
	free(u->files);
	if (u->as)
		unw_destroy_addr_space(u->as);
	free(u);
}

/*
 * One walk's start, common to DWARF and fp: check the record, set up c,
 * and the first frame, the record's ip.
 */
static int uw_begin(struct uw_ctx *c, enum unwind_method method, struct unwinder *u,
		    const struct ls_rec_stack *rec, size_t rec_len, unwind_find_map_fn find_map,
		    void *ctx, __u64 *ips, unsigned int max, struct unwind_result *res)
{
	if (!rec || !res || !ips || !max || rec_len < sizeof(*rec) ||
	    rec->hdr.type != LS_REC_STACK || rec->copy_len > rec_len - sizeof(*rec) ||
	    (find_map && !u))
		return -EINVAL;
	if (!(rec->flags & LS_STACK_F_REGS))
		return -ENODATA;
	memset(res, 0, sizeof(*res));
	memset(c, 0, sizeof(*c));
	c->u = u;
	c->rec = rec;
	c->copy = ls_rec_stack_copy(rec);
	c->sp = rec->uregs[LS_UREG_SP];
	c->copy_len = rec->copy_len;
	c->find_map = find_map;
	c->map_ctx = ctx;
	if (u)
		u->gen++;
	res->method = method;
	ips[res->n++] = rec->uregs[LS_UREG_IP];
	res->stop_addr = rec->uregs[LS_UREG_IP];
	return 0;
}

int unwind__dwarf(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
		  unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
		  struct unwind_result *res)
{
	struct uw_ctx state, *c = &state;
	unw_cursor_t cur;
	__u64 sp;
	int err;

	if (!u || !find_map)
		return -EINVAL;
	err = uw_begin(c, UNWIND_DWARF, u, rec, rec_len, find_map, ctx, ips, max, res);
	if (err)
		return err;
	sp = c->sp;
	if (unw_init_remote(&cur, u->as, c) < 0) {
		res->stop = -EINVAL;
		return 0;
	}
	for (;;) {
		unw_word_t nip, nsp;

		if (res->n >= max) {
			res->stop = -E2BIG;
			break;
		}
		c->info = 1;
		c->fault = 0;
		err = unw_step(&cur);
		/*
		 * Where the CFI lookup failed, unw_step() goes on guessing
		 * (rbp chain, [rsp]), or calls the chain ended: neither is
		 * DWARF's word, and the fp walk does that job with checks.
		 */
		if (c->info < 0) {
			res->stop = c->info;
			res->stop_addr = c->info_addr;
			break;
		}
		if (err == 0) {
			res->stop = 0;
			break;
		}
		if (err < 0) {
			res->stop = c->fault ? c->fault : err == -UNW_ENOINFO ? -ENOENT : -EINVAL;
			if (c->fault)
				res->stop_addr = c->fault_addr;
			break;
		}
		if (unw_get_reg(&cur, UNW_REG_IP, &nip) < 0 ||
		    unw_get_reg(&cur, UNW_REG_SP, &nsp) < 0) {
			res->stop = -EINVAL;
			break;
		}
		if (!nip) {
			res->stop = 0;
			break;
		}
		if (nsp <= sp) {
			res->stop = -ELOOP;
			break;
		}
		ips[res->n++] = nip;
		res->stop_addr = nip;
		sp = nsp;
	}
	return 0;
}

/* Is addr a return address: inside an executable file segment? */
static int uw_is_code(struct uw_ctx *c, __u64 addr)
{
	const struct uw_seg *s;
	struct uw_mod *m;
	int err = uw_module(c, addr, &m);

	if (err)
		return err == -ENOENT ? -ENOEXEC : err;
	s = uw_seg_at(m, addr);
	return s && (s->flags & PF_X) ? 0 : -ENOEXEC;
}

int unwind__fp(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
	       unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
	       struct unwind_result *res)
{
	struct uw_ctx state, *c = &state;
	__u64 bp, low;
	int err;

	err = uw_begin(c, UNWIND_FP, u, rec, rec_len, find_map, ctx, ips, max, res);
	if (err)
		return err;
	bp = rec->uregs[LS_UREG_BP];
	/* The first frame record may sit at sp itself (right after push rbp; mov rsp, rbp). */
	low = c->sp;
	for (;;) {
		__u64 off, next, ret;

		if (res->n >= max) {
			res->stop = -E2BIG;
			break;
		}
		/* At the first frame, a 0 or a value below sp says there is no chain. */
		if (res->n == 1 && (!bp || bp < low || (bp & 7))) {
			res->stop = -ENODATA;
			res->stop_addr = bp;
			break;
		}
		if (!bp) {
			res->stop = 0;	/* the ABI's end of the chain */
			break;
		}
		if (bp < low || (bp & 7)) {
			res->stop = -ELOOP;
			break;
		}
		off = bp - c->sp;
		/* the frame record, 16 bytes, must not wrap past the top of the address space either */
		if (off >= c->copy_len || c->copy_len - off < 16 || bp > ~0ULL - 16) {
			res->stop = -EFAULT;
			res->stop_addr = bp;
			break;
		}
		memcpy(&next, c->copy + off, 8);
		memcpy(&ret, c->copy + off + 8, 8);
		if (!ret) {
			res->stop = 0;
			break;
		}
		if (find_map) {
			err = uw_is_code(c, ret);
			if (err) {
				res->stop = err;
				res->stop_addr = ret;
				break;
			}
		}
		ips[res->n++] = ret;
		res->stop_addr = ret;
		low = bp + 16;
		bp = next;
	}
	return 0;
}

/* How much of the kernel's frame-pointer list (rec->user) fits in max. */
static void uw_kernel_list(const struct ls_rec_stack *rec, unsigned int max,
			   struct unwind_result *res)
{
	unsigned int n = rec->nr_user < LS_USTACK_MAX ? rec->nr_user : LS_USTACK_MAX;

	memset(res, 0, sizeof(*res));
	res->method = n ? UNWIND_KERNEL_FP : UNWIND_NONE;
	res->stop = rec->flags & LS_STACK_F_USER_TRUNC ? -E2BIG : 0;
	if (n > max) {
		n = max;
		res->stop = -E2BIG;
	}
	res->n = n;
	res->stop_addr = n ? rec->user[n - 1] : 0;
}

int unwind__stack(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
		  unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
		  struct unwind_result *res)
{
	struct unwind_result dw = { 0 }, fp = { 0 }, kn;
	__u64 *fp_ips = NULL;
	int err;

	if (!ips || !rec || !res || !max || rec_len < sizeof(*rec))
		return -EINVAL;
	if (rec->flags & LS_STACK_F_REGS) {
		err = unwind__dwarf(u, rec, rec_len, find_map, ctx, ips, max, &dw);
		if (err)
			return err;
		/* A complete DWARF unwind needs no second opinion. */
		if (dw.n > 1 && (dw.stop == 0 || dw.stop == -E2BIG)) {
			*res = dw;
			return 0;
		}
		fp_ips = calloc(max, sizeof(*fp_ips));
		if (!fp_ips)
			return -ENOMEM;
		err = unwind__fp(u, rec, rec_len, find_map, ctx, fp_ips, max, &fp);
		if (err)
			goto cleanup;
	}
	uw_kernel_list(rec, max, &kn);
	/* Otherwise the longest; on a tie DWARF, then the checked fp walk, then the kernel's. */
	if (dw.n && dw.n >= fp.n && dw.n >= kn.n) {
		*res = dw;
	} else if (fp.n && fp.n >= kn.n) {
		memcpy(ips, fp_ips, fp.n * sizeof(*ips));
		*res = fp;
	} else {
		memcpy(ips, rec->user, kn.n * sizeof(*ips));
		*res = kn;
	}
	err = 0;
cleanup:
	free(fp_ips);
	return err;
}

const char *unwind__method_name(enum unwind_method m)
{
	switch (m) {
	case UNWIND_DWARF:
		return "dwarf";
	case UNWIND_FP:
		return "fp";
	case UNWIND_KERNEL_FP:
		return "kernel-fp";
	default:
		return "none";
	}
}

const char *unwind__stop_text(int stop)
{
	switch (stop) {
	case 0:
		return "outermost frame";
	case -E2BIG:
		return "frame limit";
	case -ENOENT:
		return "no unwind info";
	case -EFAULT:
		return "beyond the stack copy";
	case -ELOOP:
		return "stack pointer did not increase";
	case -ENODATA:
		return "no frame pointer";
	case -ENOEXEC:
		return "return address not in code";
	case -EINVAL:
		return "bad unwind info";
	default:
		return "mapping lookup failed";
	}
}
