// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * io_holder: a holder of a file's inode lock (i_rwsem) that waits on slow
 * I/O with it held while the victim waits for the lock.
 *
 * --cgroup DIR (required): an I/O cgroup made by the caller whose write
 * IOPS on the file's device are limited (v1 blkio.throttle.write_iops_device,
 * v2 io.max wiops), so that each of the holder's writes waits long.
 *
 *  holder   "wl-holder", a child process in DIR (SCHED_OTHER, CPU 1), over
 *           and over: appends one block to the file with O_DIRECT.  An
 *           extending direct write takes the inode's i_rwsem for writing
 *           (ext4, xfs) and, being synchronous, waits for the I/O with it
 *           held; the cgroup's limit makes that wait long.
 *  victim   "wl-victim" (SCHED_FIFO 10, CPU 0) overwrites the file's first
 *           block with O_DIRECT, then pauses: each write needs i_rwsem and
 *           waits for the holder's write in progress.
 *
 * The file lives in /var/tmp (a disk, where O_DIRECT goes to the device);
 * its device goes into the ground truth as MAJOR:MINOR (st_dev) and its
 * disk's name (sysfs), with the holder's writes, each one's start and end
 * (its I/O wait is inside), and the victim's calls.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "workload.h"

#define BLOCK		4096
#define MAX_WRITES	512	/* the holder's writes kept for the truth */
#define VICTIM_PAUSE_US	20000	/* the holder takes the lock again meanwhile */

/* What the holder process measured, sent back over a pipe at its end. */
struct holder_truth {
	pid_t tid;
	uint32_t n;		/* writes, all */
	uint64_t io_ns;		/* time in them, all */
	uint64_t longest_ns;
	uint64_t span[MAX_WRITES][2];	/* the first MAX_WRITES writes: start, end */
};

static void *block_buf(char fill)
{
	void *p;

	if (posix_memalign(&p, BLOCK, BLOCK))
		wl_die("posix_memalign: out of memory");
	memset(p, fill, BLOCK);
	return p;
}

/* The holder process: appends until the parent closes stop_fd, then reports on out_fd. */
static void holder__run(int fd, const char *cgroup, int ready_fd, int stop_fd, int out_fd)
{
	static struct holder_truth t;
	char *buf = block_buf('h');
	uint64_t t0, d;
	off_t off = BLOCK;	/* the victim's block comes first */
	char b;

	wl_join_cgroup(cgroup);
	wl_thread_begin("wl-holder", WL_CPU_LOW, WL_CLASS_NORMAL, &t.tid);
	fcntl(stop_fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		t0 = wl_now_ns();
		if (pwrite(fd, buf, BLOCK, off) != BLOCK)
			wl_die("holder: O_DIRECT write: %s", strerror(errno));
		d = wl_now_ns() - t0;
		off += BLOCK;
		if (t.n < MAX_WRITES) {
			t.span[t.n][0] = t0;
			t.span[t.n][1] = t0 + d;
		}
		t.n++;
		t.io_ns += d;
		if (d > t.longest_ns)
			t.longest_ns = d;
		if (t.n == 1) {	/* at work: one write is done */
			wl_send(ready_fd, &t.tid, sizeof(t.tid));
			close(ready_fd);
		}
		if (read(stop_fd, &b, 1) == 0)
			break;
	}
	wl_send(out_fd, &t, sizeof(t));
	_exit(0);
}

struct victim {
	const struct wl_opts *opts;
	int fd;
	pid_t tid;
	const char *policy;
	struct wl_worst worst;
	uint64_t wait_ns;	/* in its writes, all */
	uint64_t start_ns, end_ns;
};

static void victim__run(struct victim *v)
{
	char *buf = block_buf('v');
	uint64_t t0, t1;

	v->policy = wl_thread_begin("wl-victim", WL_CPU_VICTIM, WL_CLASS_HIGH, &v->tid);
	v->start_ns = wl_now_ns();
	do {
		t0 = wl_now_ns();
		if (pwrite(v->fd, buf, BLOCK, 0) != BLOCK)
			wl_die("victim: O_DIRECT write: %s", strerror(errno));
		t1 = wl_now_ns();
		wl_worst__add(&v->worst, t0, t1, 0);
		v->wait_ns += t1 - t0;
		v->end_ns = t1;
		wl_pause(v->opts->pause_us);
	} while (!wl_done(v->opts, &v->worst, v->start_ns, v->end_ns));
	free(buf);
}

/* A file in /var/tmp opened for direct I/O, its first block written; unlinked. */
static int direct_file(struct stat *st)
{
	char tmpl[] = "/var/tmp/lockstall-io-XXXXXX";
	char *buf = block_buf('v');
	int fd = mkstemp(tmpl), dfd;

	if (fd < 0)
		wl_die("mkstemp: %s", strerror(errno));
	dfd = open(tmpl, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		wl_die("%s: O_DIRECT: %s", tmpl, strerror(errno));
	close(fd);
	unlink(tmpl);
	if (pwrite(dfd, buf, BLOCK, 0) != BLOCK || fstat(dfd, st))
		wl_die("%s: %s", tmpl, strerror(errno));
	free(buf);
	return dfd;
}

/* The name of dev's whole disk, from sysfs (".../block/vda[/vda1]"); "" if not found. */
static void disk_name(dev_t dev, char *out, size_t len)
{
	char path[64], link[512], *p;
	ssize_t n;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	p = strstr(link, "/block/");
	if (!p)
		return;
	p += strlen("/block/");
	snprintf(out, len, "%.*s", (int)strcspn(p, "/\"\\"), p);
}

static void print_truth(const struct victim *v, const struct holder_truth *t, pid_t holder_pid,
			const struct stat *st, const char *cgroup)
{
	uint32_t i, n = t->n < MAX_WRITES ? t->n : MAX_WRITES;
	char disk[64];

	disk_name(st->st_dev, disk, sizeof(disk));
	printf("{\"workload\":\"io_holder\",\"victim_pid\":%d,\"victim_tid\":%d,"
	       "\"victim_policy\":\"%s\",\"holder_pid\":%d,\"holder_tid\":%d,"
	       "\"holder_policy\":\"normal\",\"start_ns\":%llu,\"end_ns\":%llu,\"calls\":%llu,"
	       "\"victim_wait_ns\":%llu,\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,"
	       "\"worst_ns\":%llu,\"device\":\"%u:%u\",\"disk\":\"%s\",\"cgroup_dir\":\"%s\","
	       "\"holder_writes\":%u,\"holder_io_ns\":%llu,\"holder_longest_ns\":%llu,"
	       "\"holder_spans\":[",
	       (int)getpid(), (int)v->tid, v->policy, (int)holder_pid, (int)t->tid,
	       (unsigned long long)v->start_ns, (unsigned long long)v->end_ns,
	       (unsigned long long)v->worst.calls, (unsigned long long)v->wait_ns,
	       (unsigned long long)v->worst.start_ns, (unsigned long long)v->worst.end_ns,
	       (unsigned long long)v->worst.ns, major(st->st_dev), minor(st->st_dev), disk, cgroup,
	       t->n, (unsigned long long)t->io_ns, (unsigned long long)t->longest_ns);
	for (i = 0; i < n; i++)
		printf("%s[%llu,%llu]", i ? "," : "", (unsigned long long)t->span[i][0],
		       (unsigned long long)t->span[i][1]);
	printf("]}\n");
}

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = VICTIM_PAUSE_US };
	static struct holder_truth t;
	struct victim v = { .opts = &opts };
	int ready[2], stop[2], out[2];
	struct wl_child holder = { 0 };
	pid_t parent = getpid();
	struct stat st;

	wl_parse_opts(argc, argv, &opts);
	if (!opts.cgroup || opts.control || opts.swap_exe)
		wl_die("--cgroup DIR is needed (an I/O cgroup with a write limit); no other mode");
	if (strpbrk(opts.cgroup, "\"\\"))
		wl_die("--cgroup %s: no quotes or backslashes, it goes into JSON as it is",
		       opts.cgroup);
	setvbuf(stdout, NULL, _IOLBF, 0);
	v.fd = direct_file(&st);
	if (pipe(ready) || pipe(stop) || pipe(out))
		wl_die("pipe: %s", strerror(errno));
	holder.pid = fork();
	if (holder.pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (holder.pid == 0) {
		wl_child_setup(parent);
		close(ready[0]);
		close(stop[1]);
		close(out[0]);
		holder__run(v.fd, opts.cgroup, ready[1], stop[0], out[1]);
	}
	close(ready[1]);
	close(stop[0]);
	close(out[1]);
	wl_recv(ready[0], &holder.tid, sizeof(holder.tid), "the holder");
	victim__run(&v);
	close(stop[1]);
	wl_recv(out[0], &t, sizeof(t), "the holder");
	while (waitpid(holder.pid, NULL, 0) < 0 && errno == EINTR)
		;
	print_truth(&v, &t, holder.pid, &st, opts.cgroup);
	return 0;
}
