/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the files of src/symbols only (and the unit tests).
 */
#ifndef LOCKSTALL_SYMBOLS_INTERNAL_H
#define LOCKSTALL_SYMBOLS_INTERNAL_H

#include <stddef.h>
#include <linux/types.h>
#include <sys/stat.h>
#include "symbols/symbols.h"

/*
 * Parse lowercase or uppercase hex digits at *p (before end) into *out:
 * at least one, at most 16 significant.  Advances *p.  -EINVAL otherwise.
 */
int sym_parse_hex(const char **p, const char *end, __u64 *out);

/*
 * Leading underscores of a name, at most 255: of aliases at one address
 * ("__libc_malloc", "malloc"), the plainer name is the one people know.
 */
__u8 sym_leading_underscores(const char *name, size_t len);


/*
 * The order of symbol tables: by address, then the best name of one
 * address first (rank, then fewer leading underscores), then the table's
 * own order.  Both struct ksym and struct elf_sym start with it.
 */
struct sym_order {
	__u64 addr;
	__u32 seq;		/* line or symbol table index */
	__u8 rank;		/* lowest wins */
	__u8 under;		/* leading underscores: fewer wins among equal ranks */
};

int sym_order_cmp(const void *a, const void *b);

/*
 * Binary search over n elements of size bytes sorted by a __u64 key at
 * their start (struct sym_order, struct proc_map): how many have a key
 * <= addr.  The element before that index is the one that may hold addr.
 */
size_t sym_upper_bound(const void *base, size_t n, size_t size, __u64 addr);

/*
 * The whole of the regular file fd into private memory (*buf, malloc'd):
 * nothing a traced process does to the file afterwards reaches us, where a
 * mapping of it faults (SIGBUS) once the file shrinks.  -EFBIG past max
 * bytes or half of b's limit; -EAGAIN when b's bytes for this second are
 * spent; -ESTALE when the file changed while it was read (its size, mtime
 * or inode before and after differ, or it ended early).  b may be NULL.
 */
/*
 * Which version of a file on disk was read: another inode, size, mtime or
 * ctime is another version (ctime moves at every change, so a rewrite that
 * puts its mtime back is seen too).
 */
struct sym_version {
	dev_t dev;
	ino_t ino;
	off_t size;		/* -1: read again at the next look, whatever the stat says */
	struct timespec mtime;
	struct timespec ctime;
};

void sym_version__of(struct sym_version *v, const struct stat *st);
bool sym_version__same(const struct sym_version *v, const struct stat *st);

/*
 * A file whose last change (ctime) is this close to the time it was read
 * may change again within the same tick of the file system's clock, the
 * same size, and look unchanged: what was read from it is used once but
 * not trusted on its stat alone (git's "racy clean").
 */
#define SYM_RACY_NS		(100 * NSEC_PER_MSEC)

/* st's file changed within SYM_RACY_NS of now, on b's wall clock. */
bool sym_budget__racy(const struct sym_budget *b, const struct stat *st);

/* a and b are the same version of one file (sym_version__same). */
bool sym_same_version(const struct stat *a, const struct stat *b);

/* Past this many ranges to read, a file is read whole: no table grows with a hostile file. */
#define ELF_IMAGE_MAX_RANGES	64

struct elf_image_range {
	__u64 off, len;
};

/* What a copy of an ELF file is for, and so which of its bytes are read. */
enum elf_image_use {
	ELF_IMAGE_NAMES,	/* headers, symbol and string tables, notes, .gnu_debuglink */
	ELF_IMAGE_UNWIND,	/* headers, .eh_frame_hdr, .eh_frame, .debug_frame */
	ELF_IMAGE_WHOLE,	/* every byte (a CRC covers them all) */
};

/* An ELF file's copy, with the file's size and layout: only what its use needs is read. */
struct elf_image {
	void *bytes;		/* NULL: none */
	size_t len;		/* the file's size */
	size_t held;		/* bytes read into it, in whole pages: what it costs */
	struct elf_image_range r[ELF_IMAGE_MAX_RANGES];	/* what was read */
	size_t n;
};

/*
 * Read fd (at most max bytes long) into im, what use needs.  Within b's
 * limit and rate; -ESTALE when the file changed as it was read.
 */
int elf_image__read(struct elf_image *im, int fd, struct sym_budget *b, size_t max,
		    enum elf_image_use use);
/* The range read into im that holds file offset off; false: none, those bytes are not there. */
bool elf_image__range(const struct elf_image *im, __u64 off, struct elf_image_range *out);
void elf_image__free(struct elf_image *im);

/*
 * May len more bytes be read (or read again: a symbol table) this second?
 * The first of a second always may.  -EAGAIN, counted, when not.
 */
int sym_budget__take_read(struct sym_budget *b, size_t len);
/*
 * Charge bytes to b (NULL: nothing to charge): 0, or -ENOMEM when they do
 * not fit; the caller evicts and asks again, or gives up.
 */
int sym_budget__charge(struct sym_budget *b, size_t bytes);
void sym_budget__release(struct sym_budget *b, size_t bytes);

/* Exactly len bytes of fd from off, or -ESTALE when the file ends before. */
int sym_pread(int fd, void *buf, size_t len, __u64 off);

/*
 * The GNU build-id of the ELF file open at fd, from its PT_NOTE segments
 * alone (a few hundred bytes read, not the file): 0, -ENOENT (none), or
 * -ENOEXEC (not a 64-bit little-endian ELF file).
 */
int elf_build_id_of_fd(int fd, __u8 *id, size_t *len);

/* elf_file__open and elf_file__open_debug, reading within b (NULL: no budget). */
int elf_file__open_with(struct elf_file **out, const char *path, const char *debug_root,
			struct sym_budget *b);
int elf_file__open_debug_with(struct elf_file **out, const __u8 *id, size_t len,
			      const char *debug_root, struct sym_budget *b);
/* The bytes ef holds: its copies of the files, segments and symbol tables. */
size_t elf_file__cost(const struct elf_file *ef);
/* Forget ef's data symbols for good (they did not fit the budget): no data names from it. */
void elf_file__drop_data(struct elf_file *ef);

/* Fill out as unknown, with status. */
void ls_sym__unknown(struct ls_sym *out, enum ls_sym_status status);

#endif /* LOCKSTALL_SYMBOLS_INTERNAL_H */
