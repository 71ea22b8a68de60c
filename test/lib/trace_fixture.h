/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Recordings for tests: a deterministic synthetic stream with a bit of
 * everything (three stalls of different verdicts, histograms, an
 * interval, a loss), written through the real trace writer with fixed
 * metadata (no clock, no host name), so the same code makes the same bytes
 * on any machine.  test/data/golden.lst is this recording.
 * test/data/golden-abi2.lst is the same run as ABI version 2 wrote it (no
 * cgroup ids, nor cgroup metadata): kept as it is, for the reader's
 * compatibility with older recordings.
 */
#ifndef LOCKSTALL_TEST_TRACE_FIXTURE_H
#define LOCKSTALL_TEST_TRACE_FIXTURE_H

#include <stddef.h>
#include "lib/stream.h"

#define TFX_T0_NS		(1000 * 1000000000ULL)	/* the run's BEGIN mark */
#define TFX_REALTIME_NS		1796280000000000000ULL	/* 2026-12-03 06:40:00 UTC */
#define TFX_THRESHOLD_NS	(10 * 1000000ULL)

/* Append the golden run's records to s. */
void trace_fixture__stream(struct stream *s);
/* Write s as a raw recording to path (replacing it): 0 or -errno. */
int trace_fixture__write(const char *path, const struct stream *s);
/* The same, compressed at a zstd level (0: raw, as trace_fixture__write). */
int trace_fixture__write_level(const char *path, const struct stream *s, int level);

/* Where and when a recording was made, for the fleet's recordings. */
struct trace_fixture_meta {
	const char *host;
	const char *boot_id;	/* NULL: none, as older recordings */
	__u64 realtime_ns;	/* the wall clock at TFX_T0_NS; 0: no clock */
};

/* trace_fixture__write() with this metadata instead of the golden run's. */
int trace_fixture__write_as(const char *path, const struct stream *s,
			    const struct trace_fixture_meta *m);
/* The whole file, malloc'ed (NULL when unreadable); *len its size. */
unsigned char *trace_fixture__slurp(const char *path, size_t *len);
/* The directory of the committed test data: $LOCKSTALL_TEST_DATA, else test/data. */
const char *trace_fixture__data_dir(void);

#endif /* LOCKSTALL_TEST_TRACE_FIXTURE_H */
