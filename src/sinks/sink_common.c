// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the sinks share: stream errors, task and lock text, stalls kept past
 * their callback (histogram selection is in hist_select.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/sink_common.h"
#include "util.h"

int sink__error(FILE *f)
{
	if (!ferror(f))
		return 0;
	/* errno is still the failed write's (ENOSPC on a full disk, EPIPE after "| head") */
	return errno ? -errno : -EIO;
}

int sink__flush(FILE *f)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	return sink__error(f);
}

/*
 * The priority a task would have without priority inheritance, to tell when
 * task->prio shows a boost (it can hold an rt_mutex besides mmap_lock).
 */
static int sink__normal_prio(const struct ls_task *t)
{
	switch (t->policy) {
	case LS_POLICY_FIFO:
	case LS_POLICY_RR:
		return 99 - t->rt_prio;
	case LS_POLICY_DEADLINE:
		return -1;
	}
	return 120 + t->nice;
}

const char *sink__rename_text(const struct ls_rename *r, char *buf, size_t len)
{
	char comm[LS_COMM_TEXT_LEN];

	if (!r) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	snprintf(buf, len, " (%s %s)", r->was ? "was" : "now",
		 ls_comm_text(r->other, comm, sizeof(comm)));
	return buf;
}

const char *sink__words(const char *name, bool upper, char *buf, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++) {
		char c = name[i] == '_' ? ' ' : name[i];

		buf[i] = upper && c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
	}
	buf[i] = '\0';
	return buf;
}

/* log2(x + 1) in 1/256ths: the integer part, then linear up to the next power of two. */
static __u64 log2_fixed(__u64 x)
{
	__u64 v = x + 1;
	unsigned int n;

	if (!v)		/* x == UINT64_MAX */
		return 64 * 256;
	n = 63 - (unsigned int)__builtin_clzll(v);
	return (__u64)n * 256 + (n >= 8 ? (v - (1ULL << n)) >> (n - 8) : (v - (1ULL << n)) << (8 - n));
}

/*
 * Log-scaled: the sub-microsecond bucket of a busy lock holds millions,
 * the tail that matters a handful; on a linear scale the tail has no bar.
 * A non-zero count always gets at least one unit.
 */
unsigned int sink__bar_len(__u64 v, __u64 max, unsigned int width)
{
	__u64 len;

	if (!v || !max)
		return 0;
	if (v >= max)
		return width;
	len = (log2_fixed(v) * width + log2_fixed(max) / 2) / log2_fixed(max);
	return len ? (unsigned int)len : 1;
}

const char *sink__unseen_text(const struct ls_task *t, char *buf, size_t len)
{
	if (ls_task_seen(t))
		return NULL;
	snprintf(buf, len, "tid %u (not seen)", t->tid);
	return buf;
}

const char *sink__sched_text(const struct ls_task *t, char *buf, size_t len)
{
	const char *name = ls_policy_name(t->policy);
	size_t i, n;
	int w;

	if (!ls_task_seen(t)) {
		snprintf(buf, len, "policy not known");
		return buf;
	}
	if (!strcmp(name, "unknown")) {
		w = snprintf(buf, len, "policy %u", t->policy);
	} else {
		w = snprintf(buf, len, "SCHED_");
		for (i = 0, n = (size_t)w; name[i] && n + 1 < len; i++, n++)
			buf[n] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
		buf[n] = '\0';
		w = (int)n;
	}
	if (w < 0 || (size_t)w >= len)
		return buf;
	if (t->policy == LS_POLICY_FIFO || t->policy == LS_POLICY_RR)
		w += snprintf(buf + w, len - w, " rt %u", t->rt_prio);
	else if (t->policy == LS_POLICY_NORMAL || t->policy == LS_POLICY_BATCH)
		w += snprintf(buf + w, len - w, " nice %d", t->nice);
	if ((size_t)w < len && t->prio < sink__normal_prio(t))
		snprintf(buf + w, len - w, " boosted to prio %d", t->prio);
	return buf;
}

const char *sink__lock_text(const struct ls_lock_id *lock, char *buf, size_t len)
{
	char comm[LS_COMM_TEXT_LEN];

	if (lock->tgid)
		snprintf(buf, len, "%s 0x%llx of %s[%u]", ls_lock_kind_name(lock->kind),
			 (unsigned long long)lock->id,
			 ls_comm_text(lock->comm, comm, sizeof(comm)), lock->tgid);
	else
		snprintf(buf, len, "%s 0x%llx", ls_lock_kind_name(lock->kind),
			 (unsigned long long)lock->id);
	return buf;
}

/* A futex by its data symbol: "futex g_queue_lock [app] of app[1234]". */
static const char *sink__futex_text(const struct ls_lock_id *lock, const char *lock_name,
				    const char *module, char *buf, size_t len)
{
	char name[256], mod[256], comm[LS_COMM_TEXT_LEN];
	const char *base = sink__basename(module);

	ls_text(lock_name, (size_t)-1, name, sizeof(name));
	if (base)
		ls_text(base, (size_t)-1, mod, sizeof(mod));
	snprintf(buf, len, "%s %s%s%s%s of %s[%u]", ls_lock_kind_name(lock->kind), name,
		 base ? " [" : "", base ? mod : "", base ? "]" : "",
		 ls_comm_text(lock->comm, comm, sizeof(comm)), lock->tgid);
	return buf;
}

/* A lock with the names the resolver found, as sink__stall_lock_text() says. */
static const char *sink__named_lock_text(const struct ls_lock_id *lock, const char *lock_name,
					 const char *module, const char *lock_caller,
					 char *buf, size_t len)
{
	char name[256], caller[256];

	if (ls_lock_is_user(lock->kind) && lock_name && lock->tgid)
		return sink__futex_text(lock, lock_name, module, buf, len);
	if (!ls_lock_is_kernel(lock->kind))
		return sink__lock_text(lock, buf, len);
	if (lock_name)
		ls_text(lock_name, (size_t)-1, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)lock->id);
	if (lock_caller && !lock_name)
		snprintf(buf, len, "%s %s in %s", ls_lock_kind_name(lock->kind), name,
			 ls_text(lock_caller, (size_t)-1, caller, sizeof(caller)));
	else
		snprintf(buf, len, "%s %s", ls_lock_kind_name(lock->kind), name);
	return buf;
}

const char *sink__stall_lock_text(const struct ls_stall *st, char *buf, size_t len)
{
	return sink__named_lock_text(&st->lock, st->lock_name, st->lock_module, st->lock_caller,
				     buf, len);
}

const char *sink__hop_lock_text(const struct ls_hop *hop, char *buf, size_t len)
{
	return sink__named_lock_text(&hop->lock, hop->lock_name, hop->lock_module, NULL, buf, len);
}

const char *sink__start_unknown(bool began_before, bool found_late)
{
	if (!began_before)
		return "";
	return found_late ? " (found late)" : " (began before tracing)";
}

bool sink__verdict_listed(const struct ls_summary *sum, unsigned int v)
{
	return v != LS_VERDICT_DEADLOCK || sum->stalls_by_verdict[v];
}

const char *sink__basename(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash && slash[1] ? slash + 1 : path;
}

const char *sink__frame_text(const struct ls_frame *f, char *buf, size_t len)
{
	const char *base = sink__basename(f->module);
	char sym[SINK_NAME_TEXT_MAX], mod[SINK_NAME_TEXT_MAX];

	/* both are the traced system's bytes: a symbol may hold ESC[2J and a newline */
	if (base)
		ls_text(base, (size_t)-1, mod, sizeof(mod));
	if (!f->sym) {
		if (base)
			snprintf(buf, len, "[unknown] 0x%llx (%s+0x%llx)", (unsigned long long)f->addr,
				 mod, (unsigned long long)f->off);
		else
			snprintf(buf, len, "[unknown] 0x%llx", (unsigned long long)f->addr);
		return buf;
	}
	ls_text(f->sym, (size_t)-1, sym, sizeof(sym));
	/* the kernel's core image goes without a module: most frames are its */
	if (base && !(f->kind == LS_FRAME_KERNEL && !strcmp(base, "vmlinux")))
		snprintf(buf, len, "%s+0x%llx [%s]", sym, (unsigned long long)f->off, mod);
	else
		snprintf(buf, len, "%s+0x%llx", sym, (unsigned long long)f->off);
	return buf;
}

__u64 stack_seen__check(struct stack_seen *s, __u64 digest, __u64 seq)
{
	const unsigned int cap = STACK_SEEN_MAX * 2;
	unsigned int i;

	/* 0 marks an empty slot: a digest of 0 is never remembered */
	if (!digest)
		return 0;
	for (i = digest & (cap - 1);; i = (i + 1) & (cap - 1)) {
		if (s->digest[i] == digest)
			return s->seq[i];
		if (!s->digest[i])
			break;
	}
	if (s->n < STACK_SEEN_MAX) {
		s->digest[i] = digest;
		s->seq[i] = seq;
		s->n++;
	}
	return 0;
}

/* The frames array: strings follow it in ls_frames__dup's block. */
static size_t fr_size(const struct ls_frames *fr)
{
	return fr ? fr->n * sizeof(fr->v[0]) : 0;
}

static size_t str_size(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* Copy s to *at, advancing it; NULL stays NULL. */
static const char *str_put(char **at, const char *s)
{
	size_t n = str_size(s);
	char *out = *at;

	if (!s)
		return NULL;
	memcpy(out, s, n);
	*at += n;
	return out;
}

struct ls_frames *ls_frames__dup(const struct ls_frames *fr)
{
	size_t size = sizeof(*fr) + fr_size(fr), i;
	struct ls_frames *c;
	struct ls_frame *v;
	char *at;

	if (!fr)
		return NULL;
	for (i = 0; i < fr->n; i++)
		size += str_size(fr->v[i].sym) + str_size(fr->v[i].module);
	size += str_size(fr->user_method) + str_size(fr->note);
	c = malloc(size);
	if (!c)
		return NULL;
	*c = *fr;
	v = (struct ls_frame *)(c + 1);
	at = (char *)(v + fr->n);
	for (i = 0; i < fr->n; i++) {
		v[i] = fr->v[i];
		v[i].sym = str_put(&at, fr->v[i].sym);
		v[i].module = str_put(&at, fr->v[i].module);
	}
	c->v = v;
	c->user_method = str_put(&at, fr->user_method);
	c->note = str_put(&at, fr->note);
	return c;
}

void stall_copy__release(struct stall_copy *c)
{
	unsigned int i;

	for (i = 0; i < 1 + LS_MAX_HOLDERS; i++)
		free(c->frames[i]);
	free(c->holders);
	free(c->spells);
	free(c->paths);
	memset(c, 0, sizeof(*c));
}

/* The strings of c->st (cgroup paths, lock names), moved into one block of c's own. */
static void stall_copy__paths(struct stall_copy *c)
{
	const char **path[4 + LS_MAX_HOLDERS * (1 + LS_MAX_PREEMPTORS) + 2 * LS_MAX_HOPS];
	size_t n = 0, need = 0, i, k;
	struct ls_holder *h;
	char *at;

	path[n++] = &c->st.waiter_cgroup;
	path[n++] = &c->st.lock_name;
	path[n++] = &c->st.lock_caller;
	path[n++] = &c->st.lock_module;
	for (i = 0; i < c->st.n_holders; i++) {
		h = &c->holders[i];
		path[n++] = &h->cgroup;
		for (k = 0; k < h->n_preempted_by && k < LS_MAX_PREEMPTORS; k++)
			path[n++] = &h->preempted_by[k].cgroup;
	}
	for (i = 0; i < c->st.n_chain && i < LS_MAX_HOPS; i++) {
		path[n++] = &c->st.chain[i].lock_name;
		path[n++] = &c->st.chain[i].lock_module;
	}
	for (i = 0; i < n; i++)
		need += str_size(*path[i]);
	c->paths = need ? malloc(need) : NULL;
	at = c->paths;
	for (i = 0; i < n; i++)
		*path[i] = at ? str_put(&at, *path[i]) : NULL;
}

/* path, if st tells task cgroups and path is known and not the same as ref. */
static const char *sink__cgroup_news(const struct ls_stall *st, const char *path, const char *ref)
{
	if (!st->task_cgroups || !path || (ref && !strcmp(path, ref)))
		return NULL;
	return path;
}

const char *sink__holder_cgroup(const struct ls_stall *st, const struct ls_holder *h)
{
	return sink__cgroup_news(st, h->cgroup, st->waiter_cgroup);
}

const char *sink__preemptor_cgroup(const struct ls_stall *st, const struct ls_holder *h,
				   const struct ls_preemptor *p)
{
	return sink__cgroup_news(st, p->cgroup, h->cgroup ? h->cgroup : st->waiter_cgroup);
}

const char *sink__throttle_text(const struct ls_throttle *t, char *buf, size_t len)
{
	char path[4 * LS_THROTTLE_PATH_MAX], q[32], p[32];

	if (ls_cgroup_text(t->path, strnlen(t->path, sizeof(t->path)), path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "?");
	if (t->quota_ns == (__u64)-1)
		snprintf(q, sizeof(q), "none");
	else
		ls_format_duration(t->quota_ns, q, sizeof(q));
	snprintf(buf, len, "%s (cgroup %s) quota %s per %s", path, t->hierarchy_id ? "v1" : "v2", q,
		 ls_format_duration(t->period_ns, p, sizeof(p)));
	return buf;
}

/* "16.0MiB": a memory size in binary units. */
static const char *sink__bytes(__u64 n, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	unsigned int i = 0;

	while (v >= 1024 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f%s" : "%.0f%s", v, unit[i]);
	return buf;
}

static const char *sink__reclaim_text(const struct ls_reclaim *r, char *buf, size_t len)
{
	char path[4 * LS_THROTTLE_PATH_MAX], u[32], l[32];

	if (r->limit == LS_MEMCG_LIMIT_NONE) {
		snprintf(buf, len, "%s", r->kind == LS_RECLAIM_DIRECT ? "direct reclaim" :
			 r->kind == LS_RECLAIM_MEMCG ? "memcg reclaim" : "compaction");
		return buf;
	}
	if (ls_cgroup_text(r->path, strnlen(r->path, sizeof(r->path)), path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "?");
	snprintf(buf, len, "memcg reclaim: %s (cgroup %s) at its %s %s, usage %s", path,
		 r->hierarchy_id ? "v1" : "v2", r->limit == LS_MEMCG_LIMIT_HIGH ? "high" : "max",
		 sink__bytes(r->limit_bytes, l, sizeof(l)), sink__bytes(r->usage_bytes, u, sizeof(u)));
	return buf;
}

/* "device 254:1 (disk vda)": the disk's name escaped as ls_text() does. */
static const char *sink__io_text(const struct ls_holder *h, char *buf, size_t len)
{
	char disk[LS_DISK_NAME_LEN * 4 + 1];
	int n = snprintf(buf, len, "device %u:%u", LS_DEV_MAJOR(h->io_dev),
			 LS_DEV_MINOR(h->io_dev));

	if (h->io_disk[0] && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (disk %s)",
			 ls_text(h->io_disk, sizeof(h->io_disk), disk, sizeof(disk)));
	return buf;
}

const char *sink__cpu_list(__u64 mask, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i, j;
	int k;

	if (!mask) {
		snprintf(buf, len, "none");
		return buf;
	}
	buf[0] = '\0';
	for (i = 0; i < 64 && n < len; i = j) {
		if (!(mask & (1ULL << i))) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < 64 && (mask & (1ULL << j)); j++)
			;
		k = j - 1 == i ? snprintf(buf + n, len - n, "%s%u", n ? "," : "", i) :
			snprintf(buf + n, len - n, "%s%u-%u", n ? "," : "", i, j - 1);
		if (k < 0)
			break;
		n += k;
	}
	return buf;
}

/* "allowed CPUs 1 (1 of 2), idle meanwhile: CPUs 0" of a pinned holder. */
static const char *sink__pinned_text(const struct ls_pinned *p, char *buf, size_t len)
{
	char allowed[SINK_CPU_LIST_LEN], idle[SINK_CPU_LIST_LEN];

	snprintf(buf, len, "allowed CPUs %s (%u of %u), idle meanwhile: CPUs %s",
		 sink__cpu_list(p->allowed, allowed, sizeof(allowed)), p->nr_cpus_allowed,
		 p->nr_cpus, sink__cpu_list(p->idle_cpus, idle, sizeof(idle)));
	return buf;
}

static const char *sink__throttled_cause(const struct ls_holder *h, char *buf, size_t len)
{
	return h->throttle ? sink__throttle_text(h->throttle, buf, len) : NULL;
}

static const char *sink__reclaim_cause(const struct ls_holder *h, char *buf, size_t len)
{
	return h->reclaim ? sink__reclaim_text(h->reclaim, buf, len) : NULL;
}

static const char *sink__io_cause(const struct ls_holder *h, char *buf, size_t len)
{
	return h->io_dev ? sink__io_text(h, buf, len) : NULL;
}

static const char *sink__runnable_cause(const struct ls_holder *h, char *buf, size_t len)
{
	return h->pinned.nr_cpus ? sink__pinned_text(&h->pinned, buf, len) : NULL;
}

const char *sink__cause_text(const struct ls_holder *h, enum ls_cause c, char *buf, size_t len)
{
	/* What a cause has to say beyond its time, when the kernel said it. */
	static const char *(*const detail[LS_CAUSE_N])(const struct ls_holder *h, char *buf,
							size_t len) = {
		[LS_CAUSE_THROTTLED] = sink__throttled_cause,
		[LS_CAUSE_RECLAIM] = sink__reclaim_cause,
		[LS_CAUSE_IO] = sink__io_cause,
		[LS_CAUSE_RUNNABLE] = sink__runnable_cause,
	};

	return (unsigned int)c < LS_CAUSE_N && detail[c] ? detail[c](h, buf, len) : NULL;
}

int stall_copy__set(struct stall_copy *c, const struct ls_stall *st)
{
	unsigned int n = st->n_holders < LS_MAX_HOLDERS ? st->n_holders : LS_MAX_HOLDERS, i;

	stall_copy__release(c);
	if (n) {
		c->holders = calloc(n, sizeof(*c->holders));
		c->spells = calloc((size_t)n * LS_MAX_SPELLS, sizeof(*c->spells));
		if (!c->holders || !c->spells) {
			stall_copy__release(c);
			return -ENOMEM;
		}
		memcpy(c->holders, st->holders, n * sizeof(*c->holders));
	}
	c->st = *st;
	c->st.n_holders = n;
	c->st.holders = c->holders;
	c->st.waiter_stack = NULL;
	c->frames[0] = ls_frames__dup(st->waiter_frames);
	c->st.waiter_frames = c->frames[0];
	for (i = 0; i < n; i++) {
		struct ls_holder *h = &c->holders[i];

		if (h->n_spells > LS_MAX_SPELLS)
			h->n_spells = LS_MAX_SPELLS;
		if (h->n_spells)
			memcpy(c->spells + (size_t)i * LS_MAX_SPELLS, h->spells,
			       h->n_spells * sizeof(*c->spells));
		h->spells = c->spells + (size_t)i * LS_MAX_SPELLS;
		c->frames[1 + i] = ls_frames__dup(h->frames);
		h->frames = c->frames[1 + i];
		h->stack = NULL;
		if (h->throttle) {
			c->throttles[i] = *h->throttle;
			h->throttle = &c->throttles[i];
		}
		if (h->reclaim) {
			c->reclaims[i] = *h->reclaim;
			h->reclaim = &c->reclaims[i];
		}
	}
	if (c->st.n_renames > LS_MAX_RENAMES)
		c->st.n_renames = LS_MAX_RENAMES;
	if (c->st.n_renames)
		memcpy(c->renames, st->renames, c->st.n_renames * sizeof(*c->renames));
	c->st.renames = c->renames;
	stall_copy__paths(c);
	return 0;
}
