/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The analysis engine: records in (struct ls_hdr-framed, see
 * include/lockstall/abi.h), causal stall records out.
 *
 * It is pure C: no libbpf, no /proc, no clock, no printing.  Time comes only
 * from record timestamps, so a recording replays to the same findings as
 * the live run, and every finding is unit-testable from a synthetic stream.
 *
 * Life cycle:
 *	engine__new(&opts, sink)	sink receives everything found
 *	engine__feed(e, rec, len)	for each record, in stream order
 *	engine__finish(e)		end of stream: summary to the sink
 *	engine__free(e)
 */
#ifndef LOCKSTALL_ENGINE_H
#define LOCKSTALL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <lockstall/abi.h>

struct sink;

enum ls_verdict {
	LS_VERDICT_PRIORITY_INVERSION = 0,	/* a less important holder was off CPU most of the wait */
	LS_VERDICT_HOLDER_OFF_CPU = 1,		/* a holder as or more important than the waiter was */
	LS_VERDICT_CONTENTION = 2,		/* holders were on CPU: real work under the lock */
	LS_VERDICT_UNKNOWN = 3,			/* events were lost in the wait, or no holder was seen */
	LS_VERDICT_DEADLOCK = 4,		/* a cycle of waits: reported while it lasts */
	LS_VERDICT_N,
};

/* Why a cycle of waits was not taken for a deadlock (its verdict: unknown). */
enum ls_unknown_reason {
	LS_UNKNOWN_NONE = 0,
	LS_UNKNOWN_CYCLE_LOCK_TWICE = 1,	/* it passes twice through one exclusive lock */
	LS_UNKNOWN_CYCLE_STALE_OWNER = 2,	/* an owner was read before the lock changed hands */
	LS_UNKNOWN_CYCLE_EVENTS_LOST = 3,	/* records were lost while its waits went on */
	LS_UNKNOWN_REASON_N,
};

/* Why a holder was not running, or that it was. */
enum ls_holder_state {
	LS_STATE_RUNNING = 0,			/* on CPU for most of its hold within the wait */
	LS_STATE_PREEMPTED = 1,			/* runnable, others ran on its CPU */
	LS_STATE_BLOCKED = 2,			/* asleep (I/O, another lock, ...) */
	LS_STATE_GRANTED_NOT_RUNNING = 3,	/* owned the lock from its wakeup, not yet running */
	LS_STATE_N,				/* the states offcpu_by_state[] measures */
	/* no record said where it was for most of its hold in the wait (ls_holder.unseen_ns) */
	LS_STATE_UNKNOWN = LS_STATE_N,
};

/*
 * A task the records named only by its TID (a lock's owner read from the
 * lock, never followed): tgid 0, and nothing else about it is known, not
 * its name, policy or priority.  Every task a record sent has a tgid.
 */
static inline bool ls_task_seen(const struct ls_task *t)
{
	return t->tgid != 0;
}

/*
 * Why a holder could not run, beyond its state: what the kernel said at
 * the time (src/engine/causes.md).  NONE: nothing seen; a cause
 * lockstall did not see is never inferred.
 */
enum ls_cause {
	LS_CAUSE_NONE = 0,
	LS_CAUSE_THROTTLED = 1,	/* runnable, its cgroup's CFS quota spent (LS_CAUSE_F_THROTTLED) */
	LS_CAUSE_RECLAIM = 2,	/* in direct reclaim or compaction (LS_REC_RECLAIM .. _END) */
	LS_CAUSE_RT_THROTTLED = 3,	/* runnable RT task, its CPU's RT budget spent (LS_CAUSE_F_RT_THROTTLED) */
	LS_CAUSE_IO = 4,	/* asleep in an I/O wait (LS_CAUSE_F_IO, LS_REC_IO_DEV) */
	/* runnable, pinned by affinity or cpuset while CPUs it could not use idled (LS_REC_RUNNABLE) */
	LS_CAUSE_RUNNABLE = 5,
	LS_CAUSE_STEAL = 6,	/* "on CPU" while the hypervisor ran something else (LS_REC_STEAL) */
	LS_CAUSE_N,
};

/*
 * A pinned holder's CPUs (LS_REC_RUNNABLE; CPUs 0-63): those it may run on,
 * and those it may not that idled while it waited, over its spells inside
 * the wait; nr_cpus_allowed and nr_cpus as the kernel said at the latest.
 */
struct ls_pinned {
	__u64 allowed;
	__u64 idle_cpus;
	__u32 nr_cpus_allowed;
	__u32 nr_cpus;
};

/* The CFS bandwidth limit of a throttled holder (LS_REC_THROTTLE). */
#define LS_THROTTLE_PATH_MAX (LS_CG_DEPTH * (LS_CG_NAME + 1) + 8)

struct ls_throttle {
	__u64 cgroup_id;	/* kernfs id in its hierarchy */
	__u32 hierarchy_id;	/* 0: cgroup v2; else a v1 hierarchy (the cpu controller's) */
	bool truncated;		/* path misses its top levels ("/..." first) */
	bool task_model;	/* 6.18+ throttling, on return to user space */
	__u64 quota_ns;		/* per period; ~0: no limit (an ancestor's is the one) */
	__u64 period_ns;
	char path[LS_THROTTLE_PATH_MAX];	/* "/a/b" from the hierarchy's root; raw bytes */
};

/*
 * A holder's reclaim (LS_REC_RECLAIM): the kind of its latest, and the
 * memory cgroup whose limit it reclaimed under when the kernel side found
 * one (limit not LS_MEMCG_LIMIT_NONE).
 */
struct ls_reclaim {
	__u8 kind;		/* enum ls_reclaim_kind */
	__u8 limit;		/* enum ls_memcg_limit */
	bool truncated;		/* path misses its top levels ("/..." first) */
	__u32 hierarchy_id;	/* 0: cgroup v2; else a v1 hierarchy (the memory controller's) */
	__u64 cgroup_id;
	__u64 usage_bytes;	/* at the reclaim's start */
	__u64 limit_bytes;
	char path[LS_THROTTLE_PATH_MAX];	/* "/a/b" from the hierarchy's root; raw bytes */
};

enum ls_role {
	LS_ROLE_WAITER = 0,
	LS_ROLE_QUEUED_WRITER = 1,	/* a writer queued ahead of a reader: rwsems are fair */
	LS_ROLE_HOLDER = 2,
	LS_ROLE_PREEMPTOR = 3,
	LS_ROLE_WAKER = 4,
	LS_ROLE_N,
};

#define LS_MAX_PREEMPTORS 8	/* per holder, most time first; the rest summed */
#define LS_MAX_HOLDERS 32	/* per stall; the rest counted */
#define LS_MAX_HOPS 8
#define LS_MAX_SPELLS 16	/* per holder: off-CPU spells inside the wait; the rest counted */

struct ls_preemptor {
	struct ls_task task;
	__u64 ns;		/* time it ran on the holder's CPU while the holder waited to run */
	/* Its cgroup v2 id as last told (LS_REC_TASK_CGROUP; 0: unknown), and path as for ls_holder. */
	__u64 cgroup_id;
	const char *cgroup;
};

/* One stretch a holder spent off CPU while it held the lock, inside the lock wait. */
struct ls_spell {
	__u64 start_ns;
	__u64 end_ns;
	enum ls_holder_state state;	/* PREEMPTED, BLOCKED or GRANTED_NOT_RUNNING */
	struct ls_task ran_instead;	/* ran most on its CPU in the spell; tid 0: none or unknown */
};

/*
 * A frame of a resolved stack.  The engine never makes these: the session's
 * stack resolver (src/resolve/stacks.c) does, from the raw STACK record, before the
 * sinks see a stall.
 */
enum ls_frame_kind {
	LS_FRAME_KERNEL = 0,
	LS_FRAME_USER = 1,
};

struct ls_frame {
	__u64 addr;
	const char *sym;	/* NULL: unknown; print "[unknown] 0x..." */
	__u64 off;		/* from sym; from the module's start when sym is NULL */
	const char *module;	/* kernel module ("vmlinux" for the core), user file; NULL: none */
	enum ls_frame_kind kind;
};

struct ls_frames {
	const struct ls_frame *v;	/* innermost first: kernel frames, then user ones */
	unsigned int n;
	unsigned int n_kernel;
	const char *user_method;	/* "dwarf", "fp", "fp-kernel" (the kernel's walk) or "none" */
	const char *note;		/* what could not be done, or NULL */
	__u64 digest;			/* equal for equal resolved frames: "same stack as" */
};

/*
 * A lock a holder waited on inside the wait, while it held this one: a
 * wait of its own judged earlier (its stall), what its off-CPU time was
 * spent on.  holder: that stall's culprit (tid 0: none seen).
 */
#define LS_MAX_WAITED 4	/* per holder, longest first; the rest not shown */

struct ls_waited {
	struct ls_lock_id lock;
	__u64 ns;		/* its wait on that lock, inside this wait and its hold */
	__u64 start_ns;		/* ... from, to: that wait clipped to this one (timelines) */
	__u64 end_ns;
	__u64 stall_seq;	/* the record of that wait (STALL #N) */
	struct ls_task holder;
	enum ls_holder_state holder_state;
	enum ls_verdict verdict;	/* that stall's */
};

struct ls_holder {
	struct ls_task task;
	/*
	 * How the holder was found: LS_OWNER_NONE for mmap_lock (its own
	 * hold records), else what the waiter read at its wait
	 * (LS_OWNER_HINT: a reader-owned rwsem's last reader, not the readers;
	 * LS_OWNER_RELEASER: the task that woke the waiter, never seen holding).
	 */
	enum ls_owner_how how;
	/*
	 * Its cgroup v2 id when it last let go (its HOLD record's), or for
	 * an owner a waiter named, as last told (LS_REC_TASK_CGROUP); 0:
	 * unknown.  The path of that cgroup: the session's cgroup resolver
	 * (src/resolve/cgroup.c) sets it before the sinks see the stall;
	 * NULL: not known.
	 */
	__u64 cgroup_id;
	const char *cgroup;
	struct ls_op op;	/* what the holder was doing when it took the lock */
	bool write;
	bool granted;		/* the hold began by a wakeup handoff */
	bool downgraded;	/* a write hold that became a read hold */
	bool released;		/* false: still held when the wait ended (compatible reader) */
	__u64 hold_start_ns;
	__u64 hold_end_ns;	/* release, or the wait's end if still held */
	__u64 held_ns;		/* hold_end_ns - hold_start_ns */
	__u64 overlap_ns;	/* the part of the hold inside the wait */
	__u64 offcpu_ns;	/* off CPU while holding, inside the wait */
	__u64 offcpu_by_state[LS_STATE_N];	/* [LS_STATE_RUNNING] unused */
	/*
	 * The part of its hold inside the wait no record said where it was:
	 * an owner the kernel side did not follow yet, a releaser.  Neither
	 * on CPU nor off; state is UNKNOWN when it is half the overlap or more.
	 */
	__u64 unseen_ns;
	/*
	 * The part of the hold inside the wait the kernel gave a cause for
	 * ([LS_CAUSE_NONE] unused), and the largest.  THROTTLED, RT_THROTTLED
	 * and IO are off-CPU time (IO part of offcpu_by_state[BLOCKED]);
	 * RUNNABLE is preempted time in which a CPU it could not use idled
	 * (a lower bound: the most one such CPU idled); RECLAIM is time in
	 * reclaim, on CPU or off; STEAL is on-CPU time the hypervisor took.
	 */
	__u64 cause_ns[LS_CAUSE_N];
	enum ls_cause cause;
	const struct ls_throttle *throttle;	/* cause_ns[THROTTLED]: whose quota; else NULL */
	const struct ls_reclaim *reclaim;	/* cause_ns[RECLAIM]: the latest; else NULL */
	/*
	 * cause_ns[IO]: the device of its longest I/O wait that named one,
	 * the kernel's dev_t (LS_DEV_MAJOR/MINOR); 0: not known.  io_disk:
	 * the kernel's name of its whole disk ("vda"), raw bytes, NUL-padded,
	 * unterminated at LS_DISK_NAME_LEN; "": not known.
	 */
	__u32 io_dev;
	char io_disk[LS_DISK_NAME_LEN];
	struct ls_pinned pinned;	/* cause_ns[RUNNABLE]: the CPUs; else all 0 */
	/* dominant off-CPU state, RUNNING if on CPU most of overlap, UNKNOWN if not seen */
	enum ls_holder_state state;
	struct ls_preemptor preempted_by[LS_MAX_PREEMPTORS];
	unsigned int n_preempted_by;
	__u64 preempted_other_ns;	/* time of preemptors beyond LS_MAX_PREEMPTORS */
	bool has_waker;
	struct ls_task woken_by;	/* the waker of its longest blocked spell */
	/* Other locks it waited on inside the wait, longest first (their own stalls). */
	struct ls_waited waited[LS_MAX_WAITED];
	unsigned int n_waited;
	/*
	 * A PI futex's owner: the time inside the wait it sat runnable at a
	 * priority below the waiter's (not boosted), and whether that or its
	 * time asleep (offcpu_by_state[BLOCKED], where no boost helps) reached
	 * ENGINE_PI_LATE_NS: not boosted in time.  0/false for other locks.
	 */
	__u64 pi_unboosted_ns;
	bool pi_late;
	/* Its off-CPU spells inside the lock wait, oldest first: for timelines. */
	const struct ls_spell *spells;
	unsigned int n_spells;
	unsigned int n_spells_dropped;	/* beyond LS_MAX_SPELLS */
	/*
	 * Pending stalls: what it is doing at the report's time (RUNNING: on
	 * CPU, or not seen off CPU), and since when (0: not known).
	 */
	enum ls_holder_state state_now;
	__u64 state_since_ns;
	/*
	 * Pending stalls: it holds an mmap_lock the records did not name (its
	 * hold began without a wait, so no record carried the mm yet); it
	 * sat off CPU holding while this wait went on.  Its HOLD settles it.
	 */
	bool lock_unconfirmed;
	/*
	 * Where it was (NULL: no STACK record came): in a pending stall, its
	 * stack as it was at the report (LS_STACK_NOW) when one came; else its first switch-out
	 * while holding (LS_STACK_HOLD_OFF) or its release (HOLD_LONG).
	 * frames: the resolver's, NULL before the resolver ran.
	 */
	const struct ls_rec_stack *stack;
	const struct ls_frames *frames;
};

struct ls_hop {
	struct ls_task task;
	enum ls_role role;
	bool write;		/* WAITER, QUEUED_WRITER, HOLDER: lock mode */
	__u64 ns;		/* HOLDER: off CPU in the wait; PREEMPTOR: ran instead; else 0 */
	/*
	 * A HOLDER after the first, in a chain across locks: has_lock, and
	 * the lock it held that the hop before it waited on.
	 */
	bool has_lock;
	struct ls_lock_id lock;
	/*
	 * A hop through a wait that ended inside this one (the holder before
	 * it waited on lock, and got it): that wait's record (STALL #N, the
	 * longest when it waited more than once), and how long the hop before
	 * waited on lock inside this wait, all its waits on it.  0: none.
	 */
	__u64 stall_seq;
	__u64 wait_ns;
	/*
	 * Its names, as ls_stall's lock_name and lock_module, set by the stack
	 * resolver (NULL: not known): a futex's data symbol and file, a static
	 * kernel lock's symbol.  The traced host's bytes: escape them.
	 */
	const char *lock_name;
	const char *lock_module;
};

/*
 * A task a stall names under a name the records show changed: an exec, or
 * the process renaming itself (PR_SET_NAME), told apart by nothing in the
 * records.  Keyed by (tid, comm as the stall names it): a tid may appear
 * under both names in one stall.  The lock's process (ls_lock_id) is keyed by
 * its tgid, the tid of its leader.
 */
#define LS_MAX_RENAMES 16	/* per stall; tasks beyond it show their one name */

struct ls_rename {
	__u32 tid;
	char comm[LS_COMM_LEN];		/* the name the stall gives it */
	/*
	 * was: its name before the rename, under which records showed it
	 * within the stall's history (from max(threshold, 1 s) before
	 * start_ns); else its newest name, taken after the record the stall
	 * names it from.
	 */
	char other[LS_COMM_LEN];
	bool was;
	__u64 renamed_ns;		/* the first record under the newer name */
};

/* One causal record per stall: waiter <- lock <- holder(s) <- why. */
struct ls_stall {
	__u64 seq;		/* 1, 2, ... in the order found */
	bool write;		/* mode the waiter asked for */
	bool acquired;		/* false: the wait ended without the lock (killed, trylock) */
	__u64 start_ns;		/* start_locking */
	__u64 end_ns;		/* acquire_returned */
	__u64 wait_ns;		/* end_ns - start_ns: what the waiter went through */
	/*
	 * The part the lock is to blame for: from start_locking to the wakeup
	 * that handed the lock over (granted_ns), or to end_ns when nothing
	 * handed it over.  The threshold, the holders and the verdict look at
	 * this window only: after a handoff the waiter owns the lock and any
	 * further delay (run_delay_ns) is its own run-queue wait.
	 */
	__u64 lock_wait_ns;
	__u64 granted_ns;	/* 0: not handed over by a wakeup */
	__u64 run_delay_ns;	/* end_ns - granted_ns, else 0 */
	struct ls_lock_id lock;	/* the lock: lock.kind says which kind (enum ls_lock_kind) */
	struct ls_task waiter;
	/* The waiter's cgroup v2 id at WAIT_END (0: unknown), and its path as for ls_holder. */
	__u64 waiter_cgroup_id;
	const char *waiter_cgroup;
	/*
	 * The kernel side told the cgroups of owners and preemptors
	 * (LS_FEAT_TASK_CGROUP): the sinks name them; false in older
	 * recordings, whose output stays as it was.
	 */
	bool task_cgroups;
	struct ls_op op;
	bool vma_lock_fallback;	/* a page fault that fell back from the per-VMA lock */
	const struct ls_holder *holders;	/* most off-CPU time first */
	unsigned int n_holders;
	unsigned int holders_dropped;	/* beyond LS_MAX_HOLDERS */
	struct ls_hop chain[LS_MAX_HOPS];
	unsigned int n_chain;
	enum ls_verdict verdict;
	/*
	 * An unknown verdict given to a cycle of waits that is not known to be
	 * a deadlock; LS_UNKNOWN_NONE for every other stall.
	 */
	enum ls_unknown_reason unknown_reason;
	enum ls_cause cause;	/* the culprit holder's (holders[0]) */
	/*
	 * One line on which knob the stall points to (ls_advice()); NULL for
	 * recordings made before causes were looked for, whose output stays
	 * as it was.
	 */
	const char *advice;
	__u64 lost_in_window;	/* records lost while this wait went on */
	/*
	 * Memory bounds overwrote part of what this stall needed (who ran
	 * instead of a holder, a holder's spells off CPU): off-CPU time may
	 * be missing, who ran instead unnamed.
	 */
	bool history_short;
	/*
	 * A pending stall (the sinks' stall op with pending set): the wait had
	 * not ended at end_ns, the time of the TICK that reported it; wait_ns
	 * is the wait so far, acquired false, the holders and verdict as they
	 * stand.  seq is 0: a wait is named by waiter.tid and start_ns, which
	 * its final stall repeats.
	 */
	bool pending;
	bool at_exit;		/* pending, reported because the run ended (LS_TICK_EXIT) */
	/* Pending: this report's number (1, 2, ...); a final stall: the reports made before it. */
	__u32 pending_reports;
	__u64 pending_first_ns;	/* the first pending report's time; 0: none */
	/*
	 * The wait began before tracing did (LS_LOCK_F_PRIOR): start_ns is
	 * when the scan at start-up found it, so wait_ns, lock_wait_ns and
	 * the holders' hold and off-CPU times from start_ns are lower
	 * bounds: it lasted at least that long.  A deadlock: its last wait.
	 */
	bool began_before;
	/*
	 * With began_before: not at start-up but by a later scan, after the
	 * kernel skipped a program of ours and the wait's beginning was lost
	 * (LS_LOCK_F_LATE); it may have begun any time before.
	 */
	bool found_late;
	/* Where the waiter asked for the lock (NULL: no STACK record), and its frames. */
	const struct ls_rec_stack *waiter_stack;
	const struct ls_frames *waiter_frames;
	/*
	 * A kernel lock's names, set with the frames by the stack resolver
	 * (NULL: not known): the data symbol it is or lies in (cgroup_mutex,
	 * init_mm+0x68), and the first function of the waiter's kernel stack
	 * outside the locking code (anon_pipe_write).  Kernel text: escape it.
	 */
	const char *lock_name;
	const char *lock_caller;
	/*
	 * A futex's name (lock_name: the data symbol of the file mapped at its
	 * address, g_queue_lock or queue+0x40) comes with that file's path, as
	 * the process mapped it.  The traced host's bytes: escape them.
	 */
	const char *lock_module;
	/* The tasks it names whose name changed (ls_stall__rename() finds one). */
	const struct ls_rename *renames;
	unsigned int n_renames;
};

/* The rename of the task (or lock process) tid that st names comm, or NULL. */
const struct ls_rename *ls_stall__rename(const struct ls_stall *st, __u32 tid,
					 const char comm[LS_COMM_LEN]);

/*
 * Histograms as the sinks see them (from LS_REC_HIST records): one
 * process's (key.tgid), or, procs > 0, the sum of that many exited
 * processes of the command hist.comm (key.tgid 0; comm "" for all commands
 * past ENGINE_HIST_CMDS).
 */
struct ls_hist_entry {
	struct ls_hist_key key;
	struct ls_hist hist;
	__u32 procs;
	bool exited;		/* one process's, final */
};

struct ls_hist_set {
	struct ls_hist_entry *v;
	size_t n;
	size_t alloc;
	__u64 start_ns;		/* the span the counts cover */
	__u64 end_ns;
};

struct ls_summary {
	__u64 start_ns;		/* LS_MARK_BEGIN, else the first record */
	__u64 end_ns;		/* LS_MARK_END, else the last record */
	__u64 duration_ns;
	__u64 stalls;		/* emitted (after the pid filter) */
	__u64 stalls_by_verdict[LS_VERDICT_N];
	__u64 stalls_by_cause[LS_CAUSE_N];	/* by ls_stall.cause */
	__u64 stalls_by_lock[LS_LOCK_KIND_N];	/* by ls_stall.lock.kind */
	__u64 events;		/* records fed, of every type */
	__u64 pending_reports;	/* pending records sent, at exit included (after the pid filter) */
	__u64 pending_at_exit;	/* waits still open when the run ended */
	__u64 lost_events;	/* lost_before + LS_REC_LOST */
	__u64 bad_records;	/* malformed records skipped */
	__u64 evicted;		/* engine state dropped to stay within its memory bounds */
	__u64 stalls_short;	/* final stalls with history_short */
	/*
	 * Live: stalls delivered without names, the naming worker busy
	 * (src/sinks/naming.h); filled in by that stage, never by the engine.
	 */
	__u64 stalls_unnamed;
	/*
	 * SLO rules (src/alert/slo.c) and their hooks (src/alert/hooks.c): filled in by
	 * the session, never by the engine; printed only when slo is set.
	 */
	bool slo;
	__u64 slo_violations;	/* fired */
	__u64 slo_suppressed;	/* held back by a rule's rate limit */
	__u64 hook_runs;	/* hooks started */
	__u64 hook_failures;	/* could not start, exited non-zero or died of a signal */
	__u64 hook_timeouts;	/* killed after --exec-timeout */
	__u64 hook_skipped;	/* not started: as many running as allowed */
	const struct ls_hist_set *hists;	/* cumulative over the run */
};

struct engine_opts {
	__u64 threshold_ns;	/* minimum wait worth a stall record */
	__u32 filter_pid;	/* 0: all; else stalls whose waiter, a holder or the lock's process is this tgid */
	__u32 features;		/* LS_FEAT_* when no LS_MARK_BEGIN says */
	/*
	 * A wait still open this long at a TICK is reported as pending, then
	 * every pending_every_ns while it lasts (0: once).  0: never, not
	 * even at exit.  ENGINE_PENDING_* are the command line's defaults.
	 */
	__u64 pending_after_ns;
	__u64 pending_every_ns;
};

#define ENGINE_PENDING_AFTER_NS	1000000000ULL
#define ENGINE_PENDING_EVERY_NS	10000000000ULL

struct engine;

struct engine *engine__new(const struct engine_opts *opts, struct sink *sink);
/*
 * Feed one record.  Returns 0, or a negative errno when the sink failed
 * (e.g. -EPIPE): malformed records are counted and skipped, never fatal.
 */
int engine__feed(struct engine *e, const void *rec, size_t len);
/*
 * A HIST record or an INTERVAL mark read for the metrics only, not part of
 * the run's stream (nor of its recording): it updates the histograms and
 * sends an interval, but is not counted and moves neither the clock nor the
 * run's span, so the analysis is the same as a replay without it.  Other
 * records are refused (-EINVAL); otherwise as engine__feed.
 */
int engine__feed_aside(struct engine *e, const void *rec, size_t len);
/* End of stream: send the summary (with cumulative histograms) to the sink. */
int engine__finish(struct engine *e);
void engine__summary(const struct engine *e, struct ls_summary *out);
/*
 * Holders whose current stack a pending report at time now would want
 * (holders of waits open pending_after_ns by then, off CPU): their tids,
 * at most max, into tids; returns how many.  The live loop reads their
 * stacks (LS_STACK_NOW records) and feeds those before the TICK.
 */
size_t engine__stuck_holders(const struct engine *e, __u64 now, __u32 *tids, size_t max);
void engine__free(struct engine *e);

/* Helpers every module shares (src/engine/names.c). */
/* "priority_inversion": in JSON, metrics, rules and hooks' environment */
const char *ls_verdict_name(enum ls_verdict v);
/* "priority inversion": for people */
const char *ls_verdict_text(enum ls_verdict v);
/* "cycle_lock_twice" for JSON; NULL for LS_UNKNOWN_NONE and past the enum */
const char *ls_unknown_reason_name(enum ls_unknown_reason r);
/* "it passes twice through one lock": for people; NULL as above */
const char *ls_unknown_reason_text(enum ls_unknown_reason r);
const char *ls_state_name(enum ls_holder_state s);
const char *ls_role_name(enum ls_role r);
/* A cause's row (src/engine/causes.c). */
struct ls_cause_row {
	/* "throttled": in text, JSON, the metrics' cause label and cause= rules */
	const char *name;
	/* the stall's advice when it is the culprit's cause (ls_advice()); NULL: none */
	const char *advice;
};

/* c's row; LS_CAUSE_NONE's past the enum. */
const struct ls_cause_row *ls_cause_row(enum ls_cause c);
/* "throttled", "reclaim", ...; "none" for LS_CAUSE_NONE and past the enum. */
const char *ls_cause_name(enum ls_cause c);
/* The kernel's dev_t (ls_rec_io_dev.dev) in parts. */
#define LS_DEV_MAJOR(dev)	((unsigned int)((dev) >> 20))
#define LS_DEV_MINOR(dev)	((unsigned int)((dev) & 0xfffff))
/* "direct", "memcg", "compaction"; "unknown" past the enum. */
const char *ls_reclaim_kind_name(unsigned int kind);
/* The stall's advice from its cause, verdict and culprit's state: a constant string. */
const char *ls_advice(const struct ls_stall *st);
const char *ls_policy_name(unsigned int policy);

/* Where a lock's identity (ls_lock_id.id) lives. */
enum ls_lock_space {
	LS_LOCK_IN_NONE = 0,	/* LS_LOCK_NONE, or a kind past the table */
	LS_LOCK_IN_MM,		/* an mm's address; the process is ls_lock_id.tgid */
	LS_LOCK_IN_USER,	/* an address in the process ls_lock_id.tgid: a user-space lock */
	LS_LOCK_IN_KERNEL,	/* a kernel address; tgid 0 */
};

/* A lock kind's row (src/engine/lock_kinds.c). */
struct ls_lock_kind_row {
	/* "futex": in text, JSON, the metrics' lock label and lock= rules */
	const char *name;
	const char *short_name;	/* top's lock column: "mmap" */
	const char *hist_key;	/* its wait histogram's "kind" in JSON: "futex_wait" */
	enum ls_lock_space space;
	/* readers queue behind a waiting writer (fair rwsems): write waits are kept */
	bool writer_first;
};

/* kind's row; LS_LOCK_NONE's is "none", a kind past the table's "unknown". */
const struct ls_lock_kind_row *ls_lock_kind(unsigned int kind);
/* "mmap_lock", "futex", "pi_futex", "mutex", ...; "unknown" past the enum. */
const char *ls_lock_kind_name(unsigned int kind);
static inline bool ls_lock_is_user(unsigned int kind)
{
	return ls_lock_kind(kind)->space == LS_LOCK_IN_USER;
}
static inline bool ls_lock_is_kernel(unsigned int kind)
{
	return ls_lock_kind(kind)->space == LS_LOCK_IN_KERNEL;
}
/*
 * "pthread_owner", "futex_word", "lock_owner", "reader_hint", "releaser",
 * "rwlock_writer"; NULL for none.
 */
const char *ls_owner_how_name(unsigned int how);
/* "page_fault", "mmap", "munmap", ..., "syscall_N", "unknown": into buf, returned. */
const char *ls_op_name(const struct ls_op *op, char *buf, size_t len);
/* Compare scheduling importance: <0 if a matters less than b, 0 same, >0 more. */
int ls_task_importance_cmp(const struct ls_task *a, const struct ls_task *b);

#endif /* LOCKSTALL_ENGINE_H */
