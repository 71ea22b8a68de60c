// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * replay: the engine alone.  Feeds a large synthetic stream (test/bench/gen.c)
 * to engine__feed with a sink that only counts, and prints what one core
 * does: records per second of its CPU time (feeding only: generation is
 * timed out), peak RSS, and RSS at each quarter of the stream, which must
 * level off when memory is bounded by live tasks and not by the length of
 * the run.
 *
 *	build/bench/replay [-n records] [-t tasks] [-m mms] [-c cpus]
 *	                   [-a active] [-H holders] [-s stall_pct] [-k churn_ppm]
 *	                   [-g mean_gap_ns] [-S seed] [-j]
 *
 * -j prints one JSON object instead of text (for scripts/bench).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "engine/engine.h"
#include "engine/sink.h"
#include "gen.h"

#define REPLAY_CHUNK	65536	/* records generated, then fed, at a time */

struct count_sink {
	struct sink s;
	unsigned long long stalls;
	unsigned long long by_verdict[LS_VERDICT_N];
	struct ls_summary sum;
	bool have_sum;
};

static int count__stall(struct sink *s, const struct ls_stall *st)
{
	struct count_sink *c = (struct count_sink *)s;

	c->stalls++;
	if (st->verdict < LS_VERDICT_N)
		c->by_verdict[st->verdict]++;
	return 0;
}

static int count__summary(struct sink *s, const struct ls_summary *sum)
{
	struct count_sink *c = (struct count_sink *)s;

	c->sum = *sum;
	c->sum.hists = NULL;	/* the engine's: gone after engine__free */
	c->have_sum = true;
	return 0;
}

static void count__free(struct sink *s)
{
}

static const struct sink_ops count_ops = {
	.name = "count",
	.stall = count__stall,
	.summary = count__summary,
	.free = count__free,
};

/*
 * This thread's CPU time, not the wall clock: "records per second on one
 * core" must not count the time a busy host gave that core to others.
 */
static double replay_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Resident set now, in KiB (getrusage has only the peak). */
static long replay_rss_kb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss < 0 ? -1 : rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static long replay_peak_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void replay_usage(FILE *f)
{
	fprintf(f, "usage: replay [-n records] [-t tasks] [-m mms] [-c cpus] [-a active] [-H holders]\n"
		   "              [-s stall_pct] [-k churn_ppm] [-g mean_gap_ns] [-S seed] [-j]\n");
}

int main(int argc, char **argv)
{
	struct engine_opts eo = { .threshold_ns = 10000000ULL, .features = LS_FEAT_PER_VMA_LOCK };
	struct count_sink cs = { 0 };
	unsigned long long total = 10000000ULL, fed = 0;
	long rss_q[4] = { 0 }, rss_base;
	unsigned char *buf = NULL;
	size_t *lens = NULL, cap;
	struct gen_stats gs;
	struct gen_opts go;
	struct engine *e = NULL;
	struct gen *g = NULL;
	double busy = 0, t0;
	bool json = false;
	int opt, q = 0, ret = 1;

	sink__init(&cs.s, &count_ops, NULL, NULL);
	gen_opts__defaults(&go);
	while ((opt = getopt(argc, argv, "n:t:m:c:a:H:s:k:g:S:jh")) != -1) {
		switch (opt) {
		case 'n': total = strtoull(optarg, NULL, 0); break;
		case 't': go.tasks = strtoul(optarg, NULL, 0); break;
		case 'm': go.mms = strtoul(optarg, NULL, 0); break;
		case 'c': go.cpus = strtoul(optarg, NULL, 0); break;
		case 'a': go.active = strtoul(optarg, NULL, 0); break;
		case 'H': go.holders = strtoul(optarg, NULL, 0); break;
		case 's': go.stall_pct = strtoul(optarg, NULL, 0); break;
		case 'k': go.churn_ppm = strtoul(optarg, NULL, 0); break;
		case 'g': go.mean_gap_ns = strtoul(optarg, NULL, 0); break;
		case 'S': go.seed = strtoull(optarg, NULL, 0); break;
		case 'j': json = true; break;
		case 'h': replay_usage(stdout); return 0;
		default: replay_usage(stderr); return 2;
		}
	}

	cap = (size_t)REPLAY_CHUNK * GEN_MAX_REC;
	buf = malloc(cap);
	lens = malloc(REPLAY_CHUNK * sizeof(*lens));
	g = gen__new(&go);
	e = engine__new(&eo, &cs.s);
	if (!buf || !lens || !g || !e) {
		fprintf(stderr, "replay: out of memory\n");
		goto cleanup;
	}
	/* Touch the chunk now, so the baseline counts it and the growth is the engine's. */
	memset(buf, 0, cap);
	rss_base = replay_rss_kb();

	engine__feed(e, buf, gen__mark(g, buf, LS_MARK_BEGIN));
	while (fed < total) {
		size_t want = total - fed < REPLAY_CHUNK ? total - fed : REPLAY_CHUNK;
		size_t n = gen__fill(g, buf, cap, lens, want), i, off = 0;

		t0 = replay_now();
		for (i = 0; i < n; i++) {
			if (engine__feed(e, buf + off, lens[i]) < 0) {
				fprintf(stderr, "replay: engine__feed failed\n");
				goto cleanup;
			}
			off += lens[i];
		}
		busy += replay_now() - t0;
		fed += n;
		while (q < 4 && fed * 4 >= total * (q + 1))
			rss_q[q++] = replay_rss_kb();
	}
	t0 = replay_now();
	engine__feed(e, buf, gen__mark(g, buf, LS_MARK_END));
	engine__finish(e);
	busy += replay_now() - t0;
	gen__stats(g, &gs);

	if (json) {
		printf("{\"records\":%llu,\"seconds\":%.3f,\"records_per_s\":%.0f,\"ns_per_record\":%.1f,"
		       "\"stalls\":%llu,\"pi\":%llu,\"contention\":%llu,\"unknown\":%llu,\"evicted\":%llu,"
		       "\"bad\":%llu,\"tasks\":%u,\"mms\":%u,\"active\":%u,\"holders\":%u,\"tids\":%llu,"
		       "\"rss_base_kb\":%ld,\"rss_kb\":[%ld,%ld,%ld,%ld],\"peak_kb\":%ld}\n",
		       fed, busy, fed / busy, busy * 1e9 / fed, cs.stalls,
		       cs.by_verdict[LS_VERDICT_PRIORITY_INVERSION], cs.by_verdict[LS_VERDICT_CONTENTION],
		       cs.by_verdict[LS_VERDICT_UNKNOWN], cs.sum.evicted, cs.sum.bad_records,
		       go.tasks, go.mms, go.active, go.holders, gs.tids,
		       rss_base, rss_q[0], rss_q[1], rss_q[2], rss_q[3], replay_peak_kb());
	} else {
		printf("records      %llu (switch %llu, wakeup %llu, wait_begin %llu, wait_end %llu, hold %llu, migrate %llu, exit %llu)\n",
		       fed, gs.by_type[LS_REC_SWITCH], gs.by_type[LS_REC_WAKEUP],
		       gs.by_type[LS_REC_WAIT_BEGIN], gs.by_type[LS_REC_WAIT_END],
		       gs.by_type[LS_REC_HOLD], gs.by_type[LS_REC_MIGRATE], gs.by_type[LS_REC_EXIT]);
		printf("stream       %u live tasks (%llu tids over the run), %u mms, %u cpus, %u locks in flight, %u holders each\n",
		       go.tasks, gs.tids, go.mms, go.cpus, go.active, go.holders);
		printf("feed         %.3f s on one core: %.2f M records/s, %.1f ns/record\n",
		       busy, fed / busy / 1e6, busy * 1e9 / fed);
		printf("found        %llu stalls (%llu planned over the threshold): inversion %llu, off_cpu %llu, contention %llu, unknown %llu; evicted %llu, bad %llu\n",
		       cs.stalls, gs.long_waits, cs.by_verdict[LS_VERDICT_PRIORITY_INVERSION],
		       cs.by_verdict[LS_VERDICT_HOLDER_OFF_CPU], cs.by_verdict[LS_VERDICT_CONTENTION],
		       cs.by_verdict[LS_VERDICT_UNKNOWN], cs.sum.evicted, cs.sum.bad_records);
		printf("memory       RSS %ld KiB before feeding (incl. %zu KiB chunk), at 25/50/75/100%%: %ld %ld %ld %ld KiB, peak %ld KiB\n",
		       rss_base, cap / 1024, rss_q[0], rss_q[1], rss_q[2], rss_q[3], replay_peak_kb());
	}
	ret = 0;
cleanup:
	engine__free(e);
	gen__free(g);
	free(buf);
	free(lens);
	return ret;
}
