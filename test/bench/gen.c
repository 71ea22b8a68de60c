// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Large synthetic record streams for the engine benchmark: see gen.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"

#define GEN_MAX_HOLDERS	64
#define GEN_TID_BASE	100000
#define GEN_TGID_BASE	10000
#define GEN_MM_BASE	0xffff888100000000ULL
#define GEN_US		1000ULL
#define GEN_MS		1000000ULL

/* One contended lock being played out, step by step (see gen__ep_step()). */
struct gen_ep {
	unsigned int step;
	unsigned int nsteps;
	unsigned int preempts;		/* switches on the holder's CPU while it is preempted */
	__u64 next_ts;
	__u64 gap;
	unsigned int mm;
	unsigned int holder[GEN_MAX_HOLDERS];
	unsigned int nh;
	unsigned int waiter;
	unsigned int hog;
	__u16 hcpu, wcpu;
	bool waiter_write;
	__u64 hold_start;
	__u64 off_start;		/* the first holder went off CPU */
	__u64 wait_start;
	__u64 granted;
};

struct gen_task {
	struct ls_task t;
	unsigned int mm;
	bool busy;			/* in an episode: the background leaves it alone */
};

struct gen {
	struct gen_opts o;
	__u64 rng;
	__u64 now;
	__u32 next_tid;
	struct gen_task *tasks;
	struct ls_lock_id *mms;
	struct gen_ep *eps;
	unsigned int rr;
	struct gen_stats st;
};

/* xorshift64*: fast, and the same sequence everywhere. */
static __u64 gen__rand(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545F4914F6CDD1DULL;
}

static __u64 gen__range(struct gen *g, __u64 lo, __u64 hi)
{
	return lo + gen__rand(g) % (hi - lo + 1);
}

void gen_opts__defaults(struct gen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->tasks = 2000;
	o->mms = 200;
	o->cpus = 8;
	o->active = 32;
	o->holders = 2;
	o->stall_pct = 5;
	o->churn_ppm = 200;
	o->mean_gap_ns = 2000;
}

static void gen__task_new(struct gen *g, struct gen_task *t, unsigned int mm)
{
	static const char *const names[] = { "worker", "db-writer", "monitor", "gc", "rt-audio", "batch" };
	unsigned int kind = gen__rand(g) % 16;

	memset(t, 0, sizeof(*t));
	t->mm = mm;
	t->t.tid = g->next_tid++;
	t->t.tgid = g->mms[mm].tgid;
	/* Mostly nice 0; some SCHED_IDLE/batch holders, some real-time waiters. */
	if (kind == 0) {
		t->t.policy = LS_POLICY_FIFO;
		t->t.rt_prio = 10;
		t->t.prio = 89;
	} else if (kind == 1) {
		t->t.policy = LS_POLICY_IDLE;
		t->t.prio = 120;
	} else if (kind == 2) {
		t->t.policy = LS_POLICY_BATCH;
		t->t.nice = 5;
		t->t.prio = 125;
	} else {
		t->t.policy = LS_POLICY_NORMAL;
		t->t.nice = (__s8)(kind % 3) - 1;
		t->t.prio = 120 + t->t.nice;
	}
	snprintf(t->t.comm, sizeof(t->t.comm), "%s-%u", names[kind % 6], t->t.tid % 1000);
	g->st.tids++;
}

struct gen *gen__new(const struct gen_opts *o)
{
	struct gen *g = calloc(1, sizeof(*g));
	unsigned int i;

	if (!g)
		return NULL;
	g->o = *o;
	if (g->o.mms < 1)
		g->o.mms = 1;
	if (g->o.cpus < 2)
		g->o.cpus = 2;
	if (g->o.holders < 1)
		g->o.holders = 1;
	if (g->o.holders > GEN_MAX_HOLDERS)
		g->o.holders = GEN_MAX_HOLDERS;
	if (g->o.active < 1)
		g->o.active = 1;
	/* Every episode needs holders + waiter + hog, and the background some slack. */
	if (g->o.tasks < 2 * g->o.active * (g->o.holders + 2) + g->o.mms * (g->o.holders + 1))
		g->o.tasks = 2 * g->o.active * (g->o.holders + 2) + g->o.mms * (g->o.holders + 1);
	if (!g->o.mean_gap_ns)
		g->o.mean_gap_ns = 1;
	g->rng = o->seed ? o->seed : 1;
	g->now = 1000 * GEN_MS;
	g->next_tid = GEN_TID_BASE;
	g->tasks = calloc(g->o.tasks, sizeof(*g->tasks));
	g->mms = calloc(g->o.mms, sizeof(*g->mms));
	g->eps = calloc(g->o.active, sizeof(*g->eps));
	if (!g->tasks || !g->mms || !g->eps) {
		gen__free(g);
		return NULL;
	}
	for (i = 0; i < g->o.mms; i++) {
		g->mms[i].id = GEN_MM_BASE + (__u64)i * 0x1000;
		g->mms[i].tgid = GEN_TGID_BASE + i;
		snprintf(g->mms[i].comm, sizeof(g->mms[i].comm), "proc-%u", i);
	}
	/* Task i belongs to process i % mms, for good: churn keeps the mm. */
	for (i = 0; i < g->o.tasks; i++)
		gen__task_new(g, &g->tasks[i], i % g->o.mms);
	return g;
}

void gen__free(struct gen *g)
{
	if (!g)
		return;
	free(g->tasks);
	free(g->mms);
	free(g->eps);
	free(g);
}

void gen__stats(const struct gen *g, struct gen_stats *out)
{
	*out = g->st;
}

/* A task of process mm not in an episode; tasks % mms == mm are its own. */
static unsigned int gen__pick_in_mm(struct gen *g, unsigned int mm)
{
	unsigned int per = g->o.tasks / g->o.mms, i, idx;

	for (i = 0; i < 4 * per; i++) {
		idx = mm + (unsigned int)(gen__rand(g) % per) * g->o.mms;
		if (idx < g->o.tasks && !g->tasks[idx].busy)
			return idx;
	}
	return ~0u;
}

static unsigned int gen__pick_free(struct gen *g)
{
	unsigned int idx;

	do
		idx = gen__rand(g) % g->o.tasks;
	while (g->tasks[idx].busy);
	return idx;
}

static struct ls_hdr *gen__hdr(struct gen *g, unsigned char *buf, __u16 type, __u16 size,
			       __u16 cpu)
{
	struct ls_hdr *h = (struct ls_hdr *)buf;

	memset(buf, 0, size);
	h->type = type;
	h->size = size;
	h->cpu = cpu;
	h->ts = g->now;
	g->st.records++;
	g->st.by_type[type]++;
	return h;
}

size_t gen__mark(struct gen *g, void *buf, __u32 kind)
{
	struct ls_rec_mark *m = buf;

	gen__hdr(g, buf, LS_REC_MARK, sizeof(*m), 0);
	m->kind = kind;
	m->features = kind == LS_MARK_BEGIN ? LS_FEAT_PER_VMA_LOCK : 0;
	return sizeof(*m);
}

static size_t gen__switch(struct gen *g, unsigned char *buf, __u16 cpu,
			  const struct ls_task *prev, __u8 pf, bool runnable,
			  const struct ls_task *next, __u8 nf)
{
	struct ls_rec_switch *r = (struct ls_rec_switch *)buf;

	gen__hdr(g, buf, LS_REC_SWITCH, sizeof(*r), cpu);
	r->prev = *prev;
	r->next = *next;
	r->prev_runnable = runnable;
	r->prev_flags = pf;
	r->next_flags = nf;
	return sizeof(*r);
}

static size_t gen__lock(struct gen *g, unsigned char *buf, __u16 type, __u16 cpu,
			const struct gen_task *t, __u64 start, __u64 granted, __u64 acquired,
			__u64 offcpu, bool write, __u8 flags)
{
	struct ls_rec_lock *r = (struct ls_rec_lock *)buf;
	bool fault = t->t.tid & 1;

	gen__hdr(g, buf, type, sizeof(*r), cpu);
	r->task = t->t;
	r->lock = g->mms[t->mm];
	if (fault) {
		r->op.kind = LS_OP_PAGE_FAULT;
		r->op.addr = 0x7f0000000000ULL + (start & 0xfffff000);
		r->op.syscall = -1;
		r->op.fault_flags = LS_PF_USER | LS_PF_WRITE;
	} else {
		r->op.kind = LS_OP_SYSCALL;
		r->op.syscall = write ? 9 : 17;	/* mmap, pread64 */
	}
	r->start_ns = start;
	r->granted_ns = granted;
	r->acquired_ns = acquired;
	r->offcpu_ns = offcpu;
	r->write = write;
	r->success = type == LS_REC_WAIT_END;
	r->flags = flags;
	return sizeof(*r);
}

static size_t gen__wakeup(struct gen *g, unsigned char *buf, __u16 cpu, const struct ls_task *wakee,
			  __u8 flags, const struct ls_task *waker, __u32 target_cpu,
			  const struct ls_task *curr)
{
	struct ls_rec_wakeup *r = (struct ls_rec_wakeup *)buf;

	gen__hdr(g, buf, LS_REC_WAKEUP, sizeof(*r), cpu);
	r->wakee = *wakee;
	r->waker = *waker;
	r->target_curr = *curr;
	r->target_cpu = target_cpu;
	r->wakee_flags = flags;
	return sizeof(*r);
}

/* Start a contended lock: who holds, who waits, who preempts, for how long. */
static bool gen__ep_start(struct gen *g, struct gen_ep *ep)
{
	unsigned int i, idx;
	__u64 len;

	memset(ep, 0, sizeof(*ep));
	ep->mm = gen__rand(g) % g->o.mms;
	ep->nh = g->o.holders;
	for (i = 0; i < ep->nh + 1; i++) {
		idx = gen__pick_in_mm(g, ep->mm);
		if (idx == ~0u)
			goto undo;
		g->tasks[idx].busy = true;
		if (i < ep->nh)
			ep->holder[i] = idx;
		else
			ep->waiter = idx;
	}
	ep->hog = gen__pick_free(g);
	g->tasks[ep->hog].busy = true;
	ep->hcpu = gen__rand(g) % g->o.cpus;
	ep->wcpu = (ep->hcpu + 1 + gen__rand(g) % (g->o.cpus - 1)) % g->o.cpus;
	/* One holder holds for write; several are readers, and then the waiter writes. */
	ep->waiter_write = ep->nh > 1 || (gen__rand(g) & 1);
	ep->preempts = 2 + gen__rand(g) % 6;
	ep->nsteps = 3 + ep->preempts + (ep->nh - 1) + 5;
	if (gen__rand(g) % 100 < g->o.stall_pct) {
		len = gen__range(g, 12 * GEN_MS, 40 * GEN_MS);
		g->st.long_waits++;
	} else {
		len = gen__range(g, 20 * GEN_US, 2 * GEN_MS);
	}
	ep->gap = len / ep->nsteps;
	ep->next_ts = g->now;
	return true;
undo:
	while (i--)
		g->tasks[i < ep->nh ? ep->holder[i] : ep->waiter].busy = false;
	ep->nsteps = 0;
	return false;
}

static void gen__ep_end(struct gen *g, struct gen_ep *ep)
{
	unsigned int i;

	for (i = 0; i < ep->nh; i++)
		g->tasks[ep->holder[i]].busy = false;
	g->tasks[ep->waiter].busy = false;
	g->tasks[ep->hog].busy = false;
	ep->nsteps = 0;
}

/* The next record of a contended lock, as bpf/lockstall.bpf.c would send it. */
static size_t gen__ep_step(struct gen *g, struct gen_ep *ep, unsigned char *buf)
{
	const struct gen_task *h0 = &g->tasks[ep->holder[0]];
	const struct gen_task *w = &g->tasks[ep->waiter];
	const struct gen_task *hog = &g->tasks[ep->hog];
	const __u8 wg = LS_TASK_F_WAITING | LS_TASK_F_GRANTED;
	unsigned int s = ep->step++, first_reader = 3 + ep->preempts;
	size_t n;

	if (s == 0) {
		/* The holder, in its hold, is preempted by the hog. */
		ep->hold_start = g->now - gen__range(g, 1 * GEN_US, 50 * GEN_US);
		ep->off_start = g->now;
		return gen__switch(g, buf, ep->hcpu, &h0->t, LS_TASK_F_HOLDING, true, &hog->t, 0);
	}
	if (s == 1) {
		ep->wait_start = g->now - gen__range(g, 1 * GEN_US, 5 * GEN_US);
		return gen__lock(g, buf, LS_REC_WAIT_BEGIN, ep->wcpu, w, ep->wait_start, 0, 0, 0,
				 ep->waiter_write, 0);
	}
	if (s == 2) {
		const struct gen_task *o = &g->tasks[gen__pick_free(g)];

		return gen__switch(g, buf, ep->wcpu, &w->t, LS_TASK_F_WAITING, false, &o->t, 0);
	}
	if (s < first_reader) {
		/* The holder's CPU is watched: every switch there is sent. */
		const struct gen_task *o = &g->tasks[gen__pick_free(g)];

		if (s & 1)
			return gen__switch(g, buf, ep->hcpu, &hog->t, 0, true, &o->t, 0);
		return gen__switch(g, buf, ep->hcpu, &o->t, 0, gen__rand(g) & 1, &hog->t, 0);
	}
	if (s < first_reader + ep->nh - 1) {
		/* The other readers, on CPU, overlapping the wait. */
		const struct gen_task *r = &g->tasks[ep->holder[s - first_reader + 1]];
		__u64 start = ep->wait_start - gen__range(g, 1 * GEN_US, 100 * GEN_US);

		return gen__lock(g, buf, LS_REC_HOLD, gen__rand(g) % g->o.cpus, r, start, 0, start,
				 0, false, 0);
	}
	s -= first_reader + ep->nh - 1;
	switch (s) {
	case 0:
		return gen__switch(g, buf, ep->hcpu, &hog->t, 0, true, &h0->t, LS_TASK_F_HOLDING);
	case 1:
		return gen__lock(g, buf, LS_REC_HOLD, ep->hcpu, h0, ep->hold_start, 0, ep->hold_start,
				 g->now - ep->off_start - ep->gap, ep->nh == 1, 0);
	case 2:
		ep->granted = g->now;
		return gen__wakeup(g, buf, ep->hcpu, &w->t, wg, &h0->t, ep->wcpu,
				   &g->tasks[gen__pick_free(g)].t);
	case 3:
		return gen__switch(g, buf, ep->wcpu, &g->tasks[gen__pick_free(g)].t, 0, true, &w->t, wg);
	default:
		n = gen__lock(g, buf, LS_REC_WAIT_END, ep->wcpu, w, ep->wait_start, ep->granted, 0, 0,
			      ep->waiter_write, LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED);
		g->st.waits++;
		gen__ep_end(g, ep);
		return n;
	}
}

/* What a busy host sends besides the contended locks. */
static size_t gen__background(struct gen *g, unsigned char *buf)
{
	unsigned int kind = gen__rand(g) % 100;
	struct gen_task *a = &g->tasks[gen__pick_free(g)];
	struct gen_task *b = &g->tasks[gen__pick_free(g)];
	__u16 cpu = gen__rand(g) % g->o.cpus;

	if (kind < 86)
		return gen__switch(g, buf, cpu, &a->t, 0, kind & 1, &b->t, 0);
	if (kind < 92) {
		/* A hold over min_hold_ns, on CPU throughout: contention material. */
		__u64 start = g->now - gen__range(g, 3 * GEN_MS, 8 * GEN_MS);

		return gen__lock(g, buf, LS_REC_HOLD, cpu, a, start, 0, start, 0, kind & 1, 0);
	}
	if (kind < 96) {
		struct ls_rec_migrate *r = (struct ls_rec_migrate *)buf;

		gen__hdr(g, buf, LS_REC_MIGRATE, sizeof(*r), cpu);
		r->task = a->t;
		r->dest_curr = b->t;
		r->from_cpu = cpu;
		r->to_cpu = (cpu + 1) % g->o.cpus;
		return sizeof(*r);
	}
	return gen__wakeup(g, buf, cpu, &a->t, LS_TASK_F_HOLDING, &b->t, (cpu + 1) % g->o.cpus,
			   &g->tasks[gen__pick_free(g)].t);
}

/* A task exits; a new one (new tid, same process) takes its slot. */
static size_t gen__churn(struct gen *g, unsigned char *buf)
{
	struct gen_task *t = &g->tasks[gen__pick_free(g)];
	struct ls_rec_exit *r = (struct ls_rec_exit *)buf;

	gen__hdr(g, buf, LS_REC_EXIT, sizeof(*r), gen__rand(g) % g->o.cpus);
	r->task = t->t;
	g->st.exits++;
	gen__task_new(g, t, t->mm);
	return sizeof(*r);
}

size_t gen__fill(struct gen *g, unsigned char *buf, size_t cap, size_t *lens, size_t max)
{
	size_t n = 0, off = 0;

	while (n < max && cap - off >= GEN_MAX_REC) {
		struct gen_ep *ep = &g->eps[g->rr];
		size_t len;

		g->rr = (g->rr + 1) % g->o.active;
		g->now += 1 + gen__rand(g) % (2 * (__u64)g->o.mean_gap_ns);
		if (!ep->nsteps)
			gen__ep_start(g, ep);
		if (gen__rand(g) % 1000000 < g->o.churn_ppm) {
			len = gen__churn(g, buf + off);
		} else if (ep->nsteps && g->now >= ep->next_ts) {
			ep->next_ts = g->now + ep->gap;
			len = gen__ep_step(g, ep, buf + off);
		} else {
			len = gen__background(g, buf + off);
		}
		lens[n++] = len;
		off += len;
	}
	return n;
}
