// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Perfetto: the Chrome trace-event JSON format, which ui.perfetto.dev and
 * chrome://tracing load.  {"traceEvents":[...],"displayTimeUnit":"ns"}.
 *
 * Each stall is its own "process" (pid = the stall's number, named after
 * the stall), with a track per thread involved: the waiter's "waiting for
 * mmap_lock", each holder's "holding mmap_lock" with its "off CPU while
 * holding" spells nested inside, and who ran instead on the preemptors'
 * tracks; flow arrows go waiter -> holder -> preemptor, and from a holder
 * waiting for another lock to that lock's holder ("waiting for mmap_lock
 * (STALL #N)", "holding mmap_lock").  Why not one track
 * per real thread: a holder that blocks two waiters appears in two stalls
 * whose windows cut its spells differently, and slices that partially
 * overlap on one track are what the viewers cannot draw.  Per stall, every
 * slice nests or stands apart, and the stall reads as one picture.
 *
 * Times are CLOCK_MONOTONIC microseconds with ns precision ("ts":1.000001).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/report.h"
#include "sinks/sink_common.h"
#include "util.h"

#define PF_NAME_LEN	160
/*
 * The waiter's name and 2 slices; per holder its name, hold and flow (2
 * ends); per spell a slice, who ran instead (name, slice) and a flow; per
 * lock it waited on the same.
 */
#define PF_MAX_EVENTS	(3 + LS_MAX_HOLDERS * (4 + 5 * (LS_MAX_SPELLS + LS_MAX_WAITED)))

struct pf_event {
	char ph;		/* 'X' slice, 's' / 'f' flow ends, 'M' thread name */
	__u32 tid;
	__u64 ts, dur;
	__u64 flow;		/* 's' / 'f': the flow's id */
	char name[PF_NAME_LEN];	/* plain text; escaped when written */
};

/* Waits still open at exit are processes too, numbered past any stall's. */
#define PF_OPEN_PID_BASE	1000000000ULL

struct perfetto_sink {
	struct sink base;
	bool started;
	__u64 n_open;		/* waits still open at exit, drawn so far */
	__u64 next_flow;
	struct pf_event ev[PF_MAX_EVENTS];
	unsigned int n;
};

static const char *pf_mode(bool write)
{
	return write ? "write" : "read";
}

static void pf_us(FILE *f, const char *key, __u64 ns)
{
	fprintf(f, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

static struct pf_event *pf_add(struct perfetto_sink *p, char ph, __u32 tid, __u64 ts, __u64 dur)
{
	struct pf_event *e;

	if (p->n >= PF_MAX_EVENTS)
		return NULL;
	e = &p->ev[p->n++];
	memset(e, 0, sizeof(*e));
	e->ph = ph;
	e->tid = tid;
	e->ts = ts;
	e->dur = dur;
	return e;
}

/* "wl-hog[400/401]", made printable (the JSON writer escapes the rest). */
static const char *pf_task(const struct ls_task *t, char *buf, size_t len)
{
	char comm[LS_COMM_TEXT_LEN];

	if (sink__unseen_text(t, buf, len))
		return buf;
	snprintf(buf, len, "%s[%u/%u]", ls_comm_text(t->comm, comm, sizeof(comm)), t->tgid, t->tid);
	return buf;
}

static void pf_thread(struct perfetto_sink *p, const struct ls_task *t)
{
	struct pf_event *e;
	unsigned int i;

	for (i = 0; i < p->n; i++)
		if (p->ev[i].ph == 'M' && p->ev[i].tid == t->tid)
			return;
	e = pf_add(p, 'M', t->tid, 0, 0);
	if (e)
		pf_task(t, e->name, sizeof(e->name));
}

/* Does [ts, ts + dur) on tid nest with, or stand apart from, every slice there? */
static bool pf_fits(const struct perfetto_sink *p, __u32 tid, __u64 ts, __u64 dur)
{
	const struct pf_event *e;
	unsigned int i;
	__u64 end = ts + dur;

	for (i = 0; i < p->n; i++) {
		e = &p->ev[i];
		if (e->ph != 'X' || e->tid != tid)
			continue;
		if (end <= e->ts || ts >= e->ts + e->dur)
			continue;
		if ((ts >= e->ts && end <= e->ts + e->dur) || (e->ts >= ts && e->ts + e->dur <= end))
			continue;
		return false;
	}
	return true;
}

/* A flow from (tid_a, ts_a) to (tid_b, ts_b): both ends lie in slices already added. */
static void pf_flow(struct perfetto_sink *p, const char *lock, __u32 tid_a, __u64 ts_a,
		    __u32 tid_b, __u64 ts_b)
{
	struct pf_event *s, *f;

	if (p->n + 2 > PF_MAX_EVENTS)
		return;
	s = pf_add(p, 's', tid_a, ts_a, 0);
	f = pf_add(p, 'f', tid_b, ts_b, 0);
	s->flow = f->flow = ++p->next_flow;
	snprintf(s->name, sizeof(s->name), "%s", lock);
	snprintf(f->name, sizeof(f->name), "%s", lock);
}

static bool pf_is_party(const struct ls_stall *st, __u32 tid)
{
	unsigned int i;

	if (st->waiter.tid == tid)
		return true;
	for (i = 0; i < st->n_holders; i++)
		if (st->holders[i].task.tid == tid)
			return true;
	return false;
}

static void pf_holder(struct perfetto_sink *p, const struct ls_stall *st, const struct ls_holder *h)
{
	char who[LS_COMM_TEXT_LEN + 32], by[LS_COMM_TEXT_LEN + 32];
	const char *lock = ls_lock_kind_name(st->lock.kind);
	const struct ls_spell *sp;
	struct pf_event *e;
	__u64 meet;
	unsigned int i;

	pf_thread(p, &h->task);
	e = pf_add(p, 'X', h->task.tid, h->hold_start_ns, h->held_ns);
	if (!e)
		return;
	snprintf(e->name, sizeof(e->name), "holding %s (%s)", lock, pf_mode(h->write));
	meet = h->hold_start_ns > st->start_ns ? h->hold_start_ns : st->start_ns;
	if (meet < h->hold_end_ns)
		pf_flow(p, lock, st->waiter.tid, st->start_ns, h->task.tid, meet);

	pf_task(&h->task, who, sizeof(who));
	for (i = 0; i < h->n_spells && i < LS_MAX_SPELLS; i++) {
		sp = &h->spells[i];
		if (sp->end_ns <= sp->start_ns ||
		    !pf_fits(p, h->task.tid, sp->start_ns, sp->end_ns - sp->start_ns))
			continue;
		e = pf_add(p, 'X', h->task.tid, sp->start_ns, sp->end_ns - sp->start_ns);
		if (!e)
			return;
		if (sp->ran_instead.tid)
			snprintf(e->name, sizeof(e->name), "off CPU while holding (%s by %s)",
				 ls_state_name(sp->state), pf_task(&sp->ran_instead, by, sizeof(by)));
		else
			snprintf(e->name, sizeof(e->name), "off CPU while holding (%s)",
				 ls_state_name(sp->state));
		/* who ran instead, on its own track, unless it has one in this stall already */
		if (!sp->ran_instead.tid || pf_is_party(st, sp->ran_instead.tid) ||
		    !pf_fits(p, sp->ran_instead.tid, sp->start_ns, sp->end_ns - sp->start_ns))
			continue;
		pf_thread(p, &sp->ran_instead);
		e = pf_add(p, 'X', sp->ran_instead.tid, sp->start_ns, sp->end_ns - sp->start_ns);
		if (!e)
			return;
		snprintf(e->name, sizeof(e->name), "ran instead of %s", who);
		pf_flow(p, lock, h->task.tid, sp->start_ns, sp->ran_instead.tid, sp->start_ns);
	}
}

/*
 * The locks the holder waited on inside the wait: a slice on its track, a
 * flow to that lock's holder (from that wait's stall), and its slice there.
 */
static void pf_waited(struct perfetto_sink *p, const struct ls_stall *st, const struct ls_holder *h)
{
	const char *lock;
	const struct ls_waited *w;
	struct pf_event *e;
	unsigned int i;

	for (i = 0; i < h->n_waited && i < LS_MAX_WAITED; i++) {
		w = &h->waited[i];
		lock = ls_lock_kind_name(w->lock.kind);
		if (!w->ns || !pf_fits(p, h->task.tid, w->start_ns, w->ns))
			continue;
		e = pf_add(p, 'X', h->task.tid, w->start_ns, w->ns);
		if (!e)
			return;
		snprintf(e->name, sizeof(e->name), "waiting for %s (STALL #%llu)", lock,
			 (unsigned long long)w->stall_seq);
		if (!w->holder.tid || pf_is_party(st, w->holder.tid) ||
		    !pf_fits(p, w->holder.tid, w->start_ns, w->ns))
			continue;
		pf_thread(p, &w->holder);
		e = pf_add(p, 'X', w->holder.tid, w->start_ns, w->ns);
		if (!e)
			return;
		snprintf(e->name, sizeof(e->name), "holding %s (%s, STALL #%llu)", lock,
			 ls_state_name(w->holder_state), (unsigned long long)w->stall_seq);
		pf_flow(p, lock, h->task.tid, w->start_ns, w->holder.tid, w->start_ns);
	}
}

/* Per track in time order, the outer of two slices that start together first. */
static int pf_event__cmp(const void *a, const void *b)
{
	const struct pf_event *x = a, *y = b;

	if ((x->ph == 'M') != (y->ph == 'M'))
		return x->ph == 'M' ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if ((x->ph == 'X') != (y->ph == 'X'))
		return x->ph == 'X' ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

static void pf_begin(struct perfetto_sink *p)
{
	if (p->started)
		return;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", p->base.out);
	p->started = true;
}

static void pf_write(struct perfetto_sink *p, __u64 pid)
{
	FILE *f = p->base.out;
	const struct pf_event *e;
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		e = &p->ev[i];
		fprintf(f, "{\"ph\":\"%c\",\"pid\":%llu,\"tid\":%u", e->ph,
			(unsigned long long)pid, e->tid);
		if (e->ph == 'M') {
			fputs(",\"name\":\"thread_name\",\"args\":{\"name\":", f);
			ls_json_str(f, e->name, sizeof(e->name));
			fputs("}},\n", f);
			continue;
		}
		fputs(",\"cat\":\"lockstall\",\"name\":", f);
		ls_json_str(f, e->name, sizeof(e->name));
		pf_us(f, "ts", e->ts);
		if (e->ph == 'X')
			pf_us(f, "dur", e->dur);
		else
			fprintf(f, ",\"id\":%llu%s", (unsigned long long)e->flow,
				e->ph == 'f' ? ",\"bp\":\"e\"" : "");
		fputs("},\n", f);
	}
}

static int perfetto__stall(struct sink *s, const struct ls_stall *st)
{
	struct perfetto_sink *p = (struct perfetto_sink *)s;
	char who[LS_COMM_TEXT_LEN + 32], wait[32], name[PF_NAME_LEN];
	struct pf_event *e;
	unsigned int i;
	__u64 pid = st->seq;

	/* A wait still going on is drawn once, as the run ended; its stall draws it otherwise. */
	if (st->pending && !st->at_exit)
		return 0;
	if (st->pending)
		pid = PF_OPEN_PID_BASE + ++p->n_open;
	p->n = 0;
	pf_begin(p);
	pf_thread(p, &st->waiter);
	e = pf_add(p, 'X', st->waiter.tid, st->start_ns, st->lock_wait_ns);
	snprintf(e->name, sizeof(e->name), "waiting for %s (%s)", ls_lock_kind_name(st->lock.kind),
		 pf_mode(st->write));
	if (st->run_delay_ns) {
		e = pf_add(p, 'X', st->waiter.tid, st->granted_ns, st->run_delay_ns);
		strcpy(e->name, "runnable after the handoff");
	}
	for (i = 0; i < st->n_holders; i++) {
		pf_holder(p, st, &st->holders[i]);
		pf_waited(p, st, &st->holders[i]);
	}
	qsort(p->ev, p->n, sizeof(*p->ev), pf_event__cmp);

	if (st->pending)
		snprintf(name, sizeof(name), "still waiting at exit: %s waited %s so far (%s)",
			 pf_task(&st->waiter, who, sizeof(who)),
			 ls_format_duration(st->lock_wait_ns, wait, sizeof(wait)),
			 ls_verdict_name(st->verdict));
	else
		snprintf(name, sizeof(name), "stall #%llu: %s waited %s (%s)",
			 (unsigned long long)st->seq, pf_task(&st->waiter, who, sizeof(who)),
			 ls_format_duration(st->lock_wait_ns, wait, sizeof(wait)),
			 ls_verdict_name(st->verdict));
	fprintf(s->out, "{\"ph\":\"M\",\"pid\":%llu,\"name\":\"process_name\",\"args\":{\"name\":",
		(unsigned long long)pid);
	ls_json_str(s->out, name, sizeof(name));
	fprintf(s->out, "}},\n{\"ph\":\"M\",\"pid\":%llu,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%llu}},\n",
		(unsigned long long)pid, (unsigned long long)pid);
	pf_write(p, pid);
	return sink__error(s->out);
}

static int perfetto__summary(struct sink *s, const struct ls_summary *sum)
{
	struct perfetto_sink *p = (struct perfetto_sink *)s;

	pf_begin(p);
	/* A last metadata event: the list ends without a trailing comma. */
	fprintf(s->out, "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"lockstall: %llu stalls, %llu events, %llu lost\"}}\n",
		(unsigned long long)sum->stalls, (unsigned long long)sum->events,
		(unsigned long long)sum->lost_events);
	fputs("]}\n", s->out);
	return sink__flush(s->out);
}

static void perfetto__free(struct sink *s)
{
	free(s);
}

static const struct sink_ops perfetto_ops = {
	.name = "perfetto",
	.stall = perfetto__stall,
	.summary = perfetto__summary,
	.free = perfetto__free,
};

struct sink *sink_perfetto__new(FILE *out, const struct sink_opts *opts)
{
	struct perfetto_sink *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->base.ops = &perfetto_ops;
	p->base.out = out;
	p->base.opts = *opts;
	return &p->base;
}
