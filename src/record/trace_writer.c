// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The trace file's writer (see trace_file.h for the layout): records
 * batched into RECORDS chunks, metadata queued into META chunks, each
 * chunk out with one write, raw or as a zstd stream whose frames end at
 * each flush; a short write cuts the file back to its last whole chunk.
 * It keeps the names of the processes its records named, for the
 * recording's metadata.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <zstd.h>
#include "record/trace_file.h"
#include "record/trace_internal.h"

#define PROCS_MIN	256
#define PROCS_MAX	65536	/* a bound on memory; beyond it processes are counted */

struct proc_slot {
	__u32 tgid;		/* 0: empty */
	__u8 quality;		/* how sure the comm is the process's: see writer__note */
	char comm[LS_COMM_LEN];
};

struct trace_writer {
	int fd;
	char *name;
	int err;		/* first write error */
	off_t good_off;		/* end of the last whole chunk (compressed: frame) */
	bool started;		/* the file header is out */
	int level;		/* zstd level; 0: raw */
	ZSTD_CCtx *zc;		/* the stream, once started compressed */
	bool zopen;		/* a frame holds data not ended yet */
	unsigned char *zout;	/* compressed bytes on their way to the file */
	size_t zout_len;
	unsigned char *buf;	/* records of the chunk being filled */
	size_t len;
	size_t alloc;
	char *meta;		/* queued metadata lines */
	size_t meta_len;
	size_t meta_alloc;
	struct proc_slot *procs;
	size_t procs_n;
	size_t procs_alloc;	/* a power of two */
	struct trace_writer_stats stats;
};

static void chunk_hdr__fill(struct ls_trace_chunk_hdr *h, __u32 type, const void *payload, __u32 len)
{
	h->type = type;
	h->len = len;
	h->crc = ls_crc32(0, payload, len);
	h->hdr_crc = ls_crc32(0, h, offsetof(struct ls_trace_chunk_hdr, hdr_crc));
}

/*
 * All of iov to the file, or on a short write (disk full) the file cut
 * back to good_off, so that it stays readable to its last whole chunk.
 */
static int writer__write(struct trace_writer *w, struct iovec *iov, int cnt, size_t total)
{
	size_t done = 0;
	ssize_t n;

	while (done < total) {
		n = writev(w->fd, iov, cnt);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->err = n < 0 ? -errno : -ENOSPC;
			/* best effort: a half chunk would only read as "cut short" */
			if (ftruncate(w->fd, w->good_off) == 0)
				lseek(w->fd, w->good_off, SEEK_SET);
			return w->err;
		}
		done += (size_t)n;
		/* advance the iovecs past what went out */
		while (n > 0) {
			struct iovec *v = iov[0].iov_len || cnt == 1 ? &iov[0] : &iov[1];
			size_t k = (size_t)n < v->iov_len ? (size_t)n : v->iov_len;

			v->iov_base = (char *)v->iov_base + k;
			v->iov_len -= k;
			n -= (ssize_t)k;
		}
	}
	w->stats.bytes += total;
	return 0;
}

/* Bytes into the zstd stream; what comes out goes to the file as it comes. */
static int writer__compress(struct trace_writer *w, const void *p, size_t len, ZSTD_EndDirective how)
{
	ZSTD_inBuffer in = { .src = p, .size = len };
	size_t left;
	int err;

	do {
		ZSTD_outBuffer out = { .dst = w->zout, .size = w->zout_len };
		struct iovec v;

		left = ZSTD_compressStream2(w->zc, &out, &in, how);
		if (ZSTD_isError(left))
			return w->err = -ENOMEM;
		v = (struct iovec){ .iov_base = w->zout, .iov_len = out.pos };
		err = out.pos ? writer__write(w, &v, 1, out.pos) : 0;
		if (err)
			return err;
	} while (how == ZSTD_e_continue ? in.pos < in.size : left != 0);
	w->zopen = how == ZSTD_e_continue;
	return 0;
}

/* The file's bytes, raw or into the stream; good_off moves at chunk or frame ends. */
static int writer__put(struct trace_writer *w, struct iovec *iov, int cnt)
{
	size_t total = 0;
	int i, err = 0;

	for (i = 0; i < cnt; i++)
		total += iov[i].iov_len;
	if (w->zc) {
		for (i = 0; i < cnt && !err; i++)
			err = writer__compress(w, iov[i].iov_base, iov[i].iov_len, ZSTD_e_continue);
		return err;
	}
	err = writer__write(w, iov, cnt, total);
	if (!err)
		w->good_off += (off_t)total;
	return err;
}

/* End the open frame: what it holds can be read even if nothing more is written. */
static int writer__end_frame(struct trace_writer *w)
{
	int err;

	if (!w->zc || !w->zopen || w->err)
		return w->err;
	err = writer__compress(w, NULL, 0, ZSTD_e_end);
	if (!err)
		w->good_off = (off_t)w->stats.bytes;
	return err;
}

/* The file header, first thing in the file (or the stream). */
static int writer__start(struct trace_writer *w)
{
	struct ls_trace_file_hdr h;
	struct iovec v = { .iov_base = &h, .iov_len = sizeof(h) };

	if (w->started)
		return 0;
	w->started = true;
	if (w->level) {
		w->zout_len = ZSTD_CStreamOutSize();
		w->zout = malloc(w->zout_len);
		w->zc = ZSTD_createCCtx();
		if (!w->zout || !w->zc ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, w->level)))
			return w->err = -ENOMEM;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, LS_TRACE_MAGIC, sizeof(h.magic));
	h.format = LS_TRACE_FORMAT;
	h.abi = LS_ABI_VERSION;
	h.hdr_len = sizeof(h);
	return writer__put(w, &v, 1);
}

/* One chunk, one writev() (raw) or one piece of the stream. */
static int writer__chunk(struct trace_writer *w, __u32 type, const void *payload, size_t len)
{
	struct ls_trace_chunk_hdr h;
	struct iovec iov[2];
	int err;

	if (w->err)
		return w->err;
	err = writer__start(w);
	if (err)
		return err;
	chunk_hdr__fill(&h, type, payload, (__u32)len);
	iov[0] = (struct iovec){ .iov_base = &h, .iov_len = sizeof(h) };
	iov[1] = (struct iovec){ .iov_base = (void *)payload, .iov_len = len };
	return writer__put(w, iov, len ? 2 : 1);
}

int trace_writer__fdopen(struct trace_writer **out, int fd, const char *name)
{
	struct trace_writer *w;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->name = strdup(name))) {
		free(w);
		close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	w->level = LS_TRACE_ZSTD_LEVEL;
	*out = w;
	return 0;
}

int trace_writer__compress(struct trace_writer *w, int level)
{
	if (level < 0 || level > LS_TRACE_ZSTD_LEVEL_MAX)
		return -EINVAL;
	if (w->started)
		return -EBUSY;
	w->level = level;
	return 0;
}

int trace_writer__create(struct trace_writer **out, const char *path, bool force, FILE *err)
{
	int fd, rc;

	*out = NULL;
	fd = ls_create_file(path, force, err);
	if (fd < 0)
		return fd;
	rc = trace_writer__fdopen(out, fd, path);
	if (rc)
		say(err, "%s: cannot write: %s", path, strerror(-rc));
	return rc;
}

static __u32 tgid_hash(__u32 tgid)
{
	return tgid * 2654435761u;
}

static struct proc_slot *procs__slot(struct proc_slot *v, size_t alloc, __u32 tgid)
{
	size_t i = tgid_hash(tgid) & (alloc - 1);

	while (v[i].tgid && v[i].tgid != tgid)
		i = (i + 1) & (alloc - 1);
	return &v[i];
}

static int procs__grow(struct trace_writer *w)
{
	size_t alloc = w->procs_alloc ? w->procs_alloc * 2 : PROCS_MIN, i;
	struct proc_slot *v = calloc(alloc, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < w->procs_alloc; i++) {
		if (w->procs[i].tgid)
			*procs__slot(v, alloc, w->procs[i].tgid) = w->procs[i];
	}
	free(w->procs);
	w->procs = v;
	w->procs_alloc = alloc;
	return 0;
}

/*
 * quality 2: the comm of the main thread (tid == tgid) or the mm's owner,
 * i.e. the process's own name; 1: some thread's name.  Cheap: a hash probe
 * per task a record names, no system call.
 */
static void writer__note(struct trace_writer *w, __u32 tgid, const char comm[LS_COMM_LEN],
			 __u8 quality)
{
	struct proc_slot *s;

	if (!tgid)
		return;
	if (w->procs_alloc && (s = procs__slot(w->procs, w->procs_alloc, tgid))->tgid) {
		if (quality > s->quality) {
			memcpy(s->comm, comm, LS_COMM_LEN);
			s->quality = quality;
		}
		return;
	}
	if ((w->procs_n + 1) * 2 > w->procs_alloc) {
		if (w->procs_alloc >= PROCS_MAX * 2 || procs__grow(w)) {
			w->stats.procs_dropped++;
			return;
		}
	}
	s = procs__slot(w->procs, w->procs_alloc, tgid);
	s->tgid = tgid;
	s->quality = quality;
	memcpy(s->comm, comm, LS_COMM_LEN);
	w->procs_n++;
	w->stats.procs = w->procs_n;
}

static void writer__note_task(struct trace_writer *w, const struct ls_task *t)
{
	writer__note(w, t->tgid, t->comm, t->tid == t->tgid ? 2 : 1);
}

static void writer__note_record(struct trace_writer *w, const void *rec, size_t len)
{
	const struct ls_hdr *h = rec;

	switch (h->type) {
	case LS_REC_WAIT_BEGIN:
	case LS_REC_WAIT_END:
	case LS_REC_HOLD:
		if (len >= sizeof(struct ls_rec_lock)) {
			const struct ls_rec_lock *r = rec;

			writer__note_task(w, &r->task);
			writer__note(w, r->lock.tgid, r->lock.comm, 2);
		}
		break;
	case LS_REC_SWITCH:
		if (len >= sizeof(struct ls_rec_switch)) {
			const struct ls_rec_switch *r = rec;

			writer__note_task(w, &r->prev);
			writer__note_task(w, &r->next);
		}
		break;
	case LS_REC_WAKEUP:
		if (len >= sizeof(struct ls_rec_wakeup)) {
			const struct ls_rec_wakeup *r = rec;

			writer__note_task(w, &r->wakee);
			writer__note_task(w, &r->waker);
			writer__note_task(w, &r->target_curr);
		}
		break;
	case LS_REC_MIGRATE:
		if (len >= sizeof(struct ls_rec_migrate)) {
			const struct ls_rec_migrate *r = rec;

			writer__note_task(w, &r->task);
			writer__note_task(w, &r->dest_curr);
		}
		break;
	case LS_REC_EXIT:
		if (len >= sizeof(struct ls_rec_exit))
			writer__note_task(w, &((const struct ls_rec_exit *)rec)->task);
		break;
	case LS_REC_HIST:
		if (len >= sizeof(struct ls_rec_hist)) {
			const struct ls_rec_hist *r = rec;

			writer__note(w, r->key.tgid, r->hist.comm, 1);
		}
		break;
	}
}

/* The buffered records as a chunk; compressed, the frame stays open. */
static int writer__records(struct trace_writer *w)
{
	int err;

	if (!w->len)
		return w->err;
	err = writer__chunk(w, LS_CHUNK_RECORDS, w->buf, w->len);
	w->len = 0;
	return err;
}

int trace_writer__record(struct trace_writer *w, const void *rec, size_t len)
{
	const struct ls_hdr *h = rec;
	int err;

	if (w->err)
		return w->err;
	/* the file frames records by hdr.size: a record that disagrees cannot be stored */
	if (len < sizeof(*h) || len % 8 || h->size != len) {
		w->stats.unrecordable++;
		return 0;
	}
	writer__note_record(w, rec, len);
	if (w->len + len > LS_TRACE_CHUNK_TARGET) {
		err = writer__records(w);
		if (err)
			return err;
	}
	err = buf__reserve(&w->buf, &w->alloc, w->len + len);
	if (err)
		return w->err = err;
	memcpy(w->buf + w->len, rec, len);
	w->len += len;
	w->stats.records++;
	return 0;
}

int trace_writer__flush(struct trace_writer *w)
{
	return writer__records(w) ?: writer__end_frame(w);
}

/*
 * Values: any bytes.  Control bytes, DEL and the backslash become \xNN, so
 * a value is one line and a reader gets back exactly what was written.
 */
static size_t meta__escape(char *out, const unsigned char *v, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (v[i] < 0x20 || v[i] == 0x7f || v[i] == '\\') {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[v[i] >> 4];
			out[o++] = hex[v[i] & 0xf];
		} else {
			out[o++] = (char)v[i];
		}
	}
	return o;
}

int trace_writer__meta(struct trace_writer *w, const char *key, const void *val, size_t len)
{
	size_t klen = strlen(key), need;
	int err;

	if (!meta__key_ok(key, klen) || len > LS_TRACE_MAX_CHUNK / 8)
		return -EINVAL;
	need = w->meta_len + klen + 1 + 4 * len + 1;
	/* many entries: more chunks, each well below the readers' bound */
	if (need > LS_TRACE_MAX_CHUNK / 4 && w->meta_len) {
		err = trace_writer__meta_flush(w);
		if (err)
			return err;
		need = klen + 1 + 4 * len + 1;
	}
	err = buf__reserve((unsigned char **)&w->meta, &w->meta_alloc, need);
	if (err)
		return err;
	memcpy(w->meta + w->meta_len, key, klen);
	w->meta_len += klen;
	w->meta[w->meta_len++] = '=';
	w->meta_len += meta__escape(w->meta + w->meta_len, val, len);
	w->meta[w->meta_len++] = '\n';
	return 0;
}

int trace_writer__meta_str(struct trace_writer *w, const char *key, const char *val)
{
	return trace_writer__meta(w, key, val, strlen(val));
}

int trace_writer__meta_u64(struct trace_writer *w, const char *key, __u64 v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return trace_writer__meta_str(w, key, buf);
}

int trace_writer__meta_s64(struct trace_writer *w, const char *key, __s64 v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return trace_writer__meta_str(w, key, buf);
}

int trace_writer__meta_flush(struct trace_writer *w)
{
	int err;

	/* metadata applies from where it sits: records before it go first */
	err = writer__records(w);
	if (!err && w->meta_len)
		err = writer__chunk(w, LS_CHUNK_META, w->meta, w->meta_len);
	w->meta_len = 0;
	return err ?: writer__end_frame(w);
}

void trace_writer__procs(struct trace_writer *w,
			 void (*fn)(void *ctx, __u32 tgid, const char comm[LS_COMM_LEN]), void *ctx)
{
	size_t i;

	for (i = 0; i < w->procs_alloc; i++) {
		if (w->procs[i].tgid)
			fn(ctx, w->procs[i].tgid, w->procs[i].comm);
	}
}

int trace_writer__error(const struct trace_writer *w)
{
	return w->err;
}

void trace_writer__stats(const struct trace_writer *w, struct trace_writer_stats *out)
{
	*out = w->stats;
}

int trace_writer__close(struct trace_writer *w)
{
	int err;

	if (!w)
		return 0;
	trace_writer__meta_flush(w);
	writer__chunk(w, LS_CHUNK_END, NULL, 0);
	writer__end_frame(w);
	/* a recording is for after a crash: make sure it is on disk */
	if (!w->err && fsync(w->fd) && errno != EINVAL)
		w->err = -errno;
	if (close(w->fd) && !w->err && errno != EINTR)
		w->err = -errno;
	err = w->err;
	ZSTD_freeCCtx(w->zc);
	free(w->zout);
	free(w->buf);
	free(w->meta);
	free(w->procs);
	free(w->name);
	free(w);
	return err;
}
