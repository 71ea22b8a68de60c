/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User stacks from STACK records, unwound in user space.
 *
 * With LS_USTACK_DWARF the BPF side copies a task's user registers and the
 * top of its user stack into a STACK record.  This module walks that copy
 * the way perf --call-graph dwarf does: libunwind's remote API, with the
 * registers and the copied bytes as the target's state and the .eh_frame of
 * the ELF files mapped at each ip as the unwind information.  Where that
 * fails (no unwind information, a frame beyond the copy), a frame-pointer
 * walk over the same copy, or the kernel's own frame-pointer list in the
 * record, may do better: unwind__stack() picks, and says which it used.
 *
 * Unwind info: .eh_frame through .eh_frame_hdr, or through a table built
 * here when the linker wrote no header (static glibc binaries), and
 * .debug_frame of the same file (code built without unwind tables but with
 * -g) where .eh_frame has nothing.  Separate debug files are not searched.
 *
 * Which file is mapped where is not this module's business: the caller
 * answers through a find_map callback (from /proc/<pid>/maps captured while
 * the process lived, or from a recording), so the unwinder works the same
 * live and postmortem.  Parsed files are read into private memory (never
 * mapped: the traced process may shrink them), cached per path, a bounded
 * number of them within a memory budget, and revalidated (device, inode,
 * size, mtime, ctime) once per unwind.
 * An unwinder is for one thread at a time.
 *
 * Frames are addresses: ips[0] is the exact ip of the record, every later
 * entry a return address (symbolize ips[i] - 1 for i > 0, as perf does).
 */
#ifndef LOCKSTALL_SYMBOLS_UNWIND_H
#define LOCKSTALL_SYMBOLS_UNWIND_H

#include <stddef.h>
#include <linux/types.h>
#include "lockstall/abi.h"

struct unwinder;

/* One file mapping of the traced process, as find_map reports it. */
struct unwind_map {
	__u64 start;		/* first address of the mapping */
	__u64 end;		/* one past its last */
	__u64 pgoff;		/* file offset mapped at start */
	const char *path;	/* the ELF file to read; valid until the unwind call returns */
	__u64 dev, ino;		/* the file that is mapped (st_dev, st_ino); ino 0: unknown */
};

/*
 * Which file is mapped at addr in the process the record came from.
 * Return 0 and fill *map when addr lies in a mapping of a file
 * (map->start <= addr < map->end), -ENOENT when it lies in none or in an
 * anonymous one ([stack], [heap], [vdso], ...); any other negative errno
 * ends the unwind with that error.  Called a few times per frame at most
 * (results are remembered within one unwind): keep it cheap, and never call
 * back into the unwinder from it.
 */
typedef int (*unwind_find_map_fn)(void *ctx, __u64 addr, struct unwind_map *map);

enum unwind_method {
	UNWIND_NONE = 0,
	UNWIND_DWARF = 1,	/* libunwind over .eh_frame and the copied stack */
	UNWIND_FP = 2,		/* rbp chain over the copied stack */
	UNWIND_KERNEL_FP = 3,	/* the record's user[]: the kernel's frame-pointer walk */
};

/*
 * What a walk produced.  stop says why it ended:
 *   0        the outermost frame (the unwind info or a 0 rbp/ip says there is no caller)
 *   -E2BIG   the caller's max frames were filled
 *   -ENOENT  no unwind info at stop_addr: in no file mapping, no .eh_frame
 *            or .debug_frame, or no FDE for it
 *   -ENOEXEC the file mapped there is not an x86-64 ELF file;
 *            fp: a return address outside any executable file segment
 *   -EFAULT  a frame needed memory that is neither in the copy nor read-only
 *            file data (the copy was too short, or the frame is garbage)
 *   -ELOOP   the stack pointer (rbp for fp) did not increase: a corrupt chain
 *   -ENODATA fp only: rbp at the first frame is 0 or not into the stack: no chain
 *   -EINVAL  the unwind info was malformed
 * Any other negative errno is what find_map returned, or open() of the file.
 */
struct unwind_result {
	unsigned int n;		/* frames written to ips[], innermost first */
	enum unwind_method method;
	int stop;
	__u64 stop_addr;	/* the ip (or address) at which the walk stopped */
};

/* A cache of up to max_files parsed ELF files (0: a default of 64); NULL on ENOMEM. */
struct unwinder *unwinder__new(unsigned int max_files);
void unwinder__free(struct unwinder *u);
/*
 * Charge the files it reads to b (see struct sym_budget), before the first
 * unwind; b outlives u.  Without one, a file is read whatever its size.
 */
struct sym_budget;
void unwinder__set_budget(struct unwinder *u, struct sym_budget *b);

/*
 * Unwind rec's register set and stack copy with DWARF CFI.  rec_len is the
 * number of bytes at rec (the fixed part plus at least copy_len).  ips[]
 * gets at most max frames.  Returns 0 (res->n >= 1, res->stop as above), or
 * -EINVAL (max 0, a record shorter than its copy_len says), -ENODATA (no
 * registers in the record: LS_STACK_F_REGS clear), -ENOMEM.
 */
int unwind__dwarf(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
		  unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
		  struct unwind_result *res);

/*
 * The rbp chain over the same copy.  With find_map (u then required too),
 * every return address must lie in an executable segment of a mapped ELF
 * file, so a register that is not a frame pointer ends the walk instead of
 * inventing frames; find_map NULL follows the chain unchecked.  Returns as
 * unwind__dwarf().
 */
int unwind__fp(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
	       unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
	       struct unwind_result *res);

/*
 * The best user stack the record allows, res->method saying whose: DWARF's
 * when it reached the outermost frame or max; else the longest of DWARF's,
 * the fp walk's over the copy and the kernel's list (rec->user), preferred
 * in that order on a tie.  Without registers, the kernel's list.  u and
 * find_map are needed when the record has registers.  Returns 0 (res->n 0:
 * the record has no user stack at all) or -EINVAL, -ENOMEM.
 */
int unwind__stack(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
		  unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
		  struct unwind_result *res);

/* "dwarf", "fp", "kernel-fp", "none" */
const char *unwind__method_name(enum unwind_method m);

/* Why a walk ended, for people: "outermost frame", "no unwind info", ... */
const char *unwind__stop_text(int stop);

#endif /* LOCKSTALL_SYMBOLS_UNWIND_H */
