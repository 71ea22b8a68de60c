/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the files of src/symbols only (and the unit tests).
 */
#ifndef LOCKSTALL_SYMBOLS_INTERNAL_H
#define LOCKSTALL_SYMBOLS_INTERNAL_H

#include <stddef.h>
#include <linux/types.h>
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

/* Fill out as unknown, with status. */
void ls_sym__unknown(struct ls_sym *out, enum ls_sym_status status);

#endif /* LOCKSTALL_SYMBOLS_INTERNAL_H */
