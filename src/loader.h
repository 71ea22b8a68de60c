/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF side, seen from user space: open, configure, load and attach
 * bpf/lockstall.bpf.c, then hand its records to a callback.  loader.c is the
 * only file that includes the skeleton or libbpf.
 */
#ifndef LOCKSTALL_LOADER_H
#define LOCKSTALL_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <lockstall/abi.h>

/* Where records go: engine__feed fits.  A negative return stops polling. */
typedef int (*ls_record_fn)(void *ctx, const void *rec, size_t len);

struct loader_opts {
	__u64 threshold_ns;	/* -> ls_bpf_config.min_wait_ns */
	__u64 min_hold_ns;	/* -> ls_bpf_config.min_hold_ns */
	bool verbose;		/* libbpf debug output on stderr */
	__u8 backend;		/* enum ls_backend (cli.h); LS_BACKEND_AUTO: the first that attaches */
	const char *btf_path;	/* the kernel's BTF from this file (--btf); NULL: /sys/kernel/btf/vmlinux */
	__u8 task_state;	/* enum ls_task_state (cli.h); LS_TASK_STATE_AUTO: storage where the kernel can */
	bool stacks;		/* STACK records for stalls: kernel stacks, and user ones per ustack_mode */
	__u8 ustack_mode;	/* enum ls_ustack_mode */
	__u32 ustack_copy;	/* LS_USTACK_DWARF: bytes of user stack copied, <= LS_USTACK_COPY_MAX */
	__u8 locks;		/* LS_LOCKS_* (cli.h): what to trace besides mmap_lock */
};

struct loader_stats {
	__u64 records;		/* delivered from the ring buffer */
	__u64 drops;		/* records the BPF side could not reserve, all CPUs */
	__u64 bytes;
	__u64 hist_misses;	/* waits/holds not in the histograms: their map was full */
	__u64 stack_records;	/* STACK records made ... */
	__u64 stack_ns;		/* ... and the BPF time that took (capture, copy, output) */
	__u64 kstack_saves;	/* kernel stacks saved after a holder's long off-CPU spell ... */
	__u64 kstack_save_ns;	/* ... and their time */
	__u64 task_state_full;	/* events not followed: the hash object's task map was full */
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
/*
 * Deliver every histogram as an LS_REC_HIST record, then an LS_REC_MARK of
 * the given kind, stamped with CLOCK_MONOTONIC now.  Also delivers an
 * LS_REC_LOST for drops no record has reported in band yet.
 */
int loader__emit_histograms(struct loader *l, __u32 mark_kind, ls_record_fn fn, void *ctx);
/* An LS_REC_MARK of this kind stamped now (LS_MARK_BEGIN carries features). */
int loader__emit_mark(struct loader *l, __u32 mark_kind, ls_record_fn fn, void *ctx);
void loader__stats(const struct loader *l, struct loader_stats *out);
void loader__free(struct loader *l);

#endif /* LOCKSTALL_LOADER_H */
