/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Small helpers every module shares.  Each exists once, here (util.c).
 */
#ifndef LOCKSTALL_UTIL_H
#define LOCKSTALL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct stat;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define LS_PID_MAX 4194304	/* PID_MAX_LIMIT on 64-bit */

static inline __u64 u64_min(__u64 a, __u64 b) { return a < b ? a : b; }
static inline __u64 u64_max(__u64 a, __u64 b) { return a > b ? a : b; }
static inline __u64 u64_sat_sub(__u64 a, __u64 b) { return a > b ? a - b : 0; }

/*
 * Parse a duration with a unit: "500us", "10ms", "1s", "2m", "250ns"; a bare
 * number means default_unit_ns of them; default_unit_ns 0 makes the unit
 * required.  A fraction is allowed ("1.5ms").  Returns 0 or -EINVAL (empty,
 * junk, blanks, sign, overflow).
 */
int ls_parse_duration(const char *s, __u64 default_unit_ns, __u64 *out_ns);

/* "12.3ms", "850us", "1.20s": for people, into buf, returned. */
const char *ls_format_duration(__u64 ns, char *buf, size_t len);

/*
 * A size in bytes: "16384", "16K", "16KiB", "2M", "1G" (binary units).
 * Returns 0 or -EINVAL (empty, junk, sign, overflow).
 */
int ls_parse_size(const char *s, __u64 *out);

/* Strict unsigned integer parse (whole string, base 10); -EINVAL / -ERANGE. */
int ls_parse_u64(const char *s, __u64 max, __u64 *out);

/*
 * Bytes from the traced system (a comm, a symbol, a file name) as
 * printable text, the one escape for every text output: bytes up to the
 * first NUL (at most maxlen); control characters (ESC, newline), the
 * backslash and non-ASCII become \xNN, so nothing can move a terminal's
 * cursor or start a line of its own.  Cut at a whole character to fit
 * len.  Returns buf.
 */
const char *ls_text(const char *s, size_t maxlen, char *buf, size_t len);

/* A comm through ls_text(): buf should be at least LS_COMM_TEXT_LEN. */
#define LS_COMM_TEXT_LEN (16 * 4 + 1)
const char *ls_comm_text(const char comm[16], char *buf, size_t len);

/*
 * A cgroup path as text, the form cgroup= rules and the output use: bytes
 * outside printable ASCII, the space and the backslash become \xNN (a
 * rule is blank-separated words), the rest stays.  len bytes of raw in,
 * NUL-terminated text into buf; -ENAMETOOLONG when it does not fit (never
 * a cut path: a prefix names another cgroup), else the text's length.
 */
#define LS_CGROUP_TEXT_MAX (4 * 4096 + 1)	/* a PATH_MAX path, every byte escaped */
int ls_cgroup_text(const char *raw, size_t len, char *buf, size_t buflen);
/*
 * The reverse: text with \xNN escapes (either case of hex digit) back to
 * bytes in buf, NUL-terminated; *len their count.  -EINVAL for a backslash
 * not followed by xNN, or a NUL byte; -ENAMETOOLONG when buf is too small.
 */
int ls_cgroup_raw(const char *text, char *buf, size_t buflen, size_t *len);
/* A lowercase hex digit's value, else -1. */
int ls_hexval(char c);

/*
 * Write bytes as a JSON string (with the quotes) to f: valid JSON whatever
 * the bytes are.  Bytes up to the first NUL, at most maxlen.  '"' and '\\'
 * are backslash-escaped; control characters (C0, DEL, C1) and the bidi
 * controls U+202A..U+202E, U+2066..U+2069 become \uXXXX; other well-formed
 * UTF-8 passes through; each byte that is not part of well-formed UTF-8
 * becomes \ufffd (U+FFFD, the replacement character): the byte's value is
 * lost, but never mistaken for a character the bytes spelled.
 */
void ls_json_str(FILE *f, const char *s, size_t maxlen);

/*
 * The line readers: fn gets each line without its '\n' (the last one may
 * lack it), in order, until it returns nonzero: that is returned, else 0.
 */
/* Lines of text in memory: [line, end) points into text. */
typedef int (*ls_text_line_fn)(void *ctx, const char *line, const char *end);
int ls_for_each_line(const char *text, size_t len, ls_text_line_fn fn, void *ctx);
/*
 * Lines of the file at path, an operator's (rules, hooks), read with
 * ls_read_file() (at most max bytes): each is NUL-terminated at len (it
 * may hold NULs of its own).  A failure to open or read puts "PATH:
 * cannot read: WHY" into err and returns the negative errno; fn writes its
 * own errors into err.
 */
typedef int (*ls_line_fn)(void *ctx, char *line, size_t len);
int ls_read_lines(const char *path, size_t max, ls_line_fn fn, void *ctx, char *err,
		  size_t err_len);

/*
 * Open a file for reading without trusting whoever controls its path (a
 * traced process's executable, an operator's rules file that may be a
 * FIFO): the path is looked up once, without opening anything (O_PATH,
 * and O_NOFOLLOW unless follow), and only a regular file is then opened,
 * through that lookup: never a FIFO (it blocks), a device (opening a
 * watchdog arms it) or a terminal, whatever is swapped in meanwhile.  *st
 * is the file's.  Returns the descriptor (O_CLOEXEC), -EINVAL for a file
 * that is not regular, -ELOOP for a symlink when !follow, else -errno.
 */
int ls_open_regular(const char *path, bool follow, struct stat *st);

/*
 * A whole file (ls_open_regular, links followed) into a malloc'd,
 * NUL-terminated buffer: at most max bytes, -E2BIG past that.  /proc
 * files say size 0: read to their end.  Returns 0 or -errno.
 */
int ls_read_file(const char *path, size_t max, char **buf, size_t *len);

/*
 * v (malloc'd, room for more) cut to n elements of size bytes, for what is
 * kept long: v itself when it cannot shrink.  Never NULL for a non-NULL v.
 */
void *ls_shrink(void *v, size_t n, size_t size);
/* What ls_read_file()'s error means, for a message: "not a regular file", ... */
const char *ls_read_file_error(int err);

/* CLOCK_MONOTONIC now, ns: only for user-space-made records (loader), never the engine. */
__u64 ls_now_ns(void);
/* CLOCK_REALTIME now, ns: for names and metadata that people read. */
__u64 ls_realtime_ns(void);

#endif /* LOCKSTALL_UTIL_H */
