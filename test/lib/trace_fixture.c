// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Recordings for tests: see trace_fixture.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/trace_fixture.h"
#include "record/trace_file.h"

#define TMS(x)	((__u64)((x) * 1000000.0 + 0.5))

/* The cgroups of the run: the victim's service, and the readers' session. */
#define CG_VICTIM	8412ULL
#define CG_VICTIM_PATH	"/system.slice/victim-app.service"
#define CG_READER	8533ULL
#define CG_READER_PATH	"/user.slice/user-1000.slice/session-2.scope"

#define TT(x)	(TFX_T0_NS + TMS(x))

static struct ls_hist hist(const char *comm, __u64 count, __u64 sum_ns, unsigned int slot)
{
	struct ls_hist h;

	memset(&h, 0, sizeof(h));
	strncpy(h.comm, comm, sizeof(h.comm));
	h.count = count;
	h.sum_ns = sum_ns;
	h.slots[slot] = count;
	return h;
}

void trace_fixture__stream(struct stream *s)
{
	struct ls_task victim = stream__task(501, 500, LS_POLICY_FIFO, 0, 10, "wl-victim");
	struct ls_task reader = stream__task(301, 300, LS_POLICY_IDLE, 0, 0, "wl-reader");
	struct ls_task io = stream__task(302, 300, LS_POLICY_NORMAL, 5, 0, "wl-io");
	struct ls_task mprot = stream__task(601, 500, LS_POLICY_NORMAL, 0, 0, "wl-mprotect");
	struct ls_task hog = stream__task(400, 400, LS_POLICY_NORMAL, 0, 0, "wl-hog");
	struct ls_task irq = stream__task(700, 700, LS_POLICY_FIFO, 0, 50, "irq/kblockd");
	struct ls_lock_id mm = stream__mm(0xffff888012340000ULL, 500, "victim-app");
	struct stream_lock l;
	struct ls_hist h;

	stream__mark(s, TT(0), LS_MARK_BEGIN, LS_FEAT_PER_VMA_LOCK);

	/* 1: the idle reader holds the lock, preempted by the hog; the victim's mmap waits */
	stream__switch(s, 0, TT(100), &reader, LS_TASK_F_HOLDING, true, &hog, 0);
	l = (struct stream_lock){ .start = TT(102), .write = true, .op = stream__syscall(9),
				  .cgroup = CG_VICTIM };
	stream__wait_begin(s, 1, TT(103), &victim, &mm, &l);
	stream__switch(s, 1, TT(103), &victim, LS_TASK_F_WAITING, false, NULL, 0);
	stream__switch(s, 0, TT(150), &hog, 0, true, &reader, LS_TASK_F_HOLDING);
	l = (struct stream_lock){ .start = TT(90), .acquired = TT(90), .offcpu = TMS(50),
				  .op = stream__syscall(17), .cgroup = CG_READER };
	stream__hold(s, 0, TT(151), &reader, &mm, &l);
	stream__wakeup(s, 0, TT(151), &victim, LS_TASK_F_WAITING, &reader, 1, NULL);
	stream__switch(s, 1, TT(152), NULL, 0, false, &victim, LS_TASK_F_WAITING);
	l = (struct stream_lock){ .start = TT(102), .write = true, .flags = LS_LOCK_F_BEGIN_SENT,
				  .op = stream__syscall(9), .cgroup = CG_VICTIM };
	stream__wait_end(s, 1, TT(153), &victim, &mm, &l);

	/* 2: mprotect holds the write lock on CPU; the victim's page fault waits */
	l = (struct stream_lock){ .start = TT(305), .op = stream__fault(0x7f0000001000ULL, LS_PF_USER),
				  .cgroup = CG_VICTIM };
	stream__wait_begin(s, 1, TT(306), &victim, &mm, &l);
	stream__switch(s, 1, TT(306), &victim, LS_TASK_F_WAITING, false, NULL, 0);
	l = (struct stream_lock){ .start = TT(300), .acquired = TT(300), .write = true,
				  .op = stream__syscall(10), .cgroup = CG_VICTIM };
	stream__hold(s, 0, TT(330), &mprot, &mm, &l);
	stream__wakeup(s, 0, TT(330), &victim, LS_TASK_F_WAITING | LS_TASK_F_GRANTED, &mprot, 1, NULL);
	stream__switch(s, 1, TT(331), NULL, 0, false, &victim, LS_TASK_F_WAITING);
	l = (struct stream_lock){ .start = TT(305), .granted = TT(330), .flags = LS_LOCK_F_BEGIN_SENT,
				  .op = stream__fault(0x7f0000001000ULL, LS_PF_USER), .cgroup = CG_VICTIM };
	stream__wait_end(s, 1, TT(332), &victim, &mm, &l);

	/* 3: the I/O thread sleeps holding the read lock; an interrupt thread wakes it */
	stream__switch(s, 0, TT(501), &io, LS_TASK_F_HOLDING, false, NULL, 0);
	l = (struct stream_lock){ .start = TT(505), .write = true, .op = stream__syscall(11),
				  .cgroup = CG_VICTIM };
	stream__wait_begin(s, 1, TT(506), &victim, &mm, &l);
	stream__switch(s, 1, TT(506), &victim, LS_TASK_F_WAITING, false, NULL, 0);
	stream__wakeup(s, 0, TT(560), &io, LS_TASK_F_HOLDING, &irq, 0, NULL);
	stream__switch(s, 0, TT(561), NULL, 0, false, &io, LS_TASK_F_HOLDING);
	l = (struct stream_lock){ .start = TT(500), .acquired = TT(500), .offcpu = TMS(60),
				  .op = stream__syscall(17), .cgroup = CG_READER };
	stream__hold(s, 0, TT(562), &io, &mm, &l);
	stream__wakeup(s, 0, TT(562), &victim, LS_TASK_F_WAITING, &io, 1, NULL);
	stream__switch(s, 1, TT(564), NULL, 0, false, &victim, LS_TASK_F_WAITING);
	l = (struct stream_lock){ .start = TT(505), .write = true, .flags = LS_LOCK_F_BEGIN_SENT,
				  .op = stream__syscall(11), .cgroup = CG_VICTIM };
	stream__wait_end(s, 1, TT(565), &victim, &mm, &l);

	/* an interval, then the end: cumulative histograms each time */
	h = hist("wl-victim", 2, TMS(78), 16);
	stream__hist(s, TT(1000), 500, LS_HIST_WAIT, 1, &h);
	h = hist("wl-reader", 1, TMS(61), 16);
	stream__hist(s, TT(1000), 300, LS_HIST_HOLD, LS_HIST_ANY_MODE, &h);
	stream__mark(s, TT(1000), LS_MARK_INTERVAL, 0);
	stream__exit(s, 0, TT(1500), &hog, 0);
	h = hist("wl-victim", 3, TMS(138), 16);
	stream__hist(s, TT(2000), 500, LS_HIST_WAIT, 1, &h);
	h = hist("wl-reader", 2, TMS(123), 16);
	stream__hist(s, TT(2000), 300, LS_HIST_HOLD, LS_HIST_ANY_MODE, &h);
	h = hist("wl-reader", 2, TMS(110), 16);
	stream__hist(s, TT(2000), 300, LS_HIST_OFFCPU, LS_HIST_ANY_MODE, &h);
	stream__lost(s, TT(2000), 3, TT(1800), TT(2000));
	stream__mark(s, TT(2000), LS_MARK_END, 0);
}

static void name_one(void *ctx, __u32 tgid, const char comm[LS_COMM_LEN])
{
	char key[64];

	snprintf(key, sizeof(key), "proc.%u.comm", tgid);
	trace_writer__meta(ctx, key, comm, strnlen(comm, LS_COMM_LEN));
}

static const struct trace_fixture_meta golden_meta = {
	.host = "golden-host",
	.realtime_ns = TFX_REALTIME_NS,
};

static int trace_fixture__write_full(const char *path, const struct stream *s, int level,
				     const struct trace_fixture_meta *m)
{
	struct trace_writer *w;
	size_t off = 0, i;
	int err;

	unlink(path);
	err = trace_writer__create(&w, path, false, stderr);
	if (err)
		return err;
	err = trace_writer__compress(w, level);
	if (err) {
		trace_writer__close(w);
		return err;
	}
	trace_writer__meta_str(w, "lockstall.version", "golden");
	trace_writer__meta_str(w, "host", m->host);
	if (m->boot_id)
		trace_writer__meta_str(w, "boot_id", m->boot_id);
	trace_writer__meta_str(w, "kernel.release", "6.18.0-golden");
	trace_writer__meta_str(w, "kernel.version", "#1 SMP");
	trace_writer__meta_str(w, "machine", "x86_64");
	trace_writer__meta_u64(w, "cpus", 2);
	trace_writer__meta_str(w, "command", "lockstall watch -o golden.lst 1");
	trace_writer__meta_u64(w, "threshold_ns", TFX_THRESHOLD_NS);
	trace_writer__meta_u64(w, "pid", 0);
	trace_writer__meta_u64(w, "top", 10);
	trace_writer__meta_u64(w, "json", 0);
	trace_writer__meta_u64(w, "interval_ns", 1000000000ULL);
	trace_writer__meta_u64(w, "count", 0);
	trace_writer__meta_u64(w, "features", LS_FEAT_PER_VMA_LOCK);
	if (m->realtime_ns) {
		trace_writer__meta_u64(w, "start.realtime_ns", m->realtime_ns);
		trace_writer__meta_s64(w, "clock.realtime_minus_monotonic_ns",
				       (__s64)(m->realtime_ns - TFX_T0_NS));
	}
	err = trace_writer__meta_flush(w);
	for (i = 0; !err && i < s->n; i++) {
		err = trace_writer__record(w, s->buf + off, s->lens[i]);
		off += s->lens[i];
		/* two record chunks, so that chunk boundaries get tested */
		if (!err && i == s->n / 2)
			err = trace_writer__flush(w);
	}
	if (!err) {
		trace_writer__procs(w, name_one, w);
		trace_writer__meta(w, "proc.500.cmdline", "victim-app\0--rt", 15);
		/* as record_meta__cgroups() writes them when the recording closes */
		trace_writer__meta_str(w, "cgroup.8412", CG_VICTIM_PATH);
		trace_writer__meta_str(w, "cgroup.8533", CG_READER_PATH);
	}
	if (err) {
		trace_writer__close(w);
		return err;
	}
	return trace_writer__close(w);
}

int trace_fixture__write(const char *path, const struct stream *s)
{
	/* test/data/golden.lst stays in the raw format: old files must keep reading */
	return trace_fixture__write_level(path, s, 0);
}

int trace_fixture__write_level(const char *path, const struct stream *s, int level)
{
	return trace_fixture__write_full(path, s, level, &golden_meta);
}

int trace_fixture__write_as(const char *path, const struct stream *s,
			    const struct trace_fixture_meta *m)
{
	return trace_fixture__write_full(path, s, 0, m);
}

unsigned char *trace_fixture__slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	unsigned char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
		goto out;
	}
	if (buf) {
		buf[n] = 0;
		*len = (size_t)n;
	}
out:
	fclose(f);
	return buf;
}

const char *trace_fixture__data_dir(void)
{
	const char *d = getenv("LOCKSTALL_TEST_DATA");

	return d && *d ? d : "test/data";
}
