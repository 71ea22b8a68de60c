// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BPF side, seen from user space: check that the kernel can run it, pick
 * the program variants that fit the kernel's tracepoints, load, attach in an
 * order that never sees a hold begin without its end, and deliver records.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "loader.h"
#include "util.h"
#include "lockstall.skel.h"
#include "lockstall_hash.skel.h"
#include "stack_now.skel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define LOADER_VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/*
 * Two objects are built from bpf/lockstall.bpf.c: the one for kernels with
 * BPF task storage and the 5.11-5.15 helpers, and the hash one
 * (-DLS_TASK_STATE_HASH) for kernels without (Debian 11's 5.10).  Their
 * skeletons differ only in the ELF they embed: the same maps, programs and
 * variables under the same names in the same order, since the source
 * #ifdefs only helpers and the type of task_state.  So the hash skeleton is
 * used through struct lockstall_bpf, and everything but opening has one
 * code path.  These checks fail the build if the layouts ever part.
 */
#define LOADER_SAME_MEMBER(m) \
	_Static_assert(offsetof(struct lockstall_bpf, m) == offsetof(struct lockstall_hash_bpf, m) && \
		       sizeof(((struct lockstall_bpf *)0)->m) == sizeof(((struct lockstall_hash_bpf *)0)->m), \
		       "lockstall_hash_bpf differs from lockstall_bpf at " #m)
LOADER_SAME_MEMBER(skeleton);
LOADER_SAME_MEMBER(obj);
LOADER_SAME_MEMBER(maps);
LOADER_SAME_MEMBER(progs);
LOADER_SAME_MEMBER(links);
LOADER_SAME_MEMBER(rodata);
LOADER_SAME_MEMBER(bss);
LOADER_SAME_MEMBER(maps.task_state);
LOADER_SAME_MEMBER(maps.watch);
LOADER_SAME_MEMBER(maps.drops);
LOADER_SAME_MEMBER(maps.events);
LOADER_SAME_MEMBER(maps.hist_slots);
LOADER_SAME_MEMBER(maps.hist_index);
LOADER_SAME_MEMBER(maps.hist_free);
LOADER_SAME_MEMBER(maps.stack_bufs);
LOADER_SAME_MEMBER(progs.ls_sched_switch);
LOADER_SAME_MEMBER(progs.ls_sched_switch_nostate);
LOADER_SAME_MEMBER(progs.ls_sched_waking);
LOADER_SAME_MEMBER(progs.ls_sched_wakeup);
LOADER_SAME_MEMBER(progs.ls_sched_migrate_task);
LOADER_SAME_MEMBER(progs.ls_sched_process_exit);
LOADER_SAME_MEMBER(progs.ls_sched_process_exec);
LOADER_SAME_MEMBER(progs.ls_page_fault_user);
LOADER_SAME_MEMBER(progs.ls_start_locking);
LOADER_SAME_MEMBER(progs.ls_start_locking_memcg);
LOADER_SAME_MEMBER(progs.ls_acquire_returned);
LOADER_SAME_MEMBER(progs.ls_acquire_returned_memcg);
LOADER_SAME_MEMBER(progs.ls_released);
LOADER_SAME_MEMBER(progs.ls_released_memcg);
LOADER_SAME_MEMBER(links.ls_sched_switch);
LOADER_SAME_MEMBER(links.ls_sched_switch_nostate);
LOADER_SAME_MEMBER(links.ls_released_memcg);
LOADER_SAME_MEMBER(links.ls_start_locking);
LOADER_SAME_MEMBER(progs.ls_futex_fentry);
LOADER_SAME_MEMBER(progs.ls_prior_unqueue_pi);
_Static_assert(offsetof(struct lockstall_bpf__rodata, cfg) ==
	       offsetof(struct lockstall_hash_bpf__rodata, cfg),
	       "lockstall_hash_bpf differs from lockstall_bpf at rodata cfg");
_Static_assert(offsetof(struct lockstall_bpf__bss, prior_late) ==
	       offsetof(struct lockstall_hash_bpf__bss, prior_late),
	       "lockstall_hash_bpf differs from lockstall_bpf at bss prior_late");
_Static_assert(sizeof(struct lockstall_bpf) == sizeof(struct lockstall_hash_bpf) &&
	       sizeof(struct lockstall_bpf__rodata) == sizeof(struct lockstall_hash_bpf__rodata) &&
	       sizeof(struct lockstall_bpf__bss) == sizeof(struct lockstall_hash_bpf__bss),
	       "lockstall_hash_bpf differs from lockstall_bpf");

static struct lockstall_bpf *loader_skel_open(bool hash, const struct bpf_object_open_opts *opts)
{
	if (hash)
		return (struct lockstall_bpf *)lockstall_hash_bpf__open_opts(opts);
	return lockstall_bpf__open_opts(opts);
}

/* The value of the "drops" map, as bpf/lockstall.bpf.c defines it. */
struct loader_drops {
	__u64 pending;
	__u64 total;
};

struct loader {
	struct lockstall_bpf *skel;
	struct ring_buffer *rb;
	__u32 features;
	__u8 backend;		/* enum ls_backend: the one being tried, then the one attached */
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
	bool cpu_time_refused;	/* the verifier gave up on the runnable and steal causes */
	bool said_prior;	/* why the scan is off was said (the retries come back) */
	int interrupted;	/* loads or attaches a signal cut short (EAGAIN, EINTR) */
	struct prior_gate *prior_gate;	/* a scan is going on: none other starts */
	__u64 misses_scanned;	/* recursion misses when the last scan was planned */
	int late_scans;		/* scans still due after new misses; < 0: one failed, no more */
	bool said_locks;	/* what --locks cannot trace was said */
	bool said_owners;	/* how lock owners are followed was said */
	/* The vmscan and compaction tracepoints (CONFIG_MEMCG, CONFIG_COMPACTION): reclaim.bpf.h. */
	bool has_reclaim_tp, has_memcg_reclaim_tp, has_compaction_tp;
	/* block_bio_queue, iomap_iter_dstmap (CONFIG_FS_IOMAP): io.bpf.h's devices */
	bool has_bio_tp, has_iomap_tp;
	int btf_fd;		/* --btf FILE, open while libbpf may read it; 0: none */
	int ncpus;
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
	/* LS_STACK_NOW: the task iterator (bpf/stack_now.bpf.c), loaded on first use */
	bool stacks;		/* loader_opts.stacks */
	bool verbose;
	bool sn_refused;	/* the kernel would not load or attach it: not tried again */
	struct stack_now_bpf *sn;
	struct bpf_link *sn_link;
};

_Static_assert(LOADER_STACKS_NOW_MAX == LS_STACK_NOW_MAX, "one limit for the iterator's tids");

/*
 * How often the histograms of exited processes leave the kernel maps: a
 * build host starts hundreds of processes a second, and a slower or
 * smaller pass let the LS_HIST_MAX slots fill up and lose samples.
 */
#define LOADER_REAP_NS (1000000000ULL)
#define LOADER_REAP_MAX LS_HIST_MAX

/*
 * libbpf's print callback has no context argument: verbosity is chosen by
 * which callback is installed, so no state is kept for it.
 */
static int loader_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int loader_libbpf_silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static bool loader_has_cap(const struct __user_cap_data_struct *data, int cap)
{
	return data[cap / 32].effective & (1U << (cap % 32));
}

static int loader_check_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0 ? 0 : -EPERM;
	if (loader_has_cap(data, CAP_SYS_ADMIN))
		return 0;
	/* Kernels before 5.8 know neither: there CAP_SYS_ADMIN is the answer. */
	if (loader_has_cap(data, CAP_BPF) && loader_has_cap(data, CAP_PERFMON))
		return 0;
	return -EPERM;
}

/* CAP_SYS_ADMIN in the effective set (false when it cannot be told). */
static bool loader_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	return !syscall(SYS_capget, &hdr, data) && loader_has_cap(data, CAP_SYS_ADMIN);
}

static void loader_say_root(void)
{
	/* capabilities, not uid 0: a hardened service runs with just these two */
	fprintf(stderr, "lockstall: tracing needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run it as root (sudo), or grant them (see scripts/lockstall.service)\n");
}

/* The type of id past modifiers and typedefs; NULL: none. */
static const struct btf_type *loader_btf_skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/* Does a member of this name exist in the struct, anonymous members included? */
static bool loader_btf_has_member(const struct btf *btf, const struct btf_type *t,
				  const char *name, int depth)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt;

		if (mname && *mname) {
			if (!strcmp(mname, name))
				return true;
			continue;
		}
		mt = loader_btf_skip_mods(btf, m->type);
		if (mt && btf_is_composite(mt) && depth < 4 &&
		    loader_btf_has_member(btf, mt, name, depth + 1))
			return true;
	}
	return false;
}

static bool loader_btf_struct_has(const struct btf *btf, const char *sname, const char *member)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);

	if (id < 0)
		return false;
	return loader_btf_has_member(btf, btf__type_by_id(btf, id), member, 0);
}

/* Is struct sname's own member a pointer to struct target (blocked_on to a mutex, say)? */
static bool loader_btf_member_points_to(const struct btf *btf, const char *sname,
					const char *member, const char *target)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m;
	int i;

	if (!t)
		return false;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), member))
			continue;
		t = loader_btf_skip_mods(btf, m->type);
		t = t && btf_is_ptr(t) ? loader_btf_skip_mods(btf, t->type) : NULL;
		return t && btf_is_struct(t) && !strcmp(btf__name_by_offset(btf, t->name_off), target);
	}
	return false;
}

/* Does the kernel's enum ename have the value vname (a helper's BPF_FUNC_*, say)? */
static bool loader_btf_enum_has(const struct btf *btf, const char *ename, const char *vname)
{
	int id = btf__find_by_name_kind(btf, ename, BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_enum *v;
	int i;

	if (!t)
		return false;
	v = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, v++)
		if (!strcmp(btf__name_by_offset(btf, v->name_off), vname))
			return true;
	return false;
}

/* Arguments of a tracepoint, hidden ctx included; negative if there is none. */
static int loader_btf_tp_nargs(const struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	return btf_vlen(t);
}

/*
 * The functions fentry traces futex calls on (bpf/futex.bpf.h): the x86-64
 * syscalls', and the two a woken waiter leaves its queue by, where a wait
 * found by the scan ends.  Only from the kernel's own BTF: the ids of a
 * --btf file need not be the kernel's.
 */
static void loader_probe_futex_fns(struct loader *l, const struct btf *btf, const char *btf_path)
{
	if (!btf_path && btf__find_by_name_kind(btf, "futex_unqueue", BTF_KIND_FUNC) > 0 &&
	    btf__find_by_name_kind(btf, "futex_unqueue_pi", BTF_KIND_FUNC) > 0)
		l->futex_fn_id = btf__find_by_name_kind(btf, "__x64_sys_futex", BTF_KIND_FUNC);
	if (l->futex_fn_id < 0)
		l->futex_fn_id = 0;
	l->has_futex_waitv_fn = btf__find_by_name_kind(btf, "__x64_sys_futex_waitv",
						       BTF_KIND_FUNC) > 0;
	l->has_futex_wait2_fn = btf__find_by_name_kind(btf, "__x64_sys_futex_wait",
						       BTF_KIND_FUNC) > 0;
}

/*
 * Which tracepoint layout, backends and lock features this kernel has.  The
 * tracepoints' absence is judged later, by the backend choice: the rwsem
 * functions may do instead.
 */
static int loader_probe_kernel(struct loader *l, const char *btf_path, bool *has_fault_tp)
{
	const char *from = btf_path ? btf_path : LOADER_VMLINUX_BTF;
	struct btf *btf;
	int n, err = 0;

	btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	if (!btf) {
		err = -errno;
		fprintf(stderr, "lockstall: cannot read kernel BTF (%s): %s\n", from, strerror(-err));
		return err;
	}
	n = loader_btf_tp_nargs(btf, "mmap_lock_start_locking");
	l->tp_nargs = n;
	if (n == 4) {
		/* (ctx, mm, memcg_path, write); 6.8+: (ctx, mm, write) */
		l->features |= LS_FEAT_MEMCG_PATH_ARG;
	}
	l->has_rwsem_funcs = btf__find_by_name_kind(btf, "down_read", BTF_KIND_FUNC) > 0;
	l->has_task_from_pid = btf__find_by_name_kind(btf, "bpf_task_from_pid", BTF_KIND_FUNC) > 0;
	l->has_copy_from_user_task = loader_btf_enum_has(btf, "bpf_func_id",
							 "BPF_FUNC_copy_from_user_task");
	/* 6.16+; before, CONFIG_DEBUG_MUTEXES kernels have a mutex_waiter there */
	l->has_mutex_blocked_on = loader_btf_member_points_to(btf, "task_struct", "blocked_on",
							       "mutex");
	loader_probe_futex_fns(l, btf, btf_path);
	l->has_contention_tp = loader_btf_tp_nargs(btf, "contention_begin") == 3 &&
			       loader_btf_tp_nargs(btf, "contention_end") == 3;
	if (loader_btf_struct_has(btf, "vm_area_struct", "vm_lock_seq") ||
	    loader_btf_struct_has(btf, "vm_area_struct", "vm_refcnt"))
		l->features |= LS_FEAT_PER_VMA_LOCK;
	/* CFS bandwidth (CONFIG_CFS_BANDWIDTH): bpf/causes.bpf.h reads throttle_count. */
	if (loader_btf_struct_has(btf, "cfs_rq", "throttle_count"))
		l->features |= LS_FEAT_CAUSE_THROTTLE;
	if (loader_btf_struct_has(btf, "task_struct", "throttle_node"))
		l->features |= LS_FEAT_THROTTLE_TASK;
	/* RT throttling: bpf/causes.bpf.h finds the rt_rq through RT groups or cfs_rq.rq. */
	if (loader_btf_struct_has(btf, "rt_rq", "rt_throttled") &&
	    (loader_btf_struct_has(btf, "sched_rt_entity", "rt_rq") ||
	     loader_btf_struct_has(btf, "cfs_rq", "rq")))
		l->features |= LS_FEAT_CAUSE_RT_THROTTLE;
	*has_fault_tp = loader_btf_tp_nargs(btf, "page_fault_user") > 0;
	l->has_reclaim_tp = loader_btf_tp_nargs(btf, "mm_vmscan_direct_reclaim_begin") > 0;
	l->has_memcg_reclaim_tp = loader_btf_tp_nargs(btf, "mm_vmscan_memcg_reclaim_begin") > 0;
	l->has_compaction_tp = loader_btf_tp_nargs(btf, "mm_compaction_begin") > 0;
	if (l->has_reclaim_tp)
		l->features |= LS_FEAT_CAUSE_RECLAIM;
	/* I/O waits are read at every switch; the device needs block_bio_queue's bio. */
	l->features |= LS_FEAT_CAUSE_IO;
	l->has_bio_tp = loader_btf_tp_nargs(btf, "block_bio_queue") > 0;
	l->has_iomap_tp = loader_btf_tp_nargs(btf, "iomap_iter_dstmap") > 0;
	/* Steal: the run queue's counter (CONFIG_PARAVIRT_TIME_ACCOUNTING), found through cfs_rq.rq. */
	if (loader_btf_struct_has(btf, "rq", "prev_steal_time") &&
	    loader_btf_struct_has(btf, "cfs_rq", "rq"))
		l->features |= LS_FEAT_CAUSE_STEAL;
	l->switch_nargs = loader_btf_tp_nargs(btf, "sched_switch");
	/*
	 * bpf/task_cgroup.bpf.h: every kernel has css_set.dfl_cgrp, but the
	 * switch program before 5.18 (ls_sched_switch_nostate) goes without.
	 */
	if (l->switch_nargs == 5)
		l->features |= LS_FEAT_TASK_CGROUP;
	else
		fprintf(stderr, "lockstall: the cgroups of holders and preemptors are not looked for: this kernel's verifier cannot take them before 5.18\n");
	btf__free(btf);
	return err;
}

/*
 * Can tracing programs of this kernel use what the task storage object
 * needs: the map type and bpf_get_current_task_btf() (5.11), and
 * bpf_task_pt_regs() (5.15)?  Probed with tiny programs rather than guessed
 * from the release: distributions backport.
 */
static bool loader_has_task_storage(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1 &&
	       libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_current_task_btf, NULL) == 1 &&
	       libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_task_pt_regs, NULL) == 1;
}

/* Which object: l->hash, from --task-state and the kernel.  Says why on stderr. */
static int loader_pick_object(struct loader *l, __u8 asked)
{
	bool storage = asked == LS_TASK_STATE_HASH ? false : loader_has_task_storage();

	/*
	 * The storage object calls the bpf_task_from_pid() kfunc (weak): on a
	 * kernel without it libbpf looks for it in the modules' BTF, which
	 * needs CAP_SYS_ADMIN (libbpf 1.1 fails the load without it), as in
	 * the hardened unit.  The hash object has no kfunc.
	 */
	if (storage && asked == LS_TASK_STATE_AUTO && !l->has_task_from_pid &&
	    !loader_sys_admin()) {
		fprintf(stderr, "lockstall: without CAP_SYS_ADMIN on a kernel without bpf_task_from_pid() (6.2+): per-task state in a hash map, at most %u tasks at once (--task-state=auto)\n",
			LS_TASK_STATE_MAX);
		l->hash = true;
		l->features |= LS_FEAT_TASK_STATE_HASH;
		return 0;
	}
	if (asked == LS_TASK_STATE_STORAGE && !storage) {
		fprintf(stderr, "lockstall: cannot keep per-task state in BPF task storage: this kernel lacks it or bpf_get_current_task_btf() (5.11) or bpf_task_pt_regs() (5.15): use --task-state=hash or auto\n");
		return -ENOTSUP;
	}
	l->hash = !storage;
	if (!l->hash)
		return 0;
	l->features |= LS_FEAT_TASK_STATE_HASH;
	if (asked == LS_TASK_STATE_AUTO)
		fprintf(stderr, "lockstall: no BPF task storage with bpf_task_pt_regs() on this kernel (5.15+): per-task state in a hash map, at most %u tasks at once (--task-state=auto)\n",
			LS_TASK_STATE_MAX);
	else
		fprintf(stderr, "lockstall: per-task state in a hash map, at most %u tasks at once (--task-state=hash)\n",
			LS_TASK_STATE_MAX);
	return 0;
}

/*
 * Can this kernel have backend b at all (from its BTF)?  Says why not when
 * b was asked for by name.  Whether fentry and kprobes attach is only known
 * by trying (this host's 6.18 has neither): see loader__open().
 */
static bool loader_backend_possible(const struct loader *l, __u8 b, bool say)
{
	const char *why = NULL;

	if (b == LS_BACKEND_TRACEPOINT && l->tp_nargs == -ENOENT)
		why = "the kernel has no mmap_lock tracepoints (5.11+): try --backend=fentry or kprobe";
	else if (b == LS_BACKEND_TRACEPOINT && l->tp_nargs != 3 && l->tp_nargs != 4)
		why = "the mmap_lock tracepoints have an unknown argument layout: lockstall needs an update for this kernel, or try --backend=fentry or kprobe";
	else if (b != LS_BACKEND_TRACEPOINT && !l->has_rwsem_funcs)
		why = "the kernel's BTF has no down_read(): try --backend=tracepoint";
	if (why && say)
		fprintf(stderr, "lockstall: cannot use the %s backend: %s\n", ls_backend__name(b), why);
	return !why;
}

/* The next backend to try after l->backend (LS_BACKEND_AUTO: the first), or AUTO: none left. */
static __u8 loader_backend_next(const struct loader *l, __u8 asked)
{
	__u8 b;

	if (asked != LS_BACKEND_AUTO)
		return l->backend == LS_BACKEND_AUTO && loader_backend_possible(l, asked, true) ?
		       asked : LS_BACKEND_AUTO;
	/* Cheapest first: a tracepoint fires on mmap_lock only, the rwsem functions on every rwsem. */
	for (b = l->backend + 1; b <= LS_BACKEND_KPROBE; b++) {
		if (loader_backend_possible(l, b, false))
			return b;
	}
	return LS_BACKEND_AUTO;
}

/*
 * Backend l->backend did not load or attach.  With --backend=auto: free
 * it, say so, and make the next one current; true: try that one.  fentry
 * and kprobes can be missing from a kernel that has BTF (this host's 6.18
 * refuses both), so their failure is told as the backend's; the
 * tracepoint backend's is left to the caller's messages.
 */
static bool loader_backend_failed(struct loader *l, __u8 asked, int err)
{
	const char *name = ls_backend__name(l->backend);
	__u8 next = asked == LS_BACKEND_AUTO ? loader_backend_next(l, asked) : LS_BACKEND_AUTO;

	if (next != LS_BACKEND_AUTO) {
		fprintf(stderr, "lockstall: the %s backend does not work on this kernel (%s): trying %s\n",
			name, strerror(-err), ls_backend__name(next));
		/* the same code for both objects' skeletons (see LOADER_SAME_MEMBER) */
		lockstall_bpf__destroy(l->skel);
		l->skel = NULL;
		l->backend = next;
		return true;
	}
	if (l->backend != LS_BACKEND_TRACEPOINT)
		fprintf(stderr, "lockstall: the %s backend does not work on this kernel (%s)%s\n", name,
			strerror(-err), asked == LS_BACKEND_AUTO ? "" : ": try --backend=auto");
	return false;
}

/*
 * The rwsem function a backend program (bpf/backend_rwsem.bpf.h) traces,
 * from its section ("fentry/down_read"); NULL for any other program, the
 * futex calls' fentry ones included.
 */
static const char *loader_rwsem_fn(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	const char *fn;

	sec += *sec == '?';	/* autoload-off sections */
	fn = strchr(sec, '/');
	if (!fn || (strncmp(sec, "fentry/", 7) && strncmp(sec, "fexit/", 6) &&
		    strncmp(sec, "kprobe/", 7) && strncmp(sec, "kretprobe/", 10)))
		return NULL;
	fn++;
	return !strncmp(fn, "down_", 5) || !strncmp(fn, "up_", 3) ||
	       !strcmp(fn, "downgrade_write") ? fn : NULL;
}

/* Turn on the programs of l->backend, and off the lock programs of the others. */
static void loader_backend_select(struct loader *l)
{
	struct bpf_object *obj = l->skel->obj;
	struct bpf_program *p;
	const char *sec;
	bool tp = l->backend == LS_BACKEND_TRACEPOINT;

	l->features &= ~(LS_FEAT_BACKEND_FENTRY | LS_FEAT_BACKEND_KPROBE);
	if (l->backend == LS_BACKEND_FENTRY)
		l->features |= LS_FEAT_BACKEND_FENTRY;
	else if (l->backend == LS_BACKEND_KPROBE)
		l->features |= LS_FEAT_BACKEND_KPROBE;
	bpf_object__for_each_program(p, obj) {
		sec = bpf_program__section_name(p);
		sec += *sec == '?';	/* autoload-off sections */
		if (!strncmp(sec, "tp_btf/mmap_lock_", 17)) {
			if (!tp)
				bpf_program__set_autoload(p, false);
		} else if (loader_rwsem_fn(p)) {
			bpf_program__set_autoload(p, l->backend == (*sec == 'f' ? LS_BACKEND_FENTRY :
									 LS_BACKEND_KPROBE));
		}
	}
}

/* The reclaim and compaction programs whose tracepoints this kernel has. */
static void loader_select_reclaim(struct loader *l)
{
	struct lockstall_bpf *s = l->skel;

	bpf_program__set_autoload(s->progs.ls_direct_reclaim_begin, l->has_reclaim_tp);
	bpf_program__set_autoload(s->progs.ls_direct_reclaim_end, l->has_reclaim_tp);
	bpf_program__set_autoload(s->progs.ls_memcg_reclaim_begin, l->has_memcg_reclaim_tp);
	bpf_program__set_autoload(s->progs.ls_memcg_reclaim_end, l->has_memcg_reclaim_tp);
	bpf_program__set_autoload(s->progs.ls_compaction_begin, l->has_compaction_tp);
	bpf_program__set_autoload(s->progs.ls_compaction_end, l->has_compaction_tp);
	bpf_program__set_autoload(s->progs.ls_block_bio_queue, l->has_bio_tp);
	bpf_program__set_autoload(s->progs.ls_iomap_iter_dstmap, l->has_iomap_tp);
}

/* lockstall_bpf__destroy() detaches what is stored in *link. */
/*
 * Why one --locks word cannot be traced here: NULL it can, "" it was not
 * asked for.  Both need task storage (owners by TID without
 * bpf_task_from_pid(): loader_owner_by_tid()).
 */
static const char *loader_locks_why_not(const struct loader *l, __u8 locks, __u8 bit)
{
	if (!(locks & bit))
		return "";
	if (l->hash)
		return "no task storage";
	if (bit == LS_LOCKS_FUTEX && l->futex_off[0])
		return l->futex_off;
	if (bit == LS_LOCKS_KERNEL && !l->has_contention_tp)
		return "the kernel has no lock:contention_begin/end tracepoints (5.19+)";
	return NULL;
}

/*
 * Does fentry work on function btf_id of the kernel's BTF?  Some kernels
 * refuse trampolines (a hypervisor's, one without direct calls): tried
 * with an empty program, attached and let go at once, rather than by
 * failing the whole object's load.
 */
static int loader_fentry_try(int btf_id)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id);
	int fd, link, err = 0;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ls_fentry_try", "GPL", ret0, ARRAY_SIZE(ret0), &o);
	if (fd < 0)
		return -errno;
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0)
		err = -errno;
	else
		close(link);
	close(fd);
	return err;
}

/*
 * How futex calls are traced, said on stderr: by fentry and fexit on them
 * where the kernel's trampolines work, else by the syscall tracepoints,
 * which send every syscall of every task down the kernel's slow path.
 * LOCKSTALL_FUTEX_SYSCALLS=1 asks for the tracepoints where fentry works,
 * so that the tests run both ways on one kernel.
 */
static void loader_futex_choose(struct loader *l, const struct loader_opts *opts)
{
	const char *env = getenv("LOCKSTALL_FUTEX_SYSCALLS");
	const char *why = NULL;
	char refused[64];
	int err;

	if (loader_locks_why_not(l, opts->locks, LS_LOCKS_FUTEX))
		return;
	if (env && !strcmp(env, "1"))
		why = "LOCKSTALL_FUTEX_SYSCALLS=1";
	else if (opts->btf_path)
		why = "fentry needs the kernel's own BTF, not --btf";
	else if (!l->futex_fn_id)
		why = "the kernel's BTF lacks __x64_sys_futex(), futex_unqueue() or futex_unqueue_pi()";
	else if ((err = loader_fentry_try(l->futex_fn_id))) {
		snprintf(refused, sizeof(refused), "the kernel refuses fentry (%s)", strerror(-err));
		why = refused;
	}
	l->futex_fentry = !why;
	if (why && (opts->locks & LS_LOCKS_DEFAULT)) {
		snprintf(l->futex_off, sizeof(l->futex_off),
			 "not by default where only the syscall tracepoints can trace futex calls (%s), since those slow every system call of every task (a syscall-heavy program by about a sixth): --locks all (or --locks mmap,futex) traces them",
			 why);
		return;
	}
	if (why)
		fprintf(stderr, "lockstall: futex calls traced by the syscall tracepoints, which slow every syscall: %s\n",
			why);
	else
		fprintf(stderr, "lockstall: futex calls traced by fentry on them\n");
}

/*
 * How lock owners are followed: with bpf_task_from_pid() (6.2+), else by
 * TID (bpf/owner_tid.bpf.h).  LOCKSTALL_OWNER_BY_TID=1 asks for the TID
 * way where the kfunc exists, so that the tests run it on every kernel.
 * Said on stderr once, when some lock other than mmap_lock is traced.
 */
static void loader_owner_by_tid(struct loader *l)
{
	const char *env = getenv("LOCKSTALL_OWNER_BY_TID");
	bool forced = env && !strcmp(env, "1");
	bool by_tid = forced || !l->has_task_from_pid;

	/* rodata: without futexes and kernel locks its code is dropped before verification */
	l->skel->rodata->cfg.owner_by_tid = by_tid && (l->features & (LS_FEAT_FUTEX | LS_FEAT_KLOCK));
	l->features &= ~LS_FEAT_OWNER_BY_TID;
	if (!(l->features & (LS_FEAT_FUTEX | LS_FEAT_KLOCK)))
		return;
	l->features |= by_tid ? LS_FEAT_OWNER_BY_TID : 0;
	if (l->said_owners)
		return;
	l->said_owners = true;
	if (!by_tid)
		fprintf(stderr, "lockstall: lock owners found with bpf_task_from_pid()\n");
	else
		fprintf(stderr, "lockstall: lock owners followed by TID (%s): where a futex owner is at a wait's start may be unknown\n",
			forced ? "LOCKSTALL_OWNER_BY_TID=1" :
				 "the kernel lacks bpf_task_from_pid(), 6.2+");
}

/* The futex calls' programs (on: futexes are traced), as loader_futex_choose() chose. */
static void loader_select_futex_calls(struct loader *l, bool on)
{
	struct lockstall_bpf *s = l->skel;
	bool fentry = on && l->futex_fentry;

	bpf_program__set_autoload(s->progs.ls_sys_enter, on && !fentry);
	bpf_program__set_autoload(s->progs.ls_sys_exit, on && !fentry);
	bpf_program__set_autoload(s->progs.ls_futex_fentry, fentry);
	bpf_program__set_autoload(s->progs.ls_futex_fexit, fentry);
	bpf_program__set_autoload(s->progs.ls_futex_waitv_fentry, fentry && l->has_futex_waitv_fn);
	bpf_program__set_autoload(s->progs.ls_futex_waitv_fexit, fentry && l->has_futex_waitv_fn);
	bpf_program__set_autoload(s->progs.ls_futex_wait2_fentry, fentry && l->has_futex_wait2_fn);
	bpf_program__set_autoload(s->progs.ls_futex_wait2_fexit, fentry && l->has_futex_wait2_fn);
	s->rodata->cfg.futex_fentry = fentry;
}

/*
 * --locks: the futex and kernel lock programs only where the kernel has
 * what they need, else said on stderr (once: the retries of other
 * backends come back here).
 */
static void loader_select_locks(struct loader *l, __u8 locks)
{
	struct lockstall_bpf *s = l->skel;
	const char *futex = loader_locks_why_not(l, locks, LS_LOCKS_FUTEX);
	const char *klock = loader_locks_why_not(l, locks, LS_LOCKS_KERNEL);

	if (futex && *futex && !l->said_locks)
		fprintf(stderr, "lockstall: futex waits are not traced: %s\n", futex);
	if (klock && *klock && !l->said_locks)
		fprintf(stderr, "lockstall: kernel locks are not traced: %s\n", klock);
	l->said_locks = true;
	loader_select_futex_calls(l, !futex);
	bpf_program__set_autoload(s->progs.ls_contention_begin, !klock);
	bpf_program__set_autoload(s->progs.ls_contention_end, !klock);
	l->features &= ~(LS_FEAT_FUTEX | LS_FEAT_FUTEX_WAITV | LS_FEAT_FUTEX_WAIT2 |
			 LS_FEAT_FUTEX_FENTRY | LS_FEAT_KLOCK);
	/* futex_waitv and futex_wait with the futexes: a kernel before them has no such calls */
	l->features |= (futex ? 0 : LS_FEAT_FUTEX | LS_FEAT_FUTEX_WAITV | LS_FEAT_FUTEX_WAIT2) |
		       (futex || !l->futex_fentry ? 0 : LS_FEAT_FUTEX_FENTRY) |
		       (klock ? 0 : LS_FEAT_KLOCK);
	loader_owner_by_tid(l);
}

/* Why the scan cannot look for some waits (what: "futex waits"), said once. */
static void loader_say_prior(struct loader *l, const char *what, const char *why)
{
	if (!l->said_prior)
		fprintf(stderr, "lockstall: %s that began before tracing are not looked for: %s\n",
			what, why);
}

/*
 * The scan for waits begun before tracing (ls_prior_waits in
 * bpf/prior.bpf.h): futex waits with the futex programs, kernel mutex
 * waits with the kernel lock programs where the kernel keeps
 * task_struct.blocked_on; a sleepable task iterator that reads other
 * tasks' memory.  Said once for what the kernel cannot.
 */
static void loader_select_prior(struct loader *l)
{
	bool futex = (l->features & LS_FEAT_FUTEX) && !l->prior_refused;
	bool mutex = (l->features & LS_FEAT_KLOCK) && !l->prior_refused;

	if (mutex && !l->has_mutex_blocked_on) {
		loader_say_prior(l, "kernel mutex waits",
				 "the kernel keeps no task_struct.blocked_on (6.16+)");
		mutex = false;
	}
	if ((futex || mutex) && !l->has_copy_from_user_task) {
		loader_say_prior(l, "lock waits",
				 "the kernel lacks bpf_copy_from_user_task() (5.18+)");
		futex = mutex = false;
	}
	l->said_prior = true;
	bpf_program__set_autoload(l->skel->progs.ls_prior_waits, futex || mutex);
	/* where the scan's futex waits end when fexit cannot see them (bpf/prior.bpf.h) */
	bpf_program__set_autoload(l->skel->progs.ls_prior_unqueue, futex && l->futex_fentry);
	bpf_program__set_autoload(l->skel->progs.ls_prior_unqueue_pi, futex && l->futex_fentry);
	l->skel->rodata->cfg.prior_futex = futex;
	l->skel->rodata->cfg.prior_mutex = mutex;
	l->features &= ~(LS_FEAT_PRIOR_WAITS | LS_FEAT_PRIOR_MUTEX);
	l->features |= (futex ? LS_FEAT_PRIOR_WAITS : 0) | (mutex ? LS_FEAT_PRIOR_MUTEX : 0);
}

/* Load again without what (why not): said on stderr, noted in *refused. */
static bool loader_retry_without(struct loader *l, bool *refused, const char *what,
				 const char *why, int err)
{
	fprintf(stderr, "lockstall: %s are not looked for: %s (%s)\n", what, why, strerror(-err));
	*refused = true;
	lockstall_bpf__destroy(l->skel);
	l->skel = NULL;
	return true;
}

/*
 * The verifier gave up on the switch program (E2BIG: older verifiers
 * explore more of it): try once more without the runnable and steal
 * causes, the largest part of it tracing does without.
 */
static bool loader_cpu_time_failed(struct loader *l, int err)
{
	if (err != -E2BIG || l->cpu_time_refused ||
	    !(l->features & (LS_FEAT_CAUSE_RUNNABLE | LS_FEAT_CAUSE_STEAL | LS_FEAT_TASK_CGROUP)))
		return false;
	return loader_retry_without(l, &l->cpu_time_refused,
				    "the runnable and steal causes and the cgroups of holders and preemptors",
				    "this kernel's verifier cannot take them", err);
}

/* The load or attach failed with fentry on the futex calls: the syscall tracepoints instead. */
static bool loader_futex_fentry_failed(struct loader *l, int err)
{
	if (!(l->features & LS_FEAT_FUTEX_FENTRY))
		return false;
	fprintf(stderr, "lockstall: futex calls traced by the syscall tracepoints after all: fentry on them failed (%s)\n",
		strerror(-err));
	l->futex_fentry = false;
	lockstall_bpf__destroy(l->skel);
	l->skel = NULL;
	return true;
}

/*
 * The load failed with the scan in: try once more without it, which
 * tracing does not need (a kernel that refuses sleepable iterators).
 */
static bool loader_prior_failed(struct loader *l, int err)
{
	if (!(l->features & (LS_FEAT_PRIOR_WAITS | LS_FEAT_PRIOR_MUTEX)))
		return false;
	return loader_retry_without(l, &l->prior_refused,
				    "lock waits that began before tracing",
				    "the kernel refused the scan", err);
}

/* How many loads a signal may cut short in a row: a reload storm, not a kernel's refusal. */
#define LOADER_MAX_INTERRUPTED	64

/*
 * The verifier gives up with EAGAIN when a signal is pending (a SIGHUP from
 * a reload while the programs load), which says nothing about the kernel:
 * load again, as it was, rather than take it for a backend's or a
 * feature's failure.  *retry: try again; false with an interrupted err: give up.
 */
static bool loader_interrupted(struct loader *l, int err, bool *retry)
{
	*retry = false;
	if (err != -EAGAIN && err != -EINTR)
		return false;
	if (++l->interrupted > LOADER_MAX_INTERRUPTED) {
		fprintf(stderr, "lockstall: loading the BPF programs was cut short by signals %d times: giving up\n",
			LOADER_MAX_INTERRUPTED);
		return true;
	}
	lockstall_bpf__destroy(l->skel);
	l->skel = NULL;
	*retry = true;
	return true;
}

static int loader_attach_one(struct bpf_program *prog, struct bpf_link **link)
{
	int err;

	if (!bpf_program__autoload(prog))
		return 0;
	*link = bpf_program__attach(prog);
	if (!*link) {
		err = -errno;
		fprintf(stderr, "lockstall: cannot attach BPF program %s: %s\n",
			bpf_program__name(prog), strerror(-err));
		return err;
	}
	return 0;
}

/*
 * When an rwsem backend program attaches: 0 the releases (up_*(), and
 * downgrade_write(), which ends a write hold), 1 the returns of down_*(),
 * 2 their entries; -1 not one of them.  As for the tracepoints, so that
 * every hold whose start is seen has its end seen.
 */
static int loader_rwsem_pass(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	const char *fn = loader_rwsem_fn(prog);

	if (!bpf_program__autoload(prog) || !fn)
		return -1;
	if (!strncmp(fn, "up_", 3) || !strcmp(fn, "downgrade_write"))
		return 0;
	sec += *sec == '?';
	return !strncmp(sec, "fexit/", 6) || !strncmp(sec, "kretprobe/", 10) ? 1 : 2;
}

/*
 * libbpf 1.1 (Debian 12) reads --btf (btf_custom_path) for CO-RE only: the
 * attach points of the tp_btf and fentry programs it looks up in the kernel
 * BTF it finds itself, /sys/kernel/btf/vmlinux or else /boot/vmlinux-RELEASE
 * (and a few more).  Without the sysfs file, show it FILE at that second
 * place in a mount namespace of our own, a tmpfs over /boot holding a
 * symlink, which nobody but lockstall (and the hooks it starts) sees.  The
 * link goes through our open descriptor: FILE may itself be under /boot.
 */
static int loader_btf_expose(struct loader *l, const char *path)
{
	char link[512], target[64];
	struct utsname u;
	int err;

	l->btf_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->btf_fd < 0) {
		err = -errno;
		l->btf_fd = 0;
		fprintf(stderr, "lockstall: cannot open --btf %s: %s\n", path, strerror(-err));
		return err;
	}
	snprintf(target, sizeof(target), "/proc/%d/fd/%d", (int)getpid(), l->btf_fd);
	if (uname(&u) || unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("lockstall-btf", "/boot", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k,mode=0755"))
		goto fail;
	snprintf(link, sizeof(link), "/boot/vmlinux-%s", u.release);
	if (symlink(target, link))
		goto fail;
	return 0;
fail:
	err = -errno;
	fprintf(stderr, "lockstall: cannot show --btf %s to libbpf as /boot/vmlinux-%s (in a mount namespace of lockstall's): %s\n",
		path, u.release, strerror(-err));
	return err;
}

static int loader_attach(struct loader *l)
{
	struct lockstall_bpf *s = l->skel;
	bool memcg = l->features & LS_FEAT_MEMCG_PATH_ARG;
	bool nostate = l->switch_nargs != 5;
	/*
	 * The scheduler first, so a task's state is followed from its first
	 * lock event; then release before acquire_returned before
	 * start_locking, so every hold whose start is seen has its end seen.
	 */
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} order[] = {
		{ nostate ? s->progs.ls_sched_switch_nostate : s->progs.ls_sched_switch,
		  nostate ? &s->links.ls_sched_switch_nostate : &s->links.ls_sched_switch },
		{ s->progs.ls_sched_waking, &s->links.ls_sched_waking },
		{ s->progs.ls_sched_wakeup, &s->links.ls_sched_wakeup },
		{ s->progs.ls_sched_migrate_task, &s->links.ls_sched_migrate_task },
		{ s->progs.ls_sched_process_exit, &s->links.ls_sched_process_exit },
		{ s->progs.ls_sched_process_exec, &s->links.ls_sched_process_exec },
		{ s->progs.ls_page_fault_user, &s->links.ls_page_fault_user },
		{ memcg ? s->progs.ls_released_memcg : s->progs.ls_released,
		  memcg ? &s->links.ls_released_memcg : &s->links.ls_released },
		{ memcg ? s->progs.ls_acquire_returned_memcg : s->progs.ls_acquire_returned,
		  memcg ? &s->links.ls_acquire_returned_memcg : &s->links.ls_acquire_returned },
		{ memcg ? s->progs.ls_start_locking_memcg : s->progs.ls_start_locking,
		  memcg ? &s->links.ls_start_locking_memcg : &s->links.ls_start_locking },
		/* futex waits: the end before the start, as for mmap_lock */
		{ s->progs.ls_sys_exit, &s->links.ls_sys_exit },
		{ s->progs.ls_sys_enter, &s->links.ls_sys_enter },
		{ s->progs.ls_prior_unqueue, &s->links.ls_prior_unqueue },
		{ s->progs.ls_prior_unqueue_pi, &s->links.ls_prior_unqueue_pi },
		{ s->progs.ls_futex_fexit, &s->links.ls_futex_fexit },
		{ s->progs.ls_futex_fentry, &s->links.ls_futex_fentry },
		{ s->progs.ls_futex_waitv_fexit, &s->links.ls_futex_waitv_fexit },
		{ s->progs.ls_futex_waitv_fentry, &s->links.ls_futex_waitv_fentry },
		{ s->progs.ls_futex_wait2_fexit, &s->links.ls_futex_wait2_fexit },
		{ s->progs.ls_futex_wait2_fentry, &s->links.ls_futex_wait2_fentry },
		/* reclaim and compaction: the ends before the starts, likewise */
		{ s->progs.ls_direct_reclaim_end, &s->links.ls_direct_reclaim_end },
		{ s->progs.ls_memcg_reclaim_end, &s->links.ls_memcg_reclaim_end },
		{ s->progs.ls_compaction_end, &s->links.ls_compaction_end },
		{ s->progs.ls_direct_reclaim_begin, &s->links.ls_direct_reclaim_begin },
		{ s->progs.ls_memcg_reclaim_begin, &s->links.ls_memcg_reclaim_begin },
		{ s->progs.ls_compaction_begin, &s->links.ls_compaction_begin },
		{ s->progs.ls_block_bio_queue, &s->links.ls_block_bio_queue },
		{ s->progs.ls_iomap_iter_dstmap, &s->links.ls_iomap_iter_dstmap },
		/* kernel locks: likewise */
		{ s->progs.ls_contention_end, &s->links.ls_contention_end },
		{ s->progs.ls_contention_begin, &s->links.ls_contention_begin },
	};
	const struct bpf_object_skeleton *sk = s->skeleton;
	int i, pass, err;

	for (i = 0; i < (int)ARRAY_SIZE(order); i++) {
		err = loader_attach_one(order[i].prog, order[i].link);
		if (err)
			return err;
	}
	/* The rwsem backends after the scheduler, in the same order of lock events. */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < sk->prog_cnt; i++) {
			if (loader_rwsem_pass(*sk->progs[i].prog) != pass)
				continue;
			err = loader_attach_one(*sk->progs[i].prog, sk->progs[i].link);
			if (err)
				return err;
		}
	}
	return 0;
}

static int loader_on_sample(void *ctx, void *data, size_t size)
{
	struct loader *l = ctx;
	const struct ls_hdr *h = data;
	int err;

	if (size >= sizeof(*h))
		l->lost_in_band += h->lost_before;
	l->stats.records++;
	l->stats.bytes += size;
	err = l->fn(l->fn_ctx, data, size);
	if (err < 0) {
		l->fn_err = err;
		return err;
	}
	l->delivered++;
	return 0;
}

static int loader_fill_hist_free(struct loader *l);

/* What must hold before anything is allocated: root, and BTF to relocate against. */
static int loader_check_host(const struct loader_opts *opts)
{
	if (loader_check_privileges()) {
		loader_say_root();
		return -EPERM;
	}
	if (!opts->btf_path && access(LOADER_VMLINUX_BTF, R_OK)) {
		fprintf(stderr, "lockstall: kernel has no BTF (%s): pass --btf FILE (this kernel's BTF, e.g. a copy of that file or from BTFHub), or use a kernel built with CONFIG_DEBUG_INFO_BTF\n",
			LOADER_VMLINUX_BTF);
		return -ENOTSUP;
	}
	return 0;
}

/* Learn what the kernel offers and choose the first backend and the object. */
static int loader_choose(struct loader *l, const struct loader_opts *opts, bool *has_fault_tp)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	int err;

	if (opts->btf_path && access(LOADER_VMLINUX_BTF, R_OK)) {
		err = loader_btf_expose(l, opts->btf_path);
		if (err)
			return err;
	}
	err = loader_probe_kernel(l, opts->btf_path, has_fault_tp);
	if (err)
		return err;
	l->backend = loader_backend_next(l, opts->backend);
	if (l->backend == LS_BACKEND_AUTO) {
		if (opts->backend == LS_BACKEND_AUTO)
			fprintf(stderr, "lockstall: cannot trace mmap_lock: the kernel has neither the mmap_lock tracepoints (5.11+) nor down_read() in its BTF\n");
		return -ENOTSUP;
	}

	/* Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK. */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);

	libbpf_set_print(opts->verbose ? loader_libbpf_print : loader_libbpf_silent);
	/* (ctx, preempt, prev, next[, prev_state]): prev_state since 5.18 */
	if (l->switch_nargs != 4 && l->switch_nargs != 5) {
		fprintf(stderr, "lockstall: the sched_switch tracepoint has an unknown argument layout (%d): lockstall needs an update for this kernel\n",
			l->switch_nargs);
		return -ENOTSUP;
	}
	err = loader_pick_object(l, opts->task_state);
	if (!err)
		loader_futex_choose(l, opts);
	return err;
}

/* The options into rodata, and the programs this kernel and backend run. */
static void loader_configure(struct loader *l, const struct loader_opts *opts, bool memcg,
			     bool has_fault_tp)
{
	struct lockstall_bpf *s = l->skel;

	s->rodata->cfg.min_wait_ns = opts->threshold_ns;
	s->rodata->cfg.min_hold_ns = opts->min_hold_ns;
	s->rodata->cfg.self_tgid = getpid();
	s->rodata->cfg.kstacks = opts->stacks;
	s->rodata->cfg.ustack_mode = opts->stacks ? opts->ustack_mode : LS_USTACK_NONE;
	s->rodata->cfg.ustack_copy = opts->ustack_copy;
	bpf_program__set_autoload(l->switch_nargs == 5 ? s->progs.ls_sched_switch_nostate :
				  s->progs.ls_sched_switch, false);

	bpf_program__set_autoload(memcg ? s->progs.ls_start_locking : s->progs.ls_start_locking_memcg, false);
	bpf_program__set_autoload(memcg ? s->progs.ls_acquire_returned : s->progs.ls_acquire_returned_memcg, false);
	bpf_program__set_autoload(memcg ? s->progs.ls_released : s->progs.ls_released_memcg, false);
	/* Without it (not x86) every lock request is told as a syscall. */
	if (!has_fault_tp)
		bpf_program__set_autoload(s->progs.ls_page_fault_user, false);
	loader_select_reclaim(l);
	loader_select_locks(l, opts->locks);
	loader_select_prior(l);
	loader_backend_select(l);
	l->stacks = opts->stacks;
	l->verbose = opts->verbose;
}

/* The per-CPU maps get one entry per possible CPU. */
static int loader_size_maps(struct loader *l, const struct loader_opts *opts)
{
	int err;

	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus <= 0) {
		err = l->ncpus ? l->ncpus : -EINVAL;
		fprintf(stderr, "lockstall: cannot count the possible CPUs: %s\n", strerror(-err));
		return err;
	}
	/* The BPF side keeps 1 + a CPU number in 16 bits (ls_task_state.watch_slot). */
	if (l->ncpus > 65534) {
		fprintf(stderr, "lockstall: %d possible CPUs: at most 65534 are supported\n",
			l->ncpus);
		return -E2BIG;
	}
	/* rodata, like the options: a holder allowed fewer CPUs than these is pinned. */
	l->skel->rodata->cfg.nr_cpus = l->ncpus > 1 && !l->cpu_time_refused ? l->ncpus : 0;
	l->features &= ~LS_FEAT_CAUSE_RUNNABLE;
	if (l->skel->rodata->cfg.nr_cpus)
		l->features |= LS_FEAT_CAUSE_RUNNABLE;
	if (l->cpu_time_refused)
		l->features &= ~(LS_FEAT_CAUSE_STEAL | LS_FEAT_TASK_CGROUP);
	l->skel->rodata->cfg.steal = !!(l->features & LS_FEAT_CAUSE_STEAL);
	l->skel->rodata->cfg.task_cgroups = !!(l->features & LS_FEAT_TASK_CGROUP);
	err = bpf_map__set_max_entries(l->skel->maps.watch, l->ncpus);
	if (!err)
		err = bpf_map__set_max_entries(l->skel->maps.stack_bufs, opts->stacks ? l->ncpus : 1);
	if (err)
		fprintf(stderr, "lockstall: cannot size the BPF maps to %d CPUs: %s\n", l->ncpus,
			strerror(-err));
	return err;
}

/*
 * LOCKSTALL_VERIFY_STATS=1 (make verify-stats): the verifier's statistics
 * of each program loaded, one line each on stderr.  The buffers of every
 * program, LOADER_VSTATS_LEN bytes each; NULL when not asked (or no memory:
 * then nothing is said).
 */
#define LOADER_VSTATS_LEN 4096

static char *loader_vstats_prepare(struct loader *l)
{
	const char *env = getenv("LOCKSTALL_VERIFY_STATS");
	struct bpf_program *p;
	size_t n = 0;
	char *buf;

	if (!env || strcmp(env, "1"))
		return NULL;
	bpf_object__for_each_program(p, l->skel->obj)
		n++;
	buf = calloc(n, LOADER_VSTATS_LEN);
	if (!buf)
		return NULL;
	n = 0;
	bpf_object__for_each_program(p, l->skel->obj) {
		bpf_program__set_log_level(p, 4);	/* statistics only */
		bpf_program__set_log_buf(p, buf + n++ * LOADER_VSTATS_LEN, LOADER_VSTATS_LEN);
	}
	return buf;
}

static unsigned long long loader_vstats_field(const char *log, const char *key)
{
	const char *at = strstr(log, key);

	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

static void loader_vstats_print(struct loader *l, char *buf)
{
	unsigned long long insns = 0, us = 0;
	struct bpf_program *p;
	const char *log;
	size_t n = 0;

	if (!buf)
		return;
	bpf_object__for_each_program(p, l->skel->obj) {
		log = buf + n++ * LOADER_VSTATS_LEN;
		if (!bpf_program__autoload(p))
			continue;
		fprintf(stderr, "lockstall: verified %s: %llu insns, %llu states, %llu us\n",
			bpf_program__name(p), loader_vstats_field(log, "processed "),
			loader_vstats_field(log, "total_states "),
			loader_vstats_field(log, "verification time "));
		insns += loader_vstats_field(log, "processed ");
		us += loader_vstats_field(log, "verification time ");
	}
	fprintf(stderr, "lockstall: verified in all: %llu insns, %llu us\n", insns, us);
}

static int loader_load(struct loader *l)
{
	char *vstats = loader_vstats_prepare(l);
	int err = lockstall_bpf__load(l->skel);

	if (!err)
		loader_vstats_print(l, vstats);
	free(vstats);
	return err;
}

/* Why the load failed, when the backend's own message has not said it. */
static void loader_say_load_failed(const struct loader *l, int err)
{
	if (l->backend != LS_BACKEND_TRACEPOINT)
		return;	/* said */
	if (err == -EPERM)
		loader_say_root();
	else
		fprintf(stderr, "lockstall: cannot load the BPF programs into the kernel: %s (rerun with --verbose for the verifier's log)\n",
			strerror(-err));
}

/* The ring buffer the records come through. */
static int loader_open_ring(struct loader *l)
{
	int err;

	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.events), loader_on_sample, l, NULL);
	if (!l->rb) {
		err = -errno;
		fprintf(stderr, "lockstall: cannot open the BPF ring buffer: %s\n", strerror(-err));
		return err;
	}
	l->lost_since_ns = ls_now_ns();
	return 0;
}

/*
 * Open, configure, load and attach; a backend that fails to load or
 * attach under --backend=auto gives way to the next (retry).
 */
static int loader_open(struct loader **out, const struct loader_opts *opts)
{
	/* CO-RE relocations against --btf's types when given. */
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .btf_custom_path = opts->btf_path);
	struct loader *l;
	bool memcg, has_fault_tp = false, again;
	int err;

	*out = NULL;
	err = loader_check_host(opts);
	if (err)
		return err;
	l = calloc(1, sizeof(*l));
	if (!l) {
		fprintf(stderr, "lockstall: cannot allocate the loader: out of memory\n");
		return -ENOMEM;
	}
	err = loader_choose(l, opts, &has_fault_tp);
	if (err)
		goto cleanup;
	memcg = l->features & LS_FEAT_MEMCG_PATH_ARG;

retry:
	l->skel = loader_skel_open(l->hash, &open_opts);
	if (!l->skel) {
		err = -errno;
		fprintf(stderr, "lockstall: cannot open the BPF object: %s\n", strerror(-err));
		goto cleanup;
	}
	loader_configure(l, opts, memcg, has_fault_tp);
	err = loader_size_maps(l, opts);
	if (err)
		goto cleanup;
	err = loader_load(l);
	if (err && loader_interrupted(l, err, &again))
		goto interrupted;
	if (err) {
		if (loader_cpu_time_failed(l, err) || loader_futex_fentry_failed(l, err) ||
		    loader_prior_failed(l, err) || loader_backend_failed(l, opts->backend, err))
			goto retry;
		loader_say_load_failed(l, err);
		goto cleanup;
	}
	err = loader_fill_hist_free(l);
	if (err)
		goto cleanup;
	err = loader_attach(l);
	if (err && loader_interrupted(l, err, &again))
		goto interrupted;
	if (err && (loader_futex_fentry_failed(l, err) ||
		    loader_backend_failed(l, opts->backend, err)))
		goto retry;
	if (err)
		goto cleanup;
	if (opts->backend == LS_BACKEND_AUTO)
		fprintf(stderr, "lockstall: using the %s backend (--backend=auto)\n",
			ls_backend__name(l->backend));
	err = loader_open_ring(l);
	if (err)
		goto cleanup;
	*out = l;
	return 0;

interrupted:
	if (again)
		goto retry;
cleanup:
	loader__free(l);
	return err;
}

/* A reload (SIGHUP) while the programs load waits until they are in: it would only cut the load short. */
int loader__open(struct loader **out, const struct loader_opts *opts)
{
	sigset_t reload, old;
	int err;

	sigemptyset(&reload);
	sigaddset(&reload, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &reload, &old);
	err = loader_open(out, opts);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

__u32 loader__features(const struct loader *l)
{
	return l->features;
}

static int loader_reap_hists(struct loader *l, ls_record_fn fn, void *ctx);

int loader__poll(struct loader *l, int timeout_ms, ls_record_fn fn, void *ctx)
{
	__u64 now;
	int err;

	l->fn = fn;
	l->fn_ctx = ctx;
	l->fn_err = 0;
	l->delivered = 0;
	err = ring_buffer__poll(l->rb, timeout_ms);
	/*
	 * The BPF side wakes us only when the ring fills up (see
	 * ls_emit_submit()), so a timeout does not mean it is empty.
	 */
	if (!l->fn_err && (err >= 0 || err == -EINTR))
		err = ring_buffer__consume(l->rb);
	l->fn = NULL;
	if (l->fn_err)
		return l->fn_err;
	if (err < 0 && err != -EINTR)
		return err;
	now = ls_now_ns();
	if (now >= l->next_reap_ns) {
		l->next_reap_ns = now + LOADER_REAP_NS;
		err = loader_reap_hists(l, fn, ctx);
		if (err < 0)
			return err;
	}
	return l->delivered;
}

int loader__epoll_fd(const struct loader *l)
{
	return ring_buffer__epoll_fd(l->rb);
}

static void loader_hdr(struct ls_hdr *h, __u16 type, __u16 size, __u64 now)
{
	h->type = type;
	h->size = size;
	h->cpu = 0;
	h->lost_before = 0;
	h->ts = now;
}

/* Drops on all CPUs: the total, and the part not yet told in band. */
static int loader_read_drops(const struct loader *l, __u64 *total, __u64 *pending)
{
	struct loader_drops *per_cpu;
	__u32 zero = 0;
	int i, err;

	*total = 0;
	*pending = 0;
	per_cpu = calloc(l->ncpus, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	err = bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.drops), &zero, per_cpu);
	if (err) {
		err = -errno;
		goto cleanup;
	}
	for (i = 0; i < l->ncpus; i++) {
		*total += per_cpu[i].total;
		*pending += per_cpu[i].pending;
	}
cleanup:
	free(per_cpu);
	return err;
}

/*
 * Runs of our programs the kernel skipped: one was still running on that
 * CPU (its recursion guard).  A program preempted midway, as PREEMPT_RT
 * allows, makes the next task's event on that CPU one of these.  Each is an
 * event lost, though no record was dropped.  0 before 5.12 (no count).
 */
static __u64 loader_prog_misses(const struct loader *l)
{
	struct bpf_program *p;
	__u64 misses = 0;

	bpf_object__for_each_program(p, l->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			misses += info.recursion_misses;
	}
	return misses;
}

int loader__emit_mark(struct loader *l, __u32 mark_kind, ls_record_fn fn, void *ctx)
{
	struct ls_rec_mark m;
	int err;

	memset(&m, 0, sizeof(m));
	loader_hdr(&m.hdr, LS_REC_MARK, sizeof(m), ls_now_ns());
	m.kind = mark_kind;
	m.features = mark_kind == LS_MARK_BEGIN ? l->features : 0;
	err = fn(ctx, &m, sizeof(m));
	return err < 0 ? err : 0;
}

/*
 * What the kernel leaves to us: the count (the sum of the slots, which
 * saves an atomic per lock event) and, for a live process, its name now
 * (it may have exec'd since the entry was made).  /proc/PID/comm is the
 * task's name, read without the process's mmap_lock.
 */
static void loader_hist_finish(struct ls_hist *h, __u32 tgid, bool live)
{
	char path[48], comm[LS_COMM_LEN + 1];
	ssize_t n;
	int fd, i;

	h->count = 0;
	for (i = 0; i < LS_HIST_SLOTS; i++)
		h->count += h->slots[i];
	if (!live || !tgid)
		return;
	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, LS_COMM_LEN);
	close(fd);
	if (n <= 0)
		return;
	if (comm[n - 1] == '\n')
		n--;
	memset(h->comm, 0, sizeof(h->comm));
	memcpy(h->comm, comm, (size_t)n);
}

/* Every histogram slot is free before the programs run: hand them all out. */
static int loader_fill_hist_free(struct loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.hist_free);
	__u32 i;

	for (i = 0; i < LS_HIST_MAX; i++) {
		if (bpf_map_update_elem(fd, NULL, &i, BPF_ANY)) {
			int err = -errno;

			fprintf(stderr, "lockstall: cannot set up the BPF histogram slots: %s\n",
				strerror(-err));
			return err;
		}
	}
	return 0;
}

/* key's histogram from its slot; -ENOENT when it went meanwhile (reaped). */
static int loader_hist_read(struct loader *l, const struct ls_hist_key *key, __u32 *idx,
			    struct ls_hist *out)
{
	struct ls_hist_slot slot;

	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.hist_index), key, idx) ||
	    bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.hist_slots), idx, &slot) ||
	    memcmp(&slot.key, key, sizeof(*key)))
		return -ENOENT;
	*out = slot.hist;
	return 0;
}

/* Histograms of the kernel maps, cumulative, one record each. */
static int loader_emit_hists(struct loader *l, ls_record_fn fn, void *ctx, __u64 now)
{
	int fd = bpf_map__fd(l->skel->maps.hist_index);
	struct ls_hist_key key, next;
	struct ls_rec_hist r;
	bool first = true;
	__u32 idx;
	int err;

	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		memset(&r, 0, sizeof(r));
		/* Reaped meanwhile: it was delivered then. */
		if (loader_hist_read(l, &key, &idx, &r.hist))
			continue;
		loader_hist_finish(&r.hist, key.tgid, true);
		loader_hdr(&r.hdr, LS_REC_HIST, sizeof(r), now);
		r.key = key;
		err = fn(ctx, &r, sizeof(r));
		if (err < 0)
			return err;
	}
	return 0;
}

static bool loader_tgid_gone(__u32 tgid)
{
	return kill((pid_t)tgid, 0) && errno == ESRCH;
}

/*
 * The kernel maps never free a slot, so on a host that starts processes all
 * day they would fill up and stop counting.  An exited process's
 * histograms are final: hand them to the engine (which keeps the
 * cumulative set), then free their keys and give their slots back to the
 * BPF side (zeroed first: a slot is taken as it is).  A pid reused before
 * this runs just keeps adding to the same key, which is what a new process
 * of that pid would have created.
 */
static int loader_reap_hists(struct loader *l, ls_record_fn fn, void *ctx)
{
	int fd = bpf_map__fd(l->skel->maps.hist_index);
	static const struct ls_hist_slot zero;
	struct ls_hist_key key, next, *dead;
	struct ls_rec_hist r;
	__u32 n = 0, i, idx;
	bool first = true;
	int err = 0;

	dead = calloc(LOADER_REAP_MAX, sizeof(*dead));
	if (!dead)
		return -ENOMEM;
	while (n < LOADER_REAP_MAX && !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (key.tgid && loader_tgid_gone(key.tgid))
			dead[n++] = key;
	}
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		if (loader_hist_read(l, &dead[i], &idx, &r.hist))
			continue;
		loader_hist_finish(&r.hist, dead[i].tgid, false);
		loader_hdr(&r.hdr, LS_REC_HIST, sizeof(r), ls_now_ns());
		r.key = dead[i];
		/* final: the engine may sum it with others of its command */
		r.key.flags = LS_HIST_F_EXITED;
		err = fn(ctx, &r, sizeof(r));
		if (err < 0)
			break;
		bpf_map_delete_elem(fd, &dead[i]);
		bpf_map_update_elem(bpf_map__fd(l->skel->maps.hist_slots), &idx, &zero, BPF_ANY);
		bpf_map_update_elem(bpf_map__fd(l->skel->maps.hist_free), NULL, &idx, BPF_ANY);
	}
	free(dead);
	return err < 0 ? err : 0;
}

int loader__emit_histograms(struct loader *l, __u32 mark_kind, ls_record_fn fn, void *ctx)
{
	__u64 snap_ns = ls_now_ns(), now, total, pending, told;
	struct ls_rec_lost lost;
	int err;

	err = loader_read_drops(l, &total, &pending);
	if (err)
		return err;
	total += loader_prog_misses(l);
	/*
	 * Records made before that snapshot carry their lost_before in band:
	 * deliver them before judging what the engine has not been told.
	 */
	l->fn = fn;
	l->fn_ctx = ctx;
	l->fn_err = 0;
	err = ring_buffer__consume(l->rb);
	l->fn = NULL;
	if (l->fn_err)
		return l->fn_err;
	if (err < 0)
		return err;

	now = ls_now_ns();
	err = loader_emit_hists(l, fn, ctx, now);
	if (err)
		return err;

	/*
	 * Pending drops will ride in band on their CPU's next record; at the
	 * end there is no next record, so they are told here.
	 */
	if (mark_kind != LS_MARK_END)
		total -= pending;
	told = l->lost_in_band + l->lost_sent;
	if (total > told) {
		memset(&lost, 0, sizeof(lost));
		loader_hdr(&lost.hdr, LS_REC_LOST, sizeof(lost), now);
		lost.count = total - told;
		lost.first_ns = l->lost_since_ns;
		lost.last_ns = now;
		l->lost_sent += lost.count;
		err = fn(ctx, &lost, sizeof(lost));
		if (err < 0)
			return err;
	}
	/* Drops still pending happened before now: keep the span open over them. */
	if (!pending || mark_kind == LS_MARK_END)
		l->lost_since_ns = snap_ns;

	return loader__emit_mark(l, mark_kind, fn, ctx);
}

void loader__stats(const struct loader *l, struct loader_stats *out)
{
	__u64 total, pending;

	*out = l->stats;
	if (!loader_read_drops(l, &total, &pending))
		out->drops = total;
	out->hist_misses = l->skel->bss->hist_misses;
	out->prog_misses = loader_prog_misses(l);
	out->stack_records = l->skel->bss->stack_records;
	out->stack_ns = l->skel->bss->stack_ns;
	out->kstack_saves = l->skel->bss->kstack_saves;
	out->kstack_save_ns = l->skel->bss->kstack_save_ns;
	out->task_state_full = l->skel->bss->task_state_full;
	out->owner_marks_full = l->skel->bss->owner_marks_full;
}

/* The iterator, loaded and attached once; false when the kernel refuses it. */
static bool loader_stack_now_ready(struct loader *l)
{
	if (l->sn_link)
		return true;
	if (l->sn_refused)
		return false;
	l->sn = stack_now_bpf__open_and_load();
	if (l->sn)
		l->sn_link = bpf_program__attach_iter(l->sn->progs.ls_stack_now, NULL);
	if (!l->sn_link) {
		l->sn_refused = true;
		if (l->verbose)
			fprintf(stderr, "lockstall: no task iterator (%s): stacks of pending stalls' holders are the ones from when they went off CPU\n",
				strerror(errno));
		return false;
	}
	return true;
}

static int loader_stack_now_emit(const struct ls_stack_now *sn, __u64 ts, ls_record_fn fn,
				 void *ctx)
{
	struct ls_rec_stack r;

	memset(&r, 0, sizeof(r));
	loader_hdr(&r.hdr, LS_REC_STACK, sizeof(r), ts);
	r.tid = sn->tid;
	r.tgid = sn->tgid;
	r.why = LS_STACK_NOW;
	r.user_mode = LS_USTACK_NONE;
	r.nr_kernel = sn->nr_kernel < LS_KSTACK_MAX ? sn->nr_kernel : LS_KSTACK_MAX;
	memcpy(r.kernel, sn->kernel, r.nr_kernel * sizeof(r.kernel[0]));
	return fn(ctx, &r, sizeof(r));
}

/* Run the iterator once: whole ls_stack_now entries, in the order it wrote them. */
static int loader_stack_now_read(struct loader *l, __u64 ts, ls_record_fn fn, void *ctx)
{
	static struct ls_stack_now buf[LS_STACK_NOW_MAX];
	size_t have = 0, i;
	int fd, delivered = 0, rc = 0;
	ssize_t n;

	fd = bpf_iter_create(bpf_link__fd(l->sn_link));
	if (fd < 0)
		return 0;
	while (have < sizeof(buf)) {
		n = read(fd, (char *)buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	for (i = 0; i < have / sizeof(buf[0]) && rc >= 0; i++, delivered++)
		rc = loader_stack_now_emit(&buf[i], ts, fn, ctx);
	return rc < 0 ? rc : delivered;
}

int loader__stacks_now(struct loader *l, const __u32 *tids, size_t n, __u64 ts,
		       ls_record_fn fn, void *ctx)
{
	int map_fd, rc;
	__u8 one = 1;
	size_t i;

	if (!l->stacks || !n || !loader_stack_now_ready(l))
		return 0;
	map_fd = bpf_map__fd(l->sn->maps.wanted);
	if (n > LS_STACK_NOW_MAX)
		n = LS_STACK_NOW_MAX;
	for (i = 0; i < n; i++)
		bpf_map_update_elem(map_fd, &tids[i], &one, BPF_ANY);
	rc = loader_stack_now_read(l, ts, fn, ctx);
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(map_fd, &tids[i]);
	return rc;
}

/*
 * Whether a scan is going on, shared by the loader and the scan's thread,
 * which may outlive it (a read of a waiter's memory can wait long): freed
 * by whichever lets go last.
 */
struct prior_gate {
	int refs;
	int busy;
};

static void prior_gate__put(struct prior_gate *g)
{
	if (g && !__atomic_sub_fetch(&g->refs, 1, __ATOMIC_ACQ_REL))
		free(g);
}

/* The scan's iterator, read by a thread of its own; it owns what it is given. */
struct prior_scan {
	struct bpf_link *link;
	int fd;
	bool verbose;
	bool late;
	struct prior_gate *gate;	/* a reference of its own */
};

static void prior_scan__free(struct prior_scan *ps)
{
	if (ps->fd >= 0)
		close(ps->fd);
	bpf_link__destroy(ps->link);
	__atomic_store_n(&ps->gate->busy, 0, __ATOMIC_RELEASE);
	prior_gate__put(ps->gate);
	free(ps);
}

static void *loader_prior_read(void *arg)
{
	struct prior_scan *ps = arg;
	__u32 tids[256];
	int err = 0, found = 0;
	ssize_t n;

	while ((n = read(ps->fd, tids, sizeof(tids))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		found += (int)(n / sizeof(tids[0]));
	}
	if (err)
		fprintf(stderr, "lockstall: lock waits %s were not looked for: %s\n",
			ps->late ? "whose beginning was lost" : "that began before tracing",
			strerror(-err));
	else if (ps->verbose && !ps->late)
		fprintf(stderr, "lockstall: %d lock waits began before tracing\n", found);
	else if (ps->verbose && found)
		fprintf(stderr, "lockstall: %d lock waits found late (their beginning was lost)\n",
			found);
	prior_scan__free(ps);
	return NULL;
}

/* One scan, read by a thread of its own; late: after start-up (prior_late). */
static int loader_prior_scan(struct loader *l, bool late)
{
	struct prior_scan *ps;
	pthread_attr_t attr;
	pthread_t t;
	int err;

	if (!l->prior_gate) {
		l->prior_gate = calloc(1, sizeof(*l->prior_gate));
		if (!l->prior_gate)
			return -ENOMEM;
		l->prior_gate->refs = 1;
	}
	if (__atomic_exchange_n(&l->prior_gate->busy, 1, __ATOMIC_ACQ_REL))
		return -EBUSY;
	ps = calloc(1, sizeof(*ps));
	if (!ps) {
		__atomic_store_n(&l->prior_gate->busy, 0, __ATOMIC_RELEASE);
		return -ENOMEM;
	}
	__atomic_add_fetch(&l->prior_gate->refs, 1, __ATOMIC_ACQ_REL);
	ps->gate = l->prior_gate;
	ps->verbose = l->verbose;
	ps->late = late;
	/* read by the iterator as it runs: no other scan runs meanwhile (the gate) */
	l->skel->bss->prior_late = late;
	ps->link = bpf_program__attach_iter(l->skel->progs.ls_prior_waits, NULL);
	ps->fd = ps->link ? bpf_iter_create(bpf_link__fd(ps->link)) : -1;
	err = ps->fd < 0 ? -errno : 0;
	/*
	 * A read of a waiter's memory takes its process's mmap_lock (the
	 * scan skips a busy one, but a writer may come between): a thread
	 * of its own waits for it, never the loop that drains the ring.
	 */
	if (!err)
		err = -pthread_attr_init(&attr);
	if (!err) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = -pthread_create(&t, &attr, loader_prior_read, ps);
		pthread_attr_destroy(&attr);
	}
	if (!err)
		return 0;
	prior_scan__free(ps);
	fprintf(stderr, "lockstall: lock waits %s were not looked for: %s\n",
		late ? "whose beginning was lost" : "that began before tracing", strerror(-err));
	return err;
}

static bool loader_scans(const struct loader *l)
{
	return l->features & (LS_FEAT_PRIOR_WAITS | LS_FEAT_PRIOR_MUTEX);
}

int loader__prior_waits(struct loader *l)
{
	if (!loader_scans(l))
		return 0;
	l->misses_scanned = loader_prog_misses(l);
	return loader_prior_scan(l, false);
}

int loader__late_waits(struct loader *l)
{
	__u64 misses;
	int err;

	if (!loader_scans(l) || l->late_scans < 0)
		return 0;
	misses = loader_prog_misses(l);
	if (misses > l->misses_scanned) {
		l->misses_scanned = misses;
		l->late_scans = 2;
	}
	if (!l->late_scans)
		return 0;
	err = loader_prior_scan(l, true);
	if (err == -EBUSY)
		return 0;	/* the next period, after it */
	/* said on stderr once: it would fail the same way each time */
	l->late_scans = err ? -1 : l->late_scans - 1;
	return err;
}

void loader__free(struct loader *l)
{
	if (!l)
		return;
	prior_gate__put(l->prior_gate);
	bpf_link__destroy(l->sn_link);
	stack_now_bpf__destroy(l->sn);
	ring_buffer__free(l->rb);
	lockstall_bpf__destroy(l->skel);
	if (l->btf_fd > 0)
		close(l->btf_fd);
	free(l);
}
