// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/record/flight.c: the in-memory window (age, byte cap, the window written
 * around a violation, merging) and the files (names, modes, rotation) in a
 * temporary directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "record/flight.h"
#include "record/flight_writer.h"
#include "record/meta.h"
#include "record/trace_file.h"
#include "util.h"
#include "lib/tmpdir.h"

#define MS NSEC_PER_MSEC
#define S NSEC_PER_SEC

/* A minimal record: a LOST record stamped ts (its type does not matter here). */
static void add(struct flight *f, __u64 ts)
{
	struct ls_rec_lost r = { .hdr = { .type = LS_REC_LOST, .size = sizeof(r), .ts = ts } };

	cr_assert_eq(flight__add(f, &r, sizeof(r)), 0);
}

struct got {
	__u64 ts[4096];
	size_t n;
	__u32 first_type;
};

static int collect(void *ctx, const void *rec, size_t len)
{
	struct got *g = ctx;
	const struct ls_hdr *h = rec;

	cr_assert_geq(len, sizeof(*h));
	if (!g->n)
		g->first_type = h->type;
	cr_assert_lt(g->n, 4096);
	g->ts[g->n++] = h->ts;
	return 0;
}

/* Records older than keep before the newest leave; the window is [at - keep, at + after]. */
Test(flight, keeps_only_the_last_keep)
{
	const struct flight_opts o = { .keep_ns = 1 * S, .after_ns = 200 * MS, .chunk_bytes = 1024 };
	struct flight *f = flight__new(&o);
	struct flight_stats st;
	struct flight_window win;
	struct got *g = calloc(1, sizeof(*g));
	__u64 t;
	size_t i;

	cr_assert_not_null(f);
	/* 10 s of records, one every 10 ms */
	for (t = 10 * MS; t <= 10 * S; t += 10 * MS)
		add(f, t);
	flight__stats(f, &st);
	/* about 1 s of them, give or take a chunk (1024 bytes: 32 records of 32 bytes) */
	cr_assert_geq(st.records, 100);
	cr_assert_leq(st.records, 100 + 2 * 32, "%llu records kept", (unsigned long long)st.records);
	cr_assert_eq(st.evicted_cap, 0);

	cr_assert_eq(flight__trigger(f, 10 * S, 0), 0);
	cr_assert(flight__pending(f, &win));
	cr_assert_eq(win.from_ns, 9 * S);
	cr_assert_eq(win.to_ns, 10 * S + 200 * MS);
	/* the after part comes in; a second violation merges */
	for (t = 10 * S + 10 * MS; t <= 11 * S; t += 10 * MS)
		add(f, t);
	cr_assert_eq(flight__trigger(f, 10 * S + 100 * MS, 3), 1);
	cr_assert_eq(flight__write(f, collect, g, &win), 0);
	cr_assert_not(flight__pending(f, NULL));
	cr_assert_eq(win.violations, 2);
	cr_assert_eq(win.rule_index, 0, "the first violation names the file");
	cr_assert_not(win.truncated);
	/* exactly the records in [9 s, 10.2 s], in order */
	cr_assert_eq(g->n, 121, "%zu records written", g->n);
	cr_assert_eq(g->ts[0], 9 * S);
	cr_assert_eq(g->ts[g->n - 1], 10 * S + 200 * MS);
	for (i = 1; i < g->n; i++)
		cr_assert_gt(g->ts[i], g->ts[i - 1]);
	cr_assert_eq(flight__write(f, collect, g, NULL), -ENOENT, "nothing pending now");
	free(g);
	flight__free(f);
}

/* The byte cap holds, pending window or not; a window that lost its start says so. */
Test(flight, byte_cap)
{
	const struct flight_opts o = { .keep_ns = 3600 * S, .max_bytes = 8192, .chunk_bytes = 1024 };
	struct flight *f = flight__new(&o);
	struct flight_stats st;
	struct flight_window win;
	struct got *g = calloc(1, sizeof(*g));
	__u64 t;

	cr_assert_not_null(f);
	for (t = 1; t <= 10000; t++)
		add(f, t * MS);
	flight__stats(f, &st);
	cr_assert_leq(st.bytes, 8192, "%llu bytes in memory", (unsigned long long)st.bytes);
	cr_assert_gt(st.evicted_cap, 0);
	cr_assert_gt(st.records, 0);
	flight__trigger(f, 10 * S, 0);
	cr_assert(flight__pending(f, &win));
	cr_assert(win.truncated, "an hour was asked, 8 KiB kept");
	cr_assert_eq(flight__write(f, collect, g, &win), 0);
	cr_assert_eq(g->n, st.records);
	cr_assert_eq(g->ts[g->n - 1], 10 * S);
	free(g);
	flight__free(f);
}

/* The run's BEGIN mark leads every file, for its features and t0. */
Test(flight, begin_mark_first)
{
	const struct flight_opts o = { .keep_ns = 1 * S, .after_ns = 1, .chunk_bytes = 512 };
	struct ls_rec_mark m = { .hdr = { .type = LS_REC_MARK, .size = sizeof(m), .ts = 1 },
				 .kind = LS_MARK_BEGIN, .features = 5 };
	struct flight *f = flight__new(&o);
	struct got *g = calloc(1, sizeof(*g));
	__u64 t;

	flight__add(f, &m, sizeof(m));
	for (t = 1; t <= 100; t++)
		add(f, t * 100 * MS);
	flight__trigger(f, 10 * S, 0);
	cr_assert_eq(flight__write(f, collect, g, NULL), 0);
	cr_assert_eq(g->first_type, LS_REC_MARK);
	cr_assert_eq(g->ts[0], 1);
	cr_assert_eq(g->ts[1], 9 * S);
	free(g);
	flight__free(f);
}

/* Too big for a chunk, or too short to be a record: counted, not kept. */
Test(flight, odd_records)
{
	const struct flight_opts o = { .chunk_bytes = 64 };
	struct flight *f = flight__new(&o);
	char big[128] = { 0 };
	struct flight_stats st;

	cr_assert_eq(flight__add(f, big, sizeof(big)), 0);
	cr_assert_eq(flight__add(f, big, 4), 0);
	flight__stats(f, &st);
	cr_assert_eq(st.dropped, 2);
	cr_assert_eq(st.records, 0);
	flight__free(f);
}

static char dir[64];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "flight");
}

static void teardown(void)
{
	tmpdir__remove(dir);
}

static size_t count_files(const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	}
	closedir(d);
	return n;
}

/* 2026-12-03 09:15:01.123 UTC */
#define REALTIME (1796289301ULL * S + 123 * MS)

Test(flight_files, names_and_modes, .init = setup, .fini = teardown)
{
	struct trace_writer *w;
	char path[512], want[512];
	struct stat st;
	int i;

	for (i = 0; i < 3; i++) {
		cr_assert_eq(flight__create(dir, REALTIME, 1, &w, path, sizeof(path)), 0);
		cr_assert_eq(trace_writer__close(w), 0);
		snprintf(want, sizeof(want), "%s/lockstall-20261203T091501.123Z-rule2%s.lst", dir,
			 i == 0 ? "" : i == 1 ? "-2" : "-3");
		cr_assert_str_eq(path, want, "a name taken gets a number");
		cr_assert_eq(stat(path, &st), 0);
		cr_assert_eq(st.st_mode & 0777, 0600);
	}
	/* never through a symlink: the name is taken, the next one is used */
	snprintf(want, sizeof(want), "%s/lockstall-20261203T091501.123Z-rule3.lst", dir);
	cr_assert_eq(symlink("/tmp/lockstall-flight-target", want), 0);
	cr_assert_eq(flight__create(dir, REALTIME, 2, &w, path, sizeof(path)), 0);
	trace_writer__close(w);
	cr_assert_str_neq(path, want);
	cr_assert_neq(access("/tmp/lockstall-flight-target", F_OK), 0, "the symlink was followed");
	cr_assert_eq(flight__create("/nonexistent-lockstall", REALTIME, 0, &w, path, sizeof(path)),
		     -ENOENT);
}

static void touch(const char *name, size_t bytes)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(ftruncate(fd, (off_t)bytes), 0);
	close(fd);
}

Test(flight_files, rotation, .init = setup, .fini = teardown)
{
	char path[512];
	int i;

	for (i = 0; i < 6; i++) {
		char name[96];

		snprintf(name, sizeof(name), "lockstall-2025120%dT000000.000Z-rule1.lst", i + 1);
		touch(name, 1000);
	}
	/* not ours: never removed */
	touch("notes.txt", 10);
	touch("lockstall-keep-me.txt", 10);
	cr_assert_eq(flight__rotate(dir, 4, 1 << 20), 2);
	cr_assert_eq(count_files("lockstall-2025"), 4);
	snprintf(path, sizeof(path), "%s/lockstall-20251201T000000.000Z-rule1.lst", dir);
	cr_assert_neq(access(path, F_OK), 0, "the oldest went first");
	snprintf(path, sizeof(path), "%s/lockstall-20251206T000000.000Z-rule1.lst", dir);
	cr_assert_eq(access(path, F_OK), 0);
	/* the byte bound: 2500 bytes keep two files */
	cr_assert_eq(flight__rotate(dir, 10, 2500), 2);
	cr_assert_eq(count_files("lockstall-2025"), 2);
	/* the newest stays, whatever its size */
	cr_assert_eq(flight__rotate(dir, 10, 1), 1);
	cr_assert_eq(count_files("lockstall-2025"), 1);
	cr_assert_eq(access(path, F_OK), 0);
	cr_assert_eq(count_files("notes.txt") + count_files("lockstall-keep-me.txt"), 2);
	cr_assert_eq(flight__rotate("/nonexistent-lockstall", 1, 1), -ENOENT);
}

/*
 * Rotation removes only what a recorder wrote, by its name's date: never an
 * operator's own lockstall-*.lst, and a file dated in the future, sorting
 * last, must not make it remove each new recording at once.
 */
Test(hostile, flight_rotation_spares_foreign_and_future_files, .init = setup, .fini = teardown)
{
	static const char *const foreign[] = {
		"lockstall-notes.lst",				/* the operator's */
		"lockstall-20251201T000000.000Z-rule1.lst.bak",
		"lockstall-2025120XT000000.000Z-rule1.lst",
		"lockstall-29991231T235959.999Z-rule1.lst",	/* future-dated */
	};
	char path[512], name[96];
	size_t i;

	for (i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++)
		touch(foreign[i], 10);
	/* named like ours, but not a recorder's file: others may read it; a hard link */
	touch("lockstall-20250101T000000.000Z-rule1.lst", 10);
	snprintf(path, sizeof(path), "%s/lockstall-20250101T000000.000Z-rule1.lst", dir);
	cr_assert_eq(chmod(path, 0644), 0);
	touch("lockstall-20250102T000000.000Z-rule1.lst", 10);
	snprintf(path, sizeof(path), "%s/lockstall-20250102T000000.000Z-rule1.lst", dir);
	snprintf(name, sizeof(name), "%s/hardlink", dir);
	cr_assert_eq(link(path, name), 0);
	/* three recordings, one kept: the two oldest go, the newest stays */
	touch("lockstall-20251201T000000.000Z-rule1.lst", 10);
	touch("lockstall-20251202T000000.000Z-rule2-2.lst", 10);
	touch("lockstall-20251203T000000.000Z-rule1.lst", 10);
	cr_assert_eq(flight__rotate(dir, 1, 1 << 20), 2);
	snprintf(path, sizeof(path), "%s/lockstall-20251203T000000.000Z-rule1.lst", dir);
	cr_assert_eq(access(path, F_OK), 0, "the newest recording was removed");
	for (i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, foreign[i]);
		cr_assert_eq(access(path, F_OK), 0, "%s was removed", foreign[i]);
	}
	cr_assert_eq(count_files("lockstall-20250"), 2, "files a recorder did not write were removed");
}

/* The path of the one file of dir named with prefix. */
static void only_file(const char *prefix, char *path, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			snprintf(path, len, "%s/%s", dir, de->d_name);
	closedir(d);
}

/*
 * The writer, not forked: the pending window to one file of the
 * directory, with the rule that began it, then none pending.
 */
Test(flight_files, writer_writes_the_window, .init = setup, .fini = teardown)
{
	const struct flight_writer_opts o = {
		.window = { .keep_ns = 1 * S, .after_ns = 200 * MS, .chunk_bytes = 1024 },
		.dir = dir,
	};
	struct flight_writer *fw = flight_writer__new(&o);
	const struct record_run run = { .threshold_ns = 10 * MS };
	struct trace_reader *r;
	char path[512] = "";
	const void *rec;
	const char *rule;
	size_t len, n = 0;
	__u64 t, to_ns;

	cr_assert_not_null(fw);
	for (t = 10 * MS; t <= 2 * S; t += 10 * MS)
		add(flight_writer__flight(fw), t);
	cr_assert_not(flight_writer__due(fw, &to_ns));
	flight_writer__trigger(fw, 2 * S, 1, "wait>5ms");
	cr_assert(flight_writer__due(fw, &to_ns));
	cr_assert_eq(to_ns, 2 * S + 200 * MS);
	for (t = 2 * S + 10 * MS; t <= 3 * S; t += 10 * MS)
		add(flight_writer__flight(fw), t);
	flight_writer__write(fw, &run, false);
	cr_assert_not(flight_writer__due(fw, &to_ns));
	flight_writer__free(fw);

	cr_assert_eq(count_files(FLIGHT_PREFIX), 1);
	only_file(FLIGHT_PREFIX, path, sizeof(path));
	cr_assert_eq(trace_reader__open(&r, path, stderr), 0);
	rule = trace_reader__meta(r, "flight.rule", &len);
	cr_assert_not_null(rule);
	cr_expect_eq(len, strlen("wait>5ms"));
	cr_expect_eq(memcmp(rule, "wait>5ms", len), 0);
	while (trace_reader__next_record(r, &rec, &len) > 0) {
		t = ((const struct ls_hdr *)rec)->ts;
		if (((const struct ls_hdr *)rec)->type != LS_REC_LOST)
			continue;
		cr_expect(t >= 1 * S && t <= 2 * S + 200 * MS, "record at %llu ns", (unsigned long long)t);
		n++;
	}
	cr_expect_gt(n, 100);
	trace_reader__close(r);
}

/* No --flight-recorder: the loop reaps and frees a writer it does not have. */
Test(flight_files, no_writer_no_crash)
{
	flight_writer__reap(NULL, false);
	flight_writer__reap(NULL, true);
	flight_writer__free(NULL);
}
