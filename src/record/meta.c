// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A recording's metadata: see meta.h.  Written by watch -o, record and the
 * flight recorder alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "record/meta.h"
#include "record/trace_file.h"
#include "resolve/cgroup.h"
#include "resolve/maps_reader.h"
#include "resolve/stacks.h"
#include "util.h"

#ifndef LOCKSTALL_VERSION
#define LOCKSTALL_VERSION "unknown"
#endif

#define CMDLINE_MAX	4096		/* per process: enough to tell what it was */
#define CMDLINES_MAX	(4u << 20)	/* all of them: a recording stays readable (trace_file.h) */

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

/* The command line as typed, words joined by blanks. */
static int meta__command(struct trace_writer *w, const struct record_run *run)
{
	size_t len = 0, i;
	char *buf, *p;
	int err;

	for (i = 0; i < (size_t)run->argc; i++)
		len += strlen(run->argv[i]) + 1;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	p = buf;
	for (i = 0; i < (size_t)run->argc; i++)
		p += sprintf(p, "%s%s", i ? " " : "", run->argv[i]);
	err = trace_writer__meta(w, "command", buf, (size_t)(p - buf));
	free(buf);
	return err;
}

/* Read at most len bytes of a small /proc file; -errno if it cannot be. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < len) {
		n = read(fd, buf + got, len - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	return got;
}

int record_meta__boot_id(char *buf, size_t len)
{
	ssize_t n;

	if (!len)
		return -EINVAL;
	n = read_small("/proc/sys/kernel/random/boot_id", buf, len - 1);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return *buf ? 0 : -ENODATA;
}

int record_meta__start(struct trace_writer *w, const struct record_run *run)
{
	struct utsname u;
	char host[256] = "", boot_id[64] = "";
	__u64 mono, real;
	int err = 0;

	/* two reads close together: the offset is good to a few microseconds */
	mono = clock_ns(CLOCK_MONOTONIC);
	real = clock_ns(CLOCK_REALTIME);
	gethostname(host, sizeof(host) - 1);
	if (uname(&u))
		memset(&u, 0, sizeof(u));

	err = err ?: trace_writer__meta_str(w, "lockstall.version", LOCKSTALL_VERSION);
	err = err ?: trace_writer__meta_str(w, "host", host);
	err = err ?: trace_writer__meta_str(w, "kernel.release", u.release);
	err = err ?: trace_writer__meta_str(w, "kernel.version", u.version);
	err = err ?: trace_writer__meta_str(w, "machine", u.machine);
	err = err ?: trace_writer__meta_u64(w, "cpus", (__u64)sysconf(_SC_NPROCESSORS_ONLN));
	/* kernel addresses mean something only on this boot: report checks it */
	if (!record_meta__boot_id(boot_id, sizeof(boot_id)))
		err = err ?: trace_writer__meta_str(w, "boot_id", boot_id);
	err = err ?: trace_writer__meta_u64(w, "stacks", run->stacks);
	err = err ?: trace_writer__meta_u64(w, "stacks.user_mode", run->ustack_mode);
	err = err ?: meta__command(w, run);
	err = err ?: trace_writer__meta_u64(w, "threshold_ns", run->threshold_ns);
	err = err ?: trace_writer__meta_u64(w, "pid", run->pid);
	err = err ?: trace_writer__meta_u64(w, "top", run->top);
	err = err ?: trace_writer__meta_u64(w, "json", run->json);
	err = err ?: trace_writer__meta_u64(w, "interval_ns", run->interval_ns);
	err = err ?: trace_writer__meta_u64(w, "count", run->count);
	err = err ?: trace_writer__meta_u64(w, "features", run->features);
	/* the same as the LS_FEAT_BACKEND_* bits of features, for people */
	err = err ?: trace_writer__meta_str(w, "backend",
					    (run->features & LS_FEAT_BACKEND_FENTRY) ? "fentry" :
					    (run->features & LS_FEAT_BACKEND_KPROBE) ? "kprobe" : "tracepoint");
	err = err ?: trace_writer__meta_str(w, "futex",
					    !(run->features & LS_FEAT_FUTEX) ? "none" :
					    (run->features & LS_FEAT_FUTEX_FENTRY) ? "fentry" : "syscalls");
	err = err ?: trace_writer__meta_str(w, "task_state",
					    (run->features & LS_FEAT_TASK_STATE_HASH) ? "hash" : "storage");
	err = err ?: trace_writer__meta_u64(w, "start.realtime_ns", real);
	err = err ?: trace_writer__meta_s64(w, "clock.realtime_minus_monotonic_ns",
					    (__s64)(real - mono));
	err = err ?: trace_writer__meta_flush(w);
	return err;
}

/*
 * The command lines are read by a worker (resolve/maps_reader.h): reading
 * /proc/PID/cmdline copies from that process's memory under ITS mmap_lock,
 * the very lock lockstall watches, and on a sick host a writer may hold it
 * for good.  So they are read after tracing has stopped, never while
 * records flow, and for CMDLINES_WAIT_NS at most: a recording always ends.
 */
#define CMDLINES_WAIT_NS	(2 * NSEC_PER_SEC)
#define CMDLINE_STUCK_NS	(500 * NSEC_PER_MSEC)	/* one read this long: its lock is busy */

struct names_ctx {
	struct trace_writer *w;
	bool cmdline;
	__u32 *tgids;		/* processes whose command line to read */
	size_t n, alloc;
	int err;
};

/* /proc/PID/cmdline, at most CMDLINE_MAX bytes (the worker's read). */
static int cmdline__read(__u32 tgid, char **text, size_t *len)
{
	char path[64];
	ssize_t n;

	*text = malloc(CMDLINE_MAX);
	if (!*text)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%u/cmdline", tgid);
	n = read_small(path, *text, CMDLINE_MAX);
	if (n < 0) {
		free(*text);
		*text = NULL;
		return (int)n;
	}
	*len = (size_t)n;
	return 0;
}

/*
 * One process seen in the records: its comm, and, if it still runs under
 * the same name (a pid reused by another program would lend us a wrong
 * command line), it is one whose command line to read.
 */
static void names__one(void *data, __u32 tgid, const char comm[LS_COMM_LEN])
{
	struct names_ctx *c = data;
	char key[64], path[64], now_comm[LS_COMM_LEN + 1];
	size_t clen = strnlen(comm, LS_COMM_LEN);
	__u32 *v;
	ssize_t n;

	snprintf(key, sizeof(key), "proc.%u.comm", tgid);
	c->err = c->err ?: trace_writer__meta(c->w, key, comm, clen);
	if (!c->cmdline || c->err)
		return;
	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	n = read_small(path, now_comm, LS_COMM_LEN);
	if (n > 0 && now_comm[n - 1] == '\n')
		n--;
	if (n <= 0 || (size_t)n != clen || memcmp(now_comm, comm, clen))
		return;
	if (c->n == c->alloc) {
		v = realloc(c->tgids, (c->alloc ? 2 * c->alloc : 64) * sizeof(*v));
		if (!v)
			return;
		c->tgids = v;
		c->alloc = c->alloc ? 2 * c->alloc : 64;
	}
	c->tgids[c->n++] = tgid;
}

/* One answer of the worker into the recording; false when the budget is spent. */
static bool cmdline__write(struct names_ctx *c, __u32 tgid, char *cmd, size_t n, size_t *bytes)
{
	char key[64];

	/* arguments end in NULs: drop the last one */
	if (n && !cmd[n - 1])
		n--;
	if (n && *bytes <= CMDLINES_MAX) {
		snprintf(key, sizeof(key), "proc.%u.cmdline", tgid);
		c->err = c->err ?: trace_writer__meta(c->w, key, cmd, n);
		*bytes += n;
	}
	free(cmd);
	return *bytes <= CMDLINES_MAX;
}

/* The command lines of c->tgids, as many as CMDLINES_WAIT_NS allows; how many were not read. */
static size_t cmdlines__read(struct names_ctx *c)
{
	struct maps_reader *mr = maps_reader__new_reading(cmdline__read);
	__u64 deadline = ls_now_ns() + CMDLINES_WAIT_NS;
	size_t asked = 0, answered = 0, bytes = 0, len;
	__u32 tgid;
	char *text;
	int err;

	if (!mr)
		return c->n;
	while (answered < c->n) {
		while (asked < c->n && !maps_reader__ask(mr, c->tgids[asked]))
			asked++;
		if (!maps_reader__wait(mr, deadline, CMDLINE_STUCK_NS))
			break;
		while (maps_reader__take(mr, &tgid, &text, &len, &err) == 1) {
			answered++;
			if (!err && !cmdline__write(c, tgid, text, len, &bytes))
				asked = answered = c->n;	/* enough: stop asking */
		}
	}
	/* a read still stuck in the kernel frees the worker when it returns */
	maps_reader__free(mr);
	return c->n - answered;
}

int record_meta__maps_one(void *ctx, __u32 tgid, const char *maps, size_t maps_len, const char *ids,
		     size_t ids_len)
{
	char key[64];
	int err;

	snprintf(key, sizeof(key), "maps.%u", tgid);
	err = trace_writer__meta(ctx, key, maps, maps_len);
	snprintf(key, sizeof(key), "buildids.%u", tgid);
	return err ?: trace_writer__meta(ctx, key, ids, ids_len);
}

/*
 * The mappings the stack resolver holds now (those of the processes seen
 * last): report names the frames of processes long gone with them.  A
 * whole run's recording gets each process's as it is read instead
 * (stacks_opts.on_maps); this is for a flight recording, made later.
 */
void record_meta__maps(struct trace_writer *w, struct stacks *sk)
{
	if (sk && !trace_writer__error(w))
		stacks__for_each_maps(sk, record_meta__maps_one, w);
}

static void cgroups__one(void *ctx, __u64 id, const char *path)
{
	char key[64];

	snprintf(key, sizeof(key), "cgroup.%llu", (unsigned long long)id);
	trace_writer__meta_str(ctx, key, path);
}

void record_meta__cgroups(struct trace_writer *w, struct cgroups *cg)
{
	if (cg && !trace_writer__error(w))
		cgroups__for_each(cg, cgroups__one, w);
}

void record_meta__end(struct trace_writer *w, bool no_cmdline)
{
	struct names_ctx c = { .w = w, .cmdline = !no_cmdline };
	struct trace_writer_stats st;
	size_t unread;

	if (trace_writer__error(w))
		return;
	trace_writer__procs(w, names__one, &c);
	if (c.n) {
		unread = cmdlines__read(&c);
		/* processes whose lock was held too long to read their command line */
		if (unread)
			trace_writer__meta_u64(w, "cmdlines_unread", unread);
	}
	free(c.tgids);
	trace_writer__stats(w, &st);
	trace_writer__meta_u64(w, "procs_dropped", st.procs_dropped);
	trace_writer__meta_u64(w, "unrecordable", st.unrecordable);
	trace_writer__meta_u64(w, "end.realtime_ns", clock_ns(CLOCK_REALTIME));
}

int record_meta__close(struct trace_writer *tw, const char *path, bool no_cmdline,
		       struct trace_writer_stats *st)
{
	struct trace_writer_stats ws;
	int had = trace_writer__error(tw), err;

	record_meta__end(tw, no_cmdline);
	trace_writer__stats(tw, st ? st : &ws);
	err = trace_writer__close(tw);
	/* a write error that stopped the run has been told already */
	if (err && had)
		return err;
	if (err) {
		fprintf(stderr, "lockstall: %s: cannot write: %s: the file ends at its last whole chunk\n",
			path, strerror(-err));
		return err;
	}
	return 0;
}
