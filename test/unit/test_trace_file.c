// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/record/trace_{file,writer,reader}.c: what is written reads back as it
 * was; a file that is cut short, corrupted, foreign or from a newer
 * lockstall gives a clear message or a partial reading, never a crash, a
 * hang or a huge allocation; output files are created without following
 * links or replacing files.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <zstd.h>
#include "engine/engine.h"
#include "lib/trace_fixture.h"
#include "sinks/sinks.h"
#include "record/trace_file.h"
#include "util.h"

static struct {
	char dir[64];
	char path[128];
	struct stream s;
	char *err;		/* what the reader said */
	size_t err_len;
	FILE *errf;
} tf;

static void tf_setup(void)
{
	memset(&tf, 0, sizeof(tf));
	strcpy(tf.dir, "/tmp/lockstall-test-XXXXXX");
	cr_assert_not_null(mkdtemp(tf.dir));
	snprintf(tf.path, sizeof(tf.path), "%s/rec.lst", tf.dir);
	stream__init(&tf.s);
	tf.errf = open_memstream(&tf.err, &tf.err_len);
}

static void tf_teardown(void)
{
	char cmd[128];

	if (tf.errf)
		fclose(tf.errf);
	free(tf.err);
	stream__free(&tf.s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tf.dir);
	if (system(cmd))
		cr_log_warn("could not remove %s", tf.dir);
}

/* What the reader wrote to err so far, NUL-terminated. */
static const char *tf_err(void)
{
	fflush(tf.errf);
	return tf.err ? tf.err : "";
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "we");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* Read every record of a reader into a stream; returns the count. */
static size_t read_all(struct trace_reader *r, struct stream *into)
{
	const void *rec;
	size_t len, n = 0;
	int rc;

	while ((rc = trace_reader__next_record(r, &rec, &len)) > 0) {
		if (into)
			stream__raw(into, rec, len);
		n++;
	}
	cr_assert_eq(rc, 0, "next_record: %d", rc);
	return n;
}

TestSuite(crc32);

Test(crc32, known_values)
{
	/* the check value of CRC-32/ISO-HDLC, as zlib and Python's zlib.crc32 compute */
	cr_assert_eq(ls_crc32(0, "123456789", 9), 0xcbf43926u);
	cr_assert_eq(ls_crc32(0, "", 0), 0);
	cr_assert_eq(ls_crc32(ls_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u,
		     "chaining over two buffers differs from one");
}

TestSuite(trace_file, .init = tf_setup, .fini = tf_teardown, .timeout = 60);

Test(trace_file, round_trip_records_and_metadata)
{
	struct trace_reader *r;
	struct stream got;
	size_t len;
	const char *v;

	trace_fixture__stream(&tf.s);
	cr_assert_eq(trace_fixture__write(tf.path, &tf.s), 0);
	cr_assert_eq(trace_reader__open(&r, tf.path, tf.errf), 0, "%s", tf_err());
	/* the leading metadata is there before any record is read */
	v = trace_reader__meta(r, "host", &len);
	cr_assert_str_eq(v, "golden-host");
	cr_assert_eq(len, 11);
	cr_assert_str_eq(trace_reader__meta(r, "threshold_ns", NULL), "10000000");
	cr_assert_null(trace_reader__meta(r, "proc.500.comm", NULL), "end metadata read too early");
	stream__init(&got);
	cr_assert_eq(read_all(r, &got), tf.s.n);
	cr_assert_eq(got.len, tf.s.len);
	cr_assert_eq(memcmp(got.buf, tf.s.buf, tf.s.len), 0, "records differ");
	/* the metadata written at the end is read with the last chunks */
	cr_assert_str_eq(trace_reader__meta(r, "proc.500.comm", NULL), "victim-app");
	cr_assert_str_eq(trace_reader__meta(r, "proc.300.comm", NULL), "wl-reader",
			 "the main thread's name was not preferred");
	v = trace_reader__meta(r, "proc.500.cmdline", &len);
	cr_assert_eq(len, 15);
	cr_assert_eq(memcmp(v, "victim-app\0--rt", 15), 0);
	cr_assert_eq(trace_reader__status(r), 0, "status %#x: %s", trace_reader__status(r), tf_err());
	cr_assert_str_empty(tf_err());
	trace_reader__close(r);
	stream__free(&got);
}

/* Every byte value survives the metadata escaping. */
Test(trace_file, metadata_values_are_any_bytes)
{
	unsigned char all[256];
	struct trace_writer *w;
	struct trace_reader *r;
	const char *v;
	size_t len, i;

	for (i = 0; i < sizeof(all); i++)
		all[i] = (unsigned char)i;
	cr_assert_eq(trace_writer__create(&w, tf.path, false, tf.errf), 0);
	cr_assert_eq(trace_writer__meta(w, "bytes", all, sizeof(all)), 0);
	cr_assert_eq(trace_writer__meta_str(w, "empty", ""), 0);
	cr_assert_eq(trace_writer__meta(w, "Bad-Key", "x", 1), -EINVAL);
	cr_assert_eq(trace_writer__meta(w, "", "x", 1), -EINVAL);
	cr_assert_eq(trace_writer__meta(w, "key=x", "x", 1), -EINVAL);
	cr_assert_eq(trace_writer__close(w), 0);

	cr_assert_eq(trace_reader__open(&r, tf.path, tf.errf), 0, "%s", tf_err());
	v = trace_reader__meta(r, "bytes", &len);
	cr_assert_eq(len, sizeof(all));
	cr_assert_eq(memcmp(v, all, sizeof(all)), 0);
	cr_assert_str_eq(trace_reader__meta(r, "empty", NULL), "");
	cr_assert_eq(read_all(r, NULL), 0);
	cr_assert_eq(trace_reader__status(r), 0);
	trace_reader__close(r);
}

/* Records beyond a chunk's target size go into more chunks, all read back. */
Test(trace_file, many_chunks)
{
	struct ls_task t = stream__task(1, 1, LS_POLICY_NORMAL, 0, 0, "t");
	struct trace_writer *w;
	struct trace_reader *r;
	struct stream got;
	size_t i, off = 0;
	struct stat st;

	for (i = 0; i < 10000; i++)
		stream__switch(&tf.s, i % 2, 1000 + i, &t, 0, true, NULL, 0);
	cr_assert_gt(tf.s.len, 3 * LS_TRACE_CHUNK_TARGET);
	cr_assert_eq(trace_writer__create(&w, tf.path, false, tf.errf), 0);
	for (i = 0; i < tf.s.n; i++) {
		cr_assert_eq(trace_writer__record(w, tf.s.buf + off, tf.s.lens[i]), 0);
		off += tf.s.lens[i];
	}
	cr_assert_eq(trace_writer__close(w), 0);
	cr_assert_eq(stat(tf.path, &st), 0);
	/* header, chunk headers, END: no more than a few hundred bytes of framing */
	cr_assert_lt((size_t)st.st_size, tf.s.len + 200);
	cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);

	cr_assert_eq(trace_reader__open(&r, tf.path, tf.errf), 0);
	stream__init(&got);
	cr_assert_eq(read_all(r, &got), tf.s.n);
	cr_assert_eq(memcmp(got.buf, tf.s.buf, tf.s.len), 0);
	trace_reader__close(r);
	stream__free(&got);
}

/* A record whose length is not its hdr.size cannot be framed: counted, not written. */
Test(trace_file, unrecordable_records_are_counted)
{
	struct ls_hdr h = { .type = LS_REC_MARK, .size = 24, .ts = 5 };
	unsigned char rec[32] = { 0 };
	struct trace_writer *w;
	struct trace_writer_stats st;

	memcpy(rec, &h, sizeof(h));
	cr_assert_eq(trace_writer__fdopen(&w, open("/dev/null", O_WRONLY), "null"), 0);
	cr_assert_eq(trace_writer__record(w, rec, 32), 0);
	cr_assert_eq(trace_writer__record(w, rec, 12), 0);
	cr_assert_eq(trace_writer__record(w, rec, 24), 0);
	trace_writer__stats(w, &st);
	cr_assert_eq(st.unrecordable, 2);
	cr_assert_eq(st.records, 1);
	cr_assert_eq(trace_writer__close(w), 0);
}

Test(trace_file, processes_seen)
{
	struct ls_task thread = stream__task(11, 10, LS_POLICY_NORMAL, 0, 0, "worker");
	struct ls_task main_thread = stream__task(10, 10, LS_POLICY_NORMAL, 0, 0, "server");
	struct ls_task other = stream__task(20, 20, LS_POLICY_NORMAL, 0, 0, "other");
	struct trace_writer *w;
	struct trace_writer_stats st;
	size_t off = 0, i;

	stream__switch(&tf.s, 0, 1, &thread, 0, true, &other, 0);
	stream__switch(&tf.s, 0, 2, &other, 0, true, &main_thread, 0);
	cr_assert_eq(trace_writer__fdopen(&w, open("/dev/null", O_WRONLY), "null"), 0);
	for (i = 0; i < tf.s.n; i++) {
		trace_writer__record(w, tf.s.buf + off, tf.s.lens[i]);
		off += tf.s.lens[i];
	}
	trace_writer__stats(w, &st);
	cr_assert_eq(st.procs, 2);
	cr_assert_eq(trace_writer__meta_flush(w), 0);
	trace_writer__close(w);
}

/*
 * A FIFO that no one writes: the open does not wait for a writer (the
 * stop signals would restart it), it reads as empty: no recording, said.
 * The suite's timeout fails it if the open blocks.
 */
Test(trace_file, fifo_without_writer_is_no_recording)
{
	struct trace_reader *r;

	cr_assert_eq(mkfifo(tf.path, 0600), 0);
	cr_assert_neq(trace_reader__open(&r, tf.path, tf.errf), 0);
	cr_assert_null(r);
	cr_assert(strstr(tf_err(), tf.path), "%s", tf_err());
}

TestSuite(trace_damage, .init = tf_setup, .fini = tf_teardown, .timeout = 120);

static unsigned char *golden_bytes(size_t *len)
{
	unsigned char *buf;

	trace_fixture__stream(&tf.s);
	cr_assert_eq(trace_fixture__write(tf.path, &tf.s), 0);
	buf = trace_fixture__slurp(tf.path, len);
	cr_assert_not_null(buf);
	return buf;
}

/*
 * Read a recording held in memory, through the engine and the JSON sink as
 * report does; returns the open error, else 0 with *n records read.
 */
static int replay_mem(const unsigned char *buf, size_t len, struct stream *got, unsigned int *status)
{
	struct engine_opts eo = { .threshold_ns = TFX_THRESHOLD_NS };
	struct sink_opts so = { .top = 10 };
	FILE *f, *null = fopen("/dev/null", "we");
	struct trace_reader *r;
	struct sink *sink;
	struct engine *e;
	const void *rec;
	size_t rlen;
	int rc;

	cr_assert_not_null(null);
	/* fmemopen() of 0 bytes is refused: a 1-byte buffer read as empty does it */
	f = fmemopen((void *)(len ? buf : (const unsigned char *)"x"), len ? len : 1, "r");
	cr_assert_not_null(f);
	if (!len)
		fgetc(f);
	rc = trace_reader__open_stream(&r, f, "mem", tf.errf);
	if (rc) {
		fclose(null);
		return rc;
	}
	sink = sink_json__new(null, &so);
	e = engine__new(&eo, sink);
	while ((rc = trace_reader__next_record(r, &rec, &rlen)) > 0) {
		if (got)
			stream__raw(got, rec, rlen);
		engine__feed(e, rec, rlen);
	}
	cr_assert_eq(rc, 0);
	engine__finish(e);
	*status = trace_reader__status(r);
	engine__free(e);
	sink__free(sink);
	trace_reader__close(r);
	fclose(null);
	return 0;
}

/* The records read are the first ones written, in order: never garbage. */
static void assert_prefix(const struct stream *got, const struct stream *all, const char *what)
{
	cr_assert_leq(got->len, all->len, "%s: more bytes than written", what);
	cr_assert_eq(memcmp(got->buf, all->buf, got->len), 0, "%s: records differ from the written ones",
		     what);
}

/*
 * Every prefix of buf: none shorter than opens (the header's end, or the
 * first frame's) opens; the others read a prefix of the records and, but
 * the whole file, say it has no end.  n[0], n[1], n[2]: the cuts that read
 * none, some, all of the records.
 */
static void read_every_prefix(const unsigned char *buf, size_t len, size_t opens, size_t n[3])
{
	size_t cut;

	for (cut = 0; cut <= len; cut++) {
		struct stream got;
		unsigned int status = 0;
		char what[32];
		int rc;

		snprintf(what, sizeof(what), "cut at %zu", cut);
		stream__init(&got);
		rc = replay_mem(buf, cut, &got, &status);
		if (cut < opens) {
			cr_assert_eq(rc, -EINVAL, "%s: rc %d", what, rc);
		} else {
			cr_assert_eq(rc, 0, "%s: rc %d", what, rc);
			assert_prefix(&got, &tf.s, what);
			if (cut < len)
				cr_assert(status & LS_TRACE_NO_END, "%s: status %#x", what, status);
			else
				cr_assert_eq(status, 0, "%s: status %#x", what, status);
			n[!got.n ? 0 : got.n < tf.s.n ? 1 : 2]++;
		}
		stream__free(&got);
	}
}

/* kill -9, power loss, full disk: every prefix reads up to its last whole chunk. */
Test(trace_damage, every_prefix)
{
	size_t len, n[3] = { 0 };
	unsigned char *buf = golden_bytes(&len);

	read_every_prefix(buf, len, sizeof(struct ls_trace_file_hdr), n);
	/* both chunk boundaries were crossed: none, half and all of the records */
	cr_assert_gt(n[0], 0);
	cr_assert_gt(n[1], 0);
	cr_assert_gt(n[2], 1, "the cut inside the end metadata lost records");
	free(buf);
}

Test(trace_damage, cut_short_says_how_much_was_lost)
{
	size_t len;
	unsigned char *buf = golden_bytes(&len);
	struct trace_reader *r;
	FILE *f;

	/* the last chunks are the end metadata (M bytes + 16) and END (16): cut 10 into END */
	f = fmemopen(buf, len - 6, "r");
	cr_assert_eq(trace_reader__open_stream(&r, f, "cut.lst", tf.errf), 0);
	read_all(r, NULL);
	cr_assert_eq(trace_reader__status(r), LS_TRACE_TRUNCATED | LS_TRACE_NO_END);
	cr_assert_not_null(strstr(tf_err(), "lockstall: cut.lst: the recording was cut short: its last chunk is incomplete, 10 bytes lost"),
			   "%s", tf_err());
	trace_reader__close(r);
	free(buf);
}

/*
 * The header has no CRC: a flip of its ABI version to an older one this
 * reader still reads is a valid file.  Today's records are no older
 * layout, so they must come through as written.
 */
static bool abi_flip_still_read(const unsigned char *buf, size_t off)
{
	struct ls_trace_file_hdr h;

	if (off < offsetof(struct ls_trace_file_hdr, abi) ||
	    off >= offsetof(struct ls_trace_file_hdr, abi) + sizeof(h.abi))
		return false;
	memcpy(&h, buf, sizeof(h));
	return h.abi >= LS_ABI_VERSION_MIN && h.abi < LS_ABI_VERSION;
}

/* A flipped byte anywhere is caught: an open error, or a CRC stop before it. */
Test(trace_damage, every_flipped_byte)
{
	size_t len, off;
	unsigned char *buf = golden_bytes(&len);
	static const unsigned char flips[] = { 0x01, 0x80, 0xff };
	size_t k, open_errors = 0, corrupt = 0;

	for (off = 0; off < len; off++) {
		for (k = 0; k < sizeof(flips); k++) {
			struct stream got;
			unsigned int status = 0;
			char what[48];
			bool older;
			int rc;

			snprintf(what, sizeof(what), "byte %zu ^ %#x", off, flips[k]);
			buf[off] ^= flips[k];
			stream__init(&got);
			rc = replay_mem(buf, len, &got, &status);
			older = abi_flip_still_read(buf, off);
			buf[off] ^= flips[k];
			if (older) {
				cr_assert_eq(rc, 0, "%s: rc %d", what, rc);
				cr_assert_eq(got.len, tf.s.len, "%s: records lost", what);
				assert_prefix(&got, &tf.s, what);
			} else if (rc) {
				cr_assert(rc == -EINVAL || rc == -EPROTONOSUPPORT, "%s: rc %d", what, rc);
				cr_assert_lt(off, sizeof(struct ls_trace_file_hdr), "%s: open failed", what);
				open_errors++;
			} else {
				cr_assert(status & LS_TRACE_CORRUPT, "%s: not noticed (status %#x)", what,
					  status);
				assert_prefix(&got, &tf.s, what);
				corrupt++;
			}
			stream__free(&got);
		}
	}
	cr_assert_gt(open_errors, 0);
	cr_assert_gt(corrupt, 0);
	free(buf);
}

/*
 * test/data/golden-abi2.lst, the golden run as ABI version 2 wrote it:
 * its lock records come widened, cgroup_id 0, and but for that the
 * records are today's golden stream, byte for byte.
 */
Test(trace_file, abi2_recording_reads_as_today_without_cgroups)
{
	char path[512];
	struct trace_reader *r;
	struct stream got;
	size_t i, off = 0, locks = 0;

	trace_fixture__stream(&tf.s);
	snprintf(path, sizeof(path), "%s/golden-abi2.lst", trace_fixture__data_dir());
	cr_assert_eq(trace_reader__open(&r, path, tf.errf), 0, "%s", tf_err());
	stream__init(&got);
	cr_assert_eq(read_all(r, &got), tf.s.n);
	cr_assert_eq(trace_reader__status(r), 0, "%s", tf_err());
	cr_assert_eq(got.len, tf.s.len, "lock records not widened to %zu bytes",
		     sizeof(struct ls_rec_lock));
	for (i = 0; i < tf.s.n; i++) {
		unsigned char *want = tf.s.buf + off, *rec = got.buf + off;
		const struct ls_hdr *h = (const struct ls_hdr *)want;

		cr_assert_eq(got.lens[i], tf.s.lens[i], "record %zu: %zu bytes", i, got.lens[i]);
		if (h->type == LS_REC_WAIT_BEGIN || h->type == LS_REC_WAIT_END ||
		    h->type == LS_REC_HOLD) {
			struct ls_rec_lock a, b;

			memcpy(&a, rec, sizeof(a));
			memcpy(&b, want, sizeof(b));
			cr_assert_eq(a.cgroup_id, 0, "record %zu: cgroup_id %llu from nowhere", i,
				     (unsigned long long)a.cgroup_id);
			cr_assert_neq(b.cgroup_id, 0, "the fixture's lock records carry cgroups");
			b.cgroup_id = 0;
			cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0, "record %zu differs", i);
			locks++;
		} else {
			cr_assert_eq(memcmp(rec, want, tf.s.lens[i]), 0, "record %zu differs", i);
		}
		off += tf.s.lens[i];
	}
	cr_assert_eq(locks, 9);
	stream__free(&got);
	trace_reader__close(r);
}

/* A version 3 file with a lock record of the old size: not widened, so the engine refuses it. */
Test(trace_file, short_lock_record_of_today_is_not_widened)
{
	struct ls_rec_lock rec;
	struct trace_writer *w;
	struct trace_reader *r;
	const void *got;
	size_t len;

	memset(&rec, 0, sizeof(rec));
	rec.hdr.type = LS_REC_HOLD;
	rec.hdr.size = LS_REC_LOCK_V1_SIZE;
	cr_assert_eq(trace_writer__create(&w, tf.path, false, tf.errf), 0);
	cr_assert_eq(trace_writer__record(w, &rec, LS_REC_LOCK_V1_SIZE), 0);
	cr_assert_eq(trace_writer__close(w), 0);
	cr_assert_eq(trace_reader__open(&r, tf.path, tf.errf), 0, "%s", tf_err());
	cr_assert_eq(trace_reader__next_record(r, &got, &len), 1);
	cr_assert_eq(len, LS_REC_LOCK_V1_SIZE);
	trace_reader__close(r);
}

static void put_chunk(unsigned char *at, __u32 type, const void *payload, __u32 len)
{
	struct ls_trace_chunk_hdr h = { .type = type, .len = len, .crc = ls_crc32(0, payload, len) };

	h.hdr_crc = ls_crc32(0, &h, 12);
	memcpy(at, &h, sizeof(h));
	memcpy(at + sizeof(h), payload, len);
}

static size_t file_hdr(unsigned char *buf, __u32 format, __u32 abi, __u32 hdr_len)
{
	struct ls_trace_file_hdr h = { .format = format, .abi = abi, .hdr_len = hdr_len };

	memcpy(h.magic, LS_TRACE_MAGIC, 8);
	memcpy(buf, &h, sizeof(h));
	memset(buf + sizeof(h), 0, hdr_len > sizeof(h) ? hdr_len - sizeof(h) : 0);
	return hdr_len >= sizeof(h) ? hdr_len : sizeof(h);
}

struct open_case {
	char name[40];
	__u32 format, abi, hdr_len;
	int rc;
	char msg[96];
};

ParameterizedTestParameters(trace_damage, header)
{
	static struct open_case cases[] = {
		{ "ours", LS_TRACE_FORMAT, LS_ABI_VERSION, 24, 0, "" },
		{ "longer header, later fields", LS_TRACE_FORMAT, LS_ABI_VERSION, 64, 0, "" },
		{ "newer format", LS_TRACE_FORMAT + 1, LS_ABI_VERSION, 24, -EPROTONOSUPPORT,
		  "mem: recorded by a newer lockstall (format 2, records version 4): upgrade lockstall to read it" },
		{ "records version 1 (before STACK)", LS_TRACE_FORMAT, 1, 24, 0, "" },
		{ "records version 2 (before cgroup_id)", LS_TRACE_FORMAT, 2, 24, 0, "" },
		{ "records version 3 (before lock kinds)", LS_TRACE_FORMAT, 3, 24, 0, "" },
		{ "records version 0", LS_TRACE_FORMAT, 0, 24, -EINVAL, "not a lockstall recording" },
		{ "newer records", LS_TRACE_FORMAT, LS_ABI_VERSION + 1, 24, -EPROTONOSUPPORT,
		  "recorded by a newer lockstall" },
		{ "format 0", 0, LS_ABI_VERSION, 24, -EINVAL, "mem: not a lockstall recording" },
		{ "header too short", LS_TRACE_FORMAT, LS_ABI_VERSION, 16, -EINVAL,
		  "not a lockstall recording" },
		{ "header too long", LS_TRACE_FORMAT, LS_ABI_VERSION, 1 << 20, -EINVAL,
		  "not a lockstall recording" },
	};

	return cr_make_param_array(struct open_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct open_case *c, trace_damage, header)
{
	static unsigned char buf[4096];
	unsigned int status = 0;
	size_t len = file_hdr(buf, c->format, c->abi, c->hdr_len < 4000 ? c->hdr_len : 24);
	int rc;

	if (c->hdr_len >= 4000)
		memcpy(buf + offsetof(struct ls_trace_file_hdr, hdr_len), &c->hdr_len, 4);
	put_chunk(buf + len, LS_CHUNK_END, "", 0);
	rc = replay_mem(buf, len + 16, NULL, &status);
	cr_assert_eq(rc, c->rc, "%s: rc %d: %s", c->name, rc, tf_err());
	if (c->rc)
		cr_assert_not_null(strstr(tf_err(), c->msg), "%s: %s", c->name, tf_err());
	else
		cr_assert_eq(status, 0, "%s: status %#x: %s", c->name, status, tf_err());
}

Test(trace_damage, foreign_files)
{
	static const char *const files[] = { "", "LOCK", "#!/bin/sh\necho hi\n",
					     "LOCKSTOP and more bytes than a header has" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		unsigned int status;
		int rc = replay_mem((const unsigned char *)files[i], strlen(files[i]), NULL, &status);

		cr_assert_eq(rc, -EINVAL, "'%s': rc %d", files[i], rc);
	}
	cr_assert_not_null(strstr(tf_err(), "lockstall: mem: not a lockstall recording\n"), "%s",
			   tf_err());
}

/* A good CRC over bad contents: a buggy or hostile writer. */
Test(trace_damage, crafted_chunks)
{
	static unsigned char buf[8192];
	struct ls_rec_mark m = { .hdr = { .type = LS_REC_MARK, .size = 24, .ts = 1 },
				 .kind = LS_MARK_BEGIN };
	struct ls_rec_mark bad = m;
	unsigned char two[48];
	unsigned int status = 0;
	struct stream got;
	size_t len = file_hdr(buf, LS_TRACE_FORMAT, LS_ABI_VERSION, 24);

	/* metadata without '=': ignored whole, reading goes on */
	put_chunk(buf + len, LS_CHUNK_META, "host=a\nnonsense\n", 16);
	len += 16 + 16;
	/* a bad escape: ignored */
	put_chunk(buf + len, LS_CHUNK_META, "host=\\xZZ\n", 10);
	len += 16 + 10;
	/* a chunk type from the future: skipped */
	put_chunk(buf + len, 99, "whatever", 8);
	len += 16 + 8;
	put_chunk(buf + len, LS_CHUNK_RECORDS, &m, sizeof(m));
	len += 16 + sizeof(m);
	/* a record whose size runs past its chunk */
	bad.hdr.size = 40;
	memcpy(two, &m, 24);
	memcpy(two + 24, &bad, 24);
	put_chunk(buf + len, LS_CHUNK_RECORDS, two, 48);
	len += 16 + 48;
	put_chunk(buf + len, LS_CHUNK_END, "", 0);
	len += 16;

	stream__init(&got);
	cr_assert_eq(replay_mem(buf, len, &got, &status), 0, "%s", tf_err());
	cr_assert_eq(status, LS_TRACE_BAD_META | LS_TRACE_CORRUPT, "status %#x: %s",
		     status, tf_err());
	/* the good record, and the good one before the bad in the last chunk */
	cr_assert_eq(got.n, 2, "%zu records", got.n);
	cr_assert_not_null(strstr(tf_err(), "malformed metadata: ignored"), "%s", tf_err());
	cr_assert_not_null(strstr(tf_err(), "holds a malformed record at byte 24"), "%s", tf_err());
	stream__free(&got);
}

/* Lengths are bounded before anything is allocated or read. */
Test(trace_damage, hostile_lengths)
{
	static unsigned char buf[256];
	struct ls_trace_chunk_hdr h = { .type = LS_CHUNK_RECORDS, .len = LS_TRACE_MAX_CHUNK + 1 };
	unsigned int status = 0;
	size_t len = file_hdr(buf, LS_TRACE_FORMAT, LS_ABI_VERSION, 24);

	h.hdr_crc = ls_crc32(0, &h, 12);
	memcpy(buf + len, &h, sizeof(h));
	cr_assert_eq(replay_mem(buf, len + 16 + 100, NULL, &status), 0);
	cr_assert_eq(status & LS_TRACE_CORRUPT, LS_TRACE_CORRUPT);
	cr_assert_not_null(strstr(tf_err(), "chunk too long"), "%s", tf_err());

	/* 16 MiB claimed, 100 bytes there: read as cut short */
	h.len = LS_TRACE_MAX_CHUNK;
	h.hdr_crc = ls_crc32(0, &h, 12);
	memcpy(buf + len, &h, sizeof(h));
	cr_assert_eq(replay_mem(buf, len + 16 + 100, NULL, &status), 0);
	cr_assert_eq(status, LS_TRACE_TRUNCATED | LS_TRACE_NO_END);
	cr_assert_not_null(strstr(tf_err(), "116 bytes lost"), "%s", tf_err());
}

/* Metadata is bounded by what it costs in memory, not by its bytes alone. */
Test(trace_damage, metadata_is_bounded)
{
	const size_t chunk = 1 << 20, n = 3;
	unsigned char *buf = malloc(24 + n * (16 + chunk) + 16), *lines = malloc(chunk);
	unsigned int status = 0;
	size_t len, i;

	cr_assert(buf && lines);
	for (i = 0; i + 3 <= chunk; i += 3)
		memcpy(lines + i, "a=\n", 3);
	len = file_hdr(buf, LS_TRACE_FORMAT, LS_ABI_VERSION, 24);
	for (i = 0; i < n; i++) {
		put_chunk(buf + len, LS_CHUNK_META, lines, (__u32)(chunk / 3 * 3));
		len += 16 + chunk / 3 * 3;
	}
	put_chunk(buf + len, LS_CHUNK_END, "", 0);
	len += 16;
	cr_assert_eq(replay_mem(buf, len, NULL, &status), 0);
	cr_assert_eq(status, LS_TRACE_BAD_META, "status %#x", status);
	cr_assert_not_null(strstr(tf_err(), "too much metadata: ignored"), "%s", tf_err());
	free(lines);
	free(buf);
}

/* Bytes after the END chunk: the whole recording reads, the rest is ignored. */
static void assert_trailing_ignored(unsigned char *buf, size_t len)
{
	unsigned char *more = malloc(len + 5);
	unsigned int status = 0;
	struct stream got;

	cr_assert_not_null(more);
	memcpy(more, buf, len);
	memcpy(more + len, "junk!", 5);
	stream__init(&got);
	cr_assert_eq(replay_mem(more, len + 5, &got, &status), 0);
	cr_assert_eq(status, LS_TRACE_TRAILING, "status %#x: %s", status, tf_err());
	cr_assert_eq(got.n, tf.s.n);
	stream__free(&got);
	free(more);
	free(buf);
}

Test(trace_damage, trailing_bytes_after_the_end)
{
	size_t len;
	unsigned char *buf = golden_bytes(&len);

	assert_trailing_ignored(buf, len);
}

/*
 * A disk that fills up: the write that fails stops recording; the file is
 * cut back to its last whole chunk and reads without a "cut short" warning,
 * only "no end mark".  RLIMIT_FSIZE makes writes fail like ENOSPC does.
 */
static void write_until_efbig(int level, rlim_t limit, size_t flush_every)
{
	struct ls_task t = stream__task(1, 1, LS_POLICY_NORMAL, 0, 0, "t");
	struct rlimit lim = { .rlim_cur = limit, .rlim_max = RLIM_INFINITY };
	struct trace_writer *w;
	struct trace_reader *r;
	struct stream got;
	size_t i, off = 0;
	int err = 0;

	signal(SIGXFSZ, SIG_IGN);
	/* times that do not repeat, or zstd makes the file too small to fill */
	for (i = 0; i < 20000; i++)
		stream__switch(&tf.s, i % 2, 1000 + i * 7919 % 100003, &t, 0, true, NULL, 0);
	cr_assert_eq(trace_writer__create(&w, tf.path, false, tf.errf), 0);
	cr_assert_eq(trace_writer__compress(w, level), 0);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 0; i < tf.s.n && !err; i++) {
		err = trace_writer__record(w, tf.s.buf + off, tf.s.lens[i]);
		off += tf.s.lens[i];
		if (!err && flush_every && i % flush_every == flush_every - 1)
			err = trace_writer__flush(w);
	}
	cr_assert_eq(err, -EFBIG, "err %d", err);
	cr_assert_eq(trace_writer__record(w, tf.s.buf, tf.s.lens[0]), -EFBIG, "not sticky");
	cr_assert_eq(trace_writer__close(w), -EFBIG);

	cr_assert_eq(trace_reader__open(&r, tf.path, tf.errf), 0, "%s", tf_err());
	cr_assert_eq(trace_reader__compressed(r), level != 0);
	stream__init(&got);
	read_all(r, &got);
	cr_assert_eq(trace_reader__status(r), LS_TRACE_NO_END, "%#x: %s", trace_reader__status(r),
		     tf_err());
	cr_assert_gt(got.n, 0);
	cr_assert_lt(got.n, tf.s.n);
	assert_prefix(&got, &tf.s, "after EFBIG");
	trace_reader__close(r);
	stream__free(&got);
}

Test(trace_damage, write_error_leaves_a_readable_file)
{
	write_until_efbig(0, 600 * 1024, 0);
}

/* Compressed recordings ----------------------------------------------------- */

TestSuite(trace_zstd, .init = tf_setup, .fini = tf_teardown, .timeout = 120);

static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

static unsigned char *golden_zstd(size_t *len)
{
	unsigned char *buf;

	trace_fixture__stream(&tf.s);
	cr_assert_eq(trace_fixture__write_level(tf.path, &tf.s, LS_TRACE_ZSTD_LEVEL), 0);
	buf = trace_fixture__slurp(tf.path, len);
	cr_assert_not_null(buf);
	cr_assert_eq(memcmp(buf, zstd_magic, 4), 0, "not a zstd stream");
	return buf;
}

/* The file's zstd frames: their ends, from the first; returns how many. */
static size_t zstd_frame_ends(const unsigned char *buf, size_t len, size_t *ends, size_t max)
{
	size_t off = 0, n = 0;

	while (off < len && n < max) {
		size_t f = ZSTD_findFrameCompressedSize(buf + off, len - off);

		cr_assert(!ZSTD_isError(f), "frame at %zu: %s", off, ZSTD_getErrorName(f));
		off += f;
		ends[n++] = off;
	}
	return n;
}

Test(trace_zstd, round_trip_is_smaller)
{
	struct trace_reader *r;
	struct stream got;
	size_t zlen, rawlen;
	unsigned char *zbuf = golden_zstd(&zlen), *raw;

	cr_assert_eq(trace_reader__open(&r, tf.path, tf.errf), 0, "%s", tf_err());
	cr_assert(trace_reader__compressed(r));
	cr_assert_str_eq(trace_reader__meta(r, "host", NULL), "golden-host");
	stream__init(&got);
	cr_assert_eq(read_all(r, &got), tf.s.n);
	cr_assert_eq(got.len, tf.s.len);
	cr_assert_eq(memcmp(got.buf, tf.s.buf, tf.s.len), 0, "records differ");
	cr_assert_str_eq(trace_reader__meta(r, "proc.500.comm", NULL), "victim-app");
	cr_assert_eq(trace_reader__status(r), 0, "status %#x: %s", trace_reader__status(r), tf_err());
	cr_assert_str_empty(tf_err());
	trace_reader__close(r);
	stream__free(&got);

	cr_assert_eq(trace_fixture__write(tf.path, &tf.s), 0);
	raw = trace_fixture__slurp(tf.path, &rawlen);
	cr_assert_eq(memcmp(raw, LS_TRACE_MAGIC, 8), 0, "level 0 is not the raw format");
	cr_assert_lt(zlen * 2, rawlen, "compressed %zu bytes, raw %zu", zlen, rawlen);
	free(raw);
	free(zbuf);
}

/* A frame ends at every flush: the leading metadata, each flush's records, the end. */
Test(trace_zstd, a_frame_per_flush)
{
	size_t len, ends[16];
	unsigned char *buf = golden_zstd(&len);

	cr_assert_eq(zstd_frame_ends(buf, len, ends, ARRAY_SIZE(ends)), 4);
	cr_assert_eq(ends[3], len);
	free(buf);
}

Test(trace_zstd, levels)
{
	struct trace_writer *w;

	cr_assert_eq(trace_writer__fdopen(&w, open("/dev/null", O_WRONLY), "null"), 0);
	cr_assert_eq(trace_writer__compress(w, -1), -EINVAL);
	cr_assert_eq(trace_writer__compress(w, LS_TRACE_ZSTD_LEVEL_MAX + 1), -EINVAL);
	cr_assert_eq(trace_writer__compress(w, LS_TRACE_ZSTD_LEVEL_MAX), 0);
	cr_assert_eq(trace_writer__meta_str(w, "k", "v"), 0);
	cr_assert_eq(trace_writer__meta_flush(w), 0);
	cr_assert_eq(trace_writer__compress(w, 0), -EBUSY, "changed after the header");
	cr_assert_eq(trace_writer__close(w), 0);
}

/* Every prefix of a compressed file reads up to its last whole frame or block. */
Test(trace_zstd, every_prefix)
{
	size_t len, ends[16], n[3] = { 0 };
	unsigned char *buf = golden_zstd(&len);

	cr_assert_eq(zstd_frame_ends(buf, len, ends, ARRAY_SIZE(ends)), 4);
	read_every_prefix(buf, len, ends[0], n);
	cr_assert_gt(n[0], 0);
	cr_assert_gt(n[1], 0, "no cut gave the first flush's records alone");
	cr_assert_gt(n[2], 0);
	free(buf);
}

Test(trace_zstd, cut_short_in_a_frame)
{
	size_t len;
	unsigned char *buf = golden_zstd(&len);
	unsigned int status = 0;
	struct stream got;

	size_t ends[16];

	/* frames: leading metadata, the first flush, the rest with the end metadata, END */
	cr_assert_eq(zstd_frame_ends(buf, len, ends, ARRAY_SIZE(ends)), 4);
	stream__init(&got);
	cr_assert_eq(replay_mem(buf, ends[2] - 6, &got, &status), 0);
	cr_assert_eq(status, LS_TRACE_TRUNCATED | LS_TRACE_NO_END, "status %#x", status);
	cr_assert_gt(got.n, 0);
	cr_assert_lt(got.n, tf.s.n);
	assert_prefix(&got, &tf.s, "cut in the last frame");
	cr_assert_not_null(strstr(tf_err(), "lockstall: mem: the recording has no end mark: it was cut short"),
			   "%s", tf_err());
	stream__free(&got);
	free(buf);
}

/* Damage inside a frame stops the reading there: the frames before it read. */
Test(trace_zstd, corrupt_frame)
{
	size_t len, ends[16], at;
	unsigned char *buf = golden_zstd(&len);
	unsigned int status = 0;
	struct stream got;

	cr_assert_eq(zstd_frame_ends(buf, len, ends, ARRAY_SIZE(ends)), 4);
	/* early in the third frame: the second half of the records */
	at = ends[1] + 16;
	buf[at] ^= 0x55;
	stream__init(&got);
	cr_assert_eq(replay_mem(buf, len, &got, &status), 0);
	cr_assert(status & LS_TRACE_CORRUPT, "status %#x: %s", status, tf_err());
	cr_assert_gt(got.n, 0, "the first flush's records were lost");
	cr_assert_lt(got.n, tf.s.n);
	assert_prefix(&got, &tf.s, "corrupt frame");
	cr_assert_not_null(strstr(tf_err(), "reading stops there"), "%s", tf_err());
	stream__free(&got);
	free(buf);
}

/* A flipped byte anywhere: an open error, or a prefix of the records and a warning. */
Test(trace_zstd, every_flipped_byte)
{
	static const unsigned char flips[] = { 0x01, 0x80, 0xff };
	size_t len, off, k, noticed = 0;
	unsigned char *buf = golden_zstd(&len);

	for (off = 0; off < len; off++) {
		for (k = 0; k < sizeof(flips); k++) {
			struct stream got;
			unsigned int status = 0;
			char what[48];
			int rc;

			snprintf(what, sizeof(what), "byte %zu ^ %#x", off, flips[k]);
			buf[off] ^= flips[k];
			stream__init(&got);
			rc = replay_mem(buf, len, &got, &status);
			buf[off] ^= flips[k];
			if (rc) {
				cr_assert(rc == -EINVAL || rc == -EPROTONOSUPPORT, "%s: rc %d", what, rc);
			} else {
				assert_prefix(&got, &tf.s, what);
				cr_assert(got.n == tf.s.n || status, "%s: records lost unnoticed", what);
			}
			noticed += rc || status;
			stream__free(&got);
		}
	}
	cr_assert_gt(noticed, len);
	free(buf);
}

/* One zstd frame by hand: a window descriptor byte, then the payload as a raw block. */
static size_t zstd_raw_frame(unsigned char *out, unsigned char window, const void *p, size_t len)
{
	__u32 bh = 1 | (__u32)len << 3;	/* last block, raw */

	cr_assert_lt(len, 128u << 10);
	memcpy(out, zstd_magic, 4);
	out[4] = 0;			/* no content size, no checksum, a window descriptor */
	out[5] = window;
	out[6] = bh & 0xff;
	out[7] = bh >> 8 & 0xff;
	out[8] = bh >> 16 & 0xff;
	memcpy(out + 9, p, len);
	return 9 + len;
}

/* A zstd block: raw (the bytes) or RLE (one byte, n times); last ends the frame. */
static size_t zstd_block(unsigned char *out, bool rle, bool last, const void *p, size_t n)
{
	__u32 bh = (last ? 1 : 0) | (rle ? 2 : 0) | (__u32)n << 3;

	out[0] = bh & 0xff;
	out[1] = bh >> 8 & 0xff;
	out[2] = bh >> 16 & 0xff;
	memcpy(out + 3, p, rle ? 1 : n);
	return 3 + (rle ? 1 : n);
}

/*
 * A few kilobytes that inflate to 80 MiB of chunks a reader skips (an
 * unknown type, their CRCs right): refused once past the bound, not read
 * to the end.
 */
Test(trace_zstd, inflating_too_much_is_refused)
{
	const size_t chunk = 16u << 20, block = 128u << 10;
	struct ls_trace_chunk_hdr h = { .type = 99, .len = (__u32)chunk };
	unsigned char *fill = malloc(chunk), *z = malloc(64 << 10), hdr[64];
	unsigned int status = 0;
	size_t len, i, k;

	cr_assert(fill && z);
	memset(fill, 0x08, chunk);
	h.crc = ls_crc32(0, fill, chunk);
	h.hdr_crc = ls_crc32(0, &h, 12);
	memcpy(z, zstd_magic, 4);
	z[4] = 0;
	z[5] = (20 - 10) << 3;
	len = 6;
	for (i = 0; i < 5; i++) {
		size_t n = 0;

		if (!i)
			n = file_hdr(hdr, LS_TRACE_FORMAT, LS_ABI_VERSION, 24);
		memcpy(hdr + n, &h, sizeof(h));
		len += zstd_block(z + len, false, false, hdr, n + sizeof(h));
		for (k = 0; k < chunk / block; k++)
			len += zstd_block(z + len, true, i == 4 && k == chunk / block - 1, fill, block);
	}
	cr_assert_eq(replay_mem(z, len, NULL, &status), 0, "%s", tf_err());
	cr_assert(status & LS_TRACE_CORRUPT, "status %#x: %s", status, tf_err());
	cr_assert_not_null(strstr(tf_err(), "inflates over 4096 times"), "%s", tf_err());
	free(fill);
	free(z);
}

/* A frame that asks for a window past the bound is refused, not allocated. */
Test(trace_zstd, window_is_bounded)
{
	size_t len, zlen;
	unsigned char *raw, *z;
	unsigned int status = 0;
	struct stream got;

	trace_fixture__stream(&tf.s);
	cr_assert_eq(trace_fixture__write(tf.path, &tf.s), 0);
	raw = trace_fixture__slurp(tf.path, &len);
	z = malloc(len + 16);
	cr_assert(raw && z);
	/* window descriptor: exponent (log - 10) << 3; 1 MiB reads */
	zlen = zstd_raw_frame(z, (20 - 10) << 3, raw, len);
	stream__init(&got);
	cr_assert_eq(replay_mem(z, zlen, &got, &status), 0, "%s", tf_err());
	cr_assert_eq(status, 0, "status %#x: %s", status, tf_err());
	cr_assert_eq(got.n, tf.s.n);
	stream__free(&got);
	/* 1 GiB is refused */
	zlen = zstd_raw_frame(z, (30 - 10) << 3, raw, len);
	cr_assert_eq(replay_mem(z, zlen, NULL, &status), -EINVAL);
	cr_assert_not_null(strstr(tf_err(), "a frame asks for a window over 8 MiB"), "%s", tf_err());
	free(z);
	free(raw);
}

Test(trace_zstd, trailing_bytes_after_the_end)
{
	size_t len;
	unsigned char *buf = golden_zstd(&len);

	assert_trailing_ignored(buf, len);
}

/* A disk that fills up: the file is cut back to its last whole frame. */
Test(trace_zstd, write_error_leaves_a_readable_file)
{
	write_until_efbig(LS_TRACE_ZSTD_LEVEL, 8 * 1024, 500);
}

/* Two readers give the same metadata and the same records. */
static void assert_same_recording(const char *a, const char *b)
{
	struct trace_reader *ra, *rb;
	const char *ka, *kb, *va, *vb;
	struct stream ga, gb;
	size_t la, lb, i;

	cr_assert_eq(trace_reader__open(&ra, a, tf.errf), 0, "%s", tf_err());
	cr_assert_eq(trace_reader__open(&rb, b, tf.errf), 0, "%s", tf_err());
	stream__init(&ga);
	stream__init(&gb);
	cr_assert_eq(read_all(ra, &ga), read_all(rb, &gb));
	cr_assert_eq(ga.len, gb.len);
	cr_assert_eq(memcmp(ga.buf, gb.buf, ga.len), 0, "%s and %s: records differ", a, b);
	for (i = 0; !trace_reader__meta_at(ra, i, &ka, &va, &la); i++) {
		cr_assert_eq(trace_reader__meta_at(rb, i, &kb, &vb, &lb), 0, "%s: fewer metadata", b);
		cr_assert_str_eq(ka, kb);
		cr_assert(la == lb && !memcmp(va, vb, la), "%s differs", ka);
	}
	cr_assert_neq(trace_reader__meta_at(rb, i, &kb, &vb, &lb), 0, "%s: more metadata", b);
	cr_assert_eq(trace_reader__status(ra) | trace_reader__status(rb), 0, "%s", tf_err());
	cr_assert(trace_reader__compressed(rb));
	stream__free(&ga);
	stream__free(&gb);
	trace_reader__close(ra);
	trace_reader__close(rb);
}

/*
 * test/data/golden-zstd.lst: the golden run, compressed as record writes
 * it; it holds what test/data/golden.lst holds (so it reports the same).
 * LOCKSTALL_REGEN_GOLDEN=1 (make golden) writes it anew.
 */
Test(trace_zstd, committed_recording_reads_as_the_raw_one)
{
	char raw[256], z[256];

	snprintf(raw, sizeof(raw), "%s/golden.lst", trace_fixture__data_dir());
	snprintf(z, sizeof(z), "%s/golden-zstd.lst", trace_fixture__data_dir());
	if (getenv("LOCKSTALL_REGEN_GOLDEN")) {
		trace_fixture__stream(&tf.s);
		cr_assert_eq(trace_fixture__write_level(z, &tf.s, LS_TRACE_ZSTD_LEVEL), 0);
		chmod(z, 0644);
	}
	assert_same_recording(raw, z);
}

TestSuite(create_file, .init = tf_setup, .fini = tf_teardown);

Test(create_file, new_file_is_private)
{
	struct stat st;
	int fd = ls_create_file(tf.path, false, tf.errf);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(stat(tf.path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
}

Test(create_file, existing_needs_force)
{
	char *back;
	size_t n;
	int fd;

	write_file(tf.path, "keep", 4);
	cr_assert_eq(ls_create_file(tf.path, false, tf.errf), -EEXIST);
	cr_assert_not_null(strstr(tf_err(), "already exists: choose another name, or add --force"),
			   "%s", tf_err());
	back = (char *)trace_fixture__slurp(tf.path, &n);
	cr_assert_eq(n, 4, "the file was touched");
	free(back);
	fd = ls_create_file(tf.path, true, tf.errf);
	cr_assert_geq(fd, 0);
	close(fd);
	back = (char *)trace_fixture__slurp(tf.path, &n);
	cr_assert_eq(n, 0, "--force did not replace the file");
	free(back);
}

Test(create_file, symlink_is_never_followed)
{
	char target[160], link[160], *back;
	struct stat st;
	size_t n;
	int fd;

	snprintf(target, sizeof(target), "%s/target", tf.dir);
	snprintf(link, sizeof(link), "%s/link", tf.dir);
	write_file(target, "precious", 8);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(ls_create_file(link, false, tf.errf), -EEXIST);
	/* --force replaces the link itself, never what it points to */
	fd = ls_create_file(link, true, tf.errf);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "new", 3), 3);
	close(fd);
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISREG(st.st_mode), "the link is still a link");
	back = (char *)trace_fixture__slurp(target, &n);
	cr_assert_eq(n, 8);
	cr_assert_eq(memcmp(back, "precious", 8), 0, "written through the link");
	free(back);
}

Test(create_file, dangling_symlink_is_refused)
{
	char link[160];
	char target[160];

	snprintf(link, sizeof(link), "%s/link", tf.dir);
	snprintf(target, sizeof(target), "%s/nowhere", tf.dir);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(ls_create_file(link, false, tf.errf), -EEXIST);
	cr_assert_neq(access(target, F_OK), 0, "a file was created through the link");
}

Test(create_file, directory_is_refused)
{
	cr_assert_eq(ls_create_file(tf.dir, true, tf.errf), -EISDIR);
}

/* --force on /dev/null (or a FIFO) must not unlink it */
Test(create_file, special_files_are_never_replaced)
{
	char fifo[160];
	struct stat st;

	snprintf(fifo, sizeof(fifo), "%s/fifo", tf.dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(ls_create_file(fifo, true, tf.errf), -EPERM);
	cr_assert_not_null(strstr(tf_err(), "fifo: not a regular file: not replaced"), "%s", tf_err());
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode));
	cr_assert_eq(ls_create_file("/dev/null", true, tf.errf), -EPERM);
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode));
}

Test(create_file, missing_directory)
{
	char p[160];

	snprintf(p, sizeof(p), "%s/no/such/file", tf.dir);
	cr_assert_eq(ls_create_file(p, false, tf.errf), -ENOENT);
	cr_assert_not_null(strstr(tf_err(), "cannot create: No such file or directory"), "%s", tf_err());
}
