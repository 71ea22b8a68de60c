// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: any bytes as /proc/<pid>/maps text and as kallsyms
 * text (recordings carry the first; a file given with --kallsyms the
 * second), then lookups around every address that parsed; and, when they
 * start as an ELF file does, as a traced process's ELF file (in a memfd),
 * read and asked for function and data symbols.  It must never crash,
 * hang, read out of bounds or return a mapping or symbol that does not
 * contain the address asked for.
 *
 *	make fuzz-symbols       a few minutes
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "symbols/internal.h"
#include "symbols/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_maps(const char *text, size_t len)
{
	const struct proc_map *m, *prev = NULL;
	struct proc_maps *maps;
	struct symbolizer *s;
	struct ls_sym sym;
	size_t i;

	if (proc_maps__parse(&maps, text, len))
		return;
	/* no file is read: the paths of hostile text must not open anything real */
	s = symbolizer__new(&(struct symbolizer_opts){ .debug_root = "/nonexistent", .max_files = 2 });
	for (i = 0; i < maps->n; i++) {
		m = &maps->v[i];
		if (m->start >= m->end || (prev && m->start < prev->end) || strlen(m->path) >= PROC_MAPS_PATH_MAX)
			abort();
		if (proc_maps__find(maps, m->start) != m || proc_maps__find(maps, m->end - 1) != m)
			abort();
		if (proc_maps__find(maps, m->end) && proc_maps__find(maps, m->end)->start != m->end)
			abort();
		/* paths from fuzz input are not opened: only anonymous and [x] mappings are looked up */
		if (s && !proc_map__is_file(m) && (symbolizer__user(s, maps, m->start, &sym) || sym.resolved))
			abort();
		prev = m;
	}
	symbolizer__free(s);
	proc_maps__free(maps);
}

static void fuzz_ksyms(const char *text, size_t len)
{
	struct ksyms *ks;
	struct ls_sym sym;
	__u64 addrs[8];
	size_t i;

	if (ksyms__parse(&ks, text, len))
		return;
	memset(addrs, 0, sizeof(addrs));
	memcpy(addrs, text, len < sizeof(addrs) ? len : sizeof(addrs));
	for (i = 0; i < 8; i++) {
		if (!ksyms__find(ks, addrs[i], &sym) && (!sym.resolved || !sym.name || sym.off > addrs[i]))
			abort();
		ksyms__is_bpf_frame(ks, addrs[i]);
	}
	if (ksyms__skip_bpf_frames(ks, addrs, 8) > 8)
		abort();
	ksyms__free(ks);
}

/* A symbol found must hold the address: its offset within what was asked. */
static void check_found(int err, const struct ls_sym *sym, __u64 addr)
{
	if (!err && (!sym->resolved || !sym->name || sym->off > addr))
		abort();
	if (err && sym->resolved)
		abort();
}

static void fuzz_elf(const uint8_t *data, size_t size)
{
	struct sym_budget b = { .limit = SYM_BUDGET_MIN };
	struct elf_file *ef;
	struct ls_sym sym;
	char path[64];
	__u64 addrs[4];
	__u8 id[LS_BUILD_ID_MAX];
	size_t i, idlen = 0;
	int fd;

	if (size < 4 || memcmp(data, "\x7f" "ELF", 4))
		return;
	fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size)
		goto cleanup;
	/* the notes-only reader: never past what the notes say, whatever they say */
	if (!elf_build_id_of_fd(fd, id, &idlen) && (!idlen || idlen > LS_BUILD_ID_MAX))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (elf_file__open_with(&ef, path, "/nonexistent", &b))
		goto cleanup;
	memset(addrs, 0, sizeof(addrs));
	memcpy(addrs, data + size - (size < sizeof(addrs) ? size : sizeof(addrs)),
	       size < sizeof(addrs) ? size : sizeof(addrs));
	for (i = 0; i < 4; i++) {
		check_found(elf_file__find(ef, addrs[i], &sym), &sym, addrs[i]);
		check_found(elf_file__find_data(ef, addrs[i], &sym), &sym, addrs[i]);
	}
	elf_file__free(ef);
cleanup:
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_maps((const char *)data, size);
	fuzz_ksyms((const char *)data, size);
	fuzz_elf(data, size);
	return 0;
}
