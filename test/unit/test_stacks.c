// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/resolve/stacks.c: STACK records to frames, with a kallsyms file and mappings
 * given by the test.  User frames are this test process's own functions,
 * named from its own ELF file through its /proc/self/maps text, given as a
 * recording would give it; kernel frames from a small kallsyms text.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/tmpdir.h"
#include "engine/sink.h"
#include "resolve/stacks.h"
#include "util.h"

static const char kallsyms_text[] =
	"ffffffffc0023a08 t bpf_prog_ae44d35154decf45_ls_acquire\t[bpf]\n"
	"ffffffff814cb000 T bpf_trace_run3\n"
	"ffffffff81600000 T __mmap_lock_do_trace_acquire_returned\n"
	"ffffffff81700000 T vm_mmap_pgoff\n"
	"ffffffff81701000 T ksys_mmap_pgoff\n"
	"ffffffff8224d0d0 T do_syscall_64\n"
	"ffffffff8224d800 T kretprobe_trampoline\n"
	"ffffffff8224e000 T entry_after\n";

static char dir[64], kallsyms[128];

static void setup(void)
{
	FILE *f;

	tmpdir__make(dir, sizeof(dir), "stacks");
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	f = fopen(kallsyms, "w");
	cr_assert_not_null(f);
	fputs(kallsyms_text, f);
	fclose(f);
}

static void teardown(void)
{
	tmpdir__remove(dir);
}

TestSuite(stacks, .init = setup, .fini = teardown);

/* Functions of this process for user frames: their own names, not inlined. */
__attribute__((noinline, noipa)) static int stacks_test_callee(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, noipa)) static int stacks_test_caller(int x)
{
	return stacks_test_callee(x) + 2;
}

static const __u64 kernel_ips[] = {
	0xffffffffc0023a10ULL,	/* the BPF program: skipped */
	0xffffffff814cb010ULL,	/* bpf_trace_run3: skipped */
	0xffffffff81600020ULL,	/* the tracepoint's own function: skipped */
	0xffffffff81700123ULL,	/* vm_mmap_pgoff+0x123 */
	0xffffffff8224d0e0ULL,	/* do_syscall_64+0x10 */
};

static struct ls_rec_stack rec(__u8 user_mode, __u8 flags)
{
	struct ls_rec_stack r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = LS_REC_STACK;
	r.hdr.size = sizeof(r);
	r.tid = r.tgid = (__u32)getpid();
	r.why = LS_STACK_WAIT;
	r.user_mode = user_mode;
	r.flags = flags;
	r.nr_kernel = ARRAY_SIZE(kernel_ips);
	memcpy(r.kernel, kernel_ips, sizeof(kernel_ips));
	/* the kernel's frame-pointer walk: an ip, a return address, then data */
	r.user[0] = (__u64)(unsigned long)stacks_test_callee + 4;
	r.user[1] = (__u64)(unsigned long)stacks_test_caller + 9;
	r.user[2] = 0x687361622f6e69ULL;	/* "/bin/bash"-ish bytes: no code */
	r.nr_user = 3;
	return r;
}

static struct stacks *stacks_with_own_maps(bool no_kernel)
{
	struct stacks_opts o = { .kallsyms = kallsyms, .no_kernel = no_kernel };
	struct stacks *sk = stacks__new(&o);
	char buf[1 << 16];
	size_t n;
	FILE *f;

	cr_assert_not_null(sk);
	f = fopen("/proc/self/maps", "r");
	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	cr_assert_eq(stacks__add_maps(sk, (__u32)getpid(), buf, n), 0);
	return sk;
}

Test(stacks, kernel_and_user_frames_named)
{
	struct stacks *sk = stacks_with_own_maps(false);
	struct ls_rec_stack r = rec(LS_USTACK_FP, 0);
	const struct ls_frames *fr = stacks__resolve(sk, &r);

	cr_assert_not_null(fr);
	cr_assert_eq(fr->n_kernel, 2, "the BPF and tracepoint frames are not skipped: %u", fr->n_kernel);
	cr_assert_str_eq(fr->v[0].sym, "vm_mmap_pgoff");
	cr_assert_eq(fr->v[0].off, 0x123);
	cr_assert_str_eq(fr->v[0].module, "vmlinux");
	cr_assert_eq(fr->v[0].kind, LS_FRAME_KERNEL);
	cr_assert_str_eq(fr->v[1].sym, "do_syscall_64");
	/* the kernel's fp walk: kept up to the first "frame" in no code */
	cr_assert_eq(fr->n, 4, "%u frames", fr->n);
	cr_assert_str_eq(fr->v[2].sym, "stacks_test_callee");
	cr_assert_eq(fr->v[2].off, 4);
	cr_assert_str_eq(fr->v[3].sym, "stacks_test_caller");
	cr_assert_eq(fr->v[3].off, 9, "a return address names the call's function, offset kept");
	cr_assert_eq(fr->v[3].kind, LS_FRAME_USER);
	cr_assert_str_eq(fr->user_method, "kernel-fp");
	cr_assert(fr->note && strstr(fr->note, "frames dropped"), "%s", fr->note);
	cr_assert_neq(fr->digest, 0);
	stacks__reset(sk);
	stacks__free(sk);
}

Test(stacks, same_frames_same_digest)
{
	struct stacks *sk = stacks_with_own_maps(false);
	struct ls_rec_stack a = rec(LS_USTACK_FP, 0), b = rec(LS_USTACK_FP, 0);
	__u64 da, db;

	da = stacks__resolve(sk, &a)->digest;
	b.user[1] = (__u64)(unsigned long)stacks_test_caller + 10;
	db = stacks__resolve(sk, &b)->digest;
	cr_assert_neq(da, db, "a different offset is another stack");
	stacks__reset(sk);
	cr_assert_eq(stacks__resolve(sk, &a)->digest, da);
	stacks__free(sk);
}

Test(stacks, another_boot_leaves_kernel_frames_unnamed)
{
	struct stacks *sk = stacks_with_own_maps(true);
	struct ls_rec_stack r = rec(LS_USTACK_FP, 0);
	const struct ls_frames *fr = stacks__resolve(sk, &r);
	unsigned int i;

	cr_assert_eq(fr->n_kernel, r.nr_kernel, "nothing can be skipped without names");
	for (i = 0; i < fr->n_kernel; i++)
		cr_assert_null(fr->v[i].sym, "frame %u named from another boot's kallsyms", i);
	cr_assert(strstr(fr->note, "another boot"), "%s", fr->note);
	stacks__free(sk);
}

/* kallsyms as an unprivileged reader sees it: names, every address 0. */
Test(stacks, hidden_kallsyms_addresses_are_told)
{
	static const char zeros[] = "0000000000000000 T vm_mmap_pgoff\n"
				    "0000000000000000 T do_syscall_64\n";
	struct stacks_opts o = { .kallsyms = kallsyms };
	struct ls_rec_stack r = rec(LS_USTACK_NONE, 0);
	const struct ls_frames *fr;
	struct stacks *sk;
	FILE *f = fopen(kallsyms, "w");

	cr_assert_not_null(f);
	fputs(zeros, f);
	fclose(f);
	sk = stacks__new(&o);
	cr_assert_not_null(sk);
	cr_assert_eq(stacks__kernel_probe(sk), -EPERM, "what watch tells once on stderr");
	fr = stacks__resolve(sk, &r);
	cr_assert_not_null(fr);
	cr_assert_null(fr->v[0].sym);
	cr_assert(fr->note && strstr(fr->note, "hides its addresses"), "%s", fr->note);
	stacks__free(sk);

	o.kallsyms = "/nonexistent/kallsyms";
	sk = stacks__new(&o);
	cr_assert_eq(stacks__kernel_probe(sk), -ENOENT);
	stacks__free(sk);
}

/* 5.10's unwinder stops at kretprobe_trampoline: said, not left to guess. */
Test(stacks, cut_at_kretprobe_trampoline)
{
	struct stacks *sk = stacks_with_own_maps(false);
	struct ls_rec_stack r = rec(LS_USTACK_FP, 0);
	const struct ls_frames *fr;

	r.kernel[0] = 0xffffffffc0023a10ULL;	/* the BPF program: skipped */
	r.kernel[1] = 0xffffffff8224d800ULL;	/* kretprobe_trampoline+0 */
	r.nr_kernel = 2;
	fr = stacks__resolve(sk, &r);
	cr_assert_eq(fr->n_kernel, 1);
	cr_assert_str_eq(fr->v[0].sym, "kretprobe_trampoline");
	cr_assert(fr->note && strstr(fr->note, "stops at kretprobe_trampoline"), "%s",
		  fr->note ? fr->note : "(no note)");
	stacks__free(sk);
}

Test(stacks, no_mappings_no_user_names)
{
	struct stacks_opts o = { .kallsyms = kallsyms };
	struct stacks *sk = stacks__new(&o);
	struct ls_rec_stack r = rec(LS_USTACK_FP, 0);
	const struct ls_frames *fr = stacks__resolve(sk, &r);
	unsigned int i;

	cr_assert_gt(fr->n, fr->n_kernel);
	for (i = fr->n_kernel; i < fr->n; i++)
		cr_assert_null(fr->v[i].sym, "user frame %u named without mappings", i);
	cr_assert(strstr(fr->note, "mappings were not captured"), "%s", fr->note);
	stacks__free(sk);
}

Test(stacks, user_stacks_none_and_kernel_threads)
{
	struct stacks *sk = stacks_with_own_maps(false);
	struct ls_rec_stack none = rec(LS_USTACK_NONE, 0);
	struct ls_rec_stack kthread = rec(LS_USTACK_NONE, LS_STACK_F_KTHREAD);
	const struct ls_frames *fr;

	fr = stacks__resolve(sk, &none);
	cr_assert_eq(fr->n, fr->n_kernel);
	cr_assert_str_eq(fr->user_method, "none");
	cr_assert(strstr(fr->note, "--user-stacks=none"), "%s", fr->note);
	fr = stacks__resolve(sk, &kthread);
	cr_assert_eq(fr->n, fr->n_kernel);
	cr_assert_null(fr->note, "a kernel thread has no user stack to miss: %s", fr->note);
	stacks__free(sk);
}

/* A stack the engine reused for a later stall (--stack-interval) says so, before any other note. */
Test(stacks, earlier_stack_is_told)
{
	struct stacks *sk = stacks_with_own_maps(false);
	struct ls_rec_stack earlier = rec(LS_USTACK_NONE, LS_STACK_F_EARLIER);
	const struct ls_frames *fr;

	fr = stacks__resolve(sk, &earlier);
	cr_assert(fr->note && !strncmp(fr->note, "taken earlier: ", 15), "%s",
		  fr->note ? fr->note : "(no note)");
	cr_assert(strstr(fr->note, "; user stacks were not captured (--user-stacks=none)"),
		  "the other note is lost: %s", fr->note);
	cr_assert_eq(fr->n, fr->n_kernel, "the frames are resolved as for any stack");
	stacks__free(sk);
}

/* Mappings as a recording keeps them, build-ids included, round-trip. */
static int keep_maps(void *ctx, __u32 tgid, const char *maps, size_t maps_len, const char *ids,
		     size_t ids_len)
{
	int *n = ctx;

	cr_assert_gt(maps_len, 0);
	(void)tgid;
	(void)maps;
	(void)ids;
	(void)ids_len;
	(*n)++;
	return 0;
}

Test(stacks, maps_for_recordings)
{
	struct stacks *sk = stacks_with_own_maps(false);
	int n = 0;

	cr_assert_eq(stacks__for_each_maps(sk, keep_maps, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(stacks__add_maps(sk, 0, "x", 1), -EINVAL, "tgid 0 is no process");
	cr_assert_eq(stacks__add_build_ids(sk, 99999999, "", 0), -ENOENT);
	stacks__free(sk);
}

/* Live: the worker reads the mappings; the resolve waits for them (bounded). */
Test(stacks, live_mappings_read_by_the_worker)
{
	struct stacks_opts o = { .kallsyms = kallsyms, .live = true };
	struct stacks *sk = stacks__new(&o);
	struct ls_rec_stack r = rec(LS_USTACK_FP, 0);
	const struct ls_frames *fr;

	cr_assert_not_null(sk);
	stacks__note(sk, &r);
	fr = stacks__resolve(sk, &r);
	cr_assert_eq(fr->n, 4, "%u frames: %s", fr->n, fr->note ? fr->note : "");
	cr_assert_str_eq(fr->v[2].sym, "stacks_test_callee");
	stacks__free(sk);
}

/* ---- futex names ---------------------------------------------------------------------- */

/* Locks in this process's data: a global in .bss, a member of a struct in .data. */
pthread_mutex_t stacks_test_mutex;
struct stacks_test_queue {
	long len;
	int lock;
} stacks_test_queue = { 1, 0 };

/* An output sink that keeps the lock's names of the last stall. */
struct lock_cap {
	struct sink base;
	char name[256];
	char module[4096];
	bool named;
};

static int lock_cap__stall(struct sink *s, const struct ls_stall *st)
{
	struct lock_cap *c = (struct lock_cap *)s;

	c->named = st->lock_name != NULL;
	snprintf(c->name, sizeof(c->name), "%s", st->lock_name ? st->lock_name : "");
	snprintf(c->module, sizeof(c->module), "%s", st->lock_module ? st->lock_module : "");
	return 0;
}

static void lock_cap__free(struct sink *s)
{
	(void)s;	/* on the test's stack */
}

static const struct sink_ops lock_cap_ops = {
	.name = "lock_cap",
	.stall = lock_cap__stall,
	.free = lock_cap__free,
};

/* A stall on the futex at addr of this process, through the resolver's sink. */
static void futex_stall(struct stacks *sk, __u8 kind, const void *addr, struct lock_cap *cap)
{
	struct ls_stall st = { .seq = 1 };
	struct sink *ss;

	memset(cap, 0, sizeof(*cap));
	sink__init(&cap->base, &lock_cap_ops, NULL, NULL);
	ss = sink_stacks__new(&cap->base, sk);
	cr_assert_not_null(ss);
	st.lock.kind = kind;
	st.lock.id = (__u64)(uintptr_t)addr;
	st.lock.tgid = (__u32)getpid();
	cr_assert_eq(sink__stall(ss, &st), 0);
	sink__free(ss);
}

static void expect_named(const struct lock_cap *c, const char *name)
{
	const char *self = "/unit_tests";

	cr_assert(c->named, "the futex was not named %s", name);
	cr_assert_str_eq(c->name, name);
	cr_assert(strlen(c->module) > strlen(self) &&
		  !strcmp(c->module + strlen(c->module) - strlen(self), self), "module %s", c->module);
}

/*
 * A live resolver with this process's mappings read: a stall names only
 * with mappings the worker read within STACKS_MAPS_WAIT_NS, which a
 * loaded machine may miss; a WAIT_BEGIN asks for them ahead, as it does live.
 */
static struct stacks *live_stacks(const struct stacks_opts *o)
{
	struct stacks *sk = stacks__new(o);
	struct ls_rec_lock r = { .hdr = { .type = LS_REC_WAIT_BEGIN, .size = sizeof(r) } };

	cr_assert_not_null(sk);
	r.lock.kind = LS_LOCK_FUTEX;
	r.lock.tgid = (__u32)getpid();
	stacks__note_wait(sk, &r);
	stacks__drain(sk, 2000000000ULL);
	return sk;
}

/* Live: the resolver asks for the mappings itself (no STACK record went by). */
Test(stacks, futex_named_by_its_data_symbol)
{
	struct stacks_opts o = { .kallsyms = kallsyms, .live = true };
	struct stacks *sk = live_stacks(&o);
	struct lock_cap c;
	int on_stack = 0;
	void *heap = malloc(64);
	char name[64];

	cr_assert_not_null(sk);
	futex_stall(sk, LS_LOCK_FUTEX, &stacks_test_mutex, &c);
	expect_named(&c, "stacks_test_mutex");
	snprintf(name, sizeof(name), "stacks_test_queue+0x%zx",
		 offsetof(struct stacks_test_queue, lock));
	futex_stall(sk, LS_LOCK_PI_FUTEX, &stacks_test_queue.lock, &c);
	expect_named(&c, name);
	futex_stall(sk, LS_LOCK_FUTEX, &on_stack, &c);
	cr_assert_not(c.named, "a stack address named %s", c.name);
	futex_stall(sk, LS_LOCK_FUTEX, heap, &c);
	cr_assert_not(c.named, "a heap address named %s", c.name);
	free(heap);
	stacks__free(sk);
}

struct kept_maps {
	char *maps, *ids;
	size_t maps_len, ids_len;
};

static int keep_own_maps(void *ctx, __u32 tgid, const char *maps, size_t maps_len,
			 const char *ids, size_t ids_len)
{
	struct kept_maps *k = ctx;

	if (tgid != (__u32)getpid())
		return 0;
	k->maps = strndup(maps, maps_len);
	k->ids = strndup(ids, ids_len);
	k->maps_len = maps_len;
	k->ids_len = ids_len;
	return 0;
}

/* A recording names a futex only with the build-ids it kept of the process's files. */
Test(stacks, recorded_futex_named_only_with_build_ids)
{
	struct stacks_opts live = { .kallsyms = kallsyms, .live = true };
	struct stacks_opts report = { .kallsyms = kallsyms };
	struct stacks *sk = live_stacks(&live), *rep;
	struct kept_maps k = { 0 };
	struct lock_cap c;

	cr_assert_not_null(sk);
	futex_stall(sk, LS_LOCK_FUTEX, &stacks_test_mutex, &c);
	expect_named(&c, "stacks_test_mutex");
	cr_assert_eq(stacks__for_each_maps(sk, keep_own_maps, &k), 0);
	stacks__free(sk);
	cr_assert_not_null(k.maps);
	cr_assert_gt(k.ids_len, 0, "no build-ids kept");

	rep = stacks__new(&report);
	cr_assert_not_null(rep);
	cr_assert_eq(stacks__add_maps(rep, (__u32)getpid(), k.maps, k.maps_len), 0);
	futex_stall(rep, LS_LOCK_FUTEX, &stacks_test_mutex, &c);
	cr_assert_not(c.named, "named without a build-id: %s", c.name);
	cr_assert_eq(stacks__add_build_ids(rep, (__u32)getpid(), k.ids, k.ids_len), 0);
	futex_stall(rep, LS_LOCK_FUTEX, &stacks_test_mutex, &c);
	expect_named(&c, "stacks_test_mutex");
	stacks__free(rep);
	free(k.maps);
	free(k.ids);
}

/* Live: a futex's WAIT_BEGIN has its process's mappings read while it waits. */
Test(stacks, futex_wait_begin_reads_the_mappings)
{
	struct stacks_opts o = { .kallsyms = kallsyms, .live = true };
	struct stacks *sk = stacks__new(&o);
	struct ls_rec_lock r = { .hdr = { .type = LS_REC_WAIT_BEGIN, .size = sizeof(r) } };
	struct kept_maps k = { 0 };

	cr_assert_not_null(sk);
	r.lock.kind = LS_LOCK_MMAP;
	r.lock.tgid = (__u32)getpid();
	stacks__note_wait(sk, &r);
	stacks__drain(sk, 2000000000ULL);
	cr_assert_eq(stacks__for_each_maps(sk, keep_own_maps, &k), 0);
	cr_assert_null(k.maps, "an mmap_lock wait had the mappings read");
	r.lock.kind = LS_LOCK_FUTEX;
	stacks__note_wait(sk, &r);
	stacks__drain(sk, 2000000000ULL);
	cr_assert_eq(stacks__for_each_maps(sk, keep_own_maps, &k), 0);
	cr_assert_not_null(k.maps, "a futex wait did not have the mappings read");
	stacks__free(sk);
	free(k.maps);
	free(k.ids);
}
