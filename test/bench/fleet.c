// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fleet: the fleet report's cost.  Writes a corpus of recordings, one per
 * host, each SECONDS of the synthetic stream (test/bench/gen.c, its own
 * seed, with stalls) through the real trace writer, under its own host
 * name, boot id and wall-clock anchor; then runs `lockstall report DIR
 * --format json >/dev/null` once and prints what it took: wall time,
 * files/s, MB/s, CPU time, peak RSS (the child's, from wait4()).
 *
 *	build/bench/fleet [-n files] [-s seconds] [-g mean_gap_ns] [-d dir] [-k] [-j]
 *
 * LOCKSTALL_BIN: the lockstall to run (default build/lockstall).  The corpus
 * is written to -d DIR (default: a new directory under /tmp), removed at
 * the end unless -k.  -j prints one JSON object instead of text.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "record/trace_file.h"
#include "gen.h"

#define FLEET_CHUNK	8192	/* records generated, then written, at a time */
#define FLEET_EPOCH	1796280000000000000ULL	/* 2026-12-03 06:40:00 UTC */

struct corpus {
	unsigned int files;
	unsigned int seconds;
	unsigned int gap_ns;
	char dir[256];
	unsigned long long bytes, records, long_waits;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A wait histogram per host, so that the merge has buckets to add up. */
static int write_hist(struct trace_writer *w, __u64 ts, unsigned int host)
{
	struct ls_rec_hist h;

	memset(&h, 0, sizeof(h));
	h.hdr.type = LS_REC_HIST;
	h.hdr.size = sizeof(h);
	h.hdr.ts = ts;
	h.key.tgid = 4242;
	h.key.kind = LS_HIST_WAIT;
	h.key.write = 1;
	snprintf(h.hist.comm, sizeof(h.hist.comm), "db-writer");
	h.hist.slots[14] = 100 + host % 7;
	h.hist.slots[15] = 10 + host % 3;
	h.hist.count = h.hist.slots[14] + h.hist.slots[15];
	h.hist.sum_ns = h.hist.slots[14] * 12000000ULL + h.hist.slots[15] * 24000000ULL;
	return trace_writer__record(w, &h, sizeof(h));
}

static int write_meta(struct trace_writer *w, unsigned int host, __u64 t0)
{
	__u64 real = FLEET_EPOCH + (__u64)(host % 60) * 1000000000ULL;
	char name[64];
	int err = 0;

	snprintf(name, sizeof(name), "host-%04u", host);
	err = err ?: trace_writer__meta_str(w, "lockstall.version", "bench");
	err = err ?: trace_writer__meta_str(w, "host", name);
	snprintf(name, sizeof(name), "00000000-0000-4000-8000-%012u", host);
	err = err ?: trace_writer__meta_str(w, "boot_id", name);
	err = err ?: trace_writer__meta_str(w, "kernel.release", "6.18.0-bench");
	err = err ?: trace_writer__meta_u64(w, "cpus", 8);
	err = err ?: trace_writer__meta_u64(w, "threshold_ns", 10000000ULL);
	err = err ?: trace_writer__meta_u64(w, "start.realtime_ns", real);
	err = err ?: trace_writer__meta_s64(w, "clock.realtime_minus_monotonic_ns",
					    (__s64)(real - t0));
	return err ?: trace_writer__meta_flush(w);
}

/* Records of g until its clock passes end_ns. */
static int write_records(struct trace_writer *w, struct gen *g, __u64 end_ns, unsigned char *buf,
			 size_t *lens, struct corpus *c)
{
	const struct ls_hdr *h;
	size_t n, i, off;
	int err = 0;

	do {
		n = gen__fill(g, buf, FLEET_CHUNK * GEN_MAX_REC, lens, FLEET_CHUNK);
		for (i = 0, off = 0; !err && i < n; off += lens[i++])
			err = trace_writer__record(w, buf + off, lens[i]);
		c->records += n;
		h = (const struct ls_hdr *)(buf + off - lens[n - 1]);
	} while (!err && n && h->ts < end_ns);
	return err;
}

static int write_one(struct corpus *c, unsigned int host, unsigned char *buf, size_t *lens)
{
	struct gen_opts o;
	struct trace_writer_stats ws;
	struct trace_writer *w;
	struct gen_stats gs;
	unsigned char mark[GEN_MAX_REC];
	struct gen *g;
	char path[512];
	__u64 t0;
	int err;

	gen_opts__defaults(&o);
	o.seed = host + 1;
	o.tasks = 400;
	o.mms = 40;
	o.active = 4;
	o.mean_gap_ns = c->gap_ns;
	g = gen__new(&o);
	if (!g)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/host-%04u.lst", c->dir, host);
	err = trace_writer__create(&w, path, true, stderr);
	if (err) {
		gen__free(g);
		return err;
	}
	gen__mark(g, mark, LS_MARK_BEGIN);
	t0 = ((const struct ls_hdr *)mark)->ts;
	err = write_meta(w, host, t0) ?: trace_writer__record(w, mark, ((struct ls_hdr *)mark)->size);
	err = err ?: write_records(w, g, t0 + (__u64)c->seconds * 1000000000ULL, buf, lens, c);
	gen__mark(g, mark, LS_MARK_END);
	err = err ?: write_hist(w, ((struct ls_hdr *)mark)->ts, host);
	err = err ?: trace_writer__record(w, mark, ((struct ls_hdr *)mark)->size);
	trace_writer__stats(w, &ws);
	gen__stats(g, &gs);
	c->long_waits += gs.long_waits;
	err = trace_writer__close(w) ?: err;
	c->bytes += ws.bytes;
	gen__free(g);
	return err;
}

/* lockstall report DIR --format json >/dev/null: its exit status, rusage and wall time. */
static int run_report(const struct corpus *c, struct rusage *ru, double *wall)
{
	const char *bin = getenv("LOCKSTALL_BIN") ?: "build/lockstall";
	double t0 = now_s();
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(bin, bin, "report", c->dir, "--format", "json", (char *)NULL);
		perror(bin);
		_exit(127);
	}
	if (wait4(pid, &status, 0, ru) < 0)
		return -errno;
	*wall = now_s() - t0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void remove_corpus(const struct corpus *c)
{
	char path[512];
	unsigned int i;

	for (i = 0; i < c->files; i++) {
		snprintf(path, sizeof(path), "%s/host-%04u.lst", c->dir, i);
		unlink(path);
	}
	rmdir(c->dir);
}

static void print(const struct corpus *c, const struct rusage *ru, double wall, double gen_s,
		  int rc, bool json)
{
	double cpu = ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 + ru->ru_stime.tv_sec +
		     ru->ru_stime.tv_usec / 1e6;
	double mb = c->bytes / 1e6;

	if (json) {
		printf("{\"files\":%u,\"seconds_each\":%u,\"bytes\":%llu,\"records\":%llu,\"long_waits\":%llu,"
		       "\"wall_s\":%.3f,\"cpu_s\":%.3f,\"files_per_s\":%.1f,\"mb_per_s\":%.1f,"
		       "\"peak_rss_kb\":%ld,\"exit\":%d,\"generate_s\":%.1f}\n",
		       c->files, c->seconds, c->bytes, c->records, c->long_waits, wall, cpu,
		       c->files / wall, mb / wall, ru->ru_maxrss, rc, gen_s);
		return;
	}
	printf("fleet: %u recordings of %u s each, %.1f MB, %llu records, %llu waits over the threshold\n",
	       c->files, c->seconds, mb, c->records, c->long_waits);
	printf("report: %.2f s wall, %.2f s CPU, %.1f files/s, %.1f MB/s, peak RSS %.1f MB, exit %d\n",
	       wall, cpu, c->files / wall, mb / wall, ru->ru_maxrss / 1024.0, rc);
}

int main(int argc, char **argv)
{
	struct corpus c = { .files = 1000, .seconds = 32, .gap_ns = 1000000 };
	unsigned char *buf = malloc(FLEET_CHUNK * GEN_MAX_REC);
	size_t *lens = malloc(FLEET_CHUNK * sizeof(*lens));
	bool json = false, keep = false;
	struct rusage ru = { 0 };
	double wall = 0, t0;
	unsigned int i;
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "n:s:g:d:kjh")) != -1) {
		switch (opt) {
		case 'n': c.files = strtoul(optarg, NULL, 0); break;
		case 's': c.seconds = strtoul(optarg, NULL, 0); break;
		case 'g': c.gap_ns = strtoul(optarg, NULL, 0); break;
		case 'd': snprintf(c.dir, sizeof(c.dir), "%s", optarg); break;
		case 'k': keep = true; break;
		case 'j': json = true; break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: fleet [-n files] [-s seconds] [-g mean_gap_ns] [-d dir] [-k] [-j]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!c.dir[0]) {
		snprintf(c.dir, sizeof(c.dir), "/tmp/lockstall-fleet-XXXXXX");
		if (!mkdtemp(c.dir))
			return perror("mkdtemp"), 1;
	} else if (mkdir(c.dir, 0700) && errno != EEXIST) {
		return perror(c.dir), 1;
	}
	if (!buf || !lens)
		return 1;
	t0 = now_s();
	for (i = 0; !rc && i < c.files; i++)
		rc = write_one(&c, i, buf, lens);
	if (rc) {
		fprintf(stderr, "fleet: cannot write the corpus: %s\n", strerror(-rc));
		return 1;
	}
	t0 = now_s() - t0;
	rc = run_report(&c, &ru, &wall);
	print(&c, &ru, wall, t0, rc, json);
	if (!keep)
		remove_corpus(&c);
	free(buf);
	free(lens);
	return rc < 0 ? 1 : 0;
}
