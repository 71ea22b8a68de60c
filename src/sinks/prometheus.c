// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See prometheus.h.  The wait histograms are summed over processes into one
 * per lock kind and mode (mmap_lock's in lockstall_wait_seconds, the
 * others in lockstall_lock_wait_seconds); slot i of the log2 histograms
 * ends at 2^i us, so bucket i is le="2^i us in seconds" and holds slots
 * 0..i.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "sinks/prometheus.h"
#include "sinks/sink_common.h"
#include "util.h"

#define PROM_MODES 2	/* key.write: 0 read, 1 write */

struct prom_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 slots[LS_HIST_SLOTS];
};

struct prom_sink {
	struct sink base;
	__u64 stalls[LS_VERDICT_N];
	__u64 causes[LS_CAUSE_N];	/* by ls_stall.cause */
	__u64 locks[LS_LOCK_KIND_N];	/* by ls_stall.lock.kind */
	struct prom_hist wait[LS_LOCK_KIND_N][PROM_MODES];	/* by lock kind, mode */
	struct ls_summary counters;	/* events, lost, slo and hooks only */
};

static const char *const mode_names[PROM_MODES] = { "read", "write" };

static struct prom_sink *to_prom(struct sink *s)
{
	return (struct prom_sink *)s;
}

/* A wait histogram of a lock kind, of the process asked for: its sum's; else NULL. */
static struct prom_hist *prom__sum_of(struct prom_hist (*wait)[PROM_MODES],
				      const struct prom_sink *p, const struct ls_hist_entry *e)
{
	int lock = ls_hist_lock_kind(e->key.kind);

	if (lock < 0 || lock >= LS_LOCK_KIND_N || e->key.write >= PROM_MODES)
		return NULL;
	if (p->base.opts.filter_pid && e->key.tgid != p->base.opts.filter_pid)
		return NULL;
	return &wait[lock][e->key.write];
}

static void prom_hist__add(struct prom_hist *h, const struct ls_hist *x)
{
	size_t i;

	h->count += x->count;
	h->sum_ns += x->sum_ns;
	for (i = 0; i < LS_HIST_SLOTS; i++)
		h->slots[i] += x->slots[i];
}

static int prom__stall(struct sink *s, const struct ls_stall *st)
{
	struct prom_sink *p = to_prom(s);

	/* Stalls are counted when they end, once: not their pending reports. */
	if (st->pending)
		return 0;
	if (st->verdict < LS_VERDICT_N)
		p->stalls[st->verdict]++;
	if (st->cause < LS_CAUSE_N)
		p->causes[st->cause]++;
	if (st->lock.kind < LS_LOCK_KIND_N)
		p->locks[st->lock.kind]++;
	return 0;
}

/* An interval holds what is new since the previous one: add it up. */
static int prom__interval(struct sink *s, const struct ls_hist_set *h)
{
	struct prom_sink *p = to_prom(s);
	struct prom_hist *sum;
	size_t i;

	for (i = 0; i < h->n; i++) {
		sum = prom__sum_of(p->wait, p, &h->v[i]);
		if (sum)
			prom_hist__add(sum, &h->v[i].hist);
	}
	return 0;
}

/* The run's totals replace the sums, unless a map reset made them smaller. */
static int prom__summary(struct sink *s, const struct ls_summary *sum)
{
	struct prom_sink *p = to_prom(s);
	struct prom_hist cum[LS_LOCK_KIND_N][PROM_MODES], *acc;
	size_t i, m;

	sink_prometheus__set_counters(s, sum);
	for (i = 0; i < LS_VERDICT_N; i++) {
		if (sum->stalls_by_verdict[i] > p->stalls[i])
			p->stalls[i] = sum->stalls_by_verdict[i];
	}
	for (i = 0; i < LS_CAUSE_N; i++) {
		if (sum->stalls_by_cause[i] > p->causes[i])
			p->causes[i] = sum->stalls_by_cause[i];
	}
	for (i = 0; i < LS_LOCK_KIND_N; i++) {
		if (sum->stalls_by_lock[i] > p->locks[i])
			p->locks[i] = sum->stalls_by_lock[i];
	}
	if (!sum->hists)
		return 0;
	memset(cum, 0, sizeof(cum));
	for (i = 0; i < sum->hists->n; i++) {
		acc = prom__sum_of(cum, p, &sum->hists->v[i]);
		if (acc)
			prom_hist__add(acc, &sum->hists->v[i].hist);
	}
	for (i = 0; i < LS_LOCK_KIND_N; i++) {
		for (m = 0; m < PROM_MODES; m++) {
			if (cum[i][m].count >= p->wait[i][m].count)
				p->wait[i][m] = cum[i][m];
		}
	}
	return 0;
}

static void prom__free(struct sink *s)
{
	free(s);
}

static const struct sink_ops prom_ops = {
	.name = "prometheus",
	.stall = prom__stall,
	.interval = prom__interval,
	.summary = prom__summary,
	.free = prom__free,
};

struct sink *sink_prometheus__new(const struct sink_opts *opts)
{
	struct prom_sink *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	sink__init(&p->base, &prom_ops, NULL, opts);
	return &p->base;
}

void sink_prometheus__set_counters(struct sink *s, const struct ls_summary *sum)
{
	struct ls_summary *c = &to_prom(s)->counters;

	c->events = sum->events;
	c->lost_events = sum->lost_events;
	c->stalls_unnamed = sum->stalls_unnamed;
	c->slo = sum->slo;
	c->slo_violations = sum->slo_violations;
	c->slo_suppressed = sum->slo_suppressed;
	c->hook_runs = sum->hook_runs;
	c->hook_failures = sum->hook_failures;
	c->hook_timeouts = sum->hook_timeouts;
	c->hook_skipped = sum->hook_skipped;
}

void prom__write_label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\')
			fputs("\\\\", f);
		else if (*v == '"')
			fputs("\\\"", f);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			putc(*v, f);
	}
}

static void prom__family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void prom__counter(FILE *f, const char *name, const char *help, __u64 v)
{
	prom__family(f, name, "counter", help);
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

/* The labels of one histogram series: mode, and lock unless it is mmap_lock's family. */
static void prom__hist_labels(FILE *f, const char *lock, const char *mode)
{
	if (lock)
		fprintf(f, "lock=\"%s\",", lock);
	fprintf(f, "mode=\"%s\"", mode);
}

static void prom__hist(FILE *f, const char *name, const char *lock, const char *mode,
		       const struct prom_hist *h)
{
	__u64 cum = 0, total;
	size_t i;

	for (i = 0; i < LS_HIST_SLOTS; i++) {
		cum += h->slots[i];
		fprintf(f, "%s_bucket{", name);
		prom__hist_labels(f, lock, mode);
		/* 2^i us, exactly: at most 2^31 us, 12 digits are plenty */
		fprintf(f, ",le=\"%.12g\"} %llu\n", (double)(1ULL << i) / 1e6,
			(unsigned long long)cum);
	}
	/* +Inf is the count, and never below the last bucket */
	total = h->count > cum ? h->count : cum;
	fprintf(f, "%s_bucket{", name);
	prom__hist_labels(f, lock, mode);
	fprintf(f, ",le=\"+Inf\"} %llu\n", (unsigned long long)total);
	fprintf(f, "%s_sum{", name);
	prom__hist_labels(f, lock, mode);
	fprintf(f, "} %llu.%09llu\n", (unsigned long long)(h->sum_ns / NSEC_PER_SEC),
		(unsigned long long)(h->sum_ns % NSEC_PER_SEC));
	fprintf(f, "%s_count{", name);
	prom__hist_labels(f, lock, mode);
	fprintf(f, "} %llu\n", (unsigned long long)total);
}

/* VmRSS of /proc/self/status in bytes; 0 when it cannot be read. */
static __u64 prom__rss(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return (__u64)kb * 1024;
}

/* One sample with one label: name{label="value"} n */
static void prom__sample(FILE *f, const char *name, const char *label, const char *value, __u64 n)
{
	fprintf(f, "%s{%s=\"", name, label);
	prom__write_label_value(f, value);
	fprintf(f, "\"} %llu\n", (unsigned long long)n);
}

int sink_prometheus__render(struct sink *s, FILE *f)
{
	const struct prom_sink *p = to_prom(s);
	const struct ls_summary *c = &p->counters;
	struct rusage ru;
	double cpu = 0;
	size_t i, m;

	prom__family(f, "lockstall_stalls_total", "counter",
		     "Stalls found, by verdict.");
	for (i = 0; i < LS_VERDICT_N; i++)
		prom__sample(f, "lockstall_stalls_total", "verdict",
			     ls_verdict_name((enum ls_verdict)i), p->stalls[i]);
	prom__family(f, "lockstall_stall_causes_total", "counter",
		     "Stalls by what the kernel said kept the culprit holder from running (none: nothing).");
	for (i = 0; i < LS_CAUSE_N; i++)
		prom__sample(f, "lockstall_stall_causes_total", "cause",
			     ls_cause_name((enum ls_cause)i), p->causes[i]);
	prom__family(f, "lockstall_lock_stalls_total", "counter",
		     "Stalls by the kind of lock waited for.");
	for (i = 0; i < LS_LOCK_KIND_N; i++)
		prom__sample(f, "lockstall_lock_stalls_total", "lock", ls_lock_kind_name((unsigned int)i),
			     p->locks[i]);
	prom__family(f, "lockstall_wait_seconds", "histogram",
		     "Time waited for mmap_lock, by lock mode, all processes.");
	for (m = 0; m < PROM_MODES; m++)
		prom__hist(f, "lockstall_wait_seconds", NULL, mode_names[m], &p->wait[LS_LOCK_MMAP][m]);
	prom__family(f, "lockstall_lock_wait_seconds", "histogram",
		     "Time waited for futexes and kernel locks (contended waits), by lock kind and mode, all processes.");
	for (i = LS_LOCK_FUTEX; i < LS_LOCK_KIND_N; i++) {
		for (m = 0; m < PROM_MODES; m++)
			prom__hist(f, "lockstall_lock_wait_seconds", ls_lock_kind_name((unsigned int)i),
				   mode_names[m], &p->wait[i][m]);
	}
	prom__counter(f, "lockstall_events_total", "Records analysed.", c->events);
	prom__counter(f, "lockstall_lost_events_total",
		      "Records lost (ring buffer full, or runs the kernel skipped); findings in those spans are unknown.",
		      c->lost_events);
	prom__counter(f, "lockstall_stalls_unnamed_total",
		      "Stalls reported without names (frames as addresses): the naming worker was busy.",
		      c->stalls_unnamed);
	if (c->slo) {
		prom__counter(f, "lockstall_slo_violations_total", "SLO rule violations fired.",
			      c->slo_violations);
		prom__counter(f, "lockstall_slo_suppressed_total",
			      "SLO rule violations held back by a rule's rate limit.",
			      c->slo_suppressed);
		prom__counter(f, "lockstall_hook_runs_total", "Violation hooks started.",
			      c->hook_runs);
		prom__counter(f, "lockstall_hook_failures_total",
			      "Violation hooks that could not start, failed or died.",
			      c->hook_failures);
		prom__counter(f, "lockstall_hook_timeouts_total",
			      "Violation hooks killed after --exec-timeout.", c->hook_timeouts);
		prom__counter(f, "lockstall_hook_skipped_total",
			      "Violation hooks not started: too many running.", c->hook_skipped);
	}
	if (!getrusage(RUSAGE_SELF, &ru))
		cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		      ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
	prom__family(f, "lockstall_cpu_seconds_total", "counter",
		     "User and system CPU time lockstall itself used.");
	fprintf(f, "lockstall_cpu_seconds_total %.6f\n", cpu);
	prom__family(f, "lockstall_resident_memory_bytes", "gauge",
		     "Resident memory of lockstall itself (VmRSS).");
	fprintf(f, "lockstall_resident_memory_bytes %llu\n", (unsigned long long)prom__rss());
	return sink__error(f);
}

int sink_prometheus__write_file(struct sink *s, const char *path)
{
	char *tmp = NULL;
	FILE *f = NULL;
	int fd, err;

	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		goto cleanup;
	}
	err = sink_prometheus__render(s, f);
	if (err)
		goto cleanup;
	if (fflush(f) || fsync(fileno(f))) {
		err = -errno;
		goto cleanup;
	}
	err = fclose(f) ? -errno : 0;
	f = NULL;
	if (err)
		goto cleanup;
	if (rename(tmp, path)) {
		err = -errno;
		goto cleanup;
	}
	goto out;
cleanup:
	if (f)
		fclose(f);
	unlink(tmp);
out:
	free(tmp);
	return err;
}
