// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mprotect_fault: inside one process, an unimportant thread's mprotect()
 * stalls an important thread's page faults.
 *
 *  holder   "wl-mprotect" (SCHED_IDLE, CPU 1) flips a large populated
 *           anonymous mapping between read-write and read-only, over and
 *           over: mprotect() takes mmap_write_lock, write-locks the VMA, and
 *           rewrites every PTE, long enough to be preempted in the middle.
 *  hog      "wl-hog", a child process (SCHED_OTHER nice 0, CPU 1) spinning.
 *  victim   "wl-victim" (SCHED_FIFO 10, CPU 0) reads pages of the same
 *           mapping that are not present yet: each read is a page fault.
 *           The per-VMA lock fails while mprotect has the VMA write-locked,
 *           so the fault falls back to mmap_read_lock and waits for the
 *           preempted mprotect() to finish.
 *
 * The mapping sits between two PROT_NONE guard pages, so that changing its
 * protection never merges it with a neighbour or splits it: the victim
 * always faults in the VMA the holder is working on.  The first part of the
 * mapping is populated (that is what makes mprotect slow); the victim reads
 * the last part, one new page per access, and gives the pages back with
 * MADV_DONTNEED when it reaches the end (that call is not measured).
 *
 * Why 512 MB by default: a SCHED_IDLE thread under a hog runs a tick or so
 * about once a second.  An mprotect() of half that fits in one such turn
 * and is never preempted inside; 512 MB does not, so the holder is
 * preempted with the VMA write-locked.  (A
 * write lock handed to the holder while it is not running stalls nobody's
 * faults yet: the VMA is write-locked only once mprotect() runs.)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include "swap_exe.h"

#define FAULT_AREA_MB	16

struct holder {
	char *map;
	size_t len;
	pid_t tid;
	atomic_bool stop;
	uint64_t calls;
	int ready_fd;
};

/*
 * Functions of their own, kept out of line, for the stack tests: the
 * holder's user stack shows holder__flip below mprotect, the victim's
 * victim__touch at the fault (test/e2e/test_watch.c).
 */
__attribute__((noinline, noipa)) static void holder__flip(struct holder *h, int prot)
{
	if (mprotect(h->map, h->len, prot))
		wl_die("holder: mprotect: %s", strerror(errno));
}

__attribute__((noinline, noipa)) static char victim__touch(volatile char *p)
{
	return *p;	/* not present: a read fault */
}

static void *holder__run(void *arg)
{
	struct holder *h = arg;
	const int prot[2] = { PROT_READ, PROT_READ | PROT_WRITE };

	wl_thread_begin("wl-mprotect", WL_CPU_LOW, WL_CLASS_LOW, &h->tid);
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		holder__flip(h, prot[h->calls & 1]);
		/* Ready once a full read-only + read-write round went through. */
		if (++h->calls == 2) {
			wl_send(h->ready_fd, &h->tid, sizeof(h->tid));
			close(h->ready_fd);
		}
	}
	return NULL;
}

struct victim {
	const struct wl_opts *opts;
	struct wl_gate go;
	char *area;		/* where it faults */
	size_t area_len;
	pid_t tid;
	const char *policy;
	struct wl_worst worst;
	uint64_t start_ns, end_ns;
};

static void *victim__run(void *arg)
{
	struct victim *v = arg;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t t0, t1;
	size_t off = 0;

	v->policy = wl_thread_begin("wl-victim", WL_CPU_VICTIM, WL_CLASS_HIGH, &v->tid);
	wl_gate__wait(&v->go);

	v->start_ns = wl_now_ns();
	do {
		volatile char *p = v->area + off;

		t0 = wl_now_ns();
		(void)victim__touch(p);
		t1 = wl_now_ns();
		wl_worst__add(&v->worst, t0, t1, (uintptr_t)p);

		off += page;
		if (off == v->area_len) {
			if (madvise(v->area, v->area_len, MADV_DONTNEED))
				wl_die("victim: madvise: %s", strerror(errno));
			off = 0;
		}
		wl_pause(v->opts->pause_us);
	} while (!wl_done(v->opts, &v->worst, v->start_ns, t1));
	v->end_ns = t1;
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 100, .size_mb = 512 };
	struct victim v = { .opts = &opts };
	struct holder h = { 0 };
	struct wl_hog hog = { 0 };
	struct wl_swap swap = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	pthread_t ht, vt;
	int ready[2], err;
	char *base;
	size_t i;

	wl_parse_opts(argc, argv, &opts);
	if (opts.control)
		wl_die("--control: only proc_reader has one");
	if (opts.size_mb < 2 * FAULT_AREA_MB)
		wl_die("-s %lu: want at least %d MB", opts.size_mb, 2 * FAULT_AREA_MB);
	setvbuf(stdout, NULL, _IOLBF, 0);
	wl_swap__exec(&swap, &opts, argv);

	/* Before the mapping exists: fork must not copy it (see wl_hog__fork). */
	wl_hog__fork(&hog, WL_CPU_LOW);

	h.len = opts.size_mb << 20;
	base = mmap(NULL, h.len + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	if (base == MAP_FAILED)
		wl_die("mmap %lu MB: %s", opts.size_mb, strerror(errno));
	h.map = base + page;
	if (mprotect(h.map, h.len, PROT_READ | PROT_WRITE))
		wl_die("mprotect: %s", strerror(errno));
	/*
	 * 4 KiB pages: many PTEs for mprotect to rewrite, one fault per victim
	 * read.  EINVAL: a kernel without THP (6.1's PREEMPT_RT, where THP
	 * depends on !PREEMPT_RT), whose pages are all 4 KiB anyway.
	 */
	if (madvise(h.map, h.len, MADV_NOHUGEPAGE) && errno != EINVAL)
		wl_die("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
	v.area_len = (size_t)FAULT_AREA_MB << 20;
	v.area = h.map + h.len - v.area_len;
	for (i = 0; i < h.len - v.area_len; i += page)
		h.map[i] = 1;

	/*
	 * The clock's vDSO data pages are mapped at their first read, by a
	 * fault that takes mmap_lock: read it now, or the victim's first
	 * clock read may wait behind the holder's mprotect(), a stall
	 * outside the area that the test cannot match to a touch.
	 */
	(void)wl_now_ns();
	wl_gate__init(&v.go);
	err = pthread_create(&vt, NULL, victim__run, &v);
	if (err)
		wl_die("pthread_create: %s", strerror(err));

	if (pipe(ready))
		wl_die("pipe: %s", strerror(errno));
	h.ready_fd = ready[1];
	err = pthread_create(&ht, NULL, holder__run, &h);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	wl_recv(ready[0], &h.tid, sizeof(h.tid), "the mprotect thread");
	close(ready[0]);
	wl_hog__go(&hog);

	/* The holder is at work, the hog too: the victim may start measuring. */
	wl_swap__go(&swap, &opts);
	wl_gate__open(&v.go);
	pthread_join(vt, NULL);

	/* The hog first: the holder needs a CPU to see the stop flag. */
	wl_child__stop(&hog.c);
	atomic_store(&h.stop, true);
	pthread_join(ht, NULL);
	wl_swap__stop(&swap);

	printf("{\"workload\":\"mprotect_fault\",\"victim_pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_pid\":%d,\"holder_tid\":%d,\"holder_policy\":\"idle\","
	       "\"hog_pid\":%d,\"hog_tid\":%d,\"map_start\":%llu,\"map_end\":%llu,"
	       "\"fault_start\":%llu,\"fault_end\":%llu,\"mprotect_calls\":%llu,"
	       "\"start_ns\":%llu,\"end_ns\":%llu,\"calls\":%llu,\"over_5ms\":%llu,"
	       "\"worst_addr\":%llu,\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,\"worst_ns\":%llu,"
	       "\"exe_swaps\":%llu",
	       (int)getpid(), (int)v.tid, v.policy, (int)getpid(), (int)h.tid,
	       (int)hog.c.pid, (int)hog.c.tid,
	       (unsigned long long)(uintptr_t)h.map, (unsigned long long)(uintptr_t)(h.map + h.len),
	       (unsigned long long)(uintptr_t)v.area,
	       (unsigned long long)(uintptr_t)(v.area + v.area_len),
	       (unsigned long long)h.calls,
	       (unsigned long long)v.start_ns, (unsigned long long)v.end_ns,
	       (unsigned long long)v.worst.calls, (unsigned long long)v.worst.over_5ms,
	       (unsigned long long)v.worst.addr, (unsigned long long)v.worst.start_ns,
	       (unsigned long long)v.worst.end_ns, (unsigned long long)v.worst.ns,
	       (unsigned long long)swap.swaps);
	wl_worst__print_slow(&v.worst);
	printf("}\n");
	munmap(base, h.len + 2 * page);
	return 0;
}
