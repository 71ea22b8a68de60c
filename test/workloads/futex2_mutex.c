// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * futex2_mutex: the inversion of lock_inversion.h on a lock of the
 * program's own, taken with futex2's futex_wait(2) and futex_wake(2)
 * (6.7+) rather than through glibc.  Its word is 0 free, 1 locked, 2
 * locked with waiters, and waiters wait while it is 2: glibc's lll_lock
 * convention, so lockstall traces the waits.  Nothing in the lock names
 * its holder, so lockstall can name only the releaser: the holder, whose
 * wake ends each of the victim's waits.
 *
 * The word is the global g_wl_word (in .bss), the name lockstall should
 * give it.  --hold-all: as in pthread_mutex, for the start-up scan.
 *
 * Ground truth: one JSON line on stdout (workload.h), with the word's
 * address and name and the victim's slowest take.  Exits 1 with a message
 * where the kernel has no futex_wait(2).
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include "lock_inversion.h"

#define WL_NR_FUTEX_WAKE2	454	/* x86_64, 6.7+ */
#define WL_NR_FUTEX_WAIT2	455
#define WL_FUTEX2_U32_PRIVATE	(0x02 | 128)	/* FUTEX2_SIZE_U32 | FUTEX2_PRIVATE */
#define WL_MATCH_ANY		0xffffffffUL	/* FUTEX_BITSET_MATCH_ANY */

/* A name lockstall finds in this binary's symbol table: keep it. */
uint32_t g_wl_word;

/* Sleep while *word is 2; a changed word (EAGAIN) or a signal only means look again. */
static void futex2__wait(uint32_t *word)
{
	if (syscall(WL_NR_FUTEX_WAIT2, word, 2UL, WL_MATCH_ANY, WL_FUTEX2_U32_PRIVATE, NULL, 0) &&
	    errno != EAGAIN && errno != EINTR)
		wl_die("futex_wait: %s", strerror(errno));
}

static void futex2__lock(void *lock)
{
	uint32_t *word = lock, c = 0;

	if (__atomic_compare_exchange_n(word, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
	while (c) {
		futex2__wait(word);
		c = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
	}
}

static void futex2__unlock(void *lock)
{
	uint32_t *word = lock;

	if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2 &&
	    syscall(WL_NR_FUTEX_WAKE2, word, WL_MATCH_ANY, 1, WL_FUTEX2_U32_PRIVATE) < 0)
		wl_die("futex_wake: %s", strerror(errno));
}

static const struct wl_lock_ops futex2_ops = {
	.hold = futex2__lock, .unhold = futex2__unlock,
	.take = futex2__lock, .release = futex2__unlock,
	.wait_nr = WL_NR_FUTEX_WAIT2,
};

int main(int argc, char **argv)
{
	struct wl_opts opts = { .duration_s = 3, .pause_us = 5000 };
	bool hold_all = wl_take_flag(&argc, argv, "--hold-all");
	struct wl_inversion x = { .opts = &opts, .ops = &futex2_ops, .lock = &g_wl_word,
				  .hold_all = hold_all };
	char head[160];

	wl_parse_opts(argc, argv, &opts);
	/* a word that is not 2 fails EAGAIN at once where the call exists */
	if (syscall(WL_NR_FUTEX_WAIT2, &g_wl_word, 2UL, WL_MATCH_ANY, WL_FUTEX2_U32_PRIVATE,
		    NULL, 0) && errno == ENOSYS)
		wl_die("futex_wait: %s (futex2 is 6.7+)", strerror(errno));
	wl_inversion__run(&x, (uintptr_t)&g_wl_word);
	snprintf(head, sizeof(head),
		 "\"workload\":\"futex2_mutex\",\"lock\":\"0x%llx\",\"lock_name\":\"g_wl_word\"",
		 (unsigned long long)(uintptr_t)&g_wl_word);
	wl_inversion__print(&x, head);
	return 0;
}
