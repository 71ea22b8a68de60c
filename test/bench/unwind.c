// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * unwind: what user-space DWARF unwinding of one STACK record costs.  Unwinds
 * the committed stack images (test/data/unwind) with the machine's own
 * files allowed (libc frames included, as in real use), and prints per
 * image: the first unwind (cold: files opened and parsed), then the mean of
 * many (warm: the file cache's steady state), per unwind and per frame, for
 * DWARF and for the fp walk, in CPU time (system calls included).  Timings
 * are printed, never asserted.
 *
 *	build/bench/unwind [-n rounds]
 *
 * Run from the top of the repository (the images' paths are relative).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/unwind_image.h"
#include "util.h"

#define FRAMES_MAX 128

typedef int (*walk_fn)(struct unwinder *u, const struct ls_rec_stack *rec, size_t rec_len,
		       unwind_find_map_fn find_map, void *ctx, __u64 *ips, unsigned int max,
		       struct unwind_result *res);

/* CPU time, not wall time: the cost, whatever else the machine runs. */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench(const char *what, walk_fn walk, struct unwind_image *im, long rounds)
{
	struct unwinder *u = unwinder__new(0);
	struct unwind_result res;
	__u64 ips[FRAMES_MAX];
	double t0, cold, warm;
	long i;

	if (!u) {
		fprintf(stderr, "unwind: out of memory\n");
		exit(1);
	}
	t0 = now_ns();
	walk(u, im->rec, im->rec_len, unwind_image__find_map, im, ips, FRAMES_MAX, &res);
	cold = now_ns() - t0;
	im->lookups = 0;
	t0 = now_ns();
	for (i = 0; i < rounds; i++)
		walk(u, im->rec, im->rec_len, unwind_image__find_map, im, ips, FRAMES_MAX, &res);
	warm = (now_ns() - t0) / rounds;
	printf("  %-6s %2u frames (%s)  cold %8.1f us  warm %7.2f us/unwind %6.2f us/frame  "
	       "find_map %.1f/unwind\n", what, res.n, unwind__stop_text(res.stop), cold / 1e3,
	       warm / 1e3, warm / 1e3 / (res.n ? res.n : 1), (double)im->lookups / rounds);
	unwinder__free(u);
}

/*
 * The default copy is 16 KiB; the fixtures' stacks are shorter.  The same
 * record with its copy padded to 16 KiB (zeros above the real stack top)
 * shows the cost does not grow with the copy: only what the CFI asks for is
 * read.
 */
static void bench_full_copy(struct unwind_image *im, long rounds)
{
	size_t len = sizeof(struct ls_rec_stack) + LS_USTACK_COPY_DEFAULT;
	struct ls_rec_stack *r = calloc(1, len), *saved = im->rec;
	size_t saved_len = im->rec_len;

	if (!r || saved->copy_len > LS_USTACK_COPY_DEFAULT) {
		free(r);
		return;
	}
	memcpy(r, saved, sizeof(*r) + saved->copy_len);
	r->copy_len = LS_USTACK_COPY_DEFAULT;
	r->hdr.size = len;
	im->rec = r;
	im->rec_len = len;
	printf("  the same, copy padded to %u bytes\n", LS_USTACK_COPY_DEFAULT);
	bench("dwarf", unwind__dwarf, im, rounds);
	im->rec = saved;
	im->rec_len = saved_len;
	free(r);
}

int main(int argc, char **argv)
{
	static const char *const variants[] = {
		"nofp", "fp", "static", "static-nohdr", "debug-frame", "debug-frame-clang",
	};
	long rounds = 20000;
	unsigned int v;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (rounds = atol(optarg)) <= 0) {
			fprintf(stderr, "usage: unwind [-n rounds]\n");
			return 2;
		}
	}
	for (v = 0; v < ARRAY_SIZE(variants); v++) {
		struct unwind_image im;
		char img[128], bin[128];
		int err;

		snprintf(img, sizeof(img), "test/data/unwind/%s.img", variants[v]);
		snprintf(bin, sizeof(bin), "test/data/unwind/%s", variants[v]);
		err = unwind_image__load(&im, img, bin);
		if (err) {
			fprintf(stderr, "unwind: %s: cannot load (%d)\n", img, err);
			return 1;
		}
		im.any_file = true;
		printf("%s: %u bytes of stack copied\n", variants[v], im.rec->copy_len);
		bench("dwarf", unwind__dwarf, &im, rounds);
		bench("fp", unwind__fp, &im, rounds);
		if (v == 0)
			bench_full_copy(&im, rounds);
		unwind_image__free(&im);
	}
	return 0;
}
