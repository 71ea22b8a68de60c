/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The records that flow from the BPF programs to user space, and from a
 * recording back into the engine.  This is the only definition of them:
 * bpf/lockstall.bpf.c writes them, src/engine reads them, trace files
 * store them as they are.
 *
 * Rules, checked by the _Static_asserts at the end:
 *  - fixed-width types only, every field naturally aligned, padding explicit;
 *  - every record starts with struct ls_hdr and its size is a multiple of 8;
 *  - a change of layout bumps LS_ABI_VERSION (written into trace files).
 *
 * All times are CLOCK_MONOTONIC nanoseconds, the clock of bpf_ktime_get_ns().
 */
#ifndef LOCKSTALL_ABI_H
#define LOCKSTALL_ABI_H

#ifdef __BPF__
/* vmlinux_min.h has defined __u8 .. __u64 and __s8 .. __s64 already. */
#else
#include <linux/types.h>
#endif

/*
 * Format versions (LS_ABI_VERSION, written into every recording; a reader
 * takes LS_ABI_VERSION_MIN up to its own), and what reading each takes:
 *
 *   1  no STACK records; lock records are LS_REC_LOCK_V1_SIZE bytes, without
 *      cgroup_id: the trace reader widens them to today's (cgroup_id 0).
 *   2  adds LS_REC_STACK; lock records as in 1.
 *   3  appends ls_rec_lock.cgroup_id: today's size.  ls_lock_id.kind and
 *      owner_how/owner_tid are padding there: the reader clears them
 *      (mmap_lock, no owner).
 *   4  today's layout.  It grows only by appending: record types, enum
 *      values, flag bits, and fields in former padding, which records
 *      made before them leave 0 (no cause, no owner, not exited).  What a
 *      run looked for is in LS_MARK_BEGIN's features (LS_FEAT_*), so a
 *      reader tells "not looked for" from "not found".
 *
 * A change of layout bumps LS_ABI_VERSION and adds a line here.
 */
#define LS_ABI_VERSION 4
#define LS_ABI_VERSION_MIN 1	/* the oldest a reader accepts */

/* TASK_COMM_LEN is an enum constant in a 6.18 vmlinux.h: keep our own. */
#define LS_COMM_LEN 16

/* Scheduling policies, as the kernel numbers them (SCHED_*). */
enum ls_policy {
	LS_POLICY_NORMAL = 0,
	LS_POLICY_FIFO = 1,
	LS_POLICY_RR = 2,
	LS_POLICY_BATCH = 3,
	LS_POLICY_IDLE = 5,
	LS_POLICY_DEADLINE = 6,
};

enum ls_rec_type {
	LS_REC_WAIT_BEGIN = 1,	/* struct ls_rec_lock: a waiter went off CPU */
	LS_REC_WAIT_END = 2,	/* struct ls_rec_lock: acquire_returned ended a wait */
	LS_REC_HOLD = 3,	/* struct ls_rec_lock: a hold ended (release, downgrade, exit) */
	LS_REC_SWITCH = 4,	/* struct ls_rec_switch */
	LS_REC_WAKEUP = 5,	/* struct ls_rec_wakeup */
	LS_REC_MIGRATE = 6,	/* struct ls_rec_migrate */
	LS_REC_EXIT = 7,	/* struct ls_rec_exit */
	LS_REC_STACK = 8,	/* struct ls_rec_stack: where a waiter or holder was */
	LS_REC_OWNER = 9,	/* struct ls_rec_owner: a waiter began a wait on a known owner */
	LS_REC_THROTTLE = 12,	/* struct ls_rec_throttle: a holder's CPU quota ran out */
	LS_REC_UNTHROTTLE = 13,	/* struct ls_rec_unthrottle: a throttled holder runs again */
	LS_REC_RECLAIM = 14,	/* struct ls_rec_reclaim: a holder began reclaim or compaction */
	LS_REC_RECLAIM_END = 15,	/* struct ls_rec_reclaim_end: ... and ended it */
	/* Written by user space (loader or trace file), never by BPF: */
	LS_REC_HIST = 16,	/* struct ls_rec_hist: a kernel histogram, cumulative */
	LS_REC_MARK = 17,	/* struct ls_rec_mark: run begin, interval, run end */
	LS_REC_LOST = 18,	/* struct ls_rec_lost: drops not reported in band */
	LS_REC_TICK = 19,	/* struct ls_rec_tick: time passed; waits still open are judged */
	LS_REC_IO_DEV = 24,	/* struct ls_rec_io_dev: the device a holder's I/O wait is on */
	LS_REC_TASK_CGROUP = 25,	/* struct ls_rec_task_cgroup: a holder's or preemptor's cgroup */
	LS_REC_RUNNABLE = 26,	/* struct ls_rec_runnable: a pinned holder waited, CPUs idled */
	LS_REC_STEAL = 27,	/* struct ls_rec_steal: a holder's CPU was stolen while it ran */
	LS_REC_TYPE_MAX,
};

/*
 * Every record starts with this.  lost_before counts the records this CPU
 * failed to put in the ring buffer since its previous successful one
 * (saturating at 0xffff): the engine learns exactly where on which CPU the
 * stream has holes, so a stall overlapping a hole is never called clean.
 */
struct ls_hdr {
	__u16 type;		/* enum ls_rec_type */
	__u16 size;		/* of the whole record, a multiple of 8 */
	__u16 cpu;
	__u16 lost_before;
	__u64 ts;		/* when the record was made */
};

/* Who a task is, copied from its task_struct when a record names it. */
struct ls_task {
	__u32 tid;		/* task->pid */
	__u32 tgid;		/* task->tgid: the process */
	__s32 prio;		/* task->prio: effective, PI-boosted; 120 for SCHED_IDLE too */
	__u8 policy;		/* enum ls_policy */
	__s8 nice;		/* task->static_prio - 120 */
	__u8 rt_prio;		/* task->rt_priority, 0 for non-RT */
	__u8 pad;
	char comm[LS_COMM_LEN];	/* not NUL-terminated when 16 bytes long; any bytes */
};

/* What kind of lock a record names (ls_lock_id.kind). */
enum ls_lock_kind {
	LS_LOCK_MMAP = 0,	/* an mm's mmap_lock: all of ABI versions 1-3 */
	LS_LOCK_FUTEX = 1,	/* a user-space futex word (FUTEX_WAIT*) */
	LS_LOCK_PI_FUTEX = 2,	/* a priority-inheritance futex (FUTEX_LOCK_PI*) */
	LS_LOCK_MUTEX = 3,	/* kernel struct mutex */
	LS_LOCK_RWSEM = 4,	/* kernel struct rw_semaphore (not an mmap_lock) */
	LS_LOCK_RT_MUTEX = 5,
	LS_LOCK_PERCPU_RWSEM = 6,
	LS_LOCK_KIND_N,
	/* No lock: a lock field that names none.  Never in a record (the engine refuses it). */
	LS_LOCK_NONE = 0xff,
};

/*
 * A lock's identity: (kind, id) and the process it belongs to.
 *   LS_LOCK_MMAP:	id = the mm's kernel address, tgid = its owner;
 *   futexes:		id = the user address, tgid = the waiter's process (a
 *			private futex is (process, address));
 *   kernel locks:	id = the lock's kernel address, tgid 0.
 * Addresses are identities, never dereferenced in user space.
 */
struct ls_lock_id {
	__u64 id;
	__u32 tgid;		/* owner (mm->owner, else current when it is its own mm); 0 unknown */
	__u8 kind;		/* enum ls_lock_kind */
	__u8 pad[3];
	char comm[LS_COMM_LEN];
};

enum ls_op_kind {
	LS_OP_UNKNOWN = 0,	/* kernel thread, exit path, or not found out */
	LS_OP_PAGE_FAULT = 1,	/* a user page fault; addr and fault_flags set */
	LS_OP_SYSCALL = 2,	/* syscall holds the number */
};

/* x86 page fault error code bits kept in ls_op.fault_flags */
#define LS_PF_WRITE	0x2
#define LS_PF_USER	0x4
#define LS_PF_INSTR	0x10

/* What a task was doing when it asked for the lock. */
struct ls_op {
	__u64 addr;		/* LS_OP_PAGE_FAULT: the faulting address */
	__s32 syscall;		/* LS_OP_SYSCALL: x86_64 syscall number; else -1 */
	__u16 kind;		/* enum ls_op_kind */
	__u16 fault_flags;	/* LS_PF_* */
};

/*
 * What identifies an op for LS_LOCK_F_STACK_SAME; 0: nothing (no stack is
 * reused).  A system call only: the records do not say where a user fault
 * was taken, and faults on one lock come from anywhere (a clock read's
 * vDSO page and a memcpy() alike), so each brings its own stack.
 */
static inline __u32 ls_op_key(const struct ls_op *op)
{
	if (op->kind == LS_OP_SYSCALL)
		return 0x80000000u | ((__u32)op->syscall & 0xffff);
	return 0;
}

/* ls_rec_lock.flags */
#define LS_LOCK_F_BEGIN_SENT	0x01	/* WAIT_END: a WAIT_BEGIN for this wait was sent */
#define LS_LOCK_F_GRANTED	0x02	/* the lock was handed over by a wakeup before the task ran */
#define LS_LOCK_F_DOWNGRADED	0x04	/* HOLD: a write hold that ended by downgrade to read */
#define LS_LOCK_F_EXITED	0x08	/* HOLD/WAIT_END: ended by task exit, not by the lock */
#define LS_LOCK_F_TRYLOCK	0x10	/* WAIT_END: failed at once, never waited */
/*
 * WAIT_*: the wait began before tracing did; the scan at start-up found
 * the task asleep in it, and start_ns is that scan's time: the wait has
 * lasted at least from start_ns, its true start is not known.
 */
#define LS_LOCK_F_PRIOR		0x20
/*
 * WAIT_*: a wait whose beginning was lost (the kernel skipped one of our
 * programs), found asleep in it by a later scan: start_ns is that scan's
 * time, as for LS_LOCK_F_PRIOR, which it comes instead of.
 */
#define LS_LOCK_F_LATE		0x40
/*
 * WAIT_END/HOLD of at least the threshold, without its STACK: the task
 * sent one for the same lock, kind (wait or hold) and op (ls_op_key())
 * less than stack_interval_ns before, with the record it came with.  Its
 * stall takes a copy of that one (LS_STACK_F_EARLIER).  Both sides keep
 * the last LS_STACK_SAME_SLOTS of a task, a new one replacing the one of
 * its key, else the oldest; never for a kernel thread or a user fault
 * (no op to tell their paths apart).
 */
#define LS_LOCK_F_STACK_SAME	0x80
#define LS_STACK_SAME_SLOTS	4

/*
 * WAIT_BEGIN, WAIT_END and HOLD.
 *   WAIT_BEGIN: hdr.ts = when the waiter first went off CPU; start_ns = start_locking.
 *   WAIT_END:   hdr.ts = acquire_returned; start_ns = start_locking; granted_ns set
 *               when a wakeup handed the lock over (readers, writer handoff).
 *   HOLD:       hdr.ts = release (or downgrade, or exit); start_ns = when the hold
 *               began: granted_ns if set, else acquired_ns.
 * The kernel sends WAIT_END only for waits that sent WAIT_BEGIN or lasted at
 * least the threshold, and HOLD only for holds that may matter to a stall:
 * see bpf/lockstall.bpf.c for the exact rules.
 */
struct ls_rec_lock {
	struct ls_hdr hdr;
	struct ls_task task;
	struct ls_lock_id lock;
	struct ls_op op;
	__u64 start_ns;
	__u64 granted_ns;	/* 0: not granted by a wakeup */
	__u64 acquired_ns;	/* HOLD: acquire_returned; 0 in WAIT_* */
	__u64 offcpu_ns;	/* HOLD: off CPU while holding, summed in the kernel */
	__u8 write;		/* lock mode */
	__u8 success;		/* WAIT_END: acquire_returned's success */
	__u8 flags;		/* LS_LOCK_F_* */
	__u8 owner_how;		/* WAIT_*: enum ls_owner_how; 0 (none) before ABI 4 */
	__u32 owner_tid;	/* WAIT_*: the holder as owner_how found it; 0 unknown */
	/*
	 * The task's cgroup v2 id (the inode number of its cgroup directory,
	 * bpf_get_current_cgroup_id()) when the record was sent; 0: unknown
	 * (a recording of ABI version 1 or 2).  Last, so the older layout is
	 * a prefix of this one.
	 */
	__u64 cgroup_id;
};

/*
 * How a waiter's holder was found (ls_rec_lock.owner_how, ls_rec_owner.how),
 * most precise first.  Never a guess: a wait with no way to know (a
 * condition variable, a semaphore) says LS_OWNER_NONE.
 */
enum ls_owner_how {
	LS_OWNER_NONE = 0,	/* not known (mmap_lock: the HOLD records say) */
	LS_OWNER_FUTEX_WORD = 1,	/* the TID in a PI futex word */
	LS_OWNER_PTHREAD = 2,	/* a glibc pthread_mutex_t's __owner, read at the wait */
	LS_OWNER_KLOCK = 3,	/* the owner field of a kernel mutex, writer-owned rwsem */
	LS_OWNER_HINT = 4,	/* a reader-owned rwsem's last reader: a hint, not the readers */
	LS_OWNER_RELEASER = 5,	/* the task whose wake ended the wait, not seen holding */
	LS_OWNER_RWLOCK_WRITER = 6,	/* a glibc pthread_rwlock_t's __cur_writer, read at the wait */
	LS_OWNER_HOW_N,
};

/* ls_rec_lock as ABI versions 1 and 2 laid it out: without cgroup_id. */
#define LS_REC_LOCK_V1_SIZE 136

/* Kernel-side task state flags, copied into records for the engine. */
#define LS_TASK_F_WAITING	0x01	/* between start_locking and acquire_returned */
#define LS_TASK_F_HOLDING	0x02	/* holds at least one mmap_lock */
#define LS_TASK_F_GRANTED	0x04	/* woken while waiting: owns the lock, not yet running */
#define LS_TASK_F_OWNER	0x08	/* owns a lock (futex, kernel lock) a followed waiter waits on */

/*
 * Why a holder could not run, as the scheduler said at its switch-out or
 * wakeup (ls_rec_switch.prev_cause, ls_rec_wakeup.wakee_cause), or as the
 * waiter found its owner (ls_rec_owner.owner_cause).
 */
#define LS_CAUSE_F_THROTTLED	0x01	/* its cgroup's CFS quota ran out: LS_REC_THROTTLE came first */
/*
 * An RT task whose CPU's RT run queue (its group's, or one above it) used up
 * its budget (sched_rt_runtime_us per sched_rt_period_us, cpu.rt_runtime_us):
 * rt_rq->rt_throttled.  Off CPU until the period timer refills it.
 */
#define LS_CAUSE_F_RT_THROTTLED	0x04
/*
 * Asleep in an I/O wait (io_schedule(): TASK_UNINTERRUPTIBLE with
 * task->in_iowait): a blocked holder; an LS_REC_IO_DEV may follow.
 */
#define LS_CAUSE_F_IO		0x02
/*
 * A runnable holder that may not run on every CPU (its affinity or cpuset:
 * nr_cpus_allowed below the CPUs there are): an LS_REC_RUNNABLE comes at its
 * switch-in with the idle time of the CPUs it could not use.
 */
#define LS_CAUSE_F_PINNED	0x08
/*
 * In prev_cause: the holder's CPU had hypervisor steal time while it ran,
 * from its switch-in to this switch-out: an LS_REC_STEAL follows.
 */
#define LS_CAUSE_F_STEAL	0x10

/*
 * A context switch on hdr.cpu.  Sent when prev or next is waiting or
 * holding, and for every switch on a CPU where such a task sits runnable
 * but not running (so the engine knows who ran instead, and how long).
 */
struct ls_rec_switch {
	struct ls_hdr hdr;
	struct ls_task prev;
	struct ls_task next;
	__u8 prev_runnable;	/* 1: preempted, still on a run queue; 0: went to sleep */
	__u8 prev_flags;	/* LS_TASK_F_* */
	__u8 next_flags;
	__u8 prev_cause;	/* LS_CAUSE_F_* of holders (IO: asleep); 0 before ABI 4 */
	__u8 pad[4];
};

/*
 * A wakeup of a waiting or holding task.  waker is current at sched_waking:
 * the releasing task for rwsem handoffs, whatever ran for IRQ wakeups.
 * target_curr is what ran on target_cpu at that moment (tid 0: unknown).
 */
struct ls_rec_wakeup {
	struct ls_hdr hdr;
	struct ls_task wakee;
	struct ls_task waker;
	struct ls_task target_curr;
	__u32 target_cpu;
	__u8 wakee_flags;	/* LS_TASK_F_*, after the wakeup (GRANTED set if it granted) */
	__u8 wakee_cause;	/* LS_CAUSE_F_*: holders only; 0 before ABI 4 */
	__u8 pad[2];
};

/*
 * The CFS bandwidth limit that stopped a holder: sent just before the
 * SWITCH or WAKEUP with LS_CAUSE_F_THROTTLED (same hdr.ts), for the cgroup
 * whose quota ran out (the holder's own or an ancestor's).  Its path is
 * made of its directory names, leaf first, from the root of its hierarchy.
 */
#define LS_CG_DEPTH	8	/* names kept, leaf first */
#define LS_CG_NAME	32	/* bytes per name, NUL-terminated unless all used */

#define LS_THROTTLE_F_TRUNC	0x01	/* deeper than LS_CG_DEPTH: the path misses its top */
#define LS_THROTTLE_F_TASK	0x02	/* the task-based model (6.18+): throttled on return to user */

struct ls_rec_throttle {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u64 cgroup_id;	/* the throttled cgroup's kernfs id (inode in its hierarchy) */
	__u64 quota_ns;		/* cfs_bandwidth.quota per period; ~0: none */
	__u64 period_ns;
	__u32 hierarchy_id;	/* 0: cgroup v2; else the v1 hierarchy (the cpu controller's) */
	__u8 depth;		/* names[] used */
	__u8 flags;		/* LS_THROTTLE_F_* */
	__u8 pad[2];
	char names[LS_CG_DEPTH][LS_CG_NAME];	/* any bytes */
};

/*
 * A holder that went off CPU throttled (THROTTLE) switches in again: how
 * long it was throttled in that spell, from the kernel's throttled-time
 * counter of its cfs_rq (6.5+: throttled_clock_self_time, this CPU's) or
 * else of its group (cfs_bandwidth.throttled_time, all CPUs: an upper
 * bound).  Sent just before the SWITCH that ends the spell (same hdr.ts).
 */
#define LS_UNTHROTTLE_F_GROUP	0x01	/* throttled_ns is the group's, over all its CPUs */

struct ls_rec_unthrottle {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u64 throttled_ns;
	__u8 flags;		/* LS_UNTHROTTLE_F_* */
	__u8 pad[7];
};

/*
 * A holder (LS_TASK_F_HOLDING or OWNER) began to reclaim memory or compact
 * it in its own allocation (the vmscan and compaction tracepoints): the
 * lock waits until it is done.  RECLAIM_END follows from the same task
 * when it ends (none if it exits in it, or the record was lost).
 *
 * For memory cgroup reclaim, the cgroup whose limit made it reclaim: the
 * nearest of the task's memory cgroup and its ancestors whose usage is
 * within a charge batch (LS_MEMCG_BATCH pages) of its max, as the
 * kernel's own charge failed there; else the nearest over its high.
 * limit LS_MEMCG_LIMIT_NONE: none was found, nothing is named.
 */
enum ls_reclaim_kind {
	LS_RECLAIM_DIRECT = 1,	/* the page allocator's direct reclaim: the system ran low */
	LS_RECLAIM_MEMCG = 2,	/* a memory cgroup's charge hit its limit */
	LS_RECLAIM_COMPACT = 3,	/* direct compaction, for a higher-order allocation */
	LS_RECLAIM_KIND_N,
};

enum ls_memcg_limit {
	LS_MEMCG_LIMIT_NONE = 0,
	LS_MEMCG_LIMIT_MAX = 1,	/* memory.max (v2), memory.limit_in_bytes (v1) */
	LS_MEMCG_LIMIT_HIGH = 2,	/* memory.high (v2) */
};

#define LS_MEMCG_BATCH	64	/* pages: the kernel's MEMCG_CHARGE_BATCH */

#define LS_RECLAIM_F_TRUNC	0x01	/* deeper than LS_CG_DEPTH: the path misses its top */

struct ls_rec_reclaim {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u8 kind;		/* enum ls_reclaim_kind */
	__u8 limit;		/* enum ls_memcg_limit: which limit of the cgroup below */
	__u8 depth;		/* names[] used */
	__u8 flags;		/* LS_RECLAIM_F_* */
	__u32 hierarchy_id;	/* 0: cgroup v2; else the v1 hierarchy (the memory controller's) */
	__u64 cgroup_id;	/* the memory cgroup's kernfs id; 0: none named */
	__u64 usage_pages;	/* its page_counter usage at the start */
	__u64 limit_pages;	/* the limit it was at */
	char names[LS_CG_DEPTH][LS_CG_NAME];	/* leaf first, as ls_rec_throttle; any bytes */
};

struct ls_rec_reclaim_end {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u64 nr_reclaimed;	/* pages (reclaim); 0 for compaction */
	__u8 kind;		/* enum ls_reclaim_kind, as its RECLAIM */
	__u8 pad[7];
};

/* A waiting or holding task moved to another CPU's run queue while not running. */
struct ls_rec_migrate {
	struct ls_hdr hdr;
	struct ls_task task;
	struct ls_task dest_curr;	/* what ran on to_cpu at that moment (tid 0: unknown) */
	__u32 from_cpu;
	__u32 to_cpu;
	__u8 flags;		/* LS_TASK_F_* */
	__u8 pad[7];
};

/* A task that appeared in earlier records exited: its tid may be reused. */
struct ls_rec_exit {
	struct ls_hdr hdr;
	struct ls_task task;
	__u8 flags;		/* LS_TASK_F_* at exit */
	__u8 pad[7];
};

/* ls_rec_owner.owner_state: where the owner was when the wait began. */
enum ls_owner_state {
	LS_OWNER_RUNNING = 0,	/* on a CPU */
	LS_OWNER_RUNNABLE = 1,	/* on a run queue, not running: preempted */
	LS_OWNER_BLOCKED = 2,	/* asleep */
	LS_OWNER_GONE = 3,	/* no such task any more (the lock's owner died) */
	LS_OWNER_UNKNOWN = 4,	/* not known (followed by TID): its next switch or wakeup says */
};

/*
 * A waiter began a wait on a lock whose owner it could name (owner_how
 * not NONE, not RELEASER).  Sent from the waiter's context as it asks for
 * the lock, before its WAIT_BEGIN: from here on the owner's switches and
 * wakeups are sent (LS_TASK_F_OWNER) while waiters wait on it, so the
 * engine can say why it was not running; this record says where it was
 * until then.  cpu_curr: what ran on owner_cpu at that moment (tid 0:
 * unknown).
 */
/*
 * ls_rec_owner.owner_flags: owner (tgid, comm, policy, prio, nice,
 * rt_prio) was read from the owner's task_struct, so it holds even when
 * owner_state is LS_OWNER_UNKNOWN (followed by TID: where it is, not who
 * it is, is unknown).  Without it such a record names only the TID.
 */
#define LS_OWNER_F_TASK_READ	0x80
/*
 * ls_rec_owner.owner_flags: sent late, as a quiet wait (LS_FEAT_QUIET_WAITS)
 * turned out long: owner_state is where the owner was as the wait began
 * (running), and its switches since came before this record.
 */
#define LS_OWNER_F_LATE		0x40

struct ls_rec_owner {
	struct ls_hdr hdr;
	struct ls_task waiter;
	struct ls_task owner;
	struct ls_task cpu_curr;
	struct ls_lock_id lock;
	__u64 start_ns;		/* the waiter's wait began */
	__u32 owner_cpu;
	__u8 owner_state;	/* enum ls_owner_state */
	__u8 how;		/* enum ls_owner_how */
	__u8 owner_flags;	/* the owner's LS_TASK_F_* (WAITING: it waits on a lock itself), LS_OWNER_F_* */
	__u8 owner_cause;	/* LS_CAUSE_F_IO: blocked in an I/O wait; 0 in older recordings */
};

/*
 * The block device a holder's I/O wait is on, when the kernel told it:
 * the device the holder itself last mapped or queued I/O to (bpf/io.bpf.h)
 * since it last slept for anything but I/O.  Sent right after the SWITCH
 * or OWNER that says LS_CAUSE_F_IO, same hdr.ts; none when the holder
 * waits on I/O someone else submitted (a page another task reads in): the
 * device is then not known.  disk is the kernel's name of the whole disk
 * (gendisk.disk_name: "vda" for 254:1 too), so a recording read elsewhere
 * names the disk of the host it was made on.
 */
#define LS_DISK_NAME_LEN 32	/* the kernel's DISK_NAME_LEN */

struct ls_rec_io_dev {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u32 dev;		/* the kernel's dev_t: major = dev >> 20, minor = dev & 0xfffff */
	__u32 pad;
	char disk[LS_DISK_NAME_LEN];	/* NUL-terminated unless 32 bytes long; any bytes */
};

/*
 * A holder whose runnable spell said LS_CAUSE_F_PINNED switches in: the
 * CPUs it may run on, and how long the CPUs it may not run on idled in the
 * spell, from each CPU's idle time as the kernel side keeps it (the idle
 * task's switches).  Sent just before the SWITCH that ends the spell (same
 * hdr.ts).  Masks cover CPUs 0-63: CPUs beyond are not looked at.
 */
#define LS_PINNED_CPUS	64

struct ls_rec_runnable {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u64 start_ns;		/* the spell began (its switch-out or wakeup) */
	__u64 allowed;		/* bit n: it may run on CPU n (task->cpus_ptr) */
	__u64 idle_cpus;	/* CPUs outside allowed that idled in the spell */
	__u64 idle_ns;		/* the most one of them idled in the spell */
	__u32 nr_cpus_allowed;	/* task->nr_cpus_allowed */
	__u32 nr_cpus;		/* the CPUs there are (possible) */
};

/*
 * A holder switches out after a stretch on CPU (from its switch-in, on_ns
 * long) in which its CPU had hypervisor steal time (the run queue's
 * prev_steal_time, CONFIG_PARAVIRT_TIME_ACCOUNTING): it "ran" but its vCPU
 * did not.  Sent just after the SWITCH that says LS_CAUSE_F_STEAL (same
 * hdr.ts).
 */
struct ls_rec_steal {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u64 on_ns;		/* the stretch on CPU: [hdr.ts - on_ns, hdr.ts) */
	__u64 steal_ns;		/* stolen in it */
};

/*
 * The cgroup v2 id of a task that holds a followed lock (owns one a waiter
 * waits on) or runs on a CPU where such a holder waits to run: what
 * ls_rec_lock.cgroup_id is for the task in a lock record, for the tasks
 * only other records name (futex and kernel lock owners, preemptors).  id
 * is the task's cgroup in the default hierarchy (task->cgroups->dfl_cgrp,
 * as bpf_get_current_cgroup_id() reads it), so ids compare with
 * ls_rec_lock.cgroup_id.  Sent next to the SWITCH, WAKEUP, MIGRATE or OWNER
 * record that names the task in that role, when the id is not the one
 * last sent for its tid, or that one was sent LS_TASK_CGROUP_RESEND_NS
 * ago or more: a reader that missed it (a drop, a flight recording's
 * window) learns it again soon.  Each tid's latest id stands until the next.
 */
#define LS_TASK_CGROUP_RESEND_NS	1000000000ULL

struct ls_rec_task_cgroup {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u64 cgroup_id;	/* 0: not known (the task had gone) */
};

/* Log2 histograms of microseconds: slot i counts values in [2^(i-1), 2^i) us, slot 0 < 1 us. */
#define LS_HIST_SLOTS 32

enum ls_hist_kind {
	LS_HIST_WAIT = 0,	/* mmap_lock wait time per waiter process and lock mode */
	LS_HIST_HOLD = 1,	/* mmap_lock hold time per holder process */
	LS_HIST_OFFCPU = 2,	/* off-CPU-while-holding mmap_lock time per holder process */
	/*
	 * The waits of the other lock kinds, per waiter process and mode, one
	 * kind each, in enum ls_lock_kind's order (ls_hist_wait_kind()).  Only
	 * contended waits reach them: a futex syscall, a kernel lock's
	 * contention; LS_HIST_WAIT counts every mmap_lock operation.
	 */
	LS_HIST_WAIT_FUTEX = 3,
	LS_HIST_WAIT_PI_FUTEX = 4,
	LS_HIST_WAIT_MUTEX = 5,
	LS_HIST_WAIT_RWSEM = 6,
	LS_HIST_WAIT_RT_MUTEX = 7,
	LS_HIST_WAIT_PERCPU_RWSEM = 8,
	LS_HIST_KIND_N,
};

/* The wait histogram kind of a lock kind (enum ls_lock_kind). */
static inline __u8 ls_hist_wait_kind(__u8 lock_kind)
{
	return lock_kind ? LS_HIST_WAIT_FUTEX - LS_LOCK_FUTEX + lock_kind : LS_HIST_WAIT;
}

/* The lock kind a histogram kind counts the waits of; -1: not a wait histogram. */
static inline int ls_hist_lock_kind(unsigned int hist_kind)
{
	if (hist_kind == LS_HIST_WAIT)
		return LS_LOCK_MMAP;
	if (hist_kind >= LS_HIST_WAIT_FUTEX && hist_kind < LS_HIST_KIND_N)
		return (int)(hist_kind - LS_HIST_WAIT_FUTEX + LS_LOCK_FUTEX);
	return -1;
}

#define LS_HIST_ANY_MODE 0xff	/* ls_hist_key.write for HOLD and OFFCPU */

/* The kernel's histogram map: key and value. */
struct ls_hist_key {
	__u32 tgid;
	__u8 kind;		/* enum ls_hist_kind */
	__u8 write;		/* 0 read, 1 write, LS_HIST_ANY_MODE */
	__u8 flags;		/* LS_HIST_F_*: in LS_REC_HIST only, 0 in the kernel's maps */
	__u8 pad;
};

/* ls_hist_key.flags: the process has exited, these counts are its last. */
#define LS_HIST_F_EXITED 0x01

struct ls_hist {
	/*
	 * The process's name: its leader's comm when the entry was made,
	 * renamed at each exec (sched_process_exec) and by the loader (from
	 * /proc/PID/comm); the engine takes newer names from lock records.
	 */
	char comm[LS_COMM_LEN];
	__u64 count;		/* in the kernel map: 0, the loader sums the slots */
	__u64 sum_ns;
	__u64 slots[LS_HIST_SLOTS];
};

/*
 * The kernel's histograms live in an array of these, found through a hash
 * of ls_hist_key -> slot index; each task caches its slots' indices, so a
 * lock event costs an array access, not a hash lookup.  key all zero: free.
 */
#define LS_HIST_MAX 8192	/* histogram slots, all processes and kinds */

struct ls_hist_slot {
	struct ls_hist_key key;	/* whose it is, checked against a task's cached index */
	struct ls_hist hist;
};

/* One histogram as the engine receives it: cumulative since the run began. */
struct ls_rec_hist {
	struct ls_hdr hdr;
	struct ls_hist_key key;
	struct ls_hist hist;
};

enum ls_mark_kind {
	LS_MARK_BEGIN = 1,	/* tracing starts: features says what the kernel offers */
	LS_MARK_INTERVAL = 2,	/* histogram records for an interval are complete */
	LS_MARK_END = 3,	/* tracing stopped; final histograms came before */
};

/* ls_rec_mark.features */
#define LS_FEAT_PER_VMA_LOCK	0x01	/* faults on mmap_lock are per-VMA-lock fallbacks */
#define LS_FEAT_MEMCG_PATH_ARG	0x02	/* the kernel's mmap_lock tracepoints pass memcg_path */
/* The backend, when not the mmap_lock tracepoints: the rwsem functions through... */
#define LS_FEAT_BACKEND_FENTRY	0x04	/* ... fentry/fexit */
#define LS_FEAT_BACKEND_KPROBE	0x08	/* ... kprobes/kretprobes */
#define LS_FEAT_TASK_STATE_HASH	0x10	/* per-task state in a hash map (no task storage: 5.10) */
#define LS_FEAT_FUTEX		0x20	/* futex waits are traced (bpf/futex.bpf.h) */
#define LS_FEAT_KLOCK		0x40	/* kernel sleeping locks are traced (bpf/klock.bpf.h) */
#define LS_FEAT_OWNER_BY_TID	0x80	/* lock owners followed by TID (no bpf_task_from_pid()) */
#define LS_FEAT_FUTEX_WAITV	0x20000	/* futex_waitv(2) waits too, on their first futex */
#define LS_FEAT_CAUSE_THROTTLE	0x100	/* CFS bandwidth throttling of holders is looked for */
#define LS_FEAT_THROTTLE_TASK	0x200	/* 6.18+: CFS throttles a task only on return to user */
#define LS_FEAT_CAUSE_RECLAIM	0x400	/* direct reclaim and compaction of holders are traced */
#define LS_FEAT_CAUSE_RT_THROTTLE	0x800	/* RT throttling of RT holders is looked for */
#define LS_FEAT_CAUSE_IO	0x1000	/* I/O waits of holders are looked for */
#define LS_FEAT_CAUSE_RUNNABLE	0x2000	/* pinned runnable holders and idle CPUs are looked for */
#define LS_FEAT_CAUSE_STEAL	0x4000	/* steal time on holders' CPUs is read */
#define LS_FEAT_TASK_CGROUP	0x8000	/* LS_REC_TASK_CGROUP: holders' and preemptors' cgroups */
#define LS_FEAT_PRIOR_WAITS	0x40000	/* futex waits in progress at start-up were looked for */
#define LS_FEAT_FUTEX_FENTRY	0x80000	/* futex calls by fentry/fexit, not the syscall tracepoints */
#define LS_FEAT_FUTEX_WAIT2	0x100000	/* futex2's futex_wait(2) waits too (6.7+) */
#define LS_FEAT_PRIOR_MUTEX	0x200000	/* kernel mutex waits in progress at start-up were looked for */
/*
 * Futex and kernel lock waits shorter than the threshold sent nothing:
 * their WAIT_BEGIN (and an OWNER found running) come late, as the wait
 * reached the threshold, was woken after it, or the scan before a TICK
 * found it that long.
 */
#define LS_FEAT_QUIET_WAITS	0x400000
/* causes were looked for: stalls get advice */
#define LS_FEAT_CAUSES	(LS_FEAT_CAUSE_THROTTLE | LS_FEAT_CAUSE_RECLAIM | LS_FEAT_CAUSE_RT_THROTTLE | \
			 LS_FEAT_CAUSE_IO | LS_FEAT_CAUSE_RUNNABLE | LS_FEAT_CAUSE_STEAL)

struct ls_rec_mark {
	struct ls_hdr hdr;
	__u32 kind;		/* enum ls_mark_kind */
	__u32 features;		/* LS_FEAT_*, in LS_MARK_BEGIN */
};

/* Drops that no in-band lost_before could carry (e.g. after a CPU's last record). */
struct ls_rec_lost {
	struct ls_hdr hdr;
	__u64 count;
	__u64 first_ns;		/* the span in which they were lost, as far as known */
	__u64 last_ns;
};

/*
 * The live loop (and so the recording) sends a TICK every so often and one
 * LS_TICK_EXIT before LS_MARK_END: the engine's clock moves only by
 * records, so this is how it learns that a wait has lasted, with no record
 * of the wait itself, and a replay reports the same pending stalls.
 */
enum ls_tick_kind {
	LS_TICK_PERIODIC = 1,
	LS_TICK_EXIT = 2,	/* the run ends: every wait still open is reported */
};

struct ls_rec_tick {
	struct ls_hdr hdr;
	__u32 kind;		/* enum ls_tick_kind */
	__u32 pad;
};

/*
 * Stacks ---------------------------------------------------------------------
 *
 * A STACK record says where a task was: its kernel stack, its user stack as
 * the kernel's frame-pointer walk saw it, and, for DWARF unwinding in user
 * space, its user registers and a copy of the top of its user stack (like
 * perf --call-graph dwarf).  Sent just before the record it belongs to,
 * with the same hdr.ts:
 *   LS_STACK_WAIT      before the WAIT_END of a wait of at least min_wait_ns:
 *                      the waiter at acquire_returned (its user stack has not
 *                      changed since it asked for the lock);
 *   LS_STACK_HOLD_OFF  before the HOLD of a hold with an off-CPU spell of at
 *                      least min_hold_ns: the kernel stack where it sat in
 *                      that spell (taken as it came back), the user side at
 *                      release;
 *   LS_STACK_HOLD_LONG before the HOLD of another hold of at least min_hold_ns:
 *                      the release site, the end of the path under the lock.
 * Only what can end up in a stall, once per wait or hold: the hot path stays
 * cheap.  And at most one per stack_interval_ns for a task, lock, kind and
 * op (LS_LOCK_F_STACK_SAME): a stack is taken in the task's own time, most
 * often with the lock held, and a starved holder makes its waiters pay for
 * that time many times over.
 */
enum ls_stack_why {
	LS_STACK_WAIT = 1,
	LS_STACK_HOLD_OFF = 2,
	LS_STACK_HOLD_LONG = 3,
	/*
	 * The kernel stack of a holder of a pending stall as it is at a
	 * TICK (a task iterator in user space's hands, not the hot path);
	 * mm 0: the holder's lock is not known, it applies to any.
	 */
	LS_STACK_NOW = 4,
};

/* --user-stacks: what the kernel captures of user stacks. */
enum ls_ustack_mode {
	LS_USTACK_NONE = 0,
	LS_USTACK_FP = 1,	/* the kernel's frame-pointer walk only */
	LS_USTACK_DWARF = 2,	/* also registers and a copy of the stack top */
};

#define LS_KSTACK_MAX	48	/* kernel frames kept */
#define LS_TASK_STATE_MAX 16384	/* tasks followed at once by the hash object (--task-state=hash) */
#define LS_USTACK_MAX	32	/* user frames of the frame-pointer walk kept */
#define LS_USTACK_COPY_DEFAULT	16384	/* bytes of user stack copied by default */
#define LS_USTACK_COPY_MAX	32768	/* hdr.size is 16 bits: a record stays below 64 KiB */
/*
 * --stack-interval (ls_bpf_config.stack_interval_ns).  At most the time
 * the engine keeps a quiet task (ENGINE_RETAIN_MIN_NS), and with it the
 * stack a LS_LOCK_F_STACK_SAME record reuses.
 */
#define LS_STACK_INTERVAL_DEFAULT	1000000000ULL
#define LS_STACK_INTERVAL_MAX		1000000000ULL

/*
 * User registers, in DWARF x86-64 numbering (which libunwind's UNW_X86_64_*
 * follows): 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp,
 * 8..15 r8..r15, 16 rip.
 */
#define LS_UREG_BP	6
#define LS_UREG_SP	7
#define LS_UREG_IP	16
#define LS_UREGS_N	17

/* ls_rec_stack.flags */
#define LS_STACK_F_KERNEL_TRUNC	0x01	/* more kernel frames than LS_KSTACK_MAX */
#define LS_STACK_F_USER_TRUNC	0x02	/* more user frames than LS_USTACK_MAX */
#define LS_STACK_F_REGS	0x04	/* uregs are valid */
#define LS_STACK_F_COPY_SHORT	0x08	/* the copy stopped early (unmapped or not resident page) */
#define LS_STACK_F_KTHREAD	0x10	/* no user side: a kernel thread */
/* Set by the engine on the copy a LS_LOCK_F_STACK_SAME record takes; never sent. */
#define LS_STACK_F_EARLIER	0x80

struct ls_rec_stack {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u64 lock_id;		/* the lock's ls_lock_id.id, as in the WAIT/HOLD records */
	__u8 why;		/* enum ls_stack_why */
	__u8 user_mode;		/* enum ls_ustack_mode the kernel captured with */
	__u8 flags;		/* LS_STACK_F_* */
	__u8 pad;
	__u16 nr_kernel;	/* entries used in kernel[] */
	__u16 nr_user;		/* entries used in user[] */
	__u32 copy_len;		/* bytes of copy[] that hold the stack (from uregs[LS_UREG_SP]) */
	__u32 pad2;
	__u64 uregs[LS_UREGS_N];
	__u64 kernel[LS_KSTACK_MAX];	/* innermost first; BPF and tracepoint frames included */
	__u64 user[LS_USTACK_MAX];	/* innermost first */
	/*
	 * Then copy_len bytes: user memory from uregs[LS_UREG_SP] up, and
	 * padding to hdr.size (a multiple of 8): see ls_rec_stack_copy().
	 * Not a flexible array member, so the BPF side can embed the struct
	 * in front of its buffer.
	 */
};

/* The user stack copy that follows a STACK record's fixed part. */
static inline const __u8 *ls_rec_stack_copy(const struct ls_rec_stack *r)
{
	return (const __u8 *)(r + 1);
}

/*
 * What the task iterator (bpf/stack_now.bpf.c) writes per task into its
 * output, for the holders of pending stalls; the loader turns each into an
 * LS_REC_STACK of why LS_STACK_NOW.  Never in the stream or a recording.
 */
#define LS_STACK_NOW_MAX 64	/* tasks one tick asks about */

struct ls_stack_now {
	__u32 tid;
	__u32 tgid;
	__u32 state;		/* task->__state: TASK_UNINTERRUPTIBLE is 2 */
	__u32 nr_kernel;
	__u64 kernel[LS_KSTACK_MAX];
};

/* Settings the loader writes into the BPF program's read-only data. */
struct ls_bpf_config {
	__u64 min_wait_ns;	/* send WAIT_END without WAIT_BEGIN from this wait time on */
	__u64 min_hold_ns;	/* send HOLD for on-CPU holds from this hold time on */
	__u32 self_tgid;	/* lockstall itself: never traced */
	__u8 kstacks;		/* send STACK records with kernel stacks */
	__u8 ustack_mode;	/* enum ls_ustack_mode */
	__u8 steal;		/* read the steal clock of holders' CPUs */
	__u8 task_cgroups;	/* send LS_REC_TASK_CGROUP (holders, preemptors) */
	__u32 ustack_copy;	/* LS_USTACK_DWARF: bytes to copy, <= LS_USTACK_COPY_MAX, multiple of 8 */
	__u32 nr_cpus;		/* possible CPUs: a holder allowed fewer is pinned; 0: none */
	__u8 owner_by_tid;	/* follow lock owners by TID (bpf/owner_tid.bpf.h) */
	__u8 futex_fentry;	/* futex calls by fentry/fexit, not sys_enter/sys_exit */
	__u8 prior_futex;	/* the start-up scan looks for futex waits ... */
	__u8 prior_mutex;	/* ... and kernel mutex waits (bpf/prior.bpf.h) */
	__u8 pad[4];
	/* One STACK per task, lock and kind (wait, hold) this often; 0: every one. */
	__u64 stack_interval_ns;
};

#define LS_ASSERT_SIZE(type, bytes) \
	_Static_assert(sizeof(struct type) == (bytes), #type " changed size: bump LS_ABI_VERSION"); \
	_Static_assert(sizeof(struct type) % 8 == 0, #type " must be a multiple of 8 bytes")

LS_ASSERT_SIZE(ls_hdr, 16);
LS_ASSERT_SIZE(ls_task, 32);
LS_ASSERT_SIZE(ls_lock_id, 32);
LS_ASSERT_SIZE(ls_op, 16);
LS_ASSERT_SIZE(ls_rec_lock, 144);
_Static_assert(__builtin_offsetof(struct ls_rec_lock, cgroup_id) == LS_REC_LOCK_V1_SIZE,
	       "ls_rec_lock: the version 1 layout must stay a prefix");
LS_ASSERT_SIZE(ls_rec_switch, 88);
LS_ASSERT_SIZE(ls_rec_wakeup, 120);
LS_ASSERT_SIZE(ls_rec_migrate, 96);
LS_ASSERT_SIZE(ls_rec_throttle, 56 + LS_CG_DEPTH * LS_CG_NAME);
LS_ASSERT_SIZE(ls_rec_unthrottle, 40);
LS_ASSERT_SIZE(ls_rec_reclaim, 56 + LS_CG_DEPTH * LS_CG_NAME);
LS_ASSERT_SIZE(ls_rec_reclaim_end, 40);
LS_ASSERT_SIZE(ls_rec_io_dev, 64);
LS_ASSERT_SIZE(ls_rec_task_cgroup, 32);
LS_ASSERT_SIZE(ls_rec_runnable, 64);
LS_ASSERT_SIZE(ls_rec_steal, 40);
LS_ASSERT_SIZE(ls_rec_exit, 56);
LS_ASSERT_SIZE(ls_rec_owner, 160);
LS_ASSERT_SIZE(ls_hist, 288);
LS_ASSERT_SIZE(ls_rec_hist, 312);
LS_ASSERT_SIZE(ls_hist_slot, 296);
LS_ASSERT_SIZE(ls_rec_mark, 24);
LS_ASSERT_SIZE(ls_rec_lost, 40);
LS_ASSERT_SIZE(ls_rec_tick, 24);
LS_ASSERT_SIZE(ls_rec_stack, 48 + 8 * (LS_UREGS_N + LS_KSTACK_MAX + LS_USTACK_MAX));
LS_ASSERT_SIZE(ls_bpf_config, 48);
_Static_assert((LS_STACK_SAME_SLOTS & (LS_STACK_SAME_SLOTS - 1)) == 0, "a power of two: BPF masks the index");
LS_ASSERT_SIZE(ls_stack_now, 16 + 8 * LS_KSTACK_MAX);
_Static_assert(sizeof(struct ls_rec_stack) + LS_USTACK_COPY_MAX < 65536, "ls_rec_stack too big for hdr.size");
_Static_assert(sizeof(struct ls_hist_key) == 8, "ls_hist_key changed size");
_Static_assert(LS_HIST_KIND_N - LS_HIST_WAIT_FUTEX == LS_LOCK_KIND_N - LS_LOCK_FUTEX,
	       "a wait histogram kind per lock kind");

#endif /* LOCKSTALL_ABI_H */
