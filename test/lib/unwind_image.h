/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Stack images of test/data/unwind (format: test/fixtures/unwind/image.h),
 * loaded for the unwinder's tests and benchmark, with a find_map callback
 * that answers from the image's maps text.
 */
#ifndef LOCKSTALL_TEST_UNWIND_IMAGE_LIB_H
#define LOCKSTALL_TEST_UNWIND_IMAGE_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "fixtures/unwind/image.h"
#include "symbols/unwind.h"

#define UNWIND_IMAGE_MAPS_MAX 64

struct unwind_image_map {
	__u64 start, end, pgoff;
	char path[256];		/* "" for anonymous mappings */
};

struct unwind_image {
	void *buf;			/* the whole file, 8-byte aligned */
	size_t size;
	const struct unwind_image_hdr *hdr;
	struct ls_rec_stack *rec;	/* in buf: tests may tamper with it */
	size_t rec_len;
	char exe[4096];			/* the binary's path at the capture */
	char bin[256];			/* the committed binary, used in its place */
	struct unwind_image_map maps[UNWIND_IMAGE_MAPS_MAX];
	unsigned int nr_maps;
	bool any_file;			/* find_map answers for other files too (the machine's libc) */
	unsigned int lookups;		/* find_map calls */
};

/* Load img, whose binary is committed as bin.  0 or a negative errno. */
int unwind_image__load(struct unwind_image *im, const char *img, const char *bin);
void unwind_image__free(struct unwind_image *im);

/* unwind_find_map_fn over im (ctx): the fixture's binary, others only with any_file. */
int unwind_image__find_map(void *ctx, __u64 addr, struct unwind_map *map);

#endif /* LOCKSTALL_TEST_UNWIND_IMAGE_LIB_H */
