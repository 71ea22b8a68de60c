// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Helpers of src/symbols: hex fields, names, lines.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "symbols/internal.h"
#include "util.h"

size_t sym_budget__limit(const struct sym_budget *b)
{
	if (!b->limit)
		return SYM_BUDGET_DEFAULT;
	return b->limit < SYM_BUDGET_MIN ? SYM_BUDGET_MIN : b->limit;
}

int sym_budget__charge(struct sym_budget *b, size_t bytes)
{
	if (!b)
		return 0;
	if (bytes > sym_budget__limit(b) || b->used > sym_budget__limit(b) - bytes)
		return -ENOMEM;
	b->used += bytes;
	return 0;
}

void sym_budget__release(struct sym_budget *b, size_t bytes)
{
	if (b)
		b->used -= bytes < b->used ? bytes : b->used;
}

int sym_budget__take_read(struct sym_budget *b, size_t len)
{
	__u64 now;

	if (!b)
		return 0;
	now = b->now_ns ? b->now_ns() : ls_now_ns();
	if (now - b->window_ns >= NSEC_PER_SEC) {
		b->window_ns = now;
		b->window_bytes = 0;
	}
	if (b->window_bytes && len > sym_budget__limit(b) - b->window_bytes) {
		b->over_rate++;
		return -EAGAIN;
	}
	b->window_bytes += len < sym_budget__limit(b) ? len : sym_budget__limit(b);
	return 0;
}

static __u64 wall_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

bool sym_budget__racy(const struct sym_budget *b, const struct stat *st)
{
	__u64 now = b && b->wall_ns ? b->wall_ns() : wall_now_ns();
	__u64 changed = (__u64)st->st_ctim.tv_sec * NSEC_PER_SEC + (__u64)st->st_ctim.tv_nsec;

	return st->st_ctim.tv_sec < 0 || now < changed + SYM_RACY_NS;
}

void sym_version__of(struct sym_version *v, const struct stat *st)
{
	v->dev = st->st_dev;
	v->ino = st->st_ino;
	v->size = st->st_size;
	v->mtime = st->st_mtim;
	v->ctime = st->st_ctim;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

bool sym_version__same(const struct sym_version *v, const struct stat *st)
{
	return v->dev == st->st_dev && v->ino == st->st_ino && v->size == st->st_size &&
	       same_time(&v->mtime, &st->st_mtim) && same_time(&v->ctime, &st->st_ctim);
}

bool sym_same_version(const struct stat *a, const struct stat *b)
{
	struct sym_version v;

	sym_version__of(&v, a);
	return sym_version__same(&v, b);
}

int sym_pread(int fd, void *buf, size_t len, __u64 off)
{
	size_t got = 0;
	ssize_t n;

	if (off > (__u64)LLONG_MAX - len)
		return -ESTALE;
	while (got < len) {
		n = pread(fd, (__u8 *)buf + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ESTALE;
		got += (size_t)n;
	}
	return 0;
}

int sym_parse_hex(const char **p, const char *end, __u64 *out)
{
	const char *s = *p;
	__u64 v = 0;
	int digits = 0, d;

	for (; s < end; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		/* leading zeros are free: kallsyms pads to 16 digits */
		if (v >> 60)
			return -EINVAL;
		v = v << 4 | (__u64)d;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	*p = s;
	*out = v;
	return 0;
}

int sym_order_cmp(const void *a, const void *b)
{
	const struct sym_order *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->under != y->under)
		return x->under < y->under ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t sym_upper_bound(const void *base, size_t n, size_t size, __u64 addr)
{
	size_t lo = 0, hi = n, mid;
	__u64 key;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		memcpy(&key, (const char *)base + mid * size, sizeof(key));
		if (key <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

__u8 sym_leading_underscores(const char *name, size_t len)
{
	size_t n = 0;

	while (n < len && n < 255 && name[n] == '_')
		n++;
	return (__u8)n;
}

void ls_sym__unknown(struct ls_sym *out, enum ls_sym_status status)
{
	memset(out, 0, sizeof(*out));
	out->status = (__u8)status;
}
