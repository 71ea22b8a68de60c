/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF side, seen from user space: open, configure, load and attach
 * bpf/lockstall.bpf.c, then hand its records to a callback.  src/loader/ is
 * the only place that includes a skeleton or libbpf.
 */
#ifndef LOCKSTALL_LOADER_H
#define LOCKSTALL_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <lockstall/abi.h>

/* Where records go: engine__feed fits.  A negative return stops polling. */
typedef int (*ls_record_fn)(void *ctx, const void *rec, size_t len);

/* watch, record --backend: where the lock events come from */
enum ls_backend {
	LS_BACKEND_AUTO = 0,	/* the cheapest that attaches, in the order below */
	LS_BACKEND_TRACEPOINT,	/* the mmap_lock tracepoints (5.11+) */
	LS_BACKEND_FENTRY,	/* fentry/fexit on the rwsem functions (5.5+) */
	LS_BACKEND_KPROBE,	/* kprobes on the rwsem functions */
};

/* watch, record --task-state: where the BPF side keeps per-task state */
enum ls_task_state {
	LS_TASK_STATE_AUTO = 0,	/* task storage where the kernel has it (5.15+), else hash */
	LS_TASK_STATE_STORAGE,	/* BPF task storage and the 5.15 helpers */
	LS_TASK_STATE_HASH,	/* a hash map keyed by task: the object for 5.10 */
};

/* watch, record --locks: which kinds of lock are traced (bits) */
#define LS_LOCKS_MMAP	0x1	/* mmap_lock: always */
#define LS_LOCKS_FUTEX	0x2	/* user-space futex waits */
#define LS_LOCKS_KERNEL	0x4	/* the kernel's sleeping locks (lock:contention_*) */
#define LS_LOCKS_ALL	(LS_LOCKS_MMAP | LS_LOCKS_FUTEX | LS_LOCKS_KERNEL)
/* No --locks: futexes only where fentry traces their calls, not the syscall tracepoints */
#define LS_LOCKS_DEFAULT	0x8

/* --backend's word for an enum ls_backend ("auto", "tracepoint", ...); NULL past the last. */
static inline const char *ls_backend__name(unsigned int backend)
{
	static const char *const names[] = {
		[LS_BACKEND_AUTO] = "auto",
		[LS_BACKEND_TRACEPOINT] = "tracepoint",
		[LS_BACKEND_FENTRY] = "fentry",
		[LS_BACKEND_KPROBE] = "kprobe",
	};

	return backend < sizeof(names) / sizeof(names[0]) ? names[backend] : NULL;
}

/* --task-state's word for an enum ls_task_state ("auto", "storage", "hash"); NULL past the last. */
static inline const char *ls_task_state__name(unsigned int mode)
{
	static const char *const names[] = {
		[LS_TASK_STATE_AUTO] = "auto",
		[LS_TASK_STATE_STORAGE] = "storage",
		[LS_TASK_STATE_HASH] = "hash",
	};

	return mode < sizeof(names) / sizeof(names[0]) ? names[mode] : NULL;
}

struct loader_opts {
	__u64 threshold_ns;	/* -> ls_bpf_config.min_wait_ns */
	__u64 min_hold_ns;	/* -> ls_bpf_config.min_hold_ns */
	bool verbose;		/* libbpf debug output on stderr */
	__u8 backend;		/* enum ls_backend; LS_BACKEND_AUTO: the first that attaches */
	const char *btf_path;	/* the kernel's BTF from this file (--btf); NULL: /sys/kernel/btf/vmlinux */
	__u8 task_state;	/* enum ls_task_state; LS_TASK_STATE_AUTO: storage where the kernel can */
	bool stacks;		/* STACK records for stalls: kernel stacks, and user ones per ustack_mode */
	__u8 ustack_mode;	/* enum ls_ustack_mode */
	__u32 ustack_copy;	/* LS_USTACK_DWARF: bytes of user stack copied, <= LS_USTACK_COPY_MAX */
	__u64 stack_interval_ns;	/* one STACK per task, lock and kind this often; 0: all */
	__u8 locks;		/* LS_LOCKS_*: what to trace besides mmap_lock */
	__u32 ring_bytes;	/* the ring buffer's size, a power of two; 0: the object's */
};

struct loader_stats {
	__u64 records;		/* delivered from the ring buffer */
	__u64 drops;		/* records the BPF side could not reserve, all CPUs */
	__u64 bytes;
	__u64 hist_misses;	/* waits/holds not in the histograms: their map was full */
	__u64 prog_misses;	/* program runs the kernel skipped (counted as lost events too) */
	__u64 stack_records;	/* STACK records made ... */
	__u64 stack_ns;		/* ... and the BPF time that took (capture, copy, output) */
	__u64 kstack_saves;	/* kernel stacks saved after a holder's long off-CPU spell ... */
	__u64 kstack_save_ns;	/* ... and their time */
	__u64 task_state_full;	/* events not followed: no task state could be made */
	__u64 owner_marks_full;	/* lock owners not followed by TID: their map was full */
};

struct loader;

/*
 * Check privileges and kernel support, load and attach.  On failure prints
 * one line on stderr naming what failed and what to do, and returns a
 * negative errno (-EPERM, -ENOTSUP, ...).
 */
int loader__open(struct loader **out, const struct loader_opts *opts);
/* LS_FEAT_* of the running kernel, known after loader__open. */
__u32 loader__features(const struct loader *l);
/*
 * Deliver what the ring buffer holds, waiting up to timeout_ms for the first
 * record.  Returns records delivered, or the callback's negative return, or
 * a negative errno.  -EINTR is returned as 0.
 */
int loader__poll(struct loader *l, int timeout_ms, ls_record_fn fn, void *ctx);
/*
 * The ring buffer's epoll fd, for a caller that polls other fds too; then
 * loader__poll(l, 0, ...).  It is readable only when the ring fills up
 * (records are batched), so the caller's timeout is what drains it.
 */
int loader__epoll_fd(const struct loader *l);
/* The ring buffer map's fd and its size in bytes, for reader_boost__start(). */
void loader__ring(const struct loader *l, int *fd, size_t *size);
/*
 * Deliver every histogram as an LS_REC_HIST record, then an LS_REC_MARK of
 * the given kind, stamped with CLOCK_MONOTONIC now.  Also delivers an
 * LS_REC_LOST for drops no record has reported in band yet.
 */
int loader__emit_histograms(struct loader *l, __u32 mark_kind, ls_record_fn fn, void *ctx);
/* An LS_REC_MARK of this kind stamped now (LS_MARK_BEGIN carries features). */
int loader__emit_mark(struct loader *l, __u32 mark_kind, ls_record_fn fn, void *ctx);
/* Tasks one loader__stacks_now() reads at most. */
#define LOADER_STACKS_NOW_MAX 64
/*
 * The kernel stacks of tids[0..n) as they are now (a task iterator, loaded
 * on first use; a kernel that refuses it is said once with -v, and then
 * nothing is read), each delivered as an LS_REC_STACK of why LS_STACK_NOW
 * stamped ts.  Returns the stacks delivered, or fn's negative return.
 * Nothing without loader_opts.stacks.
 */
int loader__stacks_now(struct loader *l, const __u32 *tids, size_t n, __u64 ts,
		       ls_record_fn fn, void *ctx);
/*
 * Once, right after loader__open: find the tasks asleep in a futex wait
 * that began before tracing and give each the state and records of a wait
 * seen live (LS_LOCK_F_PRIOR: its start is the scan's time).  The records
 * come through the ring buffer, from a thread that reads the scan and
 * ends by itself (-v: it says how many it found).  Returns 0, or a
 * negative errno when the scan could not start (said on stderr; tracing
 * goes on without those waits).
 */
int loader__prior_waits(struct loader *l);
/*
 * Each housekeeping period: when the kernel skipped runs of our programs
 * since the last look, a wait may have begun unseen; scan again (this
 * period and the next, as the task may not sleep yet), unless a scan is
 * still going.  Waits found then are LS_LOCK_F_LATE.  0 or negative errno;
 * a scan that could not start is said once, and no more are tried.
 */
int loader__late_waits(struct loader *l);

/* Quiet waits that reached the threshold are sent (before each tick). */
int loader__quiet_waits(struct loader *l);
void loader__stats(const struct loader *l, struct loader_stats *out);
void loader__free(struct loader *l);

#endif /* LOCKSTALL_LOADER_H */
