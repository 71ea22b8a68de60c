// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/symbols/elf_file.c and symbolizer.c against real binaries built by
 * the GNUmakefile from test/fixtures/symbols/: non-PIE, PIE, stripped to
 * .dynsym, and their shared library.  Each fixture prints its functions'
 * addresses and its /proc/self/maps, and exits; the test symbolizes from
 * that text, as a report does after the traced process is gone.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gelf.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "lib/elf_edit.h"
#include "lib/racy.h"
#include "lib/tmpdir.h"
#include "symbols/internal.h"
#include "symbols/symbols.h"
#include "util.h"

#define FIX_MAX_FNS 16
#define NO_DEBUG "/nonexistent-debug-root"

struct fix_addr {
	char name[64];
	__u64 addr;
};

struct fixture {
	char dir[PATH_MAX];
	struct fix_addr fn[FIX_MAX_FNS], data[FIX_MAX_FNS];
	int nfn, ndata;
	char *maps_text;
	size_t maps_len;
	struct proc_maps *maps;
};

static const char *fixture_dir(char *buf, size_t len)
{
	const char *dir = getenv("LOCKSTALL_FIXTURES");

	if (!realpath(dir ? dir : "build/test/fixtures", buf))
		cr_assert_fail("no fixtures at %s: build them with make test-unit", dir ? dir : "build/test/fixtures");
	(void)len;
	return buf;
}

/* Run dir/name (dir NULL: build/test/fixtures) and read what it printed. */
static void fixture_run_in(struct fixture *fx, const char *dir, const char *name)
{
	char cmd[PATH_MAX + 16], line[8192];
	size_t alloc = 1 << 20;
	bool in_maps = false;
	FILE *p;

	memset(fx, 0, sizeof(*fx));
	fixture_dir(fx->dir, sizeof(fx->dir));
	snprintf(cmd, sizeof(cmd), "%s/%s", dir ? dir : fx->dir, name);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	fx->maps_text = calloc(1, alloc);
	while (fgets(line, sizeof(line), p)) {
		size_t n = strlen(line);

		if (in_maps) {
			cr_assert_lt(fx->maps_len + n, alloc);
			memcpy(fx->maps_text + fx->maps_len, line, n);
			fx->maps_len += n;
		} else if (!strcmp(line, "maps\n")) {
			in_maps = true;
		} else if (!strncmp(line, "fn ", 3)) {
			cr_assert_lt(fx->nfn, FIX_MAX_FNS);
			cr_assert_eq(sscanf(line, "fn %63s %llx", fx->fn[fx->nfn].name,
					    (unsigned long long *)&fx->fn[fx->nfn].addr), 2, "%s", line);
			fx->nfn++;
		} else if (!strncmp(line, "data ", 5)) {
			cr_assert_lt(fx->ndata, FIX_MAX_FNS);
			cr_assert_eq(sscanf(line, "data %63s %llx", fx->data[fx->ndata].name,
					    (unsigned long long *)&fx->data[fx->ndata].addr), 2, "%s", line);
			fx->ndata++;
		}
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	cr_assert(in_maps);
	cr_assert_eq(proc_maps__parse(&fx->maps, fx->maps_text, fx->maps_len), 0);
}

static void fixture_run(struct fixture *fx, const char *name)
{
	fixture_run_in(fx, NULL, name);
}

static void fixture_free(struct fixture *fx)
{
	proc_maps__free(fx->maps);
	free(fx->maps_text);
}

/* The address the fixture printed for name in v (its "fn" or its "data" lines). */
static __u64 fix_addr(const struct fix_addr *v, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].name, name))
			return v[i].addr;
	}
	cr_assert_fail("fixture printed no %s", name);
	return 0;
}

static __u64 fn_addr(const struct fixture *fx, const char *name)
{
	return fix_addr(fx->fn, fx->nfn, name);
}

static __u64 data_addr(const struct fixture *fx, const char *name)
{
	return fix_addr(fx->data, fx->ndata, name);
}

static struct symbolizer *new_symbolizer(const char *debug_root, unsigned int max_files)
{
	struct symbolizer_opts opts = { .debug_root = debug_root, .max_files = max_files };
	struct symbolizer *s = symbolizer__new(&opts);

	cr_assert_not_null(s);
	return s;
}

/* sym, the symbolizer's answer for addr, is name+off in a file ending in module_suffix. */
static void expect_named(const struct ls_sym sym, __u64 addr, const char *name, __u64 off,
			 const char *module_suffix)
{
	cr_assert(sym.resolved, "%s+%llx at %llx: unresolved, status %u", name, (unsigned long long)off,
		  (unsigned long long)addr, sym.status);
	cr_assert_str_eq(sym.name, name);
	cr_assert_eq(sym.off, off, "%s: off %llx", name, (unsigned long long)sym.off);
	cr_assert_not_null(sym.module);
	cr_assert(strlen(sym.module) >= strlen(module_suffix) &&
		  !strcmp(sym.module + strlen(sym.module) - strlen(module_suffix), module_suffix),
		  "module %s", sym.module);
}

static void expect_sym(struct symbolizer *s, const struct proc_maps *maps, __u64 addr, const char *name,
		       __u64 off, const char *module_suffix)
{
	struct ls_sym sym;

	cr_assert_eq(symbolizer__user(s, maps, addr, &sym), 0);
	expect_named(sym, addr, name, off, module_suffix);
}

/* sym, the symbolizer's answer for addr, names nothing, for the reason status. */
static void expect_nameless(const struct ls_sym sym, __u64 addr, enum ls_sym_status status)
{
	cr_assert_not(sym.resolved, "%llx resolved as %s+%llx", (unsigned long long)addr, sym.name,
		      (unsigned long long)sym.off);
	cr_assert_null(sym.name);
	cr_assert_eq(sym.status, status, "%llx: status %u", (unsigned long long)addr, sym.status);
}

static void expect_unknown(struct symbolizer *s, const struct proc_maps *maps, __u64 addr,
			   enum ls_sym_status status)
{
	const struct proc_map *m = proc_maps__find(maps, addr);
	struct ls_sym sym;

	cr_assert_eq(symbolizer__user(s, maps, addr, &sym), 0);
	expect_nameless(sym, addr, status);
	if (m && m->path[0]) {
		cr_assert_str_eq(sym.module, m->path);
		cr_assert_eq(sym.module_off, addr - m->start + m->pgoff);
	}
}

/* Every function by name, at its start and one byte in; the library's too. */
static void expect_all(struct symbolizer *s, const struct fixture *fx, const char *bin, bool statics)
{
	static const char *const main_fns[] = { "fix_main_global", "fix_main_global2", "main",
						"fix_asm_nosize" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(main_fns); i++) {
		expect_sym(s, fx->maps, fn_addr(fx, main_fns[i]), main_fns[i], 0, bin);
		expect_sym(s, fx->maps, fn_addr(fx, main_fns[i]) + 1, main_fns[i], 1, bin);
	}
	if (statics)
		expect_sym(s, fx->maps, fn_addr(fx, "fix_main_static") + 2, "fix_main_static", 2, bin);
	else
		expect_unknown(s, fx->maps, fn_addr(fx, "fix_main_static") + 2, LS_SYM_NO_SYMBOL);
	expect_sym(s, fx->maps, fn_addr(fx, "fix_lib_global") + 3, "fix_lib_global", 3, "/libsymfix.so");
	expect_sym(s, fx->maps, fn_addr(fx, "fix_lib_static"), "fix_lib_static", 0, "/libsymfix.so");
	/* the IFUNC and its static resolver share an address: the global IFUNC names it */
	expect_sym(s, fx->maps, fn_addr(fx, "fix_lib_ifunc"), "fix_lib_ifunc", 0, "/libsymfix.so");
}

/* Each fixture binary: are its statics named, and from which symbol table? */
struct bin_case {
	char bin[32];
	bool statics;
	char source[16];	/* elf_file__sym_source() */
	bool build_id;
};

ParameterizedTestParameters(symbols_elf, binaries)
{
	static struct bin_case cases[] = {
		{ "sym_nopie", true, "symtab", true },
		{ "sym_pie", true, "symtab", true },
		/* only .dynsym: exported functions named, static ones unknown */
		{ "sym_stripped", false, "dynsym", true },
		/* .gnu_debuglink to the debug file next to it, checked by build-id ... */
		{ "sym_linked", true, "debug", true },
		/* ... or, without one, by the link's CRC */
		{ "sym_nobid", true, "debug", false },
	};

	return cr_make_param_array(struct bin_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct bin_case *c, symbols_elf, binaries)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	char suffix[40];
	struct ls_file_info info;
	struct fixture fx;
	const __u8 *id;
	size_t len;

	fixture_run(&fx, c->bin);
	snprintf(suffix, sizeof(suffix), "/%s", c->bin);
	expect_all(s, &fx, suffix, c->statics);
	cr_assert_eq(symbolizer__file(s, fx.maps, fn_addr(&fx, "main"), &info), 0);
	cr_assert_str_eq(elf_file__sym_source(info.elf), c->source);
	cr_assert_eq(elf_file__build_id(info.elf, &id, &len), c->build_id ? 0 : -ENOENT);
	fixture_free(&fx);
	symbolizer__free(s);
}

Test(symbols_elf, non_pie)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	struct ls_file_info info;
	struct fixture fx;

	fixture_run(&fx, "sym_nopie");
	/* a PLT entry has no symbol: unknown, not the function before it */
	cr_assert_neq(fn_addr(&fx, "fix_lib_global_canonical"), fn_addr(&fx, "fix_lib_global"));
	expect_unknown(s, fx.maps, fn_addr(&fx, "fix_lib_global_canonical"), LS_SYM_NO_SYMBOL);
	cr_assert_eq(symbolizer__file(s, fx.maps, fn_addr(&fx, "main"), &info), 0);
	cr_assert_eq(info.bias, 0, "non-PIE: bias %llx", (unsigned long long)info.bias);
	fixture_free(&fx);
	symbolizer__free(s);
}

Test(symbols_elf, pie)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	struct ls_file_info info;
	struct fixture fx;
	struct ls_sym sym;
	__u64 ip;

	fixture_run(&fx, "sym_pie");
	/* what the unwinder asks: file, fd, bias; ip - bias is the ELF address */
	ip = fn_addr(&fx, "fix_main_global2") + 4;
	cr_assert_eq(symbolizer__file(s, fx.maps, ip, &info), 0);
	cr_assert_not_null(info.map);
	cr_assert_geq(elf_file__fd(info.elf), 0);
	cr_assert_not_null(elf_file__elf(info.elf));
	cr_assert_null(elf_file__debug_elf(info.elf));
	cr_assert_str_eq(elf_file__path(info.elf), info.map->path);
	cr_assert_eq(info.bias & 0xfff, 0);
	cr_assert_neq(info.bias, 0);
	cr_assert_eq(elf_file__find(info.elf, ip - info.bias, &sym), 0);
	cr_assert_str_eq(sym.name, "fix_main_global2");
	cr_assert_eq(sym.off, 4);
	fixture_free(&fx);
	symbolizer__free(s);
}

/* A fake /usr/lib/debug: .build-id/xx/yyyy.debug linked to the fixture's debug file. */
static void make_debug_root(char *root, const struct fixture *fx, const char *bin, const char *debug)
{
	char path[PATH_MAX + 64], target[PATH_MAX + 64], hex[2 * LS_BUILD_ID_MAX + 1];
	struct elf_file *ef;
	const __u8 *id;
	size_t len, i;

	strcpy(root, "/tmp/ls-debug-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/%s", fx->dir, bin);
	cr_assert_eq(elf_file__open(&ef, path, NO_DEBUG), 0);
	cr_assert_eq(elf_file__build_id(ef, &id, &len), 0);
	cr_assert_eq(len, 20);
	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	elf_file__free(ef);
	snprintf(path, sizeof(path), "%s/.build-id", root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", root, hex);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	snprintf(target, sizeof(target), "%s/%s", fx->dir, debug);
	cr_assert_eq(symlink(target, path), 0, "%s", path);
}

static void remove_debug_root(const char *root)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

Test(symbols_elf, stripped_with_debug_file_by_build_id)
{
	struct ls_file_info info;
	struct symbolizer *s;
	struct fixture fx;
	char root[64];

	fixture_run(&fx, "sym_stripped");
	make_debug_root(root, &fx, "sym_stripped", "sym_stripped.debug");
	s = new_symbolizer(root, 0);
	expect_all(s, &fx, "/sym_stripped", true);
	cr_assert_eq(symbolizer__file(s, fx.maps, fn_addr(&fx, "main"), &info), 0);
	cr_assert_str_eq(elf_file__sym_source(info.elf), "debug");
	cr_assert_not_null(elf_file__debug_elf(info.elf));
	symbolizer__free(s);
	remove_debug_root(root);
	fixture_free(&fx);
}

/* Replace every from in the fixture's maps text by to, and parse again. */
static struct proc_maps *maps_renamed(const struct fixture *fx, const char *from, const char *to)
{
	char *text = malloc(fx->maps_len * 2 + 1), *o = text;
	const char *p = fx->maps_text, *hit;
	struct proc_maps *maps;

	while ((hit = strstr(p, from))) {
		memcpy(o, p, (size_t)(hit - p));
		o += hit - p;
		o = stpcpy(o, to);
		p = hit + strlen(from);
	}
	o = stpcpy(o, p);
	cr_assert_eq(proc_maps__parse(&maps, text, (size_t)(o - text)), 0);
	free(text);
	return maps;
}

/* Set the build-id of every mapping of path_suffix (what a recording stores). */
static void set_build_ids(struct proc_maps *maps, const char *path_suffix, const __u8 *id, size_t len)
{
	size_t i, n = strlen(path_suffix), hits = 0;

	for (i = 0; i < maps->n; i++) {
		size_t pl = strlen(maps->v[i].path);

		if (pl >= n && !strcmp(maps->v[i].path + pl - n, path_suffix)) {
			cr_assert_eq(proc_maps__set_build_id(maps, i, id, len), 0);
			hits++;
		}
	}
	cr_assert_gt(hits, 0);
}

static void file_build_id(const struct fixture *fx, const char *bin, __u8 *id, size_t *len)
{
	char path[PATH_MAX + 64];
	struct elf_file *ef;
	const __u8 *p;

	snprintf(path, sizeof(path), "%s/%s", fx->dir, bin);
	cr_assert_eq(elf_file__open(&ef, path, NO_DEBUG), 0);
	cr_assert_eq(elf_file__build_id(ef, &p, len), 0);
	memcpy(id, p, *len);
	elf_file__free(ef);
}

Test(symbols_elf, recorded_build_id_must_match)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	__u8 id[LS_BUILD_ID_MAX];
	struct fixture fx;
	size_t len;

	fixture_run(&fx, "sym_pie");
	file_build_id(&fx, "sym_pie", id, &len);
	set_build_ids(fx.maps, "/sym_pie", id, len);
	/* read live, and the process has exited since: its /proc/<pid>/root is gone */
	fx.maps->pid = 0x7ffffffe;
	expect_sym(s, fx.maps, fn_addr(&fx, "fix_main_static"), "fix_main_static", 0, "/sym_pie");
	/* the file on disk is another build now: no names, never wrong ones */
	id[0] ^= 0xff;
	set_build_ids(fx.maps, "/sym_pie", id, len);
	expect_unknown(s, fx.maps, fn_addr(&fx, "fix_main_static"), LS_SYM_FILE_CHANGED);
	expect_unknown(s, fx.maps, fn_addr(&fx, "main"), LS_SYM_FILE_CHANGED);
	/* the library is untouched */
	expect_sym(s, fx.maps, fn_addr(&fx, "fix_lib_global"), "fix_lib_global", 0, "/libsymfix.so");
	fixture_free(&fx);
	symbolizer__free(s);
}

/*
 * A mapping's build-id from the file's notes alone: the same as the
 * parsed file's, without reading the file into the cache (a process may
 * map more than the symbol memory holds); another file there: -ESTALE.
 */
Test(symbols_elf, build_id_from_the_notes_alone)
{
	struct sym_budget b = { .limit = 1u << 20 };
	struct symbolizer_opts opts = { .debug_root = NO_DEBUG, .budget = &b };
	struct symbolizer *s = symbolizer__new(&opts);
	__u8 want[LS_BUILD_ID_MAX], got[LS_BUILD_ID_MAX];
	size_t want_len, got_len = 0, i;
	struct proc_maps *maps;
	struct fixture fx;
	int found = 0;

	cr_assert_not_null(s);
	fixture_run(&fx, "sym_pie");
	file_build_id(&fx, "sym_pie", want, &want_len);
	for (i = 0; i < fx.maps->n; i++) {
		const struct proc_map *m = &fx.maps->v[i];
		size_t n = strlen(m->path);

		if (!(m->perms & PROC_MAP_X) || n < 8 || strcmp(m->path + n - 8, "/sym_pie"))
			continue;
		cr_assert_eq(symbolizer__build_id(s, fx.maps, m, got, &got_len), 0);
		cr_assert_eq(got_len, want_len);
		cr_assert_arr_eq(got, want, want_len, "not the build-id the parsed file has");
		found++;
	}
	cr_assert_gt(found, 0, "no executable mapping of sym_pie");
	cr_assert_eq(b.used, 0, "%zu bytes cached to read a build-id", b.used);

	maps = maps_renamed(&fx, "/sym_pie", "/sym_nopie");
	for (i = 0; i < maps->n; i++)
		if ((maps->v[i].perms & PROC_MAP_X) && strstr(maps->v[i].path, "/sym_nopie"))
			cr_assert_eq(symbolizer__build_id(s, maps, &maps->v[i], got, &got_len),
				     -ESTALE, "another file at the path passed for the mapped one");
	proc_maps__free(maps);
	fixture_free(&fx);
	symbolizer__free(s);
}

Test(symbols_elf, replaced_file_without_build_id_is_caught_by_inode)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	struct proc_maps *maps;
	struct fixture fx;

	/* the same path now holds another file (sym_nopie's inode is not sym_pie's) */
	fixture_run(&fx, "sym_pie");
	maps = maps_renamed(&fx, "/sym_pie", "/sym_nopie");
	expect_unknown(s, maps, fn_addr(&fx, "fix_main_global"), LS_SYM_FILE_CHANGED);
	proc_maps__free(maps);
	fixture_free(&fx);
	symbolizer__free(s);
}

Test(symbols_elf, changed_file_symbolized_from_its_debug_file)
{
	__u8 id[LS_BUILD_ID_MAX];
	struct proc_maps *maps;
	struct symbolizer *s;
	struct fixture fx;
	char root[64];
	size_t len;

	fixture_run(&fx, "sym_stripped");
	make_debug_root(root, &fx, "sym_stripped", "sym_stripped.debug");
	file_build_id(&fx, "sym_stripped", id, &len);
	s = new_symbolizer(root, 0);
	/* the binary was replaced by another build; the recording knows which build ran */
	maps = maps_renamed(&fx, "/sym_stripped", "/sym_pie");
	set_build_ids(maps, "/sym_pie", id, len);
	expect_sym(s, maps, fn_addr(&fx, "fix_main_static") + 1, "fix_main_static", 1, "/sym_pie");
	expect_sym(s, maps, fn_addr(&fx, "main"), "main", 0, "/sym_pie");
	proc_maps__free(maps);
	/* ... or deleted */
	maps = maps_renamed(&fx, "/sym_stripped", "/sym_gone");
	set_build_ids(maps, "/sym_gone", id, len);
	expect_sym(s, maps, fn_addr(&fx, "fix_main_global2"), "fix_main_global2", 0, "/sym_gone");
	proc_maps__free(maps);
	symbolizer__free(s);
	remove_debug_root(root);
	fixture_free(&fx);
}

Test(symbols_elf, unknown_never_a_wrong_name)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	const struct proc_map *text_map;
	struct fixture fx;
	size_t i;

	fixture_run(&fx, "sym_stripped");
	text_map = proc_maps__find(fx.maps, fn_addr(&fx, "main"));
	cr_assert_not_null(text_map);
	/* the end of the code mapping: padding past the last function */
	expect_unknown(s, fx.maps, text_map->end - 1, LS_SYM_NO_SYMBOL);
	/* the read-only data before it */
	for (i = 0; i < fx.maps->n; i++) {
		if (fx.maps->v[i].end == text_map->start && !strcmp(fx.maps->v[i].path, text_map->path))
			expect_unknown(s, fx.maps, fx.maps->v[i].start + 0x10, LS_SYM_NO_SYMBOL);
	}
	/* no mapping; anonymous; [stack] */
	expect_unknown(s, fx.maps, 0x10, LS_SYM_NO_MAPPING);
	for (i = 0; i < fx.maps->n; i++) {
		if (!proc_map__is_file(&fx.maps->v[i]))
			expect_unknown(s, fx.maps, fx.maps->v[i].start, LS_SYM_NO_FILE);
	}
	fixture_free(&fx);
	symbolizer__free(s);
}

Test(symbols_elf, cache_is_per_build_and_bounded)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 1);
	struct ls_file_info a, b;
	struct fixture one, two;
	int round;

	/* two processes of one binary share its elf_file */
	fixture_run(&one, "sym_pie");
	fixture_run(&two, "sym_pie");
	cr_assert_eq(symbolizer__file(s, one.maps, fn_addr(&one, "main"), &a), 0);
	cr_assert_eq(symbolizer__file(s, two.maps, fn_addr(&two, "main"), &b), 0);
	cr_assert_eq(a.elf, b.elf);
	/* one file at most: each switch evicts, and the names stay right */
	for (round = 0; round < 3; round++) {
		expect_sym(s, one.maps, fn_addr(&one, "fix_main_static"), "fix_main_static", 0, "/sym_pie");
		expect_sym(s, one.maps, fn_addr(&one, "fix_lib_global"), "fix_lib_global", 0, "/libsymfix.so");
		expect_sym(s, two.maps, fn_addr(&two, "fix_main_global"), "fix_main_global", 0, "/sym_pie");
	}
	fixture_free(&one);
	fixture_free(&two);
	symbolizer__free(s);
}

Test(symbols_elf, live_process_through_its_pid)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	struct proc_maps *maps;
	struct ls_sym sym;

	/* this test binary, through /proc/self/root */
	cr_assert_eq(proc_maps__load_pid(&maps, (__u32)getpid()), 0);
	cr_assert_eq(symbolizer__user(s, maps, (__u64)(uintptr_t)&symbolizer__user + 1, &sym), 0);
	cr_assert(sym.resolved, "status %u", sym.status);
	cr_assert_str_eq(sym.name, "symbolizer__user");
	cr_assert_eq(sym.off, 1);
	proc_maps__free(maps);
	symbolizer__free(s);
}

Test(symbols_elf, not_elf)
{
	struct elf_file *ef = (struct elf_file *)1;
	char path[] = "/tmp/ls-notelf-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	cr_assert_eq(elf_file__open(&ef, path, NO_DEBUG), -ENOEXEC);
	cr_assert_null(ef);
	unlink(path);
	cr_assert_eq(elf_file__open(&ef, "/nonexistent/x", NO_DEBUG), -ENOENT);
	/* never a device, never a FIFO (open would block) */
	cr_assert_eq(elf_file__open(&ef, "/dev/null", NO_DEBUG), -ENOEXEC);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(elf_file__open(&ef, path, NO_DEBUG), -ENOEXEC);
	unlink(path);
	cr_assert_eq(elf_file__open_debug(&ef, (const __u8 *)"abcd", 4, NO_DEBUG), -ENOENT);
}

Test(symbols_elf, kernel_through_the_facade)
{
	char path[] = "/tmp/ls-kallsyms-XXXXXX";
	struct symbolizer_opts opts = { .kallsyms = path };
	struct symbolizer *s;
	struct ls_sym sym;
	int fd = mkstemp(path);
	static const char text[] = "ffffffff81000000 T _stext\nffffffff81000100 T next_fn\n";

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	s = symbolizer__new(&opts);
	cr_assert_eq(symbolizer__kernel(s, 0xffffffff81000104, &sym), 0);
	cr_assert_str_eq(sym.name, "next_fn");
	cr_assert_eq(sym.off, 4);
	symbolizer__free(s);
	unlink(path);
	/* unreadable kallsyms: the error, and unknown frames */
	opts.kallsyms = "/nonexistent/kallsyms";
	s = symbolizer__new(&opts);
	cr_assert_eq(symbolizer__kernel(s, 0xffffffff81000104, &sym), -ENOENT);
	cr_assert_not(sym.resolved);
	cr_assert_eq(symbolizer__kernel(s, 0xffffffff81000104, &sym), -ENOENT);
	symbolizer__free(s);
}

Test(symbols_elf, debuglink_to_the_wrong_file_is_refused)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	char dir[] = "/tmp/ls-link-XXXXXX", cmd[4 * PATH_MAX];
	struct fixture fx;

	/* a copy whose sym_nobid.debug is another build's debug file: CRC mismatch */
	cr_assert_not_null(mkdtemp(dir));
	fixture_dir(fx.dir, sizeof(fx.dir));
	snprintf(cmd, sizeof(cmd), "cp '%s/sym_nobid' '%s/libsymfix.so' '%s/' && cp '%s/sym_stripped.debug' '%s/sym_nobid.debug'",
		 fx.dir, fx.dir, dir, fx.dir, dir);
	cr_assert_eq(system(cmd), 0);
	fixture_run_in(&fx, dir, "sym_nobid");
	expect_all(s, &fx, "/sym_nobid", false);
	fixture_free(&fx);
	symbolizer__free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* ---- data symbols: what a futex is named by -------------------------------------------- */

/*
 * What a recording keeps: the build-id of each executable file mapping
 * (src/resolve/stacks.c does the same live); the data mappings get none.
 */
static void record_build_ids(struct symbolizer *s, struct proc_maps *maps)
{
	struct ls_file_info info;
	const __u8 *id;
	size_t i, len;

	for (i = 0; i < maps->n; i++) {
		if (!(maps->v[i].perms & PROC_MAP_X) || !proc_map__is_file(&maps->v[i]) ||
		    symbolizer__file(s, maps, maps->v[i].start, &info) ||
		    elf_file__build_id(info.elf, &id, &len))
			continue;
		cr_assert_eq(proc_maps__set_build_id(maps, i, id, len), 0);
	}
}

static void expect_data(struct symbolizer *s, const struct proc_maps *maps, __u64 addr,
			const char *name, __u64 off, const char *module_suffix)
{
	struct ls_sym sym;

	cr_assert_eq(symbolizer__data(s, maps, addr, &sym), 0);
	expect_named(sym, addr, name, off, module_suffix);
}

static void expect_no_data(struct symbolizer *s, const struct proc_maps *maps, __u64 addr,
			   enum ls_sym_status status)
{
	struct ls_sym sym;

	cr_assert_eq(symbolizer__data(s, maps, addr, &sym), 0);
	expect_nameless(sym, addr, status);
}

struct data_case {
	char bin[32];
	bool statics;		/* a local object is named (not only .dynsym) */
	char debug[32];		/* the debug file for a .build-id root; "" none */
};

ParameterizedTestParameters(symbols_elf, data)
{
	static struct data_case cases[] = {
		{ "sym_nopie", true, "" },
		{ "sym_pie", true, "" },
		/* .dynsym: exported objects only */
		{ "sym_stripped", false, "" },
		/* the debug file's .symtab: its .data and .bss are NOBITS, their addresses hold */
		{ "sym_stripped", true, "sym_stripped.debug" },
	};

	return cr_make_param_array(struct data_case, cases, ARRAY_SIZE(cases));
}

/* Each object by name; a lock in a struct as its offset; heap and stack unnamed. */
ParameterizedTest(struct data_case *c, symbols_elf, data)
{
	struct symbolizer *s;
	struct fixture fx;
	char bin[40], root[64] = NO_DEBUG;
	const struct proc_map *m;

	fixture_run(&fx, c->bin);
	if (c->debug[0])
		make_debug_root(root, &fx, c->bin, c->debug);
	s = new_symbolizer(root, 0);
	record_build_ids(s, fx.maps);
	snprintf(bin, sizeof(bin), "/%s", c->bin);
	expect_data(s, fx.maps, data_addr(&fx, "fix_data_global"), "fix_data_global", 0, bin);
	expect_data(s, fx.maps, data_addr(&fx, "fix_data_global") + 12, "fix_data_global", 12, bin);
	expect_data(s, fx.maps, data_addr(&fx, "fix_struct.lock"), "fix_struct", 8, bin);
	expect_data(s, fx.maps, data_addr(&fx, "fix_bss_global"), "fix_bss_global", 0, bin);
	/* .bss past the file's last page: the anonymous mapping after it is the file's */
	m = proc_maps__find(fx.maps, data_addr(&fx, "fix_bss_late"));
	cr_assert(m && !m->path[0], "fix_bss_late is not in an anonymous mapping");
	expect_data(s, fx.maps, data_addr(&fx, "fix_bss_late"), "fix_bss_late", 0, bin);
	if (c->statics)
		expect_data(s, fx.maps, data_addr(&fx, "fix_data_static") + 4, "fix_data_static", 4,
			    bin);
	else
		expect_no_data(s, fx.maps, data_addr(&fx, "fix_data_static"), LS_SYM_NO_SYMBOL);
	expect_data(s, fx.maps, data_addr(&fx, "fix_lib_data") + 4, "fix_lib_data", 4,
		    "/libsymfix.so");
	/* heap and stack: no symbol is theirs */
	expect_no_data(s, fx.maps, data_addr(&fx, "heap"), LS_SYM_NO_FILE);
	expect_no_data(s, fx.maps, data_addr(&fx, "stack"), LS_SYM_NO_FILE);
	/* code is no data, and nothing maps address 0x1000 */
	expect_no_data(s, fx.maps, fn_addr(&fx, "main"), LS_SYM_NO_SYMBOL);
	expect_no_data(s, fx.maps, 0x1000, LS_SYM_NO_MAPPING);
	symbolizer__free(s);
	if (c->debug[0])
		remove_debug_root(root);
	fixture_free(&fx);
}

/* Past an object's st_size is not that object, even before the next one. */
Test(symbols_elf, data_only_inside_an_object)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	struct fixture fx;

	fixture_run(&fx, "sym_pie");
	record_build_ids(s, fx.maps);
	/* fix_bss_global is an int; the pad after it starts 32-byte aligned */
	cr_assert_gt(data_addr(&fx, "fix_bss_pad"), data_addr(&fx, "fix_bss_global") + 8);
	expect_no_data(s, fx.maps, data_addr(&fx, "fix_bss_global") + 4, LS_SYM_NO_SYMBOL);
	/* past the end of .bss, in the same anonymous mapping */
	expect_no_data(s, fx.maps, data_addr(&fx, "fix_bss_late") + 64, LS_SYM_NO_SYMBOL);
	fixture_free(&fx);
	symbolizer__free(s);
}

/* path's STT_OBJECT symbols named prefix*: (address, name) into v, at most max; their count. */
static size_t objects_named(const char *path, const char *prefix, __u64 *addr, char (*name)[32],
			    size_t max)
{
	size_t i, n = 0, len = strlen(prefix);
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym sym;
	int fd = open(path, O_RDONLY);
	Elf *elf;

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	cr_assert_not_null(scn, "%s has no .symtab", path);
	data = elf_getdata(scn, NULL);
	for (i = 0; data && gelf_getsym(data, (int)i, &sym); i++) {
		const char *nm = elf_strptr(elf, sh.sh_link, sym.st_name);

		if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || !nm || strncmp(nm, prefix, len))
			continue;
		cr_assert_lt(n, max);
		addr[n] = sym.st_value;
		snprintf(name[n], sizeof(name[n]), "%s", nm);
		n++;
	}
	elf_end(elf);
	close(fd);
	return n;
}

/*
 * Of a table of thousands of objects only windows around the addresses
 * asked about are kept, and each names what the whole table would: every
 * object, inside it, asked in an order that leaves no window to reuse.
 */
Test(symbols_elf, data_from_windows_of_the_table)
{
	enum { N = 4096 };
	static __u64 addr[N];
	static char name[N][32];
	char path[PATH_MAX];
	struct elf_file *ef;
	struct ls_sym sym;
	size_t n, i, k, before;

	fixture_dir(path, sizeof(path));
	strncat(path, "/sym_data_heavy", sizeof(path) - strlen(path) - 1);
	n = objects_named(path, "fix_d", addr, name, N);
	cr_assert_eq(n, N);
	cr_assert_eq(elf_file__open(&ef, path, NO_DEBUG), 0, "%s", path);
	before = elf_file__cost(ef);
	/* a stride prime to n: each ask far from the one before */
	for (k = 0, i = 0; k < n; k++, i = (i + 1031) % n) {
		cr_assert_eq(elf_file__find_data(ef, addr[i] + 2, &sym), 0, "%s", name[i]);
		cr_assert_str_eq(sym.name, name[i]);
		cr_assert_eq(sym.off, 2);
	}
	/* far less than the table's 4,096 symbols */
	cr_assert_lt(elf_file__cost(ef) - before, (size_t)N * 40 / 4);
	elf_file__free(ef);
}

/*
 * A process that is gone: only a recorded build-id says the file on disk
 * is the one it mapped.  Without one, no name; with another build's, no
 * name either.
 */
Test(symbols_elf, data_of_a_recording_needs_the_build_id)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	__u64 addr;
	__u8 id[LS_BUILD_ID_MAX];
	struct fixture fx;
	size_t len;

	fixture_run(&fx, "sym_pie");
	addr = data_addr(&fx, "fix_data_global");
	expect_no_data(s, fx.maps, addr, LS_SYM_NO_FILE);
	file_build_id(&fx, "sym_pie", id, &len);
	id[0] ^= 0xff;
	set_build_ids(fx.maps, "/sym_pie", id, len);
	expect_no_data(s, fx.maps, addr, LS_SYM_FILE_CHANGED);
	id[0] ^= 0xff;
	set_build_ids(fx.maps, "/sym_pie", id, len);
	expect_data(s, fx.maps, addr, "fix_data_global", 0, "/sym_pie");
	fixture_free(&fx);
	symbolizer__free(s);
}

/* A live process: this test's own object, through /proc/self/maps and the inode check. */
int symbols_elf_test_lock[2];

Test(symbols_elf, data_of_a_live_process)
{
	struct symbolizer *s = new_symbolizer(NO_DEBUG, 0);
	struct proc_maps *maps;
	struct ls_sym sym;

	cr_assert_eq(proc_maps__load_pid(&maps, (__u32)getpid()), 0);
	cr_assert_eq(symbolizer__data(s, maps, (__u64)(uintptr_t)&symbols_elf_test_lock[1], &sym), 0);
	cr_assert(sym.resolved, "status %u", sym.status);
	cr_assert_str_eq(sym.name, "symbols_elf_test_lock");
	cr_assert_eq(sym.off, sizeof(int));
	cr_assert_eq(symbolizer__data(s, maps, (__u64)(uintptr_t)&sym, &sym), 0);
	cr_assert_not(sym.resolved, "a stack address got a name");
	proc_maps__free(maps);
	symbolizer__free(s);
}

/* ---- the memory budget, and files that change under us ---- */

/* Copy fixture bin into dir; the copy's path into out. */
static void copy_fixture(const struct fixture *fx, const char *bin, const char *dir, char *out, size_t len)
{
	char from[PATH_MAX + 64];
	char *buf;
	size_t n;
	FILE *f;

	snprintf(from, sizeof(from), "%s/%s", fx->dir, bin);
	snprintf(out, len, "%s/%s", dir, bin);
	cr_assert_eq(ls_read_file(from, 64u << 20, &buf, &n), 0, "%s", from);
	f = fopen(out, "w");
	cr_assert_not_null(f, "%s", out);
	cr_assert_eq(fwrite(buf, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
	free(buf);
}

/* fx's maps with its binary at path instead, as a live process (this one) maps it. */
static struct proc_maps *maps_live_copy(const struct fixture *fx, const char *bin, const char *path)
{
	char from[PATH_MAX + 64];
	struct proc_maps *maps;
	size_t i;

	snprintf(from, sizeof(from), "%s/%s", fx->dir, bin);
	maps = maps_renamed(fx, from, path);
	for (i = 0; i < maps->n; i++)
		if (!strcmp(maps->v[i].path, path))
			maps->v[i].inode = 0;	/* the copy's inode is its own */
	maps->pid = (__u32)getpid();
	return maps;
}

/* A new mtime for path: the file changed, as far as stat can tell. */
static void touch_at(const char *path, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0, "%s", path);
}

/* sym_pie copied into a directory of its own, mapped as this process maps it. */
struct live_copy {
	char dir[64], path[PATH_MAX];
	struct fixture fx;
	struct proc_maps *maps;
	__u64 addr;		/* fix_main_global */
};

static void live_copy__make_of(struct live_copy *c, const char *tag, const char *bin)
{
	tmpdir__make(c->dir, sizeof(c->dir), tag);
	fixture_run(&c->fx, bin);
	copy_fixture(&c->fx, bin, c->dir, c->path, sizeof(c->path));
	c->maps = maps_live_copy(&c->fx, bin, c->path);
	c->addr = fn_addr(&c->fx, "fix_main_global");
}

static void live_copy__make(struct live_copy *c, const char *tag)
{
	live_copy__make_of(c, tag, "sym_pie");
}

static void live_copy__free(struct live_copy *c)
{
	proc_maps__free(c->maps);
	fixture_free(&c->fx);
	tmpdir__remove(c->dir);
}

/*
 * A file that changes between every two asks is read again only after
 * twice as many asks each time; asked about unchanged, at once again.
 */
Test(symbols_budget, churning_file_backs_off)
{
	/* r: read and named, s: skipped; each after a change but the first two */
	static const char want[] = "rr" "rs" "rsss" "rsssssss" "r";
	struct sym_budget b = { 0 };
	struct symbolizer_opts o = { .debug_root = NO_DEBUG, .budget = &b };
	struct symbolizer *s = symbolizer__new(&o);
	struct live_copy c;
	struct ls_sym sym;
	size_t i;

	live_copy__make(&c, "sym-churn");
	for (i = 0; want[i]; i++) {
		if (i >= 2)
			touch_at(c.path, 1000000 + (time_t)i);
		cr_assert_eq(symbolizer__user(s, c.maps, c.addr, &sym), 0);
		if (want[i] == 'r')
			expect_named(sym, c.addr, "fix_main_global", 0, c.path);
		else
			expect_nameless(sym, c.addr, LS_SYM_SKIPPED);
	}
	cr_assert_eq(b.churning, 1 + 3 + 7);
	/* it stops changing: the next ask finds it in the cache, the one after a change reads */
	expect_sym(s, c.maps, c.addr, "fix_main_global", 0, c.path);
	touch_at(c.path, 2000000);
	expect_sym(s, c.maps, c.addr, "fix_main_global", 0, c.path);
	symbolizer__free(s);
	live_copy__free(&c);
}

struct fat_case {
	char section[16];	/* objcopy makes a ".note..." section SHT_NOTE; in the struct: params are copied */
	size_t size;
	bool named;		/* else skipped: its tables alone are over half the budget */
};

/*
 * Only the headers, tables and notes of a file are read and held: code
 * and data, most of a binary, cost nothing.  A file of 4M in a budget of
 * 1M is named; one whose notes alone are over half of it is not.
 */
static struct fat_case fat_cases[] = {
	{ ".fat", 4u << 20, true },
	{ ".note.fat", SYM_BUDGET_MIN / 2 + 4096, false },
};

ParameterizedTestParameters(symbols_budget, only_tables_are_read)
{
	return cr_make_param_array(struct fat_case, fat_cases, sizeof(fat_cases) / sizeof(fat_cases[0]));
}

ParameterizedTest(struct fat_case *fc, symbols_budget, only_tables_are_read)
{
	struct sym_budget b = { .limit = SYM_BUDGET_MIN };
	struct symbolizer_opts o = { .debug_root = NO_DEBUG, .budget = &b };
	struct symbolizer *s = symbolizer__new(&o);
	struct live_copy c;
	struct ls_sym sym;

	live_copy__make(&c, "sym-fat");
	elf_edit__add_section(c.path, fc->section, fc->size);
	cr_assert_eq(symbolizer__user(s, c.maps, c.addr, &sym), 0);
	if (fc->named) {
		expect_named(sym, c.addr, "fix_main_global", 0, c.path);
		cr_assert_lt(b.used, 64u << 10, "held %zu bytes", b.used);
		cr_assert_lt(b.window_bytes, 64u << 10, "read %zu bytes", b.window_bytes);
	} else {
		expect_nameless(sym, c.addr, LS_SYM_SKIPPED);
		cr_assert_eq(b.too_big, 1);
		cr_assert_eq(b.used, 0);
	}
	symbolizer__free(s);
	live_copy__free(&c);
}

/*
 * A file without a build-id, changed and read again, is held once: its
 * earlier version can never match a live mapping again, so it does not
 * wait for the budget to push it out.
 */
Test(symbols_budget, changed_file_without_build_id_held_once)
{
	struct sym_budget b = { 0 };
	struct symbolizer_opts o = { .debug_root = NO_DEBUG, .budget = &b };
	struct symbolizer *s = symbolizer__new(&o);
	struct live_copy c;
	size_t one;

	live_copy__make_of(&c, "sym-versions", "sym_pie_nobid");
	expect_sym(s, c.maps, c.addr, "fix_main_global", 0, c.path);
	one = b.used;
	cr_assert_gt(one, 0);
	touch_at(c.path, 1000000);
	expect_sym(s, c.maps, c.addr, "fix_main_global", 0, c.path);
	cr_assert_eq(b.used, one, "held %zu bytes, one version is %zu", b.used, one);
	symbolizer__free(s);
	live_copy__free(&c);
}

/*
 * The file is the process's to shrink at any time: the data symbols, read
 * at the first data address, come from lockstall's own copy of it, and a
 * mapping of the file would have faulted (SIGBUS) here.
 */
Test(symbols_budget, file_truncated_after_open_is_no_fault)
{
	char dir[64], path[PATH_MAX];
	const struct proc_map *m;
	struct elf_file *ef;
	struct fixture fx;
	struct ls_sym sym;
	__u64 addr, bias;

	tmpdir__make(dir, sizeof(dir), "sym-trunc");
	fixture_run(&fx, "sym_nopie");
	copy_fixture(&fx, "sym_nopie", dir, path, sizeof(path));
	cr_assert_eq(elf_file__open(&ef, path, NO_DEBUG), 0);
	cr_assert_eq(truncate(path, 0), 0);
	addr = data_addr(&fx, "fix_data_global");
	m = proc_maps__find(fx.maps, addr);
	cr_assert_not_null(m);
	cr_assert_eq(elf_file__bias(ef, m, &bias), 0);
	cr_assert_eq(elf_file__find_data(ef, addr + 4 - bias, &sym), 0);
	cr_assert_str_eq(sym.name, "fix_data_global");
	cr_assert_eq(sym.off, 4);
	elf_file__free(ef);
	fixture_free(&fx);
	tmpdir__remove(dir);
}

/*
 * Files are charged by their bytes: when the budget is spent the least
 * recently used go first and the names stay right; a file larger than
 * half the budget is not read at all, and counted.
 */
Test(symbols_budget, charged_by_bytes)
{
	struct sym_budget b = { .limit = 4 * SYM_BUDGET_MIN };
	struct symbolizer_opts o = { .debug_root = NO_DEBUG, .budget = &b };
	struct symbolizer *s = symbolizer__new(&o);
	struct proc_maps *self;
	struct fixture fx;
	struct ls_sym sym;
	size_t one, filler;
	int round;

	fixture_run(&fx, "sym_pie");
	expect_sym(s, fx.maps, fn_addr(&fx, "main"), "main", 0, "/sym_pie");
	one = b.used;
	cr_assert_gt(one, 0);
	expect_sym(s, fx.maps, fn_addr(&fx, "fix_lib_global"), "fix_lib_global", 0, "/libsymfix.so");
	cr_assert_gt(b.used, one);
	/* someone else holds all but room for one file: the two take turns */
	filler = b.limit - b.used - 1;
	cr_assert_eq(sym_budget__charge(&b, filler), 0);
	cr_assert_eq(sym_budget__charge(&b, 2), -ENOMEM);
	symbolizer__free(s);
	cr_assert_eq(b.used, filler, "the symbolizer gave back what it took");
	s = symbolizer__new(&o);
	b.limit = filler + one + one / 2;
	for (round = 0; round < 3; round++) {
		expect_sym(s, fx.maps, fn_addr(&fx, "main"), "main", 0, "/sym_pie");
		expect_sym(s, fx.maps, fn_addr(&fx, "fix_lib_global"), "fix_lib_global", 0, "/libsymfix.so");
		cr_assert_leq(b.used, b.limit);
	}
	symbolizer__free(s);
	sym_budget__release(&b, filler);
	cr_assert_eq(b.used, 0);
	/* this test program is larger than half of 1M, its tables are not: only they are read */
	b.limit = SYM_BUDGET_MIN;
	s = symbolizer__new(&o);
	cr_assert_eq(proc_maps__load_pid(&self, (__u32)getpid()), 0);
	cr_assert_eq(symbolizer__user(s, self, (__u64)(uintptr_t)&symbolizer__user, &sym), 0);
	cr_assert_str_eq(sym.name, "symbolizer__user");
	cr_assert_eq(b.too_big, 0);
	cr_assert_leq(b.used, b.limit / 2);
	proc_maps__free(self);
	symbolizer__free(s);
	fixture_free(&fx);
}

/* What malloc has handed out and not had back, mapped chunks too. */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/*
 * What a file holds is what it is charged: the function symbols of a
 * table of thousands of objects and one function keep room for that one
 * (they once kept room for the whole table, uncharged, which a process
 * with a large table of data could multiply by every file it changed).
 */
Test(symbols_budget, held_as_charged)
{
	/* libelf's own descriptors, a few hundred bytes a section */
	const size_t slack = 32 << 10;
	char path[PATH_MAX];
	struct elf_file *ef;
	size_t before, held;

	fixture_dir(path, sizeof(path));
	strncat(path, "/sym_data_heavy", sizeof(path) - strlen(path) - 1);
	before = heap_in_use();
	cr_assert_eq(elf_file__open(&ef, path, NO_DEBUG), 0, "%s", path);
	held = heap_in_use() - before;
	cr_assert_leq(held, elf_file__cost(ef) + slack, "held %zu, charged %zu", held,
		      elf_file__cost(ef));
	elf_file__free(ef);
}

static __u64 fake_now;

static __u64 fake_clock(void)
{
	return fake_now;
}

/* At most the budget's bytes of files are read in one second; the first file of a second always is. */
Test(symbols_budget, bytes_read_per_second)
{
	struct sym_budget b = { .limit = SYM_BUDGET_MIN, .now_ns = fake_clock };
	char dir[64], path[PATH_MAX + 8];
	size_t size = SYM_BUDGET_MIN / 2 - 4096;
	struct elf_image im;
	int fd, i;

	tmpdir__make(dir, sizeof(dir), "sym-rate");
	snprintf(path, sizeof(path), "%s/big", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, (off_t)size), 0);
	fake_now = 5 * NSEC_PER_SEC;
	for (i = 0; i < 2; i++) {
		cr_assert_eq(elf_image__read(&im, fd, &b, SIZE_MAX, ELF_IMAGE_WHOLE), 0);
		cr_assert_eq(im.len, size);
		cr_assert_eq(im.held, size);
		elf_image__free(&im);
	}
	cr_assert_eq(elf_image__read(&im, fd, &b, SIZE_MAX, ELF_IMAGE_WHOLE), -EAGAIN);
	cr_assert_eq(b.over_rate, 1);
	fake_now += NSEC_PER_SEC;
	cr_assert_eq(elf_image__read(&im, fd, &b, SIZE_MAX, ELF_IMAGE_WHOLE), 0);
	elf_image__free(&im);
	/* larger than half the budget: never */
	cr_assert_eq(ftruncate(fd, (off_t)(SYM_BUDGET_MIN / 2 + 1)), 0);
	fake_now += NSEC_PER_SEC;
	cr_assert_eq(elf_image__read(&im, fd, &b, SIZE_MAX, ELF_IMAGE_WHOLE), -EFBIG);
	cr_assert_eq(b.too_big, 1);
	close(fd);
	tmpdir__remove(dir);
}

/*
 * A file with no symbol table at all (a static binary stripped) is read
 * for its data symbols once: the next asks find the empty window, and
 * cost no more of the second's reading.
 */
Test(symbols_budget, data_of_a_file_without_symbols_read_once)
{
	struct sym_budget b = { .now_ns = fake_clock };
	char dir[64], path[PATH_MAX + 16], cmd[2 * PATH_MAX];
	struct elf_file *ef;
	struct ls_sym sym;
	size_t at_open;
	int i;

	tmpdir__make(dir, sizeof(dir), "sym-nosyms");
	snprintf(path, sizeof(path), "%s/static", dir);
	snprintf(cmd, sizeof(cmd), "strip --strip-all -o '%s' test/data/unwind/static", path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	fake_now = 3 * NSEC_PER_SEC;
	cr_assert_eq(elf_file__open_with(&ef, path, NO_DEBUG, &b), 0, "%s", path);
	at_open = b.window_bytes;
	cr_assert_gt(at_open, 0);
	for (i = 0; i < 3; i++)
		cr_assert_eq(elf_file__find_data(ef, 0x401000, &sym), -ENOENT);
	/* the file's read at open, and one read of its (missing) table */
	cr_assert_eq(b.window_bytes, 2 * at_open);
	elf_file__free(ef);
	tmpdir__remove(dir);
}

static __u64 fake_wall;

static __u64 fake_wall_clock(void)
{
	return fake_wall;
}

/* path's ctime, in ns. */
static __u64 ctime_ns(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s", path);
	return (__u64)st.st_ctim.tv_sec * NSEC_PER_SEC + (__u64)st.st_ctim.tv_nsec;
}

/*
 * A file read within SYM_RACY_NS of its last change may change again in
 * the same tick of the file system's clock, unseen by stat: the next ask
 * reads it again.  Read long after its change, it is trusted.
 */
ParameterizedTestParameters(symbols_budget, file_read_as_it_changed_is_read_again)
{
	return cr_make_param_array(struct racy_case, racy_cases, RACY_CASES_N);
}

ParameterizedTest(struct racy_case *rc, symbols_budget, file_read_as_it_changed_is_read_again)
{
	struct sym_budget b;
	struct symbolizer_opts o = { .debug_root = NO_DEBUG, .budget = &b };
	struct symbolizer *s;
	struct live_copy c;
	size_t one;

	live_copy__make(&c, "sym-racy");
	racy_budget__init(&b, c.path, rc);
	s = symbolizer__new(&o);
	expect_sym(s, c.maps, c.addr, "fix_main_global", 0, c.path);
	one = b.window_bytes;
	cr_assert_gt(one, 0);
	expect_sym(s, c.maps, c.addr, "fix_main_global", 0, c.path);
	/* both reads in one second of the rate's clock: its bytes add up */
	cr_assert_eq(b.window_bytes, rc->reads * one);
	symbolizer__free(s);
	live_copy__free(&c);
}

/*
 * Rewritten and its mtime put back (utimensat): its ctime says it changed,
 * and what it holds now is read, never the names of what it held before.
 */
Test(symbols_budget, rewrite_with_its_mtime_put_back_is_seen)
{
	struct sym_budget b = { .wall_ns = fake_wall_clock };
	struct symbolizer_opts o = { .debug_root = NO_DEBUG, .budget = &b };
	struct symbolizer *s = symbolizer__new(&o);
	struct timespec times[2];
	struct live_copy c;
	struct stat st;
	int fd;

	live_copy__make(&c, "sym-mtime");
	fake_wall = ctime_ns(c.path) + NSEC_PER_SEC;	/* long after: trusted on its stat */
	expect_sym(s, c.maps, c.addr, "fix_main_global", 0, c.path);
	cr_assert_eq(stat(c.path, &st), 0);
	fd = open(c.path, O_WRONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	/* the same size, no ELF any more */
	cr_assert_eq(pwrite(fd, "\0\0\0\0", 4, 0), 4);
	close(fd);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	cr_assert_eq(utimensat(AT_FDCWD, c.path, times, 0), 0);
	fake_wall = ctime_ns(c.path) + NSEC_PER_SEC;
	expect_unknown(s, c.maps, c.addr, LS_SYM_NO_FILE);
	symbolizer__free(s);
	live_copy__free(&c);
}
