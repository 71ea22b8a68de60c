// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See model.h.  A query walks the remembered stalls once, oldest first,
 * into a hash of rows (so "as last seen" is the newest), then sorts: at
 * one query a second over a bounded history, there is nothing to keep up
 * to date between refreshes, and a new filter or sort costs nothing more.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "top/model.h"
#include "util.h"

/* What a culprit did in one stall. */
struct top_blame {
	struct ls_task task;
	struct ls_rename rename;	/* tid 0: none */
	__u64 cgroup_id;	/* 0: not known (a recording older than LS_REC_TASK_CGROUP) */
	__u64 ns;
	enum top_role role;
	enum ls_holder_state state;
};

/* One ended stall, as much as the tables need. */
struct top_fact {
	__u64 end_ns;
	__u64 wait_ns;		/* lock_wait_ns: the part the lock is to blame for */
	struct ls_task waiter;
	struct ls_rename waiter_rename;	/* tid 0: none */
	__u64 waiter_cgroup_id;
	__u32 lock_tgid;
	__u8 lock_kind;		/* LS_LOCK_* */
	unsigned int n_blame;
	struct top_blame blame[TOP_MAX_BLAME];
};

struct top_cgroup {
	__u64 id;
	char *path;
};

struct top_model {
	struct top_fact *ring;
	size_t cap, head, n;	/* head: the next slot written */
	bool forgot;		/* a stall was overwritten */
	__u64 seen;
	__u64 latest_ns;	/* the newest report's time */
	struct top_pending pending[TOP_MAX_PENDING];
	size_t n_pending;
	struct top_cgroup cgroups[TOP_CGROUPS_MAX];
	size_t n_cgroups, next_cgroup;	/* next_cgroup: replaced next once full */
};

static const char *const sort_names[TOP_SORT_N] = {
	[TOP_SORT_INTERVAL] = "interval",
	[TOP_SORT_TOTAL] = "total",
	[TOP_SORT_COUNT] = "count",
	[TOP_SORT_MAX] = "max",
};

const char *top_sort_name(enum top_sort s)
{
	return s < TOP_SORT_N ? sort_names[s] : "?";
}

/* ---- filter --------------------------------------------------------- */

int top_filter__set_proc(struct top_filter *f, const char *text)
{
	__u64 pid;

	if (strlen(text) >= sizeof(f->comm))
		return -ENAMETOOLONG;
	if (text[0] >= '0' && text[0] <= '9') {
		if (ls_parse_u64(text, UINT32_MAX, &pid) || !pid)
			return -EINVAL;
		f->pid = (__u32)pid;
		f->comm[0] = '\0';
		return 0;
	}
	f->pid = 0;
	strcpy(f->comm, text);
	return 0;
}

int top_filter__set_cgroup(struct top_filter *f, const char *text)
{
	size_t n = strlen(text);

	if (n >= sizeof(f->cgroup))
		return -ENAMETOOLONG;
	if (n && text[0] != '/')
		return -EINVAL;
	strcpy(f->cgroup, text);
	/* "/a/" is "/a"; "/" stays: every cgroup known */
	while (n > 1 && f->cgroup[n - 1] == '/')
		f->cgroup[--n] = '\0';
	return 0;
}

const char *top_filter__text(const struct top_filter *f, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (f && f->pid)
		used += snprintf(buf, len, "pid %u", f->pid);
	else if (f && f->comm[0])
		used += snprintf(buf, len, "comm ~%s", f->comm);
	if (f && f->cgroup[0] && used < len)
		snprintf(buf + used, len - used, "%scgroup %s", used ? ", " : "", f->cgroup);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

static const char *model__cgroup_path(const struct top_model *m, __u64 id)
{
	size_t i;

	for (i = 0; id && i < m->n_cgroups; i++)
		if (m->cgroups[i].id == id)
			return m->cgroups[i].path;
	return NULL;
}

/* Paths as the cgroup resolver gave them; a full table replaces its oldest. */
static void model__note_cgroup(struct top_model *m, __u64 id, const char *path)
{
	struct top_cgroup *c;
	char *copy;

	if (!id || !path || model__cgroup_path(m, id))
		return;
	copy = strdup(path);
	if (!copy)
		return;		/* the filter will not match it: nothing else is lost */
	if (m->n_cgroups < TOP_CGROUPS_MAX) {
		c = &m->cgroups[m->n_cgroups++];
	} else {
		c = &m->cgroups[m->next_cgroup];
		m->next_cgroup = (m->next_cgroup + 1) % TOP_CGROUPS_MAX;
		free(c->path);
	}
	c->id = id;
	c->path = copy;
}

static bool task__matches(const struct ls_task *t, const struct top_filter *f)
{
	char comm[LS_COMM_TEXT_LEN];

	if (f->pid)
		return t->tgid == f->pid;
	if (f->comm[0])
		return strstr(ls_comm_text(t->comm, comm, sizeof(comm)), f->comm) != NULL;
	return true;
}

static bool cgroup__matches(const struct top_model *m, __u64 id, const char *prefix)
{
	const char *path = model__cgroup_path(m, id);
	size_t n = strlen(prefix);

	if (!path)
		return false;
	if (n == 1)
		return true;
	return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

static bool fact__matches(const struct top_model *m, const struct top_fact *x,
			  const struct top_filter *f)
{
	bool proc = !f->pid && !f->comm[0], cg = !f->cgroup[0];
	unsigned int i;

	if (!proc)
		proc = task__matches(&x->waiter, f) || (f->pid && x->lock_tgid == f->pid);
	if (!cg)
		cg = cgroup__matches(m, x->waiter_cgroup_id, f->cgroup);
	for (i = 0; i < x->n_blame && !(proc && cg); i++) {
		proc = proc || task__matches(&x->blame[i].task, f);
		cg = cg || cgroup__matches(m, x->blame[i].cgroup_id, f->cgroup);
	}
	return proc && cg;
}

static bool pending__matches(const struct top_model *m, const struct top_pending *p,
			     const struct top_filter *f)
{
	bool proc = !f->pid && !f->comm[0], cg = !f->cgroup[0];

	if (!proc)
		proc = task__matches(&p->waiter, f) || (f->pid && p->lock_tgid == f->pid) ||
		       (p->has_holder && task__matches(&p->holder, f)) ||
		       (p->has_preemptor && task__matches(&p->preemptor, f));
	if (!cg)
		cg = cgroup__matches(m, p->waiter_cgroup_id, f->cgroup) ||
		     (p->has_holder && cgroup__matches(m, p->holder_cgroup_id, f->cgroup)) ||
		     (p->has_preemptor && cgroup__matches(m, p->preemptor_cgroup_id, f->cgroup));
	return proc && cg;
}

/* ---- taking stalls in ----------------------------------------------- */

struct top_model *top_model__new(size_t history)
{
	struct top_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = history ? history : TOP_HISTORY_DEFAULT;
	m->ring = calloc(m->cap, sizeof(*m->ring));
	if (!m->ring) {
		free(m);
		return NULL;
	}
	return m;
}

void top_model__free(struct top_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n_cgroups; i++)
		free(m->cgroups[i].path);
	free(m->ring);
	free(m);
}

/* t's other name in st, or zeroes: kept with the copy of t, st's renames go with the call. */
static void rename__copy(struct ls_rename *out, const struct ls_stall *st, const struct ls_task *t)
{
	const struct ls_rename *r = ls_stall__rename(st, t->tid, t->comm);

	if (r)
		*out = *r;
	else
		memset(out, 0, sizeof(*out));
}

static void fact__blame(struct top_fact *x, const struct ls_stall *st, const struct ls_task *t,
			__u64 cgroup_id, __u64 ns, enum top_role role, enum ls_holder_state state)
{
	struct top_blame *b;

	if (x->n_blame == TOP_MAX_BLAME)
		return;
	b = &x->blame[x->n_blame++];
	b->task = *t;
	rename__copy(&b->rename, st, t);
	b->cgroup_id = cgroup_id;
	b->ns = ns;
	b->role = role;
	b->state = state;
}

/*
 * The chain past its first holder, where it went on through a lock that
 * holder waited on: each further holder (blamed for the wait on its lock;
 * preempted when a preemptor follows it, blocked when another lock's
 * holder does, else not known) and who ran instead of it.
 */
static void fact__blame_hops(struct top_fact *x, const struct ls_stall *st)
{
	unsigned int i, n = st->n_chain < LS_MAX_HOPS ? st->n_chain : LS_MAX_HOPS;
	const struct ls_hop *hop, *next;
	enum ls_holder_state state;
	bool past = false;	/* past the first holder and its preemptor, blamed already */

	for (i = 2; i < n; i++) {
		hop = &st->chain[i];
		next = i + 1 < n ? &st->chain[i + 1] : NULL;
		if (hop->role == LS_ROLE_HOLDER && hop->has_lock) {
			past = true;
			state = !next ? LS_STATE_UNKNOWN :
				next->role == LS_ROLE_PREEMPTOR ? LS_STATE_PREEMPTED :
				next->role == LS_ROLE_HOLDER ? LS_STATE_BLOCKED : LS_STATE_UNKNOWN;
			fact__blame(x, st, &hop->task, 0, hop->stall_seq ? hop->wait_ns : hop->ns,
				    TOP_ROLE_HOLDER, state);
		} else if (hop->role == LS_ROLE_PREEMPTOR && past) {
			fact__blame(x, st, &hop->task, 0, hop->ns, TOP_ROLE_PREEMPTOR,
				    LS_STATE_RUNNING);
		}
	}
}

/* The first holder, then every holder's preemptors, most time first per holder, then the hops past them. */
static void fact__set(struct top_model *m, struct top_fact *x, const struct ls_stall *st)
{
	unsigned int n_holders = st->n_holders < LS_MAX_HOLDERS ? st->n_holders : LS_MAX_HOLDERS;
	unsigned int i, k;

	memset(x, 0, sizeof(*x));
	x->end_ns = st->end_ns;
	x->wait_ns = st->lock_wait_ns;
	x->waiter = st->waiter;
	rename__copy(&x->waiter_rename, st, &st->waiter);
	x->waiter_cgroup_id = st->waiter_cgroup_id;
	x->lock_tgid = st->lock.tgid;
	x->lock_kind = st->lock.kind;
	model__note_cgroup(m, st->waiter_cgroup_id, st->waiter_cgroup);
	if (n_holders) {
		const struct ls_holder *h = &st->holders[0];

		fact__blame(x, st, &h->task, h->cgroup_id, st->lock_wait_ns, TOP_ROLE_HOLDER, h->state);
		model__note_cgroup(m, h->cgroup_id, h->cgroup);
	}
	for (i = 0; i < n_holders; i++) {
		const struct ls_holder *h = &st->holders[i];

		for (k = 0; k < h->n_preempted_by && k < LS_MAX_PREEMPTORS; k++) {
			const struct ls_preemptor *p = &h->preempted_by[k];

			fact__blame(x, st, &p->task, p->cgroup_id, p->ns, TOP_ROLE_PREEMPTOR,
				    LS_STATE_RUNNING);
			model__note_cgroup(m, p->cgroup_id, p->cgroup);
		}
	}
	fact__blame_hops(x, st);
}

static void pending__remove(struct top_model *m, __u32 tid, __u64 start_ns)
{
	size_t i;

	for (i = 0; i < m->n_pending; i++) {
		if (m->pending[i].waiter.tid == tid && m->pending[i].start_ns == start_ns) {
			m->pending[i] = m->pending[--m->n_pending];
			return;
		}
	}
}

int top_model__stall(struct top_model *m, const struct ls_stall *st)
{
	struct top_fact *x = &m->ring[m->head];

	pending__remove(m, st->waiter.tid, st->start_ns);
	m->latest_ns = u64_max(m->latest_ns, st->end_ns);
	if (m->n == m->cap)
		m->forgot = true;
	else
		m->n++;
	fact__set(m, x, st);
	m->head = (m->head + 1) % m->cap;
	m->seen++;
	return 0;
}

/* The slot for a wait: its own, a free one, or the youngest's if this one is older. */
static struct top_pending *pending__slot(struct top_model *m, __u32 tid, __u64 start_ns)
{
	struct top_pending *youngest = NULL;
	size_t i;

	for (i = 0; i < m->n_pending; i++) {
		struct top_pending *p = &m->pending[i];

		if (p->waiter.tid == tid && p->start_ns == start_ns)
			return p;
		if (!youngest || p->start_ns > youngest->start_ns)
			youngest = p;
	}
	if (m->n_pending < TOP_MAX_PENDING)
		return &m->pending[m->n_pending++];
	return youngest->start_ns > start_ns ? youngest : NULL;
}

int top_model__pending(struct top_model *m, const struct ls_stall *st)
{
	struct top_pending *p = pending__slot(m, st->waiter.tid, st->start_ns);
	const struct ls_holder *h = st->n_holders ? &st->holders[0] : NULL;

	m->latest_ns = u64_max(m->latest_ns, st->end_ns);
	if (!p)
		return 0;	/* TOP_MAX_PENDING older waits are shown */
	memset(p, 0, sizeof(*p));
	p->waiter = st->waiter;
	rename__copy(&p->waiter_rename, st, &st->waiter);
	p->waiter_cgroup_id = st->waiter_cgroup_id;
	model__note_cgroup(m, st->waiter_cgroup_id, st->waiter_cgroup);
	p->lock_tgid = st->lock.tgid;
	p->lock_kind = st->lock.kind;
	p->start_ns = st->start_ns;
	p->reported_ns = st->end_ns;
	p->verdict = st->verdict;
	p->began_before = st->began_before;
	p->found_late = st->found_late;
	if (h) {
		p->has_holder = true;
		p->holder = h->task;
		rename__copy(&p->holder_rename, st, &h->task);
		p->holder_cgroup_id = h->cgroup_id;
		model__note_cgroup(m, h->cgroup_id, h->cgroup);
		p->holder_state = h->state_now;
		if (h->n_preempted_by) {
			p->has_preemptor = true;
			p->preemptor = h->preempted_by[0].task;
			rename__copy(&p->preemptor_rename, st, &p->preemptor);
			p->preemptor_cgroup_id = h->preempted_by[0].cgroup_id;
			model__note_cgroup(m, p->preemptor_cgroup_id, h->preempted_by[0].cgroup);
		}
	}
	return 0;
}

/* ---- query ---------------------------------------------------------- */

/* Rows by (kind, tid, tgid), in an open-addressed index that doubles. */
enum agg_kind { AGG_VICTIM, AGG_HOLDER, AGG_PREEMPTOR };

struct agg {
	struct top_row *rows;
	enum agg_kind *kinds;
	size_t n, cap;
	size_t *index;		/* row + 1; 0: empty */
	size_t slots;		/* a power of two, at least 2 * cap */
};

static size_t agg__hash(enum agg_kind k, __u32 tid, __u32 tgid, size_t slots)
{
	__u64 h = ((__u64)tid << 32 | tgid) * 0x9e3779b97f4a7c15ULL + k;

	return (size_t)(h >> 20) & (slots - 1);
}

static size_t *agg__find(struct agg *a, enum agg_kind k, const struct ls_task *t)
{
	size_t i = agg__hash(k, t->tid, t->tgid, a->slots);

	while (a->index[i]) {
		size_t r = a->index[i] - 1;

		if (a->kinds[r] == k && a->rows[r].task.tid == t->tid &&
		    a->rows[r].task.tgid == t->tgid)
			break;
		i = (i + 1) & (a->slots - 1);
	}
	return &a->index[i];
}

static int agg__grow(struct agg *a)
{
	size_t cap = a->cap ? a->cap * 2 : 64, r;
	struct top_row *rows = realloc(a->rows, cap * sizeof(*rows));
	enum agg_kind *kinds;

	if (!rows)
		return -ENOMEM;
	a->rows = rows;
	kinds = realloc(a->kinds, cap * sizeof(*kinds));
	if (!kinds)
		return -ENOMEM;
	a->kinds = kinds;
	free(a->index);
	a->slots = cap * 2;
	a->index = calloc(a->slots, sizeof(*a->index));
	if (!a->index)
		return -ENOMEM;
	a->cap = cap;
	for (r = 0; r < a->n; r++)
		*agg__find(a, a->kinds[r], &a->rows[r].task) = r + 1;
	return 0;
}

static struct top_row *agg__row(struct agg *a, enum agg_kind k, const struct ls_task *t)
{
	size_t *slot;
	struct top_row *row;

	if (a->n == a->cap && agg__grow(a))
		return NULL;
	slot = agg__find(a, k, t);
	if (*slot)
		return &a->rows[*slot - 1];
	row = &a->rows[a->n];
	memset(row, 0, sizeof(*row));
	a->kinds[a->n] = k;
	*slot = ++a->n;
	return row;
}

static void row__add(struct top_row *row, const struct ls_task *t, const struct ls_rename *r,
		     __u64 ns, bool in_interval)
{
	row->task = *t;
	row->rename = *r;
	row->all_stalls++;
	row->all_ns += ns;
	if (ns > row->max_ns)
		row->max_ns = ns;
	if (in_interval) {
		row->iv_stalls++;
		row->iv_ns += ns;
	}
}

/* A preemptor of two holders of one stall counts once in its stall count. */
static int agg__fact(struct agg *a, const struct top_fact *x, bool in_interval)
{
	struct top_row *row = agg__row(a, AGG_VICTIM, &x->waiter);
	unsigned int i, k;

	if (!row)
		return -ENOMEM;
	row__add(row, &x->waiter, &x->waiter_rename, x->wait_ns, in_interval);
	row->lock_tgid = x->lock_tgid;
	row->lock_kind = x->lock_kind;
	for (i = 0; i < x->n_blame; i++) {
		const struct top_blame *b = &x->blame[i];
		enum agg_kind kind = b->role == TOP_ROLE_HOLDER ? AGG_HOLDER : AGG_PREEMPTOR;
		bool again = false;

		for (k = 0; k < i; k++)
			again |= x->blame[k].role == b->role && x->blame[k].task.tid == b->task.tid;
		row = agg__row(a, kind, &b->task);
		if (!row)
			return -ENOMEM;
		if (again) {
			row->all_ns += b->ns;
			row->iv_ns += in_interval ? b->ns : 0;
			continue;
		}
		row__add(row, &b->task, &b->rename, b->ns, in_interval);
		row->role = b->role;
		row->state = b->state;
	}
	return 0;
}

static __u64 row__key(const struct top_row *r, enum top_sort s)
{
	switch (s) {
	case TOP_SORT_INTERVAL:
		return r->iv_ns;
	case TOP_SORT_TOTAL:
		return r->all_ns;
	case TOP_SORT_COUNT:
		return r->all_stalls;
	case TOP_SORT_MAX:
	case TOP_SORT_N:
		break;
	}
	return r->max_ns;
}

/* The sort's key, then time since start, then the lower tid: never map order. */
static int row__cmp(const struct top_row *x, const struct top_row *y, enum top_sort s)
{
	__u64 a = row__key(x, s), b = row__key(y, s);

	if (a != b)
		return a > b ? -1 : 1;
	if (x->all_ns != y->all_ns)
		return x->all_ns > y->all_ns ? -1 : 1;
	if (x->task.tid != y->task.tid)
		return x->task.tid < y->task.tid ? -1 : 1;
	return x->role < y->role ? -1 : x->role > y->role;
}

/* Insertion into the rows kept: only max_rows are ever held, so a full sort is not needed. */
static void table__offer(struct top_row *v, size_t *n, size_t *more, size_t max,
			 const struct top_row *r, enum top_sort s)
{
	size_t i;

	if (max && *n == max) {
		(*more)++;
		if (row__cmp(r, &v[max - 1], s) >= 0)
			return;
		(*n)--;
	}
	for (i = *n; i > 0 && row__cmp(r, &v[i - 1], s) < 0; i--)
		v[i] = v[i - 1];
	v[i] = *r;
	(*n)++;
}

static int view__tables(struct top_view *v, const struct agg *a, const struct top_query *q)
{
	size_t cap = q->max_rows ? q->max_rows : a->n, r;

	v->victims = calloc(cap ? cap : 1, sizeof(*v->victims));
	v->culprits = calloc(cap ? cap : 1, sizeof(*v->culprits));
	if (!v->victims || !v->culprits)
		return -ENOMEM;
	for (r = 0; r < a->n; r++) {
		if (a->kinds[r] == AGG_VICTIM)
			table__offer(v->victims, &v->n_victims, &v->more_victims, q->max_rows,
				     &a->rows[r], q->sort);
		else
			table__offer(v->culprits, &v->n_culprits, &v->more_culprits, q->max_rows,
				     &a->rows[r], q->sort);
	}
	return 0;
}

static int pending__cmp(const void *a, const void *b)
{
	const struct top_pending *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->waiter.tid < y->waiter.tid ? -1 : x->waiter.tid > y->waiter.tid;
}

static int view__pending(struct top_model *m, const struct top_query *q, struct top_view *v)
{
	const struct top_filter none = { 0 };
	const struct top_filter *f = q->filter ? q->filter : &none;
	size_t i;

	for (i = 0; i < m->n_pending;) {
		struct top_pending *p = &m->pending[i];

		if (q->stale_ns && v->now_ns > p->reported_ns + q->stale_ns)
			*p = m->pending[--m->n_pending];	/* its end was lost */
		else
			i++;
	}
	v->pending = calloc(m->n_pending ? m->n_pending : 1, sizeof(*v->pending));
	if (!v->pending)
		return -ENOMEM;
	for (i = 0; i < m->n_pending; i++)
		if (pending__matches(m, &m->pending[i], f))
			v->pending[v->n_pending++] = m->pending[i];
	qsort(v->pending, v->n_pending, sizeof(*v->pending), pending__cmp);
	return 0;
}

int top_model__query(struct top_model *m, const struct top_query *q, struct top_view *v)
{
	const struct top_filter none = { 0 };
	const struct top_filter *f = q->filter ? q->filter : &none;
	struct agg a = { 0 };
	__u64 from;
	size_t i;
	int err;

	memset(v, 0, sizeof(*v));
	/* a redraw between refreshes (a key) shows reports newer than the refresh */
	v->now_ns = u64_max(q->now_ns, m->latest_ns);
	from = u64_sat_sub(v->now_ns, q->interval_ns);
	v->seen_stalls = m->seen;
	err = view__pending(m, q, v);
	for (i = 0; !err && i < m->n; i++) {
		const struct top_fact *x = &m->ring[(m->head + m->cap - m->n + i) % m->cap];
		bool in_interval = x->end_ns > from && x->end_ns <= v->now_ns;

		if (i == 0 && m->forgot)
			v->history_from_ns = x->end_ns;
		if (!fact__matches(m, x, f))
			continue;
		v->all_stalls++;
		v->iv_stalls += in_interval;
		err = agg__fact(&a, x, in_interval);
	}
	if (!err)
		err = view__tables(v, &a, q);
	free(a.rows);
	free(a.kinds);
	free(a.index);
	if (err)
		top_view__release(v);
	return err;
}

void top_view__release(struct top_view *v)
{
	free(v->pending);
	free(v->victims);
	free(v->culprits);
	memset(v, 0, sizeof(*v));
}
