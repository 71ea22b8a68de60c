// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SLO rules at work (see slo.h): each stall matched against the
 * rules, a window of matching stalls and open waits kept per rule, a
 * violation fired when a rule's budget is spent, and a violation written
 * as JSON or text.  The rules themselves are parsed in slo_rules.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "alert/slo.h"
#include "sinks/json_stall.h"
#include "sinks/sink_common.h"
#include "util.h"

/* ---- evaluation ------------------------------------------------------- */

struct win_entry {
	__u64 end_ns;
	__u64 ns;
};

/*
 * A wait a pending report showed to the rule: what of it the window has
 * counted so far, and whether it fired the rule (its final stall then
 * does not fire it again).  Named as the sinks name it: waiter tid, start.
 */
struct open_wait {
	__u32 tid;
	__u64 start_ns;
	__u64 counted_ns;
	bool fired;
};

struct rule_state {
	struct open_wait open[SLO_OPEN_WAITS];
	size_t n_open;
	/* the window: a ring of matching stalls, oldest first */
	struct win_entry *ring;
	size_t cap, head, n;
	__u64 sum_ns;
	/* the latest matching stalls, deep copies, for the violation */
	struct stall_copy recent[SLO_VIOLATION_STALLS];
	size_t n_recent, recent_head;
	bool fired;
	__u64 last_fire_ns;
	__u64 suppressed;
};

struct slo {
	struct slo_rules rules;
	struct rule_state *state;
	slo_violation_fn fn;
	void *ctx;
	__u64 now_ns;
	struct slo_stats stats;
};

static void state__free(struct rule_state *s)
{
	size_t i;

	free(s->ring);
	for (i = 0; i < SLO_VIOLATION_STALLS; i++)
		stall_copy__release(&s->recent[i]);
}

static void slo__drop_rules(struct slo *slo)
{
	size_t i;

	for (i = 0; slo->state && i < slo->rules.n; i++)
		state__free(&slo->state[i]);
	free(slo->state);
	slo->state = NULL;
	slo_rules__free(&slo->rules);
}

void slo__set_rules(struct slo *slo, struct slo_rules *rules)
{
	slo__drop_rules(slo);
	slo->rules = *rules;
	rules->v = NULL;
	rules->n = 0;
	/* calloc(0) may give NULL: n == 0 needs no state */
	slo->state = slo->rules.n ? calloc(slo->rules.n, sizeof(*slo->state)) : NULL;
	if (slo->rules.n && !slo->state)
		slo_rules__free(&slo->rules);	/* out of memory: no rules rather than a crash */
}

struct slo *slo__new(struct slo_rules *rules, slo_violation_fn fn, void *ctx)
{
	struct slo *slo = calloc(1, sizeof(*slo));

	if (!slo)
		return NULL;
	slo->fn = fn;
	slo->ctx = ctx;
	slo__set_rules(slo, rules);
	if (!slo->state && slo->rules.n) {
		free(slo);
		return NULL;
	}
	return slo;
}

size_t slo__n_rules(const struct slo *slo)
{
	return slo->rules.n;
}

void slo__stats(const struct slo *slo, struct slo_stats *out)
{
	*out = slo->stats;
}

void slo__free(struct slo *slo)
{
	if (!slo)
		return;
	slo__drop_rules(slo);
	free(slo);
}

/*
 * Is path (the resolver's text of a task's cgroup; NULL: unknown) the
 * selector's cgroup or below it?  A glob of k components is matched against
 * the path's ancestor of k components: with FNM_PATHNAME no glob
 * character matches a '/', so no other ancestor could match.
 */
static bool cgroup_sel__matches(const struct slo_cgroup_sel *r, const char *path)
{
	char prefix[LS_CGROUP_TEXT_MAX];
	size_t n, i, depth = 0, seen = 0;

	if (!path || path[0] != '/')
		return false;
	if (!r->glob) {
		n = strlen(r->path);
		if (n == 1)
			return true;	/* "/": every cgroup known */
		return !strncmp(path, r->path, n) && (path[n] == '\0' || path[n] == '/');
	}
	if (!path[1])
		return false;	/* the root: no components for the glob's */
	for (i = 0; r->path[i]; i++)
		depth += r->path[i] == '/';
	for (i = 0; path[i]; i++)
		if (path[i] == '/' && ++seen > depth)
			break;
	if (seen < depth || i >= sizeof(prefix))
		return false;
	memcpy(prefix, path, i);
	prefix[i] = '\0';
	return !fnmatch(r->path, prefix, FNM_PATHNAME | FNM_NOESCAPE);
}

/* Is any holder of st (whose cgroup is known) in the selector's cgroup? */
static bool cgroup_sel__matches_a_holder(const struct slo_cgroup_sel *r, const struct ls_stall *st)
{
	__u32 i;

	for (i = 0; i < st->n_holders; i++)
		if (cgroup_sel__matches(r, st->holders[i].cgroup))
			return true;
	return false;
}

/* Does t's name (as text: escaped bytes) match glob?  A task only the TID of which is known has none. */
static bool comm__matches(const char *glob, const struct ls_task *t)
{
	char comm[LS_COMM_TEXT_LEN];

	/* FNM_NOESCAPE: "\x1b" in a rule matches the text of that byte */
	return ls_task_seen(t) &&
	       !fnmatch(glob, ls_comm_text(t->comm, comm, sizeof(comm)), FNM_NOESCAPE);
}

/* holder_comm=: any holder, any hop of the chain past the waiter, any lock's holder a holder waited on. */
static bool comm__matches_a_holder(const char *glob, const struct ls_stall *st)
{
	unsigned int i, k;

	for (i = 0; i < st->n_holders; i++) {
		if (comm__matches(glob, &st->holders[i].task))
			return true;
		for (k = 0; k < st->holders[i].n_waited && k < LS_MAX_WAITED; k++)
			if (comm__matches(glob, &st->holders[i].waited[k].holder))
				return true;
	}
	for (i = 1; i < st->n_chain && i < LS_MAX_HOPS; i++)
		if (comm__matches(glob, &st->chain[i].task))
			return true;
	return false;
}

static bool rule__matches(const struct slo_rule *r, const struct ls_stall *st)
{
	if (r->cgroup.path && !cgroup_sel__matches(&r->cgroup, st->waiter_cgroup))
		return false;
	if (r->holder_cgroup.path && !cgroup_sel__matches_a_holder(&r->holder_cgroup, st))
		return false;
	if (r->has_pid && st->waiter.tgid != r->pid)
		return false;
	if (r->has_policy && st->waiter.policy != r->policy)
		return false;
	if (r->has_verdict && st->verdict != r->verdict)
		return false;
	if (r->has_cause && st->cause != r->cause)
		return false;
	if (r->has_lock && st->lock.kind != r->lock_kind)
		return false;
	if (r->has_comm && !comm__matches(r->comm, &st->waiter))
		return false;
	if (r->has_holder_comm && !comm__matches_a_holder(r->holder_comm, st))
		return false;
	return true;
}

/*
 * Keep a copy of st among the rule's latest, for the violations to come:
 * what st points to lives only during the call.
 */
static int state__remember(struct rule_state *s, const struct ls_stall *st)
{
	int err = stall_copy__set(&s->recent[s->recent_head], st);

	if (err) {
		/* that slot, the oldest when the ring is full, is empty now */
		if (s->n_recent == SLO_VIOLATION_STALLS)
			s->n_recent--;
		return err;
	}
	s->recent_head = (s->recent_head + 1) % SLO_VIOLATION_STALLS;
	if (s->n_recent < SLO_VIOLATION_STALLS)
		s->n_recent++;
	return 0;
}

/* Stalls that ended at or before now - window leave it. */
static void state__expire(struct rule_state *s, __u64 now, __u64 window)
{
	while (s->n) {
		struct win_entry *e = &s->ring[s->head];

		if (now - e->end_ns < window)
			break;
		s->sum_ns -= e->ns;
		s->head = (s->head + 1) % s->cap;
		s->n--;
	}
}

static int state__add(struct slo *slo, struct rule_state *s, __u64 end_ns, __u64 ns)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16, i;
		struct win_entry *ring;

		if (cap > SLO_WINDOW_ENTRIES) {
			/* full: the oldest goes, the sum understates; counted */
			s->sum_ns -= s->ring[s->head].ns;
			s->head = (s->head + 1) % s->cap;
			s->n--;
			slo->stats.evicted++;
			goto add;
		}
		ring = malloc(cap * sizeof(*ring));
		if (!ring)
			return -ENOMEM;
		for (i = 0; i < s->n; i++)
			ring[i] = s->ring[(s->head + i) % s->cap];
		free(s->ring);
		s->ring = ring;
		s->cap = cap;
		s->head = 0;
	}
add:
	s->ring[(s->head + s->n) % s->cap] = (struct win_entry){ end_ns, ns };
	s->n++;
	s->sum_ns += ns;
	return 0;
}

static int slo__fire(struct slo *slo, size_t i, __u64 value, __u64 window_stalls)
{
	const struct slo_rule *r = &slo->rules.v[i];
	struct rule_state *s = &slo->state[i];
	const struct ls_stall *stalls[SLO_VIOLATION_STALLS];
	struct slo_violation v = {
		.rule = r,
		.rule_index = i,
		.value_ns = value,
		.at_ns = slo->now_ns,
		.window_stalls = window_stalls,
		.stalls = stalls,
	};
	size_t k;

	if (s->fired && slo->now_ns - s->last_fire_ns < r->every_ns) {
		s->suppressed++;
		slo->stats.suppressed++;
		return 0;
	}
	/* latest first; a wait rule carries the stall that broke it only */
	for (k = 0; k < s->n_recent; k++) {
		const struct stall_copy *c =
			&s->recent[(s->recent_head + SLO_VIOLATION_STALLS - 1 - k) % SLO_VIOLATION_STALLS];

		if (r->kind == SLO_WAIT && k)
			break;
		if (r->kind == SLO_STALLED && slo->now_ns - c->st.end_ns >= r->window_ns)
			break;
		stalls[v.n_stalls++] = &c->st;
	}
	v.suppressed = s->suppressed;
	s->suppressed = 0;
	s->fired = true;
	s->last_fire_ns = slo->now_ns;
	slo->stats.violations++;
	return slo->fn ? slo->fn(slo->ctx, &v) : 0;
}

/*
 * The wait st is about (a pending report, or the stall that ends one the
 * rule saw pending), found or, for a pending report, made: the oldest
 * goes when all slots are taken.  NULL: a stall of a wait never seen open.
 */
static struct open_wait *state__open_wait(struct rule_state *s, const struct ls_stall *st)
{
	struct open_wait *w, *oldest = NULL;
	size_t i;

	for (i = 0; i < s->n_open; i++) {
		w = &s->open[i];
		if (w->tid == st->waiter.tid && w->start_ns == st->start_ns)
			return w;
		if (!oldest || w->start_ns < oldest->start_ns)
			oldest = w;
	}
	if (!st->pending)
		return NULL;
	w = s->n_open < SLO_OPEN_WAITS ? &s->open[s->n_open++] : oldest;
	*w = (struct open_wait){ .tid = st->waiter.tid, .start_ns = st->start_ns };
	return w;
}

static void state__close_wait(struct rule_state *s, struct open_wait *w)
{
	*w = s->open[--s->n_open];
}

/*
 * One stall or pending report against one rule.  A pending report counts
 * what its wait has accrued since the last one (stalled), and fires as
 * soon as the wait is long enough (wait); the wait's stall then counts the
 * rest, and does not fire a rule its pending reports fired already.
 */
static int slo__judge(struct slo *slo, size_t i, const struct ls_stall *st)
{
	const struct slo_rule *r = &slo->rules.v[i];
	struct rule_state *s = &slo->state[i];
	struct open_wait *w = state__open_wait(s, st);
	bool fired = w && w->fired, broke = false;
	__u64 counted = w && w->counted_ns < st->lock_wait_ns ? w->counted_ns : 0;
	int rc = 0;

	if (w && !st->pending)
		state__close_wait(s, w);
	else if (w)
		w->counted_ns = st->lock_wait_ns;
	if (r->kind == SLO_WAIT) {
		if (st->lock_wait_ns < r->limit_ns || fired)
			return 0;
		broke = true;
		rc = state__remember(s, st);
		if (!rc)
			rc = slo__fire(slo, i, st->lock_wait_ns, 1);
	} else {
		state__expire(s, slo->now_ns, r->window_ns);
		/* a stall that ended before the window began counts for nothing */
		if (slo->now_ns - st->end_ns >= r->window_ns)
			return 0;
		rc = state__add(slo, s, st->end_ns, st->lock_wait_ns - counted);
		if (!rc)
			rc = state__remember(s, st);
		broke = !rc && !fired && s->sum_ns >= r->limit_ns;
		if (broke)
			rc = slo__fire(slo, i, s->sum_ns, s->n);
	}
	/* reported, or held back by the rate limit: either way this wait broke the rule */
	if (w && st->pending && broke)
		w->fired = true;
	return rc;
}

int slo__on_stall(struct slo *slo, const struct ls_stall *st)
{
	size_t i;
	int rc;

	/* stalls end out of order by a little (per-CPU buffers): time only goes on */
	if (st->end_ns > slo->now_ns)
		slo->now_ns = st->end_ns;
	for (i = 0; i < slo->rules.n; i++) {
		if (!rule__matches(&slo->rules.v[i], st))
			continue;
		rc = slo__judge(slo, i, st);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- output ----------------------------------------------------------- */

static const char *kind_name(enum slo_kind k)
{
	return k == SLO_WAIT ? "wait" : "stalled";
}

static bool culprit_seen(const struct ls_hop *const *seen, size_t n, const struct ls_hop *h)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (seen[i]->task.tid == h->task.tid && seen[i]->role == h->role)
			return true;
	}
	return false;
}

void slo_violation__write_json(FILE *f, const struct slo_violation *v)
{
	const struct slo_rule *r = v->rule;
	const struct ls_hop *seen[SLO_VIOLATION_STALLS * LS_MAX_HOPS];
	size_t i, j, n_seen = 0;

	fprintf(f, "{\"type\":\"violation\",\"rule\":");
	ls_json_str(f, r->text, (size_t)-1);
	fprintf(f, ",\"rule_index\":%zu,\"kind\":\"%s\",\"value_ns\":%llu,\"limit_ns\":%llu",
		v->rule_index + 1, kind_name(r->kind), (unsigned long long)v->value_ns,
		(unsigned long long)r->limit_ns);
	if (r->kind == SLO_STALLED)
		fprintf(f, ",\"window_ns\":%llu", (unsigned long long)r->window_ns);
	fprintf(f, ",\"every_ns\":%llu,\"at_ns\":%llu,\"suppressed\":%llu,\"window_stalls\":%llu",
		(unsigned long long)r->every_ns, (unsigned long long)v->at_ns,
		(unsigned long long)v->suppressed, (unsigned long long)v->window_stalls);
	if (v->n_stalls) {
		const struct ls_task *t = &v->stalls[0]->waiter;

		fprintf(f, ",\"victim\":{\"pid\":%u,\"tid\":%u,\"comm\":", t->tgid, t->tid);
		ls_json_str(f, t->comm, LS_COMM_LEN);
		sink_json__write_rename(f, v->stalls[0], t->tid, t->comm);
		sink_json__write_cgroup(f, v->stalls[0]->waiter_cgroup_id, v->stalls[0]->waiter_cgroup);
		putc('}', f);
	}
	fprintf(f, ",\"stalls\":[");
	for (i = 0; i < v->n_stalls; i++) {
		if (i)
			putc(',', f);
		sink_json__write_stall(f, v->stalls[i]);
	}
	/* who made the victims wait: every chain hop but the waiters, once each */
	fprintf(f, "],\"culprits\":[");
	for (i = 0; i < v->n_stalls; i++) {
		const struct ls_stall *st = v->stalls[i];

		for (j = 0; j < st->n_chain && j < LS_MAX_HOPS; j++) {
			const struct ls_hop *h = &st->chain[j];

			if (h->role == LS_ROLE_WAITER || culprit_seen(seen, n_seen, h))
				continue;
			if (!ls_task_seen(&h->task)) {
				fprintf(f, "%s{\"pid\":null,\"tid\":%u,\"comm\":null", n_seen ? "," : "",
					h->task.tid);
			} else {
				fprintf(f, "%s{\"pid\":%u,\"tid\":%u,\"comm\":", n_seen ? "," : "",
					h->task.tgid, h->task.tid);
				ls_json_str(f, h->task.comm, LS_COMM_LEN);
				sink_json__write_rename(f, st, h->task.tid, h->task.comm);
			}
			fprintf(f, ",\"role\":\"%s\"}", ls_role_name(h->role));
			seen[n_seen++] = h;
		}
	}
	fprintf(f, "]}");
}

void slo_violation__write_text(FILE *f, const struct slo_violation *v)
{
	const struct slo_rule *r = v->rule;
	char val[32], lim[32], win[32], comm[LS_COMM_TEXT_LEN], other[SINK_RENAME_TEXT_LEN];
	char rule[SLO_MAX_LINE * 4 + 1];
	const struct ls_stall *st = v->n_stalls ? v->stalls[0] : NULL;
	size_t i, o = 0;

	/* rules are printable ASCII, checked by the parser; still: never a raw byte */
	for (i = 0; r->text[i] && o + 5 < sizeof(rule); i++) {
		unsigned char b = (unsigned char)r->text[i];

		if (b >= 0x20 && b < 0x7f)
			rule[o++] = (char)b;
		else
			o += (size_t)snprintf(rule + o, sizeof(rule) - o, "\\x%02x", b);
	}
	rule[o] = '\0';
	fprintf(f, "VIOLATION rule %zu '%s': ", v->rule_index + 1, rule);
	if (r->kind == SLO_WAIT)
		fprintf(f, "waited %s >= %s", ls_format_duration(v->value_ns, val, sizeof(val)),
			ls_format_duration(r->limit_ns, lim, sizeof(lim)));
	else
		fprintf(f, "stalled %s in %s >= %s (%llu stalls)",
			ls_format_duration(v->value_ns, val, sizeof(val)),
			ls_format_duration(r->window_ns, win, sizeof(win)),
			ls_format_duration(r->limit_ns, lim, sizeof(lim)),
			(unsigned long long)v->window_stalls);
	if (st) {
		fprintf(f, "  victim %s[%u/%u]%s", ls_comm_text(st->waiter.comm, comm, sizeof(comm)),
			st->waiter.tgid, st->waiter.tid,
			sink__rename_text(ls_stall__rename(st, st->waiter.tid, st->waiter.comm),
					  other, sizeof(other)));
		for (i = 0; i < st->n_chain && i < LS_MAX_HOPS; i++) {
			const struct ls_hop *h = &st->chain[i];

			if (h->role == LS_ROLE_WAITER)
				continue;
			if (sink__unseen_text(&h->task, comm, sizeof(comm))) {
				fprintf(f, "  %s %s", ls_role_name(h->role), comm);
				continue;
			}
			fprintf(f, "  %s %s[%u/%u]%s", ls_role_name(h->role),
				ls_comm_text(h->task.comm, comm, sizeof(comm)), h->task.tgid,
				h->task.tid,
				sink__rename_text(ls_stall__rename(st, h->task.tid, h->task.comm),
						  other, sizeof(other)));
		}
	}
	if (v->suppressed)
		fprintf(f, "  (%llu suppressed)", (unsigned long long)v->suppressed);
	putc('\n', f);
}
