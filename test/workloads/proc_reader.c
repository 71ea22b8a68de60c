// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * proc_reader: a monitoring daemon stalls a real-time thread of another
 * process through that process's mmap_lock.
 *
 *  victim   this process, with ~1 MB of environment; its thread "wl-victim"
 *           (SCHED_FIFO 10, CPU 0) loops mmap() + munmap() of an anonymous
 *           region: each needs the write lock on this process's mmap_lock.
 *  holder   "wl-reader", a child process (SCHED_IDLE, CPU 1) looping read()
 *           of /proc/<victim>/environ: each page of it is copied under the
 *           victim's mmap_read_lock (access_remote_vm), one hold per page.
 *  hog      "wl-hog", a child process (SCHED_OTHER nice 0, CPU 1) spinning.
 *
 * The reader is preempted by the hog while holding the read lock and, being
 * SCHED_IDLE, gets its CPU back only after a long while; the victim's next
 * mmap() or munmap() waits for all of it.
 *
 * The victim pauses 5 ms between calls (-i).  Calling much more often keeps
 * the reader queued behind the victim's writes: it is then woken, owning the
 * lock, every time, and each stall shrinks to about one tick.
 *
 * --control: the same without the hog, every task SCHED_OTHER nice 0 (the
 * victim and the reader still on different CPUs): the reader never sits on
 * the lock, so nothing should look like an inversion.
 *
 * --cgroup DIR: no hog; the reader, SCHED_OTHER nice 0, first joins the
 * cgroup DIR (a cpu controller directory with a small CFS quota, made by
 * the caller), so only the quota keeps it off its CPU.  The ground truth
 * adds DIR's cpu.stat throttle counts over the run.  Before 6.18 a reader
 * out of quota is stopped wherever it is, lock held or not; from 6.18 only
 * on its way back to user space (the task-based throttle model).
 *
 * --split-cgroups DIR: this process in cgroup v2 DIR, the reader in
 * DIR/holder, the hog in DIR/hog (wl_cgroup_move()); the ground truth adds
 * the three paths.
 *
 * --rt: no hog; the reader is SCHED_FIFO 20 and reads on until its CPU's
 * RT budget runs out (sched_rt_runtime_us), so the kernel throttles it,
 * often inside access_remote_vm() with the victim's mmap_lock held (the
 * lock a holder is followed by on every kernel, unlike a futex owner before
 * 6.2).  The ground truth adds the budget and the reads that took at least
 * a throttle's time (wl_rt_throttle_min_ns()), whose sum bounds the time
 * the reader was throttled inside them.
 *
 * --via-mutex: the victim takes a pthread mutex instead (its calls are
 * pthread_mutex_lock()), which "wl-worker" (SCHED_OTHER nice 0, CPU 0)
 * holds while it does the mmap() + munmap() itself: the worker waits for
 * the reader, the victim for the worker.  A chain across two locks whose
 * middle wait ends before the victim's does.  The ground truth adds the
 * worker's tid and the mutex's address.
 *
 * --via-seqfile: the same through a kernel mutex.  The victim and
 * "wl-worker" pread() one open file of /proc/self/smaps_rollup: each read
 * holds the seq_file's mutex while it waits for this process's mmap_lock
 * for reading, which "wl-writer" (SCHED_OTHER nice 0, CPU 0, looping
 * mmap() + munmap()) keeps it from while it waits behind the reader.  The
 * victim waits for the mutex, the worker for the mmap_lock, the writer
 * for the reader.  The ground truth adds the worker's and the writer's
 * tids, and whether the worker was seen in its read before the victim
 * began (worker_in_read).
 */
#include <pthread.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "workload.h"

#define READ_BUF_LEN	(4 << 20)
#define VICTIM_MAP_LEN	(64 * 1024)

struct reader_ready {
	pid_t tid;
	ssize_t bytes;	/* what one read of environ returned */
};

/*
 * One read of the victim's environment: a function of its own, so stack
 * tests (test/e2e/test_stacks.c) can find it below pread() in the reader's
 * user stack, though the workloads are built without frame pointers.
 * Checking the result keeps the call from becoming a tail call.
 */
__attribute__((noinline)) static ssize_t reader__read_environ(int fd, char *buf)
{
	ssize_t n = pread(fd, buf, READ_BUF_LEN, 0);

	if (n < 0)
		wl_die("reader: read environ: %s", strerror(errno));
	return n;
}

/* Join the cgroup dir: the reader's own threads only (it has one). */
static void reader__join(const char *dir)
{
	char path[4096], pid[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die("reader: open %s: %s", path, strerror(errno));
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write(fd, pid, n) != n)
		wl_die("reader: join %s: %s", dir, strerror(errno));
	close(fd);
}

/* The throttle counts of cgroup dir's cpu.stat: v1 throttled_time (ns), v2 throttled_usec. */
struct cg_stat {
	unsigned long long nr_throttled;
	unsigned long long throttled_ns;
};

static void cg_stat__read(const char *dir, struct cg_stat *st)
{
	char path[4096], key[64];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpu.stat", dir);
	f = fopen(path, "re");
	if (!f)
		wl_die("open %s: %s", path, strerror(errno));
	memset(st, 0, sizeof(*st));
	while (fscanf(f, "%63s %llu", key, &v) == 2) {
		if (!strcmp(key, "nr_throttled"))
			st->nr_throttled = v;
		else if (!strcmp(key, "throttled_time"))
			st->throttled_ns = v;
		else if (!strcmp(key, "throttled_usec"))
			st->throttled_ns = v * 1000;
	}
	fclose(f);
}

/* --rt: the reads as long as a throttle, counted by the reader for the parent (shared memory). */
struct slow_reads {
	uint64_t min_ns;
	volatile uint64_t n, ns;
};

static void reader__set_class(const struct wl_opts *o)
{
	if (o->rt) {
		if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ 20 }))
			wl_die("reader: SCHED_FIFO 20: %s", strerror(errno));
		return;
	}
	wl_set_class(o->control || o->cgroup ? WL_CLASS_NORMAL : WL_CLASS_LOW);
}

/* Read forever, counting the reads at least slow->min_ns long. */
static void reader__loop(int fd, char *buf, struct slow_reads *slow)
{
	uint64_t t0, d;

	for (;;) {
		t0 = wl_now_ns();
		reader__read_environ(fd, buf);
		d = wl_now_ns() - t0;
		if (slow && d >= slow->min_ns) {
			slow->ns += d;
			slow->n++;
		}
	}
}

/* The child that plays the monitoring daemon.  Never returns: SIGKILL ends it. */
__attribute__((noinline)) static void reader__run(pid_t victim, const struct wl_opts *o,
						  int ready_fd, struct slow_reads *slow)
{
	struct reader_ready r = { .tid = gettid() };
	char path[64];
	char *buf;
	int fd, err;

	prctl(PR_SET_NAME, "wl-reader");
	if (o->cgroup)
		reader__join(o->cgroup);
	if (o->split_cgroups)
		wl_cgroup_move(o->split_cgroups, "holder", r.tid);
	err = wl_pin_cpu(WL_CPU_LOW);
	if (err)
		wl_die("reader: pin to CPU %d: %s", WL_CPU_LOW, strerror(-err));
	reader__set_class(o);

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)victim);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die("reader: open %s: %s", path, strerror(errno));
	buf = malloc(READ_BUF_LEN);
	if (!buf)
		wl_die("out of memory");
	/* Fault the buffer in now: the reader's own faults are not the point. */
	memset(buf, 0, READ_BUF_LEN);

	r.bytes = reader__read_environ(fd, buf);
	if (r.bytes < WL_BIG_PADS * WL_BIG_PAD_LEN)
		wl_die("reader: read %s: too short", path);
	wl_send(ready_fd, &r, sizeof(r));
	close(ready_fd);
	reader__loop(fd, buf, slow);
}

struct victim {
	const struct wl_opts *opts;
	struct wl_gate go;
	pid_t tid;
	const char *policy;
	struct wl_worst worst;
	const char *worst_op;
	uint64_t start_ns, end_ns;
	pthread_mutex_t *mutex;	/* --via-mutex; else NULL */
	int seq_fd;		/* --via-seqfile; else -1 */
};

/* One mmap() and one munmap(), each timed: needs this process's mmap_lock for write. */
static uint64_t map_unmap(struct wl_worst *worst, const char **worst_op)
{
	uint64_t t0, t1, before = worst ? worst->ns : 0;
	void *p;

	t0 = wl_now_ns();
	p = mmap(NULL, VICTIM_MAP_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t1 = wl_now_ns();
	if (p == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	if (worst) {
		wl_worst__add(worst, t0, t1, 0);
		if (worst->ns != before)
			*worst_op = "mmap";
		before = worst->ns;
	}
	t0 = wl_now_ns();
	if (munmap(p, VICTIM_MAP_LEN))
		wl_die("munmap: %s", strerror(errno));
	t1 = wl_now_ns();
	if (worst) {
		wl_worst__add(worst, t0, t1, 0);
		if (worst->ns != before)
			*worst_op = "munmap";
	}
	return t1;
}

/* --via-mutex: one timed pthread_mutex_lock(), the lock let go at once. */
static uint64_t victim__take_mutex(struct victim *v)
{
	uint64_t t0 = wl_now_ns(), t1, before = v->worst.ns;

	pthread_mutex_lock(v->mutex);
	t1 = wl_now_ns();
	pthread_mutex_unlock(v->mutex);
	wl_worst__add(&v->worst, t0, t1, 0);
	if (v->worst.ns != before)
		v->worst_op = "pthread_mutex_lock";
	return t1;
}

/* --via-seqfile: one read of smaps_rollup from its start, under its seq_file's mutex. */
static void seq__read(int fd)
{
	char buf[4096];

	if (pread(fd, buf, sizeof(buf), 0) < 0)
		wl_die("read smaps_rollup: %s", strerror(errno));
}

/* --via-seqfile: one timed read of the file the worker reads too. */
static uint64_t victim__read_seq(struct victim *v)
{
	uint64_t t0 = wl_now_ns(), t1, before = v->worst.ns;

	seq__read(v->seq_fd);
	t1 = wl_now_ns();
	wl_worst__add(&v->worst, t0, t1, 0);
	if (v->worst.ns != before)
		v->worst_op = "pread";
	return t1;
}

static void *victim__run(void *arg)
{
	struct victim *v = arg;
	uint64_t t1;

	v->policy = wl_thread_begin("wl-victim", WL_CPU_VICTIM,
				    v->opts->control ? WL_CLASS_NORMAL : WL_CLASS_HIGH, &v->tid);
	wl_gate__wait(&v->go);

	v->start_ns = wl_now_ns();
	do {
		t1 = v->mutex ? victim__take_mutex(v) :
		     v->seq_fd >= 0 ? victim__read_seq(v) : map_unmap(&v->worst, &v->worst_op);
		wl_pause(v->opts->pause_us);
	} while (!wl_done(v->opts, &v->worst, v->start_ns, t1));
	v->end_ns = t1;
	return NULL;
}

/*
 * The threads between the victim and the reader: --via-mutex's worker,
 * which does the mmap() + munmap() under the mutex; --via-seqfile's
 * worker, which reads the victim's file, and its writer, which does the
 * mmap() + munmap() alone.
 */
struct worker {
	const char *name;
	pthread_mutex_t *mutex;	/* held around the mmap() + munmap(); or NULL */
	int seq_fd;		/* read instead of mmap() + munmap(); or -1 */
	struct wl_gate go;
	volatile bool stop;
	pid_t tid;
};

static void *worker__run(void *arg)
{
	struct worker *w = arg;

	wl_thread_begin(w->name, WL_CPU_VICTIM, WL_CLASS_NORMAL, &w->tid);
	wl_gate__wait(&w->go);
	while (!w->stop) {
		if (w->seq_fd >= 0) {
			seq__read(w->seq_fd);
		} else {
			if (w->mutex)
				pthread_mutex_lock(w->mutex);
			map_unmap(NULL, NULL);
			if (w->mutex)
				pthread_mutex_unlock(w->mutex);
		}
		wl_pause(1000);
	}
	return NULL;
}

/* The middle threads of --via-mutex (one) or --via-seqfile (two). */
struct workers {
	struct worker w[2];
	pthread_t thread[2];
	size_t n;
};

static void workers__start(struct workers *ws)
{
	size_t i;
	int err;

	for (i = 0; i < ws->n; i++) {
		wl_gate__init(&ws->w[i].go);
		err = pthread_create(&ws->thread[i], NULL, worker__run, &ws->w[i]);
		if (err)
			wl_die("pthread_create: %s", strerror(err));
	}
}

static void workers__go(struct workers *ws)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		wl_gate__open(&ws->w[i].go);
}

/* Whether thread tid of this process is inside a pread64() (/proc/self/task/TID/syscall). */
static bool thread_in_pread(pid_t tid)
{
	char path[64], buf[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && strtol(buf, NULL, 10) == SYS_pread64;
}

/*
 * --via-seqfile: the victim may start once the worker is in its read, which
 * then holds the seq_file's mutex for as long as the reader keeps the
 * mmap_lock; else the victim's read could take the mutex first and wait
 * for the mmap_lock itself.  Whether that was seen goes into the truth.
 */
static bool workers__wait_in_read(const struct worker *w)
{
	int i;

	for (i = 0; i < 5000; i++) {
		pid_t tid = __atomic_load_n(&w->tid, __ATOMIC_RELAXED);

		if (tid && thread_in_pread(tid))
			return true;
		wl_pause(1000);
	}
	return false;
}

static void workers__stop(struct workers *ws)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		ws->w[i].stop = true;
	for (i = 0; i < ws->n; i++)
		pthread_join(ws->thread[i], NULL);
}

/*
 * --via-mutex and --via-seqfile from the command line: the victim's lock,
 * the workers'.
 */
static void workers__parse(struct workers *ws, struct victim *v, int *argc, char **argv)
{
	static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

	ws->w[0] = (struct worker){ .name = "wl-worker", .seq_fd = -1 };
	ws->w[1] = (struct worker){ .name = "wl-writer", .seq_fd = -1 };
	v->seq_fd = -1;
	if (wl_take_flag(argc, argv, "--via-mutex")) {
		v->mutex = ws->w[0].mutex = &mutex;
		ws->n = 1;
	}
	if (wl_take_flag(argc, argv, "--via-seqfile")) {
		v->seq_fd = open("/proc/self/smaps_rollup", O_RDONLY | O_CLOEXEC);
		if (v->seq_fd < 0)
			wl_die("open /proc/self/smaps_rollup: %s", strerror(errno));
		ws->w[0].seq_fd = v->seq_fd;
		ws->n = 2;
	}
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 5000 };
	struct victim v = { .opts = &opts, .worst_op = "none" };
	struct workers ws = { 0 };
	struct wl_child reader = { 0 };
	struct wl_hog hog = { 0 };
	struct reader_ready rr;
	struct cg_stat cg0 = { 0 }, cg1 = { 0 };
	struct slow_reads *slow = NULL, slow_at_end = { 0 };
	uint64_t rt_runtime = 0, rt_period = 0;
	char cgroups[1024] = "";
	bool worker_in_read = false;
	pthread_t thread;
	int ready[2], err;

	/* first: the process that goes on is the one exec'd with this argv */
	wl_grow_and_reexec(argv, false);
	workers__parse(&ws, &v, &argc, argv);
	wl_parse_opts(argc, argv, &opts);
	/* Our own output must not wait in a pipe's buffer behind a SIGKILL. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opts.split_cgroups)
		wl_join_cgroup(opts.split_cgroups);

	wl_gate__init(&v.go);
	workers__start(&ws);
	err = pthread_create(&thread, NULL, victim__run, &v);
	if (err)
		wl_die("pthread_create: %s", strerror(err));

	/*
	 * The middle threads before the reader: from its first hold on, with
	 * the writer queued behind it, any fault of theirs on the way to their
	 * loop (a thread's first touch of its stack) would wait for it too.
	 */
	workers__go(&ws);
	/*
	 * The reader before the hog: under a running hog a SCHED_IDLE task
	 * would take seconds to even get going.  It is reading when it says
	 * it is ready.
	 */
	if (opts.rt) {
		slow = mmap(NULL, sizeof(*slow), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			    -1, 0);
		if (slow == MAP_FAILED)
			wl_die("mmap: %s", strerror(errno));
		wl_rt_budget(&rt_runtime, &rt_period);
		slow->min_ns = wl_rt_throttle_min_ns(rt_runtime, rt_period);
	}
	if (pipe(ready))
		wl_die("pipe: %s", strerror(errno));
	reader.pid = fork();
	if (reader.pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (reader.pid == 0) {
		close(ready[0]);
		wl_child_setup(getppid());
		reader__run(getppid(), &opts, ready[1], slow);
	}
	close(ready[1]);
	wl_recv(ready[0], &rr, sizeof(rr), "the reader");
	close(ready[0]);
	reader.tid = rr.tid;

	if (!opts.control && !opts.cgroup && !opts.rt) {
		wl_hog__fork(&hog, WL_CPU_LOW);
		if (opts.split_cgroups)
			wl_cgroup_move(opts.split_cgroups, "hog", hog.c.pid);
		wl_hog__go(&hog);
	}

	/* Everyone else is at work: the victim may start measuring. */
	if (opts.cgroup)
		cg_stat__read(opts.cgroup, &cg0);
	if (v.seq_fd >= 0)
		worker_in_read = workers__wait_in_read(&ws.w[0]);
	wl_gate__open(&v.go);
	pthread_join(thread, NULL);
	workers__stop(&ws);
	if (opts.cgroup)
		cg_stat__read(opts.cgroup, &cg1);
	if (slow)
		slow_at_end = (struct slow_reads){ .min_ns = slow->min_ns, .n = slow->n, .ns = slow->ns };
	if (hog.c.pid)
		wl_split_cgroups_truth(opts.split_cgroups, getpid(), reader.tid, hog.c.pid, cgroups,
				       sizeof(cgroups));

	/* The hog first: the reader needs a CPU to die on. */
	wl_child__stop(&hog.c);
	wl_child__stop(&reader);

	printf("{\"workload\":\"%s\",\"victim_pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_pid\":%d,\"holder_tid\":%d,\"holder_policy\":\"%s\","
	       "\"hog_pid\":%d,\"hog_tid\":%d,\"environ_bytes\":%zd,"
	       "\"start_ns\":%llu,\"end_ns\":%llu,\"calls\":%llu,\"over_5ms\":%llu,"
	       "\"worst_op\":\"%s\",\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,\"worst_ns\":%llu,"
	       "\"cg_nr_throttled\":%llu,\"cg_throttled_ns\":%llu,"
	       "\"rt_runtime_ns\":%llu,\"rt_period_ns\":%llu,\"slow_reads\":%llu,"
	       "\"slow_read_ns\":%llu,\"via_mutex\":%s,\"via_seqfile\":%s,\"worker_tid\":%d,"
	       "\"writer_tid\":%d,\"worker_in_read\":%s,\"mutex\":\"0x%llx\"%s}\n",
	       opts.control ? "control" : opts.cgroup ? "throttled" : opts.rt ? "rt_throttled" :
	       "proc_reader", (int)getpid(), (int)v.tid, v.policy,
	       (int)reader.pid, (int)reader.tid,
	       opts.rt ? "fifo" : opts.control || opts.cgroup ? "normal" : "idle",
	       (int)hog.c.pid, (int)hog.c.tid, rr.bytes,
	       (unsigned long long)v.start_ns, (unsigned long long)v.end_ns,
	       (unsigned long long)v.worst.calls, (unsigned long long)v.worst.over_5ms,
	       v.worst_op, (unsigned long long)v.worst.start_ns,
	       (unsigned long long)v.worst.end_ns, (unsigned long long)v.worst.ns,
	       cg1.nr_throttled - cg0.nr_throttled, cg1.throttled_ns - cg0.throttled_ns,
	       (unsigned long long)rt_runtime, (unsigned long long)rt_period,
	       (unsigned long long)slow_at_end.n, (unsigned long long)slow_at_end.ns,
	       v.mutex ? "true" : "false", v.seq_fd >= 0 ? "true" : "false", (int)ws.w[0].tid,
	       (int)ws.w[1].tid, worker_in_read ? "true" : "false",
	       (unsigned long long)(uintptr_t)ws.w[0].mutex, cgroups);
	return 0;
}
