// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel symbols from /proc/kallsyms: text symbols sorted by address,
 * each with an end (kallsyms has no sizes, see KSYMS_TAIL_MAX), found by
 * binary search.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/internal.h"
#include "util.h"

#define NO_MODULE UINT32_MAX

struct ksym {
	struct sym_order o;	/* first: sorted and searched by it */
	__u64 end;		/* exclusive */
	__u32 name;		/* offset in names */
	__u32 mod;		/* offset in names, NO_MODULE for the core kernel */
};

struct ksyms {
	struct ksym *v;
	size_t n;
	struct ksym *dv;	/* data symbols (d, D, b, B): static locks are named by them */
	size_t dn;
	char *names;
};

/* Globals name functions best; weak aliases least. */
static int type_rank(char type)
{
	switch (type) {
	case 'T': return 0;
	case 't': return 1;
	case 'W': return 2;
	case 'w': return 3;
	default: return -1;
	}
}

/* Data and bss symbols, the same way: globals first. */
static int data_rank(char type)
{
	switch (type) {
	case 'D': case 'B': return 0;
	case 'd': case 'b': return 1;
	default: return -1;
	}
}

/* A vector of ksym: text or data. */
struct kvec {
	struct ksym *v;
	size_t n, alloc;
};

static bool is_name_byte(char c)
{
	return (unsigned char)c > ' ' && c != 0x7f;
}

struct kparse {
	struct kvec text;
	struct kvec data;
	char *names;
	size_t nlen;
	__u32 last_mod;		/* modules repeat line after line: stored once per run */
	size_t last_mod_len;
	size_t zero;		/* text symbols at address 0 */
	__u32 seq;		/* lines seen */
	int err;		/* -ENOMEM, -E2BIG: stop */
};

/* Room for one more; NULL: out of memory or past KSYMS_MAX_SYMS (*err says). */
static struct ksym *kvec__push(struct kvec *kv, int *err)
{
	if (kv->n == KSYMS_MAX_SYMS) {
		*err = -E2BIG;
		return NULL;
	}
	if (kv->n == kv->alloc) {
		size_t alloc = kv->alloc ? kv->alloc * 2 : 4096;
		void *nv = realloc(kv->v, alloc * sizeof(*kv->v));

		if (!nv) {
			*err = -ENOMEM;
			return NULL;
		}
		kv->v = nv;
		kv->alloc = alloc;
	}
	return &kv->v[kv->n++];
}

static int kparse__line(struct kparse *kp, const char *s, const char *end)
{
	const char *name, *mod = NULL;
	size_t name_len, mod_len = 0;
	struct kvec *kv = &kp->text;
	struct ksym *k;
	__u64 addr;
	int rank, err = 0;

	if (sym_parse_hex(&s, end, &addr) || end - s < 3 || s[0] != ' ' || s[2] != ' ')
		return -EINVAL;
	rank = type_rank(s[1]);
	if (rank < 0) {
		rank = data_rank(s[1]);
		kv = &kp->data;
	}
	s += 3;
	name = s;
	while (s < end && is_name_byte(*s))
		s++;
	name_len = (size_t)(s - name);
	if (!name_len || name_len > KSYMS_NAME_MAX)
		return -EINVAL;
	if (s < end) {
		/* "\t[module]" and nothing else */
		if (end - s < 4 || s[0] != '\t' || s[1] != '[' || end[-1] != ']')
			return -EINVAL;
		mod = s + 2;
		mod_len = (size_t)(end - 1 - mod);
		if (!mod_len || mod_len > KSYMS_NAME_MAX)
			return -EINVAL;
		for (s = mod; s < end - 1; s++) {
			if (!is_name_byte(*s) || *s == '[' || *s == ']')
				return -EINVAL;
		}
	}
	if (rank < 0)
		return 0;	/* read-only data, absolute symbols: fine, but not ours */
	if (!addr) {
		kp->zero += kv == &kp->text;
		return 0;
	}
	k = kvec__push(kv, &err);
	if (!k)
		return err;
	k->o = (struct sym_order){
		.addr = addr,
		.seq = kp->seq,
		.rank = (__u8)rank,
		.under = sym_leading_underscores(name, name_len),
	};
	k->end = 0;
	/* names was sized for the whole text: every name fits */
	k->name = (__u32)kp->nlen;
	memcpy(kp->names + kp->nlen, name, name_len);
	kp->names[kp->nlen + name_len] = '\0';
	kp->nlen += name_len + 1;
	if (!mod) {
		k->mod = NO_MODULE;
	} else if (kp->last_mod != NO_MODULE && kp->last_mod_len == mod_len &&
		   !memcmp(kp->names + kp->last_mod, mod, mod_len)) {
		k->mod = kp->last_mod;
	} else {
		k->mod = (__u32)kp->nlen;
		memcpy(kp->names + kp->nlen, mod, mod_len);
		kp->names[kp->nlen + mod_len] = '\0';
		kp->nlen += mod_len + 1;
		kp->last_mod = k->mod;
		kp->last_mod_len = mod_len;
	}
	return 0;
}

static const char *ksym_mod(const struct ksyms *ks, const struct ksym *k)
{
	return k->mod == NO_MODULE ? NULL : ks->names + k->mod;
}

/*
 * Whether a's code runs on up to b.  "[bpf]" is no module but programs
 * and trampolines allocated apart, with room between them where unloaded
 * ones were: each gets the tail, never the gap up to the next.
 */
static bool same_module(const struct ksyms *ks, const struct ksym *a, const struct ksym *b)
{
	const char *ma = ksym_mod(ks, a), *mb = ksym_mod(ks, b);

	if (!ma || !mb)
		return ma == mb;
	return !strcmp(ma, mb) && strcmp(ma, "bpf");
}

/*
 * Sort kv, drop aliases (the best name comes first), and give each symbol
 * its end: code runs on to the next function of its module, at most
 * KSYMS_TAIL_MAX past the last; data ends at the next symbol, at most
 * KSYMS_DATA_TAIL_MAX past its start (kallsyms has no sizes: a lock
 * inside a static struct is named, the heap after the image is not).
 * Returns how many are kept.
 */
static size_t kvec__finish(const struct ksyms *ks, struct kvec *kv, bool code)
{
	__u64 tail_max = code ? KSYMS_TAIL_MAX : KSYMS_DATA_TAIL_MAX;
	size_t i, kept;

	if (!kv->n)
		return 0;
	qsort(kv->v, kv->n, sizeof(*kv->v), sym_order_cmp);
	for (i = 0, kept = 0; i < kv->n; i++) {
		if (kept && kv->v[kept - 1].o.addr == kv->v[i].o.addr)
			continue;
		kv->v[kept++] = kv->v[i];
	}
	for (i = 0; i < kept; i++) {
		struct ksym *k = &kv->v[i], *next = i + 1 < kept ? &kv->v[i + 1] : NULL;
		__u64 tail = k->o.addr + tail_max < k->o.addr ? ~0ULL : k->o.addr + tail_max;

		if (code && next && same_module(ks, k, next))
			k->end = next->o.addr;
		else
			k->end = next && next->o.addr < tail ? next->o.addr : tail;
	}
	return kept;
}

/* Garbage lines are skipped; only running out of memory or room stops. */
static int kparse__each(void *ctx, const char *line, const char *end)
{
	struct kparse *kp = ctx;
	int err = kparse__line(kp, line, end);

	kp->seq++;
	return err == -ENOMEM || err == -E2BIG ? err : 0;
}

int ksyms__parse(struct ksyms **out, const char *text, size_t len)
{
	struct kparse kp = { .last_mod = NO_MODULE };
	struct ksyms *ks = NULL;
	int err = 0;

	*out = NULL;
	if (len > KSYMS_MAX_TEXT)
		return -E2BIG;
	/* names and modules are parts of lines, each with a NUL: len + 1 holds them */
	kp.names = malloc(len + 1);
	ks = calloc(1, sizeof(*ks));
	if (!kp.names || !ks) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = ls_for_each_line(text, len, kparse__each, &kp);
	if (err)
		goto cleanup;
	if (!kp.text.n) {
		/* kptr_restrict: the names are there, the addresses read 0 */
		err = kp.zero ? -EPERM : -ENOENT;
		goto cleanup;
	}
	ks->names = kp.names;
	/* kept for the run: the vectors grew by doubling, the arena was sized for the whole text */
	ks->n = kvec__finish(ks, &kp.text, true);
	ks->v = ls_shrink(kp.text.v, ks->n, sizeof(*ks->v));
	ks->dn = kvec__finish(ks, &kp.data, false);
	ks->dv = kp.data.v ? ls_shrink(kp.data.v, ks->dn, sizeof(*ks->dv)) : NULL;
	ks->names = ls_shrink(kp.names, kp.nlen, 1);
	*out = ks;
	kp.text.v = kp.data.v = NULL;
	kp.names = NULL;
	ks = NULL;
cleanup:
	free(kp.text.v);
	free(kp.data.v);
	free(kp.names);
	free(ks);
	return err;
}

int ksyms__load(struct ksyms **out, const char *path)
{
	char *text;
	size_t len;
	int err;

	*out = NULL;
	err = ls_read_file(path ? path : "/proc/kallsyms", KSYMS_MAX_TEXT, &text, &len);
	if (err)
		return err;
	err = ksyms__parse(out, text, len);
	free(text);
	return err;
}

int ksyms__probe(const char *path)
{
	struct ksyms *ks = NULL;
	char *buf, *nl;
	ssize_t n;
	int fd, err;

	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = malloc(KSYMS_PROBE_BYTES);
	n = buf ? read(fd, buf, KSYMS_PROBE_BYTES) : -1;
	err = !buf ? -ENOMEM : n < 0 ? -errno : 0;
	close(fd);
	/* whole lines only: the last one may be cut */
	nl = !err && n > 0 ? memrchr(buf, '\n', (size_t)n) : NULL;
	if (!err)
		err = nl ? ksyms__parse(&ks, buf, (size_t)(nl + 1 - buf)) : -ENOENT;
	ksyms__free(ks);
	free(buf);
	return err;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->v);
	free(ks->dv);
	free(ks->names);
	free(ks);
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->n : 0;
}

static const struct ksym *ksyms__lookup(const struct ksym *v, size_t n, __u64 addr)
{
	size_t i = v ? sym_upper_bound(v, n, sizeof(*v), addr) : 0;

	if (!i || addr >= v[i - 1].end)
		return NULL;
	return &v[i - 1];
}

static int ksyms__fill(const struct ksyms *ks, const struct ksym *k, __u64 addr,
		       struct ls_sym *out)
{
	if (!k) {
		ls_sym__unknown(out, ks ? LS_SYM_NO_SYMBOL : LS_SYM_NO_MAPPING);
		return -ENOENT;
	}
	ls_sym__unknown(out, LS_SYM_OK);
	out->name = ks->names + k->name;
	out->off = addr - k->o.addr;
	out->module = ksym_mod(ks, k);
	out->resolved = true;
	return 0;
}

int ksyms__find_data(const struct ksyms *ks, __u64 addr, struct ls_sym *out)
{
	return ksyms__fill(ks, ks ? ksyms__lookup(ks->dv, ks->dn, addr) : NULL, addr, out);
}

int ksyms__find(const struct ksyms *ks, __u64 addr, struct ls_sym *out)
{
	return ksyms__fill(ks, ks ? ksyms__lookup(ks->v, ks->n, addr) : NULL, addr, out);
}

static bool is_bpf_sym(const struct ls_sym *sym)
{
	static const char *const prefixes[] = {
		"bpf_prog_", "bpf_trampoline_", "bpf_dispatcher_", "bpf_trace_run",
		"__bpf_trace_", "__traceiter_", "__bpf_prog_enter", "__bpf_prog_exit",
		"trace_call_bpf", "perf_trace_", "__probestub_",
		/* the mmap_lock tracepoints' out-of-line callers (mm/mmap_lock.c) */
		"__mmap_lock_do_trace_",
	};
	size_t i;

	if (sym->module && !strcmp(sym->module, "bpf"))
		return true;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		if (!strncmp(sym->name, prefixes[i], strlen(prefixes[i])))
			return true;
	}
	return false;
}

bool ksyms__is_bpf_frame(const struct ksyms *ks, __u64 addr)
{
	struct ls_sym sym;

	return !ksyms__find(ks, addr, &sym) && is_bpf_sym(&sym);
}

size_t ksyms__skip_bpf_frames(const struct ksyms *ks, const __u64 *ips, size_t n)
{
	struct ls_sym sym;
	size_t i, skip = 0;

	for (i = 0; i < n; i++) {
		if (ksyms__find(ks, ips[i], &sym))
			continue;	/* unknown: skipped only below a BPF frame */
		if (!is_bpf_sym(&sym))
			break;
		skip = i + 1;
	}
	return skip;
}
