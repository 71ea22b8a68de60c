/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fentry and kprobe backends: the rwsem functions behind mm->mmap_lock
 * (mmap_sem before 5.8), for kernels without the mmap_lock tracepoints
 * (before 5.11) or where they are not usable.  Included at the end of
 * lockstall.bpf.c.  Every program here is autoload-off ("?" sections): the
 * loader turns on one set, so a kernel that lacks these functions or
 * fentry still loads the tracepoint backend.
 *
 * They call the tracepoint handlers, so records, engine and output do not
 * depend on the backend.  The mmap_lock wrappers (include/linux/mmap_lock.h)
 * fire the tracepoints around the rwsem calls like this:
 *
 *	mmap_*_lock[_killable]()  start_locking; down_*[_killable]();  acquire_returned
 *	mmap_*_trylock()          start_locking; down_*_trylock();     acquire_returned(ok)
 *	mmap_*_unlock()           released;      up_*()
 *	mmap_write_downgrade()    acquire_returned(read, ok); downgrade_write()
 *
 * so the entry of down_*() is start_locking, its return acquire_returned,
 * the entry of up_*() released, and the entry of downgrade_write() an
 * acquire_returned(read) with no wait (what ls_on_acquire_returned() takes
 * for a downgrade).
 */
#ifndef LOCKSTALL_BACKEND_RWSEM_BPF_H
#define LOCKSTALL_BACKEND_RWSEM_BPF_H

#include "compat.bpf.h"
#include "mmap_lock.bpf.h"

/*
 * mms seen as the caller's own (current->mm), for kernels without
 * mm->owner (CONFIG_MEMCG off), where a lock taken on another process's mm
 * (/proc/PID/environ, ptrace, process_vm_readv) can only be recognised as an
 * mm we met before.  LRU: an mm freed and never seen again ages out, and a
 * full map costs a missed remote lock, never a wrong one.
 */
#define LS_MAP_TYPE_LRU_HASH 9	/* BPF_MAP_TYPE_LRU_HASH, uapi/linux/bpf.h */

struct {
	__uint(type, LS_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} known_mms SEC(".maps");

/*
 * The mm whose mmap_lock sem is, or 0: these functions serve every rwsem of
 * the kernel (inodes, shrinkers, ...), so most calls end here.
 *
 * The common case, a fault or a syscall of the task on its own mm, is one
 * compare.  Another process's mm is recognised by mm->owner (CONFIG_MEMCG):
 * an mm's owner is a task whose mm it is, so a sem that is not an mm's lock
 * would need a pointer, at that offset, to a task pointing back at it.
 * Reads of a foreign sem's neighbourhood are probe reads: wrong guesses
 * fault harmlessly.  The owner can be changing hands while its task exits
 * (mm_update_next_owner()): a lock missed then is a lock of an exiting
 * process.
 */
static __always_inline __u64 ls_rwsem_mm(void *sem)
{
	struct task_struct *cur = ls_current();
	__u64 mm = (__u64)sem - ls_mmap_lock_offset();
	struct mm_struct *m = (struct mm_struct *)mm;
	struct task_struct *owner;
	__u8 one = 1;

	if ((__u64)LS_TASK_PTR(cur, mm) == mm) {
		if (!bpf_core_field_exists(m->owner) && !bpf_map_lookup_elem(&known_mms, &mm))
			bpf_map_update_elem(&known_mms, &mm, &one, BPF_ANY);
		return mm;
	}
	if (bpf_core_field_exists(m->owner)) {
		owner = BPF_CORE_READ(m, owner);
		return owner && (__u64)BPF_CORE_READ(owner, mm) == mm ? mm : 0;
	}
	return bpf_map_lookup_elem(&known_mms, &mm) ? mm : 0;
}

static __always_inline int ls_rwsem_lock(void *sem, bool write)
{
	__u64 mm = ls_rwsem_mm(sem);

	return mm ? ls_on_start_locking((struct mm_struct *)mm, write) : 0;
}

static __always_inline int ls_rwsem_locked(void *ctx, void *sem, bool write, bool success)
{
	__u64 mm = ls_rwsem_mm(sem);

	return mm ? ls_on_acquire_returned(ctx, (struct mm_struct *)mm, write, success) : 0;
}

static __always_inline int ls_rwsem_unlock(void *ctx, void *sem, bool write)
{
	__u64 mm = ls_rwsem_mm(sem);

	return mm ? ls_on_released(ctx, (struct mm_struct *)mm, write) : 0;
}

static __always_inline int ls_rwsem_downgrade(void *ctx, void *sem)
{
	return ls_rwsem_locked(ctx, sem, false, true);
}

/* fentry/fexit (5.5+, needs the kernel's BTF and trampolines) -------------- */

SEC("?fentry/down_read")
int BPF_PROG(ls_fe_down_read, void *sem)
{
	return ls_rwsem_lock(sem, false);
}

SEC("?fexit/down_read")
int BPF_PROG(ls_fx_down_read, void *sem)
{
	return ls_rwsem_locked(ctx, sem, false, true);
}

SEC("?fentry/down_read_killable")
int BPF_PROG(ls_fe_down_read_killable, void *sem)
{
	return ls_rwsem_lock(sem, false);
}

SEC("?fexit/down_read_killable")
int BPF_PROG(ls_fx_down_read_killable, void *sem, int ret)
{
	return ls_rwsem_locked(ctx, sem, false, ret == 0);
}

SEC("?fentry/down_read_trylock")
int BPF_PROG(ls_fe_down_read_trylock, void *sem)
{
	return ls_rwsem_lock(sem, false);
}

SEC("?fexit/down_read_trylock")
int BPF_PROG(ls_fx_down_read_trylock, void *sem, int ret)
{
	return ls_rwsem_locked(ctx, sem, false, ret == 1);
}

SEC("?fentry/down_write")
int BPF_PROG(ls_fe_down_write, void *sem)
{
	return ls_rwsem_lock(sem, true);
}

SEC("?fexit/down_write")
int BPF_PROG(ls_fx_down_write, void *sem)
{
	return ls_rwsem_locked(ctx, sem, true, true);
}

SEC("?fentry/down_write_killable")
int BPF_PROG(ls_fe_down_write_killable, void *sem)
{
	return ls_rwsem_lock(sem, true);
}

SEC("?fexit/down_write_killable")
int BPF_PROG(ls_fx_down_write_killable, void *sem, int ret)
{
	return ls_rwsem_locked(ctx, sem, true, ret == 0);
}

SEC("?fentry/down_write_trylock")
int BPF_PROG(ls_fe_down_write_trylock, void *sem)
{
	return ls_rwsem_lock(sem, true);
}

SEC("?fexit/down_write_trylock")
int BPF_PROG(ls_fx_down_write_trylock, void *sem, int ret)
{
	return ls_rwsem_locked(ctx, sem, true, ret == 1);
}

SEC("?fentry/up_read")
int BPF_PROG(ls_fe_up_read, void *sem)
{
	return ls_rwsem_unlock(ctx, sem, false);
}

SEC("?fentry/up_write")
int BPF_PROG(ls_fe_up_write, void *sem)
{
	return ls_rwsem_unlock(ctx, sem, true);
}

SEC("?fentry/downgrade_write")
int BPF_PROG(ls_fe_downgrade_write, void *sem)
{
	return ls_rwsem_downgrade(ctx, sem);
}

/* kprobe/kretprobe (any kernel with kprobes) ------------------------------- */

/*
 * A kretprobe has no arguments.  The wait that the entry began says which
 * mm and mode: between the entry and the return of down_*() the task runs
 * nothing but the rwsem code, so the return of a down_*() of the same mode
 * with a wait in progress is that wait's.  (A down_*_trylock() of another
 * rwsem from an interrupt in that window would be taken for it: rwsems are
 * not taken in interrupts.)  The kernel keeps a bounded number of return
 * instances per kretprobe (maxactive, 2 x CPUs by default): beyond that many
 * tasks asleep in down_*() at once, returns are missed and those waits
 * end at the task's next lock request, without their hold.
 */
/*
 * x86-64 by hand: bpf_tracing.h's PT_REGS_PARM1 would want the UAPI
 * register names (rdi), and vmlinux_min.h has the kernel's.
 */
#define LS_KP_SEM(ctx)	((void *)(ctx)->di)
#define LS_KP_RET(ctx)	((int)(ctx)->ax)

static __always_inline int ls_rwsem_kret(void *ctx, bool write, bool success)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st = task_state__lookup(cur);

	if (!st || !(st->wait.flags & LS_W_ACTIVE) || st->wait.write != write)
		return 0;
	return ls_on_acquire_returned(ctx, (struct mm_struct *)st->wait.lock, write, success);
}

SEC("?kprobe/down_read")
int ls_kp_down_read(struct pt_regs *ctx)
{
	return ls_rwsem_lock(LS_KP_SEM(ctx), false);
}

SEC("?kretprobe/down_read")
int ls_kr_down_read(struct pt_regs *ctx)
{
	return ls_rwsem_kret(ctx, false, true);
}

SEC("?kprobe/down_read_killable")
int ls_kp_down_read_killable(struct pt_regs *ctx)
{
	return ls_rwsem_lock(LS_KP_SEM(ctx), false);
}

SEC("?kretprobe/down_read_killable")
int ls_kr_down_read_killable(struct pt_regs *ctx)
{
	return ls_rwsem_kret(ctx, false, LS_KP_RET(ctx) == 0);
}

SEC("?kprobe/down_read_trylock")
int ls_kp_down_read_trylock(struct pt_regs *ctx)
{
	return ls_rwsem_lock(LS_KP_SEM(ctx), false);
}

SEC("?kretprobe/down_read_trylock")
int ls_kr_down_read_trylock(struct pt_regs *ctx)
{
	return ls_rwsem_kret(ctx, false, LS_KP_RET(ctx) == 1);
}

SEC("?kprobe/down_write")
int ls_kp_down_write(struct pt_regs *ctx)
{
	return ls_rwsem_lock(LS_KP_SEM(ctx), true);
}

SEC("?kretprobe/down_write")
int ls_kr_down_write(struct pt_regs *ctx)
{
	return ls_rwsem_kret(ctx, true, true);
}

SEC("?kprobe/down_write_killable")
int ls_kp_down_write_killable(struct pt_regs *ctx)
{
	return ls_rwsem_lock(LS_KP_SEM(ctx), true);
}

SEC("?kretprobe/down_write_killable")
int ls_kr_down_write_killable(struct pt_regs *ctx)
{
	return ls_rwsem_kret(ctx, true, LS_KP_RET(ctx) == 0);
}

SEC("?kprobe/down_write_trylock")
int ls_kp_down_write_trylock(struct pt_regs *ctx)
{
	return ls_rwsem_lock(LS_KP_SEM(ctx), true);
}

SEC("?kretprobe/down_write_trylock")
int ls_kr_down_write_trylock(struct pt_regs *ctx)
{
	return ls_rwsem_kret(ctx, true, LS_KP_RET(ctx) == 1);
}

SEC("?kprobe/up_read")
int ls_kp_up_read(struct pt_regs *ctx)
{
	return ls_rwsem_unlock(ctx, LS_KP_SEM(ctx), false);
}

SEC("?kprobe/up_write")
int ls_kp_up_write(struct pt_regs *ctx)
{
	return ls_rwsem_unlock(ctx, LS_KP_SEM(ctx), true);
}

SEC("?kprobe/downgrade_write")
int ls_kp_downgrade_write(struct pt_regs *ctx)
{
	return ls_rwsem_downgrade(ctx, LS_KP_SEM(ctx));
}

#endif /* LOCKSTALL_BACKEND_RWSEM_BPF_H */
