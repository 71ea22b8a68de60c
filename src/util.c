// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Small helpers every module shares: durations, strict numbers, and making
 * untrusted bytes (task comms) safe for a terminal and for JSON.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util.h"

static const struct {
	const char *name;
	__u64 ns;
} duration_units[] = {
	{ "ns", 1 },
	{ "us", NSEC_PER_USEC },
	{ "ms", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC },
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Digits only: no sign, no blanks, no base prefix.  strtoull() would take
 * " -5" and wrap it to a huge number, which is the opposite of what a
 * command line wants.  Returns the first byte after the digits, NULL on
 * overflow or when there is no digit.
 */
static const char *parse_digits(const char *s, __u64 *out)
{
	__u64 v = 0;

	if (!is_digit(*s))
		return NULL;
	for (; is_digit(*s); s++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (__u64)(*s - '0'), &v))
			return NULL;
	}
	*out = v;
	return s;
}

/*
 * "1.5ms" is accepted: the fraction is applied to the unit exactly, in
 * integers, and anything below a nanosecond is dropped.  A dot needs digits
 * on both sides.  default_unit_ns == 0 means a unit is required, for values
 * where a bare "10" could be read as 10ms or 10s (the threshold).
 */
int ls_parse_size(const char *s, __u64 *out)
{
	static const struct {
		const char *name;
		unsigned int shift;
	} units[] = {
		{ "", 0 }, { "B", 0 },
		{ "K", 10 }, { "KiB", 10 }, { "k", 10 },
		{ "M", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GiB", 30 },
	};
	const char *p;
	__u64 v;
	size_t i;

	if (!s || !*s)
		return -EINVAL;
	p = parse_digits(s, &v);
	if (!p)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].name))
			continue;
		if (units[i].shift && v > (~0ULL >> units[i].shift))
			return -EINVAL;
		*out = v << units[i].shift;
		return 0;
	}
	return -EINVAL;
}

int ls_parse_duration(const char *s, __u64 default_unit_ns, __u64 *out_ns)
{
	__u64 whole, frac = 0, frac_scale = 1, unit = 0, ns, part;
	const char *p;
	size_t i;

	if (!s || !*s)
		return -EINVAL;
	p = parse_digits(s, &whole);
	if (!p)
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return -EINVAL;
		/* 19 digits fit in a __u64 scale; further ones are below 1ns anyway */
		for (; is_digit(*p); p++) {
			if (frac_scale >= 1000000000000000000ULL)
				continue;
			frac = frac * 10 + (__u64)(*p - '0');
			frac_scale *= 10;
		}
	}
	if (!*p) {
		unit = default_unit_ns;
	} else {
		for (i = 0; i < ARRAY_SIZE(duration_units); i++) {
			if (!strcmp(p, duration_units[i].name)) {
				unit = duration_units[i].ns;
				break;
			}
		}
	}
	if (!unit)
		return -EINVAL;
	if (__builtin_mul_overflow(whole, unit, &ns))
		return -EINVAL;
	/* frac < frac_scale <= 1e18 and unit <= 6e10: use 128 bits */
	part = (__u64)((unsigned __int128)frac * unit / frac_scale);
	if (__builtin_add_overflow(ns, part, &ns))
		return -EINVAL;
	*out_ns = ns;
	return 0;
}

/*
 * Three significant digits ("23.4ms", "850us", "1.20s"), in the largest of
 * ns/us/ms/s that keeps the value at least 1.  A value that is exact at
 * fewer digits drops the padding zeros ("10ms", not "10.0ms"), so settings
 * people typed read back as they typed them; measured times almost never
 * are exact and keep their three digits.
 */
const char *ls_format_duration(__u64 ns, char *buf, size_t len)
{
	static const struct {
		const char *name;
		__u64 ns;
	} units[] = {
		{ "us", NSEC_PER_USEC },
		{ "ms", NSEC_PER_MSEC },
		{ "s", NSEC_PER_SEC },
	};
	size_t i;
	int decimals;
	double v;

	if (!len)
		return buf;
	if (ns < NSEC_PER_USEC) {
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		v = (double)ns / (double)units[i].ns;
		/* would round up to 1000: say it in the next unit instead */
		if (v < 999.5 || i == ARRAY_SIZE(units) - 1)
			break;
	}
	if (v < 9.995)
		decimals = 2;
	else if (v < 99.95)
		decimals = 1;
	else
		decimals = 0;
	/* exact at fewer decimals: 10000000ns is "10ms" */
	while (decimals > 0) {
		__u64 step = units[i].ns / (decimals == 2 ? 10 : 1);

		if (ns % step)
			break;
		decimals--;
	}
	snprintf(buf, len, "%.*f%s", decimals, v, units[i].name);
	return buf;
}

int ls_parse_u64(const char *s, __u64 max, __u64 *out)
{
	const char *p;
	__u64 v;
	size_t i;

	if (!s || !*s)
		return -EINVAL;
	for (i = 0; s[i]; i++) {
		if (!is_digit(s[i]))
			return -EINVAL;
	}
	p = parse_digits(s, &v);
	if (!p)
		return -ERANGE;	/* all digits, so it overflowed */
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static const char hexdigits[] = "0123456789abcdef";

int ls_cgroup_text(const char *raw, size_t len, char *buf, size_t buflen)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)raw[i];
		bool esc = c <= 0x20 || c >= 0x7f || c == '\\';

		/* this byte's text and the NUL */
		if (o + (esc ? 4 : 1) + 1 > buflen)
			return -ENAMETOOLONG;
		if (esc) {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hexdigits[c >> 4];
			buf[o++] = hexdigits[c & 0xf];
		} else {
			buf[o++] = (char)c;
		}
	}
	if (o + 1 > buflen)
		return -ENAMETOOLONG;
	buf[o] = '\0';
	return (int)o;
}

int ls_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int ls_cgroup_raw(const char *text, char *buf, size_t buflen, size_t *len)
{
	size_t o = 0;
	int hi, lo;

	for (; *text; text++) {
		char c = *text;

		if (c == '\\') {
			/* people write \x2F as often as \x2f */
			if (text[1] != 'x' || (hi = ls_hexval((char)tolower(text[2]))) < 0 ||
			    (lo = ls_hexval((char)tolower(text[3]))) < 0)
				return -EINVAL;
			c = (char)(hi << 4 | lo);
			if (!c)
				return -EINVAL;
			text += 3;
		}
		if (o + 2 > buflen)
			return -ENAMETOOLONG;
		buf[o++] = c;
	}
	if (!buflen)
		return -ENAMETOOLONG;
	buf[o] = '\0';
	*len = o;
	return 0;
}

const char *ls_text(const char *s, size_t maxlen, char *buf, size_t len)
{
	size_t i, o = 0;

	if (!len)
		return "";
	for (i = 0; i < maxlen && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '\\') {
			/* never split an escape: a cut one could be misread */
			if (o + 4 >= len)
				break;
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hexdigits[c >> 4];
			buf[o++] = hexdigits[c & 0xf];
		} else {
			if (o + 1 >= len)
				break;
			buf[o++] = (char)c;
		}
	}
	buf[o] = '\0';
	return buf;
}

const char *ls_comm_text(const char comm[16], char *buf, size_t len)
{
	return ls_text(comm, 16, buf, len);
}

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 if
 * the bytes there are not one: overlong forms, surrogates and values past
 * U+10FFFF are refused, as RFC 3629 says.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;	/* bounds of the second byte */

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return len;
}

/* The code point of the well-formed sequence of len bytes at s. */
static __u32 utf8_code_point(const unsigned char *s, size_t len)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	__u32 cp = s[0] & lead_mask[len];
	size_t i;

	for (i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

/*
 * Characters a terminal or viewer obeys rather than shows: C0, DEL, C1,
 * and the bidi embeddings, overrides and isolates (the Trojan Source ones).
 */
static bool json_must_escape(__u32 cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

void ls_json_str(FILE *f, const char *s, size_t maxlen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, i, seq;
	__u32 cp;

	n = s ? strnlen(s, maxlen) : 0;
	putc('"', f);
	for (i = 0; i < n; i += seq) {
		seq = utf8_seq_len(p + i, n - i);
		if (!seq) {
			/* not UTF-8: the replacement character, never a Latin-1 guess */
			seq = 1;
			fputs("\\ufffd", f);
			continue;
		}
		cp = utf8_code_point(p + i, seq);
		if (cp == '"' || cp == '\\') {
			putc('\\', f);
			putc((int)cp, f);
		} else if (json_must_escape(cp)) {
			fprintf(f, "\\u%04x", (unsigned int)cp);
		} else {
			fwrite(p + i, 1, seq, f);
		}
	}
	putc('"', f);
}

__u64 ls_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

__u64 ls_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

int ls_for_each_line(const char *text, size_t len, ls_text_line_fn fn, void *ctx)
{
	const char *p = text, *end = text + len, *nl;
	int err;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		err = fn(ctx, p, nl);
		if (err)
			return err;
		p = nl + 1;
	}
	return 0;
}

int ls_open_regular(const char *path, bool follow, struct stat *st)
{
	char self[32];
	int pfd, fd;

	/* O_PATH opens nothing: no FIFO to block on, no device to arm */
	pfd = open(path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st)) {
		fd = -errno;
		goto cleanup;
	}
	if (!S_ISREG(st->st_mode)) {
		fd = S_ISLNK(st->st_mode) ? -ELOOP : -EINVAL;
		goto cleanup;
	}
	/* the very inode just checked, whatever the path names by now */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
cleanup:
	close(pfd);
	return fd;
}

static int read_all(int fd, size_t max, char **buf, size_t *len)
{
	size_t alloc = 65536, got = 0;
	char *b = NULL, *nb;
	ssize_t n;

	for (;;) {
		if (!b || got + 1 >= alloc) {
			/* one byte past max tells "too big" from "exactly max" */
			if (b && alloc > max + 1)
				goto too_big;
			alloc = b ? alloc * 2 : alloc;
			nb = realloc(b, alloc);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		n = read(fd, b + got, alloc - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(b);
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > max)
			goto too_big;
	}
	b[got] = '\0';
	/* callers keep what they read (a process's maps for its lifetime): no slack */
	*buf = got + 1 < alloc ? ls_shrink(b, got + 1, 1) : b;
	*len = got;
	return 0;
too_big:
	free(b);
	return -E2BIG;
}

int ls_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	struct stat st;
	int fd, err;

	*buf = NULL;
	*len = 0;
	fd = ls_open_regular(path, true, &st);
	if (fd < 0)
		return fd;
	err = read_all(fd, max, buf, len);
	close(fd);
	return err;
}

const char *ls_read_file_error(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a regular file";
	case -E2BIG:
		return "too large";
	default:
		return strerror(-err);
	}
}

int ls_read_lines(const char *path, size_t max, ls_line_fn fn, void *ctx, char *err,
		  size_t err_len)
{
	char *text, *line, *end;
	size_t len;
	int rc;

	/* a FIFO or /dev/zero at the path must neither block nor fill memory */
	rc = ls_read_file(path, max, &text, &len);
	if (rc) {
		snprintf(err, err_len, "%s: cannot read: %s", path, ls_read_file_error(rc));
		return rc;
	}
	for (line = text; line < text + len && !rc; line = end + 1) {
		end = memchr(line, '\n', (size_t)(text + len - line));
		if (!end)
			end = text + len;
		*end = '\0';
		rc = fn(ctx, line, (size_t)(end - line));
	}
	free(text);
	return rc;
}

void *ls_shrink(void *v, size_t n, size_t size)
{
	void *shrunk = realloc(v, (n ? n : 1) * size);

	return shrunk ? shrunk : v;
}
