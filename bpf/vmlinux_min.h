/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The few kernel types lockstall.bpf.c touches, written by hand so the build
 * never depends on the build host's kernel headers.  Every struct is
 * preserve_access_index: libbpf relocates each field access against the
 * running kernel's BTF (CO-RE), so only names and types matter here, never
 * layout, and a struct lists only the members we read.
 */
#ifndef LOCKSTALL_VMLINUX_MIN_H
#define LOCKSTALL_VMLINUX_MIN_H

typedef unsigned char __u8;
typedef signed char __s8;
typedef unsigned short __u16;
typedef signed short __s16;
typedef unsigned int __u32;
typedef signed int __s32;
typedef unsigned long long __u64;
typedef signed long long __s64;

/* What bpf_helper_defs.h names besides the __uN types. */
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;

typedef _Bool bool;
#define true 1
#define false 0
#ifndef NULL
#define NULL ((void *)0)
#endif

typedef int pid_t;

/* uapi/linux/bpf.h: the constants the BPF source uses. */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_QUEUE = 22,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
	BPF_F_LOCK = 4,
};

enum {
	BPF_F_NO_PREALLOC = 1U << 0,
	BPF_F_MMAPABLE = 1U << 10,
};

enum {
	BPF_LOCAL_STORAGE_GET_F_CREATE = 1ULL << 0,
};

enum {
	BPF_F_USER_STACK = 1ULL << 8,
};

enum {
	BPF_RB_NO_WAKEUP = 1ULL << 0,
	BPF_RB_FORCE_WAKEUP = 1ULL << 1,
};

enum {
	BPF_RB_AVAIL_DATA = 0,
	BPF_RB_RING_SIZE = 1,
	BPF_RB_CONS_POS = 2,
	BPF_RB_PROD_POS = 3,
};

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

/* x86_64 layout; the BPF side reads ip, sp and orig_ax only. */
struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};

struct thread_info {
	unsigned long flags;
	__u32 cpu;
};

struct mm_struct;

struct task_struct {
	struct thread_info thread_info;
	unsigned int __state;
	unsigned int flags;
	int on_cpu;
	int on_rq;
	int prio;
	int static_prio;
	unsigned int rt_priority;
	unsigned int policy;
	struct mm_struct *mm;
	pid_t pid;
	pid_t tgid;
	struct task_struct *group_leader;
	char comm[16];
	void *stack;		/* the kernel stack; the user pt_regs sit at its top */
	unsigned long nvcsw;	/* voluntary context switches */
	unsigned long nivcsw;	/* involuntary ones */
};

struct mm_struct {
	struct task_struct *owner;	/* CONFIG_MEMCG only: check with bpf_core_field_exists */
};

/* The kernel's sleeping locks, as bpf/klock.bpf.h reads their owners. */
typedef struct {
	__s64 counter;
} atomic64_t;
typedef atomic64_t atomic_long_t;

struct mutex {
	atomic_long_t owner;	/* the owner's task_struct, flag bits low */
};

/* rw_semaphore.count: RWSEM_WRITER_LOCKED, RWSEM_FLAG_WAITERS (kernel/locking/rwsem.c) */
#define LS_RWSEM_WRITER_LOCKED	0x01L
#define LS_RWSEM_FLAG_WAITERS	0x02L

struct rw_semaphore {
	atomic_long_t count;
	atomic_long_t owner;	/* the writer, or the last reader with RWSEM_READER_OWNED */
};

struct rt_mutex_base {
	struct task_struct *owner;	/* bit 0: RT_MUTEX_HAS_WAITERS */
};

/* PREEMPT_RT's rw_semaphore and rwlock_t: a writer holds rtmutex all along. */
struct rwbase_rt {
	struct rt_mutex_base rtmutex;
};

/* A task iterator's context (bpf/stack_now.bpf.c, the scan of bpf/futex.bpf.h). */
struct bpf_iter_meta {
	void *seq;
};

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
};

#pragma clang attribute pop

/* include/linux/sched.h */
#define PF_IO_WORKER	0x00000010
#define PF_KTHREAD	0x00200000
#define TASK_RUNNING	0x00000000
#define TASK_INTERRUPTIBLE	0x00000001
#define __TASK_STOPPED	0x00000004
#define __TASK_TRACED	0x00000008
#define TASK_DEAD	0x00000080

#endif /* LOCKSTALL_VMLINUX_MIN_H */
