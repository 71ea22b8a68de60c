// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fleet report as JSON Lines (scripts/lockstall.schema.json, the
 * fleet_* types: one object per line, the "fleet" line first), the
 * interchange for fleets whose data lives in a SQL engine: every stall
 * counted is a line, so a query can rank what the report ranks; and as
 * Perfetto (Chrome trace-event JSON) with one process group per host.
 */
#include <errno.h>
#include <time.h>
#include "sinks/fleet.h"
#include "engine/engine.h"

/* "key": "value" (value: printable text already; NULL: null). */
static void fj_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	if (v)
		ls_json_str(f, v, (size_t)-1);
	else
		fputs("null", f);
}

/* A UTC time as ISO 8601 with microseconds, or null (0: no clock). */
static void fj_utc(FILE *f, const char *key, __u64 utc_ns)
{
	time_t sec = (time_t)(utc_ns / NSEC_PER_SEC);
	char day[32];
	struct tm tm;

	fprintf(f, ",\"%s\":", key);
	if (!utc_ns || !gmtime_r(&sec, &tm) || !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm)) {
		fputs("null", f);
		return;
	}
	fprintf(f, "\"%s.%06lluZ\"", day, (unsigned long long)(utc_ns % NSEC_PER_SEC / 1000));
}

static void fj_head(const struct fleet *f, const struct fleet_opts *o, FILE *out)
{
	fprintf(out, "{\"type\":\"fleet\",\"recordings\":%zu,\"hosts\":%zu,\"stalls\":%llu,"
		"\"repeats\":%llu,\"lost_events\":%llu,\"left_out\":%zu", f->n_recs, f->n_rows,
		(unsigned long long)f->stalls, (unsigned long long)f->dup_stalls,
		(unsigned long long)f->lost_events, f->n_bad);
	fj_str(out, "host_pattern", o->hosts);
	fj_utc(out, "first", f->first_utc_ns);
	fj_utc(out, "last", f->last_utc_ns);
	fputs("}\n", out);
}

static void fj_ranks(FILE *out, const char *table, const struct fleet_ranks *rk)
{
	size_t i;

	for (i = 0; i < rk->n; i++) {
		fprintf(out, "{\"type\":\"fleet_rank\",\"table\":\"%s\",\"rank\":%zu", table, i + 1);
		fj_str(out, "name", rk->v[i].name);
		fprintf(out, ",\"stall_ns\":%llu,\"stalls\":%llu,\"hosts\":%u}\n",
			(unsigned long long)rk->v[i].ns, (unsigned long long)rk->v[i].stalls,
			rk->v[i].hosts);
	}
}

static void fj_hosts(const struct fleet *f, FILE *out)
{
	const struct fleet_row *w;
	size_t i;

	for (i = 0; i < f->n_rows; i++) {
		w = &f->rows[i];
		fputs("{\"type\":\"fleet_host\"", out);
		fj_str(out, "host", w->host);
		fprintf(out, ",\"recordings\":%u,\"stalls\":%llu,\"worst_ns\":%llu", w->recordings,
			(unsigned long long)w->stalls, (unsigned long long)w->worst_ns);
		fj_str(out, "top_culprit", w->top_culprit[0] ? w->top_culprit : NULL);
		fprintf(out, ",\"lost_events\":%llu,\"damaged\":%u", (unsigned long long)w->lost_events,
			w->damaged);
		fj_str(out, "kernel", w->kernel);
		fj_str(out, "version", w->version);
		fj_utc(out, "first", w->first_utc_ns);
		fj_utc(out, "last", w->last_utc_ns);
		fputs("}\n", out);
	}
}

/* rank: its place among the worst (1...), 0 for the others. */
static void fj_stall(FILE *out, const struct fleet_rec *r, const struct fleet_stall *s,
		     unsigned int rank)
{
	struct fleet_names n;

	fleet_stall__names(s, &n);
	fputs("{\"type\":\"fleet_stall\"", out);
	fj_str(out, "host", r->host);
	fj_str(out, "file", r->file);
	fj_utc(out, "time", fleet_rec__utc(r, s->start_ns));
	fprintf(out, ",\"start_ns\":%llu,\"lock_wait_ns\":%llu,\"worst\":%u",
		(unsigned long long)s->start_ns, (unsigned long long)s->lock_wait_ns, rank);
	fj_str(out, "waiter", n.waiter);
	fprintf(out, ",\"waiter_pid\":%u,\"waiter_tid\":%u", s->waiter_tgid, s->waiter_tid);
	fj_str(out, "waiter_cgroup", fleet_rec__cgroup(r, s->waiter_cg));
	fj_str(out, "holder", n.holder[0] ? n.holder : NULL);
	fprintf(out, ",\"holder_pid\":%u,\"holder_tid\":%u", s->holder_tgid, s->holder_tid);
	fj_str(out, "holder_cgroup", fleet_rec__cgroup(r, s->holder_cg));
	fj_str(out, "lock", n.lock);
	fj_str(out, "verdict", ls_verdict_name(s->verdict));
	fj_str(out, "cause", ls_cause_name(s->cause));
	fputs("}\n", out);
}

static unsigned int fj_rank(const struct fleet *f, const struct fleet_stall *s)
{
	unsigned int i;

	for (i = 0; i < f->n_worst; i++) {
		if (f->worst[i].st == s)
			return i + 1;
	}
	return 0;
}

static void fj_stalls(const struct fleet *f, FILE *out)
{
	const struct fleet_rec *r;
	size_t i, j;

	for (i = 0; i < f->n_recs; i++) {
		r = f->recs[i];
		for (j = 0; j < r->n_stalls; j++) {
			if (!r->stalls[j].dup)
				fj_stall(out, r, &r->stalls[j], fj_rank(f, &r->stalls[j]));
		}
	}
}

static void fj_hists(const struct fleet *f, FILE *out)
{
	char comm[LS_COMM_TEXT_LEN];
	const struct fleet_hist *h;
	int lock;
	size_t i;
	unsigned int k;

	for (i = 0; i < f->n_hists; i++) {
		h = &f->hists[i];
		lock = ls_hist_lock_kind(h->kind);
		fputs("{\"type\":\"fleet_hist\"", out);
		fj_str(out, "comm", ls_comm_text(h->hist.comm, comm, sizeof(comm)));
		fj_str(out, "lock", ls_lock_kind_name(lock < 0 ? LS_LOCK_MMAP : (unsigned int)lock));
		fj_str(out, "mode", h->write == 1 ? "write" : h->write == 0 ? "read" : "any");
		fprintf(out, ",\"hosts\":%u,\"count\":%llu,\"sum_ns\":%llu,\"slots\":[", h->hosts,
			(unsigned long long)h->hist.count, (unsigned long long)h->hist.sum_ns);
		for (k = 0; k < LS_HIST_SLOTS; k++)
			fprintf(out, "%s%llu", k ? "," : "", (unsigned long long)h->hist.slots[k]);
		fputs("]}\n", out);
	}
}

static void fj_notes(const struct fleet *f, FILE *out)
{
	size_t i;

	for (i = 0; i < f->n_overlaps; i++) {
		fputs("{\"type\":\"fleet_overlap\"", out);
		fj_str(out, "host", f->overlaps[i].a->host);
		fj_str(out, "file", f->overlaps[i].b->file);
		fj_str(out, "overlaps", f->overlaps[i].a->file);
		fprintf(out, ",\"repeats\":%llu}\n", (unsigned long long)f->overlaps[i].dup_stalls);
	}
	for (i = 0; i < f->n_recs; i++) {
		if (!f->recs[i]->damage)
			continue;
		fputs("{\"type\":\"fleet_damaged\"", out);
		fj_str(out, "file", f->recs[i]->file);
		fj_str(out, "reason", f->recs[i]->note);
		fputs("}\n", out);
	}
	for (i = 0; i < f->n_bad; i++) {
		fputs("{\"type\":\"fleet_left_out\"", out);
		fj_str(out, "file", f->bad[i].file);
		fj_str(out, "reason", f->bad[i].why);
		fputs("}\n", out);
	}
}

int fleet__print_json(const struct fleet *f, const struct fleet_opts *o, FILE *out)
{
	fj_head(f, o, out);
	fj_ranks(out, "culprits", &f->culprits);
	fj_ranks(out, "culprit_services", &f->culprit_services);
	fj_ranks(out, "victims", &f->victims);
	fj_ranks(out, "victim_services", &f->victim_services);
	fj_hosts(f, out);
	fj_stalls(f, out);
	fj_hists(f, out);
	fj_notes(f, out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/*
 * Perfetto: each host a process (pid: its row + 1, named by the host),
 * each stall a slice on its waiter's thread, at its UTC time in
 * microseconds since the fleet's first (times since each recording's
 * start for recordings without a clock).
 */
static void fp_stall(FILE *out, const struct fleet *f, const struct fleet_rec *r,
		     const struct fleet_stall *s, bool *first)
{
	__u64 t = fleet_rec__utc(r, s->start_ns);
	struct fleet_names n;

	t = t ? t - f->first_utc_ns : s->start_ns - r->start_ns;
	fprintf(out, "%s\n{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%llu.%03llu,\"dur\":%llu.%03llu,\"name\":",
		*first ? "" : ",", r->row + 1, s->waiter_tid, (unsigned long long)(t / 1000),
		(unsigned long long)(t % 1000), (unsigned long long)(s->lock_wait_ns / 1000),
		(unsigned long long)(s->lock_wait_ns % 1000));
	fleet_stall__names(s, &n);
	ls_json_str(out, n.lock, (size_t)-1);
	fputs(",\"cat\":\"stall\",\"args\":{\"waiter\":", out);
	ls_json_str(out, n.waiter, (size_t)-1);
	fputs(",\"holder\":", out);
	ls_json_str(out, n.holder, (size_t)-1);
	fputs(",\"verdict\":", out);
	ls_json_str(out, ls_verdict_name(s->verdict), (size_t)-1);
	fputs("}}", out);
	*first = false;
}

int fleet__print_perfetto(const struct fleet *f, const struct fleet_opts *o, FILE *out)
{
	const struct fleet_rec *r;
	bool first = true;
	size_t i, j;

	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
	for (i = 0; i < f->n_rows; i++) {
		fprintf(out, "%s\n{\"ph\":\"M\",\"pid\":%zu,\"name\":\"process_name\",\"args\":{\"name\":",
			first ? "" : ",", i + 1);
		ls_json_str(out, f->rows[i].host, (size_t)-1);
		fputs("}}", out);
		first = false;
	}
	for (i = 0; i < f->n_recs; i++) {
		r = f->recs[i];
		for (j = 0; j < r->n_stalls; j++) {
			if (!r->stalls[j].dup)
				fp_stall(out, f, r, &r->stalls[j], &first);
		}
	}
	fputs("\n]}\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
