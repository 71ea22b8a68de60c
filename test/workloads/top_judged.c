// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * top_judged: procps top makes the inversion on a process's mmap_lock, and
 * bpftrace judges it (judge.h), sharing no code with lockstall.
 *
 *  victim   this process, with ~1 MB of arguments; its thread "wl-victim"
 *           (SCHED_FIFO 10, CPU 0) loops mprotect() over 1000 mappings,
 *           1 to 4 ms apart: each rewrites them under its mmap_lock for
 *           writing, long enough that top often queues behind it
 *  holder   "top -b -c -d 0.02 -p VICTIM" (SCHED_IDLE, CPU 1): every 20 ms
 *           it reads /proc/VICTIM/cmdline, a page at a time under the
 *           victim's mmap_lock for reading
 *  hog      "wl-hog" (SCHED_OTHER nice 0, CPU 1), once top runs
 *
 * When the victim lets go of its write lock, the kernel hands the lock to
 * top, queued for reading; top cannot run for the hog, and the victim's
 * next call waits until it does.  One top that lives on, as a monitoring
 * agent does: a process started anew each time (ps) gets its first slice
 * soon, whatever its class, and seldom keeps the lock waiting.
 *
 * The judge times every write wait of the victim on an rwsem
 * (lock:contention_begin to _end) whose owner, as the wait begins, is a
 * reader named top, and writes down who ran on the CPU of top while it sat
 * runnable: woken (the lock handed to it, most often) or preempted.  The
 * workload stops once the judge has seen -n waits of -m ms or more, or
 * after -d seconds, whichever comes first.
 *
 *   top_judged [-n WAITS] [-m MS] [-d SECONDS]        (3, 20, 10)
 *
 * Prints one JSON line:
 *   {"workload":"top_judged","victim_pid":V,"victim_tid":T,"holder_pid":H,
 *    "hog_tid":G,"waits":[...]}
 * waits as judge.h prints them; a wait's lock is the victim's mm (the
 * identity lockstall gives an mmap_lock), its owner top.
 */
#include <pthread.h>
#include <fcntl.h>
#include <sys/mman.h>
#include "judge.h"

#define VICTIM_VMAS	1000
#define VICTIM_PAUSE_US	1000	/* to 4000, at random: no rhythm for ps to fall into step with */

static const char judge_script[] =
	"BEGIN { printf(\"" JUDGE_READY "\\n\"); }\n"
	"tracepoint:lock:contention_begin /comm == \"wl-victim\" && (args->flags & 4)/ {\n"
	"	$o = ((struct rw_semaphore *)args->lock_addr)->owner.counter;\n"
	"	$t = (struct task_struct *)($o & ~7);\n"
	"	if (($o & 1) && $t->comm == \"top\") {\n"
	"		@ws[tid] = nsecs;\n"
	"		@wlock[tid] = (uint64)curtask->mm;\n"
	"		@wowner[tid] = $t->pid;\n"
	"	}\n"
	"}\n"
	"tracepoint:sched:sched_wakeup /args->comm == \"top\"/ {\n"
	"	@off[args->target_cpu] = args->pid;\n"
	"	@since[args->target_cpu] = nsecs;\n"
	"}\n"
	JUDGE_WAIT_END_AND_RAN("args->prev_comm == \"top\"")
	"END { clear(@ws); clear(@wlock); clear(@wowner); clear(@off); clear(@since); }\n";

struct victim {
	struct wl_gate go;
	volatile bool stop;
	pid_t tid;
};

static void *victim__run(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	struct victim *v = arg;
	unsigned int seed = 1;
	char *maps;
	int i;

	wl_thread_begin("wl-victim", WL_CPU_VICTIM, WL_CLASS_HIGH, &v->tid);
	maps = wl_unmergeable_map(VICTIM_VMAS, page);
	wl_gate__wait(&v->go);
	for (i = 0; !v->stop; i++) {
		if (mprotect(maps, VICTIM_VMAS * page, (i & 1) ? PROT_READ | PROT_WRITE : PROT_READ))
			wl_die("mprotect: %s", strerror(errno));
		wl_pause(VICTIM_PAUSE_US + rand_r(&seed) % (3 * VICTIM_PAUSE_US));
	}
	return NULL;
}

/* Start top on the victim, its output thrown away; it runs until killed. */
static pid_t top__start(pid_t victim)
{
	char arg[32];
	pid_t pid;
	int null;

	snprintf(arg, sizeof(arg), "%d", (int)victim);
	pid = wl_fork_pinned("top", WL_CPU_LOW);
	if (pid)
		return pid;
	wl_set_class(WL_CLASS_LOW);
	null = open("/dev/null", O_WRONLY);
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
		wl_die("top: /dev/null: %s", strerror(errno));
	execlp("top", "top", "-b", "-c", "-d", "0.02", "-p", arg, (char *)NULL);
	wl_die("top: %s (is procps installed?)", strerror(errno));
	return -1;
}

/* Wait for top's first read of the victim's command line: under the hog it would start slowly. */
static void top__await_read(pid_t top, pid_t victim)
{
	char path[64], line[256];
	unsigned long long rchar = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)top);
	while (rchar < WL_BIG_PADS * WL_BIG_PAD_LEN) {
		if (waitpid(top, NULL, WNOHANG) == top)
			wl_die("top ended before it read /proc/%d/cmdline", (int)victim);
		wl_pause(10000);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			sscanf(line, "rchar: %llu", &rchar);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	static struct wl_verdicts v;
	struct victim vic = { 0 };
	struct wl_judge j = { 0 };
	struct wl_child top = { 0 };
	struct wl_judged_opts o;
	struct wl_hog hog;
	uint64_t until;
	pthread_t vt;
	size_t n = 0;

	wl_grow_and_reexec(argv, true);
	wl_judged_opts__parse(&o, argc, argv);
	wl_hog__fork(&hog, WL_CPU_LOW);
	top.pid = top__start(getpid());
	top__await_read(top.pid, getpid());
	wl_judge__start(&j, judge_script, (const char *const[]){ o.min_ns, NULL });
	wl_gate__init(&vic.go);
	if (pthread_create(&vt, NULL, victim__run, &vic))
		wl_die("pthread_create: %s", strerror(errno));
	wl_hog__go(&hog);
	wl_gate__open(&vic.go);
	until = wl_now_ns() + o.secs * 1000000000ULL;
	while (n < o.want && wl_now_ns() < until)
		n += wl_judge__take(&j, &v, 10);
	vic.stop = true;
	pthread_join(vt, NULL);
	wl_child__stop(&hog.c);
	wl_child__stop(&top);
	wl_judge__finish(&j, &v);
	printf("{\"workload\":\"top_judged\",\"victim_pid\":%d,\"victim_tid\":%d,"
	       "\"holder_pid\":%d,\"hog_tid\":%d,", (int)getpid(), (int)vic.tid, (int)top.pid,
	       (int)hog.c.tid);
	wl_verdicts__print(&v);
	printf("}\n");
	return 0;
}
