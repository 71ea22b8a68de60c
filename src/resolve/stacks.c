// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The stack resolver and its sink: see stacks.h for what and why.  Here:
 * the resolver made and freed, STACK records into frames, the names of
 * stalls' locks, and the sink; the processes whose mappings it keeps are
 * stacks_procs.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "resolve/maps_reader.h"
#include "engine/sink.h"
#include "resolve/stacks_internal.h"
#include "util.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"

struct stacks *stacks__new(const struct stacks_opts *opts)
{
	struct stacks *sk = calloc(1, sizeof(*sk));
	struct symbolizer_opts so = { 0 };

	if (!sk)
		return NULL;
	if (opts)
		sk->opts = *opts;
	so.kallsyms = sk->opts.kallsyms;
	so.debug_root = sk->opts.debug_root;
	sk->budget.limit = sk->opts.symbol_memory;
	so.budget = &sk->budget;
	sk->sym = symbolizer__new(&so);
	sk->unw = unwinder__new(0);
	if (sk->unw)
		unwinder__set_budget(sk->unw, &sk->budget);
	if (sk->opts.live)
		sk->mr = maps_reader__new();
	if (!sk->sym || !sk->unw || (sk->opts.live && !sk->mr)) {
		stacks__free(sk);
		return NULL;
	}
	return sk;
}

void stacks__free(struct stacks *sk)
{
	struct arena_chunk *c, *next;
	unsigned int i;

	if (!sk)
		return;
	maps_reader__free(sk->mr);
	for (i = 0; i < sk->n_procs; i++)
		proc_entry__clear(sk, &sk->procs[i]);
	for (c = sk->arena; c; c = next) {
		next = c->next;
		free(c);
	}
	symbolizer__free(sk->sym);
	unwinder__free(sk->unw);
	free(sk);
}

const struct sym_budget *stacks__budget(const struct stacks *sk)
{
	return &sk->budget;
}

int stacks__kernel_probe(const struct stacks *sk)
{
	return sk->opts.no_kernel ? -ENOENT : ksyms__probe(sk->opts.kallsyms);
}

/* ---- resolving --------------------------------------------------------- */

static const char *arena__strdup(struct stacks *sk, const char *s)
{
	size_t n;
	struct arena_chunk *c = sk->arena;
	char *out;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	if (n > ARENA_CHUNK)
		return "[name too long]";
	if (!c || c->used + n > ARENA_CHUNK) {
		c = malloc(sizeof(*c));
		if (!c)
			return "[out of memory]";
		c->next = sk->arena;
		c->used = 0;
		sk->arena = c;
	}
	out = c->buf + c->used;
	memcpy(out, s, n);
	c->used += n;
	return out;
}

void stacks__reset(struct stacks *sk)
{
	struct arena_chunk *c, *next;

	sk->n_res = 0;
	if (!sk->arena)
		return;
	/* keep one chunk: the next stall will need it */
	for (c = sk->arena->next; c; c = next) {
		next = c->next;
		free(c);
	}
	sk->arena->next = NULL;
	sk->arena->used = 0;
}

static __u64 digest_add(__u64 h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 1099511628211ULL;	/* FNV-1a */
	return h;
}

/*
 * Equal for stacks that read the same: names and offsets, or module and
 * offset for unknown frames (stable across address-space randomisation).
 */
static __u64 frames__digest(const struct ls_frames *fr)
{
	__u64 h = 1469598103934665603ULL;
	unsigned int i;

	for (i = 0; i < fr->n; i++) {
		const struct ls_frame *f = &fr->v[i];
		const char *name = f->sym ? f->sym : f->module ? f->module : "";

		h = digest_add(h, &f->kind, sizeof(f->kind));
		h = digest_add(h, name, strlen(name) + 1);
		h = digest_add(h, &f->off, sizeof(f->off));
		if (!f->sym && !f->module)
			h = digest_add(h, &f->addr, sizeof(f->addr));
	}
	return h ? h : 1;
}

static void frame__from_sym(struct stacks *sk, struct ls_frame *f, const struct ls_sym *s)
{
	f->sym = s->resolved ? arena__strdup(sk, s->name) : NULL;
	f->off = s->resolved ? s->off : s->module_off;
	f->module = arena__strdup(sk, s->module);
}

static void stacks__kernel(struct stacks *sk, const struct ls_rec_stack *r, struct resolved *out)
{
	const struct ksyms *ks = NULL;
	struct ls_sym s;
	size_t i, skip = 0;
	int err = 0;

	if (!sk->opts.no_kernel)
		ks = symbolizer__ksyms(sk->sym, &err);
	if (ks)
		skip = ksyms__skip_bpf_frames(ks, r->kernel, r->nr_kernel);
	else if (sk->opts.no_kernel)
		out->fr.note = "kernel frames recorded on another boot: not named";
	else if (err == -EPERM)
		out->fr.note = "/proc/kallsyms hides its addresses (kptr_restrict, or no CAP_SYSLOG): kernel frames not named";
	else
		out->fr.note = "kernel symbols unavailable (/proc/kallsyms): kernel frames not named";
	for (i = skip; i < r->nr_kernel && out->fr.n < STACKS_MAX_FRAMES; i++) {
		struct ls_frame *f = &out->v[out->fr.n++];

		memset(f, 0, sizeof(*f));
		f->addr = r->kernel[i];
		f->kind = LS_FRAME_KERNEL;
		if (ks && !symbolizer__kernel(sk->sym, f->addr, &s)) {
			frame__from_sym(sk, f, &s);
			/* the core kernel has no module name: say so, for JSON */
			if (!f->module && s.resolved)
				f->module = "vmlinux";
		}
	}
	out->fr.n_kernel = out->fr.n;
	/*
	 * Before 5.15 the kernel's unwinder stopped at kretprobe_trampoline
	 * (no ORC data for it), so a stack taken in a kretprobe -- a waiter's
	 * with the kprobe backend -- ends there.
	 */
	if (out->fr.n && !out->fr.note && out->v[out->fr.n - 1].sym &&
	    !strcmp(out->v[out->fr.n - 1].sym, "kretprobe_trampoline"))
		out->fr.note = "the kernel's unwinder stops at kretprobe_trampoline (kprobe backend, kernels before 5.15): the frames below it are missing (--backend=fentry has them)";
}

struct find_map_ctx {
	struct stacks *sk;
	const struct proc_maps *maps;
	char path[PROC_MAPS_PATH_MAX + 32];
};

/* path names the file open as fd. */
static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	return fd >= 0 && path && !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int stacks__path(struct find_map_ctx *c, const char *path)
{
	snprintf(c->path, sizeof(c->path), "%s", path);
	return 0;
}

/*
 * The unwinder's view of the process: the file mapped at addr, through
 * the symbolizer, which refuses a file replaced since it was mapped (its
 * build-id, or for a live process its inode, differs): unwinding with
 * another build's CFI would invent frames.
 */
static int stacks__find_map(void *data, __u64 addr, struct unwind_map *m)
{
	struct find_map_ctx *c = data;
	struct ls_file_info fi;
	struct stat st;
	int err;

	m->path = c->path;
	if (!c->maps)
		return -ENOENT;
	err = symbolizer__file(c->sk->sym, c->maps, addr, &fi);
	if (err)
		return err == -ESTALE ? -ESTALE : -ENOENT;
	m->start = fi.map->start;
	m->end = fi.map->end;
	m->pgoff = fi.map->pgoff;
	/*
	 * The unwinder opens files by path: the one the symbolizer opened (a
	 * live process's, through /proc/PID/root) is gone with the process,
	 * so give the path under which the very same file (the symbolizer's
	 * open one, whose build-id it checked) is found now.
	 */
	/* and only that file: the path is the process's to swap */
	if (fstat(elf_file__fd(fi.elf), &st))
		return -ENOENT;
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	if (!same_file(elf_file__fd(fi.elf), elf_file__path(fi.elf)))
		return same_file(elf_file__fd(fi.elf), fi.map->path) ? stacks__path(c, fi.map->path) :
								     -ENOENT;
	return stacks__path(c, elf_file__path(fi.elf));
}

/*
 * Live: tgid's mappings, waiting a little for the worker if it is reading
 * them -- but not for a read that is stuck on a busy lock.  NULL: none.
 */
static struct proc_entry *stacks__proc_wait(struct stacks *sk, __u32 tgid, bool *late)
{
	__u64 deadline = ls_now_ns() + STACKS_MAPS_WAIT_NS;
	struct proc_entry *p;

	stacks__collect(sk);
	p = stacks__proc(sk, tgid);
	while (!p && sk->mr && maps_reader__pending(sk->mr, tgid)) {
		if (!maps_reader__wait(sk->mr, deadline, STACKS_MAPS_WAIT_NS)) {
			*late = true;
			break;
		}
		stacks__collect(sk);
		p = stacks__proc(sk, tgid);
	}
	return p;
}

/*
 * Live: the process's mappings again when its stack is in none of them (a
 * library loaded since, a pid reused) or they are not known (forgotten):
 * for its next stall, while it lives.
 */
static void stacks__ask_again(struct stacks *sk, const struct ls_rec_stack *r,
			      const struct proc_entry *p)
{
	__u64 ip = 0;

	if (!sk->mr || r->user_mode == LS_USTACK_NONE)
		return;
	if (r->flags & LS_STACK_F_REGS)
		ip = r->uregs[LS_UREG_IP];
	else if (r->nr_user)
		ip = r->user[0];
	if (!p || (ip && !proc_maps__find(p->maps, ip)))
		maps_reader__ask(sk->mr, r->tgid);
}

static void stacks__user(struct stacks *sk, const struct ls_rec_stack *r, struct resolved *out)
{
	bool late = false;
	struct proc_entry *p = stacks__proc_wait(sk, r->tgid, &late);
	struct find_map_ctx fm = { .sk = sk, .maps = p ? p->maps : NULL };
	__u64 ips[STACKS_MAX_FRAMES];
	struct unwind_result res = { 0 };
	unsigned int i, room = STACKS_MAX_FRAMES - out->fr.n;
	struct ls_sym s;

	out->fr.user_method = "none";
	if (r->flags & LS_STACK_F_KTHREAD)
		return;
	stacks__ask_again(sk, r, p);
	if (r->user_mode == LS_USTACK_NONE) {
		if (!out->fr.note)
			out->fr.note = "user stacks were not captured (--user-stacks=none)";
		return;
	}
	if (unwind__stack(sk->unw, r, r->hdr.size, stacks__find_map, &fm, ips, room, &res) || !res.n)
		return;
	out->fr.user_method = unwind__method_name(res.method);
	/*
	 * The kernel's walk follows rbp whatever it holds: in code built
	 * without frame pointers its second "frame" is often data.  Keep the
	 * frames up to the first that is in no executable mapping.
	 */
	if (res.method == UNWIND_KERNEL_FP && p) {
		for (i = 0; i < res.n; i++) {
			const struct proc_map *pm = proc_maps__find(p->maps, ips[i]);

			if (!pm || !(pm->perms & PROC_MAP_X))
				break;
		}
		if (i < res.n && !out->fr.note)
			out->fr.note = "the kernel's frame-pointer walk left the code after this: frames dropped";
		res.n = i;
	}
	if (!p && late && !out->fr.note)
		out->fr.note = "the process's mappings are still being read (its mmap_lock is busy): user frames not named";
	else if (!p && !out->fr.note)
		out->fr.note = "the process's mappings were not captured (it exited first): user frames not named";
	else if (r->user_mode == LS_USTACK_DWARF && res.method != UNWIND_DWARF && !out->fr.note)
		out->fr.note = "DWARF unwinding failed: frame pointers used";
	else if (res.stop && res.stop != -E2BIG && !out->fr.note) {
		char note[160];

		/* the walk ended early: say where and why, not just fewer frames */
		snprintf(note, sizeof(note), "unwinding stopped at 0x%llx: %s",
			 (unsigned long long)res.stop_addr, unwind__stop_text(res.stop));
		out->fr.note = arena__strdup(sk, note);
	}
	for (i = 0; i < res.n; i++) {
		struct ls_frame *f = &out->v[out->fr.n++];
		/* a return address is after its call: name the call's function */
		__u64 look = i ? ips[i] - 1 : ips[i];

		memset(f, 0, sizeof(*f));
		f->addr = ips[i];
		f->kind = LS_FRAME_USER;
		if (p && !symbolizer__user(sk->sym, p->maps, look, &s)) {
			frame__from_sym(sk, f, &s);
			if (look != ips[i])
				f->off++;
			if (s.status == LS_SYM_FILE_CHANGED && !out->fr.note)
				out->fr.note = "a file was replaced since the process mapped it: its frames are not named";
		}
	}
}

/* A stack the engine reused for a later stall (--stack-interval): said first, before any other note. */
static void stacks__note_earlier(struct stacks *sk, const struct ls_rec_stack *r,
				 struct resolved *out)
{
	static const char earlier[] = "taken earlier: this task's last stack for this lock and call (--stack-interval)";
	char note[512];

	if (!(r->flags & LS_STACK_F_EARLIER))
		return;
	if (!out->fr.note) {
		out->fr.note = earlier;
		return;
	}
	snprintf(note, sizeof(note), "%s; %s", earlier, out->fr.note);
	out->fr.note = arena__strdup(sk, note) ?: earlier;
}

const struct ls_frames *stacks__resolve(struct stacks *sk, const struct ls_rec_stack *r)
{
	struct resolved *out;

	if (sk->n_res >= sizeof(sk->res) / sizeof(sk->res[0]))
		return NULL;
	out = &sk->res[sk->n_res++];
	memset(&out->fr, 0, sizeof(out->fr));
	out->fr.v = out->v;
	stacks__kernel(sk, r, out);
	stacks__user(sk, r, out);
	stacks__note_earlier(sk, r, out);
	out->fr.digest = frames__digest(&out->fr);
	return &out->fr;
}

/* One frame of each address of an array, unnamed, as room allows. */
static void frames__addresses(struct ls_frames *fr, struct ls_frame *v, unsigned int room,
			      const __u64 *addr, unsigned int n, enum ls_frame_kind kind)
{
	unsigned int i;

	for (i = 0; i < n && fr->n < room; i++) {
		memset(&v[fr->n], 0, sizeof(v[0]));
		v[fr->n].addr = addr[i];
		v[fr->n++].kind = kind;
	}
}

void stacks__unnamed(const struct ls_rec_stack *r, struct ls_frames *fr, struct ls_frame *v,
		     unsigned int room, const char *note)
{
	unsigned int nk = r->nr_kernel < LS_KSTACK_MAX ? r->nr_kernel : LS_KSTACK_MAX;
	unsigned int nu = r->nr_user < LS_USTACK_MAX ? r->nr_user : LS_USTACK_MAX;

	memset(fr, 0, sizeof(*fr));
	fr->v = v;
	fr->note = note;
	fr->user_method = "none";
	frames__addresses(fr, v, room, r->kernel, nk, LS_FRAME_KERNEL);
	fr->n_kernel = fr->n;
	if ((r->flags & LS_STACK_F_KTHREAD) || r->user_mode == LS_USTACK_NONE)
		goto out;
	/* the kernel's own walk, else where the task was: nothing read from its files */
	if (nu) {
		frames__addresses(fr, v, room, r->user, nu, LS_FRAME_USER);
		fr->user_method = unwind__method_name(UNWIND_KERNEL_FP);
	} else if (r->flags & LS_STACK_F_REGS) {
		frames__addresses(fr, v, room, &r->uregs[LS_UREG_IP], 1, LS_FRAME_USER);
	}
out:
	fr->digest = frames__digest(fr);
}

/* ---- kernel lock names ------------------------------------------------- */

/* Is this kernel function part of taking a lock or of sleeping for one? */
static bool stacks__is_lock_code(const char *sym)
{
	static const char *const prefixes[] = {
		"mutex_", "__mutex_", "ww_mutex_", "__ww_mutex_", "rt_mutex_", "__rt_mutex_",
		"rtlock_", "rwbase_", "down_", "__down_", "rwsem_", "__rwsem_",
		"percpu_down_", "__percpu_down_", "percpu_rwsem_", "__percpu_rwsem_",
		"schedule", "__schedule", "_raw_", "queued_", "lock_", "__lock_",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(sym, prefixes[i], strlen(prefixes[i])))
			return true;
	return !strcmp(sym, "down") || !strcmp(sym, "mutex_lock");
}

/* "sym" or "sym+0xOFF" into the arena; NULL when it does not fit (never a cut name). */
static const char *stacks__sym_name(struct stacks *sk, const struct ls_sym *s)
{
	char name[KSYMS_NAME_MAX + 24];
	int n;

	if (s->off)
		n = snprintf(name, sizeof(name), "%s+0x%llx", s->name, (unsigned long long)s->off);
	else
		n = snprintf(name, sizeof(name), "%s", s->name);
	return n > 0 && (size_t)n < sizeof(name) ? arena__strdup(sk, name) : NULL;
}

/* A kernel lock's data symbol (a static lock), or NULL. */
static const char *stacks__klock_name(struct stacks *sk, __u64 addr)
{
	const struct ksyms *ks;
	struct ls_sym s;
	int err = 0;

	ks = symbolizer__ksyms(sk->sym, &err);
	if (ks && !ksyms__find_data(ks, addr, &s))
		return stacks__sym_name(sk, &s);
	return NULL;
}

/*
 * A kernel lock's names for c: the data symbol at its address (a static
 * lock), and the first caller outside the locking code in the waiter's
 * kernel frames.  Not for recordings of another boot (no_kernel).
 */
static void stacks__name_klock(struct stacks *sk, struct ls_stall *c)
{
	const struct ls_frames *fr = c->waiter_frames;
	unsigned int i;

	c->lock_name = stacks__klock_name(sk, c->lock.id);
	for (i = 0; fr && i < fr->n_kernel; i++) {
		if (fr->v[i].sym && !stacks__is_lock_code(fr->v[i].sym)) {
			c->lock_caller = fr->v[i].sym;
			break;
		}
	}
}

/*
 * A futex's name: the data symbol of the file mapped at its address in its
 * process (g_queue_lock, or queue+0x40 for a mutex in a struct), and that
 * file; none for anonymous memory (heap, stack).  Live, the process's
 * mappings are asked for if no stack of it asked yet (--user-stacks=none),
 * and asked again when the address is in none of them (mapped since).
 */
static void stacks__name_futex(struct stacks *sk, const struct ls_lock_id *lock, const char **name,
			       const char **module)
{
	__u32 tgid = lock->tgid;
	struct proc_entry *p;
	bool late = false;
	struct ls_sym s;

	if (!tgid)
		return;
	stacks__collect(sk);
	if (sk->mr && !stacks__proc(sk, tgid))
		maps_reader__ask(sk->mr, tgid);
	p = stacks__proc_wait(sk, tgid, &late);
	if (!p)
		return;
	if (!proc_maps__find(p->maps, lock->id)) {
		if (sk->mr)
			maps_reader__ask(sk->mr, tgid);
		return;
	}
	if (symbolizer__data(sk->sym, p->maps, lock->id, &s) || !s.resolved)
		return;
	*name = stacks__sym_name(sk, &s);
	if (*name)
		*module = arena__strdup(sk, s.module);
}

/* The stall's lock, and each lock of a chain across locks. */
static void stacks__name_lock(struct stacks *sk, struct ls_stall *c)
{
	struct ls_hop *hop;
	unsigned int i;

	if (ls_lock_is_user(c->lock.kind))
		stacks__name_futex(sk, &c->lock, &c->lock_name, &c->lock_module);
	else if (ls_lock_is_kernel(c->lock.kind) && !sk->opts.no_kernel)
		stacks__name_klock(sk, c);
	for (i = 0; i < c->n_chain && i < LS_MAX_HOPS; i++) {
		hop = &c->chain[i];
		if (!hop->has_lock)
			continue;
		if (ls_lock_is_user(hop->lock.kind))
			stacks__name_futex(sk, &hop->lock, &hop->lock_name, &hop->lock_module);
		else if (ls_lock_is_kernel(hop->lock.kind) && !sk->opts.no_kernel)
			hop->lock_name = stacks__klock_name(sk, hop->lock.id);
	}
}

/* ---- the sink ---------------------------------------------------------- */

struct stacks_sink {
	struct sink_pass pass;	/* first: the sink */
	struct stacks *sk;
	struct ls_holder holders[LS_MAX_HOLDERS];
};

void stacks__name_stall(struct stacks *sk, const struct ls_stall *st, struct ls_stall *out,
			struct ls_holder holders[LS_MAX_HOLDERS])
{
	unsigned int i, n = st->n_holders < LS_MAX_HOLDERS ? st->n_holders : LS_MAX_HOLDERS;

	*out = *st;
	if (st->waiter_stack)
		out->waiter_frames = stacks__resolve(sk, st->waiter_stack);
	stacks__name_lock(sk, out);
	memcpy(holders, st->holders, n * sizeof(st->holders[0]));
	for (i = 0; i < n; i++)
		if (holders[i].stack)
			holders[i].frames = stacks__resolve(sk, holders[i].stack);
	out->holders = holders;
}

static int stacks_sink__stall(struct sink_pass *p, const struct ls_stall *st)
{
	struct stacks_sink *ss = (struct stacks_sink *)p;
	struct ls_stall c;
	int err;

	stacks__name_stall(ss->sk, st, &c, ss->holders);
	err = sink__stall(ss->pass.inner, &c);
	stacks__reset(ss->sk);
	return err;
}

static const struct sink_pass_ops stacks_sink_ops = {
	.name = "stacks",
	.stall = stacks_sink__stall,
};

struct sink *sink_stacks__new(struct sink *inner, struct stacks *sk)
{
	struct stacks_sink *ss = sink_pass__new(sizeof(*ss), &stacks_sink_ops, inner);

	if (!ss)
		return NULL;
	ss->sk = sk;
	return &ss->pass.base;
}
