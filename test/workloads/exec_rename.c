// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * exec_rename: ground truth for naming a process after an exec.
 *
 * A child takes its mmap_lock N times (mprotect()) under this program's
 * name, then executes this program again through a symlink named
 * "exec_renamed" (the kernel names a process by the file it executes),
 * takes the lock N times more and exits.  Its histograms were made under
 * the first name: lockstall must show them under the second, also after
 * the child is gone.
 *
 *   exec_rename [-n N]     (default 1000)
 *
 * Prints one JSON line: {"workload":"exec_rename","pid":P,"before":"exec_rename",
 * "after":"exec_renamed"} once the child has exited.
 */
#include <sys/wait.h>
#include "workload.h"

#define AFTER_NAME "exec_renamed"

/* The child: lock operations under the old name, then exec under the new one. */
static void child_run(const char *link, unsigned long n)
{
	char arg[32];
	char *const argv[] = { AFTER_NAME, "--after", arg, NULL };

	wl_mprotect_n(n);
	snprintf(arg, sizeof(arg), "%lu", n);
	execv(link, argv);
	wl_die("exec %s: %s", link, strerror(errno));
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/exec_rename-XXXXXX", link[64];
	unsigned long n = 1000;
	int opt, status;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "--after")) {
		wl_mprotect_n(strtoul(argv[2], NULL, 10));
		return 0;
	}
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: exec_rename [-n N]\n");
			return 2;
		}
		n = strtoul(optarg, NULL, 10);
	}
	wl_self_link(dir, AFTER_NAME, link, sizeof(link));
	pid = fork();
	if (pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (pid == 0)
		child_run(link, n);
	if (waitpid(pid, &status, 0) != pid)
		wl_die("waitpid: %s", strerror(errno));
	unlink(link);
	rmdir(dir);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		wl_die("child %d failed (status 0x%x)", (int)pid, status);
	printf("{\"workload\":\"exec_rename\",\"pid\":%d,\"before\":\"exec_rename\",\"after\":\"" AFTER_NAME "\"}\n",
	       (int)pid);
	return 0;
}
