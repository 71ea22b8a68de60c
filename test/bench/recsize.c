// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * recsize: what compressing recordings saves and costs.  The records of a
 * recording (or, without one, of the synthetic stream of gen.c) are
 * written again raw and at a few zstd levels, one after the other in one
 * run, flushed at each second of record time as the watch loop does; then
 * each file is read back.  Prints a Markdown table: file size, the
 * writer's and the reader's CPU time, each against raw's.
 *
 *	build/bench/recsize [FILE] [-n records]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/trace_file.h"
#include "util.h"
#include "gen.h"

#define RECSIZE_MAX	(1ull << 30)	/* records kept in memory */

struct records {
	unsigned char *buf;
	size_t len, alloc;
	size_t n;
};

struct result {
	__u64 bytes;
	double write_s, read_s;
};

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int records__add(struct records *rs, const void *rec, size_t len)
{
	if (rs->len + len > rs->alloc) {
		size_t n = rs->alloc ? rs->alloc * 2 : 1 << 20;
		void *p;

		while (n < rs->len + len)
			n *= 2;
		if (n > RECSIZE_MAX || !(p = realloc(rs->buf, n)))
			return -ENOMEM;
		rs->buf = p;
		rs->alloc = n;
	}
	memcpy(rs->buf + rs->len, rec, len);
	rs->len += len;
	rs->n++;
	return 0;
}

static int records__load(struct records *rs, const char *path)
{
	struct trace_reader *r;
	const void *rec;
	size_t len;
	int rc;

	rc = trace_reader__open(&r, path, stderr);
	if (rc)
		return rc;
	while ((rc = trace_reader__next_record(r, &rec, &len)) > 0) {
		rc = records__add(rs, rec, len);
		if (rc)
			break;
	}
	trace_reader__close(r);
	return rc;
}

static int records__generate(struct records *rs, size_t n)
{
	static unsigned char buf[1 << 20];
	static size_t lens[sizeof(buf) / sizeof(struct ls_hdr)];
	struct gen_opts o;
	struct gen *g;
	size_t got, i, off;
	int rc = 0;

	gen_opts__defaults(&o);
	g = gen__new(&o);
	if (!g)
		return -ENOMEM;
	while (!rc && rs->n < n) {
		got = gen__fill(g, buf, sizeof(buf), lens, n - rs->n);
		for (i = 0, off = 0; !rc && i < got; off += lens[i++])
			rc = records__add(rs, buf + off, lens[i]);
	}
	gen__free(g);
	return rc;
}

/* The records to path at a level, flushed at each second of their time. */
static int write_level(const struct records *rs, const char *path, int level, struct result *res)
{
	struct trace_writer_stats st;
	struct trace_writer *w;
	__u64 second = 0;
	size_t off;
	double t0;
	int rc;

	unlink(path);
	rc = trace_writer__create(&w, path, false, stderr);
	if (rc)
		return rc;
	t0 = cpu_now();
	rc = trace_writer__compress(w, level);
	for (off = 0; !rc && off < rs->len;) {
		const struct ls_hdr *h = (const void *)(rs->buf + off);

		if (h->ts / NSEC_PER_SEC != second) {
			second = h->ts / NSEC_PER_SEC;
			rc = trace_writer__flush(w);
		}
		rc = rc ?: trace_writer__record(w, h, h->size);
		off += h->size;
	}
	trace_writer__stats(w, &st);
	rc = trace_writer__close(w) ?: rc;
	res->write_s = cpu_now() - t0;
	res->bytes = st.bytes;
	return rc;
}

static int read_back(const char *path, size_t want, struct result *res)
{
	struct trace_reader *r;
	const void *rec;
	size_t len, n = 0;
	double t0 = cpu_now();
	int rc;

	rc = trace_reader__open(&r, path, stderr);
	if (rc)
		return rc;
	while ((rc = trace_reader__next_record(r, &rec, &len)) > 0)
		n++;
	trace_reader__close(r);
	res->read_s = cpu_now() - t0;
	return rc < 0 ? rc : n == want ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	static const int levels[] = { 0, 1, LS_TRACE_ZSTD_LEVEL, 9 };
	struct result res[sizeof(levels) / sizeof(levels[0])];
	const char *file = NULL, *tmp = getenv("TMPDIR") ?: "/tmp";
	struct records rs = { 0 };
	size_t n = 2000000, i;
	char path[256];
	int opt, rc;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		n = strtoull(optarg, NULL, 10);
	}
	if (optind + 1 < argc)
		goto usage;
	if (optind < argc)
		file = argv[optind];
	rc = file ? records__load(&rs, file) : records__generate(&rs, n);
	if (rc) {
		fprintf(stderr, "recsize: %s: %s\n", file ?: "generator", strerror(-rc));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/lockstall-recsize-%d.lst", tmp, (int)getpid());
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		rc = write_level(&rs, path, levels[i], &res[i]) ?: read_back(path, rs.n, &res[i]);
		if (rc) {
			fprintf(stderr, "recsize: %s: %s\n", path, strerror(-rc));
			unlink(path);
			return 1;
		}
	}
	unlink(path);
	printf("Recordings, raw and zstd (build/bench/recsize, %s: %zu records, %.1f MB raw; "
	       "one file at a time, flushed each second of record time; CPU time of one thread):\n\n",
	       file ? "a recording" : "the synthetic stream", rs.n, res[0].bytes / 1e6);
	printf("| compression | file bytes | raw / file | writer CPU ms | writer vs raw | reader CPU ms | reader vs raw |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		char name[16] = "none";

		if (levels[i])
			snprintf(name, sizeof(name), "zstd:%d", levels[i]);
		printf("| %s | %llu | %.1f | %.1f | %.2f | %.1f | %.2f |\n", name,
		       (unsigned long long)res[i].bytes, (double)res[0].bytes / res[i].bytes,
		       res[i].write_s * 1e3, res[i].write_s / res[0].write_s, res[i].read_s * 1e3,
		       res[i].read_s / res[0].read_s);
	}
	free(rs.buf);
	return 0;
usage:
	fprintf(stderr, "usage: recsize [FILE] [-n records]\n");
	return 2;
}
