// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See session.h.  The chain of stages between the engine and the output is
 * built from one table, stages[] below; the stages only a session needs
 * (the empty output, the window, the metrics' tee, the rules) are here too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "resolve/cgroup.h"
#include "session.h"
#include "resolve/stacks.h"
#include "sinks/naming.h"
#include "sinks/sink_common.h"
#include "sinks/sinks.h"
#include "record/trace_file.h"

/* ---- the output: what watch prints, or nothing (record) -------------- */

static void sink_null__free(struct sink *s)
{
	free(s);
}

static const struct sink_ops null_ops = {
	.name = "none",
	.free = sink_null__free,
};

static struct sink *output__new(struct session *s, const struct session_opts *o,
				FILE *out, struct sink *inner)
{
	struct sink_opts so = {
		.top = o->top,
		.filter_pid = o->pid,
		.per_pid = o->per_pid,
		.hist_min_ns = o->hist_min_ns,
	};
	struct sink *n;

	switch (o->format) {
	case SESSION_TEXT:
		return sink_text__new(out, &so);
	case SESSION_JSON:
		return sink_json__new(out, &so);
	case SESSION_CUSTOM:
		return o->custom;
	case SESSION_NONE:
		break;
	}
	n = calloc(1, sizeof(*n));
	if (n)
		sink__init(n, &null_ops, out, &so);
	return n;
}

/* ---- report --from/--to: only the stalls inside the window ------------ */

struct window_sink {
	struct sink_pass pass;	/* first: the stage */
	const struct session *session;
	bool abs;		/* from_ns, to_ns: CLOCK_MONOTONIC, else relative to t0 */
	__u64 from_ns, to_ns;
	__u64 stalls;
	__u64 by_verdict[LS_VERDICT_N];
};

static __u64 window__t0(const struct window_sink *w)
{
	__u64 t0 = w->session->out->opts.t0_ns;

	if (w->abs)
		return 0;
	return t0 ? t0 : w->session->first_ts;
}

/* [t0 + from, t0 + to): to 0 is open-ended */
static bool window__holds(const struct window_sink *w, __u64 ts)
{
	__u64 t0 = window__t0(w);

	if (ts < t0 + w->from_ns)
		return false;
	return !w->to_ns || ts < t0 + w->to_ns;
}

static int window__stall(struct sink_pass *p, const struct ls_stall *st)
{
	struct window_sink *w = (struct window_sink *)p;

	if (!window__holds(w, st->start_ns))
		return 0;
	if (!st->pending) {
		w->stalls++;
		if (st->verdict < LS_VERDICT_N)
			w->by_verdict[st->verdict]++;
	}
	return sink__stall(p->inner, st);
}

static int window__interval(struct sink_pass *p, const struct ls_hist_set *h)
{
	struct window_sink *w = (struct window_sink *)p;
	__u64 t0 = window__t0(w);

	/* an interval that overlaps the window */
	if (h->end_ns < t0 + w->from_ns || (w->to_ns && h->start_ns >= t0 + w->to_ns))
		return 0;
	return sink__interval(p->inner, h);
}

/* The stall counts are the window's; the rest (events, histograms) the run's. */
static int window__summary(struct sink_pass *p, const struct ls_summary *sum)
{
	struct window_sink *w = (struct window_sink *)p;
	struct ls_summary copy = *sum;

	copy.stalls = w->stalls;
	memcpy(copy.stalls_by_verdict, w->by_verdict, sizeof(copy.stalls_by_verdict));
	return sink__summary(p->inner, &copy);
}

static const struct sink_pass_ops window_ops = {
	.name = "window",
	.stall = window__stall,
	.interval = window__interval,
	.summary = window__summary,
};

static struct sink *window__new(struct session *s, const struct session_opts *o,
				FILE *out, struct sink *inner)
{
	struct window_sink *w = sink_pass__new(sizeof(*w), &window_ops, inner);

	if (!w)
		return NULL;
	w->session = s;
	w->abs = o->window_abs;
	w->from_ns = o->from_ns;
	w->to_ns = o->to_ns;
	return &w->pass.base;
}

/* ---- the metrics: they get everything the output gets, after it -------- */

struct tee_sink {
	struct sink_pass pass;	/* first: the stage; inner is the output */
	struct sink *metrics;
	bool quiet_intervals;	/* intervals to the metrics only */
};

static int tee__stall(struct sink_pass *p, const struct ls_stall *st)
{
	struct tee_sink *t = (struct tee_sink *)p;

	return sink__stall(p->inner, st) ?: sink__stall(t->metrics, st);
}

static int tee__interval(struct sink_pass *p, const struct ls_hist_set *h)
{
	struct tee_sink *t = (struct tee_sink *)p;
	int err = t->quiet_intervals ? 0 : sink__interval(p->inner, h);

	return err ?: sink__interval(t->metrics, h);
}

static int tee__summary(struct sink_pass *p, const struct ls_summary *sum)
{
	struct tee_sink *t = (struct tee_sink *)p;

	return sink__summary(p->inner, sum) ?: sink__summary(t->metrics, sum);
}

static const struct sink_pass_ops tee_ops = {
	.name = "metrics",
	.stall = tee__stall,
	.interval = tee__interval,
	.summary = tee__summary,
};

static struct sink *tee__new(struct session *s, const struct session_opts *o,
			     FILE *out, struct sink *inner)
{
	struct tee_sink *t = sink_pass__new(sizeof(*t), &tee_ops, inner);

	if (!t)
		return NULL;
	t->metrics = o->metrics;
	t->quiet_intervals = o->quiet_intervals;
	return &t->pass.base;
}

/*
 * ---- the SLO rules ------------------------------------------------------
 * They see every stall the engine emits, after the output has printed it,
 * so a violation line follows its stall; the summary gets their counts.
 */
struct slo_sink {
	struct sink_pass pass;	/* first: the stage */
	struct session *session;
	const struct window_sink *window;	/* report's window, if any */
	enum session_format format;
	int (*on_violation)(void *ctx, const struct slo_violation *v);
	void *ctx;
};

static int slo_sink__violation(void *ctx, const struct slo_violation *v)
{
	struct slo_sink *t = ctx;
	FILE *f = t->pass.base.out;
	int err = 0;

	if (t->format == SESSION_JSON) {
		slo_violation__write_json(f, v);
		putc('\n', f);
		err = sink__flush(f);
	} else if (t->format == SESSION_TEXT) {
		slo_violation__write_text(f, v);
		putc('\n', f);
		err = sink__flush(f);
	}
	if (err)
		return err;
	return t->on_violation ? t->on_violation(t->ctx, v) : 0;
}

static int slo_sink__stall(struct sink_pass *p, const struct ls_stall *st)
{
	struct slo_sink *t = (struct slo_sink *)p;
	int err = sink__stall(p->inner, st);

	if (err)
		return err;
	/* report --from/--to: the rules judge what is reported, no more */
	if (t->window && !window__holds(t->window, st->start_ns))
		return 0;
	return slo__on_stall(t->session->slo, st);
}

static int slo_sink__summary(struct sink_pass *p, const struct ls_summary *sum)
{
	struct slo_sink *t = (struct slo_sink *)p;
	const struct session *ss = t->session;
	struct ls_summary copy = *sum;
	struct slo_stats st;

	slo__stats(ss->slo, &st);
	copy.slo = true;
	copy.slo_violations = st.violations;
	copy.slo_suppressed = st.suppressed;
	copy.hook_runs = ss->hook_runs;
	copy.hook_failures = ss->hook_failures;
	copy.hook_timeouts = ss->hook_timeouts;
	copy.hook_skipped = ss->hook_skipped;
	return sink__summary(p->inner, &copy);
}

static const struct sink_pass_ops slo_sink_ops = {
	.name = "slo",
	.stall = slo_sink__stall,
	.summary = slo_sink__summary,
};

/* The rules' state (s->slo) lives as long as this stage: session__destroy() frees both. */
static struct sink *slo_sink__new(struct session *s, const struct session_opts *o,
				  FILE *out, struct sink *inner)
{
	struct slo_sink *t = sink_pass__new(sizeof(*t), &slo_sink_ops, inner);

	if (!t)
		return NULL;
	t->session = s;
	t->window = (const struct window_sink *)s->stage[SESSION_STAGE_WINDOW];
	t->format = o->format;
	t->on_violation = o->on_violation;
	t->ctx = o->violation_ctx;
	s->slo = slo__new(o->rules, slo_sink__violation, t);
	if (!s->slo) {
		free(t);
		return NULL;
	}
	return &t->pass.base;
}

/* ---- the resolvers: names for what the engine found -------------------- */

/* live, named by the worker: the stage only queues them */
static struct sink *stacks_stage__new(struct session *s, const struct session_opts *o,
				      FILE *out, struct sink *inner)
{
	if (s->naming)
		return sink_naming__new(inner, s->naming);
	return sink_stacks__new(inner, o->stacks);
}

static struct sink *cgroups_stage__new(struct session *s, const struct session_opts *o,
				       FILE *out, struct sink *inner)
{
	return sink_cgroups__new(inner, o->cgroups);
}

/* ---- the chain ---------------------------------------------------------- */

static bool output__wanted(const struct session_opts *o)
{
	return true;
}

static bool window__wanted(const struct session_opts *o)
{
	return o->window;
}

static bool tee__wanted(const struct session_opts *o)
{
	return o->metrics;
}

/* even without rules yet: a SIGHUP may bring some */
static bool slo_sink__wanted(const struct session_opts *o)
{
	return o->rules;
}

/* not when nothing would read frames (record: the file keeps the raw stacks) */
static bool stacks_stage__wanted(const struct session_opts *o)
{
	return o->stacks && (o->format != SESSION_NONE || o->rules || o->metrics);
}

static bool cgroups_stage__wanted(const struct session_opts *o)
{
	return o->cgroups;
}

/*
 * Every stage between the engine and the output, innermost first: each one
 * its options ask for is built in front of the chain so far, and the
 * engine calls the last one built.  So the resolvers come first, and the
 * rules, the metrics and the output all see frames and cgroup paths; the
 * rules judge a stall after the output has printed it.
 */
static const struct session_stage {
	bool (*wanted)(const struct session_opts *o);
	/* the stage in front of inner (NULL for the output); NULL: no memory */
	struct sink *(*new)(struct session *s, const struct session_opts *o, FILE *out,
			    struct sink *inner);
} stages[SESSION_STAGE_N] = {
	[SESSION_STAGE_OUTPUT] = { output__wanted, output__new },
	[SESSION_STAGE_WINDOW] = { window__wanted, window__new },
	[SESSION_STAGE_METRICS] = { tee__wanted, tee__new },
	[SESSION_STAGE_SLO] = { slo_sink__wanted, slo_sink__new },
	[SESSION_STAGE_STACKS] = { stacks_stage__wanted, stacks_stage__new },
	/* outside the stacks: paths are cheap, and every sink shows them */
	[SESSION_STAGE_CGROUPS] = { cgroups_stage__wanted, cgroups_stage__new },
};

int session__init(struct session *s, const struct session_opts *o, FILE *out)
{
	struct engine_opts eo = {
		.threshold_ns = o->threshold_ns,
		.filter_pid = o->pid,
		.pending_after_ns = o->pending_after_ns,
		.pending_every_ns = o->pending_every_ns,
	};
	struct sink *chain = NULL;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->metrics = o->metrics;
	s->stacks = o->stacks;
	s->cgroups = o->cgroups;
	/* the window prints to the output directly: it would bypass the metrics */
	if ((o->window && o->metrics) || (o->name_async && o->window)) {
		/* a custom output is the session's all the same */
		if (o->format == SESSION_CUSTOM)
			s->stage[SESSION_STAGE_OUTPUT] = o->custom;
		session__destroy(s);
		return -EINVAL;
	}
	/* even without the stage (record): the worker collects the mappings */
	if (o->stacks && o->name_async) {
		s->naming = naming__new_stacks(o->stacks);
		if (!s->naming)
			goto nomem;
	}
	for (i = 0; i < SESSION_STAGE_N; i++) {
		struct sink *next;

		if (!stages[i].wanted(o))
			continue;
		next = stages[i].new(s, o, out, chain);
		if (!next)
			goto nomem;
		s->stage[i] = chain = next;
	}
	s->out = s->stage[SESSION_STAGE_OUTPUT];
	s->sink = chain;
	s->engine = engine__new(&eo, s->sink);
	if (!s->engine)
		goto nomem;
	return 0;
nomem:
	session__destroy(s);
	return -ENOMEM;
}

int session__feed(void *data, const void *rec, size_t len)
{
	struct session *s = data;
	const struct ls_hdr *hdr = rec;
	int err;

	if (s->writer) {
		err = trace_writer__record(s->writer, rec, len);
		if (err < 0) {
			s->write_err = err;
			s->writer = NULL;
			if (s->stop_on_write_error)
				return err;
		}
	}
	if (s->tap)
		s->tap(s->tap_ctx, rec, len);
	if (len >= sizeof(*hdr) && !s->first_ts)
		s->first_ts = hdr->ts;
	/* the text time column counts from the run's BEGIN mark, by its own stamp */
	if (len >= sizeof(struct ls_rec_mark) && hdr->type == LS_REC_MARK &&
	    ((const struct ls_rec_mark *)rec)->kind == LS_MARK_BEGIN && !s->out->opts.t0_ns)
		s->out->opts.t0_ns = hdr->ts;

	if (s->stacks && len >= sizeof(struct ls_rec_stack) && hdr->type == LS_REC_STACK)
		stacks__note(s->stacks, rec);
	if (s->stacks && len >= sizeof(struct ls_rec_lock) && hdr->type == LS_REC_WAIT_BEGIN)
		stacks__note_wait(s->stacks, rec);

	err = engine__feed(s->engine, rec, len);
	/* what the worker has named meanwhile, in the engine's order */
	if (err >= 0 && s->naming)
		err = naming__deliver(s->naming, false, 0);
	if (err < 0)
		s->feed_err = err;
	return err;
}

int session__drain(struct session *s)
{
	int err = s->naming ? naming__deliver(s->naming, true, NAMING_LATE_NS) : 0;

	if (err < 0)
		s->feed_err = err;
	return err;
}

bool session__stop_naming(struct session *s)
{
	return naming__stop(s->naming, NAMING_STOP_NS);
}

int session__feed_unrecorded(void *data, const void *rec, size_t len)
{
	struct session *s = data;
	int err = engine__feed_aside(s->engine, rec, len);

	if (err < 0)
		s->feed_err = err;
	return err;
}

int session__finish(struct session *s)
{
	int err = engine__finish(s->engine);

	if (err < 0)
		s->feed_err = err;
	return err;
}

void session__summary(const struct session *s, struct ls_summary *out)
{
	engine__summary(s->engine, out);
	if (s->naming)
		out->stalls_unnamed = naming__unnamed(s->naming);
}

size_t session__stuck_holders(const struct session *s, __u64 now, __u32 *tids, size_t max)
{
	return engine__stuck_holders(s->engine, now, tids, max);
}

void session__destroy(struct session *s)
{
	size_t i;

	if (s->engine)
		engine__free(s->engine);
	naming__free(s->naming);
	s->naming = NULL;
	/* outermost first; a custom output is the session's too, from session__init on */
	for (i = SESSION_STAGE_N; i-- > 0;) {
		sink__free(s->stage[i]);
		s->stage[i] = NULL;
	}
	slo__free(s->slo);
	sink__free(s->metrics);
	s->engine = NULL;
	s->slo = NULL;
	s->sink = s->out = s->metrics = NULL;
}
