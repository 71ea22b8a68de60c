// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/symbols/unwind.c on stack images captured by the fixture program
 * (test/fixtures/unwind, committed with its binaries in test/data/unwind):
 * DWARF finds inner -> middle -> outer -> main with or without frame
 * pointers, through .eh_frame_hdr, .eh_frame alone or .debug_frame; the fp
 * walk only with frame pointers and says why it stopped without;
 * unwind__stack() says which it used; garbage records and corrupt unwind
 * info end cleanly, bounded.
 *
 * The dynamic fixtures' frames below main are the capturing machine's libc:
 * find_map refuses those files (unless a test says otherwise), so only the
 * fixture's own frames are asserted.  The static one is deterministic to
 * its outermost frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "lib/elf_edit.h"
#include "lib/racy.h"
#include "lib/unwind_image.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"
#include "util.h"

#define DATA "test/data/unwind/"
#define MAX_FRAMES 64

/* A tiny nm: the function symbols of a binary, to name frames. */
struct sym {
	__u64 lo, hi;
	char name[64];
};

static struct {
	struct unwind_image im;
	struct unwinder *u;
	struct sym syms[256];
	unsigned int nr_syms;
	__u64 bias;		/* runtime - link-time address of the fixture binary */
	__u64 ips[MAX_FRAMES];
	struct unwind_result res;
} t;

static void load_syms(const char *bin)
{
	int fd = open(bin, O_RDONLY);
	Elf_Scn *scn = NULL;
	Elf *elf;

	cr_assert_geq(fd, 0, "%s: %s", bin, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf, "%s: %s", bin, elf_errmsg(-1));
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !data)
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize && t.nr_syms < 256; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !(name = elf_strptr(elf, sh.sh_link, s.st_name)))
				continue;
			t.syms[t.nr_syms].lo = s.st_value;
			/* _start is written in asm with a size; a 0 size still names its first byte */
			t.syms[t.nr_syms].hi = s.st_value + (s.st_size ? s.st_size : 1);
			snprintf(t.syms[t.nr_syms].name, sizeof(t.syms[0].name), "%s", name);
			t.nr_syms++;
		}
	}
	elf_end(elf);
	close(fd);
}

static const struct sym *sym_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < t.nr_syms; i++)
		if (!strcmp(t.syms[i].name, name))
			return &t.syms[i];
	return NULL;
}

/* The fixture function frame i is in: the ip for frame 0, the call (ip - 1) above it. */
static const char *frame_name(unsigned int i)
{
	__u64 vaddr = (i ? t.ips[i] - 1 : t.ips[i]) - t.bias;
	unsigned int k;

	for (k = 0; k < t.nr_syms; k++)
		if (vaddr >= t.syms[k].lo && vaddr < t.syms[k].hi)
			return t.syms[k].name;
	return "?";
}

/*
 * Load variant's image and binary, and check they belong together: the
 * addresses the fixture recorded of its functions sit at one bias from
 * the binary's symbols.
 */
static void setup_variant(const char *variant)
{
	static const char *const fns[UNWIND_FN_N] = {
		"ls_fixture_inner", "ls_fixture_middle", "ls_fixture_outer", "main",
	};
	char img[128], bin[128];
	unsigned int i;
	int err;

	snprintf(img, sizeof(img), DATA "%s.img", variant);
	snprintf(bin, sizeof(bin), DATA "%s", variant);
	err = unwind_image__load(&t.im, img, bin);
	cr_assert_eq(err, 0, "%s: %s", img, strerror(-err));
	load_syms(bin);
	for (i = 0; i < UNWIND_FN_N; i++) {
		const struct sym *s = sym_named(fns[i]);

		cr_assert_not_null(s, "%s has no symbol %s", bin, fns[i]);
		if (i == 0)
			t.bias = t.im.hdr->fn[i] - s->lo;
		cr_assert_eq(t.im.hdr->fn[i] - s->lo, t.bias, "%s: %s is not where the image says: "
			     "rebuilt without `make unwind-fixtures`?", bin, fns[i]);
	}
	t.u = unwinder__new(0);
	cr_assert_not_null(t.u);
}

static void teardown(void)
{
	unwinder__free(t.u);
	unwind_image__free(&t.im);
	memset(&t, 0, sizeof(t));
}

static void expect_fixture_frames(void)
{
	static const char *const want[] = {
		"ls_fixture_inner", "ls_fixture_middle", "ls_fixture_outer", "main",
	};
	unsigned int i;

	cr_assert_geq(t.res.n, 4, "%u frames (%s, stopped: %s)", t.res.n,
		      unwind__method_name(t.res.method), unwind__stop_text(t.res.stop));
	for (i = 0; i < 4; i++)
		cr_assert_str_eq(frame_name(i), want[i], "frame %u at %#llx", i,
				 (unsigned long long)t.ips[i]);
}

static int dwarf(void)
{
	return unwind__dwarf(t.u, t.im.rec, t.im.rec_len, unwind_image__find_map, &t.im, t.ips,
			     MAX_FRAMES, &t.res);
}

static int fp(void)
{
	return unwind__fp(t.u, t.im.rec, t.im.rec_len, unwind_image__find_map, &t.im, t.ips,
			  MAX_FRAMES, &t.res);
}

static int best(void)
{
	return unwind__stack(t.u, t.im.rec, t.im.rec_len, unwind_image__find_map, &t.im, t.ips,
			     MAX_FRAMES, &t.res);
}

TestSuite(unwind, .fini = teardown);

/* ---- DWARF ---- */

/*
 * DWARF over a dynamic fixture: its frames, then main's return into libc,
 * whose file find_map does not give out.
 */
static void expect_dwarf_to_libc(const char *variant)
{
	setup_variant(variant);
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.method, UNWIND_DWARF);
	expect_fixture_frames();
	cr_assert_eq(t.res.n, 5);
	cr_assert_eq(t.res.stop, -ENOENT, "libc: %s", unwind__stop_text(t.res.stop));
	cr_assert_eq(t.res.stop_addr, t.ips[4] - 1, "the lookup that failed: libc's call");
}

Test(unwind, dwarf_without_frame_pointers)
{
	expect_dwarf_to_libc("nofp");
}

Test(unwind, dwarf_with_frame_pointers)
{
	expect_dwarf_to_libc("fp");
}

Test(unwind, dwarf_static_to_the_outermost_frame)
{
	static const char *const want[] = {
		"ls_fixture_inner", "ls_fixture_middle", "ls_fixture_outer", "main",
		"ls_fixture_start", "_start",
	};
	unsigned int i;

	setup_variant("static");
	cr_assert_eq(t.bias, 0, "not PIE");
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 6, "%u frames, stopped: %s", t.res.n, unwind__stop_text(t.res.stop));
	for (i = 0; i < 6; i++)
		cr_assert_str_eq(frame_name(i), want[i], "frame %u", i);
	cr_assert_eq(t.res.stop, 0, "_start's CFI marks the end: %s", unwind__stop_text(t.res.stop));
}

/* No .eh_frame_hdr, as static glibc links: a table is built over .eh_frame. */
Test(unwind, dwarf_static_without_eh_frame_hdr)
{
	setup_variant("static-nohdr");
	cr_assert_eq(dwarf(), 0);
	expect_fixture_frames();
	cr_assert_eq(t.res.n, 6, "%u frames, stopped: %s", t.res.n, unwind__stop_text(t.res.stop));
	cr_assert_str_eq(frame_name(5), "_start");
	cr_assert_eq(t.res.stop, 0);
}

/* The fixture's CFI only in .debug_frame: gcc's version 1 CIEs, clang's version 4. */
Test(unwind, dwarf_from_debug_frame)
{
	expect_dwarf_to_libc("debug-frame");
}

Test(unwind, dwarf_from_debug_frame_version_4)
{
	expect_dwarf_to_libc("debug-frame-clang");
}

/* With the machine's own files: whatever its libc is, the fixture's frames come first. */
Test(unwind, dwarf_through_the_machines_libc)
{
	setup_variant("nofp");
	t.im.any_file = true;
	cr_assert_eq(dwarf(), 0);
	expect_fixture_frames();
	cr_assert_leq(t.res.n, MAX_FRAMES);
}

Test(unwind, dwarf_frame_limit)
{
	setup_variant("static");
	cr_assert_eq(unwind__dwarf(t.u, t.im.rec, t.im.rec_len, unwind_image__find_map, &t.im,
				   t.ips, 2, &t.res), 0);
	cr_assert_eq(t.res.n, 2);
	cr_assert_eq(t.res.stop, -E2BIG);
	cr_assert_str_eq(frame_name(1), "ls_fixture_middle");
}

/* The file cache serves a second unwind: the same frames. */
Test(unwind, dwarf_again_same_frames)
{
	__u64 first[MAX_FRAMES];
	unsigned int n;

	setup_variant("static");
	cr_assert_eq(dwarf(), 0);
	n = t.res.n;
	memcpy(first, t.ips, sizeof(first));
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, n);
	cr_assert_arr_eq(t.ips, first, n * sizeof(__u64));
}

/*
 * A cache of one file: an unwind that needs a second one stops there, the
 * file it uses is not evicted under it; the next unwind evicts it.
 */
Test(unwind, cache_of_one_file)
{
	struct unwind_image other;

	setup_variant("nofp");
	unwinder__free(t.u);
	t.u = unwinder__new(1);
	t.im.any_file = true;
	cr_assert_eq(dwarf(), 0);
	expect_fixture_frames();
	cr_assert_eq(t.res.n, 5);
	cr_assert_eq(t.res.stop, -ENOENT, "%s", unwind__stop_text(t.res.stop));
	cr_assert_eq(unwind_image__load(&other, DATA "static.img", DATA "static"), 0);
	cr_assert_eq(unwind__dwarf(t.u, other.rec, other.rec_len, unwind_image__find_map, &other,
				   t.ips, MAX_FRAMES, &t.res), 0);
	cr_assert_eq(t.res.n, 6);
	cr_assert_eq(t.res.stop, 0);
	unwind_image__free(&other);
}

/* A copy of the static fixture at path (mkstemp's template), as its binary. */
static void copy_static(char *path)
{
	char cmd[256];
	int fd;

	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp " DATA "static %s", path);
	cr_assert_eq(system(cmd), 0);
	snprintf(t.im.bin, sizeof(t.im.bin), "%s", path);
}

/* A binary replaced under the same path is read anew, not served from the cache. */
Test(unwind, replaced_file_is_reloaded)
{
	char path[] = "/tmp/lockstall-unwind-XXXXXX";

	setup_variant("static");
	copy_static(path);
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 6);
	/* now a file with no unwind info at all */
	cr_assert_eq(truncate(path, 0), 0);
	cr_assert_eq(dwarf(), 0);
	unlink(path);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -ENOEXEC, "%s", unwind__stop_text(t.res.stop));
}

/*
 * Only a file's headers and unwind sections are read: 4M more of a section
 * nothing unwinds with cost nothing, and it unwinds as before.
 */
Test(unwind, only_unwind_sections_are_read)
{
	/* static: the suite's teardown frees the unwinder, which gives back to it */
	static struct sym_budget b;
	char path[] = "/tmp/lockstall-unwind-XXXXXX";

	setup_variant("static");
	copy_static(path);
	elf_edit__add_section(path, ".fat", 4u << 20);
	memset(&b, 0, sizeof(b));
	unwinder__set_budget(t.u, &b);
	cr_assert_eq(dwarf(), 0);
	unlink(path);
	cr_assert_eq(t.res.n, 6);
	cr_assert_lt(b.window_bytes, 64u << 10, "read %zu bytes", b.window_bytes);
	cr_assert_lt(b.used, 64u << 10, "held %zu bytes", b.used);
}

/*
 * A file read as it changed may change again in the same tick of the file
 * system's clock, unseen by stat: the next unwind reads it again.
 */
ParameterizedTestParameters(unwind, file_read_as_it_changed_is_read_again)
{
	return cr_make_param_array(struct racy_case, racy_cases, RACY_CASES_N);
}

ParameterizedTest(struct racy_case *rc, unwind, file_read_as_it_changed_is_read_again)
{
	/* static: the suite's teardown frees the unwinder, which gives back to it */
	static struct sym_budget b;
	char path[] = "/tmp/lockstall-unwind-XXXXXX";
	struct stat st;
	size_t one;

	setup_variant("static");
	copy_static(path);
	racy_budget__init(&b, path, rc);
	unwinder__set_budget(t.u, &b);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 6);
	one = b.window_bytes;
	cr_assert_gt(one, 0);
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 6);
	unlink(path);
	/* both reads in one second of the rate's clock: their bytes add up */
	cr_assert_eq(b.window_bytes, rc->reads * one);
}

/* ---- frame pointers ---- */

Test(unwind, fp_with_frame_pointers)
{
	setup_variant("fp");
	cr_assert_eq(fp(), 0);
	cr_assert_eq(t.res.method, UNWIND_FP);
	expect_fixture_frames();
	/* main's frame record links to libc's rbp, and libc is not given out */
	cr_assert_eq(t.res.n, 4);
	cr_assert_eq(t.res.stop, -ENOEXEC, "%s", unwind__stop_text(t.res.stop));
}

/* Without frame pointers rbp is just a register: the walk stops, and says so. */
Test(unwind, fp_without_frame_pointers_stops)
{
	unsigned int i;

	setup_variant("nofp");
	cr_assert_eq(fp(), 0);
	cr_assert_lt(t.res.n, 3, "%u frames from a binary without frame pointers", t.res.n);
	cr_assert_neq(t.res.stop, 0, "an early stop is not the outermost frame");
	for (i = 1; i < t.res.n; i++)
		cr_assert_str_neq(frame_name(i), "ls_fixture_middle", "frame %u", i);
}

/* Deterministic there: rbp holds a small number, not a frame pointer. */
Test(unwind, fp_static_without_frame_pointers)
{
	setup_variant("static");
	cr_assert_eq(fp(), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -ENODATA, "%s", unwind__stop_text(t.res.stop));
	cr_assert_eq(t.res.stop_addr, t.im.rec->uregs[LS_UREG_BP]);
}

/* ---- which method ---- */

/* unwind__stack() chose method, and calls it name. */
static void expect_best(enum unwind_method method, const char *name)
{
	cr_assert_eq(best(), 0);
	cr_assert_eq(t.res.method, method, "%s", unwind__method_name(t.res.method));
	cr_assert_str_eq(unwind__method_name(method), name);
}

Test(unwind, stack_prefers_dwarf)
{
	setup_variant("nofp");
	expect_best(UNWIND_DWARF, "dwarf");
	expect_fixture_frames();
}

/* The fixture's functions without CFI (frame pointers kept): DWARF fails at once, fp works. */
Test(unwind, stack_falls_back_to_fp)
{
	setup_variant("fp-nocfi");
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 1, "no FDE for inner: no guessed frames either");
	cr_assert_eq(t.res.stop, -ENOENT, "%s", unwind__stop_text(t.res.stop));
	expect_best(UNWIND_FP, "fp");
	expect_fixture_frames();
}

Test(unwind, stack_kernel_list_without_registers)
{
	setup_variant("nofp");
	t.im.rec->flags &= ~LS_STACK_F_REGS;
	t.im.rec->nr_user = 3;
	t.im.rec->user[1] = 0x1111;
	t.im.rec->user[2] = 0x2222;
	expect_best(UNWIND_KERNEL_FP, "kernel-fp");
	cr_assert_eq(t.res.n, 3);
	cr_assert_eq(t.ips[2], 0x2222);
	cr_assert_eq(dwarf(), -ENODATA);
	cr_assert_eq(fp(), -ENODATA);
}

/* ---- garbage: clear returns, bounded frames, no crash ---- */

Test(unwind, record_shorter_than_it_says)
{
	struct ls_rec_stack *r;
	size_t full;

	setup_variant("nofp");
	r = t.im.rec;
	full = sizeof(*r) + r->copy_len;
	cr_assert_eq(unwind__dwarf(t.u, r, full - 1, unwind_image__find_map, &t.im, t.ips,
				   MAX_FRAMES, &t.res), -EINVAL);
	cr_assert_eq(unwind__fp(t.u, r, full - 1, unwind_image__find_map, &t.im, t.ips,
				MAX_FRAMES, &t.res), -EINVAL);
	cr_assert_eq(unwind__stack(t.u, r, sizeof(*r) - 8, unwind_image__find_map, &t.im, t.ips,
				   MAX_FRAMES, &t.res), -EINVAL);
	cr_assert_eq(unwind__dwarf(t.u, r, full, unwind_image__find_map, &t.im, t.ips, 0, &t.res),
		     -EINVAL, "max 0");
	cr_assert_eq(unwind__dwarf(t.u, r, full, NULL, NULL, t.ips, MAX_FRAMES, &t.res), -EINVAL,
		     "DWARF needs find_map");
	r->hdr.type = LS_REC_HOLD;
	cr_assert_eq(unwind__dwarf(t.u, r, full, unwind_image__find_map, &t.im, t.ips,
				   MAX_FRAMES, &t.res), -EINVAL, "not a STACK record");
}

Test(unwind, copy_cut_short)
{
	setup_variant("static");
	t.im.rec->copy_len = 0;
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -EFAULT, "%s", unwind__stop_text(t.res.stop));
	cr_assert_geq(t.res.stop_addr, t.im.rec->uregs[LS_UREG_SP], "the return address slot");

	t.im.rec->copy_len = 64;
	cr_assert_eq(dwarf(), 0);
	cr_assert_lt(t.res.n, 6);
	cr_assert_eq(t.res.stop, -EFAULT);
}

Test(unwind, fp_copy_cut_short)
{
	setup_variant("fp");
	t.im.rec->copy_len = 0;
	cr_assert_eq(fp(), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -EFAULT, "%s", unwind__stop_text(t.res.stop));
}

/*
 * A copy at the top of the address space: it is read only where it is, not
 * past the wrap, and the caller's sp, which wraps to 0, is no frame.
 */
Test(unwind, sp_at_the_top_of_the_address_space)
{
	setup_variant("nofp");
	t.im.rec->uregs[LS_UREG_SP] = ~0ULL - 15;
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -ELOOP, "%s", unwind__stop_text(t.res.stop));
	/* here the return address slot is at address 0, which libunwind takes for "none" */
	t.im.rec->uregs[LS_UREG_SP] = ~0ULL - 7;
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 1);
	t.im.rec->uregs[LS_UREG_BP] = ~0ULL - 7;
	cr_assert_eq(fp(), 0);
	cr_assert_eq(t.res.n, 1);
}

Test(unwind, ip_in_no_mapping)
{
	setup_variant("nofp");
	t.im.rec->uregs[LS_UREG_IP] = 0x10;
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.ips[0], 0x10);
	cr_assert_eq(t.res.stop, -ENOENT, "%s", unwind__stop_text(t.res.stop));
	cr_assert_eq(t.res.stop_addr, 0x10);
}

/* find_map names a file that is not ELF: no unwind info there, said so. */
Test(unwind, mapped_file_not_elf)
{
	setup_variant("nofp");
	snprintf(t.im.bin, sizeof(t.im.bin), DATA "nofp.img");
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -ENOEXEC, "%s", unwind__stop_text(t.res.stop));
}

static int find_map_fails(void *ctx, __u64 addr, struct unwind_map *map)
{
	return -EIO;
}

Test(unwind, find_map_error_passed_on)
{
	setup_variant("nofp");
	cr_assert_eq(unwind__dwarf(t.u, t.im.rec, t.im.rec_len, find_map_fails, NULL, t.ips,
				   MAX_FRAMES, &t.res), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -EIO);
}

/*
 * The traced process owns the path of its executable: a FIFO
 * there must not block the unwinder (the suite's timeout fails a hang), a
 * symlink must not be followed, another file must not be read for it.
 */
static char hostile_dir[] = "/tmp/lockstall-hostile-XXXXXX";

static void hostile_setup(void)
{
	cr_assert_not_null(mkdtemp(hostile_dir));
}

static void hostile_teardown(void)
{
	char cmd[64];

	teardown();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", hostile_dir);
	cr_assert_eq(system(cmd), 0);
}

Test(hostile, unwind_fifo_at_the_executables_path, .init = hostile_setup,
     .fini = hostile_teardown, .timeout = 20)
{
	setup_variant("nofp");
	snprintf(t.im.bin, sizeof(t.im.bin), "%s/exe", hostile_dir);
	cr_assert_eq(mkfifo(t.im.bin, 0600), 0);
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -ENOEXEC, "%s", unwind__stop_text(t.res.stop));
}

Test(hostile, unwind_symlink_at_the_executables_path, .init = hostile_setup,
     .fini = hostile_teardown, .timeout = 20)
{
	char real[PATH_MAX];

	setup_variant("nofp");
	cr_assert_not_null(realpath(DATA "nofp", real));
	snprintf(t.im.bin, sizeof(t.im.bin), "%s/exe", hostile_dir);
	cr_assert_eq(symlink(real, t.im.bin), 0);
	cr_assert_eq(dwarf(), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -ELOOP, "%s", unwind__stop_text(t.res.stop));
}

/* The mapping's inode, as a live process's find_map gives it: the file is one other. */
static int find_map_other_inode(void *ctx, __u64 addr, struct unwind_map *map)
{
	int err = unwind_image__find_map(ctx, addr, map);

	map->dev = 1;
	map->ino = 1;
	return err;
}

Test(hostile, unwind_other_file_at_the_executables_path, .fini = teardown)
{
	setup_variant("nofp");
	cr_assert_eq(unwind__dwarf(t.u, t.im.rec, t.im.rec_len, find_map_other_inode, &t.im,
				   t.ips, MAX_FRAMES, &t.res), 0);
	cr_assert_eq(t.res.n, 1);
	cr_assert_eq(t.res.stop, -ESTALE, "%s", unwind__stop_text(t.res.stop));
	/* and the right one, the same file: unwound */
	cr_assert_eq(dwarf(), 0);
	expect_fixture_frames();
}

/* An rbp chain that points back at itself ends, it does not spin. */
Test(unwind, fp_loop)
{
	static __u64 buf[(sizeof(struct ls_rec_stack) + 64) / 8];
	struct ls_rec_stack *r = (struct ls_rec_stack *)buf;
	__u64 *copy = (__u64 *)(r + 1), sp = 0x7ffff000;

	r->hdr.type = LS_REC_STACK;
	r->flags = LS_STACK_F_REGS;
	r->copy_len = 64;
	r->uregs[LS_UREG_SP] = sp;
	r->uregs[LS_UREG_BP] = sp + 16;
	r->uregs[LS_UREG_IP] = 0x401000;
	copy[2] = sp;		/* [bp] = a frame below this one */
	copy[3] = 0x401234;	/* [bp + 8] */
	cr_assert_eq(unwind__fp(NULL, r, sizeof(buf), NULL, NULL, t.ips, MAX_FRAMES, &t.res), 0);
	cr_assert_eq(t.res.n, 2);
	cr_assert_eq(t.ips[1], 0x401234);
	cr_assert_eq(t.res.stop, -ELOOP, "%s", unwind__stop_text(t.res.stop));
}

static __u64 xorshift(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Random stacks under the real registers and mappings: words that are
 * noise, code addresses of the fixture, or pointers into the copy, so the
 * walks go some way before they stop.  Each must stop, within max frames,
 * with every frame above the previous one's sp (DWARF) or rbp (fp).
 */
Test(unwind, random_stacks)
{
	__u64 seed = 0x9e3779b97f4a7c15ULL, sp, *copy;
	const struct sym *text = NULL;
	unsigned int round, i;

	setup_variant("nofp");
	text = sym_named("ls_fixture_middle");
	sp = t.im.rec->uregs[LS_UREG_SP];
	copy = (__u64 *)(t.im.rec + 1);
	for (round = 0; round < 300; round++) {
		for (i = 0; i < t.im.rec->copy_len / 8; i++) {
			__u64 r = xorshift(&seed);

			switch (r % 4) {
			case 0:
				copy[i] = r;
				break;
			case 1:
				copy[i] = text->lo + t.bias + (r >> 8) % 64;
				break;
			default:
				copy[i] = sp + ((r >> 8) % t.im.rec->copy_len & ~7ULL);
				break;
			}
		}
		if (round % 3 == 0)
			t.im.rec->uregs[LS_UREG_IP] = text->lo + t.bias + xorshift(&seed) % 16;
		if (round % 5 == 0)
			t.im.rec->uregs[LS_UREG_BP] = xorshift(&seed);
		cr_assert_eq(dwarf(), 0);
		cr_assert(t.res.n >= 1 && t.res.n <= MAX_FRAMES);
		cr_assert_eq(fp(), 0);
		cr_assert(t.res.n >= 1 && t.res.n <= MAX_FRAMES);
		cr_assert_eq(best(), 0);
		cr_assert(t.res.n >= 1 && t.res.n <= MAX_FRAMES);
	}
}

/* Registers and bytes all noise, and a find_map that gives out every file it knows. */
Test(unwind, random_records)
{
	static __u64 buf[(sizeof(struct ls_rec_stack) + 4096) / 8];
	struct ls_rec_stack *r = (struct ls_rec_stack *)buf;
	__u64 seed = 12345;
	unsigned int round, i;

	setup_variant("nofp");
	t.im.any_file = true;
	for (round = 0; round < 200; round++) {
		for (i = 0; i < ARRAY_SIZE(buf); i++)
			buf[i] = xorshift(&seed);
		r->hdr.type = LS_REC_STACK;
		r->copy_len = xorshift(&seed) % 4097;
		r->nr_user = xorshift(&seed);	/* beyond LS_USTACK_MAX: clamped */
		cr_assert_eq(unwind__stack(t.u, r, sizeof(buf), unwind_image__find_map, &t.im,
					   t.ips, MAX_FRAMES, &t.res), 0);
		cr_assert_leq(t.res.n, MAX_FRAMES);
	}
}

Test(unwind, names)
{
	cr_assert_str_eq(unwind__method_name(UNWIND_NONE), "none");
	cr_assert_str_eq(unwind__method_name(UNWIND_DWARF), "dwarf");
	cr_assert_str_eq(unwind__stop_text(0), "outermost frame");
	cr_assert_str_eq(unwind__stop_text(-EFAULT), "beyond the stack copy");
	cr_assert_str_eq(unwind__stop_text(-EIO), "mapping lookup failed");
}

/*
 * Unwind info gone bad: bits of the section flipped at random, a fresh
 * unwinder each round.  .eh_frame without a header and .debug_frame are
 * parsed here before libunwind sees them.
 */
/* Where section name is in the file bin. */
static void section_range(const char *bin, const char *name, __u64 *off, __u64 *size)
{
	int fd = open(bin, O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	cr_assert_geq(fd, 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	*size = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name)) {
			*off = sh.sh_offset;
			*size = sh.sh_size;
		}
	}
	elf_end(elf);
	close(fd);
	cr_assert_gt(*size, 0, "%s has no %s", bin, name);
}

static void corrupt_rounds(const char *variant, const char *section)
{
	__u64 sec_off, sec_size;
	char path[] = "/tmp/lockstall-unwind-XXXXXX";
	__u64 seed = 0x5eed, size;
	unsigned int round, k;
	__u8 *orig;
	FILE *f;
	int fd;

	setup_variant(variant);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	f = fopen(t.im.bin, "rb");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	orig = malloc(size);
	cr_assert_eq(fread(orig, 1, size, f), size);
	fclose(f);
	section_range(t.im.bin, section, &sec_off, &sec_size);
	snprintf(t.im.bin, sizeof(t.im.bin), "%s", path);
	for (round = 0; round < 150; round++) {
		__u8 *bytes = malloc(size);

		memcpy(bytes, orig, size);
		for (k = 0; k < 1 + round % 8; k++)
			bytes[sec_off + xorshift(&seed) % sec_size] ^= 1 << (xorshift(&seed) % 8);
		cr_assert_eq(pwrite(fd, bytes, size, 0), (ssize_t)size);
		free(bytes);
		unwinder__free(t.u);
		t.u = unwinder__new(0);
		cr_assert_eq(dwarf(), 0);
		cr_assert(t.res.n >= 1 && t.res.n <= MAX_FRAMES);
		cr_assert_eq(best(), 0);
	}
	close(fd);
	unlink(path);
	free(orig);
}

Test(unwind, corrupt_eh_frame_without_header)
{
	corrupt_rounds("static-nohdr", ".eh_frame");
}

Test(unwind, corrupt_debug_frame)
{
	corrupt_rounds("debug-frame-clang", ".debug_frame");
}

Test(unwind, corrupt_debug_frame_version_1)
{
	corrupt_rounds("debug-frame", ".debug_frame");
}

Test(unwind, corrupt_eh_frame_hdr)
{
	corrupt_rounds("nofp", ".eh_frame_hdr");
}
