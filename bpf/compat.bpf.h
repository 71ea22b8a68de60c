/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel-compatibility shims, one per kernel change, each with the commit
 * that made it needed (subject, and hash where known).
 */
#ifndef LOCKSTALL_COMPAT_BPF_H
#define LOCKSTALL_COMPAT_BPF_H

static __always_inline __u32 ls_task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return t->thread_info.cpu;
	return BPF_CORE_READ((struct task_struct___pre516 *)t, cpu);
}


#ifndef LS_TASK_STATE_HASH
/* The user registers of t (current), saved at its kernel entry; regs_copy unused. */
#define LS_USER_REGS(t, regs_copy) ((void)(regs_copy), (struct pt_regs *)bpf_task_pt_regs(t))
#else
/*
 * No bpf_task_pt_regs() before 5.15: the registers sit at the top of the
 * task's kernel stack, as task_pt_regs() finds them: THREAD_SIZE is 16 KiB
 * on x86_64 without KASAN, and CONFIG_X86_FRED (6.9+) leaves 16 bytes above
 * them, which only the kernel's config says, so both places are tried.
 * Copied, and believed only with the user-mode selectors in cs and ss
 * (__USER_CS or __USER32_CS, __USER_DS): a kernel laid out otherwise gets
 * no op and no DWARF user stack (frame pointers then), never registers
 * read from the wrong place.
 */
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

	if (ls_user_regs_at(top, out) || ls_user_regs_at(top - 16, out))
		return out;
	return NULL;
}

#define LS_USER_REGS(t, regs_copy) ls_user_regs(t, regs_copy)
#endif

#endif /* LOCKSTALL_COMPAT_BPF_H */
