/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel-compatibility shims: one per kernel change, each with the commit
 * that made it needed.  CO-RE picks the field that the running kernel has
 * (bpf_core_field_exists() on a ___flavour of the struct); a change in a
 * tracepoint's arguments is a second program, which the loader picks by the
 * tracepoint's arity in the kernel's BTF.  Oldest change first.
 */
#ifndef LOCKSTALL_COMPAT_BPF_H
#define LOCKSTALL_COMPAT_BPF_H

#include "config.bpf.h"

/*
 * Commit da1c55f1b272 ("mmap locking API: rename mmap_sem to mmap_lock")
 * (5.8).  The rwsem backends find the mm from the lock's address; only its
 * offset in mm_struct is read, so any struct will do for the lock.
 */
struct ls_rwsem {
	long count;
};

struct mm_struct___ls {
	struct ls_rwsem mmap_lock;
} __attribute__((preserve_access_index));

struct mm_struct___old {
	struct ls_rwsem mmap_sem;
} __attribute__((preserve_access_index));

static __always_inline __u64 ls_mmap_lock_offset(void)
{
	if (bpf_core_field_exists(struct mm_struct___ls, mmap_lock))
		return bpf_core_field_offset(struct mm_struct___ls, mmap_lock);
	return bpf_core_field_offset(struct mm_struct___old, mmap_sem);
}

/*
 * Task storage (4cf1bc1f1045 "bpf: Implement task local storage", then
 * open to tracing programs) and bpf_get_current_task_btf() (3ca1032ab7ab
 * "bpf: Add bpf_get_current_task_btf helper"): 5.10 has neither, so the
 * hash object; see task_state.bpf.h.
 */

/*
 * Commit 2f064a59a11f ("sched: Change task_struct::state") renamed
 * task_struct.state to __state and made it an unsigned int (5.14).
 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int ls_task_sched_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/*
 * Where a task is (enum ls_owner_state) from its on_cpu, on_rq and state.
 * Since 6.12's delayed dequeue ("sched/fair: Implement delayed dequeue") a
 * task that went to sleep may stay on its run queue (on_rq) until it is
 * picked: only one in TASK_RUNNING there is runnable.  On a CPU but not
 * TASK_RUNNING: on its way to sleep, its switch-out perhaps already past
 * the tracepoint, told as asleep (told as running, the engine would never
 * see it leave).  One preempted on its way to sleep is told as asleep
 * until its next switch.
 */
static __always_inline __u8 ls_task_where(bool on_cpu, bool on_rq, unsigned int state)
{
	if (state != TASK_RUNNING)
		return LS_OWNER_BLOCKED;
	if (on_cpu)
		return LS_OWNER_RUNNING;
	return on_rq ? LS_OWNER_RUNNABLE : LS_OWNER_BLOCKED;
}

/*
 * Commit 65c9cc9e2c14 ("x86/fred: Reserve space for the FRED stack frame")
 * leaves 16 bytes between the top of the kernel stack and the user pt_regs
 * with CONFIG_X86_FRED (6.9+).  Only the hash object finds the registers
 * itself, in the next shim.
 */
#define LS_FRED_STACK_GAP 16

/*
 * Commit dd6e10fbd9fb ("bpf: Add bpf_task_pt_regs() helper") (5.15).  The
 * hash object (5.10) finds the user registers where task_pt_regs() does, at
 * the top of the task's kernel stack: THREAD_SIZE is 16 KiB on x86_64
 * without KASAN, and CONFIG_X86_FRED may leave LS_FRED_STACK_GAP above
 * them, which only the kernel's config says, so both places are tried.
 * Copied, and believed only with the user-mode selectors in cs and ss
 * (__USER_CS or __USER32_CS, __USER_DS): a kernel laid out otherwise gets
 * no op and no DWARF user stack (frame pointers then), never registers
 * read from the wrong place.  LS_USER_REGS(t, copy): t is current.
 */
#ifndef LS_TASK_STATE_HASH
#define LS_USER_REGS(t, regs_copy) ((void)(regs_copy), (struct pt_regs *)bpf_task_pt_regs(t))
#else
#define LS_THREAD_SIZE 16384

static __always_inline bool ls_user_regs_at(__u64 top, struct pt_regs *out)
{
	__u16 cs, ss;

	if (bpf_probe_read_kernel(out, sizeof(*out), (void *)(top - sizeof(*out))))
		return false;
	cs = out->cs;
	ss = out->ss;
	return (cs == 0x33 || cs == 0x23) && ss == 0x2b;
}

static __always_inline struct pt_regs *ls_user_regs(struct task_struct *t, struct pt_regs *out)
{
	__u64 top = (__u64)BPF_CORE_READ(t, stack) + LS_THREAD_SIZE;

	if (ls_user_regs_at(top, out) || ls_user_regs_at(top - LS_FRED_STACK_GAP, out))
		return out;
	return NULL;
}

#define LS_USER_REGS(t, regs_copy) ls_user_regs(t, regs_copy)
#endif

/*
 * Commit bcf9033e5449 ("sched: Move CPU field back into thread_info if
 * THREAD_INFO_IN_TASK=y") moved task_struct.cpu to thread_info.cpu (5.16).
 */
struct task_struct___pre516 {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 ls_task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return t->thread_info.cpu;
	return BPF_CORE_READ((struct task_struct___pre516 *)t, cpu);
}

/* The same for t only an address (probe reads). */
static __always_inline __u32 ls_task_cpu_probe(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___pre516 *)t, cpu);
}

/*
 * Commit fa2c3254d7cf ("sched/tracing: Don't re-read p->state when emitting
 * sched_switch event") gave sched_switch its prev_state argument (5.18);
 * before it, the program without it (ls_sched_switch_nostate) reads prev's
 * state as __schedule() saw it: running if preempted, else its state.
 */
static __always_inline unsigned int ls_switch_prev_state(bool preempt, struct task_struct *prev)
{
	return preempt ? TASK_RUNNING : ls_task_sched_state(prev);
}

/*
 * The mmap_lock tracepoints lost their memcg_path argument (6.8+, by
 * src/engine/DESIGN.md; added with the tracepoints by 2b5067a8143e "mm:
 * mmap_lock: add tracepoints around lock acquisition").  The older layout
 * has its own programs, ls_*_memcg in lockstall.bpf.c (LS_FEAT_MEMCG_PATH_ARG).
 */

#endif /* LOCKSTALL_COMPAT_BPF_H */
