// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The stack resolver's processes: each one's /proc/PID/maps text as read,
 * its parsed mappings and the build-ids of its executable files, kept for
 * STACKS_MAX_PROCS processes, least recently used out.  Live, the record
 * side asks the maps reader for a process's mappings once and the naming
 * side collects what it read; a recording's mappings come in through
 * stacks__add_maps, and every process's go out to a recording through
 * stacks__for_each_maps and the on_maps callback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resolve/maps_reader.h"
#include "resolve/stacks_internal.h"
#include "util.h"

void proc_entry__clear(struct stacks *sk, struct proc_entry *p)
{
	sk->maps_bytes -= p->len;
	free(p->text);
	free(p->ids);
	proc_maps__free(p->maps);
	memset(p, 0, sizeof(*p));
}

struct proc_entry *stacks__proc(struct stacks *sk, __u32 tgid)
{
	unsigned int i;

	for (i = 0; i < sk->n_procs; i++) {
		if (sk->procs[i].tgid == tgid) {
			sk->procs[i].last_use = ++sk->clock;
			return &sk->procs[i];
		}
	}
	return NULL;
}

/* Forget the least recently used process (its slot is taken by the last one). */
static void stacks__evict_one(struct stacks *sk)
{
	unsigned int i, old = 0;

	for (i = 1; i < sk->n_procs; i++)
		if (sk->procs[i].last_use < sk->procs[old].last_use)
			old = i;
	proc_entry__clear(sk, &sk->procs[old]);
	sk->procs[old] = sk->procs[--sk->n_procs];
}

/*
 * A slot for tgid's len bytes of mappings: its own, or a new one after the
 * least recently used processes made room (count and bytes bounded: a
 * daemon sees processes come and go for weeks; recordings got theirs when
 * they were read, see stacks_opts.on_maps).
 */
static struct proc_entry *stacks__proc_slot(struct stacks *sk, __u32 tgid, size_t len)
{
	struct proc_entry *p = stacks__proc(sk, tgid);

	if (p)
		proc_entry__clear(sk, p);
	else {
		while (sk->n_procs &&
		       (sk->n_procs == STACKS_MAX_PROCS || sk->maps_bytes + len > STACKS_MAX_MAPS_BYTES))
			stacks__evict_one(sk);
		p = &sk->procs[sk->n_procs++];
		memset(p, 0, sizeof(*p));
	}
	p->tgid = tgid;
	p->last_use = ++sk->clock;
	return p;
}

/* Take text (malloc'd) as tgid's mappings; pid set: a live process. */
static int stacks__set_maps(struct stacks *sk, __u32 tgid, char *text, size_t len, __u32 pid)
{
	struct proc_maps *maps;
	struct proc_entry *p;
	int err;

	err = proc_maps__parse(&maps, text, len);
	if (err) {
		free(text);
		return err;
	}
	/* the symbolizer opens a live process's files through /proc/PID/root */
	maps->pid = pid;
	p = stacks__proc_slot(sk, tgid, len);
	p->text = text;
	p->len = len;
	p->maps = maps;
	sk->maps_bytes += len;
	return 0;
}

/* Hex of len bytes into out (2 * len + 1 bytes). */
static void hex(char *out, const __u8 *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/*
 * The build-ids of p's executable file mappings, read now while the
 * process lives: set on its maps (so a file replaced later is refused,
 * not misread) and kept as text for a recording.  Only the notes are
 * read: a process may map more files than the symbol memory holds, and
 * few of them hold the frames to name.
 */
static void stacks__build_ids(struct stacks *sk, struct proc_entry *p)
{
	char line[64 + 2 * LS_BUILD_ID_MAX], idhex[2 * LS_BUILD_ID_MAX + 1];
	__u8 id[LS_BUILD_ID_MAX];
	size_t i, idlen, n;
	char *grown;

	for (i = 0; i < p->maps->n; i++) {
		const struct proc_map *m = &p->maps->v[i];

		if (!(m->perms & PROC_MAP_X) || !proc_map__is_file(m))
			continue;
		if (symbolizer__build_id(sk->sym, p->maps, m, id, &idlen) || !idlen ||
		    idlen > LS_BUILD_ID_MAX)
			continue;
		proc_maps__set_build_id(p->maps, i, id, idlen);
		hex(idhex, id, idlen);
		n = (size_t)snprintf(line, sizeof(line), "%llx %s\n", (unsigned long long)m->start, idhex);
		grown = realloc(p->ids, p->ids_len + n + 1);
		if (!grown)
			return;
		p->ids = grown;
		memcpy(p->ids + p->ids_len, line, n + 1);
		p->ids_len += n;
	}
}

/* One "START BUILD-ID" line (stacks__build_ids) back onto a recording's maps. */
static int stacks__build_id_line(void *ctx, const char *line, const char *end)
{
	struct proc_entry *p = ctx;
	__u8 id[LS_BUILD_ID_MAX];
	unsigned long long start;
	char buf[128];
	size_t i, n = (size_t)(end - line);
	unsigned int byte;
	int used;

	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, line, n);
	buf[n] = 0;
	if (sscanf(buf, "%llx %n", &start, &used) != 1)
		return 0;
	for (n = 0; n < LS_BUILD_ID_MAX && sscanf(buf + used, "%2x", &byte) == 1; used += 2)
		id[n++] = (__u8)byte;
	for (i = 0; n && i < p->maps->n; i++)
		if (p->maps->v[i].start == start)
			proc_maps__set_build_id(p->maps, i, id, n);
	return 0;
}

static void stacks__set_build_ids(struct proc_entry *p, const char *text, size_t len)
{
	ls_for_each_line(text, len, stacks__build_id_line, p);
}

int stacks__add_maps(struct stacks *sk, __u32 tgid, const char *text, size_t len)
{
	char *copy;

	if (!tgid)
		return -EINVAL;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = 0;
	return stacks__set_maps(sk, tgid, copy, len, 0);
}

/* Live: what the worker has read since, into the table (and the recording). */
void stacks__collect(struct stacks *sk)
{
	struct proc_entry *p;
	__u32 tgid;
	size_t len;
	char *text;
	int err;

	while (sk->mr && maps_reader__take(sk->mr, &tgid, &text, &len, &err)) {
		/* gone already: its frames stay unnamed, with a note */
		if (err || stacks__set_maps(sk, tgid, text, len, tgid))
			continue;
		p = stacks__proc(sk, tgid);
		if (!p)
			continue;
		stacks__build_ids(sk, p);
		if (sk->opts.on_maps)
			sk->opts.on_maps(sk->opts.on_maps_ctx, tgid, p->text, p->len,
					 p->ids ? p->ids : "", p->ids_len);
	}
}

void stacks__drain(struct stacks *sk, __u64 wait_ns)
{
	__u64 deadline = ls_now_ns() + wait_ns;

	stacks__collect(sk);
	while (sk->mr && maps_reader__wait(sk->mr, deadline, wait_ns))
		stacks__collect(sk);
}

/*
 * Ask the worker for tgid's mappings once (again only after another tgid
 * took its slot): the record side never looks at the table, which the
 * naming side may be using; a stack in no known mapping asks again as it
 * is resolved (stacks__user).
 */
static void stacks__ask_once(struct stacks *sk, __u32 tgid)
{
	__u32 *slot = &sk->asked[tgid % STACKS_ASKED];

	if (*slot == tgid)
		return;
	if (!maps_reader__ask(sk->mr, tgid) || maps_reader__pending(sk->mr, tgid))
		*slot = tgid;
}

void stacks__note(struct stacks *sk, const struct ls_rec_stack *r)
{
	if (!sk->opts.live || !r->tgid || (r->flags & LS_STACK_F_KTHREAD) ||
	    r->user_mode == LS_USTACK_NONE)
		return;
	stacks__ask_once(sk, r->tgid);
}

void stacks__note_wait(struct stacks *sk, const struct ls_rec_lock *r)
{
	if (!sk->opts.live || !ls_lock_is_user(r->lock.kind) || !r->lock.tgid)
		return;
	stacks__ask_once(sk, r->lock.tgid);
}

void stacks__set_on_maps(struct stacks *sk, stacks_maps_fn fn, void *ctx, stacks_maps_fn *old_fn,
			 void **old_ctx)
{
	*old_fn = sk->opts.on_maps;
	*old_ctx = sk->opts.on_maps_ctx;
	sk->opts.on_maps = fn;
	sk->opts.on_maps_ctx = ctx;
}

int stacks__add_build_ids(struct stacks *sk, __u32 tgid, const char *text, size_t len)
{
	struct proc_entry *p = stacks__proc(sk, tgid);

	if (!p)
		return -ENOENT;
	stacks__set_build_ids(p, text, len);
	return 0;
}

int stacks__for_each_maps(struct stacks *sk, stacks_maps_fn fn, void *ctx)
{
	unsigned int i;
	int err;

	for (i = 0; i < sk->n_procs; i++) {
		err = fn(ctx, sk->procs[i].tgid, sk->procs[i].text, sk->procs[i].len,
			 sk->procs[i].ids ? sk->procs[i].ids : "", sk->procs[i].ids_len);
		if (err)
			return err;
	}
	return 0;
}

