// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hist_count: ground truth for the kernel-side histograms' counts.
 *
 * Two children run one after the other, the same program but for how many
 * mprotect() calls they make: 0 and N.  Each mprotect() is exactly one
 * write wait and one hold of the child's mmap_lock, so the second child's
 * histograms must count exactly N more write waits and N more holds than
 * the first's, and the same number of read waits.  Everything else they do
 * under that lock (exec, the dynamic loader, exit) is made the same: both
 * are re-executed without address-space randomisation, with arguments of
 * the same length.
 *
 * The calls are short, so their samples are the ones the BPF side counts
 * in the task's own state before adding them to the process's slot
 * (bpf/lockstall.bpf.c, ls_hist_add()); a sample held back and never
 * added shows up here as a difference other than N.
 *
 *   hist_count [-n N]     (default 5000)
 *
 * Prints one JSON line: {"workload":"hist_count","n":N,"pid_0":P0,"pid_n":PN}.
 */
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include "workload.h"

#define CHILD_ARG_FMT "%09lu"	/* fixed width: the children's stacks are laid out alike */

static void child_run(unsigned long n)
{
	wl_mprotect_n(n);
	exit(0);
}

/* A count of calls: digits only, at most what CHILD_ARG_FMT holds. */
static unsigned long count_parse(const char *opt, const char *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || n > 999999999UL)
		wl_die("%s %s: want a number from 0 to 999999999", opt, v);
	return n;
}

/* Run this program again as a child making n calls; returns its pid once it has exited. */
static pid_t child_spawn(const char *self, unsigned long n)
{
	char arg[32];
	int status;
	pid_t pid;

	snprintf(arg, sizeof(arg), CHILD_ARG_FMT, n);
	pid = fork();
	if (pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (pid == 0) {
		char *const argv[] = { (char *)self, "--child", arg, NULL };

		if (personality(PER_LINUX | ADDR_NO_RANDOMIZE) < 0)
			wl_die("personality: %s", strerror(errno));
		execv(self, argv);
		wl_die("exec %s: %s", self, strerror(errno));
	}
	if (waitpid(pid, &status, 0) != pid)
		wl_die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		wl_die("child %d failed (status 0x%x)", (int)pid, status);
	return pid;
}

int main(int argc, char **argv)
{
	unsigned long n = 5000;
	char self[4096];
	ssize_t len;
	pid_t pid0, pidn;
	int opt;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		child_run(count_parse("--child", argv[2]));
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		switch (opt) {
		case 'n':
			n = count_parse("-n", optarg);
			break;
		default:
			fprintf(stderr, "usage: hist_count [-n N]\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hist_count: unexpected argument '%s'\nusage: hist_count [-n N]\n",
			argv[optind]);
		return 2;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		wl_die("readlink /proc/self/exe: %s", strerror(errno));
	self[len] = '\0';
	pid0 = child_spawn(self, 0);
	pidn = child_spawn(self, n);
	printf("{\"workload\":\"hist_count\",\"n\":%lu,\"pid_0\":%d,\"pid_n\":%d}\n", n, (int)pid0,
	       (int)pidn);
	return 0;
}
