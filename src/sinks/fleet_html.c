// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fleet report as one self-contained HTML page, in the single
 * report's style (html.c: no script, no network): the tables of the text
 * report, a timeline of every host's stalls on one UTC axis, and the
 * merged histograms drawn as the single report draws them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/fleet.h"
#include "sinks/report_model.h"
#include "sinks/sink_common.h"

#define FH_WIDTH	960	/* timeline */
#define FH_LABEL	180
#define FH_ROW		18
#define FH_MAX_ROWS	60	/* hosts drawn; the rest are in the table */

static void fh_dur(FILE *f, __u64 ns)
{
	char buf[32];

	fputs(ls_format_duration(ns, buf, sizeof(buf)), f);
}

static void fh_cell(FILE *f, const char *s)
{
	fputs("<td>", f);
	rm_html_text(f, s ? s : "?", (size_t)-1);
	fputs("</td>", f);
}

static void fh_ranks(FILE *f, const struct fleet *fl, const struct fleet_opts *o,
		     const char *title, const char *who, const struct fleet_ranks *rk)
{
	size_t i;

	fprintf(f, "<h2>%s</h2>\n", title);
	if (!rk->n) {
		fputs("<p>none</p>\n", f);
		return;
	}
	fprintf(f, "<table>\n<tr><th>%s</th><th>stall time</th><th>stalls</th><th>hosts</th></tr>\n", who);
	for (i = 0; i < rk->n && (!o->top || i < o->top); i++) {
		fputs("<tr>", f);
		fh_cell(f, rk->v[i].name);
		fputs("<td>", f);
		fh_dur(f, rk->v[i].ns);
		fprintf(f, "</td><td>%llu</td><td>%u of %zu</td></tr>\n",
			(unsigned long long)rk->v[i].stalls, rk->v[i].hosts, fl->n_rows);
	}
	fputs("</table>\n", f);
	if (o->top && rk->n > o->top)
		fprintf(f, "<p>and %zu more (--top 0 shows all)</p>\n", rk->n - o->top);
}

static void fh_utc(FILE *f, __u64 utc_ns, bool date)
{
	struct report_meta m = { .has_clock = true };
	char buf[64];

	fputs(utc_ns ? rm_when(&m, utc_ns, 0, date, buf, sizeof(buf)) : "?", f);
}

static void fh_hosts(FILE *f, const struct fleet *fl)
{
	const struct fleet_row *w;
	size_t i;

	fputs("<h2>Hosts</h2>\n<table>\n<tr><th>host</th><th>files</th><th>stalls</th><th>worst</th>"
	      "<th>top culprit</th><th>lost events</th><th>kernel</th><th>lockstall</th>"
	      "<th>recorded (UTC)</th></tr>\n", f);
	for (i = 0; i < fl->n_rows; i++) {
		w = &fl->rows[i];
		fputs("<tr>", f);
		fh_cell(f, w->host);
		fprintf(f, "<td>%u%s</td><td>%llu</td><td>", w->recordings, w->damaged ? " (damaged)" : "",
			(unsigned long long)w->stalls);
		if (w->stalls)
			fh_dur(f, w->worst_ns);
		fputs("</td>", f);
		fh_cell(f, w->top_culprit[0] ? w->top_culprit : "-");
		fprintf(f, "<td>%llu</td>", (unsigned long long)w->lost_events);
		fh_cell(f, w->kernel);
		fh_cell(f, w->version);
		fputs("<td>", f);
		fh_utc(f, w->first_utc_ns, true);
		fputs(" to ", f);
		fh_utc(f, w->last_utc_ns, false);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void fh_worst(FILE *f, const struct fleet *fl)
{
	const struct fleet_worst *w;
	char when[64], verdict[64];
	struct fleet_names n;
	unsigned int i;

	fputs("<h2>Worst stalls of the fleet</h2>\n", f);
	if (!fl->n_worst) {
		fputs("<p>none</p>\n", f);
		return;
	}
	fputs("<table>\n<tr><th>when (UTC)</th><th>host</th><th>lock wait</th><th>waiter</th>"
	      "<th>holder</th><th>lock</th><th>verdict</th></tr>\n", f);
	for (i = 0; i < fl->n_worst; i++) {
		w = &fl->worst[i];
		struct report_meta m = { .has_clock = w->rec->has_clock,
					 .realtime_minus_monotonic_ns = w->rec->offset_ns };

		fputs("<tr>", f);
		fh_cell(f, rm_when(&m, w->st->start_ns, w->rec->start_ns, true, when, sizeof(when)));
		fh_cell(f, w->rec->host);
		fputs("<td>", f);
		fh_dur(f, w->st->lock_wait_ns);
		fputs("</td>", f);
		fleet_stall__names(w->st, &n);
		fh_cell(f, n.waiter);
		fh_cell(f, n.holder[0] ? n.holder : "-");
		fh_cell(f, n.lock);
		fh_cell(f, sink__words(ls_verdict_name(w->st->verdict), false, verdict, sizeof(verdict)));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

#define FH_PLOT	(FH_WIDTH - FH_LABEL - 10)	/* the timeline's pixels */

/* Which pixels of each row a stall covers: a page the same size for any number of stalls. */
static void fh_marks(const struct fleet *fl, size_t rows, unsigned char (*px)[FH_PLOT])
{
	__u64 span = fl->last_utc_ns > fl->first_utc_ns ? fl->last_utc_ns - fl->first_utc_ns : 1;
	double scale = (double)FH_PLOT / (double)span;
	const struct fleet_rec *r;
	size_t i, j, x, end;

	for (i = 0; i < fl->n_recs; i++) {
		r = fl->recs[i];
		for (j = 0; r->row < rows && j < r->n_stalls; j++) {
			if (r->stalls[j].dup)
				continue;
			x = (size_t)((double)(fleet_rec__utc(r, r->stalls[j].start_ns) -
					      fl->first_utc_ns) * scale);
			end = x + 1 + (size_t)((double)r->stalls[j].lock_wait_ns * scale);
			for (; x < end && x < FH_PLOT; x++)
				px[r->row][x] = 1;
		}
	}
}

/* Every host a row, every stall a mark at its UTC time: where hosts stalled together. */
static void fh_timeline(FILE *f, const struct fleet *fl)
{
	size_t rows = fl->n_rows < FH_MAX_ROWS ? fl->n_rows : FH_MAX_ROWS, i, x, run;
	unsigned char (*px)[FH_PLOT];

	if (!fl->all_clocks || !fl->first_utc_ns)
		return;
	px = calloc(rows ? rows : 1, sizeof(*px));
	if (!px)
		return;
	fh_marks(fl, rows, px);
	fputs("<h2>Stalls over time (UTC)</h2>\n", f);
	fprintf(f, "<svg class=\"fleet-timeline\" width=\"%d\" height=\"%zu\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n",
		FH_WIDTH, rows * FH_ROW + 24);
	for (i = 0; i < rows; i++) {
		fprintf(f, "<text x=\"0\" y=\"%zu\">", i * FH_ROW + 13);
		rm_html_text(f, fl->rows[i].host, 24);
		fprintf(f, "</text><line x1=\"%d\" y1=\"%zu\" x2=\"%d\" y2=\"%zu\" stroke=\"#eee\"/>\n",
			FH_LABEL, i * FH_ROW + 9, FH_WIDTH - 10, i * FH_ROW + 9);
	}
	for (i = 0; i < rows; i++) {
		for (x = 0; x < FH_PLOT; x += run ? run : 1) {
			for (run = 0; x + run < FH_PLOT && px[i][x + run]; run++)
				;
			if (run)
				fprintf(f, "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"12\" fill=\"#e45756\"/>\n",
					FH_LABEL + x, i * FH_ROW + 3, run);
		}
	}
	free(px);
	fprintf(f, "<text x=\"%d\" y=\"%zu\" fill=\"#555\">", FH_LABEL, rows * FH_ROW + 18);
	fh_utc(f, fl->first_utc_ns, true);
	fprintf(f, "</text><text x=\"%d\" y=\"%zu\" text-anchor=\"end\" fill=\"#555\">", FH_WIDTH - 10,
		rows * FH_ROW + 18);
	fh_utc(f, fl->last_utc_ns, false);
	fputs("</text>\n</svg>\n", f);
	if (rows < fl->n_rows)
		fprintf(f, "<p>The first %zu hosts by name are drawn.</p>\n", rows);
}

static void fh_hists(FILE *f, const struct fleet *fl, const struct fleet_opts *o)
{
	struct hist_view v;
	struct rm_hist m;
	size_t i;

	fputs("<h2>Wait histograms by command, all hosts</h2>\n<p>The buckets of every host added up; "
	      "bar heights are log-scaled.</p>\n", f);
	for (i = 0; i < fl->n_hists && (!o->top || i < o->top); i++) {
		memset(&v, 0, sizeof(v));
		v.key.kind = fl->hists[i].kind;
		v.key.write = fl->hists[i].write;
		v.hist = fl->hists[i].hist;
		v.processes = 1;
		rm_hist__init(&m, &v);
		snprintf(m.who, sizeof(m.who), "%s on %u host%s", m.comm, fl->hists[i].hosts,
			 fl->hists[i].hosts == 1 ? "" : "s");
		rm_html_hist(f, &m);
	}
}

static void fh_notes(FILE *f, const struct fleet *fl)
{
	size_t i, damaged = 0;

	if (fl->n_overlaps)
		fputs("<h2>Overlapping recordings of one boot</h2>\n<ul>\n", f);
	for (i = 0; i < fl->n_overlaps; i++) {
		fputs("<li>", f);
		rm_html_text(f, fl->overlaps[i].b->file, (size_t)-1);
		fputs(" overlaps ", f);
		rm_html_text(f, fl->overlaps[i].a->file, (size_t)-1);
		fprintf(f, ": %llu stalls in both, counted once</li>\n",
			(unsigned long long)fl->overlaps[i].dup_stalls);
	}
	if (fl->n_overlaps)
		fputs("</ul>\n", f);
	for (i = 0; i < fl->n_recs; i++) {
		if (!fl->recs[i]->damage)
			continue;
		fputs(damaged++ ? "<li>" : "<h2>Damaged recordings (read up to the damage)</h2>\n<ul>\n<li>", f);
		rm_html_text(f, fl->recs[i]->file, (size_t)-1);
		fputs(": ", f);
		rm_html_text(f, fl->recs[i]->note ? fl->recs[i]->note : "damaged", (size_t)-1);
		fputs("</li>\n", f);
	}
	if (damaged)
		fputs("</ul>\n", f);
	if (fl->n_bad)
		fputs("<h2>Left out</h2>\n<ul>\n", f);
	for (i = 0; i < fl->n_bad; i++) {
		fputs("<li>", f);
		rm_html_text(f, fl->bad[i].file, (size_t)-1);
		fputs(": ", f);
		rm_html_text(f, fl->bad[i].why, (size_t)-1);
		fputs("</li>\n", f);
	}
	if (fl->n_bad)
		fputs("</ul>\n", f);
}

static void fh_head(FILE *f, const struct fleet *fl, const struct fleet_opts *o)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		"<title>lockstall fleet report</title>\n<style>\n%s</style>\n</head>\n<body>\n"
		"<h1>lockstall fleet report</h1>\n<p>%zu recordings of %zu hosts", rm_html_style,
		fl->n_recs, fl->n_rows);
	if (o->hosts) {
		fputs(" matching ", f);
		rm_html_text(f, o->hosts, (size_t)-1);
	}
	fputs(", ", f);
	fh_utc(f, fl->first_utc_ns, true);
	fputs(" to ", f);
	fh_utc(f, fl->last_utc_ns, false);
	fprintf(f, ": %llu stalls, %llu events lost, %zu files left out.</p>\n"
		"<p>Times are UTC: a record's monotonic time plus its recording's wall-clock offset, "
		"read at its start to a few microseconds; hosts line up as well as their clocks "
		"agreed then (NTP: milliseconds).</p>\n", (unsigned long long)fl->stalls,
		(unsigned long long)fl->lost_events, fl->n_bad);
}

int fleet__print_html(const struct fleet *fl, const struct fleet_opts *o, FILE *f)
{
	fh_head(f, fl, o);
	fh_ranks(f, fl, o, "Culprits: commands holding the lock", "command", &fl->culprits);
	fh_ranks(f, fl, o, "Culprit services (the holder's cgroup)", "cgroup",
		 &fl->culprit_services);
	fh_ranks(f, fl, o, "Victims: commands that waited", "command", &fl->victims);
	fh_ranks(f, fl, o, "Victim services (the waiter's cgroup)", "cgroup", &fl->victim_services);
	fh_hosts(f, fl);
	fh_timeline(f, fl);
	fh_worst(f, fl);
	fh_hists(f, fl, o);
	fh_notes(f, fl);
	fputs("</body>\n</html>\n", f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
