// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * exec_stall: ground truth for naming a process by both its names in its
 * stalls when it exec'd.
 *
 * The process waits on its own mmap_lock under this program's name, then
 * executes this program again through a symlink named "exec_stalled" (the
 * kernel names a process by the file it executes) and waits again under
 * that name.  Each image:
 *
 *  holder   "wl-holder", a thread flipping the protection of -s thousand
 *           one-page mappings that cannot merge, over and over: each
 *           mprotect() rewrites every VMA under mmap_write_lock.
 *  victim   the main thread, named as the process: -n calls of mmap() +
 *           munmap() of a small region, each as the holder begins an
 *           mprotect(), each needing the write lock: each waits for most
 *           of that mprotect().
 *
 * The first image joins its holder before the exec (an exec ends every
 * other thread), and the second image's waits follow within milliseconds:
 * lockstall saw the process under its first name that recently, so its
 * stalls after the exec must give both names.
 *
 *   exec_stall [-n N] [-s THOUSANDS] [-u MS]     (defaults 20, 24 and 0)
 *
 * -u: each image goes on past N calls until one took MS or more (at most
 * 10 x N calls), for tests that need a stall under each name.
 *
 * Prints one JSON line once the second image is done:
 *   {"workload":"exec_stall","pid":P,"before":"exec_stall","after":"exec_stalled",
 *    "exec_ns":T,"calls":N,"worst_before_ns":..,"worst_after_ns":..}
 * before and after: the names the kernel gave the process (PR_GET_NAME);
 * exec_ns: CLOCK_MONOTONIC just before the exec; the worst are the slowest
 * mmap() + munmap() of each image.
 */
#include <stdatomic.h>
#include "workload.h"

#define AFTER_NAME	"exec_stalled"
#define VICTIM_MAP_LEN	(64 * 1024)

struct holder {
	char *map;
	size_t len;
	atomic_ulong calls;	/* mprotect() calls begun */
	atomic_bool stop;
};

static void *holder__run(void *arg)
{
	struct holder *h = arg;
	const int prot[2] = { PROT_READ, PROT_READ | PROT_WRITE };

	prctl(PR_SET_NAME, "wl-holder");
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed))
		if (mprotect(h->map, h->len, prot[atomic_fetch_add(&h->calls, 1) & 1]))
			wl_die("holder: mprotect: %s", strerror(errno));
	return NULL;
}

/* n calls that each wait for the holder's lock (more for until_ms); the slowest's time. */
static uint64_t phase__run(unsigned long n, unsigned long thousands, unsigned long until_ms)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct holder h = { .len = thousands * 1000 * page };
	uint64_t t0, t1, worst = 0;
	unsigned long i, seen;
	pthread_t th;
	void *p;
	int err;

	h.map = wl_unmergeable_map(thousands * 1000, page);
	err = pthread_create(&th, NULL, holder__run, &h);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	for (i = 0; i < n || (worst < until_ms * 1000000ULL && i < 10 * n); i++) {
		/* each call as the holder begins one: it waits for most of it */
		for (seen = atomic_load(&h.calls); atomic_load(&h.calls) == seen;)
			sched_yield();
		t0 = wl_now_ns();
		p = mmap(NULL, VICTIM_MAP_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			wl_die("victim: mmap: %s", strerror(errno));
		if (munmap(p, VICTIM_MAP_LEN))
			wl_die("victim: munmap: %s", strerror(errno));
		t1 = wl_now_ns();
		if (t1 - t0 > worst)
			worst = t1 - t0;
	}
	atomic_store(&h.stop, true);
	err = pthread_join(th, NULL);
	if (err)
		wl_die("pthread_join: %s", strerror(err));
	return worst;
}

/* The process's name as the kernel has it (both names in the truth are the kernel's). */
static void comm__get(char comm[17])
{
	memset(comm, 0, 17);
	if (prctl(PR_GET_NAME, comm))
		wl_die("PR_GET_NAME: %s", strerror(errno));
}

/* The second image: argv = AFTER_NAME --after DIR N THOUSANDS EXEC_NS WORST_BEFORE BEFORE UNTIL */
static int after__run(char **argv)
{
	unsigned long n = strtoul(argv[3], NULL, 10), thousands = strtoul(argv[4], NULL, 10);
	uint64_t worst = phase__run(n, thousands, strtoul(argv[8], NULL, 10));
	char link[128], after[17];

	comm__get(after);
	snprintf(link, sizeof(link), "%s/" AFTER_NAME, argv[2]);
	unlink(link);
	rmdir(argv[2]);
	printf("{\"workload\":\"exec_stall\",\"pid\":%d,\"before\":\"%s\",\"after\":\"%s\","
	       "\"exec_ns\":%s,\"calls\":%lu,\"worst_before_ns\":%s,\"worst_after_ns\":%llu}\n",
	       (int)getpid(), argv[7], after, argv[5], n, argv[6], (unsigned long long)worst);
	return 0;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/exec_stall-XXXXXX", link[64], a_n[24], a_s[24];
	char a_exec[24], a_worst[24], a_until[24], before[17];
	char *const next[] = { AFTER_NAME, "--after", dir, a_n, a_s, a_exec, a_worst, before, a_until,
			       NULL };
	unsigned long n = 20, thousands = 24, until_ms = 0;
	uint64_t worst;
	int opt;

	if (argc == 9 && !strcmp(argv[1], "--after"))
		return after__run(argv);
	while ((opt = getopt(argc, argv, "n:s:u:")) != -1) {
		if (opt == 'n') {
			n = strtoul(optarg, NULL, 10);
		} else if (opt == 's') {
			thousands = strtoul(optarg, NULL, 10);
		} else if (opt == 'u') {
			until_ms = strtoul(optarg, NULL, 10);
		} else {
			fprintf(stderr, "usage: exec_stall [-n N] [-s THOUSANDS] [-u MS]\n");
			return 2;
		}
	}
	if (!n || !thousands || thousands > 60)
		wl_die("-n and -s must be positive, -s at most 60 (vm.max_map_count)");
	wl_self_link(dir, AFTER_NAME, link, sizeof(link));
	comm__get(before);
	worst = phase__run(n, thousands, until_ms);
	snprintf(a_n, sizeof(a_n), "%lu", n);
	snprintf(a_until, sizeof(a_until), "%lu", until_ms);
	snprintf(a_s, sizeof(a_s), "%lu", thousands);
	snprintf(a_worst, sizeof(a_worst), "%llu", (unsigned long long)worst);
	snprintf(a_exec, sizeof(a_exec), "%llu", (unsigned long long)wl_now_ns());
	execv(link, next);
	wl_die("exec %s: %s", link, strerror(errno));
}
