// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Stack images for the unwinder's tests and benchmark: see unwind_image.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/unwind_image.h"

static int parse_maps(struct unwind_image *im, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end && im->nr_maps < UNWIND_IMAGE_MAPS_MAX) {
		const char *nl = memchr(p, '\n', end - p);
		struct unwind_image_map *m = &im->maps[im->nr_maps];
		unsigned long long lo, hi, off;
		char line[512];
		size_t n = (nl ? nl : end) - p;
		int path_at = 0;

		if (n >= sizeof(line))
			return -EINVAL;
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + 1;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &path_at) < 3 ||
		    !path_at)
			return -EINVAL;
		m->start = lo;
		m->end = hi;
		m->pgoff = off;
		snprintf(m->path, sizeof(m->path), "%s", line + path_at);
		im->nr_maps++;
	}
	return 0;
}

int unwind_image__load(struct unwind_image *im, const char *img, const char *bin)
{
	FILE *f = fopen(img, "rb");
	const char *maps;
	long size;
	int err = 0;

	memset(im, 0, sizeof(*im));
	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < (long)sizeof(*im->hdr) ||
	    fseek(f, 0, SEEK_SET)) {
		err = -EINVAL;
		goto cleanup;
	}
	im->size = size;
	im->buf = malloc(size);	/* malloc: aligned for the record */
	if (!im->buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (fread(im->buf, 1, size, f) != (size_t)size) {
		err = -EIO;
		goto cleanup;
	}
	im->hdr = im->buf;
	if (memcmp(im->hdr->magic, UNWIND_IMAGE_MAGIC, 8) || im->hdr->exe_len >= sizeof(im->exe) ||
	    (__u64)sizeof(*im->hdr) + im->hdr->rec_len + im->hdr->maps_len + im->hdr->exe_len !=
	    (__u64)size || im->hdr->rec_len < sizeof(struct ls_rec_stack)) {
		err = -EINVAL;
		goto cleanup;
	}
	im->rec = (struct ls_rec_stack *)(im->hdr + 1);
	im->rec_len = im->hdr->rec_len;
	maps = (const char *)im->rec + im->rec_len;
	memcpy(im->exe, maps + im->hdr->maps_len, im->hdr->exe_len);
	snprintf(im->bin, sizeof(im->bin), "%s", bin);
	err = parse_maps(im, maps, im->hdr->maps_len);
cleanup:
	fclose(f);
	if (err)
		unwind_image__free(im);
	return err;
}

void unwind_image__free(struct unwind_image *im)
{
	free(im->buf);
	memset(im, 0, sizeof(*im));
}

int unwind_image__find_map(void *ctx, __u64 addr, struct unwind_map *map)
{
	struct unwind_image *im = ctx;
	unsigned int i;

	im->lookups++;
	for (i = 0; i < im->nr_maps; i++) {
		const struct unwind_image_map *m = &im->maps[i];

		if (addr < m->start || addr >= m->end)
			continue;
		if (m->path[0] != '/')
			return -ENOENT;	/* anonymous, [stack], [vdso] */
		if (!strcmp(m->path, im->exe))
			map->path = im->bin;
		else if (im->any_file)
			map->path = m->path;
		else
			return -ENOENT;
		map->start = m->start;
		map->end = m->end;
		map->pgoff = m->pgoff;
		return 0;
	}
	return -ENOENT;
}
