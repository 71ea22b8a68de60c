// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Trace files: see trace_file.h for the layout.  Here, what the writer
 * (trace_writer.c) and the reader (trace_reader.c) share: the CRC-32 of
 * chunks, the messages, buffers that grow, the metadata keys; and the one
 * safe way a recording or a report file is created.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "record/trace_file.h"
#include "record/trace_internal.h"

/* CRC-32 ------------------------------------------------------------------ */

/*
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xedb88320): zlib's, whose
 * word-at-a-time code is several times faster than a byte table; chunks
 * are checked on the ring thread of 'record' and on every replay.
 */
__u32 ls_crc32(__u32 crc, const void *buf, size_t len)
{
	return crc32_z(crc, buf, len);
}

/* Safe create ---------------------------------------------------------------- */

void say(FILE *err, const char *fmt, ...)
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

/* Shared helpers ---------------------------------------------------------- */

int buf__reserve(unsigned char **buf, size_t *alloc, size_t need)
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

bool meta__key_ok(const char *k, size_t len)
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
