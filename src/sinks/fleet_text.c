// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fleet report as text and as Markdown: the same sections, tables
 * drawn either as padded columns or as Markdown rows (every cell escaped).
 * The text in the model is printable already (fleet_model.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/fleet.h"
#include "sinks/report_model.h"
#include "sinks/sink_common.h"

#define FT_MAX_COLS	8

/* A table: its columns' widths (negative: left-aligned), or Markdown. */
struct ft_table {
	FILE *f;
	bool md;
	int width[FT_MAX_COLS];
	unsigned int n;
};

static void ft_row(const struct ft_table *t, const char *const cell[])
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (t->md) {
			fputs(i ? " " : "| ", t->f);
			rm_md_text(t->f, cell[i]);
			fputs(" |", t->f);
		} else if (i + 1 == t->n && t->width[i] < 0) {
			fprintf(t->f, "  %s", cell[i]);
		} else {
			fprintf(t->f, "  %*s", t->width[i], cell[i]);
		}
	}
	fputs("\n", t->f);
}

/* The heading row, and in Markdown the alignment row under it. */
static void ft_head(const struct ft_table *t, const char *const cell[])
{
	unsigned int i;

	ft_row(t, cell);
	if (!t->md)
		return;
	for (i = 0; i < t->n; i++)
		fputs(t->width[i] < 0 ? "|---" : "|---:", t->f);
	fputs("|\n", t->f);
}

static void ft_title(FILE *f, bool md, const char *title)
{
	if (md)
		fprintf(f, "\n## %s\n\n", title);
	else
		fprintf(f, "\n%s:\n", title);
}

/* "3 of 5" hosts */
static const char *ft_hosts(unsigned int n, size_t of, char *buf, size_t len)
{
	snprintf(buf, len, "%u of %zu", n, of);
	return buf;
}

static unsigned int ft_shown(size_t n, unsigned int top)
{
	return top && n > top ? top : (unsigned int)n;
}

static void ft_more(FILE *f, bool md, size_t n, unsigned int top)
{
	if (top && n > top)
		fprintf(f, "%s(and %zu more: --top 0 shows all)\n", md ? "\n" : "  ", n - top);
}

static void ft_ranks(const struct fleet *f, const struct fleet_opts *o, FILE *out, bool md,
		     const char *title, const char *who, const struct fleet_ranks *rk)
{
	struct ft_table t = { out, md, { 12, 8, 10, -40 }, 4 };
	const char *head[] = { "STALL TIME", "STALLS", "HOSTS", who };
	char ns[32], stalls[24], hosts[40];
	unsigned int i;

	ft_title(out, md, title);
	if (!rk->n) {
		fprintf(out, "%snone\n", md ? "" : "  ");
		return;
	}
	ft_head(&t, head);
	for (i = 0; i < ft_shown(rk->n, o->top); i++) {
		const char *row[] = { ls_format_duration(rk->v[i].ns, ns, sizeof(ns)), stalls,
				      ft_hosts(rk->v[i].hosts, f->n_rows, hosts, sizeof(hosts)),
				      rk->v[i].name };

		snprintf(stalls, sizeof(stalls), "%llu", (unsigned long long)rk->v[i].stalls);
		ft_row(&t, row);
	}
	ft_more(out, md, rk->n, o->top);
}

/* "2026-12-03 06:40:00.102 UTC", or "?" without a clock. */
static const char *ft_utc(__u64 utc_ns, bool date, char *buf, size_t len)
{
	struct report_meta m = { .has_clock = utc_ns != 0 };

	if (!utc_ns)
		return snprintf(buf, len, "?"), buf;
	return rm_when(&m, utc_ns, 0, date, buf, len);
}

static void ft_hosts_table(const struct fleet *f, FILE *out, bool md)
{
	struct ft_table t = { out, md, { -24, 5, 7, 10, -16, 6, -20, -12 }, 8 };
	const char *head[] = { "HOST", "FILES", "STALLS", "WORST", "TOP CULPRIT", "LOST",
			       "KERNEL", "VERSION" };
	char files[16], stalls[24], worst[32], lost[24], a[64], b[64];
	const struct fleet_row *w;
	size_t i;

	ft_title(out, md, "Hosts");
	ft_head(&t, head);
	for (i = 0; i < f->n_rows; i++) {
		w = &f->rows[i];
		const char *row[] = { w->host, files, stalls, worst,
				      w->top_culprit[0] ? w->top_culprit : "-", lost, w->kernel,
				      w->version };

		snprintf(files, sizeof(files), "%u", w->recordings);
		snprintf(stalls, sizeof(stalls), "%llu", (unsigned long long)w->stalls);
		snprintf(lost, sizeof(lost), "%llu", (unsigned long long)w->lost_events);
		if (w->stalls)
			ls_format_duration(w->worst_ns, worst, sizeof(worst));
		else
			snprintf(worst, sizeof(worst), "-");
		ft_row(&t, row);
	}
	fprintf(out, "%sRecorded (UTC):\n", md ? "\n" : "  ");
	for (i = 0; i < f->n_rows; i++) {
		w = &f->rows[i];
		fprintf(out, "%s", md ? "- " : "    ");
		if (md)
			rm_md_name(out, w->host);
		else
			fputs(w->host, out);
		fprintf(out, ": %s to %s%s\n", ft_utc(w->first_utc_ns, true, a, sizeof(a)),
			ft_utc(w->last_utc_ns, false, b, sizeof(b)),
			w->damaged ? " (a recording damaged: read up to the damage)" : "");
	}
}

static void ft_worst(const struct fleet *f, FILE *out, bool md)
{
	struct ft_table t = { out, md, { -27, -16, 10, -16, -16, -20, -28 }, 7 };
	const char *head[] = { "WHEN (UTC)", "HOST", "LOCK WAIT", "WAITER", "HOLDER", "VERDICT",
			       "LOCK" };
	char when[64], ns[32], verdict[64];
	const struct fleet_worst *w;
	struct fleet_names n;
	unsigned int i;

	ft_title(out, md, "Worst stalls of the fleet");
	if (!f->n_worst) {
		fprintf(out, "%snone\n", md ? "" : "  ");
		return;
	}
	ft_head(&t, head);
	for (i = 0; i < f->n_worst; i++) {
		w = &f->worst[i];
		fleet_stall__names(w->st, &n);
		struct report_meta m = { .has_clock = w->rec->has_clock,
					 .realtime_minus_monotonic_ns = w->rec->offset_ns };
		const char *row[] = {
			rm_when(&m, w->st->start_ns, w->rec->start_ns, true, when, sizeof(when)),
			w->rec->host, ls_format_duration(w->st->lock_wait_ns, ns, sizeof(ns)),
			n.waiter, n.holder[0] ? n.holder : "-",
			sink__words(ls_verdict_name(w->st->verdict), false, verdict, sizeof(verdict)),
			n.lock,
		};

		ft_row(&t, row);
	}
}

static void ft_hists(const struct fleet *f, const struct fleet_opts *o, FILE *out, bool md)
{
	struct hist_view v;
	struct rm_hist m;
	unsigned int i;

	ft_title(out, md, "Wait histograms by command, all hosts (buckets added up)");
	if (!f->n_hists)
		fprintf(out, "%snone\n", md ? "" : "  ");
	for (i = 0; i < ft_shown(f->n_hists, o->top); i++) {
		memset(&v, 0, sizeof(v));
		v.key.kind = f->hists[i].kind;
		v.key.write = f->hists[i].write;
		v.hist = f->hists[i].hist;
		v.processes = 1;
		rm_hist__init(&m, &v);
		snprintf(m.who, sizeof(m.who), "%s on %u host%s", m.comm, f->hists[i].hosts,
			 f->hists[i].hosts == 1 ? "" : "s");
		if (md)
			rm_md_hist(out, &m);
		else
			rm_text_hist(out, &m);
	}
	ft_more(out, md, f->n_hists, o->top);
}

/* A file name or a reason: made printable, and escaped for Markdown. */
static void ft_text(FILE *out, bool md, const char *s)
{
	char buf[4 * 4096 + 1];

	ls_text(s, (size_t)-1, buf, sizeof(buf));
	if (md)
		rm_md_text(out, buf);
	else
		fputs(buf, out);
}

/* "- FILE: WHY" */
static void ft_item(FILE *out, bool md, const char *file, const char *why)
{
	fputs(md ? "- " : "  ", out);
	ft_text(out, md, file);
	fputs(": ", out);
	ft_text(out, md, why);
	fputs("\n", out);
}

/* Overlaps, damage, files left out: what the numbers above do not cover. */
static void ft_notes(const struct fleet *f, FILE *out, bool md)
{
	size_t i, damaged = 0;

	if (f->n_overlaps)
		ft_title(out, md, "Overlapping recordings of one boot (each stall counted once)");
	for (i = 0; i < f->n_overlaps; i++) {
		const struct fleet_overlap *v = &f->overlaps[i];

		fprintf(out, "%s", md ? "- " : "  ");
		ft_text(out, md, v->b->file);
		fputs(" overlaps ", out);
		ft_text(out, md, v->a->file);
		fprintf(out, ": %llu stall%s in both, counted once\n", (unsigned long long)v->dup_stalls,
			v->dup_stalls == 1 ? "" : "s");
	}
	for (i = 0; i < f->n_recs; i++) {
		if (!f->recs[i]->damage)
			continue;
		if (!damaged++)
			ft_title(out, md, "Damaged recordings (read up to the damage)");
		ft_item(out, md, f->recs[i]->file, f->recs[i]->note ? f->recs[i]->note : "damaged");
	}
	if (f->n_bad)
		ft_title(out, md, "Left out");
	for (i = 0; i < f->n_bad; i++)
		ft_item(out, md, f->bad[i].file, f->bad[i].why);
}

static void ft_heading(const struct fleet *f, const struct fleet_opts *o, FILE *out, bool md)
{
	char a[64], b[64];

	fprintf(out, "%slockstall fleet report: %zu recording%s of %zu host%s", md ? "# " : "",
		f->n_recs, f->n_recs == 1 ? "" : "s", f->n_rows, f->n_rows == 1 ? "" : "s");
	if (o->hosts)
		fprintf(out, " matching %s", o->hosts);
	fprintf(out, "%s%s to %s UTC\n", md ? "\n\n" : "\n", ft_utc(f->first_utc_ns, true, a, sizeof(a)),
		ft_utc(f->last_utc_ns, false, b, sizeof(b)));
	fprintf(out, "%s%llu stalls%s, %llu events lost, %zu file%s left out\n", md ? "\n" : "",
		(unsigned long long)f->stalls,
		f->dup_stalls ? " (repeats in overlapping recordings counted once)" : "",
		(unsigned long long)f->lost_events, f->n_bad, f->n_bad == 1 ? "" : "s");
	fprintf(out, "%sTimes in UTC: a record's monotonic time plus its recording's wall-clock offset, read at its start to a few microseconds; hosts line up as well as their clocks agreed then (NTP: milliseconds)%s.\n",
		md ? "\n" : "", f->all_clocks ? "" : "; recordings without a wall clock show times since their start");
}

static int fleet__print(const struct fleet *f, const struct fleet_opts *o, FILE *out, bool md)
{
	ft_heading(f, o, out, md);
	ft_ranks(f, o, out, md, "Culprits: commands holding the lock, by the stall time they caused",
		 "COMMAND", &f->culprits);
	ft_ranks(f, o, out, md, "Culprit services (the holder's cgroup)", "CGROUP",
		 &f->culprit_services);
	ft_ranks(f, o, out, md, "Victims: commands that waited", "COMMAND", &f->victims);
	ft_ranks(f, o, out, md, "Victim services (the waiter's cgroup)", "CGROUP",
		 &f->victim_services);
	ft_hosts_table(f, out, md);
	ft_worst(f, out, md);
	ft_hists(f, o, out, md);
	ft_notes(f, out, md);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int fleet__print_text(const struct fleet *f, const struct fleet_opts *o, FILE *out)
{
	return fleet__print(f, o, out, false);
}

int fleet__print_markdown(const struct fleet *f, const struct fleet_opts *o, FILE *out)
{
	return fleet__print(f, o, out, true);
}
