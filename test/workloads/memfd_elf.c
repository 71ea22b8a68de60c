// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A hostile ELF file under a futex: the workload copies its own executable
 * into a memfd, maps the copy (shared, writable) and takes a pthread mutex
 * that lies in the mapping at the address of its own data symbol
 * memfd_elf_lock, so lockstall names the waits on it from the copy's
 * symbol table.  Meanwhile the main thread changes the copy:
 *
 *   (default)  truncates it past the mutex's page and writes the rest back,
 *              again and again: a reader that maps the file faults (SIGBUS)
 *              when it touches the symbol table
 *   --touch    sets its mtime, again and again: a new file for every
 *              cache keyed by stat
 *   --still    leaves it alone (the control: the lock is named)
 *   --symbols N  first gives the copy a symbol table of N more data symbols
 *              (a large file, a large table) and no build-id (nothing says
 *              two versions of it are the same build)
 *   --as-nobody  drops to uid/gid 65534 first: any user can do all this
 *   --over MS  counts the waits for the mutex that lasted MS or more
 *              (default 15), as the threads timed them: the stalls a tool
 *              with a lower threshold must report
 *
 * Two threads take turns on the mutex (-d seconds, default 3), the holder
 * keeping it -u microseconds (default 20000), so the other waits.  Ground
 * truth: the symbol, the lock's address, takes, waits over MS, rewrites.
 */
#include <elf.h>
#include <grp.h>
#include <link.h>
#include <stddef.h>
#include <sys/stat.h>
#include "workload.h"

/* The mutex is placed where this lies in the copy; the ballast keeps the symbol table past its page. */
struct memfd_elf_area {
	int tag;
	pthread_mutex_t lock;
	char ballast[16384];
};

struct memfd_elf_area memfd_elf_lock = { .tag = 1 };

struct run {
	pthread_mutex_t *lock;
	uint64_t hold_us;
	uint64_t end_ns;
	uint64_t over_ns;
	unsigned long takes;
	unsigned long waits_over[2];	/* each thread's waits of over_ns or more */
	pid_t tid[2];
};

static void *taker(void *arg)
{
	struct run *r = arg;
	unsigned long n = 0;
	int me = r->tid[0] ? 1 : 0;

	r->tid[me] = gettid();
	while (wl_now_ns() < r->end_ns) {
		uint64_t t0 = wl_now_ns();

		pthread_mutex_lock(r->lock);
		if (wl_now_ns() - t0 >= r->over_ns)
			r->waits_over[me]++;
		usleep((useconds_t)r->hold_us);
		pthread_mutex_unlock(r->lock);
		n++;
		sched_yield();
	}
	if (me)
		r->takes = n;
	return NULL;
}

static int drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return -1;
	/* dumpable, as any user's process is: its /proc files are its own */
	prctl(PR_SET_DUMPABLE, 1);
	return 0;
}

static char *read_self(size_t *len)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;

	if (fd < 0 || fstat(fd, &st))
		wl_die("/proc/self/exe: %s", strerror(errno));
	buf = malloc((size_t)st.st_size);
	if (!buf || read(fd, buf, (size_t)st.st_size) != st.st_size)
		wl_die("reading /proc/self/exe: %s", strerror(errno));
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/*
 * Append n copies of memfd_elf_lock's symbol to the copy's .symtab (moved
 * to the end of the file): a table as large as anyone likes.
 */
static char *grow_symtab(char *img, size_t *len, unsigned long n)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff), *st = NULL;
	size_t old, add = n * sizeof(Elf64_Sym), i;
	Elf64_Sym *sym, *mine = NULL;
	char *names, *out;

	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			st = &sh[i];
	if (!st)
		wl_die("no .symtab in /proc/self/exe");
	names = img + sh[st->sh_link].sh_offset;
	for (i = 0; i < st->sh_size / sizeof(Elf64_Sym); i++) {
		sym = (Elf64_Sym *)(img + st->sh_offset) + i;
		if (!strcmp(names + sym->st_name, "memfd_elf_lock"))
			mine = sym;
	}
	if (!mine)
		wl_die("no memfd_elf_lock in .symtab");
	old = st->sh_size;
	out = malloc(*len + old + add);
	if (!out)
		wl_die("out of memory");
	memcpy(out, img, *len);
	memcpy(out + *len, img + st->sh_offset, old);
	for (i = 0; i < n; i++)
		memcpy(out + *len + old + i * sizeof(Elf64_Sym), mine, sizeof(*mine));
	/* the section headers are where they were: point the table at its new place */
	st = (Elf64_Shdr *)(out + eh->e_shoff) + (st - sh);
	st->sh_offset = *len;
	st->sh_size = old + add;
	free(img);
	*len += old + add;
	return out;
}

/* The copy's build-id note, made some other note: no cache can tell the versions are one build. */
static void drop_build_id(char *img)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff);
	Elf64_Nhdr *nh;
	size_t i;

	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_NOTE || sh[i].sh_size < sizeof(*nh))
			continue;
		nh = (Elf64_Nhdr *)(img + sh[i].sh_offset);
		if (nh->n_type == NT_GNU_BUILD_ID)
			nh->n_type = 0x4c53;
	}
}

static int find_base(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;	/* the executable is the first */
}

int main(int argc, char **argv)
{
	bool touch = wl_take_flag(&argc, argv, "--touch");
	bool nobody = wl_take_flag(&argc, argv, "--as-nobody");
	bool still = wl_take_flag(&argc, argv, "--still");
	unsigned long nsyms = wl_take_number(&argc, argv, "--symbols", 0, 1ul << 24);
	unsigned long secs = wl_take_number(&argc, argv, "-d", 3, 60);
	struct run r = {
		.hold_us = wl_take_number(&argc, argv, "-u", 20000, 1000000),
		.over_ns = wl_take_number(&argc, argv, "--over", 15, 10000) * 1000000ull,
	};
	size_t len, off, keep, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long rewrites = 0;
	uintptr_t base = 0;
	pthread_t t[2];
	char *img, *map;
	int fd;

	if (argc > 1)
		wl_die("usage: memfd_elf [-d SECONDS] [-u HOLD_US] [--touch | --still] [--symbols N] [--as-nobody] [--over MS]");
	if (nobody && drop_to_nobody())
		wl_die("cannot drop to uid 65534: %s", strerror(errno));
	img = read_self(&len);
	if (nsyms) {
		img = grow_symtab(img, &len, nsyms);
		drop_build_id(img);
	}
	dl_iterate_phdr(find_base, &base);
	off = (uintptr_t)&memfd_elf_lock - base;
	keep = (off + sizeof(memfd_elf_lock.tag) + sizeof(pthread_mutex_t) + page - 1) & ~(page - 1);
	if (keep >= ((Elf64_Ehdr *)img)->e_shoff)
		wl_die("the section headers lie in the mutex's page: nothing to truncate");
	fd = memfd_create("lockstall-memfd-elf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, img, len) != (ssize_t)len)
		wl_die("memfd: %s", strerror(errno));
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	r.lock = (pthread_mutex_t *)(map + off + offsetof(struct memfd_elf_area, lock));
	pthread_mutex_init(r.lock, NULL);
	r.end_ns = wl_now_ns() + secs * 1000000000ull;
	if (pthread_create(&t[0], NULL, taker, &r))
		wl_die("pthread_create");
	while (!r.tid[0])
		sched_yield();
	if (pthread_create(&t[1], NULL, taker, &r))
		wl_die("pthread_create");
	while (wl_now_ns() < r.end_ns) {
		if (still) {
			usleep(10000);
			continue;
		}
		if (touch) {
			/* a new mtime each time, whatever the clock's granularity */
			struct timespec ts[2] = { { 0, UTIME_OMIT }, { (time_t)rewrites + 1000000, 0 } };

			if (futimens(fd, ts))
				wl_die("futimens: %s", strerror(errno));
			usleep(1000);
		} else if (ftruncate(fd, (off_t)keep) ||
			   pwrite(fd, img + keep, len - keep, (off_t)keep) != (ssize_t)(len - keep)) {
			wl_die("rewriting the memfd: %s", strerror(errno));
		}
		rewrites++;
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("{\"workload\":\"memfd_elf\",\"pid\":%d,\"uid\":%u,\"lock\":\"0x%llx\",\"lock_name\":\"memfd_elf_lock+0x%zx\","
	       "\"file_bytes\":%zu,\"takes\":%lu,\"waits_over\":%lu,\"rewrites\":%lu,\"holder_tid\":%d,\"victim_tid\":%d}\n",
	       getpid(), (unsigned int)getuid(), (unsigned long long)(uintptr_t)r.lock,
	       offsetof(struct memfd_elf_area, lock), len, r.takes,
	       r.waits_over[0] + r.waits_over[1], rewrites, r.tid[0], r.tid[1]);
	return 0;
}
