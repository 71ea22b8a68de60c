// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A poll loop's deadlines: see timers.h. */
#include <string.h>
#include "timers.h"

#define NS_PER_MS 1000000ULL

void timers__init(struct timers *t)
{
	memset(t, 0, sizeof(*t));
}

void timer__every(struct timers *t, unsigned int id, __u64 now, __u64 period)
{
	if (id >= TIMERS_MAX)
		return;
	t->v[id].armed = period != 0;
	t->v[id].due = now + period;
	t->v[id].period = period;
}

void timer__at(struct timers *t, unsigned int id, __u64 when)
{
	if (id >= TIMERS_MAX)
		return;
	t->v[id].armed = true;
	t->v[id].due = when;
	t->v[id].period = 0;
}

void timer__disarm(struct timers *t, unsigned int id)
{
	if (id < TIMERS_MAX)
		t->v[id].armed = false;
}

bool timer__armed(const struct timers *t, unsigned int id)
{
	return id < TIMERS_MAX && t->v[id].armed;
}

bool timer__due(struct timers *t, unsigned int id, __u64 now)
{
	struct timer *tm;

	if (!timer__armed(t, id) || now < t->v[id].due)
		return false;
	tm = &t->v[id];
	if (!tm->period) {
		tm->armed = false;
		return true;
	}
	/* Keep the beat; beats missed while the loop was busy are skipped, not queued. */
	tm->due += (now - tm->due) / tm->period * tm->period + tm->period;
	return true;
}

int timers__wait_ms(const struct timers *t, __u64 now, int max_ms)
{
	__u64 ms, best = max_ms > 0 ? (__u64)max_ms : 0;
	unsigned int i;

	for (i = 0; i < TIMERS_MAX; i++) {
		if (!t->v[i].armed)
			continue;
		if (t->v[i].due <= now)
			return 0;
		ms = (t->v[i].due - now + NS_PER_MS - 1) / NS_PER_MS;
		if (ms < best)
			best = ms;
	}
	return (int)best;
}
