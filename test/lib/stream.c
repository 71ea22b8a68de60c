// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Synthetic record streams for tests: see stream.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"
#include "lib/stream.h"

static void *stream__xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "stream: out of memory\n");
		abort();
	}
	return p;
}

void stream__init(struct stream *s)
{
	memset(s, 0, sizeof(*s));
}

void stream__free(struct stream *s)
{
	free(s->buf);
	free(s->lens);
	memset(s, 0, sizeof(*s));
}

void stream__clear(struct stream *s)
{
	s->len = 0;
	s->n = 0;
	s->lost_before = 0;
}

void stream__lost_before(struct stream *s, __u16 n)
{
	s->lost_before = n;
}

void stream__raw(struct stream *s, const void *bytes, size_t len)
{
	if (s->len + len > s->alloc) {
		s->alloc = (s->len + len) * 2 + 256;
		s->buf = stream__xrealloc(s->buf, s->alloc);
	}
	if (s->n == s->lens_alloc) {
		s->lens_alloc = s->lens_alloc ? s->lens_alloc * 2 : 64;
		s->lens = stream__xrealloc(s->lens, s->lens_alloc * sizeof(*s->lens));
	}
	if (len)
		memcpy(s->buf + s->len, bytes, len);
	s->len += len;
	s->lens[s->n++] = len;
}

/* Frame rec (whose first member is struct ls_hdr) and append it. */
static void stream__append(struct stream *s, void *rec, size_t size, __u16 type, __u16 cpu, __u64 ts)
{
	struct ls_hdr *hdr = rec;

	hdr->type = type;
	hdr->size = size;
	hdr->cpu = cpu;
	hdr->lost_before = s->lost_before;
	hdr->ts = ts;
	s->lost_before = 0;
	stream__raw(s, rec, size);
}

struct ls_task stream__task(__u32 tid, __u32 tgid, __u8 policy, __s8 nice, __u8 rt_prio,
			    const char *comm)
{
	struct ls_task t;

	memset(&t, 0, sizeof(t));
	t.tid = tid;
	t.tgid = tgid;
	t.policy = policy;
	t.nice = nice;
	t.rt_prio = rt_prio;
	if (policy == LS_POLICY_FIFO || policy == LS_POLICY_RR)
		t.prio = 99 - rt_prio;
	else if (policy == LS_POLICY_DEADLINE)
		t.prio = -1;
	else
		t.prio = 120 + nice;
	if (comm)
		memcpy(t.comm, comm, strnlen(comm, sizeof(t.comm)));
	return t;
}

struct ls_lock_id stream__mm(__u64 id, __u32 tgid, const char *comm)
{
	struct ls_lock_id mm;

	memset(&mm, 0, sizeof(mm));
	mm.id = id;
	mm.tgid = tgid;
	if (comm)
		memcpy(mm.comm, comm, strnlen(comm, sizeof(mm.comm)));
	return mm;
}

struct ls_op stream__fault(__u64 addr, __u16 fault_flags)
{
	struct ls_op op = { .addr = addr, .syscall = -1, .kind = LS_OP_PAGE_FAULT,
			    .fault_flags = fault_flags };

	return op;
}

struct ls_op stream__syscall(int nr)
{
	struct ls_op op = { .syscall = nr, .kind = LS_OP_SYSCALL };

	return op;
}

static void stream__task_or_idle(struct ls_task *dst, const struct ls_task *t)
{
	if (t)
		*dst = *t;
	else
		memset(dst, 0, sizeof(*dst));
}

static void stream__lock(struct stream *s, __u16 type, __u16 cpu, __u64 ts,
			 const struct ls_task *t, const struct ls_lock_id *mm,
			 const struct stream_lock *l)
{
	struct ls_rec_lock r;

	memset(&r, 0, sizeof(r));
	stream__task_or_idle(&r.task, t);
	r.lock = *mm;
	r.op = l->op;
	if (r.op.kind == LS_OP_UNKNOWN && !r.op.addr)
		r.op.syscall = -1;
	r.start_ns = l->start;
	r.granted_ns = l->granted;
	r.acquired_ns = l->acquired;
	r.offcpu_ns = l->offcpu;
	r.write = l->write;
	r.success = type == LS_REC_WAIT_END ? !l->failed : 0;
	r.flags = l->flags;
	r.cgroup_id = l->cgroup;
	r.owner_how = l->owner_how;
	r.owner_tid = l->owner_tid;
	stream__append(s, &r, sizeof(r), type, cpu, ts);
}

void stream__wait_begin(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
			const struct ls_lock_id *mm, const struct stream_lock *l)
{
	stream__lock(s, LS_REC_WAIT_BEGIN, cpu, ts, t, mm, l);
}

void stream__wait_end(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		      const struct ls_lock_id *mm, const struct stream_lock *l)
{
	stream__lock(s, LS_REC_WAIT_END, cpu, ts, t, mm, l);
}

void stream__hold(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		  const struct ls_lock_id *mm, const struct stream_lock *l)
{
	stream__lock(s, LS_REC_HOLD, cpu, ts, t, mm, l);
}

void stream__switch(struct stream *s, __u16 cpu, __u64 ts,
		    const struct ls_task *prev, __u8 prev_flags, bool prev_runnable,
		    const struct ls_task *next, __u8 next_flags)
{
	struct ls_rec_switch r;

	memset(&r, 0, sizeof(r));
	stream__task_or_idle(&r.prev, prev);
	stream__task_or_idle(&r.next, next);
	r.prev_runnable = prev_runnable;
	r.prev_flags = prev_flags;
	r.next_flags = next_flags;
	stream__append(s, &r, sizeof(r), LS_REC_SWITCH, cpu, ts);
}

void stream__cause(struct stream *s, __u8 cause)
{
	struct ls_hdr *h = (struct ls_hdr *)(s->buf + s->len - s->lens[s->n - 1]);

	if (h->type == LS_REC_SWITCH)
		((struct ls_rec_switch *)h)->prev_cause = cause;
	else if (h->type == LS_REC_WAKEUP)
		((struct ls_rec_wakeup *)h)->wakee_cause = cause;
	else if (h->type == LS_REC_OWNER)
		((struct ls_rec_owner *)h)->owner_cause = cause;
	else
		abort();
}

/* "/a/b" into the kernel's names[] (leaf first); returns how many. */
static __u8 stream__cg_names(char out[LS_CG_DEPTH][LS_CG_NAME], const char *path)
{
	const char *names[LS_CG_DEPTH], *p;
	int n = 0, i;

	for (p = path; *p && n < LS_CG_DEPTH; ) {
		while (*p == '/')
			p++;
		if (*p)
			names[n++] = p;
		while (*p && *p != '/')
			p++;
	}
	/* the kernel sends them leaf first */
	for (i = 0; i < n; i++) {
		const char *c = names[n - 1 - i];
		size_t len = strcspn(c, "/");

		memcpy(out[i], c, len < LS_CG_NAME ? len : LS_CG_NAME);
	}
	return n;
}

void stream__throttle(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		      const char *path, __u32 hierarchy_id, __u64 quota_ns, __u64 period_ns)
{
	struct ls_rec_throttle r;

	memset(&r, 0, sizeof(r));
	r.tid = t->tid;
	r.tgid = t->tgid;
	r.cgroup_id = 4242;
	r.hierarchy_id = hierarchy_id;
	r.quota_ns = quota_ns;
	r.period_ns = period_ns;
	r.depth = stream__cg_names(r.names, path);
	stream__append(s, &r, sizeof(r), LS_REC_THROTTLE, cpu, ts);
}

void stream__reclaim(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t, __u8 kind,
		     const struct stream_memcg *m)
{
	struct ls_rec_reclaim r;

	memset(&r, 0, sizeof(r));
	r.tid = t->tid;
	r.tgid = t->tgid;
	r.kind = kind;
	if (m) {
		r.cgroup_id = 4343;
		r.hierarchy_id = m->hierarchy_id;
		r.limit = m->limit;
		r.usage_pages = m->usage_pages;
		r.limit_pages = m->limit_pages;
		r.depth = stream__cg_names(r.names, m->path);
	}
	stream__append(s, &r, sizeof(r), LS_REC_RECLAIM, cpu, ts);
}

void stream__reclaim_end(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
			 __u8 kind, __u64 nr_reclaimed)
{
	struct ls_rec_reclaim_end r;

	memset(&r, 0, sizeof(r));
	r.tid = t->tid;
	r.tgid = t->tgid;
	r.kind = kind;
	r.nr_reclaimed = nr_reclaimed;
	stream__append(s, &r, sizeof(r), LS_REC_RECLAIM_END, cpu, ts);
}

void stream__unthrottle(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
			__u64 throttled_ns)
{
	struct ls_rec_unthrottle r;

	memset(&r, 0, sizeof(r));
	r.tid = t->tid;
	r.tgid = t->tgid;
	r.throttled_ns = throttled_ns;
	stream__append(s, &r, sizeof(r), LS_REC_UNTHROTTLE, cpu, ts);
}

void stream__io_dev(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t, __u32 dev,
		    const char *disk)
{
	struct ls_rec_io_dev r;

	memset(&r, 0, sizeof(r));
	r.tid = t->tid;
	r.tgid = t->tgid;
	r.dev = dev;
	memcpy(r.disk, disk, strnlen(disk, sizeof(r.disk)));
	stream__append(s, &r, sizeof(r), LS_REC_IO_DEV, cpu, ts);
}

void stream__runnable(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		      __u64 start, __u64 allowed, __u32 nr_allowed, __u32 nr_cpus,
		      __u64 idle_cpus, __u64 idle_ns)
{
	struct ls_rec_runnable r;

	memset(&r, 0, sizeof(r));
	r.tid = t->tid;
	r.tgid = t->tgid;
	r.start_ns = start;
	r.allowed = allowed;
	r.nr_cpus_allowed = nr_allowed;
	r.nr_cpus = nr_cpus;
	r.idle_cpus = idle_cpus;
	r.idle_ns = idle_ns;
	stream__append(s, &r, sizeof(r), LS_REC_RUNNABLE, cpu, ts);
}

void stream__steal(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		   __u64 on_ns, __u64 steal_ns)
{
	struct ls_rec_steal r;

	memset(&r, 0, sizeof(r));
	r.tid = t->tid;
	r.tgid = t->tgid;
	r.on_ns = on_ns;
	r.steal_ns = steal_ns;
	stream__append(s, &r, sizeof(r), LS_REC_STEAL, cpu, ts);
}

void stream__task_cgroup(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
			 __u64 cgroup)
{
	struct ls_rec_task_cgroup r;

	memset(&r, 0, sizeof(r));
	r.tid = t->tid;
	r.tgid = t->tgid;
	r.cgroup_id = cgroup;
	stream__append(s, &r, sizeof(r), LS_REC_TASK_CGROUP, cpu, ts);
}

void stream__wakeup(struct stream *s, __u16 cpu, __u64 ts,
		    const struct ls_task *wakee, __u8 wakee_flags, const struct ls_task *waker,
		    __u32 target_cpu, const struct ls_task *target_curr)
{
	struct ls_rec_wakeup r;

	memset(&r, 0, sizeof(r));
	stream__task_or_idle(&r.wakee, wakee);
	stream__task_or_idle(&r.waker, waker);
	stream__task_or_idle(&r.target_curr, target_curr);
	r.target_cpu = target_cpu;
	r.wakee_flags = wakee_flags;
	stream__append(s, &r, sizeof(r), LS_REC_WAKEUP, cpu, ts);
}

void stream__migrate(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t, __u8 flags,
		     __u32 from_cpu, __u32 to_cpu, const struct ls_task *dest_curr)
{
	struct ls_rec_migrate r;

	memset(&r, 0, sizeof(r));
	stream__task_or_idle(&r.task, t);
	stream__task_or_idle(&r.dest_curr, dest_curr);
	r.from_cpu = from_cpu;
	r.to_cpu = to_cpu;
	r.flags = flags;
	stream__append(s, &r, sizeof(r), LS_REC_MIGRATE, cpu, ts);
}

void stream__owner(struct stream *s, __u16 cpu, __u64 ts, const struct ls_lock_id *lock,
		   const struct stream_owner *o)
{
	struct ls_rec_owner r;

	memset(&r, 0, sizeof(r));
	stream__task_or_idle(&r.waiter, o->waiter);
	stream__task_or_idle(&r.owner, o->owner);
	stream__task_or_idle(&r.cpu_curr, o->cpu_curr);
	r.lock = *lock;
	r.start_ns = o->start;
	r.owner_cpu = o->owner_cpu;
	r.owner_state = o->state;
	r.how = o->how;
	r.owner_flags = o->owner_flags;
	r.owner_cause = o->owner_cause;
	stream__append(s, &r, sizeof(r), LS_REC_OWNER, cpu, ts);
}

void stream__exit(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t, __u8 flags)
{
	struct ls_rec_exit r;

	memset(&r, 0, sizeof(r));
	stream__task_or_idle(&r.task, t);
	r.flags = flags;
	stream__append(s, &r, sizeof(r), LS_REC_EXIT, cpu, ts);
}

static void stream__hist_flags(struct stream *s, __u64 ts, __u32 tgid, __u8 kind, __u8 write,
			       __u8 flags, const struct ls_hist *h)
{
	struct ls_rec_hist r;

	memset(&r, 0, sizeof(r));
	r.key.tgid = tgid;
	r.key.kind = kind;
	r.key.write = write;
	r.key.flags = flags;
	r.hist = *h;
	stream__append(s, &r, sizeof(r), LS_REC_HIST, 0, ts);
}

void stream__hist(struct stream *s, __u64 ts, __u32 tgid, __u8 kind, __u8 write,
		  const struct ls_hist *h)
{
	stream__hist_flags(s, ts, tgid, kind, write, 0, h);
}

void stream__hist_exited(struct stream *s, __u64 ts, __u32 tgid, __u8 kind, __u8 write,
			 const struct ls_hist *h)
{
	stream__hist_flags(s, ts, tgid, kind, write, LS_HIST_F_EXITED, h);
}

void stream__mark(struct stream *s, __u64 ts, __u32 kind, __u32 features)
{
	struct ls_rec_mark r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.features = features;
	stream__append(s, &r, sizeof(r), LS_REC_MARK, 0, ts);
}

void stream__lost(struct stream *s, __u64 ts, __u64 count, __u64 first_ns, __u64 last_ns)
{
	struct ls_rec_lost r;

	memset(&r, 0, sizeof(r));
	r.count = count;
	r.first_ns = first_ns;
	r.last_ns = last_ns;
	stream__append(s, &r, sizeof(r), LS_REC_LOST, 0, ts);
}

void stream__tick(struct stream *s, __u64 ts, __u32 kind)
{
	struct ls_rec_tick r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	stream__append(s, &r, sizeof(r), LS_REC_TICK, 0, ts);
}

int stream__feed(const struct stream *s, struct engine *e)
{
	size_t off = 0, i;
	int err, first = 0;

	for (i = 0; i < s->n; i++) {
		err = engine__feed(e, s->buf + off, s->lens[i]);
		if (err < 0 && !first)
			first = err;
		off += s->lens[i];
	}
	return first;
}

void stream__stack(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		   const struct ls_lock_id *mm, __u8 why, const __u64 *kip, unsigned int nk,
		   __u32 copy_len)
{
	size_t size = sizeof(struct ls_rec_stack) + ((copy_len + 7) & ~7u);
	struct ls_rec_stack *r = stream__xrealloc(NULL, size);

	memset(r, 0, size);
	r->tid = t->tid;
	r->tgid = t->tgid;
	r->lock_id = mm->id;
	r->why = why;
	r->user_mode = copy_len ? LS_USTACK_DWARF : LS_USTACK_NONE;
	r->nr_kernel = nk > LS_KSTACK_MAX ? LS_KSTACK_MAX : nk;
	memcpy(r->kernel, kip, r->nr_kernel * sizeof(__u64));
	r->copy_len = copy_len;
	stream__append(s, r, size, LS_REC_STACK, cpu, ts);
	free(r);
}
