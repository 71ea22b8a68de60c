/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The stack resolver's state, shared by stacks.c (resolving, naming locks,
 * the sink) and stacks_procs.c (the processes whose mappings it keeps);
 * nothing else includes it.
 */
#ifndef LOCKSTALL_RESOLVE_STACKS_INTERNAL_H
#define LOCKSTALL_RESOLVE_STACKS_INTERNAL_H

#include "resolve/stacks.h"
#include "symbols/symbols.h"

#define ARENA_CHUNK	(64u << 10)

/* Names copied out of the symbolizer (whose strings do not live long). */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used;
	char buf[ARENA_CHUNK];
};

struct proc_entry {
	__u32 tgid;
	char *text;		/* /proc/PID/maps as read, for recordings */
	size_t len;
	char *ids;		/* "START BUILD-ID" lines of its executable file mappings */
	size_t ids_len;
	struct proc_maps *maps;
	__u64 last_use;
};

/* One resolved stack; a stall needs its waiter's and up to LS_MAX_HOLDERS. */
struct resolved {
	struct ls_frames fr;
	struct ls_frame v[STACKS_MAX_FRAMES];
};

struct stacks {
	struct stacks_opts opts;
	struct sym_budget budget;	/* shared by sym and unw */
	struct symbolizer *sym;
	struct unwinder *unw;
	struct maps_reader *mr;	/* live: reads /proc/PID/maps off the loop */
	struct proc_entry procs[STACKS_MAX_PROCS];
	unsigned int n_procs;
	size_t maps_bytes;	/* of the procs' texts: STACKS_MAX_MAPS_BYTES */
	__u64 clock;		/* use counter for the least recently used process */
	struct resolved res[1 + LS_MAX_HOLDERS];
	unsigned int n_res;
	struct arena_chunk *arena;
	/*
	 * The tgids whose mappings the record side asked for, by tgid modulo
	 * STACKS_ASKED: its own, so that noting a record never touches the
	 * table the naming side uses.
	 */
	__u32 asked[STACKS_ASKED];
};

/* Free what p holds and empty its slot. */
void proc_entry__clear(struct stacks *sk, struct proc_entry *p);
/* tgid's entry, NULL if its mappings are not kept. */
struct proc_entry *stacks__proc(struct stacks *sk, __u32 tgid);
/* Live: what the worker has read since, into the table (and the recording). */
void stacks__collect(struct stacks *sk);

#endif /* LOCKSTALL_RESOLVE_STACKS_INTERNAL_H */
