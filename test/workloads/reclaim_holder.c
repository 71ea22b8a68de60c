// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * reclaim_holder: a holder of mmap_lock that reclaims memory under its
 * memory cgroup's limit while the victim waits for the lock.
 *
 * --cgroup DIR (required): a memory cgroup directory with a limit, made by
 * the caller (v1 memory.limit_in_bytes or v2 memory.max); the whole process
 * joins it first (page faults charge the mm owner's cgroup).
 *
 *  holder   "wl-holder" (SCHED_OTHER nice -10, CPU 1: the other tasks of a
 *           busy host keep it off its CPU less), over and over: writes a
 *           file as big as the limit with write() (the cgroup fills up with
 *           its dirty pages, no lock held), then populates -s MB of
 *           anonymous memory with MADV_POPULATE_WRITE, which faults every
 *           page in under mmap_read_lock: each charge finds the cgroup at
 *           its limit and reclaims, and reclaim of dirty pages waits for
 *           their writeback (cgroup v1 waits on it); then it frees the
 *           anonymous memory again.
 *  victim   "wl-victim" (SCHED_FIFO 10, CPU 0) loops mmap() + munmap() of
 *           a small region: each needs the write lock, and waits.
 *
 * The ground truth adds the holder's time in MADV_POPULATE_WRITE, the
 * cgroup's limit, how often it hit it (v1 memory.failcnt, v2 memory.events
 * max) and the system's memory pressure stall time (/proc/pressure/memory,
 * "some") over the run.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "workload.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define VICTIM_MAP_LEN	(64 * 1024)
#define HOLDER_NICE	(-10)

struct holder {
	char *map;
	size_t len;
	int file_fd;
	size_t file_len;
	pid_t tid;
	atomic_bool stop;
	uint64_t populates;	/* MADV_POPULATE_WRITE calls */
	uint64_t populate_ns;	/* ... time in them, all */
	uint64_t longest_ns;
	int ready_fd;
};

struct victim {
	const struct wl_opts *opts;
	struct wl_gate go;
	pid_t tid;
	const char *policy;
	struct wl_worst worst;
	uint64_t start_ns, end_ns;
};

/* The counts of the cgroup and the system the truth gives over the run. */
struct mem_stat {
	unsigned long long limit;	/* bytes */
	unsigned long long limit_hits;
	unsigned long long psi_some_us;
	int version;
};

/* A number after key in a small file (key NULL: the first number); 0 if missing. */
static unsigned long long file_number(const char *dir, const char *name, const char *key)
{
	char path[512], buf[8192], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%s%s", dir, dir[0] ? "/" : "", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = key ? strstr(buf, key) : buf;
	if (p && key)
		p += strlen(key);
	if (p && !strncmp(p, "max", 3))
		return ~0ULL;
	if (p)
		v = strtoull(p, NULL, 10);
	return v;
}

static void mem_stat__read(const char *dir, struct mem_stat *m)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", dir);
	m->version = access(path, F_OK) ? 2 : 1;
	if (m->version == 1) {
		m->limit = file_number(dir, "memory.limit_in_bytes", NULL);
		m->limit_hits = file_number(dir, "memory.failcnt", NULL);
	} else {
		m->limit = file_number(dir, "memory.max", NULL);
		m->limit_hits = file_number(dir, "memory.events", "\nmax ");
	}
	m->psi_some_us = file_number("", "/proc/pressure/memory", "total=");
}

/* Dirty the cgroup's memory: write the file all over (its pages charge our cgroup). */
static void holder__dirty(struct holder *h)
{
	static char buf[1 << 20];
	size_t done;

	memset(buf, 'd', sizeof(buf));
	for (done = 0; done < h->file_len; done += sizeof(buf))
		if (pwrite(h->file_fd, buf, sizeof(buf), (off_t)done) != (ssize_t)sizeof(buf))
			wl_die("holder: write: %s", strerror(errno));
}

/* An unnamed file on a disk (not tmpfs: its dirty pages need writeback to go). */
static int tmp_file(void)
{
	char tmpl[] = "/var/tmp/lockstall-reclaim-XXXXXX";
	int fd = mkostemp(tmpl, O_CLOEXEC);

	if (fd < 0)
		wl_die("mkostemp: %s", strerror(errno));
	unlink(tmpl);
	return fd;
}

static void holder__populate(struct holder *h)
{
	uint64_t t0 = wl_now_ns(), d;

	if (madvise(h->map, h->len, MADV_POPULATE_WRITE))
		wl_die("holder: MADV_POPULATE_WRITE: %s", strerror(errno));
	d = wl_now_ns() - t0;
	h->populates++;
	h->populate_ns += d;
	if (d > h->longest_ns)
		h->longest_ns = d;
	if (madvise(h->map, h->len, MADV_DONTNEED))
		wl_die("holder: MADV_DONTNEED: %s", strerror(errno));
}

static void *holder__run(void *arg)
{
	struct holder *h = arg;

	wl_thread_begin("wl-holder", WL_CPU_LOW, WL_CLASS_NORMAL, &h->tid);
	if (setpriority(PRIO_PROCESS, h->tid, HOLDER_NICE))
		wl_die("holder: nice %d: %s", HOLDER_NICE, strerror(errno));
	holder__dirty(h);
	holder__populate(h);	/* at work: the first round is done */
	wl_send(h->ready_fd, &h->tid, sizeof(h->tid));
	close(h->ready_fd);
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		holder__dirty(h);
		holder__populate(h);
	}
	return NULL;
}

static void *victim__run(void *arg)
{
	struct victim *v = arg;
	uint64_t t0, t1;
	void *p;

	v->policy = wl_thread_begin("wl-victim", WL_CPU_VICTIM, WL_CLASS_HIGH, &v->tid);
	wl_gate__wait(&v->go);
	v->start_ns = wl_now_ns();
	do {
		t0 = wl_now_ns();
		p = mmap(NULL, VICTIM_MAP_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || munmap(p, VICTIM_MAP_LEN))
			wl_die("victim: mmap/munmap: %s", strerror(errno));
		t1 = wl_now_ns();
		wl_worst__add(&v->worst, t0, t1, 0);
		v->end_ns = t1;
		wl_pause(v->opts->pause_us);
	} while (!wl_done(v->opts, &v->worst, v->start_ns, v->end_ns));
	return NULL;
}

static void print_truth(const struct victim *v, const struct holder *h, const char *cgroup,
			const struct mem_stat *m0, const struct mem_stat *m1)
{
	printf("{\"workload\":\"reclaim_holder\",\"victim_pid\":%d,\"victim_tid\":%d,"
	       "\"victim_policy\":\"%s\",\"holder_pid\":%d,\"holder_tid\":%d,"
	       "\"holder_policy\":\"normal\",\"holder_nice\":%d,\"start_ns\":%llu,\"end_ns\":%llu,\"calls\":%llu,"
	       "\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,\"worst_ns\":%llu,"
	       "\"populate_bytes\":%zu,\"populates\":%llu,\"populate_ns\":%llu,"
	       "\"populate_longest_ns\":%llu,\"cg_version\":%d,\"cg_limit_bytes\":%llu,"
	       "\"cg_limit_hits\":%llu,\"psi_memory_some_us\":%llu,\"cgroup_dir\":\"%s\"}\n",
	       (int)getpid(), (int)v->tid, v->policy, (int)getpid(), (int)h->tid, HOLDER_NICE,
	       (unsigned long long)v->start_ns, (unsigned long long)v->end_ns,
	       (unsigned long long)v->worst.calls, (unsigned long long)v->worst.start_ns,
	       (unsigned long long)v->worst.end_ns, (unsigned long long)v->worst.ns, h->len,
	       (unsigned long long)h->populates, (unsigned long long)h->populate_ns,
	       (unsigned long long)h->longest_ns, m1->version, m1->limit,
	       m1->limit_hits - m0->limit_hits, m1->psi_some_us - m0->psi_some_us, cgroup);
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 1000, .size_mb = 40 };
	struct victim v = { .opts = &opts };
	struct holder h = { 0 };
	struct mem_stat m0, m1;
	pthread_t ht, vt;

	wl_parse_opts(argc, argv, &opts);
	if (!opts.cgroup || opts.control || opts.swap_exe)
		wl_die("--cgroup DIR is needed (a memory cgroup with a limit); no other mode");
	if (strpbrk(opts.cgroup, "\"\\"))
		wl_die("--cgroup %s: no quotes or backslashes, it goes into JSON as it is",
		       opts.cgroup);
	if (!opts.size_mb || opts.size_mb > 1024)
		wl_die("-s %lu: want 1 to 1024 MB", opts.size_mb);
	setvbuf(stdout, NULL, _IOLBF, 0);

	mem_stat__read(opts.cgroup, &m0);
	if (m0.limit == ~0ULL || m0.limit < 2 * opts.size_mb << 20 || m0.limit > 1ULL << 32)
		wl_die("%s: want a memory limit of twice -s %lu MB to 4 GB", opts.cgroup,
		       opts.size_mb);
	wl_join_cgroup(opts.cgroup);
	h.file_fd = tmp_file();
	h.file_len = m0.limit;
	h.len = opts.size_mb << 20;
	h.map = mmap(NULL, h.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h.map == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));

	wl_gate__init(&v.go);
	h.tid = wl_start_threads(&vt, victim__run, &v, &ht, holder__run, &h, &h.ready_fd);
	mem_stat__read(opts.cgroup, &m0);
	wl_gate__open(&v.go);
	pthread_join(vt, NULL);
	atomic_store(&h.stop, true);
	pthread_join(ht, NULL);
	mem_stat__read(opts.cgroup, &m1);
	print_truth(&v, &h, opts.cgroup, &m0, &m1);
	return 0;
}
