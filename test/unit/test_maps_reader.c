// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/resolve/maps_reader.c: /proc/PID/maps read by a worker thread, asked and
 * taken from the loop.  Waits here are for the worker's answer, bounded by
 * a deadline: a synchronisation, not a sleep.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "resolve/maps_reader.h"
#include "util.h"

#define WAIT_NS (10 * NSEC_PER_SEC)

/* Wait for and take the next answer; the test fails if none comes. */
static void take(struct maps_reader *mr, __u32 *tgid, char **text, size_t *len, int *err)
{
	cr_assert(maps_reader__wait(mr, ls_now_ns() + WAIT_NS, WAIT_NS), "no answer");
	cr_assert_eq(maps_reader__take(mr, tgid, text, len, err), 1);
}

Test(maps_reader, own_maps)
{
	struct maps_reader *mr = maps_reader__new();
	__u32 tgid;
	size_t len;
	char *text;
	int err;

	cr_assert_not_null(mr);
	cr_assert_eq(maps_reader__take(mr, &tgid, &text, &len, &err), 0, "an answer before any ask");
	cr_assert_eq(maps_reader__ask(mr, (__u32)getpid()), 0);
	cr_assert_eq(maps_reader__ask(mr, (__u32)getpid()), -EEXIST, "asked twice");
	cr_assert(maps_reader__pending(mr, (__u32)getpid()));
	take(mr, &tgid, &text, &len, &err);
	cr_assert_eq(tgid, (__u32)getpid());
	cr_assert_eq(err, 0);
	cr_assert_gt(len, 0);
	cr_assert_not_null(strstr(text, "[stack]"), "%s", text);
	cr_assert(!maps_reader__pending(mr, (__u32)getpid()), "still pending once taken");
	free(text);
	maps_reader__free(mr);
}

Test(maps_reader, gone_process)
{
	struct maps_reader *mr = maps_reader__new();
	__u32 tgid;
	size_t len;
	char *text = NULL;
	int err = 0;

	cr_assert_not_null(mr);
	/* beyond PID_MAX_LIMIT: no such process, ever */
	cr_assert_eq(maps_reader__ask(mr, 4194305), 0);
	take(mr, &tgid, &text, &len, &err);
	cr_assert_eq(tgid, 4194305);
	cr_assert_lt(err, 0);
	cr_assert_null(text);
	maps_reader__free(mr);
}

Test(maps_reader, queue_is_bounded)
{
	struct maps_reader *mr = maps_reader__new();
	unsigned int i, refused = 0;

	cr_assert_not_null(mr);
	/* more asks than the queue holds, faster than the worker answers them all */
	for (i = 0; i < 4 * MAPS_READER_QUEUE; i++)
		refused += maps_reader__ask(mr, 4194305 + 1 + i) == -ENOSPC;
	cr_assert_gt(refused, 0, "an unbounded queue");
	maps_reader__free(mr);
}

/* With nothing asked, a wait ends at its deadline, empty-handed. */
Test(maps_reader, wait_times_out)
{
	struct maps_reader *mr = maps_reader__new();
	__u64 t0 = ls_now_ns();

	cr_assert_not_null(mr);
	cr_assert(!maps_reader__wait(mr, t0 + 20 * NSEC_PER_MSEC, WAIT_NS), "an answer to nothing");
	maps_reader__free(mr);
}

/* A read of another file that never returns (a process whose lock is held for good). */
static int read_end;

static int read_stuck(__u32 tgid, char **text, size_t *len)
{
	char c;

	(void)tgid;
	*text = NULL;
	*len = 0;
	/* returns when the test closes the pipe's write end: long after the wait gave up */
	return read(read_end, &c, 1) < 0 ? -errno : -EIO;
}

/*
 * The worker reads any file it is told to; a read stuck in the kernel
 * makes a wait give up once it is older than stuck_ns, long before its
 * deadline, and freeing the reader does not wait for it.
 */
Test(maps_reader, stuck_read_is_given_up)
{
	struct maps_reader *mr;
	int fds[2];

	cr_assert_eq(pipe(fds), 0);
	read_end = fds[0];
	mr = maps_reader__new_reading(read_stuck);
	cr_assert_not_null(mr);
	cr_assert_eq(maps_reader__ask(mr, 1), 0);
	cr_assert(!maps_reader__wait(mr, ls_now_ns() + 3600 * NSEC_PER_SEC, 10 * NSEC_PER_MSEC),
		  "an answer from a read that cannot end");
	maps_reader__free(mr);
	close(fds[1]);
}
