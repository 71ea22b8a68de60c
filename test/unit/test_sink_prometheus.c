// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Prometheus sink (watch --metrics-file): rendered from hand-built
 * stalls and histograms, then read back by a small parser of the text
 * format that checks what a scraper relies on.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "sink_fixture.h"
#include "sinks/prometheus.h"

#define MAX_FAMILIES 32
#define MAX_SAMPLES 1024

struct fam {
	char name[64];
	char type[16];
	bool help;
};

struct sample {
	char name[64];
	char labels[128];	/* as written, between the braces */
	char le[32];		/* the le label's value, if any */
	char mode[16];		/* the mode label's value, if any */
	char lock[16];		/* the lock label's value, if any */
	double value;
};

struct expo {
	struct fam fams[MAX_FAMILIES];
	size_t n_fams;
	struct sample samples[MAX_SAMPLES];
	size_t n_samples;
};

static struct fam *fam_find(struct expo *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->n_fams; i++) {
		if (!strcmp(x->fams[i].name, name))
			return &x->fams[i];
	}
	return NULL;
}

static struct fam *fam_get(struct expo *x, const char *name)
{
	struct fam *f = fam_find(x, name);

	if (f)
		return f;
	cr_assert_lt(x->n_fams, MAX_FAMILIES);
	f = &x->fams[x->n_fams++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

/* The family a sample belongs to: its name, or a histogram's with a suffix. */
static const struct fam *sample_family(struct expo *x, const char *name)
{
	static const char *const sfx[] = { "_bucket", "_sum", "_count" };
	const struct fam *f = fam_find(x, name);
	char base[64];
	size_t i, n = strlen(name), k;

	if (f)
		return f;
	for (i = 0; i < 3; i++) {
		k = strlen(sfx[i]);
		if (n <= k || strcmp(name + n - k, sfx[i]))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(n - k), name);
		f = fam_find(x, base);
		if (f && !strcmp(f->type, "histogram"))
			return f;
	}
	return NULL;
}

/* One label's value out of the braces, unescaped; "" if absent. */
static void label_value(const char *labels, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), o = 0;
	const char *p = labels;

	out[0] = 0;
	while (*p) {
		bool match = !strncmp(p, key, klen) && p[klen] == '=' && p[klen + 1] == '"';
		const char *v;

		cr_assert(strchr(p, '='), "label without '=': %s", labels);
		v = strchr(p, '=') + 1;
		cr_assert_eq(*v, '"', "label value not quoted: %s", labels);
		for (v++; *v && *v != '"'; v++) {
			char c = *v;

			if (c == '\\') {
				v++;
				cr_assert(*v == '\\' || *v == '"' || *v == 'n', "bad escape: %s", labels);
				c = *v == 'n' ? '\n' : *v;
			}
			if (match && o + 1 < len)
				out[o++] = c;
		}
		cr_assert_eq(*v, '"', "label value not closed: %s", labels);
		if (match) {
			out[o] = 0;
			return;
		}
		p = v + 1;
		if (*p == ',')
			p++;
	}
}

static void parse(struct expo *x, const char *text)
{
	const char *line = text, *nl;

	memset(x, 0, sizeof(*x));
	cr_assert(text[0] && text[strlen(text) - 1] == '\n', "no final newline");
	for (; *line; line = nl + 1) {
		char buf[512], name[64], type[16];
		struct sample *s;
		char *sp, *br;

		nl = strchr(line, '\n');
		cr_assert_not_null(nl);
		cr_assert_lt((size_t)(nl - line), sizeof(buf));
		snprintf(buf, sizeof(buf), "%.*s", (int)(nl - line), line);
		if (!strncmp(buf, "# HELP ", 7)) {
			cr_assert_eq(sscanf(buf, "# HELP %63s", name), 1);
			cr_assert(!fam_find(x, name) || !fam_find(x, name)->help, "HELP twice: %s", buf);
			fam_get(x, name)->help = true;
			continue;
		}
		if (!strncmp(buf, "# TYPE ", 7)) {
			cr_assert_eq(sscanf(buf, "# TYPE %63s %15s", name, type), 2, "%s", buf);
			cr_assert(!strcmp(type, "counter") || !strcmp(type, "gauge") ||
				  !strcmp(type, "histogram"), "type %s", type);
			cr_assert_not_null(fam_find(x, name), "TYPE before HELP: %s", buf);
			snprintf(fam_get(x, name)->type, sizeof(type), "%s", type);
			continue;
		}
		cr_assert_neq(buf[0], '#', "unknown comment: %s", buf);
		cr_assert_lt(x->n_samples, MAX_SAMPLES);
		s = &x->samples[x->n_samples++];
		sp = strrchr(buf, ' ');
		cr_assert_not_null(sp, "no value: %s", buf);
		*sp = 0;
		s->value = strtod(sp + 1, NULL);
		br = strchr(buf, '{');
		if (br) {
			cr_assert_eq(buf[strlen(buf) - 1], '}', "%s", buf);
			buf[strlen(buf) - 1] = 0;
			*br = 0;
			snprintf(s->labels, sizeof(s->labels), "%s", br + 1);
			label_value(s->labels, "le", s->le, sizeof(s->le));
			label_value(s->labels, "mode", s->mode, sizeof(s->mode));
			label_value(s->labels, "lock", s->lock, sizeof(s->lock));
		}
		snprintf(s->name, sizeof(s->name), "%s", buf);
		cr_assert_not_null(sample_family(x, s->name), "sample of no declared family: %s",
				   s->name);
		cr_assert(fam_find(x, s->name) ? fam_find(x, s->name)->type[0] : true);
	}
}

static double value_of(const struct expo *x, const char *name, const char *labels)
{
	size_t i;

	for (i = 0; i < x->n_samples; i++) {
		if (!strcmp(x->samples[i].name, name) && !strcmp(x->samples[i].labels, labels))
			return x->samples[i].value;
	}
	cr_assert_fail("no sample %s{%s}", name, labels);
	return -1;
}

/* Each mode's buckets: le rising, counts cumulative, +Inf last and == _count. */
/* lock: the series' lock label, "" for none (lockstall_wait_seconds: mmap_lock's). */
static void check_histogram_of(const struct expo *x, const char *name, const char *lock,
			       const char *mode)
{
	char bucket[80], count[80], labels[64];
	double prev_le = -1, prev = 0;
	bool inf = false;
	size_t i, n = 0;

	snprintf(bucket, sizeof(bucket), "%s_bucket", name);
	snprintf(count, sizeof(count), "%s_count", name);
	for (i = 0; i < x->n_samples; i++) {
		const struct sample *s = &x->samples[i];
		double le;

		if (strcmp(s->name, bucket) || strcmp(s->mode, mode) || strcmp(s->lock, lock))
			continue;
		cr_assert(!inf, "a bucket after +Inf");
		n++;
		cr_assert_geq(s->value, prev, "bucket le=%s of mode %s below the one before", s->le,
			      mode);
		prev = s->value;
		if (!strcmp(s->le, "+Inf")) {
			inf = true;
			continue;
		}
		le = strtod(s->le, NULL);
		cr_assert_gt(le, prev_le, "le %s not rising", s->le);
		prev_le = le;
	}
	cr_assert(inf, "no +Inf bucket for mode %s", mode);
	cr_assert_eq(n, LS_HIST_SLOTS + 1);
	if (lock[0])
		snprintf(labels, sizeof(labels), "lock=\"%s\",mode=\"%s\"", lock, mode);
	else
		snprintf(labels, sizeof(labels), "mode=\"%s\"", mode);
	cr_assert_eq(prev, value_of(x, count, labels), "+Inf bucket is not _count");
}

static void check_histogram(const struct expo *x, const char *name, const char *mode)
{
	check_histogram_of(x, name, "", mode);
}

static struct sink *sink;

static void setup(void)
{
	sink = sink_prometheus__new(NULL);
	cr_assert_not_null(sink);
}

static void teardown(void)
{
	sink__free(sink);
}

TestSuite(sink_prometheus, .init = setup, .fini = teardown);

static const char *render(struct fx_out *o)
{
	fx_out_open(o);
	cr_assert_eq(sink_prometheus__render(sink, o->f), 0);
	return fx_out_close(o);
}

static void wait_hist(struct ls_hist_entry *e, __u32 tgid, __u8 kind, __u8 write,
		      unsigned int slot, __u64 n)
{
	memset(e, 0, sizeof(*e));
	e->key.tgid = tgid;
	e->key.kind = kind;
	e->key.write = write;
	e->hist.count = n;
	e->hist.sum_ns = n * (1000ULL << slot);
	e->hist.slots[slot] = n;
}

/* Nothing seen yet: every family there, all zero, and well formed. */
Test(sink_prometheus, empty_is_well_formed)
{
	struct fx_out o;
	struct expo x;

	parse(&x, render(&o));
	cr_assert_eq(value_of(&x, "lockstall_stalls_total", "verdict=\"priority_inversion\""), 0);
	cr_assert_str_eq(fam_find(&x, "lockstall_stalls_total")->type, "counter");
	cr_assert_str_eq(fam_find(&x, "lockstall_wait_seconds")->type, "histogram");
	cr_assert_str_eq(fam_find(&x, "lockstall_resident_memory_bytes")->type, "gauge");
	cr_assert_str_eq(fam_find(&x, "lockstall_cpu_seconds_total")->type, "counter");
	cr_assert_null(fam_find(&x, "lockstall_slo_violations_total"), "no rules, no SLO counters");
	check_histogram(&x, "lockstall_wait_seconds", "read");
	check_histogram(&x, "lockstall_wait_seconds", "write");
	fx_out_free(&o);
}

/*
 * Stalls are counted by verdict; intervals' deltas add up; the summary's
 * cumulative histograms replace the sums; HOLD histograms and other
 * processes' (with a pid filter) stay out.
 */
Test(sink_prometheus, stalls_and_histograms)
{
	struct ls_hist_entry v[4];
	struct ls_hist_set h = { .v = v, .n = 4 };
	struct ls_summary sum = { 0 };
	struct ls_holder hd;
	struct ls_stall st;
	struct fx_out o;
	struct expo x;

	fx_holder_reader(&hd);
	fx_stall(&st, &hd, 1);
	cr_assert_eq(sink__stall(sink, &st), 0);
	cr_assert_eq(sink__stall(sink, &st), 0);
	st.verdict = LS_VERDICT_CONTENTION;
	st.cause = LS_CAUSE_THROTTLED;
	cr_assert_eq(sink__stall(sink, &st), 0);
	st.cause = LS_CAUSE_RECLAIM;
	st.lock.kind = LS_LOCK_FUTEX;
	cr_assert_eq(sink__stall(sink, &st), 0);
	st.cause = LS_CAUSE_IO;
	cr_assert_eq(sink__stall(sink, &st), 0);
	st.cause = LS_CAUSE_RUNNABLE;
	cr_assert_eq(sink__stall(sink, &st), 0);
	/* a pending report is no stall yet: counted by none of the series */
	st.pending = true;
	cr_assert_eq(sink__stall(sink, &st), 0);
	st.pending = false;

	wait_hist(&v[0], 10, LS_HIST_WAIT, 0, 3, 5);	/* 5 reads in (4us, 8us] */
	wait_hist(&v[1], 11, LS_HIST_WAIT, 0, 10, 2);	/* 2 reads of ~1ms */
	wait_hist(&v[2], 10, LS_HIST_WAIT, 1, 14, 1);	/* 1 write of ~16ms */
	wait_hist(&v[3], 10, LS_HIST_HOLD, LS_HIST_ANY_MODE, 20, 7);
	cr_assert_eq(sink__interval(sink, &h), 0);
	cr_assert_eq(sink__interval(sink, &h), 0);	/* as much again */

	parse(&x, render(&o));
	cr_assert_eq(value_of(&x, "lockstall_stalls_total", "verdict=\"priority_inversion\""), 2);
	cr_assert_eq(value_of(&x, "lockstall_stalls_total", "verdict=\"contention\""), 4);
	cr_assert_eq(value_of(&x, "lockstall_stalls_total", "verdict=\"unknown\""), 0);
	cr_assert_eq(value_of(&x, "lockstall_stall_causes_total", "cause=\"none\""), 2);
	cr_assert_eq(value_of(&x, "lockstall_stall_causes_total", "cause=\"throttled\""), 1);
	cr_assert_eq(value_of(&x, "lockstall_stall_causes_total", "cause=\"reclaim\""), 1);
	cr_assert_eq(value_of(&x, "lockstall_stall_causes_total", "cause=\"io\""), 1);
	/* every cause has its series from the start: fixed cardinality */
	cr_assert_eq(value_of(&x, "lockstall_stall_causes_total", "cause=\"rt_throttled\""), 0);
	cr_assert_eq(value_of(&x, "lockstall_stall_causes_total", "cause=\"runnable\""), 1);
	cr_assert_eq(value_of(&x, "lockstall_stall_causes_total", "cause=\"steal\""), 0);
	cr_assert_eq(value_of(&x, "lockstall_lock_stalls_total", "lock=\"mmap_lock\""), 3);
	cr_assert_eq(value_of(&x, "lockstall_lock_stalls_total", "lock=\"futex\""), 3);
	cr_assert_eq(value_of(&x, "lockstall_lock_stalls_total", "lock=\"rwsem\""), 0);
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_bucket", "mode=\"read\",le=\"4e-06\""), 0);
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_bucket", "mode=\"read\",le=\"8e-06\""), 10);
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_bucket", "mode=\"read\",le=\"0.001024\""),
		     14);
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_count", "mode=\"read\""), 14);
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_count", "mode=\"write\""), 2);
	check_histogram(&x, "lockstall_wait_seconds", "read");
	check_histogram(&x, "lockstall_wait_seconds", "write");
	fx_out_free(&o);

	/* the summary: cumulative, with the SLO counters */
	wait_hist(&v[0], 10, LS_HIST_WAIT, 0, 3, 18);
	wait_hist(&v[2], 10, LS_HIST_WAIT, 1, 14, 3);
	h.n = 3;
	sum.hists = &h;
	sum.events = 1000;
	sum.lost_events = 3;
	sum.slo = true;
	sum.slo_violations = 4;
	sum.hook_runs = 2;
	cr_assert_eq(sink__summary(sink, &sum), 0);
	parse(&x, render(&o));
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_count", "mode=\"read\""), 20,
		     "the summary's totals replace the sums");
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_bucket", "mode=\"read\",le=\"8e-06\""), 18);
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_count", "mode=\"write\""), 3);
	cr_assert_eq(value_of(&x, "lockstall_events_total", ""), 1000);
	cr_assert_eq(value_of(&x, "lockstall_lost_events_total", ""), 3);
	cr_assert_eq(value_of(&x, "lockstall_slo_violations_total", ""), 4);
	cr_assert_eq(value_of(&x, "lockstall_hook_runs_total", ""), 2);
	cr_assert_eq(value_of(&x, "lockstall_stalls_total", "verdict=\"priority_inversion\""), 2);
	check_histogram(&x, "lockstall_wait_seconds", "read");
	check_histogram(&x, "lockstall_wait_seconds", "write");
	fx_out_free(&o);
}

/*
 * A host with short-lived PIDs: thousands of processes, each named by
 * itself, some with hostile names, some renamed in their stalls, make
 * exactly the series an idle host has, with their totals summed, and no
 * name of theirs reaches the output.
 */
Test(sink_prometheus, series_do_not_grow_with_processes)
{
	enum { N = 4000 };
	struct ls_hist_entry *v = calloc(N, sizeof(*v));
	struct ls_hist_set h = { .v = v, .n = N };
	struct ls_summary sum = { .hists = &h };
	struct ls_rename r;
	struct ls_holder hd;
	struct ls_stall st;
	struct fx_out o;
	struct expo x;
	size_t idle, i;

	cr_assert_not_null(v);
	parse(&x, render(&o));
	idle = x.n_samples;
	fx_out_free(&o);
	for (i = 0; i < N; i++) {
		wait_hist(&v[i], 1000 + (__u32)i, LS_HIST_WAIT, i & 1, 3, 1);
		snprintf(v[i].hist.comm, LS_COMM_LEN, i % 7 ? "sh-%zu" : "\"}\n%zu", i);
	}
	fx_holder_reader(&hd);
	fx_stall(&st, &hd, 1);
	fx_rename(&r, 2001, "reader", "bash", true);
	st.renames = &r;
	st.n_renames = 1;
	cr_assert_eq(sink__stall(sink, &st), 0);
	cr_assert_eq(sink__interval(sink, &h), 0);
	cr_assert_eq(sink__summary(sink, &sum), 0);
	parse(&x, render(&o));
	cr_assert_eq(x.n_samples, idle, "%zu series for %d processes, %zu for none",
		     x.n_samples, N, idle);
	cr_assert_null(strstr(o.buf, "sh-"));
	cr_assert_null(strstr(o.buf, "reader"));
	cr_assert_null(strstr(o.buf, "bash"));
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_count", "mode=\"read\""), N / 2);
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_count", "mode=\"write\""), N / 2);
	check_histogram(&x, "lockstall_wait_seconds", "read");
	fx_out_free(&o);
	free(v);
}

/*
 * Futex and kernel-lock waits: one series per lock kind and mode, all
 * there from the start, summed over processes; mmap_lock's family keeps
 * only mmap_lock's waits, and the others never reach it.
 */
Test(sink_prometheus, lock_waits_by_kind)
{
	struct ls_hist_entry v[5];
	struct ls_hist_set h = { .v = v, .n = 5 };
	struct fx_out o;
	struct expo x;
	size_t idle;
	int k;

	parse(&x, render(&o));
	idle = x.n_samples;
	cr_assert_str_eq(fam_find(&x, "lockstall_lock_wait_seconds")->type, "histogram");
	for (k = LS_LOCK_FUTEX; k < LS_LOCK_KIND_N; k++) {
		check_histogram_of(&x, "lockstall_lock_wait_seconds", ls_lock_kind_name(k), "read");
		check_histogram_of(&x, "lockstall_lock_wait_seconds", ls_lock_kind_name(k), "write");
	}
	fx_out_free(&o);

	wait_hist(&v[0], 10, LS_HIST_WAIT_FUTEX, 1, 14, 3);	/* 3 futex waits of ~16ms */
	wait_hist(&v[1], 11, LS_HIST_WAIT_FUTEX, 1, 10, 2);	/* another process's 2 of ~1ms */
	wait_hist(&v[2], 10, LS_HIST_WAIT_RWSEM, 0, 5, 4);	/* 4 rwsem reads */
	wait_hist(&v[3], 12, LS_HIST_WAIT_PI_FUTEX, 1, 12, 1);
	wait_hist(&v[4], 10, LS_HIST_WAIT, 1, 3, 6);		/* mmap_lock's, apart */
	cr_assert_eq(sink__interval(sink, &h), 0);
	parse(&x, render(&o));
	cr_assert_eq(x.n_samples, idle, "series appeared with the data");
	cr_assert_eq(value_of(&x, "lockstall_lock_wait_seconds_count",
			      "lock=\"futex\",mode=\"write\""), 5);
	cr_assert_eq(value_of(&x, "lockstall_lock_wait_seconds_bucket",
			      "lock=\"futex\",mode=\"write\",le=\"0.001024\""), 2);
	cr_assert_eq(value_of(&x, "lockstall_lock_wait_seconds_count",
			      "lock=\"rwsem\",mode=\"read\""), 4);
	cr_assert_eq(value_of(&x, "lockstall_lock_wait_seconds_count",
			      "lock=\"pi_futex\",mode=\"write\""), 1);
	cr_assert_eq(value_of(&x, "lockstall_lock_wait_seconds_count",
			      "lock=\"mutex\",mode=\"write\""), 0);
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_count", "mode=\"write\""), 6);
	cr_assert_null(strstr(o.buf, "lock=\"mmap_lock\",mode"),
		       "mmap_lock's waits are in lockstall_wait_seconds only");
	check_histogram_of(&x, "lockstall_lock_wait_seconds", "futex", "write");
	check_histogram_of(&x, "lockstall_lock_wait_seconds", "rwsem", "read");
	fx_out_free(&o);
}

Test(sink_prometheus, pid_filter)
{
	struct sink_opts so = { .filter_pid = 11 };
	struct ls_hist_entry v[2];
	struct ls_hist_set h = { .v = v, .n = 2 };
	struct sink *p = sink_prometheus__new(&so);
	struct fx_out o;
	struct expo x;

	cr_assert_not_null(p);
	wait_hist(&v[0], 10, LS_HIST_WAIT, 0, 3, 5);
	wait_hist(&v[1], 11, LS_HIST_WAIT, 0, 10, 2);
	cr_assert_eq(sink__interval(p, &h), 0);
	fx_out_open(&o);
	cr_assert_eq(sink_prometheus__render(p, o.f), 0);
	parse(&x, fx_out_close(&o));
	cr_assert_eq(value_of(&x, "lockstall_wait_seconds_count", "mode=\"read\""), 2);
	fx_out_free(&o);
	sink__free(p);
}

Test(sink_prometheus, label_values_escaped)
{
	struct fx_out o;
	char back[64], labels[128];

	fx_out_open(&o);
	fputs("k=\"", o.f);
	prom__write_label_value(o.f, "a\\b\"c\nd");
	fputs("\"", o.f);
	snprintf(labels, sizeof(labels), "%s", fx_out_close(&o));
	cr_assert_str_eq(labels, "k=\"a\\\\b\\\"c\\nd\"");
	label_value(labels, "k", back, sizeof(back));
	cr_assert_str_eq(back, "a\\b\"c\nd");
	fx_out_free(&o);
}

static char dir[64];

static size_t dir_entries(const char *d, char *only, size_t len)
{
	struct dirent *de;
	DIR *dd = opendir(d);
	size_t n = 0;

	cr_assert_not_null(dd);
	while ((de = readdir(dd))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(only, len, "%s", de->d_name);
		n++;
	}
	closedir(dd);
	return n;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	FILE *m = open_memstream(&buf, &len);
	int c;

	cr_assert_not_null(f);
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* The file appears whole, again and again, and no temporary is left. */
Test(sink_prometheus, atomic_write)
{
	char path[128], name[256];
	struct ls_holder hd;
	struct ls_stall st;
	struct expo x;
	char *text;
	int i;

	snprintf(dir, sizeof(dir), "/tmp/lockstall-prom-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lockstall.prom", dir);
	fx_holder_reader(&hd);
	fx_stall(&st, &hd, 1);
	for (i = 1; i <= 3; i++) {
		cr_assert_eq(sink__stall(sink, &st), 0);
		cr_assert_eq(sink_prometheus__write_file(sink, path), 0);
		cr_assert_eq(dir_entries(dir, name, sizeof(name)), 1, "a temporary file is left");
		cr_assert_str_eq(name, "lockstall.prom");
		text = slurp(path);
		parse(&x, text);
		cr_assert_eq(value_of(&x, "lockstall_stalls_total",
				      "verdict=\"priority_inversion\""), i);
		cr_assert_not_null(strstr(text, "\nlockstall_resident_memory_bytes "),
				   "the file is cut short");
		free(text);
	}
	unlink(path);
	rmdir(dir);
}

Test(sink_prometheus, bad_directory)
{
	cr_assert_eq(sink_prometheus__write_file(sink, "/nonexistent-lockstall-dir/m.prom"),
		     -ENOENT);
}
