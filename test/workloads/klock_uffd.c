// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * klock_uffd: a real-time thread stalls on a kernel lock that a SCHED_IDLE
 * thread holds while it sleeps in the kernel.
 *
 *  holder   "wl-holder" (SCHED_IDLE): write(2)s a page from a buffer that
 *           is registered with userfaultfd and not there yet.  The copy
 *           from user space faults under the lock the write takes, and the
 *           fault sleeps until the handler fills the page.
 *  handler  "wl-uffd": reads the fault event (so the holder holds the lock
 *           from now on), lets the victim go, waits HOLD_MS, fills the page.
 *  victim   "wl-victim" (SCHED_FIFO 10): writes one byte to the same file,
 *           which takes the same lock: it waits for the rest of HOLD_MS.
 *
 * --lock pipe (default): a pipe, whose pipe->mutex pipe_write() holds (a
 * kernel mutex).  --lock file: a file in $TMPDIR (default /tmp), opened
 * twice (one struct file would have the victim wait on its f_pos_lock
 * mutex instead), whose inode->i_rwsem a buffered write holds for write
 * (a writer-owned rwsem).
 * --lock dir: the holder lists a directory with getdents64(2) into the
 * faulting buffer, which holds the directory's i_rwsem for read, and the
 * victim makes a file in it (i_rwsem for write): a reader-owned rwsem.
 *
 * ROUNDS rounds, one fresh page each.  Ground truth: one JSON line on
 * stdout (workload.h): the tids, the lock, and the victim's slowest write.
 *
 * --hold-all: one round whose hold lasts until SIGUSR1 (or 600 s): once
 * the victim sleeps in its call, a first line says so ("victim_waits"),
 * for a test that starts lockstall only then.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <dirent.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "workload.h"

#define ROUNDS		5
#define HOLD_MS		60	/* the holder sleeps this long under the lock */
#define PAGE		4096
#define HOLD_ALL_S	600	/* --hold-all: SIGUSR1 ends the hold sooner */

enum lock_kind { LOCK_PIPE, LOCK_FILE, LOCK_DIR };

struct shared {
	enum lock_kind kind;
	int rounds;		/* ROUNDS, or 1 with --hold-all */
	bool hold_all;
	int uffd;
	int fd;			/* the pipe's write end, or the file */
	int vfd;		/* the victim's: the same, or the file opened again */
	int dirfd;		/* LOCK_DIR: the directory */
	char dir[4096];		/* ... and its path, removed at the end */
	char *area;		/* ROUNDS pages registered with userfaultfd */
	struct wl_gate go_victim[ROUNDS], victim_done[ROUNDS];
	pid_t victim_tid, holder_tid, handler_tid;
	const char *victim_policy;
	struct wl_worst worst;
	uint64_t hold_start_ns[ROUNDS], hold_end_ns[ROUNDS];
	uint64_t victim_start_ns[ROUNDS];
};

static void *holder__run(void *arg)
{
	struct shared *s = arg;
	ssize_t n;
	int i;

	wl_thread_begin("wl-holder", WL_CPU_LOW, WL_CLASS_LOW, &s->holder_tid);
	for (i = 0; i < s->rounds; i++) {
		if (s->kind == LOCK_DIR) {
			lseek(s->dirfd, 0, SEEK_SET);
			n = syscall(SYS_getdents64, s->dirfd, s->area + i * PAGE, PAGE);
		} else {
			n = write(s->fd, s->area + i * PAGE, PAGE);
		}
		if (n <= 0)
			wl_die("holder: %s: %s", s->kind == LOCK_DIR ? "getdents64" : "write",
			       n < 0 ? strerror(errno) : "nothing");
		/* The victim's call ends only after ours: wait for it before the next round. */
		wl_gate__wait(&s->victim_done[i]);
	}
	return NULL;
}

static void victim__call(struct shared *s, int i)
{
	char name[32];
	int fd;

	if (s->kind != LOCK_DIR) {
		if (write(s->vfd, "v", 1) != 1)
			wl_die("victim: write: %s", strerror(errno));
		return;
	}
	snprintf(name, sizeof(name), "victim-%d", i);
	fd = openat(s->dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		wl_die("victim: create %s: %s", name, strerror(errno));
	close(fd);
	unlinkat(s->dirfd, name, 0);
}

static void *victim__run(void *arg)
{
	struct shared *s = arg;
	uint64_t t0, t1;
	int i;

	s->victim_policy = wl_thread_begin("wl-victim", WL_CPU_VICTIM, WL_CLASS_HIGH, &s->victim_tid);
	for (i = 0; i < s->rounds; i++) {
		wl_gate__wait(&s->go_victim[i]);
		t0 = wl_now_ns();
		s->victim_start_ns[i] = t0;
		victim__call(s, i);
		t1 = wl_now_ns();
		wl_worst__add(&s->worst, t0, t1, 0);
		wl_gate__open(&s->victim_done[i]);
	}
	return NULL;
}

/*
 * --hold-all: once the victim sleeps in its call (said on stdout), until
 * SIGUSR1 (blocked in every thread: main()) or HOLD_ALL_S.
 */
static void handler__hold_all(struct shared *s)
{
	while (!__atomic_load_n(&s->victim_tid, __ATOMIC_ACQUIRE))
		wl_pause(1000);
	/* LOCK_DIR's victim makes a file (openat), the others write(2) one byte */
	wl_await_syscall(s->victim_tid, s->kind == LOCK_DIR ? SYS_openat : SYS_write,
			 s->kind == LOCK_DIR ? (uintptr_t)s->dirfd : (uintptr_t)s->vfd);
	printf("{\"victim_waits\":true,\"pid\":%d,\"victim_tid\":%d,\"holder_tid\":%d,"
	       "\"wait_ns\":%llu}\n", (int)getpid(), (int)s->victim_tid, (int)s->holder_tid,
	       (unsigned long long)wl_now_ns());
	wl_await_usr1(HOLD_ALL_S);
}

/* One fault: the holder is in it, under the lock, until the page is filled. */
static void handler__round(struct shared *s, int i)
{
	static char page[PAGE];
	struct uffd_msg msg;
	struct uffdio_copy copy;
	struct timespec hold = { .tv_sec = 0, .tv_nsec = HOLD_MS * 1000000L };
	ssize_t n;

	do
		n = read(s->uffd, &msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
		wl_die("userfaultfd read: %s", n < 0 ? strerror(errno) : "not a page fault");
	s->hold_start_ns[i] = wl_now_ns();
	wl_gate__open(&s->go_victim[i]);
	/* The ground truth's hold time: a pause of the workload's own, never a hand-shake. */
	if (s->hold_all)
		handler__hold_all(s);
	else
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &hold, &hold) == EINTR)
			;
	memset(page, 'h', sizeof(page));
	copy = (struct uffdio_copy){
		.dst = msg.arg.pagefault.address & ~(__u64)(PAGE - 1),
		.src = (__u64)(uintptr_t)page,
		.len = PAGE,
	};
	s->hold_end_ns[i] = wl_now_ns();
	if (ioctl(s->uffd, UFFDIO_COPY, &copy))
		wl_die("UFFDIO_COPY: %s", strerror(errno));
}

static void *handler__run(void *arg)
{
	struct shared *s = arg;
	int i;

	prctl(PR_SET_NAME, "wl-uffd");
	s->handler_tid = gettid();
	for (i = 0; i < s->rounds; i++)
		handler__round(s, i);
	return NULL;
}

static void uffd__setup(struct shared *s)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	s->uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (s->uffd < 0)
		wl_die("userfaultfd: %s (kernel faults need root)", strerror(errno));
	if (ioctl(s->uffd, UFFDIO_API, &api))
		wl_die("UFFDIO_API: %s", strerror(errno));
	s->area = mmap(NULL, ROUNDS * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (s->area == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	reg = (struct uffdio_register){
		.range = { .start = (__u64)(uintptr_t)s->area, .len = ROUNDS * PAGE },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(s->uffd, UFFDIO_REGISTER, &reg))
		wl_die("UFFDIO_REGISTER: %s", strerror(errno));
}

static const char *lock__setup(struct shared *s, const char *what)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	int p[2];

	if (!strcmp(what, "pipe")) {
		s->kind = LOCK_PIPE;
		if (pipe(p))
			wl_die("pipe: %s", strerror(errno));
		s->fd = s->vfd = p[1];	/* the read end stays open: ROUNDS pages fit in the pipe */
		return "mutex";
	}
	if (!strcmp(what, "file")) {
		s->kind = LOCK_FILE;
		snprintf(path, sizeof(path), "%s/klock_uffd.XXXXXX", tmp);
		s->fd = mkstemp(path);
		if (s->fd < 0)
			wl_die("mkstemp %s: %s", path, strerror(errno));
		/* Its own open file: one struct file would make it wait on f_pos_lock first. */
		s->vfd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (s->vfd < 0)
			wl_die("open %s: %s", path, strerror(errno));
		unlink(path);
		return "rwsem";
	}
	if (!strcmp(what, "dir")) {
		s->kind = LOCK_DIR;
		snprintf(s->dir, sizeof(s->dir), "%s/klock_uffd.XXXXXX", tmp);
		if (!mkdtemp(s->dir))
			wl_die("mkdtemp %s: %s", s->dir, strerror(errno));
		s->dirfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (s->dirfd < 0)
			wl_die("open %s: %s", s->dir, strerror(errno));
		return "rwsem";
	}
	wl_die("--lock %s: want pipe, file or dir", what);
	return NULL;
}

int main(int argc, char **argv)
{
	struct shared s = { 0 };
	pthread_t victim, holder, handler;
	const char *what = "pipe", *kind;
	uint64_t end_ns;
	int i, err;

	s.rounds = ROUNDS;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lock") && i + 1 < argc)
			what = argv[++i];
		else if (!strcmp(argv[i], "--hold-all"))
			s.hold_all = true;
		else
			wl_die("usage: %s [--lock pipe|file|dir] [--hold-all]", argv[0]);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s.hold_all) {
		s.rounds = 1;
		wl_block_usr1();
	}
	kind = lock__setup(&s, what);
	uffd__setup(&s);
	for (i = 0; i < ROUNDS; i++) {
		wl_gate__init(&s.go_victim[i]);
		wl_gate__init(&s.victim_done[i]);
	}
	err = pthread_create(&handler, NULL, handler__run, &s);
	if (!err)
		err = pthread_create(&victim, NULL, victim__run, &s);
	if (!err)
		err = pthread_create(&holder, NULL, holder__run, &s);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
	pthread_join(holder, NULL);
	pthread_join(victim, NULL);
	pthread_join(handler, NULL);
	end_ns = wl_now_ns();
	if (s.kind == LOCK_DIR)
		rmdir(s.dir);

	/* per round: when the victim asked for the lock, when the holder's sleep ended */
	printf("{\"victim_start_ns\":[");
	for (i = 0; i < s.rounds; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)s.victim_start_ns[i]);
	printf("],\"hold_end_ns\":[");
	for (i = 0; i < s.rounds; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)s.hold_end_ns[i]);
	printf("],\"workload\":\"klock_uffd\",\"lock\":\"%s\",\"kind\":\"%s\",\"rounds\":%d,"
	       "\"hold_ms\":%d,\"pid\":%d,\"victim_tid\":%d,\"victim_policy\":\"%s\","
	       "\"holder_tid\":%d,\"holder_policy\":\"idle\",\"handler_tid\":%d,"
	       "\"first_hold_start_ns\":%llu,\"last_hold_end_ns\":%llu,\"end_ns\":%llu,"
	       "\"calls\":%llu,\"over_5ms\":%llu,\"worst_start_ns\":%llu,\"worst_end_ns\":%llu,"
	       "\"worst_ns\":%llu}\n",
	       what, kind, s.rounds, HOLD_MS, (int)getpid(), (int)s.victim_tid, s.victim_policy,
	       (int)s.holder_tid, (int)s.handler_tid,
	       (unsigned long long)s.hold_start_ns[0],
	       (unsigned long long)s.hold_end_ns[s.rounds - 1], (unsigned long long)end_ns,
	       (unsigned long long)s.worst.calls, (unsigned long long)s.worst.over_5ms,
	       (unsigned long long)s.worst.start_ns, (unsigned long long)s.worst.end_ns,
	       (unsigned long long)s.worst.ns);
	return 0;
}
