// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: any bytes as /proc/<pid>/maps text and as kallsyms
 * text (recordings carry the first; a file given with --kallsyms the
 * second), then lookups around every address that parsed.  It must never
 * crash, hang, read out of bounds or return a mapping or symbol that does
 * not contain the address asked for.
 *
 *	make fuzz-symbols       a few minutes
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_maps((const char *)data, size);
	fuzz_ksyms((const char *)data, size);
	return 0;
}
