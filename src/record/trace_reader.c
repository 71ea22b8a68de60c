// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The trace file's reader (see trace_file.h for the layout).  It trusts
 * nothing: every length is checked against a bound before anything is
 * allocated or read, every chunk against its CRC, every record against
 * the chunk it sits in.  Damage ends the reading at the last good chunk
 * with one warning; it never ends the program.  A zstd stream is told
 * from a raw file by its magic, and its window and inflation are bounded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "record/trace_file.h"
#include "record/trace_internal.h"
#include "util.h"

struct meta_entry {
	char *key;
	char *val;		/* decoded, NUL-terminated */
	size_t len;
};

struct trace_reader {
	FILE *f;
	FILE *err;
	char *name;
	off_t off;		/* file offset of the next chunk */
	unsigned int chunks;	/* whole chunks read */
	unsigned int status;
	bool done;
	bool ended;		/* END chunk seen */
	unsigned char *buf;	/* payload of the current chunk */
	size_t alloc;
	size_t len;
	size_t pos;		/* next record in buf */
	bool in_records;	/* buf holds a RECORDS chunk */
	struct meta_entry *meta;
	size_t meta_n;
	size_t meta_alloc;
	size_t meta_bytes;
	__u32 abi;		/* LS_ABI_VERSION of the records */
	struct ls_rec_lock widened;	/* an older lock record, in today's layout */
	/* the file's bytes: raw, or through zstd */
	ZSTD_DCtx *zd;		/* NULL: a raw file */
	unsigned char *zin;	/* file bytes read, not yet used */
	size_t zin_alloc;
	ZSTD_inBuffer zib;
	__u64 zused;		/* file bytes used */
	__u64 zmade;		/* bytes they inflated to */
	bool zeof;
	bool zmid;		/* inside a frame (or its header): its end not seen */
	const char *zerr;	/* why decompressing stopped, if it did */
};

/* Raw: what the magic check kept back, then the file. */
static size_t reader__raw(struct trace_reader *r, unsigned char *dst, size_t len)
{
	size_t kept = r->zib.size - r->zib.pos, n = kept < len ? kept : len;

	memcpy(dst, r->zin + r->zib.pos, n);
	r->zib.pos += n;
	return n + (n < len ? fread(dst + n, 1, len - n, r->f) : 0);
}

static void reader__zerr(struct trace_reader *r, size_t ret)
{
	if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge)
		r->zerr = "a frame asks for a window over 8 MiB: decompress it with zstd -d first";
	else
		r->zerr = ZSTD_getErrorName(ret);
}

/*
 * Compressed: up to len bytes out of the stream.  Short at the end of the
 * file or at damage (r->zerr); the window is bounded, so is the memory.
 */
static ssize_t reader__inflate(struct trace_reader *r, unsigned char *dst, size_t len)
{
	ZSTD_outBuffer out = { .dst = dst, .size = len };

	while (out.pos < out.size && !r->zerr) {
		size_t in_was, out_was = out.pos, ret;

		if (r->zib.pos == r->zib.size && !r->zeof) {
			size_t n = fread(r->zin, 1, r->zin_alloc, r->f);

			if (!n && ferror(r->f))
				return -EIO;
			r->zeof = !n;
			r->zib = (ZSTD_inBuffer){ .src = r->zin, .size = n };
		}
		in_was = r->zib.pos;
		ret = ZSTD_decompressStream(r->zd, &out, &r->zib);
		r->zused += r->zib.pos - in_was;
		r->zmade += out.pos - out_was;
		if (ZSTD_isError(ret)) {
			reader__zerr(r, ret);
			break;
		}
		/* a few bytes that inflate to gigabytes of skipped chunks: no recording does that */
		if (r->zmade > LS_TRACE_ZSTD_RATIO_FROM && r->zmade / LS_TRACE_ZSTD_RATIO_MAX > r->zused) {
			r->zerr = "it inflates over 4096 times: not what lockstall writes";
			break;
		}
		if (r->zib.pos == in_was && out.pos == out_was) {
			if (r->zeof)
				break;
			continue;
		}
		r->zmid = ret != 0;
	}
	return (ssize_t)out.pos;
}

/*
 * Read up to len bytes at the current position, growing buf as data
 * actually arrives: a chunk header that claims 16 MiB in a 100-byte file
 * costs 100 bytes, not 16 MiB.  Returns the count read, or -errno.
 */
static ssize_t reader__read(struct trace_reader *r, size_t len)
{
	size_t got = 0, step;
	ssize_t n;
	int err;

	while (got < len) {
		step = len - got < 65536 ? len - got : 65536;
		err = buf__reserve(&r->buf, &r->alloc, got + step);
		if (err)
			return err;
		n = r->zd ? reader__inflate(r, r->buf + got, step) :
			    (ssize_t)reader__raw(r, r->buf + got, step);
		if (n < 0)
			return n;
		got += (size_t)n;
		if ((size_t)n < step) {
			if (ferror(r->f))
				return -EIO;
			break;
		}
	}
	return (ssize_t)got;
}

/* The first bytes say which: zstd's magic, or anything else, read raw. */
static int reader__source(struct trace_reader *r)
{
	static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	size_t n;

	r->zin_alloc = ZSTD_DStreamInSize();
	r->zin = malloc(r->zin_alloc);
	if (!r->zin)
		return -ENOMEM;
	n = fread(r->zin, 1, sizeof(zstd_magic), r->f);
	if (n < sizeof(zstd_magic) && ferror(r->f))
		return -EIO;
	r->zib = (ZSTD_inBuffer){ .src = r->zin, .size = n };
	if (n < sizeof(zstd_magic) || memcmp(r->zin, zstd_magic, sizeof(zstd_magic)))
		return 0;
	r->zd = ZSTD_createDCtx();
	if (!r->zd || ZSTD_isError(ZSTD_DCtx_setParameter(r->zd, ZSTD_d_windowLogMax,
							 LS_TRACE_ZSTD_WINDOW_LOG_MAX)))
		return -ENOMEM;
	return 0;
}

static int reader__meta_add(struct trace_reader *r, const char *key, size_t klen, const char *v,
			    size_t vlen)
{
	struct meta_entry *e;
	size_t i, o = 0;

	/* what an entry really costs, or a chunk of "a=\n" would cost 20 times its size */
	size_t cost = klen + vlen + sizeof(*e) + 32;

	if (r->meta_bytes + cost > LS_TRACE_MAX_META)
		return -E2BIG;
	if (r->meta_n == r->meta_alloc) {
		size_t n = r->meta_alloc ? r->meta_alloc * 2 : 32;

		e = realloc(r->meta, n * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->meta = e;
		r->meta_alloc = n;
	}
	e = &r->meta[r->meta_n];
	e->key = strndup(key, klen);
	e->val = malloc(vlen + 1);
	if (!e->key || !e->val) {
		free(e->key);
		free(e->val);
		return -ENOMEM;
	}
	for (i = 0; i < vlen; i++) {
		if (v[i] == '\\') {
			int hi, lo;

			if (i + 3 >= vlen || v[i + 1] != 'x' || (hi = ls_hexval(v[i + 2])) < 0 ||
			    (lo = ls_hexval(v[i + 3])) < 0)
				goto bad;
			e->val[o++] = (char)(hi << 4 | lo);
			i += 3;
		} else if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f) {
			goto bad;
		} else {
			e->val[o++] = v[i];
		}
	}
	e->val[o] = '\0';
	e->len = o;
	r->meta_n++;
	r->meta_bytes += cost;
	return 0;
bad:
	free(e->key);
	free(e->val);
	return -EINVAL;
}

/* A META payload: all of it valid, or none of it kept. */
static int reader__meta_chunk(struct trace_reader *r)
{
	const char *p = (const char *)r->buf, *end = p + r->len;
	size_t first = r->meta_n, bytes = r->meta_bytes;
	int err = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq = nl ? memchr(p, '=', (size_t)(nl - p)) : NULL;

		if (!eq || !meta__key_ok(p, (size_t)(eq - p))) {
			err = -EINVAL;
			break;
		}
		err = reader__meta_add(r, p, (size_t)(eq - p), eq + 1, (size_t)(nl - eq - 1));
		if (err)
			break;
		p = nl + 1;
	}
	if (!err)
		return 0;
	while (r->meta_n > first) {
		r->meta_n--;
		free(r->meta[r->meta_n].key);
		free(r->meta[r->meta_n].val);
	}
	r->meta_bytes = bytes;
	if (err == -ENOMEM)
		return err;
	r->status |= LS_TRACE_BAD_META;
	say(r->err, "%s: chunk %u: %s metadata: ignored", r->name, r->chunks + 1,
	    err == -E2BIG ? "too much" : "malformed");
	return 0;
}

/* Bytes of the file after what was read, for messages. */
static __u64 reader__rest(struct trace_reader *r)
{
	off_t end, from = r->zd ? (off_t)r->zused : r->off;

	if (fseeko(r->f, 0, SEEK_END) || (end = ftello(r->f)) < 0 || end < from)
		return 0;
	return (__u64)(end - from);
}

static void reader__stop_corrupt(struct trace_reader *r, const char *what)
{
	r->status |= LS_TRACE_CORRUPT;
	r->done = true;
	say(r->err, "%s: chunk %u at offset %lld%s is corrupt (%s): reading stops there, %llu bytes ignored",
	    r->name, r->chunks + 1, (long long)r->off, r->zd ? " (uncompressed)" : "", what,
	    (unsigned long long)reader__rest(r));
}

/* The zstd stream failed before the chunk it was reading was whole. */
static void reader__stop_zstd(struct trace_reader *r)
{
	r->status |= LS_TRACE_CORRUPT | LS_TRACE_NO_END;
	r->done = true;
	say(r->err, "%s: the compressed data is corrupt after %u whole chunks (zstd: %s): reading stops there, %llu bytes ignored",
	    r->name, r->chunks, r->zerr, (unsigned long long)reader__rest(r));
}

/* Nothing more to read where a chunk would start. */
static int reader__at_end(struct trace_reader *r)
{
	r->done = true;
	if (r->ended && r->zerr) {
		r->status |= LS_TRACE_TRAILING;
		say(r->err, "%s: bytes after the end mark that are not zstd: ignored", r->name);
	} else if (r->ended) {
		return 0;
	} else if (r->zerr) {
		reader__stop_zstd(r);
	} else {
		r->status |= LS_TRACE_NO_END | (r->zmid ? LS_TRACE_TRUNCATED : 0);
		say(r->err, "%s: the recording has no end mark: it was cut short (killed, power loss, disk full); reading all %u chunks there are",
		    r->name, r->chunks);
	}
	return 0;
}

/*
 * The fuzzer cannot forge CRCs: in its build they pass, so that it reaches
 * the metadata parser and the engine behind the reader (the unit tests
 * cover the checks themselves).
 */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define crc_differs(stored, computed)	((void)(computed), false)
#else
#define crc_differs(stored, computed)	((stored) != (computed))
#endif

/*
 * Load the next chunk into buf.  Returns 1 (a chunk: RECORDS or META,
 * handled), 0 at the end (r->done), or -errno.
 */
static int reader__chunk(struct trace_reader *r)
{
	struct ls_trace_chunk_hdr h;
	ssize_t n;
	int err;

	if (r->done)
		return 0;
	r->in_records = false;
	n = reader__read(r, sizeof(h));
	if (n < 0)
		return (int)n;
	if (n == 0)
		return reader__at_end(r);
	if (r->ended) {
		r->status |= LS_TRACE_TRAILING;
		r->done = true;
		if (r->zd)
			say(r->err, "%s: data after the end mark: ignored", r->name);
		else
			say(r->err, "%s: %llu bytes after the end mark: ignored", r->name,
			    (unsigned long long)reader__rest(r));
		return 0;
	}
	if ((size_t)n < sizeof(h))
		goto truncated;
	memcpy(&h, r->buf, sizeof(h));
	if (crc_differs(h.hdr_crc, ls_crc32(0, &h, offsetof(struct ls_trace_chunk_hdr, hdr_crc)))) {
		reader__stop_corrupt(r, "bad chunk header");
		return 0;
	}
	if (h.len > LS_TRACE_MAX_CHUNK) {
		reader__stop_corrupt(r, "chunk too long");
		return 0;
	}
	n = reader__read(r, h.len);
	if (n < 0)
		return (int)n;
	if ((size_t)n < h.len) {
		n += sizeof(h);
		goto truncated;
	}
	if (crc_differs(h.crc, ls_crc32(0, r->buf, h.len))) {
		reader__stop_corrupt(r, "checksum mismatch");
		return 0;
	}
	r->len = h.len;
	r->pos = 0;
	switch (h.type) {
	case LS_CHUNK_RECORDS:
		r->in_records = true;
		break;
	case LS_CHUNK_META:
		err = reader__meta_chunk(r);
		if (err)
			return err;
		break;
	case LS_CHUNK_END:
		r->ended = true;
		break;
	default:
		/* a later chunk type this version does not know: skipped, on purpose */
		break;
	}
	r->chunks++;
	r->off += (off_t)(sizeof(h) + h.len);
	return 1;

truncated:
	if (r->zerr) {
		reader__stop_zstd(r);
		return 0;
	}
	r->status |= LS_TRACE_TRUNCATED | LS_TRACE_NO_END;
	r->done = true;
	say(r->err, "%s: the recording was cut short: its last chunk is incomplete, %zd bytes lost; reading the %u whole chunks before it",
	    r->name, n, r->chunks);
	return 0;
}

/*
 * Lock records of ABI versions 1 and 2 lack cgroup_id, their only
 * difference from today's: hand them on in today's layout, cgroup_id 0
 * (unknown), so the engine knows one layout.  Before version 4 the lock's
 * kind and owner fields were padding: cleared, so they read as mmap_lock
 * and no owner whatever the padding held.  Any other size is passed on
 * as it is, for the engine to count as malformed.
 */
static void reader__widen(struct trace_reader *r, const void **rec, size_t *len)
{
	const struct ls_hdr *h = *rec;
	size_t old_len = r->abi >= 3 ? sizeof(r->widened) : LS_REC_LOCK_V1_SIZE;

	if (r->abi >= 4 || *len != old_len ||
	    (h->type != LS_REC_WAIT_BEGIN && h->type != LS_REC_WAIT_END && h->type != LS_REC_HOLD))
		return;
	memset(&r->widened, 0, sizeof(r->widened));
	memcpy(&r->widened, h, *len);
	r->widened.hdr.size = sizeof(r->widened);
	r->widened.lock.kind = LS_LOCK_MMAP;
	memset(r->widened.lock.pad, 0, sizeof(r->widened.lock.pad));
	r->widened.owner_how = LS_OWNER_NONE;
	r->widened.owner_tid = 0;
	*rec = &r->widened;
	*len = sizeof(r->widened);
}

int trace_reader__next_record(struct trace_reader *r, const void **rec, size_t *len)
{
	const struct ls_hdr *h;
	int err;

	for (;;) {
		if (r->in_records && r->pos < r->len) {
			size_t left = r->len - r->pos;

			h = (const struct ls_hdr *)(r->buf + r->pos);
			/* a good CRC over bad framing: a buggy or crafted writer */
			if (left < sizeof(*h) || h->size < sizeof(*h) || h->size % 8 ||
			    h->size > left) {
				r->in_records = false;
				r->status |= LS_TRACE_CORRUPT;
				r->done = true;
				say(r->err, "%s: chunk %u holds a malformed record at byte %zu: reading stops there",
				    r->name, r->chunks, r->pos);
				return 0;
			}
			*rec = h;
			*len = h->size;
			r->pos += h->size;
			reader__widen(r, rec, len);
			return 1;
		}
		err = reader__chunk(r);
		if (err <= 0) {
			if (err < 0)
				say(r->err, "%s: cannot read: %s", r->name, strerror(-err));
			return err;
		}
	}
}

int trace_reader__skip_to_end(struct trace_reader *r)
{
	int err;

	r->in_records = false;
	while ((err = reader__chunk(r)) > 0)
		r->in_records = false;
	if (err < 0)
		say(r->err, "%s: cannot read: %s", r->name, strerror(-err));
	return err;
}

static int reader__header(struct trace_reader *r)
{
	struct ls_trace_file_hdr h;
	ssize_t n;

	n = reader__read(r, sizeof(h));
	if (n < 0) {
		say(r->err, "%s: cannot read: %s", r->name, strerror((int)-n));
		return (int)n;
	}
	if ((size_t)n < sizeof(h) && r->zerr) {
		say(r->err, "%s: zstd-compressed, but unreadable from its start (zstd: %s): nothing to read",
		    r->name, r->zerr);
		return -EINVAL;
	}
	if ((size_t)n < sizeof(h.magic) || memcmp(r->buf, LS_TRACE_MAGIC, sizeof(h.magic))) {
		say(r->err, "%s: not a lockstall recording", r->name);
		return -EINVAL;
	}
	if ((size_t)n < sizeof(h)) {
		say(r->err, "%s: cut short in its header (%zd bytes): nothing to read", r->name, n);
		return -EINVAL;
	}
	memcpy(&h, r->buf, sizeof(h));
	/* flags are for a later format to say what it needs: none known yet */
	if (h.format > LS_TRACE_FORMAT || h.abi > LS_ABI_VERSION || h.flags) {
		say(r->err, "%s: recorded by a newer lockstall (format %u, records version %u): upgrade lockstall to read it",
		    r->name, h.format, h.abi);
		return -EPROTONOSUPPORT;
	}
	if (h.format < 1 || h.abi < LS_ABI_VERSION_MIN || h.hdr_len < sizeof(h) ||
	    h.hdr_len > LS_TRACE_MAX_HDR) {
		say(r->err, "%s: not a lockstall recording (format %u, records version %u, header %u bytes)",
		    r->name, h.format, h.abi, h.hdr_len);
		return -EINVAL;
	}
	/* fields a later format appended: not ours to read */
	n = reader__read(r, h.hdr_len - sizeof(h));
	if (n < 0)
		return (int)n;
	if ((size_t)n < h.hdr_len - sizeof(h)) {
		say(r->err, "%s: cut short in its header: nothing to read", r->name);
		return -EINVAL;
	}
	r->off = h.hdr_len;
	r->abi = h.abi;
	return 0;
}

int trace_reader__open_stream(struct trace_reader **out, FILE *f, const char *name, FILE *err)
{
	struct trace_reader *r;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->name = strdup(name))) {
		free(r);
		fclose(f);
		say(err, "%s: cannot read: %s", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	r->f = f;
	r->err = err;
	rc = reader__source(r);
	if (rc) {
		say(err, "%s: cannot read: %s", name, strerror(-rc));
		goto fail;
	}
	rc = reader__header(r);
	if (rc)
		goto fail;
	/* the metadata that leads the file says how the run was made: read it now */
	for (;;) {
		rc = reader__chunk(r);
		if (rc < 0) {
			say(err, "%s: cannot read: %s", name, strerror(-rc));
			goto fail;
		}
		if (rc == 0 || r->in_records || r->ended)
			break;
	}
	*out = r;
	return 0;
fail:
	trace_reader__close(r);
	return rc;
}

int trace_reader__open(struct trace_reader **out, const char *path, FILE *err)
{
	struct stat st;
	FILE *f = NULL;
	int fd;

	*out = NULL;
	/*
	 * Not blocking on a FIFO that no one writes yet: the stop signals
	 * restart the open (SA_RESTART), so it would wait past Ctrl-C.  Such
	 * a FIFO reads as empty; reads block again once it is open.
	 */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && fcntl(fd, F_SETFL, 0) == 0)
		f = fdopen(fd, "r");
	if (!f) {
		int rc = -errno;

		if (fd >= 0)
			close(fd);
		say(err, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		say(err, "%s: is a directory, not a lockstall recording", path);
		return -EISDIR;
	}
	return trace_reader__open_stream(out, f, path, err);
}

const char *trace_reader__meta(const struct trace_reader *r, const char *key, size_t *len)
{
	size_t i;

	for (i = r->meta_n; i-- > 0;) {
		if (!strcmp(r->meta[i].key, key)) {
			if (len)
				*len = r->meta[i].len;
			return r->meta[i].val;
		}
	}
	return NULL;
}

int trace_reader__meta_at(const struct trace_reader *r, size_t i, const char **key,
			  const char **val, size_t *len)
{
	if (i >= r->meta_n)
		return -ENOENT;
	*key = r->meta[i].key;
	*val = r->meta[i].val;
	if (len)
		*len = r->meta[i].len;
	return 0;
}

unsigned int trace_reader__status(const struct trace_reader *r)
{
	return r->status;
}

bool trace_reader__compressed(const struct trace_reader *r)
{
	return r->zd;
}

void trace_reader__close(struct trace_reader *r)
{
	size_t i;

	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	for (i = 0; i < r->meta_n; i++) {
		free(r->meta[i].key);
		free(r->meta[i].val);
	}
	free(r->meta);
	free(r->buf);
	ZSTD_freeDCtx(r->zd);
	free(r->zin);
	free(r->name);
	free(r);
}
