/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the loader's files share, and only they include: struct loader and
 * the calls one of them makes into another.  probe.c learns what the
 * kernel offers and chooses; load.c opens, loads, attaches and reads the
 * ring; hists.c hands over the kernel's counts; iter.c runs the task
 * iterators.
 */
#ifndef LOCKSTALL_LOADER_INTERNAL_H
#define LOCKSTALL_LOADER_INTERNAL_H

#include <stdbool.h>
#include <lockstall/abi.h>
#include "loader/loader.h"

struct bpf_link;
struct bpf_program;
struct lockstall_bpf;
struct prior_gate;
struct ring_buffer;
struct stack_now_bpf;

struct loader {
	/* The object (load.c) */
	struct lockstall_bpf *skel;
	__u32 features;
	__u8 backend;		/* enum ls_backend: the one being tried, then the one attached */
	int interrupted;	/* loads or attaches a signal cut short (EAGAIN, EINTR) */
	int btf_fd;		/* --btf FILE, open while libbpf may read it; 0: none */
	int ncpus;
	/* What the kernel has, and what was chosen (probe.c) */
	int tp_nargs;		/* of mmap_lock_start_locking, hidden ctx included; < 0: none */
	int switch_nargs;	/* of sched_switch, ctx included: 5 from 5.18 (prev_state), else 4 */
	bool hash;		/* the hash object: per-task state in a hash map (LS_FEAT_TASK_STATE_HASH) */
	bool has_rwsem_funcs;	/* down_read() and co. in the kernel's BTF */
	bool has_task_from_pid;	/* the bpf_task_from_pid() kfunc (6.2+): futex owners */
	bool has_contention_tp;	/* lock:contention_begin/end (5.19+): kernel locks */
	bool has_copy_from_user_task;	/* sleepable task iterators read other tasks (5.18+) */
	bool has_mutex_blocked_on;	/* task_struct.blocked_on, the mutex it waits on (6.16+) */
	int futex_fn_id;	/* __x64_sys_futex in the kernel's BTF, with the unqueues; 0: none */
	bool has_futex_waitv_fn;	/* __x64_sys_futex_waitv in the kernel's BTF (5.16+) */
	bool has_futex_wait2_fn;	/* __x64_sys_futex_wait, futex2's, in the kernel's BTF (6.7+) */
	bool futex_fentry;	/* futex calls by fentry and fexit, not the syscall tracepoints */
	char futex_off[320];	/* why futexes are off by default here; "": they are not */
	bool prior_refused;	/* the load failed with the prior waits' scan: off from then on */
	bool quiet_refused;	/* the load failed with the quiet waits' scan: off from then on */
	bool cpu_time_refused;	/* the verifier gave up on the runnable and steal causes */
	bool said_prior;	/* why the scan is off was said (the retries come back) */
	bool said_locks;	/* what --locks cannot trace was said */
	bool said_owners;	/* how lock owners are followed was said */
	/* The vmscan and compaction tracepoints (CONFIG_MEMCG, CONFIG_COMPACTION): reclaim.bpf.h. */
	bool has_reclaim_tp, has_memcg_reclaim_tp, has_compaction_tp;
	/* block_bio_queue, iomap_iter_dstmap (CONFIG_FS_IOMAP): io.bpf.h's devices */
	bool has_bio_tp, has_iomap_tp;
	/* The ring (load.c) and the counts (hists.c) */
	struct ring_buffer *rb;
	struct loader_stats stats;
	__u64 lost_in_band;	/* sum of the lost_before delivered */
	__u64 lost_sent;	/* drops told by LS_REC_LOST */
	__u64 lost_since_ns;	/* where the span of the next LS_REC_LOST begins */
	/* The callback of the poll in progress: ring_buffer's ctx is the loader. */
	ls_record_fn fn;
	void *fn_ctx;
	int fn_err;
	int delivered;
	__u64 next_reap_ns;	/* when to hand over the histograms of exited processes */
	/* The scans for waits begun unseen (iter.c) */
	struct prior_gate *prior_gate;	/* a scan is going on: none other starts */
	__u64 misses_scanned;	/* recursion misses when the last scan was planned */
	int late_scans;		/* scans still due after new misses; < 0: one failed, no more */
	/* LS_STACK_NOW: the task iterator (bpf/stack_now.bpf.c), loaded on first use */
	bool stacks;		/* loader_opts.stacks */
	bool verbose;
	bool sn_refused;	/* the kernel would not load or attach it: not tried again */
	struct stack_now_bpf *sn;
	struct bpf_link *sn_link;
	struct bpf_link *quiet_link;	/* the quiet waits' scan (ls_quiet_waits); NULL: none */
};

/*
 * How often the histograms of exited processes leave the kernel maps: a
 * build host starts hundreds of processes a second, and a slower or
 * smaller pass let the LS_HIST_MAX slots fill up and lose samples.
 */
#define LOADER_REAP_NS (1000000000ULL)
#define LOADER_REAP_MAX LS_HIST_MAX

/* probe.c: what must hold before anything is allocated: root, and BTF to relocate against. */
int loader_check_host(const struct loader_opts *opts);
/* Learn what the kernel offers and choose the first backend and the object. */
int loader_choose(struct loader *l, const struct loader_opts *opts, bool *has_fault_tp);
/* The CPU-time part's features and rodata, once l->ncpus is known. */
void loader_select_cpu_time(struct loader *l);
/* The verifier gave up on it (err): true when the load is to be tried again without. */
bool loader_cpu_time_failed(struct loader *l, int err);
/* Load again without a part: said on stderr (why, then err's text), noted in *refused. */
bool loader_retry_without(struct loader *l, bool *refused, const char *why, int err);
/* The options into rodata, and the programs this kernel and backend run. */
void loader_configure(struct loader *l, const struct loader_opts *opts, bool memcg,
		      bool has_fault_tp);
/* The next backend to try after l->backend (LS_BACKEND_AUTO: the first), or AUTO: none left. */
__u8 loader_backend_next(const struct loader *l, __u8 asked);
/* The rwsem function a backend program traces; NULL for any other program. */
const char *loader_rwsem_fn(const struct bpf_program *prog);
void loader_say_root(void);

/* hists.c */
void loader_hdr(struct ls_hdr *h, __u16 type, __u16 size, __u64 now);
/* Drops on all CPUs: the total, and the part not yet told in band. */
int loader_read_drops(const struct loader *l, __u64 *total, __u64 *pending);
/* Runs of our programs the kernel skipped (their recursion guard). */
__u64 loader_prog_misses(const struct loader *l);
/* Every histogram slot is free before the programs run: hand them all out. */
int loader_fill_hist_free(struct loader *l);
/* An exited process's histograms, once, final; their slots given back. */
int loader_reap_hists(struct loader *l, ls_record_fn fn, void *ctx);

/* iter.c: the iterators' links and objects, and the loader's share of a scan's gate. */
void loader_iter_free(struct loader *l);
void loader_quiet_start(struct loader *l);

#endif /* LOCKSTALL_LOADER_INTERNAL_H */
