/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the workloads share: the clock, CPU pinning, scheduling classes, a
 * CPU hog process, startup hand-shakes over pipes, and the record of the
 * worst call a victim made.
 *
 * A workload is a small program that builds one priority inversion on
 * mm->mmap_lock (or, for the control, none) and prints its ground truth as
 * one JSON line on stdout when it ends: who the victim, the holder and the
 * hog were, and when the victim's slowest call began and ended, in
 * CLOCK_MONOTONIC ns, the clock lockstall reports in.  Chatter goes to
 * stderr.  Startup order is enforced with pipes, never with sleeps: a
 * participant says it is ready only once it is doing what it is there for.
 */
#ifndef LOCKSTALL_WORKLOAD_H
#define LOCKSTALL_WORKLOAD_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define WL_CPU_VICTIM	0	/* the important thread */
#define WL_CPU_LOW	1	/* the unimportant holder and the hog that starves it */

/* The victim's importance when it cannot have SCHED_FIFO (not root). */
#define WL_VICTIM_RT_PRIO	10
#define WL_VICTIM_NICE		(-10)

static inline void wl_die(const char *fmt, ...)
{
	va_list ap;

	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* n mprotect() calls on a page of its own: exactly n write waits and n holds of mmap_lock. */
static inline void wl_mprotect_n(unsigned long n)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long i;
	char *p;

	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (mprotect(p, page, (i & 1) ? PROT_READ | PROT_WRITE : PROT_READ))
			wl_die("mprotect: %s", strerror(errno));
}

/*
 * n one-page read-write mappings side by side that cannot merge (shared
 * anonymous, one object each): an mprotect() of them all rewrites n VMAs
 * under mmap_write_lock.
 */
static inline char *wl_unmergeable_map(size_t n, size_t page)
{
	char *base = mmap(NULL, (n + 2) * page, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t i;

	if (base == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (mmap(base + (i + 1) * page, page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			wl_die("mmap %zu of %zu: %s (vm.max_map_count?)", i, n, strerror(errno));
	return base + page;
}

/*
 * A symlink to this program named name in a new directory made from dir
 * (a mkdtemp() template, changed in place), its path in link: executed
 * through it, the process takes name (the kernel names a process by the
 * file it executes).  The caller removes link, then dir.
 */
static inline void wl_self_link(char *dir, const char *name, char *link, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		wl_die("readlink /proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	if (!mkdtemp(dir))
		wl_die("mkdtemp: %s", strerror(errno));
	snprintf(link, len, "%s/%s", dir, name);
	if (symlink(self, link))
		wl_die("symlink %s: %s", link, strerror(errno));
}

static inline uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Pin the calling thread to one CPU.  Returns 0 or -errno. */
static inline int wl_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

enum wl_class {
	WL_CLASS_NORMAL,	/* SCHED_OTHER, nice 0 */
	WL_CLASS_LOW,		/* SCHED_IDLE: runs only when nothing else wants the CPU */
	WL_CLASS_HIGH,		/* SCHED_FIFO if permitted, else SCHED_OTHER nice -10 */
};

/*
 * Put the calling thread in a scheduling class (policy and nice are per
 * thread on Linux).  Returns the policy name it got, for the ground truth.
 */
static inline const char *wl_set_class(enum wl_class c)
{
	struct sched_param sp = { 0 };
	pid_t tid = gettid();

	switch (c) {
	case WL_CLASS_NORMAL:
		if (sched_setscheduler(0, SCHED_OTHER, &sp) || setpriority(PRIO_PROCESS, tid, 0))
			wl_die("SCHED_OTHER nice 0: %s", strerror(errno));
		return "normal";
	case WL_CLASS_LOW:
		if (sched_setscheduler(0, SCHED_IDLE, &sp))
			wl_die("SCHED_IDLE: %s", strerror(errno));
		return "idle";
	case WL_CLASS_HIGH:
		sp.sched_priority = WL_VICTIM_RT_PRIO;
		if (!sched_setscheduler(0, SCHED_FIFO, &sp))
			return "fifo";
		/* Unprivileged: a lower nice is the most we may ask for, if that. */
		sp.sched_priority = 0;
		if (sched_setscheduler(0, SCHED_OTHER, &sp))
			wl_die("SCHED_OTHER: %s", strerror(errno));
		if (setpriority(PRIO_PROCESS, tid, WL_VICTIM_NICE))
			fprintf(stderr, "workload: nice %d: %s: the victim keeps nice 0\n",
				WL_VICTIM_NICE, strerror(errno));
		return "normal";
	}
	return "unknown";
}

/*
 * The start of a workload thread: its name (what lockstall shows), its tid
 * into *tid, pinned to cpu, in class c.  Returns the policy name it got.
 */
static inline const char *wl_thread_begin(const char *name, int cpu, enum wl_class c, pid_t *tid)
{
	int err;

	prctl(PR_SET_NAME, name);
	*tid = gettid();
	err = wl_pin_cpu(cpu);
	if (err)
		wl_die("%s: pin to CPU %d: %s", name, cpu, strerror(-err));
	return wl_set_class(c);
}

/* Move the calling process into the cgroup directory dir. */
static inline void wl_join_cgroup(const char *dir)
{
	char path[512], pid[32];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid))
		wl_die("join %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * --split-cgroups DIR: a cgroup v2 directory the caller made, with two
 * threaded children (cgroup.type "threaded"), DIR/holder and DIR/hog.  The
 * workload joins DIR (wl_join_cgroup()), then moves its holder and its hog
 * into theirs, so victim, holder and hog each sit in a cgroup of their
 * own though the holder may be a thread of the victim's process.
 */
static inline void wl_cgroup_move(const char *dir, const char *sub, pid_t tid)
{
	char path[512], id[32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s/cgroup.threads", dir, sub);
	snprintf(id, sizeof(id), "%d", (int)tid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, id, strlen(id)) != (ssize_t)strlen(id))
		wl_die("move %d to %s: %s", (int)tid, path, strerror(errno));
	close(fd);
}

/* Thread tid's cgroup v2 path, the "0::" line of its /proc cgroup file: into buf. */
static inline void wl_cgroup_of(pid_t tid, char *buf, size_t len)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tid);
	f = fopen(path, "re");
	if (!f)
		wl_die("%s: %s", path, strerror(errno));
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			if (strlen(line + 3) >= len)
				wl_die("%s: a cgroup path too long", path);
			memcpy(buf, line + 3, strlen(line + 3) + 1);
		}
	fclose(f);
	if (!buf[0] || strpbrk(buf, "\"\\"))
		wl_die("%s: no cgroup v2 path fit for JSON", path);
}

/*
 * The --split-cgroups ground truth: ,"victim_cgroup":..., "holder_cgroup"
 * and "hog_cgroup", the paths /proc gives now (a hog already stopped, pid
 * 0, is left out); "" without the option.
 */
static inline void wl_split_cgroups_truth(const char *dir, pid_t victim, pid_t holder, pid_t hog,
					  char *buf, size_t len)
{
	char v[256], h[256], g[256] = "";

	buf[0] = '\0';
	if (!dir)
		return;
	wl_cgroup_of(victim, v, sizeof(v));
	wl_cgroup_of(holder, h, sizeof(h));
	if (hog > 0)
		wl_cgroup_of(hog, g, sizeof(g));
	snprintf(buf, len, ",\"victim_cgroup\":\"%s\",\"holder_cgroup\":\"%s\"%s%s%s", v, h,
		 hog > 0 ? ",\"hog_cgroup\":\"" : "", g, hog > 0 ? "\"" : "");
}

/* Write and read whole small messages on a pipe; a short read is EOF: the peer died. */
static inline void wl_send(int fd, const void *msg, size_t len)
{
	ssize_t n;

	do
		n = write(fd, msg, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		wl_die("pipe write: %s", n < 0 ? strerror(errno) : "short");
}

static inline void wl_recv(int fd, void *msg, size_t len, const char *who)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)msg + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			wl_die("%s did not start (%s)", who, n < 0 ? strerror(errno) : "it exited");
		got += n;
	}
}

/*
 * A start gate for one thread: it waits in wl_gate__wait() until another
 * calls wl_gate__open().  The victim thread is made (its stack mapped, its
 * class set) before the holder and the hog start, so that its set-up does not
 * stall on the lock too, and it starts measuring once they are at work.
 */
struct wl_gate {
	int fd[2];
};

static inline void wl_gate__init(struct wl_gate *g)
{
	if (pipe(g->fd))
		wl_die("pipe: %s", strerror(errno));
}

static inline void wl_gate__wait(struct wl_gate *g)
{
	char b;

	wl_recv(g->fd[0], &b, 1, "the workload");
}

static inline void wl_gate__open(struct wl_gate *g)
{
	wl_send(g->fd[1], "g", 1);
}

/*
 * Start the victim thread (it waits at its own gate), then the holder
 * thread, whose arg gets the write end of a pipe in *ready_fd: it sends its
 * tid there once at work.  Returns that tid.
 */
static inline pid_t wl_start_threads(pthread_t *vt, void *(*victim)(void *), void *v,
				     pthread_t *ht, void *(*holder)(void *), void *h, int *ready_fd)
{
	int ready[2], err;
	pid_t tid;

	err = pthread_create(vt, NULL, victim, v);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	if (pipe(ready))
		wl_die("pipe: %s", strerror(errno));
	*ready_fd = ready[1];
	err = pthread_create(ht, NULL, holder, h);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	wl_recv(ready[0], &tid, sizeof(tid), "the holder");
	close(ready[0]);
	return tid;
}

/* Children die with the workload, whatever kills it (a test timing out). */
static inline void wl_child_setup(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		wl_die("PR_SET_PDEATHSIG: %s", strerror(errno));
	if (getppid() != parent)	/* the parent died before prctl */
		_exit(1);
}

/*
 * Fork a child that dies with the workload and runs pinned to cpu: its
 * pid in the parent, 0 in the child (who, for the errors).
 */
static inline pid_t wl_fork_pinned(const char *who, int cpu)
{
	pid_t parent = getpid(), pid;
	int err;

	pid = fork();
	if (pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (pid)
		return pid;
	wl_child_setup(parent);
	err = wl_pin_cpu(cpu);
	if (err)
		wl_die("%s: pin to CPU %d: %s", who, cpu, strerror(-err));
	return 0;
}

/* A helper process: its ids as it reported them once ready. */
struct wl_child {
	pid_t pid;	/* 0: never started */
	pid_t tid;
	bool reaped;
};

static inline void wl_child__stop(struct wl_child *c)
{
	if (c->pid <= 0 || c->reaped)
		return;
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->reaped = true;
}

/*
 * A CPU hog: a SCHED_OTHER nice 0 process pinned to one CPU, spinning.
 *
 * wl_hog__fork() makes the process, which waits; wl_hog__go() lets it spin
 * and returns once it does.  Two steps, because a workload must fork before
 * it maps anything large (fork would copy the page tables and leave every
 * page shared copy-on-write) but wants the hog only once its other tasks
 * are at work (a SCHED_IDLE task under a hog takes seconds to get going).
 */
struct wl_hog {
	struct wl_child c;
	int go_fd;
	int ready_fd;
};

static inline void wl_hog__fork(struct wl_hog *hog, int cpu)
{
	pid_t parent = getpid();
	int go[2], ready[2];
	pid_t pid;

	if (pipe(go) || pipe(ready))
		wl_die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (pid == 0) {
		volatile uint64_t spins = 0;
		pid_t tid = gettid();
		char b;
		int err;

		close(go[1]);
		close(ready[0]);
		wl_child_setup(parent);
		prctl(PR_SET_NAME, "wl-hog");
		err = wl_pin_cpu(cpu);
		if (err)
			wl_die("hog: pin to CPU %d: %s", cpu, strerror(-err));
		wl_set_class(WL_CLASS_NORMAL);
		wl_recv(go[0], &b, 1, "the workload");
		wl_send(ready[1], &tid, sizeof(tid));
		close(ready[1]);
		for (;;)
			spins++;
	}
	close(go[0]);
	close(ready[1]);
	hog->c.pid = pid;
	hog->go_fd = go[1];
	hog->ready_fd = ready[0];
}

static inline void wl_hog__go(struct wl_hog *hog)
{
	wl_send(hog->go_fd, "g", 1);
	close(hog->go_fd);
	wl_recv(hog->ready_fd, &hog->c.tid, sizeof(hog->c.tid), "the hog");
	close(hog->ready_fd);
}

#define WL_SLOW_MAX	32	/* calls of 5 ms or more whose times are kept */

/* The victim's slowest call, and the first WL_SLOW_MAX of 5 ms or more. */
struct wl_worst {
	uint64_t calls;
	uint64_t over_5ms;	/* calls that took 5 ms or more */
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t ns;
	uint64_t addr;		/* where it was, when that means something */
	uint64_t slow[WL_SLOW_MAX][2];	/* [start, end] of the first over_5ms */
};

static inline void wl_worst__add(struct wl_worst *w, uint64_t start, uint64_t end, uint64_t addr)
{
	uint64_t d = end - start;

	w->calls++;
	if (d >= 5000000) {
		if (w->over_5ms < WL_SLOW_MAX) {
			w->slow[w->over_5ms][0] = start;
			w->slow[w->over_5ms][1] = end;
		}
		w->over_5ms++;
	}
	if (d > w->ns) {
		w->ns = d;
		w->start_ns = start;
		w->end_ns = end;
		w->addr = addr;
	}
}

/* ,"slow_calls":[[start,end],...]: the calls of 5 ms or more kept in w. */
static inline void wl_worst__print_slow(const struct wl_worst *w)
{
	uint64_t i, n = w->over_5ms < WL_SLOW_MAX ? w->over_5ms : WL_SLOW_MAX;

	printf(",\"slow_calls\":[");
	for (i = 0; i < n; i++)
		printf("%s[%llu,%llu]", i ? "," : "", (unsigned long long)w->slow[i][0],
		       (unsigned long long)w->slow[i][1]);
	printf("]");
}

/* Options every workload takes. */
struct wl_opts {
	double duration_s;	/* -d: how long the victim measures */
	unsigned long until_ms;	/* -u: then go on until one call took this long (0: don't) */
	unsigned int pause_us;	/* -i: pause between the victim's calls */
	bool control;		/* --control: no hog, equal priorities */
	unsigned long size_mb;	/* -s: mapping size, where a workload has one */
	bool swap_exe;		/* --swap-exe: see swap_exe.h (mprotect_fault) */
	/* --cgroup: the holder's CPU-limited (proc_reader) or memory-limited (reclaim_holder) cgroup */
	const char *cgroup;
	bool rt;		/* --rt: no hog, the holder SCHED_FIFO until its RT budget runs out */
	const char *split_cgroups;	/* --split-cgroups: see wl_cgroup_move() */
};

/*
 * Whether the victim may stop at t: after -d, and with -u once a call took
 * that long, or at ten times -d whatever happened (the ground truth says).
 */
static inline bool wl_done(const struct wl_opts *o, const struct wl_worst *w, uint64_t start,
			   uint64_t t)
{
	uint64_t d = (uint64_t)(o->duration_s * 1e9);

	if (t < start + d)
		return false;
	return !o->until_ms || w->ns >= o->until_ms * 1000000ULL || t >= start + 10 * d;
}

static inline void wl_usage(const char *prog, FILE *f)
{
	fprintf(f,
		"usage: %s [-d SECONDS] [-u MS] [-i PAUSE_US] [-s SIZE_MB] [--control]\n"
		"  -d SECONDS   how long the victim measures (default 3)\n"
		"  -u MS        then go on until one call took MS or more (at most 10 x SECONDS):\n"
		"               for tests that need the situation to have happened\n"
		"  -i PAUSE_US  pause between the victim's calls (default: per workload)\n"
		"  -s SIZE_MB   mapping size, for workloads that map one\n"
		"  --control    no hog, every task SCHED_OTHER nice 0 (proc_reader)\n"
		"  --swap-exe   run from a copy whose path is swapped with a FIFO and a\n"
		"               symlink all the while (mprotect_fault)\n"
		"  --cgroup DIR no hog, the holder SCHED_OTHER in cgroup DIR, whose cpu.stat\n"
		"               before and after goes into the ground truth (proc_reader);\n"
		"               the memory cgroup the process runs in (reclaim_holder);\n"
		"               the I/O-limited cgroup its holder runs in (io_holder)\n"
		"  --rt         no hog, the reader SCHED_FIFO, spinning until its CPU's RT\n"
		"               budget runs out (proc_reader)\n"
		"  --split-cgroups DIR  the workload in cgroup v2 DIR, its holder in DIR/holder,\n"
		"               its hog in DIR/hog (threaded, made by the caller); their paths\n"
		"               go into the ground truth (proc_reader, pthread_mutex)\n"
		"Prints its ground truth as one JSON line on stdout.\n", prog);
}

static inline void wl_parse_opts(int argc, char **argv, struct wl_opts *o)
{
	char *end;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			wl_usage(argv[0], stdout);
			exit(0);
		} else if (!strcmp(a, "--control")) {
			o->control = true;
			continue;
		} else if (!strcmp(a, "--swap-exe")) {
			o->swap_exe = true;
			continue;
		} else if (!strcmp(a, "--rt")) {
			o->rt = true;
			continue;
		} else if (!strcmp(a, "--cgroup") && v) {
			o->cgroup = v;
			i++;
			continue;
		} else if (!strcmp(a, "--split-cgroups") && v) {
			o->split_cgroups = v;
			i++;
			continue;
		} else if (!v || (strcmp(a, "-d") && strcmp(a, "-i") && strcmp(a, "-s") && strcmp(a, "-u"))) {
			fprintf(stderr, "workload: bad option '%s'\n", a);
			wl_usage(argv[0], stderr);
			exit(2);
		}
		errno = 0;
		if (a[1] == 'd') {
			o->duration_s = strtod(v, &end);
			if (errno || *end || !(o->duration_s > 0 && o->duration_s <= 3600))
				wl_die("-d %s: want seconds in (0, 3600]", v);
		} else {
			unsigned long n = strtoul(v, &end, 10);

			if (errno || *end || !*v || n > 1000000)
				wl_die("%s %s: want a number up to 1000000", a, v);
			if (a[1] == 'i')
				o->pause_us = n;
			else if (a[1] == 'u')
				o->until_ms = n;
			else
				o->size_mb = n;
		}
		i++;
	}
}

/* A workload's own flag (--pi, --write): true if given, taken out of argv for wl_parse_opts(). */
static inline bool wl_take_flag(int *argc, char **argv, const char *flag)
{
	bool seen = false;
	int i, j;

	for (i = j = 0; i < *argc; i++) {
		if (!strcmp(argv[i], flag))
			seen = true;
		else
			argv[j++] = argv[i];
	}
	*argc = j;
	argv[j] = NULL;
	return seen;
}

/*
 * A workload's own option with a number (--sleep-under 10): its value, 0
 * to max, or def if not given; both taken out of argv as wl_take_flag() does.
 */
static inline unsigned long wl_take_number(int *argc, char **argv, const char *opt,
					   unsigned long def, unsigned long max)
{
	unsigned long n = def;
	char *end;
	int i, j;

	for (i = j = 0; i < *argc; i++) {
		if (strcmp(argv[i], opt)) {
			argv[j++] = argv[i];
			continue;
		}
		if (i + 1 >= *argc)
			wl_die("%s: a number is missing", opt);
		errno = 0;
		n = strtoul(argv[++i], &end, 10);
		if (errno || *end || end == argv[i] || n > max)
			wl_die("%s %s: want 0 to %lu", opt, argv[i], max);
	}
	*argc = j;
	argv[j] = NULL;
	return n;
}

#define WL_BIG_MARK	"LOCKSTALL_WL_BIG=1"
#define WL_BIG_PADS	16
#define WL_BIG_PAD_LEN	(64 * 1024)	/* under MAX_ARG_STRLEN (32 pages) */

extern char **environ;

/* A list of n + extra pointers: the n of from, then WL_BIG_PADS strings of WL_BIG_PAD_LEN bytes. */
static inline char **wl_big_list(char *const *from, size_t n, size_t extra)
{
	char **list = calloc(n + WL_BIG_PADS + extra, sizeof(*list));
	size_t i;

	if (!list)
		wl_die("out of memory");
	memcpy(list, from, n * sizeof(*list));
	for (i = 0; i < WL_BIG_PADS; i++) {
		char *v = malloc(WL_BIG_PAD_LEN);

		if (!v)
			wl_die("out of memory");
		memset(v, 'x', WL_BIG_PAD_LEN - 1);
		v[WL_BIG_PAD_LEN - 1] = '\0';
		snprintf(v, 32, "LOCKSTALL_WL_PAD%02zu", i);
		v[strlen(v)] = '=';
		list[n + i] = v;
	}
	return list;
}

/*
 * Re-execute with ~1 MB more environment, or (args) ~1 MB more arguments
 * after a "--" that ends the options, once (the mark in the environment
 * says it is done): reading /proc/<pid>/environ, or cmdline, then takes
 * this process's mmap_lock once per page, ~256 times.
 */
static inline void wl_grow_and_reexec(char **argv, bool args)
{
	size_t n = 0, a = 0;
	char **envp, **nargv = argv;
	char self[4096];
	ssize_t len;

	if (getenv("LOCKSTALL_WL_BIG"))
		return;
	while (environ[n])
		n++;
	if (args) {
		while (argv[a])
			a++;
		nargv = calloc(a + 2, sizeof(*nargv));
		if (!nargv)
			wl_die("out of memory");
		memcpy(nargv, argv, a * sizeof(*nargv));
		nargv[a] = "--";
		nargv = wl_big_list(nargv, a + 1, 1);
		envp = calloc(n + 2, sizeof(*envp));
		if (!envp)
			wl_die("out of memory");
		memcpy(envp, environ, n * sizeof(*envp));
	} else {
		envp = wl_big_list(environ, n, 2);
		n += WL_BIG_PADS;
	}
	envp[n] = WL_BIG_MARK;
	/* By its real path: through /proc/self/exe the process would be named "exe". */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0 || len == sizeof(self) - 1)
		wl_die("readlink /proc/self/exe: %s", len < 0 ? strerror(errno) : "too long");
	self[len] = '\0';
	execve(self, nargv, envp);
	wl_die("re-exec %s, ~1 MB larger: %s", self, strerror(errno));
}

/* The calling thread's own CPU time: work "under a lock" that a preemption stretches. */
static inline uint64_t wl_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * How long cpu has been idle since boot (idle and iowait: its idle task ran),
 * in ns, as /proc/stat counts it (in clock ticks: a truth to the tick); 0 if
 * it cannot be read.
 */
static inline uint64_t wl_cpu_idle_ns(int cpu)
{
	char want[32], line[512];
	unsigned long long user, nice, sys, idle = 0, iowait = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want), "%llu %llu %llu %llu %llu", &user, &nice, &sys, &idle,
			   &iowait) == 5)
			break;
	fclose(f);
	return hz > 0 ? (idle + iowait) * (1000000000ULL / (uint64_t)hz) : 0;
}

/*
 * How long thread tid of this process has waited on a run queue, in ns
 * (schedstat's run_delay: CONFIG_SCHED_INFO); 0 if it cannot be read.
 */
static inline uint64_t wl_run_delay_ns(pid_t tid)
{
	unsigned long long run = 0, delay = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &run, &delay) != 2)
		delay = 0;
	fclose(f);
	return delay;
}

/* Sleep between calls: pacing, so the victim leaves its CPU to others, never a hand-shake. */
static inline void wl_pause(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	if (us)
		nanosleep(&ts, NULL);
}

/* SIGUSR1 kept for wl_await_usr1(): blocked in this thread and every thread it starts after. */
static inline void wl_block_usr1(void)
{
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
}

/* Until SIGUSR1 (blocked in every thread: wl_block_usr1()) or s seconds. */
static inline void wl_await_usr1(double s)
{
	struct timespec left = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigtimedwait(&usr1, NULL, &left);
}

/*
 * Wait until thread tid of this process is asleep in system call nr with
 * first argument arg0, as its /proc/self/task/TID/syscall says ("202
 * 0xADDR ..." in a futex wait on ADDR): a ground truth that a wait has
 * begun, for a test that starts lockstall after it.
 */
static inline void wl_await_syscall(pid_t tid, long nr, uintptr_t arg0)
{
	char path[64], buf[128], *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			wl_die("open %s: %s", path, strerror(errno));
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n < 0)
			wl_die("read %s: %s", path, strerror(errno));
		buf[n] = '\0';
		if (buf[0] != '-' && strtol(buf, &end, 10) == nr &&
		    strtoull(end, NULL, 16) == arg0)
			return;
		wl_pause(1000);
	}
}

/* A value in microseconds, as ns; -1 (no limit) or a file that cannot be read: -1. */
static inline int64_t wl_file_us(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "re");

	if (f && fscanf(f, "%lld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v < 0 ? -1 : v * 1000;
}

/*
 * The RT budget per period of the root group's tasks, in ns: the system's
 * (kernel.sched_rt_runtime_us), or the root cpu cgroup's if lower (with RT
 * groups, cgroup v1); no limit: the whole period.
 */
static inline void wl_rt_budget(uint64_t *runtime_ns, uint64_t *period_ns)
{
	int64_t sys = wl_file_us("/proc/sys/kernel/sched_rt_runtime_us");
	int64_t group = wl_file_us("/sys/fs/cgroup/cpu/cpu.rt_runtime_us");
	int64_t period = wl_file_us("/proc/sys/kernel/sched_rt_period_us");

	if (period < 0)
		wl_die("cannot read /proc/sys/kernel/sched_rt_period_us");
	*period_ns = period;
	*runtime_ns = sys < 0 ? (uint64_t)period : (uint64_t)sys;
	if (group >= 0 && (uint64_t)group < *runtime_ns)
		*runtime_ns = group;
}

/* An RT throttle is a gap of at least a fifth of what a period leaves unbudgeted (>= 2 ms). */
static inline uint64_t wl_rt_throttle_min_ns(uint64_t runtime_ns, uint64_t period_ns)
{
	uint64_t gap = runtime_ns < period_ns ? (period_ns - runtime_ns) / 5 : 0;

	return gap > 2000000ULL ? gap : 2000000ULL;
}

#endif /* LOCKSTALL_WORKLOAD_H */
