// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * long_hold: a wait on mmap_lock that lasts seconds, for pending stalls.
 *
 *  holder   "wl-holder" (SCHED_IDLE, CPU 1) flips the protection of a
 *           range of -s thousand one-page shared anonymous mappings, over
 *           and over: they never merge (each is its own object), so every
 *           mprotect() rewrites each VMA under mmap_write_lock, tens of
 *           milliseconds of CPU work with the lock held.
 *  hog      "wl-hog", a child process (SCHED_OTHER nice 0, CPU 1) spinning:
 *           the holder gets its CPU a tick now and then, so one mprotect()
 *           holds the lock for seconds.
 *  victim   "wl-victim" (SCHED_FIFO 10, CPU 0) loops mmap() + munmap() of
 *           a small region: each needs the write lock, and waits.
 *
 * Besides the usual ground truth at the end, it prints a line once the
 * victim has been inside one mmap() + munmap() pair for -w milliseconds
 * (default 1500), in one wait or two:
 *	{"workload":"long_hold","waiting":true,"victim_tid":..,"call_start_ns":..,
 *	 "holder_tid":..,"hog_tid":..,"now_ns":..}
 * a test stops lockstall on that line to see a wait still open at its exit.
 * The final line lists every call of 100 ms or more ("waits"), and over the
 * victim's run the idle time of its CPU (victim_cpu_idle_ns, /proc/stat's
 * idle + iowait, to the tick), the victim thread's time off CPU over its
 * whole life, which bounds the idle a stall of it can tell
 * (victim_offcpu_ns), and the holder's time on a run queue
 * (holder_run_delay_ns, schedstat): the truth of the runnable cause, as the
 * holder is pinned to CPU 1 while CPU 0 idles whenever the victim waits.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <sys/mman.h>
#include "workload.h"

#define VICTIM_MAP_LEN	(64 * 1024)
#define MAX_WAITS	64
#define LONG_CALL_NS	100000000ULL
#define WATCH_STEP_NS	20000000L	/* how often main looks at the victim (pacing) */

struct holder {
	char *map;
	size_t len;
	pid_t tid;
	atomic_bool stop;
	uint64_t calls;
	int ready_fd;
	uint64_t delay0_ns;	/* its run queue time before it first takes the lock */
};

struct call {
	uint64_t start_ns, end_ns;
};

struct victim {
	const struct wl_opts *opts;
	struct wl_gate go;
	pid_t tid;
	const char *policy;
	struct wl_worst worst;
	uint64_t cpu_idle_ns;		/* its CPU's idle time while it measured */
	uint64_t born_ns;		/* main's clock before the thread existed */
	uint64_t cpu_ns;		/* its CPU time, all of it, as it ends */
	uint64_t offcpu_ns;		/* its time off CPU, from born_ns to its join */
	uint64_t holder_delay_ns;	/* the holder's time on a run queue, to the victim's join */
	atomic_uint_fast64_t in_call;	/* start of the call in progress; 0: none */
	struct call waits[MAX_WAITS];	/* calls of LONG_CALL_NS or more */
	unsigned int n_waits;
	uint64_t start_ns, end_ns;
};

static void *holder__run(void *arg)
{
	struct holder *h = arg;
	const int prot[2] = { PROT_READ, PROT_READ | PROT_WRITE };

	wl_thread_begin("wl-holder", WL_CPU_LOW, WL_CLASS_LOW, &h->tid);
	h->delay0_ns = wl_run_delay_ns(h->tid);
	/* Ready as it goes in: the hog comes while it is at work under the lock. */
	wl_send(h->ready_fd, &h->tid, sizeof(h->tid));
	close(h->ready_fd);
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		if (mprotect(h->map, h->len, prot[h->calls & 1]))
			wl_die("holder: mprotect: %s", strerror(errno));
		h->calls++;
	}
	return NULL;
}

static void victim__call(struct victim *v)
{
	uint64_t t0 = wl_now_ns(), t1;
	void *p;

	atomic_store(&v->in_call, t0);
	p = mmap(NULL, VICTIM_MAP_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		wl_die("victim: mmap: %s", strerror(errno));
	if (munmap(p, VICTIM_MAP_LEN))
		wl_die("victim: munmap: %s", strerror(errno));
	t1 = wl_now_ns();
	atomic_store(&v->in_call, 0);
	wl_worst__add(&v->worst, t0, t1, 0);
	if (t1 - t0 >= LONG_CALL_NS && v->n_waits < MAX_WAITS)
		v->waits[v->n_waits++] = (struct call){ t0, t1 };
}

static void *victim__run(void *arg)
{
	struct victim *v = arg;

	v->policy = wl_thread_begin("wl-victim", WL_CPU_VICTIM, WL_CLASS_HIGH, &v->tid);
	/*
	 * What it measures with, used once before the gate: the thread's
	 * first malloc() (fopen) maps its arena, which takes the lock for
	 * writing, and waits behind the holder outside any measured call.
	 */
	wl_cpu_idle_ns(WL_CPU_VICTIM);
	wl_thread_cpu_ns();
	wl_gate__wait(&v->go);
	v->start_ns = wl_now_ns();
	v->cpu_idle_ns = wl_cpu_idle_ns(WL_CPU_VICTIM);
	do {
		victim__call(v);
		v->end_ns = wl_now_ns();
		wl_pause(v->opts->pause_us);
	} while (!wl_done(v->opts, &v->worst, v->start_ns, v->end_ns));
	v->cpu_idle_ns = wl_cpu_idle_ns(WL_CPU_VICTIM) - v->cpu_idle_ns;
	atomic_store(&v->in_call, ~0ULL);	/* done: main stops watching */
	v->cpu_ns = wl_thread_cpu_ns();
	return NULL;
}

/*
 * Until the holder sits inside mprotect() with the lock taken (its kernel
 * stack shows mprotect_fixup), so the victim's first call waits for it.
 * Pacing, not a hand-shake: the holder cannot say so itself from in there.
 * Unreadable (not root): the victim starts at once, and waits later.
 */
static void wait_holder_locked(pid_t tid)
{
	struct timespec step = { .tv_nsec = WATCH_STEP_NS / 2 };
	char path[64], buf[4096];
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", (int)tid);
	for (i = 0; i < 3000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n < 0)
			return;
		buf[n] = '\0';
		if (strstr(buf, "mprotect_fixup"))
			return;
		nanosleep(&step, NULL);
	}
}

/* Say once that the victim has been in one call for wait_ms: the line a test stops on. */
static void watch_victim(struct victim *v, const struct holder *h, const struct wl_hog *hog,
			 unsigned long wait_ms)
{
	struct timespec step = { .tv_nsec = WATCH_STEP_NS };
	uint64_t t0, now;

	for (;;) {
		t0 = atomic_load(&v->in_call);
		if (t0 == ~0ULL)
			return;
		now = wl_now_ns();
		if (t0 && now - t0 >= wait_ms * 1000000ULL)
			break;
		nanosleep(&step, NULL);
	}
	printf("{\"workload\":\"long_hold\",\"waiting\":true,\"victim_tid\":%d,\"call_start_ns\":%llu,"
	       "\"holder_tid\":%d,\"hog_tid\":%d,\"now_ns\":%llu}\n", (int)v->tid,
	       (unsigned long long)t0, (int)h->tid, (int)hog->c.tid, (unsigned long long)now);
}

static void print_truth(const struct victim *v, const struct holder *h, const struct wl_hog *hog,
			size_t n_vmas)
{
	unsigned int i;

	printf("{\"workload\":\"long_hold\",\"victim_pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_pid\":%d,\"holder_tid\":%d,\"holder_policy\":\"idle\","
	       "\"hog_pid\":%d,\"hog_tid\":%d,\"vmas\":%zu,\"mprotect_calls\":%llu,"
	       "\"victim_cpu\":%d,\"victim_cpu_idle_ns\":%llu,\"victim_offcpu_ns\":%llu,"
	       "\"holder_cpu\":%d,"
	       "\"holder_run_delay_ns\":%llu,"
	       "\"start_ns\":%llu,\"end_ns\":%llu,\"calls\":%llu,"
	       "\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,\"worst_ns\":%llu,\"waits\":[",
	       (int)getpid(), (int)v->tid, v->policy, (int)getpid(), (int)h->tid,
	       (int)hog->c.pid, (int)hog->c.tid, n_vmas, (unsigned long long)h->calls,
	       WL_CPU_VICTIM, (unsigned long long)v->cpu_idle_ns,
	       (unsigned long long)v->offcpu_ns, WL_CPU_LOW,
	       (unsigned long long)v->holder_delay_ns,
	       (unsigned long long)v->start_ns, (unsigned long long)v->end_ns,
	       (unsigned long long)v->worst.calls, (unsigned long long)v->worst.start_ns,
	       (unsigned long long)v->worst.end_ns, (unsigned long long)v->worst.ns);
	for (i = 0; i < v->n_waits; i++)
		printf("%s{\"start_ns\":%llu,\"end_ns\":%llu}", i ? "," : "",
		       (unsigned long long)v->waits[i].start_ns,
		       (unsigned long long)v->waits[i].end_ns);
	printf("]}\n");
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 1, .pause_us = 1000, .size_mb = 15 };
	unsigned long wait_ms = 1500;
	struct victim v = { .opts = &opts };
	struct holder h = { 0 };
	struct wl_hog hog = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	pthread_t ht, vt;

	/* -w MS is ours: take it out before the common options. */
	if (argc >= 3 && !strcmp(argv[argc - 2], "-w")) {
		wait_ms = strtoul(argv[argc - 1], NULL, 10);
		argc -= 2;
	}
	wl_parse_opts(argc, argv, &opts);
	if (opts.control)
		wl_die("--control: only proc_reader has one");
	if (!opts.size_mb || opts.size_mb > 64)
		wl_die("-s %lu: want 1 to 64 thousand mappings", opts.size_mb);
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Before the mappings exist: fork must not copy them (see wl_hog__fork). */
	wl_hog__fork(&hog, WL_CPU_LOW);
	h.len = opts.size_mb * 1000 * page;
	h.map = wl_unmergeable_map(opts.size_mb * 1000, page);

	wl_gate__init(&v.go);
	v.born_ns = wl_now_ns();
	h.tid = wl_start_threads(&vt, victim__run, &v, &ht, holder__run, &h, &h.ready_fd);
	wl_hog__go(&hog);
	wait_holder_locked(h.tid);
	wl_gate__open(&v.go);

	watch_victim(&v, &h, &hog, wait_ms);
	pthread_join(vt, NULL);
	/*
	 * Wall time less CPU time over the victim's whole life: any wait of
	 * it (a fault on its new stack before it measures, its exit) is in.
	 */
	v.offcpu_ns = (wl_now_ns() - v.born_ns) - v.cpu_ns;
	v.holder_delay_ns = wl_run_delay_ns(h.tid) - h.delay0_ns;
	/* The hog first: the holder needs a CPU to see the stop flag. */
	wl_child__stop(&hog.c);
	atomic_store(&h.stop, true);
	pthread_join(ht, NULL);
	print_truth(&v, &h, &hog, opts.size_mb * 1000);
	return 0;
}
