/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What lockstall keeps per task, and the one way to reach it: task_state__lookup()
 * (NULL if the task has none), task_state__get() (made zeroed if need be) and
 * task_state__delete() (at the task's final switch).  Two objects are built
 * from this (see GNUmakefile): task storage, and for 5.10 (no task storage,
 * no BTF current) a hash keyed by the task_struct's address; only this file
 * knows which.  It also says how a task is read in each: ls_current(),
 * LS_TASK_READ(), LS_TASK_PTR(), ls_task_fill(), ls_process_comm().
 */
#ifndef LOCKSTALL_TASK_STATE_BPF_H
#define LOCKSTALL_TASK_STATE_BPF_H

#include "config.bpf.h"
#include "ring.bpf.h"

/*
 * Events of tasks not followed: no state could be made for them (the hash
 * object's map full; task storage out of memory, or on PREEMPT_RT its
 * lock held by a program the task preempted).
 */
__u64 task_state_full = 0;

/* ls_wait_state.flags */
#define LS_W_ACTIVE	0x01
#define LS_W_BEGIN_SENT	0x02
#define LS_W_GRANTED	0x04	/* woken while waiting: the lock is ours */
#define LS_W_WENT_OFF	0x08	/* went off CPU at least once */
#define LS_W_OWNER_SENT	0x10	/* an OWNER record named this wait's owner: WAIT_END owed */
#define LS_W_PRIOR	0x20	/* began before tracing: start_ns is when the scan found it */
#define LS_W_LATE	0x40	/* with LS_W_PRIOR: found by a later scan, its start lost */
/*
 * A futex or kernel lock wait that has sent nothing yet, and will not
 * unless it lasts min_wait_ns (ls_wait_promote()): its task reads as not
 * waiting (ls_state_flags()), so its switches and wakeups send nothing.
 */
#define LS_W_QUIET	0x80

/* ls_hold_state.flags */
#define LS_H_ACTIVE	0x01
#define LS_H_GRANTED	0x02

struct ls_wait_state {
	__u64 lock;		/* the lock: an mm, a futex's user address, a kernel lock's, by kind */
	__u64 start_ns;
	__u8 write;
	__u8 flags;		/* LS_W_* */
	__u8 kind;		/* enum ls_lock_kind: 0 an mmap_lock (futex.bpf.h, klock.bpf.h) */
	__u8 owner_how;		/* enum ls_owner_how */
	__u32 owner_tid;
};

struct ls_hold_state {
	__u64 mm;
	__u64 acquired_ns;
	__u64 offcpu_ns;
	__u8 write;
	__u8 flags;		/* LS_H_* */
	__u8 pad[6];
};

/* A user page fault: where, for the op of the lock it may take (ls_op_fill()). */
struct ls_fault {
	__u64 ip;		/* 0: none */
	__u64 sp;
	__u64 addr;
	__u64 err;
};

/*
 * Histogram samples counted in the task's state before they go to the
 * process's slots (ls_hist_add()): waits under 1 us, by mode, and holds
 * under 4 us.
 */
#define LS_PEND_HOLD_SLOTS 3	/* histogram slots 0..2: holds under 4 us */
#define LS_PEND_MAX	64	/* a count this high goes to the slot */

struct ls_hist_pend {
	__u32 wait_sum_ns[2];	/* by mode (read, write): < 64 * 1 us each */
	__u32 hold_sum_ns;	/* < 3 * 64 * 4 us */
	__u8 wait_n[2];		/* waits in slot 0, by mode */
	__u8 hold_n[LS_PEND_HOLD_SLOTS];	/* holds in slots 0..2 */
	__u8 exiting;		/* after sched_process_exit: nothing held back */
	__u8 owner_waiters;	/* waiters that named this task their lock's owner */
};

/* A STACK sent: for what (a wait or a hold of lock, in op), and when. */
struct ls_stack_sent {
	__u64 lock;
	__u64 ns;		/* 0: a free slot */
	__u32 op;		/* ls_op_key() */
	__u32 hold;		/* 0: a wait's */
};

/* Set only while LS_W_GRANTED / LS_H_GRANTED say so. */
struct ls_grant_state {
	__u64 wait_ns;		/* when the wakeup granted the waiter the lock */
	__u64 wait_offcpu_ns;	/* granted but not running: counted into the hold */
	__u64 hold_ns[2];	/* hold[i] began at this grant, not at acquired_ns */
};

/*
 * Created zeroed, so every "none" below is 0.  The fields every lock event
 * and every switch of a waiter or holder touch come first and fit the
 * first two cache lines of the storage element (its data starts 8 bytes
 * into a line): a release, in particular, comes after the work under the
 * lock has evicted them, and each line is a miss.
 */
struct ls_task_state {
	struct ls_wait_state wait;
	/* Two: dup_mmap() holds the parent's and the child's lock at once. */
	struct ls_hold_state hold[2];
	__u64 offcpu_start_ns;	/* 0: on CPU, or not waiting/holding when it left */
	struct ls_hist_pend pend;
	__u16 watch_slot;	/* 1 + the CPU whose watch count this task raised; 0: none */
	__u8 seen;		/* appeared with lock state in a record: EXIT owed */
	__u8 off_kstack_valid;	/* off_kstack is from this hold's first long off-CPU spell */
	/* Less often: */
	__u32 hist[5];		/* 1 + hist_slots index, by ls_hist_cache_idx(); 0: none yet */
	__u16 off_kstack_len;	/* bytes of off_kstack bpf_get_stack() filled */
	__u16 owner_watch;	/* 1 + the CPU watched for this wait's runnable owner; 0: none */
	__u16 armed;		/* 1 + its slot in task_armed (task_state__arm()); 0: none */
	struct ls_grant_state grant;
	/* The last user page fault, once the task left the CPU it was taken on. */
	struct ls_fault fault;
	struct ls_task waker;	/* current at sched_waking; tid 0: none pending */
	/* A holder's reclaim or compaction in progress (reclaim.bpf.h); kind 0: none. */
	__u64 reclaim_start_ns;
	__u8 reclaim_kind;	/* enum ls_reclaim_kind */
	/* The device it last did I/O to since its last other sleep (io.bpf.h); 0: none. */
	__u32 io_dev;
	char io_disk[LS_DISK_NAME_LEN];	/* ... its disk's name */
	/* The causes' own state: struct ls_cause_task (causes.bpf.h). */
	__u64 cause[4];
	/* The last STACKs sent, for LS_LOCK_F_STACK_SAME (stack.bpf.h). */
	struct ls_stack_sent stack_sent[LS_STACK_SAME_SLOTS];
	/*
	 * Where the holder was switched out, for the STACK record its HOLD
	 * may bring at release: by then it runs elsewhere in the kernel.
	 * Kept here rather than sent at once, so only holds that end up
	 * sent (long ones) cost ring-buffer space.
	 */
	__u64 off_kstack[LS_KSTACK_MAX];
};
_Static_assert(__builtin_offsetof(struct ls_task_state, hist) <= 120,
	       "the hot fields of ls_task_state outgrew two cache lines");
/* watch_slot (16 bits) is 1 + a CPU number: the loader sizes watch by possible CPUs. */

/* t is only an address (another CPU's curr, or current in the hash object): probe reads. */
static __always_inline void ls_task_fill_probe(struct ls_task *out, struct task_struct *t)
{
	out->tid = BPF_CORE_READ(t, pid);
	out->tgid = BPF_CORE_READ(t, tgid);
	out->prio = BPF_CORE_READ(t, prio);
	out->policy = BPF_CORE_READ(t, policy);
	out->nice = BPF_CORE_READ(t, static_prio) - 120;
	out->rt_prio = BPF_CORE_READ(t, rt_priority);
	BPF_CORE_READ_INTO(&out->comm, t, comm);
}

#ifndef LS_TASK_STATE_HASH
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ls_task_state);
} task_state SEC(".maps");

static __always_inline struct ls_task_state *task_state__lookup(struct task_struct *t)
{
	return bpf_task_storage_get(&task_state, t, NULL, 0);
}

static __always_inline struct ls_task_state *task_state__get(struct task_struct *t)
{
	struct ls_task_state *st = bpf_task_storage_get(&task_state, t, NULL,
							 BPF_LOCAL_STORAGE_GET_F_CREATE);

	/* its events are missed from here on: a hole, like a lost record */
	if (!st) {
		__sync_fetch_and_add(&task_state_full, 1);
		ls_drops_count(0);
	}
	return st;
}

/* Task storage goes with the task. */
static __always_inline void task_state__delete(struct task_struct *t)
{
}

/* t from ls_current() or a tracepoint's argument: a BTF pointer, plain loads (not of pointers). */
#define LS_TASK_READ(t, field) ((t)->field)

static __always_inline struct task_struct *ls_current(void)
{
	return bpf_get_current_task_btf();
}

/* t must be a BTF pointer (argument, or loaded from one): plain loads. */
static __always_inline void ls_task_fill(struct ls_task *out, struct task_struct *t)
{
	const __u64 *comm = (const __u64 *)t->comm;
	__u64 *dst = (__u64 *)out->comm;

	out->tid = t->pid;
	out->tgid = t->tgid;
	out->prio = t->prio;
	out->policy = t->policy;
	out->nice = t->static_prio - 120;
	out->rt_prio = t->rt_priority;
	dst[0] = comm[0];
	dst[1] = comm[1];
}

#else
/*
 * The second object (make builds it with -DLS_TASK_STATE_HASH), for
 * kernels before 5.11 (Debian 11's 5.10): no task storage, no
 * bpf_get_current_task_btf(), no bpf_task_pt_regs().  The state is a hash
 * entry keyed by the task_struct's address, which no other task can have
 * until this one is freed, after its final switch, where its entry is
 * deleted (task_state__delete()): a tid could be reused by a new task while
 * the old one still runs its last exit steps.  Preallocated: 5.10 warns
 * (WARN_ONCE) for kprobe programs with run-time allocated hash maps, and
 * its allocation could recurse from a probe inside the allocator.  A full
 * map is counted (task_state_full) and told as a lost record, so stalls
 * around that task read unknown, never clean.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LS_TASK_STATE_MAX);
	__type(key, __u64);
	__type(value, struct ls_task_state);
} task_state SEC(".maps");

/* A new entry starts zeroed, as task storage does: copied from here. */
static const struct ls_task_state ls_state_zero;

static __always_inline struct ls_task_state *task_state__lookup(struct task_struct *t)
{
	__u64 key = (__u64)t;

	return bpf_map_lookup_elem(&task_state, &key);
}

static __always_inline struct ls_task_state *task_state__get(struct task_struct *t)
{
	__u64 key = (__u64)t;
	struct ls_task_state *st = bpf_map_lookup_elem(&task_state, &key);

	if (st)
		return st;
	/* -EEXIST: made meanwhile (an interrupt's probe on this task); look it up again. */
	if (bpf_map_update_elem(&task_state, &key, &ls_state_zero, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&task_state, &key)) {
		__sync_fetch_and_add(&task_state_full, 1);
		/* its events are missed from here on: a hole, like a lost record */
		ls_drops_count(0);
		return NULL;
	}
	return bpf_map_lookup_elem(&task_state, &key);
}

/* At t's final switch (TASK_DEAD): nothing of it runs after that. */
static __always_inline void task_state__delete(struct task_struct *t)
{
	__u64 key = (__u64)t;

	bpf_map_delete_elem(&task_state, &key);
}

/*
 * current here is a plain address (bpf_get_current_task()), which the
 * verifier lets no program dereference: every read of a task that may be
 * current is a probe read.
 */
#define LS_TASK_READ(t, field) BPF_CORE_READ(t, field)

static __always_inline struct task_struct *ls_current(void)
{
	return (struct task_struct *)bpf_get_current_task();
}

static __always_inline void ls_task_fill(struct ls_task *out, struct task_struct *t)
{
	ls_task_fill_probe(out, t);
}

/*
 * Helpers 5.10 lacks: a use in this object fails the build here, rather
 * than its load on 5.10 only (a newer kernel would take it).
 */
#pragma GCC poison bpf_get_current_task_btf bpf_task_pt_regs bpf_task_storage_get
#endif

/*
 * A pointer field of a task, in both objects a probe read: the verifier
 * (6.4+) searches the kernel's BTF for its trust lists at every load of a
 * pointer through a trusted one that it meets, which made most of the
 * programs' load time.  These are read on the way to a record, not on
 * every event.
 */
#define LS_TASK_PTR(t, field) BPF_CORE_READ(t, field)

/* The process's name: its leader's comm, which exec renames. */
static __always_inline void ls_process_comm(char *out, struct task_struct *t)
{
	BPF_CORE_READ_INTO((char (*)[LS_COMM_LEN])out, t, group_leader, comm);
}

/*
 * The scheduler programs' first test, before any helper or lookup: whether
 * a task may have state they must read.  task_armed counts the tasks
 * armed by TID modulo its size: a task is armed (task_state__arm()) before
 * it begins anything its switches, wakeups or migrations must see (a wait,
 * I/O noted), and disarmed by its own switch once nothing is left
 * (ls_state_busy(), sched.bpf.h) or at its final one; lock owners someone
 * waits on count here too (ls_owner_filter_add()).  A collision only sends
 * a task down the slow path.  Plain global memory: the test is a load of
 * the task's pid and one of the array.
 */
#define LS_ARMED_N	4096	/* a power of two */

__u32 task_armed[LS_ARMED_N] = {};

/*
 * The hash object (5.10) has no filter: every task takes the slow path, as
 * all did before it.  The switch with the filter and its disarming is over
 * 5.10's verifier limit, and without the disarming the counts would only
 * grow.
 */
#ifdef LS_TASK_STATE_HASH
#define LS_ARMING_OFF	1
#else
#define LS_ARMING_OFF	0
#endif

static __always_inline bool task_state__armed_tid(__u32 tid)
{
	return LS_ARMING_OFF || task_armed[tid & (LS_ARMED_N - 1)];
}

/* t a BTF pointer (a tracepoint's task): plain loads. */
static __always_inline bool task_state__armed(const struct task_struct *t)
{
	return task_state__armed_tid(t->pid);
}

static __always_inline void task_state__arm(struct task_struct *t, struct ls_task_state *st)
{
	__u32 idx;

	if (LS_ARMING_OFF || st->armed)
		return;
	idx = (__u32)LS_TASK_READ(t, pid) & (LS_ARMED_N - 1);
	/* the slot it was counted in, in case its TID changes (a thread's exec) */
	st->armed = idx + 1;
	__sync_fetch_and_add(&task_armed[idx], 1);
}

static __always_inline void task_state__disarm(struct ls_task_state *st)
{
	__u32 idx = st->armed;

	if (LS_ARMING_OFF || !idx)
		return;
	st->armed = 0;
	__sync_fetch_and_add(&task_armed[(idx - 1) & (LS_ARMED_N - 1)], -1);
}

/* lockstall's own tasks: their lock events are left out. */
static __always_inline bool ls_is_self(struct task_struct *cur)
{
	return cfg.self_tgid && (__u32)LS_TASK_READ(cur, tgid) == cfg.self_tgid;
}

/* A quiet wait in progress (LS_W_QUIET). */
static __always_inline bool ls_wait_quiet(const struct ls_task_state *st)
{
	return (st->wait.flags & (LS_W_ACTIVE | LS_W_QUIET)) == (LS_W_ACTIVE | LS_W_QUIET);
}

/* The engine knows of the wait (not quiet, or its OWNER was sent): its WAIT_END is owed. */
static __always_inline bool ls_wait_told(const struct ls_wait_state *w)
{
	return !(w->flags & LS_W_QUIET) || (w->flags & LS_W_OWNER_SENT);
}

/* A wakeup hands the waiting task the lock: granted from now, until it sleeps unwoken. */
static __always_inline void ls_wait_grant(struct ls_task_state *st, __u64 now)
{
	st->wait.flags |= LS_W_GRANTED;
	st->grant.wait_ns = now;
	st->grant.wait_offcpu_ns = 0;
}

static __always_inline bool ls_holding(const struct ls_task_state *st)
{
	return (st->hold[0].flags | st->hold[1].flags) & LS_H_ACTIVE;
}

/*
 * The LS_TASK_F_* a record tells of t, and the one test of whether a task
 * matters to the scheduler programs (0: not followed).  State of new kinds
 * adds its bit here.
 */
static __always_inline __u8 ls_state_flags(const struct ls_task_state *st)
{
	__u8 f = 0;

	if ((st->wait.flags & (LS_W_ACTIVE | LS_W_QUIET)) == LS_W_ACTIVE) {
		f |= LS_TASK_F_WAITING;
		if (st->wait.flags & LS_W_GRANTED)
			f |= LS_TASK_F_GRANTED;
	}
	if (ls_holding(st))
		f |= LS_TASK_F_HOLDING;
	if (st->pend.owner_waiters)
		f |= LS_TASK_F_OWNER;
	return f;
}

#endif /* LOCKSTALL_TASK_STATE_BPF_H */
