// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/util.c: durations, strict numbers, and untrusted bytes made safe for
 * terminals and JSON.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include "util.h"

/* ---- ls_parse_duration ---- */

/*
 * Strings live inside the cases: Criterion runs each case in a fresh
 * process of the (position-independent) binary, where pointers from the
 * parent do not point at the same bytes.
 */
struct dur_case {
	char in[32];
	__u64 unit;		/* default unit; 0: unit required */
	int rc;
	__u64 ns;
};

ParameterizedTestParameters(util, parse_duration)
{
	static struct dur_case cases[] = {
		{ "0", NSEC_PER_SEC, 0, 0 },
		{ "5", NSEC_PER_SEC, 0, 5 * NSEC_PER_SEC },
		{ "5", NSEC_PER_MSEC, 0, 5 * NSEC_PER_MSEC },
		{ "5s", NSEC_PER_MSEC, 0, 5 * NSEC_PER_SEC },
		{ "500ms", NSEC_PER_SEC, 0, 500 * NSEC_PER_MSEC },
		{ "500us", 0, 0, 500 * NSEC_PER_USEC },
		{ "250ns", 0, 0, 250 },
		{ "10ms", 0, 0, 10 * NSEC_PER_MSEC },
		{ "1s", 0, 0, NSEC_PER_SEC },
		{ "2m", 0, 0, 120 * NSEC_PER_SEC },
		{ "1.5ms", 0, 0, 1500 * NSEC_PER_USEC },
		{ "0.5", NSEC_PER_SEC, 0, 500 * NSEC_PER_MSEC },
		{ "1.0000000001s", 0, 0, NSEC_PER_SEC },	/* below 1ns: dropped */
		{ "1.999999999999999999999s", 0, 0, 2 * NSEC_PER_SEC - 1 },
		{ "007ms", 0, 0, 7 * NSEC_PER_MSEC },
		{ "18446744073709551615ns", 0, 0, 18446744073709551615ULL },
		{ "18446744073s", 0, 0, 18446744073ULL * NSEC_PER_SEC },
		/* bad */
		{ "", NSEC_PER_SEC, -EINVAL, 0 },
		{ "10", 0, -EINVAL, 0 },		/* unit required */
		{ "abc", NSEC_PER_SEC, -EINVAL, 0 },
		{ "10xs", 0, -EINVAL, 0 },
		{ "10 ms", 0, -EINVAL, 0 },
		{ " 10ms", 0, -EINVAL, 0 },
		{ "10ms ", 0, -EINVAL, 0 },
		{ "-5", NSEC_PER_SEC, -EINVAL, 0 },
		{ "-5ms", 0, -EINVAL, 0 },
		{ "+5ms", 0, -EINVAL, 0 },
		{ "ms", 0, -EINVAL, 0 },
		{ "1.", NSEC_PER_SEC, -EINVAL, 0 },
		{ ".5", NSEC_PER_SEC, -EINVAL, 0 },
		{ "1.5.5ms", 0, -EINVAL, 0 },
		{ "0x10", NSEC_PER_SEC, -EINVAL, 0 },
		{ "1e3ms", 0, -EINVAL, 0 },
		{ "10MS", 0, -EINVAL, 0 },
		{ "10msec", 0, -EINVAL, 0 },
		{ "18446744073709551616ns", 0, -EINVAL, 0 },	/* 2^64 */
		{ "18446744074s", 0, -EINVAL, 0 },		/* overflows in the multiply */
		{ "99999999999999999999999", NSEC_PER_SEC, -EINVAL, 0 },
		{ "18446744073.8s", 0, -EINVAL, 0 },		/* overflows in the fraction */
	};

	return cr_make_param_array(struct dur_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct dur_case *c, util, parse_duration)
{
	__u64 ns = 0xdeadbeef;
	int rc = ls_parse_duration(c->in, c->unit, &ns);

	cr_assert_eq(rc, c->rc, "'%s': rc %d, want %d", c->in, rc, c->rc);
	if (c->rc)
		cr_assert_eq(ns, 0xdeadbeef, "'%s': output written on failure", c->in);
	else
		cr_assert_eq(ns, c->ns, "'%s': %llu ns, want %llu", c->in,
			     (unsigned long long)ns, (unsigned long long)c->ns);
}

Test(util, parse_duration_null)
{
	__u64 ns;

	cr_assert_eq(ls_parse_duration(NULL, 1, &ns), -EINVAL);
}

/* ---- ls_format_duration ---- */

struct fmt_case {
	__u64 ns;
	char out[16];
};

ParameterizedTestParameters(util, format_duration)
{
	static struct fmt_case cases[] = {
		{ 0, "0ns" },
		{ 850, "850ns" },
		{ 999, "999ns" },
		{ 1000, "1us" },
		{ 1234, "1.23us" },
		{ 850000, "850us" },
		{ 999400, "999us" },
		{ 999600, "1.00ms" },			/* would round to 1000us */
		{ 10 * NSEC_PER_MSEC, "10ms" },	/* exact: no padding zeros */
		{ 1500 * NSEC_PER_USEC, "1.5ms" },
		{ 23400000, "23.4ms" },
		{ 23412345, "23.4ms" },
		{ 9996000, "10.0ms" },
		{ 1200000001, "1.20s" },
		{ 1200000000, "1.2s" },
		{ NSEC_PER_SEC, "1s" },
		{ 125 * NSEC_PER_SEC, "125s" },
		{ 5000 * NSEC_PER_SEC + 1, "5000s" },
	};

	return cr_make_param_array(struct fmt_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct fmt_case *c, util, format_duration)
{
	char buf[32];

	cr_assert_str_eq(ls_format_duration(c->ns, buf, sizeof(buf)), c->out,
			 "%llu ns", (unsigned long long)c->ns);
}

Test(util, format_duration_small_buffer)
{
	char buf[4];

	ls_format_duration(23400000, buf, sizeof(buf));
	cr_assert_eq(strlen(buf), 3);
	cr_assert_str_eq(buf, "23.");
}

Test(util, format_duration_round_trips_through_parse)
{
	static const __u64 values[] = { 1000, 10 * NSEC_PER_MSEC, 500 * NSEC_PER_USEC,
					NSEC_PER_SEC, 1500 * NSEC_PER_USEC, 60 * NSEC_PER_SEC };
	char buf[32];
	__u64 ns;
	size_t i;

	/* what the tracing line shows for a setting parses back to it */
	for (i = 0; i < ARRAY_SIZE(values); i++) {
		ls_format_duration(values[i], buf, sizeof(buf));
		cr_assert_eq(ls_parse_duration(buf, 0, &ns), 0, "%s", buf);
		cr_assert_eq(ns, values[i], "%s", buf);
	}
}

/* ---- ls_parse_u64 ---- */

struct u64_case {
	char in[32];
	__u64 max;
	int rc;
	__u64 v;
};

ParameterizedTestParameters(util, parse_u64)
{
	static struct u64_case cases[] = {
		{ "0", 10, 0, 0 },
		{ "10", 10, 0, 10 },
		{ "0042", 100, 0, 42 },
		{ "18446744073709551615", UINT64_MAX, 0, UINT64_MAX },
		{ "11", 10, -ERANGE, 0 },
		{ "18446744073709551616", UINT64_MAX, -ERANGE, 0 },
		{ "", 10, -EINVAL, 0 },
		{ "-1", 10, -EINVAL, 0 },
		{ "+1", 10, -EINVAL, 0 },
		{ " 1", 10, -EINVAL, 0 },
		{ "1 ", 10, -EINVAL, 0 },
		{ "1a", 10, -EINVAL, 0 },
		{ "0x1", 10, -EINVAL, 0 },
		{ "abc", 10, -EINVAL, 0 },
	};

	return cr_make_param_array(struct u64_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct u64_case *c, util, parse_u64)
{
	__u64 v = 77;
	int rc = ls_parse_u64(c->in, c->max, &v);

	cr_assert_eq(rc, c->rc, "'%s': rc %d, want %d", c->in, rc, c->rc);
	cr_assert_eq(v, c->rc ? 77 : c->v, "'%s'", c->in);
}

/* ---- ls_comm_text ---- */

static bool all_printable_ascii(const char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	}
	return true;
}

/* Undo the \xNN escapes: the text must say exactly which bytes there were. */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (s[0] == '\\') {
			cr_assert_eq(s[1], 'x', "bare backslash in '%s'", s);
			out[n++] = (char)strtoul((char[]){ s[2], s[3], 0 }, NULL, 16);
			s += 4;
		} else {
			out[n++] = *s++;
		}
	}
	return n;
}

Test(util, comm_text_every_byte)
{
	char comm[16], buf[LS_COMM_TEXT_LEN], back[16];
	int b;

	for (b = 1; b < 256; b++) {
		memset(comm, 0, sizeof(comm));
		comm[0] = 'a';
		comm[1] = (char)b;
		comm[2] = 'z';
		ls_comm_text(comm, buf, sizeof(buf));
		cr_assert(all_printable_ascii(buf), "byte 0x%02x gave a raw control byte", b);
		cr_assert_eq(unescape(buf, back), 3, "byte 0x%02x: '%s'", b, buf);
		cr_assert_eq((unsigned char)back[1], b, "byte 0x%02x: '%s'", b, buf);
		if (b < 0x20 || b >= 0x7f || b == '\\')
			cr_assert_eq(strlen(buf), 6, "byte 0x%02x not escaped: '%s'", b, buf);
		else
			cr_assert_eq(strlen(buf), 3, "byte 0x%02x escaped: '%s'", b, buf);
	}
}

Test(util, comm_text_hostile)
{
	char comm[16] = "\n\x1b[2J<script>\xff";
	char buf[LS_COMM_TEXT_LEN];

	cr_assert_str_eq(ls_comm_text(comm, buf, sizeof(buf)), "\\x0a\\x1b[2J<script>\\xff");
}

Test(util, comm_text_full_16_bytes_without_nul)
{
	char comm[17];
	char buf[LS_COMM_TEXT_LEN];

	/* the 17th byte is outside the comm and must not be read */
	memcpy(comm, "0123456789abcdefX", 17);
	cr_assert_str_eq(ls_comm_text(comm, buf, sizeof(buf)), "0123456789abcdef");

	memset(comm, 0x1b, 16);
	ls_comm_text(comm, buf, sizeof(buf));
	cr_assert_eq(strlen(buf), 64, "16 escapes must fit LS_COMM_TEXT_LEN");
}

Test(util, comm_text_never_splits_an_escape)
{
	char comm[16] = "ab\x1b" "cd";
	char buf[6];

	/* "ab" + "\x1b" needs 7 bytes with the NUL: the escape is left out whole */
	cr_assert_str_eq(ls_comm_text(comm, buf, sizeof(buf)), "ab");
	cr_assert_str_eq(ls_comm_text(comm, buf, 7), "ab\\x1b");
}

/* ---- ls_cgroup_text, ls_cgroup_raw ---- */

/* Every byte but NUL survives text and back; the text is printable ASCII with no blank. */
Test(util, cgroup_text_round_trips_every_byte)
{
	char raw[255], text[255 * 4 + 1], back[256];
	size_t len, i;
	int n;

	for (i = 0; i < sizeof(raw); i++)
		raw[i] = (char)(i + 1);
	n = ls_cgroup_text(raw, sizeof(raw), text, sizeof(text));
	cr_assert_gt(n, 0);
	cr_assert_eq((size_t)n, strlen(text));
	for (i = 0; text[i]; i++)
		cr_assert(text[i] > 0x20 && text[i] < 0x7f, "byte 0x%02x in the text",
			  (unsigned char)text[i]);
	cr_assert_eq(ls_cgroup_raw(text, back, sizeof(back), &len), 0);
	cr_assert_eq(len, sizeof(raw));
	cr_assert_eq(memcmp(back, raw, len), 0);
}

Test(util, cgroup_text_forms)
{
	char buf[64];
	size_t len;

	cr_assert_eq(ls_cgroup_text("/a b\\c\xff", 7, buf, sizeof(buf)), 16);
	cr_assert_str_eq(buf, "/a\\x20b\\x5cc\\xff");
	/* never a cut path: a prefix would name another cgroup */
	cr_assert_eq(ls_cgroup_text("/abcdef", 7, buf, 7), -ENAMETOOLONG);
	cr_assert_eq(ls_cgroup_text("/abcdef", 7, buf, 8), 7);
	cr_assert_eq(ls_cgroup_raw("/A\\x2F\\x2f", buf, sizeof(buf), &len), 0, "either case of hex");
	cr_assert_eq(len, 4);
	cr_assert_eq(memcmp(buf, "/A//", 4), 0);
	cr_assert_eq(ls_cgroup_raw("/a\\x00", buf, sizeof(buf), &len), -EINVAL);
	cr_assert_eq(ls_cgroup_raw("/a\\x0", buf, sizeof(buf), &len), -EINVAL);
	cr_assert_eq(ls_cgroup_raw("/a\\y00", buf, sizeof(buf), &len), -EINVAL);
	cr_assert_eq(ls_cgroup_raw("/a\\", buf, sizeof(buf), &len), -EINVAL);
	cr_assert_eq(ls_cgroup_raw("/abc", buf, 4, &len), -ENAMETOOLONG);
	cr_assert_eq(ls_cgroup_raw("/abc", buf, 5, &len), 0);
}

/* ---- ls_json_str ---- */

/* Encode with ls_json_str and decode with jansson; NULL if it is no valid JSON. */
static char *json_round_trip(const char *s, size_t maxlen, size_t *out_len, char **raw)
{
	char *buf = NULL, *res = NULL;
	size_t len = 0;
	json_error_t jerr;
	json_t *j;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	ls_json_str(f, s, maxlen);
	fclose(f);
	j = json_loads(buf, JSON_DECODE_ANY, &jerr);
	if (j && json_is_string(j)) {
		*out_len = json_string_length(j);
		res = malloc(*out_len + 1);
		memcpy(res, json_string_value(j), *out_len + 1);
	}
	json_decref(j);
	if (raw)
		*raw = buf;
	else
		free(buf);
	return res;
}

/* A character a terminal obeys, written raw: C0, DEL, C1 or a bidi control. */
static bool raw_has_control_bytes(const char *raw)
{
	const unsigned char *p = (const unsigned char *)raw;

	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return true;
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return true;
		if (p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
				     (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
			return true;
	}
	return false;
}

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD: what a byte that is no UTF-8 reads as */

Test(util, json_str_every_byte)
{
	char in[2] = { 0, 0 }, *out, *raw;
	size_t len;
	int b;

	for (b = 0; b < 256; b++) {
		in[0] = (char)b;
		out = json_round_trip(in, 2, &len, &raw);
		cr_assert_not_null(out, "byte 0x%02x: invalid JSON %s", b, raw);
		cr_assert(!raw_has_control_bytes(raw), "byte 0x%02x: raw control byte", b);
		if (b == 0) {
			cr_assert_eq(len, 0, "NUL ends the string");
		} else if (b < 0x80) {
			cr_assert_eq(len, 1);
			cr_assert_eq((unsigned char)out[0], b, "byte 0x%02x", b);
		} else {
			/* a lone byte >= 0x80 is no UTF-8, never U+00XX */
			cr_assert_str_eq(out, REPLACEMENT, "byte 0x%02x", b);
		}
		free(out);
		free(raw);
	}
}

struct utf8_case {
	char in[16];
	char decoded[32];	/* what a JSON reader gets */
};

ParameterizedTestParameters(util, json_str_utf8)
{
	static struct utf8_case cases[] = {
		{ "plain", "plain" },
		{ "q\"b\\s/", "q\"b\\s/" },
		{ "\xe2\x82\xac", "\xe2\x82\xac" },			/* euro sign, valid */
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },		/* 4 bytes, valid */
		{ "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9" },		/* été */
		{ "\xc0\x80", REPLACEMENT REPLACEMENT },			/* overlong NUL */
		{ "\xe0\x80\xaf", REPLACEMENT REPLACEMENT REPLACEMENT },	/* overlong '/' */
		{ "\xed\xa0\x80", REPLACEMENT REPLACEMENT REPLACEMENT },	/* surrogate */
		{ "\xf4\x90\x80\x80", REPLACEMENT REPLACEMENT REPLACEMENT REPLACEMENT },	/* > U+10FFFF */
		{ "\xf5", REPLACEMENT },
		{ "\xe2\x82", REPLACEMENT REPLACEMENT },			/* cut short */
		{ "a\xe2\x82" "b", "a" REPLACEMENT REPLACEMENT "b" },
		{ "\xc3\xbf", "\xc3\xbf" },					/* a real U+00FF */
		{ "\x7f", "\x7f" },
		{ "\x1b[2J", "\x1b[2J" },
		{ "\xc2\x9b" "2J", "\xc2\x9b" "2J" },			/* CSI, C1 */
		{ "\xc2\x85\xc2\x9f", "\xc2\x85\xc2\x9f" },		/* NEL, APC */
		{ "a\xe2\x80\xae" "b", "a\xe2\x80\xae" "b" },		/* RLO */
		{ "\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9", "\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9" },
		{ "\xe2\x80\xa9\xe2\x81\xaa", "\xe2\x80\xa9\xe2\x81\xaa" },	/* neighbours: kept */
	};

	return cr_make_param_array(struct utf8_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct utf8_case *c, util, json_str_utf8)
{
	size_t len;
	char *raw, *out = json_round_trip(c->in, (size_t)-1, &len, &raw);

	cr_assert_not_null(out, "invalid JSON: %s", raw);
	cr_assert(!raw_has_control_bytes(raw), "raw control byte in %s", raw);
	cr_assert_eq(len, strlen(c->decoded));
	cr_assert_str_eq(out, c->decoded, "raw %s", raw);
	free(out);
	free(raw);
}

struct json_raw_case {
	char in[16];
	char raw[48];	/* what ls_json_str writes */
};

ParameterizedTestParameters(util, json_str_raw_escapes)
{
	static struct json_raw_case cases[] = {
		{ "\x1b", "\"\\u001b\"" },
		{ "\x7f", "\"\\u007f\"" },
		{ "\xc2\x80\xc2\x9b\xc2\x9f", "\"\\u0080\\u009b\\u009f\"" },
		{ "\xc2\xa0", "\"\xc2\xa0\"" },			/* NBSP: shown, not obeyed */
		{ "\xe2\x80\xaa\xe2\x80\xae", "\"\\u202a\\u202e\"" },
		{ "\xe2\x81\xa6\xe2\x81\xa9", "\"\\u2066\\u2069\"" },
		{ "\xff", "\"\\ufffd\"" },
		{ "\xc3\xbf", "\"\xc3\xbf\"" },
	};

	return cr_make_param_array(struct json_raw_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct json_raw_case *c, util, json_str_raw_escapes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	ls_json_str(f, c->in, sizeof(c->in));
	fclose(f);
	cr_assert_str_eq(buf, c->raw);
	free(buf);
}

Test(util, json_str_maxlen_and_nul)
{
	char comm[16];
	size_t len;
	char *out;

	memcpy(comm, "0123456789abcdef", 16);	/* no NUL */
	out = json_round_trip(comm, 16, &len, NULL);
	cr_assert_str_eq(out, "0123456789abcdef");
	free(out);
	out = json_round_trip("abc\0def", 7, &len, NULL);
	cr_assert_str_eq(out, "abc");
	free(out);
	out = json_round_trip("abcdef", 2, &len, NULL);
	cr_assert_str_eq(out, "ab");
	free(out);
	out = json_round_trip(NULL, 5, &len, NULL);
	cr_assert_str_eq(out, "");
	free(out);
}

/* xorshift64: the same "random" strings on every run */
static __u64 rng_next(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(util, json_str_random_bytes)
{
	__u64 seed = 0x9e3779b97f4a7c15ULL;
	char in[40], *out, *raw;
	size_t len, n, i;
	int round;
	json_t *as_utf8;

	for (round = 0; round < 5000; round++) {
		n = rng_next(&seed) % sizeof(in);
		for (i = 0; i < n; i++) {
			/* bias towards bytes that make (in)valid UTF-8 interesting */
			__u64 r = rng_next(&seed);

			in[i] = (char)(r & 1 ? 0x80 | (r >> 8) : r >> 8);
			if (!in[i])
				in[i] = 'x';
		}
		out = json_round_trip(in, n, &len, &raw);
		cr_assert_not_null(out, "round %d: invalid JSON %s", round, raw);
		cr_assert(!raw_has_control_bytes(raw), "round %d: raw control byte", round);
		/* valid UTF-8 must come back byte for byte */
		as_utf8 = json_stringn(in, n);
		if (as_utf8) {
			cr_assert_eq(len, n, "round %d", round);
			cr_assert(!memcmp(out, in, n), "round %d: valid UTF-8 changed", round);
		} else {
			cr_assert_gt(len, n, "round %d: invalid bytes must widen", round);
		}
		json_decref(as_utf8);
		free(out);
		free(raw);
	}
}

/* ---- ls_now_ns ---- */

Test(util, now_is_monotonic)
{
	__u64 a = ls_now_ns(), b = ls_now_ns();

	cr_assert_gt(a, 0);
	cr_assert_geq(b, a);
}

/*
 * What ls_read_file returns is kept (a process's maps, for as long as it
 * lives): a small file must not hold the read's whole growing buffer.
 */
Test(util, read_file_keeps_no_slack)
{
	char path[] = "/tmp/util-read-XXXXXX";
	static const char text[] = "00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/true\n";
	int fd = mkstemp(path);
	size_t len;
	char *buf;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	cr_assert_eq(ls_read_file(path, 1 << 20, &buf, &len), 0);
	unlink(path);
	cr_assert_eq(len, strlen(text));
	cr_assert_str_eq(buf, text);
	cr_assert_lt(malloc_usable_size(buf), 4096, "%zu bytes kept for a %zu-byte file",
		     malloc_usable_size(buf), len);
	free(buf);
}
