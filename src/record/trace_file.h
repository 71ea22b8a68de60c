/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Trace files: the records of a run (include/lockstall/abi.h) as they came,
 * plus metadata, so that `lockstall report` replays them into the same
 * engine and prints what `watch` printed.  Pure C: no libbpf, no /proc.
 *
 * Layout (host byte order: the records are raw structs; x86_64 only):
 *
 *	file header   struct ls_trace_file_hdr (24 bytes, hdr_len says how
 *	              many: a later format may append fields, readers skip them)
 *	chunk*        struct ls_trace_chunk_hdr (16 bytes) + payload
 *
 * Chunk types:
 *	RECORDS  records back to back exactly as abi.h lays them out; each
 *	         starts with struct ls_hdr, hdr.size a multiple of 8
 *	META     "key=value\n" lines; see trace_meta_escape() for the values
 *	END      empty: the recording was closed cleanly
 * Unknown chunk types are skipped (their CRC still checked), so new chunk
 * types need no format bump; any other change does.
 *
 * A chunk is written with one write(), never modified: a file cut short
 * (kill -9, power loss, full disk) reads up to its last whole chunk.
 *
 * Compressed (the default): the same bytes, header and chunks, as a zstd
 * stream; each writer flush ends a frame, so a file cut short still reads
 * up to its last whole frame (and the whole blocks of the next).  Readers
 * tell the two apart by the first four bytes (zstd's magic) and bound the
 * window a frame may ask for and how much a stream may inflate.
 */
#ifndef LOCKSTALL_TRACE_FILE_H
#define LOCKSTALL_TRACE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <lockstall/abi.h>

#define LS_TRACE_MAGIC		"LOCKSTAL"	/* 8 bytes, no NUL */
#define LS_TRACE_FORMAT		1
#define LS_TRACE_MAX_CHUNK	(16u << 20)	/* payload bound: hostile files stay cheap */
#define LS_TRACE_MAX_HDR	4096		/* file header bound */
#define LS_TRACE_MAX_META	(32u << 20)	/* metadata kept in memory, all chunks */
#define LS_TRACE_CHUNK_TARGET	(256u << 10)	/* records per chunk, before a flush */
#define LS_TRACE_ZSTD_LEVEL	3		/* the default compression level */
#define LS_TRACE_ZSTD_LEVEL_MAX	19		/* zstd's levels past it need larger windows */
#define LS_TRACE_ZSTD_WINDOW_LOG_MAX 23		/* readers refuse frames wanting over 8 MiB */
#define LS_TRACE_ZSTD_RATIO_MAX	4096		/* ... and streams that inflate more, */
#define LS_TRACE_ZSTD_RATIO_FROM (64u << 20)	/* once this much came out */

enum ls_trace_chunk_type {
	LS_CHUNK_RECORDS = 1,
	LS_CHUNK_META = 2,
	LS_CHUNK_END = 3,
};

struct ls_trace_file_hdr {
	char magic[8];		/* LS_TRACE_MAGIC */
	__u32 format;		/* LS_TRACE_FORMAT of the writer */
	__u32 abi;		/* LS_ABI_VERSION of the records */
	__u32 hdr_len;		/* of this header, >= 24 */
	__u32 flags;		/* 0; a reader refuses bits it does not know */
};

struct ls_trace_chunk_hdr {
	__u32 type;		/* enum ls_trace_chunk_type */
	__u32 len;		/* payload bytes, <= LS_TRACE_MAX_CHUNK */
	__u32 crc;		/* CRC-32 (IEEE, as zlib) of the payload */
	__u32 hdr_crc;		/* CRC-32 of the 12 bytes above: a bad length is "corrupt", not "cut short" */
};

_Static_assert(sizeof(struct ls_trace_file_hdr) == 24, "trace file header changed: bump LS_TRACE_FORMAT");
_Static_assert(sizeof(struct ls_trace_chunk_hdr) == 16, "chunk header changed: bump LS_TRACE_FORMAT");

/* CRC-32 (reflected 0xEDB88320, init and final xor ~0): crc32(0, ...) chains. */
__u32 ls_crc32(__u32 crc, const void *buf, size_t len);

/*
 * Create path for writing, safely: O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600.
 * An existing path is refused unless force, and then unlinked first (a
 * symlink is removed, never followed; only files and symlinks are).  Returns an fd or a negative errno,
 * after one line on err (NULL: silent) naming path and what to do.
 */
int ls_create_file(const char *path, bool force, FILE *err);

/* Writing ---------------------------------------------------------------- */

struct trace_writer;

struct trace_writer_stats {
	__u64 records;		/* records written (or buffered) */
	__u64 bytes;		/* file bytes written (compressed, if so) */
	__u64 unrecordable;	/* records whose length disagreed with hdr.size: not written */
	__u64 procs;		/* processes seen in records */
	__u64 procs_dropped;	/* seen beyond the table's bound */
};

/*
 * ls_create_file(), for a recording compressed at LS_TRACE_ZSTD_LEVEL (see
 * trace_writer__compress); the file header goes out with the first chunk.
 * Errors are printed on err.
 */
int trace_writer__create(struct trace_writer **out, const char *path, bool force, FILE *err);
/* Write to an fd (taken over, closed by close); name for messages. */
int trace_writer__fdopen(struct trace_writer **out, int fd, const char *name);
/*
 * Before anything is written: level 0 writes the raw format, 1 to
 * LS_TRACE_ZSTD_LEVEL_MAX a zstd stream at that level.  0, or -EINVAL (a
 * level out of range), -EBUSY (too late), -ENOMEM.
 */
int trace_writer__compress(struct trace_writer *w, int level);
/*
 * Append one record to the current chunk; a full chunk is written.  Also
 * notes the processes the record names (trace_writer__procs).  Returns 0 or
 * the negative errno of a failed write; after one, every call returns it.
 */
int trace_writer__record(struct trace_writer *w, const void *rec, size_t len);
/* Queue one metadata entry (value: any bytes); written by trace_writer__meta_flush. */
int trace_writer__meta(struct trace_writer *w, const char *key, const void *val, size_t len);
int trace_writer__meta_str(struct trace_writer *w, const char *key, const char *val);
int trace_writer__meta_u64(struct trace_writer *w, const char *key, __u64 v);
int trace_writer__meta_s64(struct trace_writer *w, const char *key, __s64 v);
/* Write buffered records, then queued metadata, as whole chunks. */
int trace_writer__flush(struct trace_writer *w);
int trace_writer__meta_flush(struct trace_writer *w);
/* Processes seen in records (tgid and a comm), in no order; fn may add metadata. */
void trace_writer__procs(struct trace_writer *w,
			 void (*fn)(void *ctx, __u32 tgid, const char comm[LS_COMM_LEN]), void *ctx);
/* The first write error, 0 if none. */
int trace_writer__error(const struct trace_writer *w);
void trace_writer__stats(const struct trace_writer *w, struct trace_writer_stats *out);
/*
 * Flush, write the END chunk (unless a write failed: then the file ends at
 * its last whole chunk, and says so to readers by having no END), fsync,
 * close, free.  Returns 0 or the first error.
 */
int trace_writer__close(struct trace_writer *w);

/* Reading ---------------------------------------------------------------- */

struct trace_reader;

/* trace_reader__status() bits: what was wrong with a file that still read. */
#define LS_TRACE_TRUNCATED	0x01	/* ended inside a chunk */
#define LS_TRACE_CORRUPT	0x02	/* a chunk failed its CRC or held bad records */
#define LS_TRACE_NO_END		0x04	/* no END chunk (killed, power loss, disk full) */
#define LS_TRACE_BAD_META	0x08	/* a metadata chunk was malformed: ignored */
#define LS_TRACE_TRAILING	0x10	/* bytes after the END chunk: ignored */

/*
 * Open a recording, raw or compressed: read and check the header and the metadata chunks that
 * lead the file.  Returns 0 or a negative errno after one line on err:
 *	"lockstall: FILE: not a lockstall recording"		-EINVAL
 *	"lockstall: FILE: recorded by a newer lockstall ..."	-EPROTONOSUPPORT
 * Warnings about damage found later also go to err (NULL: silent).
 */
int trace_reader__open(struct trace_reader **out, const char *path, FILE *err);
/* The same over a stream (taken over: closed by close), e.g. fmemopen(). */
int trace_reader__open_stream(struct trace_reader **out, FILE *f, const char *name, FILE *err);
/*
 * The next record: 1 with *rec and *len set (valid until the next call), 0 at
 * the end of what can be read (damage is warned about once, on err), or a
 * negative errno when reading failed.  Records come in today's layout: the
 * lock records of an ABI version 1 or 2 recording are widened (cgroup_id 0).
 */
int trace_reader__next_record(struct trace_reader *r, const void **rec, size_t *len);
/* The last value of key in the metadata read so far (NUL-terminated), or NULL. */
const char *trace_reader__meta(const struct trace_reader *r, const char *key, size_t *len);
/* Metadata entry i (from 0), in file order: 0, or -ENOENT past the end. */
int trace_reader__meta_at(const struct trace_reader *r, size_t i, const char **key,
			  const char **val, size_t *len);
/* Read every remaining chunk (e.g. the metadata at the end), without records. */
int trace_reader__skip_to_end(struct trace_reader *r);
unsigned int trace_reader__status(const struct trace_reader *r);
/* The file is zstd-compressed. */
bool trace_reader__compressed(const struct trace_reader *r);
void trace_reader__close(struct trace_reader *r);

#endif /* LOCKSTALL_TRACE_FILE_H */
