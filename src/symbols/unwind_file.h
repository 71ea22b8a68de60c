/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An ELF file as the unwinder holds it: its image, its loadable segments
 * and the unwind tables libunwind searches.  Shared by unwind.c (the
 * target's memory, libunwind's accessors), unwind_cache.c (the file cache)
 * and unwind_tables.c (parsing the program headers, .eh_frame_hdr, and
 * building the tables a file lacks); nothing else includes it.
 */
#ifndef LOCKSTALL_SYMBOLS_UNWIND_FILE_H
#define LOCKSTALL_SYMBOLS_UNWIND_FILE_H

#include <libelf.h>
#include <libunwind.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>
#include <linux/types.h>
#include "symbols/internal.h"
#include "symbols/unwind.h"

#define UW_SEGS_MAX		16	/* PT_LOAD segments kept per file; real files have 2..5 */
#define UW_PAGE_MASK		0xfffULL
#define UW_EH_TABLE_ENC		0x3b	/* DW_EH_PE_datarel | DW_EH_PE_sdata4: the searchable table */
#define UW_EH_OMIT		0xff
/* synth of files[i] is at UW_SYNTH_BASE + (i << 32): above every user address */
#define UW_SYNTH_BASE		0xffff800000000000ULL
#define UW_SYNTH_SHIFT		32

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
	struct sym_version ver;	/* of the file read */
	int err;		/* < 0: not usable at all (cannot open, not x86-64 ELF) */
	Elf *elf;
	struct elf_image im;	/* its headers and unwind sections, read into memory of our own */
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
	bool racy;		/* read just as it changed (sym_budget__racy): read again */
};

/*
 * f's program headers and unwind tables, from its image and elf (set by
 * the caller): its segments, text span and tables.  -errno: not usable.
 */
int uw_file__parse(struct uw_file *f);

/* The unwinder: libunwind's address space and the file cache (unwind_cache.c). */
struct unwinder {
	unw_addr_space_t as;
	struct sym_budget *budget;	/* NULL: none */
	struct uw_file *files;
	unsigned int max_files;
	__u64 clock;
	__u64 gen;		/* of the unwind in progress: its files are checked once */
};

/*
 * The cached file for map's path: checked once per unwind, read (again)
 * when missing or changed; its error if it cannot be used.  Never lets go
 * of a file this unwind already uses.
 */
int uw_file_get(struct unwinder *u, const struct unwind_map *map, struct uw_file **out);
/* Let go of f: its slot is free, its bytes go back to the budget. */
void uw_file_release(struct unwinder *u, struct uw_file *f);

#endif /* LOCKSTALL_SYMBOLS_UNWIND_FILE_H */
