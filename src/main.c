// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall: find priority inversion and lock stalls, and name the whole
 * chain: waiter, lock, holders, and why each holder was not running.
 *
 * main() parses the command line, sets up signals and runs the command.
 * The stop and reload flags below are the program's only global mutable
 * state: a signal handler can reach nothing else.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "commands.h"

#ifndef LOCKSTALL_VERSION
#define LOCKSTALL_VERSION "unknown"
#endif

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reload_requested;	/* SIGHUP: watch re-reads --rules, top ends */

/*
 * The first stop signal asks for a stop; the ones after it while the
 * recording and the summary are written must not cut them short (a second
 * Ctrl-C lost recorded stalls): they are only answered.
 */
static void on_stop_signal(int sig)
{
	static const char msg[] =
		"lockstall: still writing the recording and the summary: SIGKILL abandons them\n";

	if (stop_requested && write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		return;
	stop_requested = 1;
}

static void on_reload_signal(int sig)
{
	reload_requested = 1;
}

static int signals__init(void)
{
	struct sigaction sa;

	/*
	 * "| head" closing stdout must end us quietly: writes then fail with
	 * EPIPE, which the sinks report, instead of SIGPIPE killing us.
	 */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return -errno;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/*
	 * SA_RESTART: a write blocked on a slow reader goes on instead of
	 * failing with EINTR (stdio turns that into a lost summary).  The loop
	 * still wakes at once: poll and epoll_wait are never restarted.
	 */
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	/* a daemon's "reload": never the default, which would end the run */
	sa.sa_handler = on_reload_signal;
	if (sigaction(SIGHUP, &sa, NULL))
		return -errno;
	return 0;
}

/* Help and version go to stdout; a reader that left early is no error. */
static int stdout__finish(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return LS_EXIT_OK;
	if (errno == EPIPE)
		return LS_EXIT_OK;
	fprintf(stderr, "lockstall: cannot write to stdout: %s\n", strerror(errno));
	return LS_EXIT_FAILURE;
}

int main(int argc, char **argv)
{
	struct ls_config cfg;
	int rc;

	/*
	 * A fixed threshold: glibc's own rises after each large free, and
	 * then the symbolizer's file images, read and dropped again and
	 * again, come from the heap, which keeps the pages.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	rc = signals__init();
	if (rc) {
		fprintf(stderr, "lockstall: cannot set up signal handlers: %s\n", strerror(-rc));
		return LS_EXIT_FAILURE;
	}

	rc = cli__parse(argc, argv, &cfg, stderr);
	if (rc)
		return rc;
	if (cfg.help) {
		cli__usage(stdout, cfg.cmd);
		return stdout__finish();
	}
	if (cfg.version) {
		printf("lockstall %s\n", LOCKSTALL_VERSION);
		return stdout__finish();
	}

	switch (cfg.cmd) {
	case LS_CMD_WATCH:
		return cmd_watch(&cfg, &stop_requested, &reload_requested, stdout);
	case LS_CMD_RECORD:
		return cmd_record(&cfg, &stop_requested);
	case LS_CMD_REPORT:
		return cmd_report(&cfg, stdout, stderr);
	case LS_CMD_TOP:
		/* a hangup is the terminal going away: top ends */
		return cmd_top(&cfg, &stop_requested, &reload_requested, stdout);
	case LS_CMD_NONE:
		break;
	}
	/* cli__parse() returns no config without a command, help or version */
	fprintf(stderr, "lockstall: no command to run\n");
	return LS_EXIT_USAGE;
}
