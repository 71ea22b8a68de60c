// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Trace files: see trace_file.h for the layout.
 *
 * The reader trusts nothing: every length is checked against a bound
 * before anything is allocated or read, every chunk against its CRC, every
 * record against the chunk it sits in.  Damage ends the reading at the last
 * good chunk with one warning; it never ends the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "record/trace_file.h"
#include "util.h"

/* CRC-32 ------------------------------------------------------------------ */

/*
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xedb88320: zlib's), table
 * entry i = the CRC of byte i.  A constant, so no state to initialise.
 */
static const __u32 crc_table[256] = {
	0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419, 0x706af48f,
	0xe963a535, 0x9e6495a3, 0x0edb8832, 0x79dcb8a4, 0xe0d5e91e, 0x97d2d988,
	0x09b64c2b, 0x7eb17cbd, 0xe7b82d07, 0x90bf1d91, 0x1db71064, 0x6ab020f2,
	0xf3b97148, 0x84be41de, 0x1adad47d, 0x6ddde4eb, 0xf4d4b551, 0x83d385c7,
	0x136c9856, 0x646ba8c0, 0xfd62f97a, 0x8a65c9ec, 0x14015c4f, 0x63066cd9,
	0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4, 0xa2677172,
	0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b, 0x35b5a8fa, 0x42b2986c,
	0xdbbbc9d6, 0xacbcf940, 0x32d86ce3, 0x45df5c75, 0xdcd60dcf, 0xabd13d59,
	0x26d930ac, 0x51de003a, 0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423,
	0xcfba9599, 0xb8bda50f, 0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924,
	0x2f6f7c87, 0x58684c11, 0xc1611dab, 0xb6662d3d, 0x76dc4190, 0x01db7106,
	0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f, 0x9fbfe4a5, 0xe8b8d433,
	0x7807c9a2, 0x0f00f934, 0x9609a88e, 0xe10e9818, 0x7f6a0dbb, 0x086d3d2d,
	0x91646c97, 0xe6635c01, 0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e,
	0x6c0695ed, 0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950,
	0x8bbeb8ea, 0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3, 0xfbd44c65,
	0x4db26158, 0x3ab551ce, 0xa3bc0074, 0xd4bb30e2, 0x4adfa541, 0x3dd895d7,
	0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a, 0x346ed9fc, 0xad678846, 0xda60b8d0,
	0x44042d73, 0x33031de5, 0xaa0a4c5f, 0xdd0d7cc9, 0x5005713c, 0x270241aa,
	0xbe0b1010, 0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409, 0xce61e49f,
	0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17, 0x2eb40d81,
	0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6, 0x03b6e20c, 0x74b1d29a,
	0xead54739, 0x9dd277af, 0x04db2615, 0x73dc1683, 0xe3630b12, 0x94643b84,
	0x0d6d6a3e, 0x7a6a5aa8, 0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1,
	0xf00f9344, 0x8708a3d2, 0x1e01f268, 0x6906c2fe, 0xf762575d, 0x806567cb,
	0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0, 0x10da7a5a, 0x67dd4acc,
	0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5, 0xd6d6a3e8, 0xa1d1937e,
	0x38d8c2c4, 0x4fdff252, 0xd1bb67f1, 0xa6bc5767, 0x3fb506dd, 0x48b2364b,
	0xd80d2bda, 0xaf0a1b4c, 0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55,
	0x316e8eef, 0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236,
	0xcc0c7795, 0xbb0b4703, 0x220216b9, 0x5505262f, 0xc5ba3bbe, 0xb2bd0b28,
	0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7, 0xb5d0cf31, 0x2cd99e8b, 0x5bdeae1d,
	0x9b64c2b0, 0xec63f226, 0x756aa39c, 0x026d930a, 0x9c0906a9, 0xeb0e363f,
	0x72076785, 0x05005713, 0x95bf4a82, 0xe2b87a14, 0x7bb12bae, 0x0cb61b38,
	0x92d28e9b, 0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
	0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1, 0x18b74777,
	0x88085ae6, 0xff0f6a70, 0x66063bca, 0x11010b5c, 0x8f659eff, 0xf862ae69,
	0x616bffd3, 0x166ccf45, 0xa00ae278, 0xd70dd2ee, 0x4e048354, 0x3903b3c2,
	0xa7672661, 0xd06016f7, 0x4969474d, 0x3e6e77db, 0xaed16a4a, 0xd9d65adc,
	0x40df0b66, 0x37d83bf0, 0xa9bcae53, 0xdebb9ec5, 0x47b2cf7f, 0x30b5ffe9,
	0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605, 0xcdd70693,
	0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8, 0x5d681b02, 0x2a6f2b94,
	0xb40bbe37, 0xc30c8ea1, 0x5a05df1b, 0x2d02ef8d,
};

__u32 ls_crc32(__u32 crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void chunk_hdr__fill(struct ls_trace_chunk_hdr *h, __u32 type, const void *payload, __u32 len)
{
	h->type = type;
	h->len = len;
	h->crc = ls_crc32(0, payload, len);
	h->hdr_crc = ls_crc32(0, h, offsetof(struct ls_trace_chunk_hdr, hdr_crc));
}

/* Safe create ---------------------------------------------------------------- */

static void say(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(FILE *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	fputs("lockstall: ", err);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
}

int ls_create_file(const char *path, bool force, FILE *err)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd;

	fd = open(path, flags, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EEXIST) {
		fd = -errno;
		say(err, "%s: cannot create: %s", path, strerror(-fd));
		return fd;
	}
	if (!force) {
		say(err, "%s: already exists: choose another name, or add --force to replace it", path);
		return -EEXIST;
	}
	/* lstat, not stat: a symlink is replaced, whatever it points to is left alone */
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		say(err, "%s: is a directory", path);
		return -EISDIR;
	}
	/* --force replaces files, never a device, a pipe or a socket someone else made */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		say(err, "%s: not a regular file: not replaced", path);
		return -EPERM;
	}
	if (unlink(path) && errno != ENOENT) {
		fd = -errno;
		say(err, "%s: cannot replace: %s", path, strerror(-fd));
		return fd;
	}
	/* O_EXCL again: if someone put a new file or link there meanwhile, we fail */
	fd = open(path, flags, 0600);
	if (fd < 0) {
		fd = -errno;
		say(err, "%s: cannot create: %s", path, strerror(-fd));
	}
	return fd;
}

/* Writer ------------------------------------------------------------------- */

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

static int buf__reserve(unsigned char **buf, size_t *alloc, size_t need)
{
	size_t n = *alloc ? *alloc : 4096;
	void *p;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*alloc = n;
	return 0;
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
			writer__note(w, r->mm.tgid, r->mm.comm, 2);
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

static bool meta__key_ok(const char *k, size_t len)
{
	size_t i;

	if (!len || len > 64)
		return false;
	for (i = 0; i < len; i++) {
		char c = k[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
			return false;
	}
	return true;
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

/* Reader ------------------------------------------------------------------- */

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
	r->widened.mm.kind = LS_LOCK_MMAP;
	memset(r->widened.mm.pad, 0, sizeof(r->widened.mm.pad));
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
	FILE *f;

	*out = NULL;
	f = fopen(path, "re");
	if (!f) {
		int rc = -errno;

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
