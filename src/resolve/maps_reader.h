/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reading /proc/PID/maps off the tracing loop.
 *
 * Reading a process's maps takes its mmap_lock for read (before ~6.17
 * always; after, whenever the per-VMA path gives up), the very lock
 * lockstall watches: with a writer holding it for seconds -- the stalls
 * lockstall exists to report -- the read waits that long, and a tracing
 * loop that waited so would stand still and lose events.  So one worker
 * thread does the reading; the loop asks (never blocks),
 * takes what has been read, and may wait a bounded time for an answer.
 *
 * The worker may sit in read() for as long as the lock is held; freeing the
 * reader never waits for it (the last of the two to let go frees it).
 */
#ifndef LOCKSTALL_MAPS_READER_H
#define LOCKSTALL_MAPS_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define MAPS_READER_QUEUE 64	/* asks and answers waiting, each */

struct maps_reader;

/* Start the worker.  NULL: no memory or no thread (errno says). */
struct maps_reader *maps_reader__new(void);
/*
 * The same worker for another file of /proc/PID that takes the process's
 * mmap_lock (cmdline, environ): read(tgid, &text, &len) gives a malloc'd
 * text or a negative errno.
 */
typedef int (*maps_reader_fn)(__u32 tgid, char **text, size_t *len);
struct maps_reader *maps_reader__new_reading(maps_reader_fn read);
void maps_reader__free(struct maps_reader *mr);
/* Ask for tgid's maps: 0, -EEXIST (asked already, not taken yet), -ENOSPC (queue full). */
int maps_reader__ask(struct maps_reader *mr, __u32 tgid);
/* Asked and not taken yet. */
bool maps_reader__pending(struct maps_reader *mr, __u32 tgid);
/*
 * One answer: 1 with *tgid and either *text (malloc'd, NUL-terminated,
 * the caller frees it) and *len, or *err (the process was gone, ...); 0
 * when none is ready.
 */
int maps_reader__take(struct maps_reader *mr, __u32 *tgid, char **text, size_t *len, int *err);
/*
 * Wait for an answer until deadline_ns (CLOCK_MONOTONIC): true if one is
 * ready.  Returns false at once when the read in progress began more than
 * stuck_ns ago: the lock it waits for is busy, waiting longer is no use.
 */
bool maps_reader__wait(struct maps_reader *mr, __u64 deadline_ns, __u64 stuck_ns);

#endif /* LOCKSTALL_MAPS_READER_H */
