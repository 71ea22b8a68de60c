/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * From STACK records to frames people read: the stack resolver, and the
 * sink that puts its frames into each stall before the output sinks see it.
 *
 *	engine --stall--> sink_stacks (resolves) --stall + frames--> output sinks
 *
 * Kernel addresses go through kallsyms (src/symbols/ksyms.c), user ones are
 * unwound (src/symbols/unwind.c: DWARF over the copied stack, else frame
 * pointers) and named from the ELF files the process had mapped
 * (src/symbols/symbolizer.c).  Those mappings are read from
 * /proc/PID/maps once per process, when its first STACK record passes by in
 * a live run (stacks__note), by a worker thread: reading them takes that
 * process's mmap_lock for read (before ~6.17 always, later when the per-VMA
 * path gives up), a lock lockstall watches, and may wait as long as a
 * writer holds it (src/resolve/maps_reader.h).  A stall waits at most
 * STACKS_MAPS_WAIT_NS for them, then prints its user frames unnamed, saying
 * why.  Recordings store each process's mappings as they are read
 * (stacks_opts.on_maps), so a report can name frames after it is gone.
 *
 * The same sink names each stall's lock: a kernel lock from kallsyms, a
 * futex from the data symbols of the file mapped at its address in its
 * process (symbolizer__data), through the same mappings.
 */
#ifndef LOCKSTALL_STACKS_H
#define LOCKSTALL_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <lockstall/abi.h>
#include "engine/engine.h"

#define STACKS_MAX_PROCS	256	/* processes whose mappings are kept, least recently used out */
#define STACKS_MAX_MAPS_BYTES	(16u << 20)	/* ... and their /proc/PID/maps texts, in all */
/*
 * How long a stall waits for its process's mappings being read (live).
 * Live, stalls are named on the naming thread (sinks/naming.h): the wait
 * delays that stall's line, never tracing; a loaded host, or a guest
 * without KVM, reads /proc/PID/maps in tens of milliseconds.
 */
#define STACKS_MAPS_WAIT_NS	(500 * 1000 * 1000ULL)
#define STACKS_MAX_FRAMES	(LS_KSTACK_MAX + 128)	/* per stack: kernel, then user */
#define STACKS_ASKED		1024	/* tgids the record side remembers asking about */

struct sink;
struct sym_budget;

struct stacks_opts {
	bool live;		/* stacks__note may read /proc/PID/maps */
	bool no_kernel;		/* kernel addresses are from another boot: leave them unnamed */
	const char *kallsyms;	/* NULL: /proc/kallsyms */
	const char *debug_root;	/* NULL: /usr/lib/debug */
	size_t symbol_memory;	/* the budget of the symbol and unwind caches; 0: SYM_BUDGET_DEFAULT */
	/*
	 * Live: called with each process's mappings and build-ids once read
	 * (in the loop, from stacks__note or a resolve), for a recording: the
	 * table forgets processes, a recording must not.
	 */
	int (*on_maps)(void *ctx, __u32 tgid, const char *maps, size_t maps_len, const char *ids,
		       size_t ids_len);
	void *on_maps_ctx;
};

struct stacks;

/* NULL: no memory.  Nothing is read until it is needed. */
struct stacks *stacks__new(const struct stacks_opts *opts);
/*
 * Whether kernel frames can be named, from the start of kallsyms (cheap: the
 * whole file is read at the first kernel stack): 0, -EPERM when its
 * addresses are hidden (kptr_restrict, no CAP_SYSLOG), else why not.
 */
int stacks__kernel_probe(const struct stacks *sk);
/* The memory budget of its symbol and unwind caches, with what it left unread. */
const struct sym_budget *stacks__budget(const struct stacks *sk);
void stacks__free(struct stacks *sk);


/*
 * Live: a STACK record went by; have its process's mappings read (by a
 * worker thread: reading them may wait for the process's mmap_lock).
 * The record side's calls (this and stacks__note_wait) only ask: they
 * never touch what naming uses, which may run on another thread
 * (sinks/naming.h); everything else is the naming side's.
 */
void stacks__note(struct stacks *sk, const struct ls_rec_stack *r);

/*
 * Live: a WAIT_BEGIN record went by; for a futex, have its process's
 * mappings read while the wait lasts (its name comes from them), not only
 * as it ends, when the process may be gone.
 */
void stacks__note_wait(struct stacks *sk, const struct ls_rec_lock *r);

/*
 * Live, at the end: take in what the worker has read, waiting up to wait_ns
 * for reads still going (a recording gets them through on_maps).
 */
void stacks__drain(struct stacks *sk, __u64 wait_ns);

/*
 * Put fn in the place of stacks_opts.on_maps, giving back the one it
 * replaces (the naming worker calls fn, and the old one later on the
 * record side's thread).
 */
typedef int (*stacks_maps_fn)(void *ctx, __u32 tgid, const char *maps, size_t maps_len,
			      const char *ids, size_t ids_len);
void stacks__set_on_maps(struct stacks *sk, stacks_maps_fn fn, void *ctx, stacks_maps_fn *old_fn,
			 void **old_ctx);

/* A recording's mappings of tgid (/proc/PID/maps text): 0, -EINVAL, -ENOMEM. */
int stacks__add_maps(struct stacks *sk, __u32 tgid, const char *text, size_t len);
/*
 * ... and the build-ids its files had ("START BUILD-ID" lines, as
 * stacks__for_each_maps gave them), after stacks__add_maps: a file
 * replaced since then is refused rather than misread.  0 or -ENOENT.
 */
int stacks__add_build_ids(struct stacks *sk, __u32 tgid, const char *text, size_t len);

/* Each process's mappings and build-ids as captured, for a recording's metadata. */
int stacks__for_each_maps(struct stacks *sk, stacks_maps_fn fn, void *ctx);

/*
 * The frames of one record, valid until stacks__reset().  Never NULL for a
 * valid record: what could not be named is unknown, with a note why.
 */
const struct ls_frames *stacks__resolve(struct stacks *sk, const struct ls_rec_stack *r);
void stacks__reset(struct stacks *sk);

/*
 * st with its frames and lock names into *out, its holders (with their
 * frames) into holders, which out points to: valid until stacks__reset().
 */
void stacks__name_stall(struct stacks *sk, const struct ls_stall *st, struct ls_stall *out,
			struct ls_holder holders[LS_MAX_HOLDERS]);

/*
 * r's frames without names, from what the record holds (kernel addresses,
 * the kernel's walk of the user stack or the user IP): no file is read.
 * Frames into v (room of them), fr pointing to them, with note.
 */
void stacks__unnamed(const struct ls_rec_stack *r, struct ls_frames *fr, struct ls_frame *v,
		     unsigned int room, const char *note);

/*
 * A sink that fills in waiter_frames and each holder's frames, then passes
 * the stall on to inner (which it does not own).  Intervals and the
 * summary pass through.
 */
struct sink *sink_stacks__new(struct sink *inner, struct stacks *sk);

#endif /* LOCKSTALL_STACKS_H */
