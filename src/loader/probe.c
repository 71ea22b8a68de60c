// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the kernel offers and what to run on it: privileges, the kernel's
 * BTF (tracepoint layouts, functions, struct members), task storage or the
 * hash object, the backend, the futex calls' tracing, the lock kinds and
 * the prior waits' scan, and the options set into the object's rodata.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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

#include "loader/internal.h"
#include "util.h"
#include "lockstall.skel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define LOADER_VMLINUX_BTF "/sys/kernel/btf/vmlinux"

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

void loader_say_root(void)
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
	/* CFS bandwidth (CONFIG_CFS_BANDWIDTH): bpf/throttle.bpf.h reads throttle_count. */
	if (loader_btf_struct_has(btf, "cfs_rq", "throttle_count"))
		l->features |= LS_FEAT_CAUSE_THROTTLE;
	if (loader_btf_struct_has(btf, "task_struct", "throttle_node"))
		l->features |= LS_FEAT_THROTTLE_TASK;
	/* RT throttling: bpf/throttle.bpf.h finds the rt_rq through RT groups or cfs_rq.rq. */
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
 * by trying (a kernel with BTF may refuse both): see loader__open().
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
__u8 loader_backend_next(const struct loader *l, __u8 asked)
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
 * The rwsem function a backend program (bpf/backend_rwsem.bpf.h) traces,
 * from its section ("fentry/down_read"); NULL for any other program, the
 * futex calls' fentry ones included.
 */
const char *loader_rwsem_fn(const struct bpf_program *prog)
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

/*
 * Quiet waits (bpf/owner.bpf.h): futex and kernel lock waits send nothing
 * unless they last the threshold, where the scan that finds long ones
 * can run (bpf/prior.bpf.h: task storage, and owners found by
 * bpf_task_from_pid(), whose OWNER record can come late).
 * LOCKSTALL_QUIET_WAITS=0 sends every wait, as kernels without them do.
 */
static void loader_select_quiet(struct loader *l)
{
	const char *env = getenv("LOCKSTALL_QUIET_WAITS");
	bool quiet = (l->features & (LS_FEAT_FUTEX | LS_FEAT_KLOCK)) && !l->hash &&
		     !(l->features & LS_FEAT_OWNER_BY_TID) && !l->quiet_refused &&
		     !(env && !strcmp(env, "0"));

	bpf_program__set_autoload(l->skel->progs.ls_quiet_waits, quiet);
	l->features &= ~LS_FEAT_QUIET_WAITS;
	l->features |= quiet ? LS_FEAT_QUIET_WAITS : 0;
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

/* What must hold before anything is allocated: root, and BTF to relocate against. */
int loader_check_host(const struct loader_opts *opts)
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
int loader_choose(struct loader *l, const struct loader_opts *opts, bool *has_fault_tp)
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

/* The switch program's CPU-time part: causes.bpf.h's pinned and steal causes, task_cgroup.bpf.h. */
#define LOADER_FEAT_CPU_TIME (LS_FEAT_CAUSE_RUNNABLE | LS_FEAT_CAUSE_STEAL | LS_FEAT_TASK_CGROUP)

/*
 * The CPU-time part, once the possible CPUs are counted: into rodata, like
 * the options (a holder allowed fewer CPUs than these is pinned), unless a
 * verifier refused it.
 */
void loader_select_cpu_time(struct loader *l)
{
	struct ls_bpf_config *cfg = &l->skel->rodata->cfg;

	l->features |= LS_FEAT_CAUSE_RUNNABLE;
	if (l->ncpus <= 1)
		l->features &= ~LS_FEAT_CAUSE_RUNNABLE;
	if (l->cpu_time_refused)
		l->features &= ~LOADER_FEAT_CPU_TIME;
	cfg->nr_cpus = l->features & LS_FEAT_CAUSE_RUNNABLE ? l->ncpus : 0;
	cfg->steal = !!(l->features & LS_FEAT_CAUSE_STEAL);
	cfg->task_cgroups = !!(l->features & LS_FEAT_TASK_CGROUP);
}

/*
 * The verifier gave up on the switch program (E2BIG: older verifiers
 * explore more of it): try once more without the runnable and steal
 * causes, the largest part of it tracing does without.
 */
bool loader_cpu_time_failed(struct loader *l, int err)
{
	if (err != -E2BIG || l->cpu_time_refused ||
	    !(l->features & LOADER_FEAT_CPU_TIME))
		return false;
	return loader_retry_without(l, &l->cpu_time_refused,
				    "the runnable and steal causes and the cgroups of holders and preemptors are not looked for: this kernel's verifier cannot take them",
				    err);
}

/* The options into rodata, and the programs this kernel and backend run. */
void loader_configure(struct loader *l, const struct loader_opts *opts, bool memcg,
		      bool has_fault_tp)
{
	struct lockstall_bpf *s = l->skel;

	s->rodata->cfg.min_wait_ns = opts->threshold_ns;
	s->rodata->cfg.min_hold_ns = opts->min_hold_ns;
	s->rodata->cfg.self_tgid = getpid();
	s->rodata->cfg.kstacks = opts->stacks;
	s->rodata->cfg.ustack_mode = opts->stacks ? opts->ustack_mode : LS_USTACK_NONE;
	s->rodata->cfg.ustack_copy = opts->ustack_copy;
	s->rodata->cfg.stack_interval_ns = opts->stack_interval_ns;
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
	loader_select_quiet(l);
	loader_backend_select(l);
	l->stacks = opts->stacks;
	l->verbose = opts->verbose;
}
