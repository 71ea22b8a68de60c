/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The deadlines of a poll loop in one place: each timer is periodic (it
 * keeps its beat; after the loop was held up it skips the beats it missed,
 * never fires twice to catch up) or a one-shot, and the loop sleeps until
 * the earliest.  Pure: the caller passes the time, so it is unit-tested
 * without a clock.
 *
 *	timers__init -> timer__every / timer__at -> loop { timer__due ...;
 *	poll(timers__wait_ms) }
 */
#ifndef LOCKSTALL_TIMERS_H
#define LOCKSTALL_TIMERS_H

#include <stdbool.h>
#include <linux/types.h>

#define TIMERS_MAX 8

struct timer {
	bool armed;
	__u64 due;
	__u64 period;		/* 0: one-shot */
};

struct timers {
	struct timer v[TIMERS_MAX];
};

void timers__init(struct timers *t);
/* Timer id fires every period from now on (period 0: disarmed). */
void timer__every(struct timers *t, unsigned int id, __u64 now, __u64 period);
/* Timer id fires once, at when. */
void timer__at(struct timers *t, unsigned int id, __u64 when);
void timer__disarm(struct timers *t, unsigned int id);
bool timer__armed(const struct timers *t, unsigned int id);
/*
 * Has timer id come due by now?  Yes consumes it: a one-shot disarms, a
 * periodic one moves to its next beat after now.
 */
bool timer__due(struct timers *t, unsigned int id, __u64 now);
/* Milliseconds from now to the earliest armed timer (rounded up), at most max_ms. */
int timers__wait_ms(const struct timers *t, __u64 now, int max_ms);

#endif /* LOCKSTALL_TIMERS_H */
