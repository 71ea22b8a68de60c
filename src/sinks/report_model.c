// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See report_model.h.  Memory is bounded whatever the run's length: the
 * RM_MAX_WORST longest stalls (deep copies, replaced as longer ones come)
 * and two tables of at most RM_MAX_TASKS culprits each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sinks/report_model.h"
#include "sinks/sink_common.h"
#include "util.h"

static void rm_culprit__name(struct rm_culprit *c, const struct ls_stall *st,
			     const struct ls_task *task)
{
	const struct ls_rename *r = ls_stall__rename(st, task->tid, task->comm);

	c->task = *task;
	if (r)
		c->rename = *r;
	else
		memset(&c->rename, 0, sizeof(c->rename));
}

/* A preemptor of two holders of one stall counts once in its stall count. */
static void rm_table__credit(struct rm_table *t, const struct ls_stall *st,
			     const struct ls_task *task, __u64 ns)
{
	__u64 seq = st->seq;
	struct rm_culprit *c;
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		c = &t->v[i];
		if (c->task.tid == task->tid && c->task.tgid == task->tgid) {
			rm_culprit__name(c, st, task);
			c->ns += ns;
			c->stalls += c->last_seq != seq;
			c->last_seq = seq;
			return;
		}
	}
	if (t->n == RM_MAX_TASKS) {
		t->other_ns += ns;
		t->others++;
		return;
	}
	c = &t->v[t->n++];
	rm_culprit__name(c, st, task);
	c->ns = ns;
	c->stalls = 1;
	c->last_seq = seq;
}

/* Longest lock wait first; the earlier stall first among equals. */
static bool rm_worse(const struct ls_stall *a, const struct ls_stall *b)
{
	if (a->lock_wait_ns != b->lock_wait_ns)
		return a->lock_wait_ns > b->lock_wait_ns;
	return a->seq < b->seq;
}

static int report_model__open(struct report_model *m, const struct ls_stall *st)
{
	if (!st->at_exit)
		return 0;
	if (m->n_open == RM_MAX_WORST) {
		m->open_dropped++;
		return 0;
	}
	if (stall_copy__set(&m->open[m->n_open], st))
		return -ENOMEM;
	m->n_open++;
	return 0;
}

int report_model__stall(struct report_model *m, const struct ls_stall *st)
{
	struct stall_copy *slot = NULL;
	unsigned int i, k;

	if (st->pending)
		return report_model__open(m, st);

	if (!m->stalls || st->start_ns < m->first_stall_ns)
		m->first_stall_ns = st->start_ns;
	if (st->end_ns > m->last_stall_ns)
		m->last_stall_ns = st->end_ns;
	m->stalls++;
	if (st->n_holders)
		rm_table__credit(&m->holders, st, &st->holders[0].task, st->lock_wait_ns);
	for (i = 0; i < st->n_holders && i < LS_MAX_HOLDERS; i++)
		for (k = 0; k < st->holders[i].n_preempted_by && k < LS_MAX_PREEMPTORS; k++)
			rm_table__credit(&m->preemptors, st, &st->holders[i].preempted_by[k].task,
					 st->holders[i].preempted_by[k].ns);

	if (m->n_worst < RM_MAX_WORST) {
		slot = &m->worst[m->n_worst];
	} else {
		for (i = 0; i < RM_MAX_WORST; i++)
			if (!slot || rm_worse(&slot->st, &m->worst[i].st))
				slot = &m->worst[i];
		if (!rm_worse(st, &slot->st))
			return 0;
	}
	if (stall_copy__set(slot, st)) {
		/* the slot is empty now: close the gap so every kept stall is whole */
		if (slot != &m->worst[m->n_worst]) {
			*slot = m->worst[--m->n_worst];
			memset(&m->worst[m->n_worst], 0, sizeof(m->worst[0]));
		}
		return -ENOMEM;
	}
	if (slot == &m->worst[m->n_worst])
		m->n_worst++;
	return 0;
}

static int rm_stall__cmp(const void *a, const void *b)
{
	const struct stall_copy *x = a, *y = b;

	return rm_worse(&x->st, &y->st) ? -1 : rm_worse(&y->st, &x->st) ? 1 : 0;
}

static int rm_culprit__cmp(const void *a, const void *b)
{
	const struct rm_culprit *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->task.tid != y->task.tid)
		return x->task.tid < y->task.tid ? -1 : 1;
	return 0;
}

void report_model__finish(struct report_model *m)
{
	/* A copy's pointers are all to its own blocks: moving it is safe. */
	qsort(m->worst, m->n_worst, sizeof(*m->worst), rm_stall__cmp);
	qsort(m->holders.v, m->holders.n, sizeof(*m->holders.v), rm_culprit__cmp);
	qsort(m->preemptors.v, m->preemptors.n, sizeof(*m->preemptors.v), rm_culprit__cmp);
}

void report_model__free(struct report_model *m)
{
	unsigned int i;

	for (i = 0; i < m->n_worst; i++)
		stall_copy__release(&m->worst[i]);
	m->n_worst = 0;
	for (i = 0; i < m->n_open; i++)
		stall_copy__release(&m->open[i]);
	m->n_open = 0;
}

/* ---- shared text ---------------------------------------------------- */


const char *rm_task(const struct ls_task *t, const struct ls_rename *r, char *buf, size_t len)
{
	char comm[LS_COMM_TEXT_LEN], other[SINK_RENAME_TEXT_LEN];

	if (sink__unseen_text(t, buf, len))
		return buf;
	snprintf(buf, len, "%s[%u/%u]%s", ls_comm_text(t->comm, comm, sizeof(comm)), t->tgid,
		 t->tid, sink__rename_text(r, other, sizeof(other)));
	return buf;
}

const char *rm_stall_task(const struct ls_stall *st, const struct ls_task *t, char *buf,
			  size_t len)
{
	return rm_task(t, ls_stall__rename(st, t->tid, t->comm), buf, len);
}

const char *rm_hop_task(const struct ls_stall *st, const struct ls_task *t, char *buf,
			size_t len)
{
	char comm[LS_COMM_TEXT_LEN], other[SINK_RENAME_TEXT_LEN];

	if (sink__unseen_text(t, buf, len))
		return buf;
	snprintf(buf, len, "%s/%u%s", ls_comm_text(t->comm, comm, sizeof(comm)), t->tid,
		 sink__rename_text(ls_stall__rename(st, t->tid, t->comm), other, sizeof(other)));
	return buf;
}

const char *rm_waited_text(const struct ls_stall *st, const struct ls_waited *w, char *buf,
			   size_t len)
{
	char lock[160], who[RM_TASK_LEN], state[32];
	int n;

	n = snprintf(buf, len, "for %s", sink__lock_text(&w->lock, lock, sizeof(lock)));
	if (n >= 0 && (size_t)n < len && w->holder.tid)
		n += snprintf(buf + n, len - n, ", held by %s %s",
			      rm_stall_task(st, &w->holder, who, sizeof(who)),
			      w->holder_state == LS_STATE_RUNNING ? "on CPU" :
			      sink__words(ls_state_name(w->holder_state), false, state,
					  sizeof(state)));
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (STALL #%llu)", (unsigned long long)w->stall_seq);
	return buf;
}

const char *rm_culprit_task(const struct rm_culprit *c, char *buf, size_t len)
{
	return rm_task(&c->task, c->rename.tid ? &c->rename : NULL, buf, len);
}

const char *rm_when(const struct report_meta *meta, __u64 ts, __u64 t0, bool with_date,
		    char *buf, size_t len)
{
	long long real = (long long)ts + (meta ? meta->realtime_minus_monotonic_ns : 0);
	char day[48];
	struct tm tm;
	time_t sec;

	if (meta && meta->has_clock && real > 0) {
		sec = (time_t)(real / (long long)NSEC_PER_SEC);
		if (gmtime_r(&sec, &tm) &&
		    strftime(day, sizeof(day), with_date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm)) {
			snprintf(buf, len, "%s.%03lld%s", day,
				 (real % (long long)NSEC_PER_SEC) / 1000000, with_date ? " UTC" : "");
			return buf;
		}
	}
	ts = ts > t0 ? ts - t0 : 0;
	snprintf(buf, len, "+%llu.%03llus", (unsigned long long)(ts / NSEC_PER_SEC),
		 (unsigned long long)(ts % NSEC_PER_SEC / 1000000));
	return buf;
}

const char *rm_hist_title(unsigned int kind)
{
	if (ls_hist_lock_kind(kind) >= 0)
		return "wait time";
	switch (kind) {
	case LS_HIST_HOLD:
		return "hold time";
	case LS_HIST_OFFCPU:
		return "off-CPU time while holding";
	}
	return "time";
}

/*
 * Every mmap_lock operation's wait is counted (most are uncontended), each
 * hold, each spell; of the other locks, only contended waits.
 */
const char *rm_count_noun(unsigned int kind, __u64 n)
{
	if (kind != LS_HIST_WAIT && ls_hist_lock_kind(kind) >= 0)
		return n == 1 ? "contended wait" : "contended waits";
	switch (kind) {
	case LS_HIST_WAIT:
		return n == 1 ? "lock operation" : "lock operations";
	case LS_HIST_HOLD:
		return n == 1 ? "hold" : "holds";
	case LS_HIST_OFFCPU:
		return n == 1 ? "spell off CPU" : "spells off CPU";
	}
	return "";
}

void rm_hist__init(struct rm_hist *m, const struct hist_view *v)
{
	const struct ls_hist *h = &v->hist;
	unsigned int i;
	int lock;

	memset(m, 0, sizeof(*m));
	m->h = h;
	m->view = v;
	m->title = rm_hist_title(v->key.kind);
	m->kind = v->key.kind;
	m->mode = v->key.write == 1 ? " write" : v->key.write == 0 ? " read" : "";
	lock = ls_hist_lock_kind(v->key.kind);
	m->lock = ls_lock_kind_name(lock < 0 ? LS_LOCK_MMAP : (unsigned int)lock);
	ls_comm_text(h->comm, m->comm, sizeof(m->comm));
	m->tgid = v->key.tgid;
	if (v->n_pids == 1 && v->processes == 1)
		snprintf(m->who, sizeof(m->who), "%s[%u]", m->comm, m->tgid);
	else if (v->exited == v->processes)
		snprintf(m->who, sizeof(m->who), "%s (%u exited process%s)",
			 m->comm[0] ? m->comm : "other commands", v->processes,
			 v->processes == 1 ? "" : "es");
	else
		snprintf(m->who, sizeof(m->who), "%s (%u processes)", m->comm, v->processes);
	m->avg_ns = h->count ? h->sum_ns / h->count : 0;
	for (i = 0; i < LS_HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		if (!m->any)
			m->first = i;
		m->any = true;
		m->last = i;
		if (h->slots[i] > m->max)
			m->max = h->slots[i];
	}
}

/* What one sample of a histogram of this kind is, in "every ... under 1ms". */
static const char *rm_sample_noun(unsigned int kind)
{
	if (ls_hist_lock_kind(kind) >= 0)
		return "wait";
	switch (kind) {
	case LS_HIST_WAIT:
		return "wait";
	case LS_HIST_HOLD:
		return "hold";
	case LS_HIST_OFFCPU:
		return "off-CPU spell";
	}
	return "sample";
}

/* "not shown: 3 more wait histograms (--top 0 shows all); 40 ..." */
static const char *rm_cut_text(unsigned int kind, const struct hist_sel *sel,
			       const struct sink_opts *opts, char *buf, size_t len)
{
	const char *noun = rm_sample_noun(kind);
	char min[32];
	int n;

	n = snprintf(buf, len, "not shown:");
	if (sel->n_more && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, " %zu more %s histogram%s (--top 0 shows all)%s",
			      sel->n_more, noun, sel->n_more == 1 ? "" : "s",
			      sel->n_quiet ? ";" : "");
	if (sel->no_wait && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " %zu %s histogram%s, as no mmap_lock wait reached %s (--hist-min 0 shows %s)",
			 sel->n_quiet, noun, sel->n_quiet == 1 ? "" : "s",
			 ls_format_duration(opts->hist_min_ns, min, sizeof(min)),
			 sel->n_quiet == 1 ? "it" : "them");
	else if (sel->n_quiet && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " %zu %s histogram%s with every %s under %s (--hist-min 0 shows %s)",
			 sel->n_quiet, noun, sel->n_quiet == 1 ? "" : "s", noun,
			 ls_format_duration(opts->hist_min_ns, min, sizeof(min)),
			 sel->n_quiet == 1 ? "it" : "them");
	return buf;
}

int rm_hists__each(const struct ls_hist_set *set, const struct sink_opts *opts,
		   void (*fn)(void *ctx, const struct rm_hist *m),
		   void (*cut)(void *ctx, const char *text), void *ctx)
{
	struct hist_sel sel;
	struct rm_hist m;
	unsigned int kind;
	char text[256];
	size_t i;
	int err;

	for (kind = 0; kind < LS_HIST_KIND_N; kind++) {
		err = hist__select(set, kind, opts, &sel);
		if (err)
			return err;
		for (i = 0; i < sel.n; i++) {
			rm_hist__init(&m, &sel.v[i]);
			fn(ctx, &m);
		}
		if (sel.n_more || sel.n_quiet)
			cut(ctx, rm_cut_text(kind, &sel, opts, text, sizeof(text)));
		hist_sel__release(&sel);
	}
	return 0;
}

/* Slot i counts [2^(i-1), 2^i) us, slot 0 [0, 1) us (as the text sink prints). */
__u64 rm_slot_lo(unsigned int i)
{
	return i ? 1ULL << (i - 1) : 0;
}

__u64 rm_slot_hi(unsigned int i)
{
	return 1ULL << i;
}

unsigned int rm_pct(__u64 ns, __u64 of)
{
	if (!of)
		return 0;
	return ns >= of ? 100 : (unsigned int)((unsigned __int128)ns * 100 / of);
}
