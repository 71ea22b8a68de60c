// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The reading thread's CPU: SCHED_FIFO on request, and its waits for a CPU (reader_cpu.h). */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include "reader_cpu.h"
#include "util.h"

#define READER_CPU_SCHEDSTAT "/proc/thread-self/schedstat"

int reader_cpu__set_fifo(unsigned int prio, bool this_thread_only)
{
	struct sched_param sp = { .sched_priority = (int)prio };
	int policy = SCHED_FIFO | (this_thread_only ? SCHED_RESET_ON_FORK : 0);

	return sched_setscheduler(0, policy, &sp) ? -errno : 0;
}

int reader_cpu__parse(const char *text, __u64 *delay_ns)
{
	char *end;

	errno = 0;
	strtoull(text, &end, 10);
	if (errno || end == text || *end != ' ')
		return -EINVAL;
	text = end + 1;
	*delay_ns = strtoull(text, &end, 10);
	if (errno || end == text || (*end != ' ' && *end != '\n' && *end))
		return -EINVAL;
	return 0;
}

/* The calling thread's run_delay; -errno (no CONFIG_SCHED_INFO: no file). */
static int reader_cpu__read(__u64 *delay_ns)
{
	size_t len;
	char *text;
	int err;

	err = ls_read_file(READER_CPU_SCHEDSTAT, 256, &text, &len);
	if (err)
		return err;
	err = reader_cpu__parse(text, delay_ns);
	free(text);
	return err;
}

void reader_cpu__start(struct reader_cpu *r, __u64 now)
{
	*r = (struct reader_cpu){ .at_ns = now };
	r->known = !reader_cpu__read(&r->delay_ns);
}

void reader_cpu__account(struct reader_cpu *r, __u64 now, __u64 delay_ns, bool lost)
{
	__u64 span = now > r->at_ns ? now - r->at_ns : 0;
	__u64 waited = delay_ns > r->delay_ns ? delay_ns - r->delay_ns : 0;
	unsigned int pct;

	if (lost && span) {
		pct = waited >= span ? 100 : (unsigned int)(waited * 100 / span);
		if (pct > r->worst_pct)
			r->worst_pct = pct;
	}
	r->delay_ns = delay_ns;
	r->at_ns = now;
}

void reader_cpu__period(struct reader_cpu *r, __u64 now, bool lost)
{
	__u64 delay;

	if (!r->known)
		return;
	if (reader_cpu__read(&delay)) {
		r->known = false;
		return;
	}
	reader_cpu__account(r, now, delay, lost);
}
