// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See session.h.  Also two small sinks that only a session needs: the
 * empty one (record prints nothing but progress) and the window over
 * another sink (report --from/--to).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "resolve/cgroup.h"
#include "session.h"
#include "resolve/stacks.h"
#include "sinks/sink_common.h"
#include "record/trace_file.h"

static void sink_plain__free(struct sink *s)
{
	free(s);
}

static const struct sink_ops null_ops = {
	.name = "none",
	.free = sink_plain__free,
};

struct window_sink {
	struct sink base;
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

static int window__stall(struct sink *s, const struct ls_stall *st)
{
	struct window_sink *w = (struct window_sink *)s;

	if (!window__holds(w, st->start_ns))
		return 0;
	if (!st->pending) {
		w->stalls++;
		if (st->verdict < LS_VERDICT_N)
			w->by_verdict[st->verdict]++;
	}
	return sink__stall(w->session->out, st);
}

static int window__interval(struct sink *s, const struct ls_hist_set *h)
{
	struct window_sink *w = (struct window_sink *)s;
	__u64 t0 = window__t0(w);

	/* an interval that overlaps the window */
	if (h->end_ns < t0 + w->from_ns || (w->to_ns && h->start_ns >= t0 + w->to_ns))
		return 0;
	return sink__interval(w->session->out, h);
}

/* The stall counts are the window's; the rest (events, histograms) the run's. */
static int window__summary(struct sink *s, const struct ls_summary *sum)
{
	struct window_sink *w = (struct window_sink *)s;
	struct ls_summary copy = *sum;

	copy.stalls = w->stalls;
	memcpy(copy.stalls_by_verdict, w->by_verdict, sizeof(copy.stalls_by_verdict));
	return sink__summary(w->session->out, &copy);
}

static const struct sink_ops window_ops = {
	.name = "window",
	.stall = window__stall,
	.interval = window__interval,
	.summary = window__summary,
	.free = sink_plain__free,
};

/* The output and the metrics both get everything, the output first. */
struct tee_sink {
	struct sink base;
	struct sink *a, *b;
	bool quiet_intervals;	/* intervals to b only */
};

static int tee__stall(struct sink *s, const struct ls_stall *st)
{
	struct tee_sink *t = (struct tee_sink *)s;
	int err = sink__stall(t->a, st);

	return err ? err : sink__stall(t->b, st);
}

static int tee__interval(struct sink *s, const struct ls_hist_set *h)
{
	struct tee_sink *t = (struct tee_sink *)s;
	int err = t->quiet_intervals ? 0 : sink__interval(t->a, h);

	return err ? err : sink__interval(t->b, h);
}

static int tee__summary(struct sink *s, const struct ls_summary *sum)
{
	struct tee_sink *t = (struct tee_sink *)s;
	int err = sink__summary(t->a, sum);

	return err ? err : sink__summary(t->b, sum);
}

static const struct sink_ops tee_ops = {
	.name = "tee",
	.stall = tee__stall,
	.interval = tee__interval,
	.summary = tee__summary,
	.free = sink_plain__free,
};

/*
 * The rules see every stall the engine emits, after the output has printed
 * it, so a violation line follows its stall; the summary gets their counts.
 */
struct slo_sink {
	struct sink base;
	struct session *session;
	struct sink *inner;
	const struct window_sink *window;	/* inner, when it is report's window */
	enum session_format format;
	int (*on_violation)(void *ctx, const struct slo_violation *v);
	void *ctx;
};

static int slo_sink__violation(void *ctx, const struct slo_violation *v)
{
	struct slo_sink *t = ctx;
	FILE *f = t->base.out;
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

static int slo_sink__stall(struct sink *s, const struct ls_stall *st)
{
	struct slo_sink *t = (struct slo_sink *)s;
	int err = sink__stall(t->inner, st);

	if (err)
		return err;
	/* report --from/--to: the rules judge what is reported, no more */
	if (t->window && !window__holds(t->window, st->start_ns))
		return 0;
	return slo__on_stall(t->session->slo, st);
}

static int slo_sink__interval(struct sink *s, const struct ls_hist_set *h)
{
	return sink__interval(((struct slo_sink *)s)->inner, h);
}

static int slo_sink__summary(struct sink *s, const struct ls_summary *sum)
{
	struct slo_sink *t = (struct slo_sink *)s;
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
	return sink__summary(t->inner, &copy);
}

static const struct sink_ops slo_sink_ops = {
	.name = "slo",
	.stall = slo_sink__stall,
	.interval = slo_sink__interval,
	.summary = slo_sink__summary,
	.free = sink_plain__free,
};

static int session__add_slo(struct session *s, const struct session_opts *o, FILE *out)
{
	struct slo_sink *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->base.ops = &slo_sink_ops;
	t->base.out = out;
	t->base.opts = s->out->opts;
	t->session = s;
	t->inner = s->sink;
	if (o->window)
		t->window = (const struct window_sink *)s->sink;
	t->format = o->format;
	t->on_violation = o->on_violation;
	t->ctx = o->violation_ctx;
	s->slo = slo__new(o->rules, slo_sink__violation, t);
	if (!s->slo) {
		free(t);
		return -ENOMEM;
	}
	s->sink = &t->base;
	return 0;
}

int session__init(struct session *s, const struct session_opts *o, FILE *out)
{
	struct sink_opts so = {
		.top = o->top,
		.filter_pid = o->pid,
	};
	struct engine_opts eo = {
		.threshold_ns = o->threshold_ns,
		.filter_pid = o->pid,
		.pending_after_ns = o->pending_after_ns,
		.pending_every_ns = o->pending_every_ns,
	};
	struct sink *first;

	memset(s, 0, sizeof(*s));
	s->metrics = o->metrics;
	switch (o->format) {
	case SESSION_TEXT:
		s->out = sink_text__new(out, &so);
		break;
	case SESSION_JSON:
		s->out = sink_json__new(out, &so);
		break;
	case SESSION_CUSTOM:
		s->out = o->custom;
		break;
	case SESSION_NONE:
		s->out = calloc(1, sizeof(*s->out));
		if (s->out) {
			s->out->ops = &null_ops;
			s->out->out = out;
			s->out->opts = so;
		}
		break;
	}
	if (!s->out)
		goto nomem;
	s->sink = s->out;
	if (o->window) {
		struct window_sink *w = calloc(1, sizeof(*w));

		if (!w)
			goto nomem;
		sink__init(&w->base, &window_ops, out, &so);
		w->session = s;
		w->abs = o->window_abs;
		w->from_ns = o->from_ns;
		w->to_ns = o->to_ns;
		s->sink = &w->base;
	}
	if (o->metrics) {
		struct tee_sink *t;

		/* the window prints to out directly: it would bypass the tee */
		if (o->window) {
			session__destroy(s);
			return -EINVAL;
		}
		t = calloc(1, sizeof(*t));
		if (!t)
			goto nomem;
		sink__init(&t->base, &tee_ops, out, &so);
		t->a = s->sink;
		t->b = o->metrics;
		t->quiet_intervals = o->quiet_intervals;
		s->sink = &t->base;
	}
	/* even without rules yet: a SIGHUP may bring some */
	if (o->rules && session__add_slo(s, o, out))
		goto nomem;
	/*
	 * Outermost, so the rules, the metrics and the output all see
	 * frames; not when nothing would read them (record: the file keeps
	 * the raw stacks, report resolves them).
	 */
	if (o->stacks)
		s->stacks = o->stacks;
	if (o->stacks && (o->format != SESSION_NONE || o->rules || o->metrics)) {
		s->stacks_sink = sink_stacks__new(s->sink, o->stacks);
		if (!s->stacks_sink)
			goto nomem;
	}
	first = s->stacks_sink ? s->stacks_sink : s->sink;
	/* outside the stacks: paths are cheap, and every sink shows them */
	s->cgroups = o->cgroups;
	if (o->cgroups) {
		s->cgroups_sink = sink_cgroups__new(first, o->cgroups);
		if (!s->cgroups_sink)
			goto nomem;
		first = s->cgroups_sink;
	}
	s->engine = engine__new(&eo, first);
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

	err = engine__feed(s->engine, rec, len);
	if (err < 0)
		s->feed_err = err;
	return err;
}

int session__feed_unrecorded(void *data, const void *rec, size_t len)
{
	struct session *s = data;
	struct trace_writer *writer = s->writer;
	int (*tap)(void *ctx, const void *rec, size_t len) = s->tap;
	int err;

	s->writer = NULL;
	s->tap = NULL;
	err = session__feed(s, rec, len);
	/* a write error cannot have come: the writer stays as it was */
	s->writer = writer;
	s->tap = tap;
	return err;
}

int session__finish(struct session *s)
{
	int err = engine__finish(s->engine);

	if (err < 0)
		s->feed_err = err;
	return err;
}

void session__destroy(struct session *s)
{
	if (s->engine)
		engine__free(s->engine);
	sink__free(s->cgroups_sink);
	s->cgroups_sink = NULL;
	sink__free(s->stacks_sink);
	s->stacks_sink = NULL;
	/* the rules' sink wraps the tee or the window, if any */
	if (s->slo) {
		struct sink *inner = ((struct slo_sink *)s->sink)->inner;

		sink__free(s->sink);
		s->sink = inner;
		slo__free(s->slo);
		s->slo = NULL;
	}
	if (s->sink && s->sink != s->out)
		sink__free(s->sink);
	sink__free(s->out);
	sink__free(s->metrics);
	s->engine = NULL;
	s->sink = s->out = s->metrics = NULL;
}
