// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: any bytes as a recording, through what lockstall report
 * runs: the reader (header, chunks, CRCs, metadata), the engine and a
 * sink (to /dev/null): JSON, or by the input's size the Markdown, HTML or
 * Perfetto report.  It must never crash, hang, or allocate beyond
 * the format's bounds (make fuzz runs it with -malloc_limit_mb).
 *
 * Compressed recordings: the seeds include zstd ones (test/data), whose
 * mutations reach the decompressing reader; and a raw input whose
 * second-to-last byte is odd is compressed here first, in two frames cut
 * where that byte says, so that every mutation of the records behind the
 * raw format goes through zstd too.
 *
 *	make fuzz             a few minutes, seeded from test/data
 *	make test-fuzz        20 seconds (part of make test)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "session.h"
#include "sinks/report.h"
#include "record/trace_file.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A raw input as the writer would compress it: a frame ended where bits
 * 1-6 of the second-to-last byte say, the rest in a second frame; bit 7
 * cuts the last quarter off, as a killed writer would.  Returns a stream
 * over a malloc'ed buffer (*keep), or NULL.
 */
static FILE *fuzz__zstd(const uint8_t *data, size_t size, void **keep)
{
	unsigned char pick = data[size - 2];
	size_t split = size * ((pick >> 1) & 0x3f) / 64, cap = 2 * ZSTD_compressBound(size), len = 0;
	ZSTD_inBuffer in[2] = { { data, split, 0 }, { data + split, size - split, 0 } };
	ZSTD_CCtx *z = ZSTD_createCCtx();
	unsigned char *out = malloc(cap);
	int i;

	*keep = out;
	if (!z || !out) {
		ZSTD_freeCCtx(z);
		return NULL;
	}
	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 1);
	for (i = 0; i < 2; i++) {
		ZSTD_outBuffer o = { out + len, cap - len, 0 };

		if (ZSTD_compressStream2(z, &o, &in[i], ZSTD_e_end)) {
			ZSTD_freeCCtx(z);
			return NULL;
		}
		len += o.pos;
	}
	ZSTD_freeCCtx(z);
	if (pick & 0x80)
		len -= len / 4;
	return len ? fmemopen(out, len, "r") : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct session_opts so = {
		.format = SESSION_JSON,
		.top = 10,
		.threshold_ns = 10 * NSEC_PER_MSEC,
	};
	struct sink_opts sink_opts = { .top = 10 };
	struct report_meta meta = { .input = "fuzz", .has_clock = true };
	struct trace_reader *r;
	struct session s;
	void *keep = NULL;
	const char *v, *key;
	const void *rec;
	size_t len, i;
	__u64 n;
	FILE *f;

	if (!null)
		null = fopen("/dev/null", "we");
	if (!size || !null)
		return 0;
	if (size > 8 && !memcmp(data, LS_TRACE_MAGIC, 8) && data[size - 2] & 1)
		f = fuzz__zstd(data, size, &keep);
	else
		f = fmemopen((void *)data, size, "r");
	if (!f || trace_reader__open_stream(&r, f, "fuzz", NULL)) {
		free(keep);
		return 0;
	}
	/* what report takes from the metadata */
	v = trace_reader__meta(r, "threshold_ns", NULL);
	if (v && !ls_parse_u64(v, UINT64_MAX, &n))
		so.threshold_ns = n;
	v = trace_reader__meta(r, "pid", NULL);
	if (v && !ls_parse_u64(v, 4194304, &n))
		so.pid = (__u32)n;
	/* the last byte picks a window, so report --from/--to is covered too */
	if (data[size - 1] & 1) {
		so.window = true;
		so.from_ns = (data[size - 1] >> 1) * NSEC_PER_MSEC;
		so.to_ns = so.from_ns + 100 * NSEC_PER_MSEC;
	}
	meta.host = trace_reader__meta(r, "host", NULL);
	meta.kernel = trace_reader__meta(r, "kernel.release", NULL);
	switch (size % 4) {
	case 1:
		so.custom = sink_markdown__new(null, &sink_opts, &meta);
		break;
	case 2:
		so.custom = sink_html__new(null, &sink_opts, &meta);
		break;
	case 3:
		so.custom = sink_perfetto__new(null, &sink_opts);
		break;
	}
	if (so.custom)
		so.format = SESSION_CUSTOM;
	if (session__init(&s, &so, null)) {
		trace_reader__close(r);
		return 0;
	}
	while (trace_reader__next_record(r, &rec, &len) > 0) {
		if (session__feed(&s, rec, len) < 0)
			break;
	}
	session__finish(&s);
	session__destroy(&s);
	for (i = 0; !trace_reader__meta_at(r, i, &key, &v, &len); i++)
		;
	trace_reader__close(r);
	free(keep);
	return 0;
}
