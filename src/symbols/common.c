// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Helpers of src/symbols: hex fields, names, lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/internal.h"

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
