// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: any bytes as the registers and stack copy of a STACK
 * record (what a recording hands the unwinder), unwound by DWARF, fp and
 * unwind__stack() against the mappings and binaries of the committed stack
 * images (test/data/unwind), with the machine's libc allowed.  It must
 * never crash, hang or return more frames than asked for.
 *
 *	make fuzz-unwind      a few minutes, from the top of the repository
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/unwind_image.h"

#define FUZZ_FRAMES 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct unwind_image images[2];
static struct unwinder *unw;

static void fuzz_setup(void)
{
	if (unwind_image__load(&images[0], "test/data/unwind/nofp.img", "test/data/unwind/nofp") ||
	    unwind_image__load(&images[1], "test/data/unwind/static.img", "test/data/unwind/static") ||
	    !(unw = unwinder__new(4)))
		abort();	/* run from the top of the repository */
	images[0].any_file = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static __u64 buf[(sizeof(struct ls_rec_stack) + 4096) / 8];
	struct ls_rec_stack *r = (struct ls_rec_stack *)buf;
	struct unwind_image *im;
	struct unwind_result res;
	__u64 ips[FUZZ_FRAMES];
	size_t n;

	if (!unw)
		fuzz_setup();
	if (size < 1 + sizeof(r->uregs))
		return 0;
	/* the first byte picks the process, the registers follow, then the copy */
	im = &images[data[0] & 1];
	memset(buf, 0, sizeof(buf));
	r->hdr.type = LS_REC_STACK;
	r->flags = LS_STACK_F_REGS;
	memcpy(r->uregs, data + 1, sizeof(r->uregs));
	/* half the time the real ip, so the walk gets past the first frame */
	if (data[0] & 2)
		r->uregs[LS_UREG_IP] = im->rec->uregs[LS_UREG_IP];
	n = size - 1 - sizeof(r->uregs);
	if (n > 4096)
		n = 4096;
	memcpy(r + 1, data + 1 + sizeof(r->uregs), n);
	r->copy_len = n;
	if (unwind__dwarf(unw, r, sizeof(buf), unwind_image__find_map, im, ips, FUZZ_FRAMES, &res) ||
	    res.n > FUZZ_FRAMES)
		abort();
	if (unwind__fp(unw, r, sizeof(buf), unwind_image__find_map, im, ips, FUZZ_FRAMES, &res) ||
	    res.n > FUZZ_FRAMES)
		abort();
	if (unwind__stack(unw, r, sizeof(buf), unwind_image__find_map, im, ips, FUZZ_FRAMES, &res) ||
	    res.n > FUZZ_FRAMES)
		abort();
	return 0;
}
