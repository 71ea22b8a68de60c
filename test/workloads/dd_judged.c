// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dd_judged: coreutils dd makes the inversion on a file's i_rwsem, and
 * bpftrace judges it (judge.h), sharing no code with lockstall.
 *
 *  victim   dd (SCHED_FIFO 10, CPU 0) appending 4 KB blocks to a file in
 *           /var/tmp, one block from this process every 5 ms through a pipe
 *  holder   dd (SCHED_OTHER nice 19, CPU 1) writing 1 MB blocks over the
 *           same file: each write() holds the file's i_rwsem for writing
 *  hog      "wl-hog" (SCHED_OTHER nice -5, CPU 1), once the holder writes
 *
 * The hog preempts the holder inside its write() and, at 200 times its
 * weight, keeps it off its CPU for long; the victim's next append waits on
 * the i_rwsem all that time.  The hog's weight is also three times a nice 0
 * task's, so that it, not whatever else runs on CPU 1, mostly takes the
 * holder's place.
 *
 * The judge times every rwsem wait of a SCHED_FIFO dd (lock:contention_begin
 * to _end), reads the lock's owner from the rw_semaphore as the wait begins,
 * and writes down who ran on the holder's CPU while the holder (any nice 19
 * dd) sat runnable: switched out in state 0, or TASK_REPORT_MAX (preempted).
 * The workload stops once the judge has seen -n waits of -m ms or more, or
 * after -d seconds, whichever comes first.
 *
 *   dd_judged [-n WAITS] [-m MS] [-d SECONDS]        (3, 20, 10)
 *
 * Prints one JSON line:
 *   {"workload":"dd_judged","victim_pid":V,"holder_pid":H,"hog_tid":G,
 *    "waits":[{"tid":T,"owner":O,"lock":"0x..","start_ns":A,"end_ns":B,
 *              "ran_ns":R,"top_tid":P,"top_ns":N,"next_ns":X},...]}
 * A wait's owner is the i_rwsem's writer as the wait began; ran_ns is how
 * long others ran on the holder's CPU while it sat runnable inside the wait,
 * top_tid the one of them that ran longest, top_ns how long, next_ns how
 * long the runner-up ran.
 */
#include <sys/stat.h>
#include "judge.h"

#define HOLDER_NICE	19
#define HOG_NICE	(-5)
#define VICTIM_BLOCK	4096

static const char judge_script[] =
	"BEGIN { printf(\"" JUDGE_READY "\\n\"); }\n"
	"tracepoint:lock:contention_begin\n"
	"/comm == \"dd\" && curtask->policy == 1 && (args->flags & 6)/ {\n"
	"	$o = ((struct rw_semaphore *)args->lock_addr)->owner.counter;\n"
	"	@ws[tid] = nsecs;\n"
	"	@wlock[tid] = args->lock_addr;\n"
	"	@wowner[tid] = ((struct task_struct *)($o & ~7))->pid;\n"
	"}\n"
	JUDGE_WAIT_END_AND_RAN("comm == \"dd\" && curtask->static_prio == 139")
	"END { clear(@ws); clear(@wlock); clear(@wowner); clear(@off); clear(@since); }\n";

/* Exec dd with args, pinned to cpu; in_fd (or -1) as its stdin. */
static pid_t dd__start(const char *const args[], int cpu, int policy, int prio, int in_fd)
{
	const char *argv[8] = { "dd" };
	pid_t pid;
	int i;

	for (i = 0; i < 6 && args[i]; i++)
		argv[1 + i] = args[i];
	pid = wl_fork_pinned("dd", cpu);
	if (pid)
		return pid;
	if (policy == SCHED_FIFO ?
	    sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ prio }) :
	    setpriority(PRIO_PROCESS, 0, prio))
		wl_die("dd: scheduling class: %s", strerror(errno));
	if (in_fd >= 0 && dup2(in_fd, STDIN_FILENO) < 0)
		wl_die("dup2: %s", strerror(errno));
	execvp("dd", (char *const *)argv);
	wl_die("dd: %s", strerror(errno));
	return -1;
}

/* Wait for the holder's first write: a nice 19 task under the hog would take long to start. */
static void file__await_data(const char *path, pid_t writer)
{
	struct stat st;

	while (!stat(path, &st) && !st.st_size) {
		if (waitpid(writer, NULL, WNOHANG) == writer)
			wl_die("the holder's dd ended before it wrote");
		wl_pause(1000);
	}
}

struct run {
	char path[64], of[80];
	pid_t victim, holder;
	struct wl_hog hog;
	int feed;	/* the victim's stdin */
};

static void run__start(struct run *r)
{
	const char *const victim[] = { r->of, "bs=4k", "iflag=fullblock", "oflag=append",
				       "conv=notrunc", "status=none", NULL };
	const char *const holder[] = { "if=/dev/zero", r->of, "bs=1M", "count=100000",
				       "conv=notrunc", "status=none", NULL };
	int fd, p[2];

	snprintf(r->path, sizeof(r->path), "/var/tmp/lockstall-dd.XXXXXX");
	fd = mkstemp(r->path);
	if (fd < 0)
		wl_die("mkstemp %s: %s", r->path, strerror(errno));
	close(fd);
	snprintf(r->of, sizeof(r->of), "of=%s", r->path);
	wl_hog__fork(&r->hog, WL_CPU_LOW);
	/* close-on-exec: the dds must not hold the victim's end of it open */
	if (pipe2(p, O_CLOEXEC))
		wl_die("pipe: %s", strerror(errno));
	r->victim = dd__start(victim, WL_CPU_VICTIM, SCHED_FIFO, WL_VICTIM_RT_PRIO, p[0]);
	close(p[0]);
	r->feed = p[1];
	/* the victim may sit on the lock a long while: this process must not wait with it */
	fcntl(r->feed, F_SETFL, O_NONBLOCK);
	r->holder = dd__start(holder, WL_CPU_LOW, SCHED_OTHER, HOLDER_NICE, -1);
	file__await_data(r->path, r->holder);
	wl_hog__go(&r->hog);
	/* after its go: the hog sets its own nice 0 before that */
	if (setpriority(PRIO_PROCESS, r->hog.c.tid, HOG_NICE))
		wl_die("hog: nice %d: %s", HOG_NICE, strerror(errno));
}

/* The hog first, so that the holder can let go; then the dds. */
static void run__stop(struct run *r)
{
	wl_child__stop(&r->hog.c);
	kill(r->holder, SIGKILL);
	close(r->feed);
	while (waitpid(r->holder, NULL, 0) < 0 && errno == EINTR)
		;
	while (waitpid(r->victim, NULL, 0) < 0 && errno == EINTR)
		;
	unlink(r->path);
}

/* Feed the victim a block every 5 ms and take the judge's lines, until enough waits or time. */
static void run__feed(struct run *r, struct wl_judge *j, struct wl_verdicts *v, size_t want,
		      uint64_t until_ns)
{
	static const char block[VICTIM_BLOCK];
	size_t n = 0;

	while (n < want && wl_now_ns() < until_ns) {
		if (write(r->feed, block, sizeof(block)) < 0 && errno != EAGAIN)
			wl_die("the victim's pipe: %s", strerror(errno));
		n += wl_judge__take(j, v, 5);
	}
}

int main(int argc, char **argv)
{
	static struct wl_verdicts v;
	struct wl_judge j = { 0 };
	struct run r = { 0 };
	struct wl_judged_opts o;

	wl_judged_opts__parse(&o, argc, argv);
	wl_judge__start(&j, judge_script, (const char *const[]){ o.min_ns, NULL });
	run__start(&r);
	run__feed(&r, &j, &v, o.want, wl_now_ns() + o.secs * 1000000000ULL);
	run__stop(&r);
	wl_judge__finish(&j, &v);
	printf("{\"workload\":\"dd_judged\",\"victim_pid\":%d,\"holder_pid\":%d,\"hog_tid\":%d,",
	       (int)r.victim, (int)r.holder, (int)r.hog.c.tid);
	wl_verdicts__print(&v);
	printf("}\n");
	return 0;
}
