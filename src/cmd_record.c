// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall record: the live run (watch__run, cmd_watch.c) with a front
 * end of its own: no output, the recording (-o) as its product, a write
 * error that ends the run, and progress on stderr.  It shares the session
 * with watch and report: what report later prints from the file is what
 * watch would have printed.  What a recording holds besides the records is
 * record/meta.c.
 */
#include <stdio.h>
#include <sys/stat.h>
#include "commands.h"
#include "util.h"

struct record {
	const char *path;	/* cfg->output */
};

/* Each second: elapsed, events, stalls, bytes, drops. */
static void record__progress(void *ctx, const struct watch_progress *p)
{
	fprintf(stderr, "lockstall: %llus: %llu events, %llu stalls, %llu bytes, %llu dropped\n",
		(unsigned long long)(p->elapsed_ns / NSEC_PER_SEC), (unsigned long long)p->recorded,
		(unsigned long long)p->stalls, (unsigned long long)p->recorded_bytes,
		(unsigned long long)p->lost);
}

/* The closing line, once the file is whole: what it holds and how to read it. */
static void record__done(void *ctx, const struct watch_progress *p)
{
	const struct record *r = ctx;
	__u64 bytes = p->recorded_bytes;
	struct stat sb;

	/* the whole file: metadata and framing included */
	if (!stat(r->path, &sb))
		bytes = (__u64)sb.st_size;
	fprintf(stderr, "lockstall: recorded %llu events in %llus to %s: %llu bytes, %llu stalls found; see 'lockstall report %s'\n",
		(unsigned long long)p->recorded, (unsigned long long)(p->elapsed_ns / NSEC_PER_SEC),
		r->path, (unsigned long long)bytes, (unsigned long long)p->stalls, r->path);
}

int cmd_record(const struct ls_config *cfg, volatile sig_atomic_t *stop)
{
	struct record r = { .path = cfg->output };
	const struct watch_front front = {
		.fd = -1,
		.file_only = true,
		.progress = record__progress,
		.recorded = record__done,
		.ctx = &r,
	};

	/* no rules to reload: SIGHUP is not asked for */
	return watch__run(cfg, stop, NULL, stdout, &front);
}
