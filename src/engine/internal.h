/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine's insides, shared by its files and by the unit tests (which
 * peek at the counts in struct engine_debug).  Nothing outside src/engine
 * and test/ includes this.
 *
 * Who owns what:
 *	containers.c	struct map (u64 -> pointer hash), struct ring (bounded deque)
 *			and the intrusive lists (containers.h)
 *	engine.c	engine__feed: validation, dispatch, lost spans, sweeps,
 *			summary
 *	hists.c		histograms: the run's, per interval, exited processes summed
 *	tasks.c		per task: identity, flags, off-CPU spells (SWITCH,
 *			WAKEUP, MIGRATE, EXIT), causes
 *	cpus.c		per CPU: who runs, and the runner history the
 *			preemptor tally is read from
 *	locks.c		per lock: completed holds and write waits, retention;
 *			waits in progress and open holds (WAIT_*, HOLD);
 *			owners, deadlocks
 *	stall.c		one WAIT_END -> one struct ls_stall: chain, verdict;
 *			deadlocks
 *	stall_holders.c	its holders: holds found, measured, merged (stall.h)
 *	hops.c		stalls kept for the chains of later ones
 *	pending.c	waits not ended, reported at TICKs
 *	stacks.c	STACK records parked on tasks and moved to stalls, holds
 *	renames.c	a task's names over time, the renames a stall names
 *	causes.c	the causes: names, advice, their time in a hold
 *	lock_kinds.c	the lock kinds: names, where their identity lives
 *	task_cgroups.c	per tid: its cgroup (TASK_CGROUP), for holders and preemptors
 *	advice.c	a stall's one line of advice
 *	names.c		names of verdicts, states, roles, ops; task importance
 *	sink.c		the output port's pass-through for stages (sink.h)
 *
 * Every table is bounded (the ENGINE_MAX_* below); going past a bound drops
 * state and counts it in e->sum.evicted, never fails the stream.
 */
#ifndef LOCKSTALL_ENGINE_INTERNAL_H
#define LOCKSTALL_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "engine/engine.h"
#include "util.h"

/* Bounds.  A record naming a CPU at or past ENGINE_MAX_CPUS is malformed. */
#define ENGINE_MAX_CPUS		8192	/* x86_64 NR_CPUS maximum */
#define ENGINE_MAX_TASKS	65536
#define ENGINE_MAX_LOCKS		16384
#define ENGINE_MAX_TASK_CGROUPS	65536	/* tids whose cgroup is known */
#define ENGINE_SPELL_RING	128	/* closed spells kept per task ... */
#define ENGINE_SPELL_RING_MAX	8192	/* ... or while a hold may still need them */
#define ENGINE_RECLAIM_RING	16	/* ended reclaims kept per task, at most */
#define ENGINE_IO_DISKS	16	/* devices whose disk names are kept, the latest told */
#define ENGINE_PAST_STALLS	64	/* stalls kept for the chains of later ones, the latest */
/* A holder's cause is named when it covers at least 1/this of its hold inside the wait. */
#define ENGINE_CAUSE_SHARE	4
#define ENGINE_MAX_SPELLS	(1u << 20)	/* ... over all tasks (56 MiB) */
#define ENGINE_LOCK_MAX_HOLDS	4096	/* completed holds kept per lock */
#define ENGINE_MAX_HOLDS	65536	/* ... and over all locks */
#define ENGINE_LOCK_MAX_WAITS	4096	/* completed write waits kept per lock */
#define ENGINE_MAX_WAITS	65536
#define ENGINE_LOCK_MAX_OPEN	4096	/* open waits tracked per lock */
#define ENGINE_RUNS_MAX		16384	/* runner history per CPU, at most */
#define ENGINE_MAX_RUNS		(1u << 20)	/* ... over all CPUs */
#define ENGINE_LOSSY_SPANS	64	/* beyond: the oldest two merge */
#define ENGINE_MAX_HIST_KEYS	65536
/*
 * Exited processes whose histograms are kept apart; past it the half with
 * the least time is summed per command, in at most ENGINE_HIST_CMDS entries
 * (then one for all other commands).
 */
#define ENGINE_HIST_EXITED	4096
#define ENGINE_HIST_CMDS	1024
#define ENGINE_MAX_TALLY	64	/* distinct preemptors per holder; rest summed */
#define ENGINE_MAX_CANDS	8192	/* holds judged per stall; rest counted as dropped */
/*
 * A PI futex's owner is boosted in time unless, inside its waiter's wait,
 * it sat runnable below the waiter's priority or asleep for this long in
 * all (locks.md, "Owners"): a scheduler tick at HZ=250, the longest a
 * non-preemptible kernel may take to act on a boost.
 */
#define ENGINE_PI_LATE_NS	4000000ULL
/*
 * Runner-history entries one stall may visit for its preemptor tallies;
 * past it, preemptor time is summed unnamed.  Bounds a crafted stream that
 * repeats WAIT_ENDs over maximal state; real stalls visit far fewer.
 */
#define ENGINE_STALL_RUN_BUDGET	(1u << 16)
#define ENGINE_RETAIN_MIN_NS	1000000000ULL
/* A quiet task is kept at least this long, and with it the stack a later record reuses. */
_Static_assert(LS_STACK_INTERVAL_MAX <= ENGINE_RETAIN_MIN_NS, "a reused stack must outlive --stack-interval");
/* A task silent this many retain periods is stale state (an EXIT was lost). */
#define ENGINE_STALE_RETAINS	64
/* Table slots the idle sweep looks at per record fed. */
#define ENGINE_SWEEP_STEP	2
/* STACK records kept (pending, and with completed holds), all tasks and locks. */
#define ENGINE_MAX_STACK_BYTES	(64u << 20)

#define LS_TASK_F_ANY (LS_TASK_F_WAITING | LS_TASK_F_HOLDING | LS_TASK_F_GRANTED | LS_TASK_F_OWNER)
/* Off CPU with these, a task's spells may explain a stall. */
#define LS_TASK_F_HOLDS (LS_TASK_F_HOLDING | LS_TASK_F_GRANTED | LS_TASK_F_OWNER)


/* ts lies more than age before now (false if it is not before now at all). */
static inline bool ts_older(__u64 now, __u64 ts, __u64 age)
{
	return now > ts && now - ts > age;
}

/* Length of [a0, a1) ∩ [b0, b1), 0 when they do not meet. */
static inline __u64 span_overlap(__u64 a0, __u64 a1, __u64 b0, __u64 b1)
{
	__u64 lo = u64_max(a0, b0), hi = u64_min(a1, b1);

	return hi > lo ? hi - lo : 0;
}

#include "engine/containers.h"

/* ---- tasks.c, cpus.c: spells, tasks, CPUs --------------------------- */

/*
 * An off-CPU spell: state is PREEMPTED, BLOCKED or GRANTED_NOT_RUNNING.
 * Runnable spells (PREEMPTED, GRANTED_NOT_RUNNING) sit on one CPU; a
 * migration closes the spell and opens a new one on the new CPU, so who ran
 * instead is always read from a single CPU's runner history.
 */
struct spell {
	__u64 start;
	__u64 end;		/* open spells: meaningless */
	__u32 cpu;
	__u8 state;		/* enum ls_holder_state */
	bool has_waker;		/* BLOCKED spells closed by a WAKEUP */
	bool holding;		/* the kernel said it held or was granted the lock at open */
	__u8 cause;		/* LS_CAUSE_F_* the kernel gave at open, SPELL_* */
	__s32 prio;		/* task->prio as the record that opened it said */
	struct ls_task waker;
	__u64 throttled_ns;	/* SPELL_THROTTLED_TOLD: throttled this long from its start */
	__u32 io_dev;		/* LS_CAUSE_F_IO: the device (LS_REC_IO_DEV); 0: not known */
	/*
	 * What the causes' own records told of it, laid out by causes.c
	 * (struct spell_told, as the kernel's skb->cb); zero until told.
	 */
	__u64 told[6];
};

/* A blocked spell the kernel said was an I/O wait: all of it counts as I/O. */
static inline bool spell__io(const struct spell *sp)
{
	return sp->state == LS_STATE_BLOCKED && (sp->cause & LS_CAUSE_F_IO);
}

/* spell.cause: an UNTHROTTLE said how much of the throttled spell was throttled. */
#define SPELL_THROTTLED_TOLD	0x80

/*
 * Of x ns that fell somewhere in a stretch len ns long, what surely fell in
 * a part of it part ns long: never more than seen.
 */
static inline __u64 share__sure(__u64 x, __u64 len, __u64 part)
{
	__u64 out = len > part ? len - part : 0;

	return x > out ? (x - out < part ? x - out : part) : 0;
}

/* The part of a spell the kernel said its cgroup's quota held it, from its start. */
static inline __u64 spell__throttled_end(const struct spell *sp)
{
	if (!(sp->cause & LS_CAUSE_F_THROTTLED))
		return sp->start;
	if (!(sp->cause & SPELL_THROTTLED_TOLD))
		return sp->end;
	return sp->start + (sp->throttled_ns < sp->end - sp->start ? sp->throttled_ns :
			    sp->end - sp->start);
}

static inline bool spell__runnable(const struct spell *sp)
{
	return sp->state == LS_STATE_PREEMPTED || sp->state == LS_STATE_GRANTED_NOT_RUNNING;
}

/* A stretch a holder spent reclaiming or compacting memory (RECLAIM .. RECLAIM_END). */
struct rspan {
	__u64 start;
	__u64 end;
};

enum task_cpu_state {
	TASK_CPU_UNKNOWN = 0,
	TASK_CPU_ON,		/* last seen switched in */
	TASK_CPU_OFF,		/* last seen switched out or woken */
};

struct task;

/*
 * A hold the engine knows began (WAIT_END success, or the read half of a
 * downgrade) and has not seen end.  The kernel sends HOLD only for holds
 * that may matter, so an open hold may also end silently: exclusivity and
 * the task's LS_TASK_F_HOLDING flag retire those.
 */
struct open_hold {
	struct list_node node;	/* in lock->open_holds */
	struct task *task;
	struct lock *lock;
	struct ls_op op;
	__u64 cgroup_id;	/* of the record that opened it */
	__u64 start;
	__u64 seen_ts;		/* the record that opened it */
	bool used;
	bool write;
	bool granted;
	bool downgraded;	/* the read half of a downgraded write hold */
};

#define TASK_OPEN_HOLDS 2	/* dup_mmap() holds the parent's and the child's lock */

struct task {
	__u32 tid;
	__u32 tgid;
	struct ls_task info;	/* latest seen */
	__u64 last_ts;		/* latest record naming it */
	/*
	 * Its names (src/engine/renames.c): the newest and the latest record
	 * under it; the one before, the latest record under that one, and
	 * the first under the newest (renamed_ns 0: no rename seen).
	 */
	char comm[LS_COMM_LEN];
	__u64 comm_ts;
	char comm_was[LS_COMM_LEN];
	__u64 comm_was_ts;
	__u64 renamed_ns;
	__u8 flags;		/* latest LS_TASK_F_* seen */
	/*
	 * The kernel side sends its switches and wakeups from follow_from on
	 * (the first record with a LS_TASK_F_ANY flag, or an OWNER that said
	 * where it was), until follow_to (a record without; 0: still): only
	 * then do its spells say where it was.  0/0: never followed.
	 */
	__u64 follow_from;
	__u64 follow_to;
	__u8 cpu_state;		/* enum task_cpu_state */
	bool spell_open;
	struct spell open;
	struct ring spells;	/* closed spells, oldest first (ENGINE_SPELL_RING*) */
	__u64 spells_lost_to;	/* spells ending up to here were overwritten */

	/* The wait in progress (WAIT_BEGIN seen, no WAIT_END yet). */
	bool waiting;
	struct list_node wait_node;	/* in lock->open_waits */
	struct lock *waiting_on;
	__u64 wait_start;
	bool wait_write;
	struct ls_op wait_op;		/* from WAIT_BEGIN: for pending reports */
	__u64 wait_cgroup_id;
	/* LS_LOCK_F_PRIOR or LS_LOCK_F_LATE: its start is a lower bound; 0: seen to begin */
	__u8 wait_prior;
	__u32 pend_reports;		/* pending reports made of this wait */
	__u64 pend_first;		/* ... the first one's time */
	/*
	 * The start of its last ended wait: a WAIT_BEGIN or late OWNER of a
	 * wait that began no later is stale (a quiet wait's scan raced its end).
	 */
	__u64 ended_start;

	/*
	 * The lock's owner as the waiter named it (OWNER, WAIT_BEGIN), from
	 * its OWNER record to its WAIT_END: chains and deadlocks follow it.
	 */
	__u32 wait_owner_tid;
	__u64 wait_owner_start;	/* that wait's start */
	__u8 wait_owner_how;	/* enum ls_owner_how */
	bool deadlock_reported;	/* this wait is in a cycle already reported */
	__u8 cycle_doubt;	/* enum ls_unknown_reason: that cycle was reported unknown */
	struct ls_lock_id wait_lock;	/* the lock wait_owner_tid owns */
	/* Who woke it while it waited (a futex's releaser), until WAIT_END. */
	bool has_wait_waker;
	struct ls_task wait_waker;
	/*
	 * The latest record that showed it PI-boosted (prio above its own
	 * policy's): a futex owner's boost ends at its release, before the
	 * waiter's WAIT_END, and the stall must still show it.
	 */
	__s32 boost_prio;
	__u64 boost_ts;	/* 0: never seen boosted */
	/* Its last ended wait on an owner: a chain may need it after the fact. */
	struct past_wait {
		struct ls_lock_id lock;
		__u64 start, end;
		__u32 owner_tid;
		__u8 owner_how;
	} last_wait;

	struct open_hold oh[TASK_OPEN_HOLDS];

	/* STACK records waiting for the WAIT_END or HOLD they come before. */
	struct ls_rec_stack *wait_stack;
	struct ls_rec_stack *hold_stack;
	/* The last ones taken, for the records that reuse them (LS_LOCK_F_STACK_SAME). */
	struct last_stack {
		struct ls_rec_stack *s;	/* NULL: a free slot */
		__u32 op;		/* ls_op_key() of the record that took it */
		bool hold;
	} last_stack[LS_STACK_SAME_SLOTS];
	/* LS_STACK_NOW: its stack at the latest tick that asked, kept until the next. */
	struct ls_rec_stack *now_stack;
	/* The latest THROTTLE record's limit, for its throttled spells; NULL: none. */
	struct ls_throttle *throttle;
	/* Reclaims: the one in progress (from reclaim_start), ended ones oldest first. */
	bool reclaim_open;
	__u64 reclaim_start;
	struct ring reclaims;		/* struct rspan, at most ENGINE_RECLAIM_RING */
	struct ls_reclaim *reclaim;	/* the latest RECLAIM record's; NULL: none */
};

/* One stretch of one task running on a CPU: the preemptor tally's source. */
struct run {
	struct ls_task task;
	__u64 from;
	__u64 to;
};

struct cpu {
	bool seen;		/* a kernel record came from this CPU */
	__u64 last_ts;		/* ... the latest one: lost_before spans start here */
	bool runner_known;
	struct ls_task runner;	/* who runs now, as far as known */
	__u64 since;		/* ... since when (or since we learned it) */
	__u32 n_open;		/* runnable spells open on this CPU */
	__u64 last_close;	/* latest end of a runnable spell here */
	/* Runs that overlap runnable spells, ordered: from and to never decrease. */
	struct ring runs;
	__u64 evicted_to;	/* runs ending up to here were overwritten to stay bounded */
};

struct engine;

struct task *tasks__find(struct engine *e, const struct ls_task *t);
/* tk runs again from ts (a record before its SWITCH said so): its open spell ends. */
void tasks__back_on(struct engine *e, struct task *tk, __u64 ts);
/* Find or make the task; NULL if tid 0 or the table is full (counted). */
struct task *tasks__get(struct engine *e, const struct ls_task *t);
/* A record at ts named tk as t: its latest info, and its name if that changed. */
void task__seen(struct task *tk, const struct ls_task *t, __u64 ts);
/* Record a new name of tk's seen at ts (renames.c); older news than its newest is ignored. */
void task__note_comm(struct task *tk, const char comm[LS_COMM_LEN], __u64 ts);
/* Fill st's renames (e->renames) from the task table, before the sinks see it. */
void renames__stall(struct engine *e, struct ls_stall *st);
void tasks__drop(struct engine *e, struct task *tk);
/* Drop the task if it has nothing open and has been quiet for retain. */
bool tasks__drop_if_idle(struct engine *e, struct task *tk);
void tasks__set_flags(struct engine *e, struct task *tk, __u8 flags, __u64 ts);
void tasks__free_all(struct engine *e);

void tasks__switch(struct engine *e, const struct ls_rec_switch *r);
void tasks__wakeup(struct engine *e, const struct ls_rec_wakeup *r);
void tasks__migrate(struct engine *e, const struct ls_rec_migrate *r);
void tasks__exit(struct engine *e, const struct ls_rec_exit *r);
void tasks__throttle(struct engine *e, const struct ls_rec_throttle *r);
void tasks__unthrottle(struct engine *e, const struct ls_rec_unthrottle *r);
void tasks__reclaim(struct engine *e, const struct ls_rec_reclaim *r);
void tasks__reclaim_end(struct engine *e, const struct ls_rec_reclaim_end *r);
/* IO_DEV: the device of the I/O wait its SWITCH or OWNER just opened, and its disk's name. */
void tasks__io_dev(struct engine *e, const struct ls_rec_io_dev *r);
/* The disk name an IO_DEV gave dev (LS_DISK_NAME_LEN bytes, maybe unterminated); NULL: none. */
const char *tasks__io_disk(const struct engine *e, __u32 dev);
/* OWNER: follow the owner from here on, as it was when the wait began. */
void tasks__owner(struct engine *e, const struct ls_rec_owner *r);

/* Walk tk's spells (closed, then the open one ending at now) inside [from, to). */
typedef void (*spell_fn)(const struct spell *sp, __u64 start, __u64 end, void *ctx);
void tasks__for_each_spell(const struct task *tk, __u64 from, __u64 to, spell_fn fn, void *ctx);
/* Walk tk's reclaims (ended, then the one in progress ending at to), clipped to [from, to). */
typedef void (*rspan_fn)(__u64 start, __u64 end, void *ctx);
void tasks__for_each_reclaim(const struct task *tk, __u64 from, __u64 to, rspan_fn fn, void *ctx);

struct cpu *cpus__get(struct engine *e, __u32 cpu);
void cpus__free_all(struct engine *e);
/* t ran on c during [from, to): kept if a runnable spell on c may overlap it. */
void cpu__push_run(struct engine *e, struct cpu *c, const struct ls_task *t,
		   __u64 from, __u64 to);
/* Learned who runs on c at ts from a record that is not a switch on c. */
void cpu__set_runner(struct engine *e, struct cpu *c, const struct ls_task *t, __u64 ts);
/* Start a holder's preemptor tally afresh. */
void tally__reset(struct engine *e);
/* Credit who ran on cpu during [from, to) into the stall's preemptor tally. */
void cpus__tally(struct engine *e, __u32 cpu, __u64 from, __u64 to, __u32 holder_tid);

/* ---- locks.c: per lock ----------------------------------------------- */

/* A completed hold, with its task's off-CPU spells clipped to it. */
struct hold {
	struct ls_task task;
	__u64 cgroup_id;	/* the HOLD record's */
	struct ls_op op;
	__u64 start;
	__u64 end;
	bool write;
	bool granted;
	bool downgraded;
	bool released;		/* false: an open hold copied for one stall */
	bool unconfirmed;	/* a pending stall's guess: holding, mm not known */
	__u64 spells_lost_to;	/* its task's spells before this were overwritten; 0: none */
	__u8 how;		/* enum ls_owner_how: how a waiter named it; NONE: a HOLD */
	/*
	 * An owner or releaser, whose task was followed over [seen_from,
	 * seen_to) only (empty: never): outside it no record said where it
	 * was.  false: a HOLD's task, followed all along while it held.
	 */
	bool seen_limited;
	__u64 seen_from, seen_to;
	struct ls_rec_stack *stack;	/* owned; NULL: none came */
	struct ls_throttle *throttle;	/* owned; a spell of it was throttled; else NULL */
	struct ls_reclaim *reclaim;	/* owned; its task reclaimed in it; else NULL */
	struct rspan *reclaims;		/* in the same block, after spells[] */
	__u32 n_reclaims;
	__u32 n_spells;
	struct spell spells[];
};

/* A completed write wait: a possible queued writer. */
struct wwait {
	struct ls_task task;
	__u64 start;
	__u64 end;
};

struct lock {
	__u64 id;
	__u64 key;		/* in e->locks: lock__key() of its identity */
	__u8 kind;		/* enum ls_lock_kind */
	__u32 key_tgid;		/* futexes: the process, part of the identity */
	struct ls_lock_id info;
	__u64 last_ts;
	struct ring holds;	/* struct hold *, sorted by end */
	struct ring waits;	/* struct wwait, sorted by end */
	struct list_node open_waits;	/* task.wait_node */
	struct list_node open_holds;	/* open_hold.node */
	__u32 n_open_waits;
	/* The last wait that ended with the lock: when, and whose (owner reads before it are stale). */
	__u64 acquired_ts;
	__u32 acquired_tid;
	bool min_open_valid;
	__u64 min_open_start;	/* earliest open wait start, when valid */
};

/* Sort keys of lock.holds and lock.waits. */
__u64 hold__end(const void *elem);
__u64 wwait__end(const void *elem);

/*
 * A lock's table entry, by its identity (kind, id and, for futexes, the
 * process): locks__find for an mmap_lock by its mm, locks__get for any.
 */
struct lock *locks__find(struct engine *e, __u64 id);
struct lock *locks__get(struct engine *e, const struct ls_lock_id *info);
/* Prune by retention, then drop the lock if nothing is left in it. */
bool locks__sweep(struct engine *e, struct lock *lk);
void locks__free_all(struct engine *e);

/* Copy tk's spells inside [start, end) into a new hold (tk may be NULL). */
struct hold *hold__new(const struct task *tk, __u64 start, __u64 end);
void hold__free(struct engine *e, struct hold *h);

int locks__wait_begin(struct engine *e, const struct ls_rec_lock *r);
int locks__wait_end(struct engine *e, const struct ls_rec_lock *r);
void locks__hold(struct engine *e, const struct ls_rec_lock *r);
void locks__end_wait(struct engine *e, struct task *tk);
void locks__end_open_hold(struct engine *e, struct open_hold *oh);
/* OWNER: the waiter names its lock's owner; a cycle of such waits is a deadlock. */
int locks__owner(struct engine *e, const struct ls_rec_owner *r);
/* At a tick: report each cycle of owners whose every wait has lasted the threshold, once. */
int locks__deadlocks(struct engine *e, __u64 now);
/* tk's wait is in a cycle reported already, and the cycle still holds at now. */
bool locks__in_deadlock(struct engine *e, struct task *tk, __u64 now);

/* ---- stacks.c -------------------------------------------------------- */

/* A well-formed STACK record of exactly len bytes. */
bool stack__valid(const void *rec, size_t len);
/* A valid STACK record of why LS_STACK_NOW (user space's, not the kernel stream's). */
bool stack__is_now(const void *rec);
/* Park a valid STACK record on its task until its WAIT_END or HOLD comes. */
void stacks__record(struct engine *e, const void *rec, size_t len);
/* Take the stack parked in *slot if it is for lock_id (else drop it); the caller owns it. */
struct ls_rec_stack *stack__take(struct engine *e, struct ls_rec_stack **slot, __u64 lock_id);
/* The stack of tk's WAIT_END or HOLD (hold) r, parked or reused; the caller owns it. */
struct ls_rec_stack *stack__for(struct engine *e, struct task *tk, bool hold,
				const struct ls_rec_lock *r);
/* Free all of tk's stacks. */
void stacks__drop_task(struct engine *e, struct task *tk);
void stack__free(struct engine *e, struct ls_rec_stack *s);

/* ---- causes.c -------------------------------------------------------- */

/* What one cause left in a hold inside a wait. */
struct cause_part {
	__u64 ns;		/* its time (ls_holder.cause_ns) */
	__u64 most;		/* the largest piece that told a detail, its size; 0: none did */
	__u64 mask;		/* ORed over its pieces: runnable's idle CPUs */
	union {
		__u32 io_dev;			/* io: the device of its longest wait */
		struct ls_pinned pinned;	/* runnable: the CPUs of its spell with most idle */
	} detail;
};

/* A cause's record: it begins as these do (LS_REC_RUNNABLE, LS_REC_STEAL). */
struct cause_rec {
	struct ls_hdr hdr;
	__u32 tid;
	__u32 tgid;
};

/* The largest record of a cause (the feed copies records into a union this large). */
#define ENGINE_CAUSE_REC_MAX	64

/* The size a cause's record of this type must have; 0: not a cause's record. */
size_t causes__rec_size(__u16 type);
/* A cause's record, its size checked: onto its task's open spell. */
void causes__record(struct engine *e, const struct cause_rec *r);

/*
 * The LS_CAUSE_F_* of told (a SWITCH's or WAKEUP's flags) that a spell
 * keeps: a runnable one or a blocked one, as each cause's row says.
 */
__u8 causes__spell_flags(__u8 told, bool runnable);
/* Add what each cause says of hold h inside [from, to) to part[]. */
void causes__measure(struct cause_part part[LS_CAUSE_N], const struct hold *h, __u64 from,
		     __u64 to);
/* Fold a later hold's parts of the same task into its leader's. */
void causes__fold(struct cause_part lead[LS_CAUSE_N], const struct cause_part c[LS_CAUSE_N]);

/* ---- stall.c --------------------------------------------------------- */

/* What a stall says of pending reports: of itself, or of those before it. */
struct stall_pend {
	bool pending;		/* r is a wait still open, made up at a tick */
	bool at_exit;
	__u32 reports;		/* pending: this report's number; final: reports before it */
	__u64 first_ns;
	struct task *cycle;	/* pending: the waiter, whose wait is in a deadlock still */
};

/*
 * Build and send the stall for one WAIT_END (already past the threshold),
 * or, with p->pending, the report of a wait still open (r made up from it).
 * Returns 1 when it went to the sink (the pid filter let it), 0 when not,
 * or the sink's negative errno.
 */
int stall__emit(struct engine *e, const struct ls_rec_lock *r, struct lock *lk,
		const struct stall_pend *p);
/*
 * Send a deadlock: tk waits, following owners from tk comes back to tk;
 * with a reason (enum ls_unknown_reason), the cycle as an unknown stall.
 */
int stall__deadlock(struct engine *e, struct task *tk, __u8 reason);
/* When the lock stopped making r's task wait: its handoff, else acquire_returned. */
__u64 stall__lock_end(const struct ls_rec_lock *r);

/* ---- hops.c ---------------------------------------------------------- */

/*
 * A stall sent, kept for the chains of later stalls whose holders waited
 * on its lock while they held theirs: by the time those end, this wait is
 * over, and only its record says who held that lock and why.
 */
struct past_stall {
	__u32 tid;		/* its waiter; 0: a free slot */
	__u64 seq;
	__u64 start, end;	/* its lock wait */
	struct ls_lock_id lock;
	enum ls_verdict verdict;
	enum ls_cause cause;
	const char *advice;	/* a constant string, or NULL */
	bool has_culprit;	/* holders[0], and the task at the root of its chain */
	struct ls_task culprit;
	enum ls_holder_state culprit_state;
	struct ls_task root;
	struct ls_hop chain[LS_MAX_HOPS];	/* its chain after the waiter */
	unsigned int n_chain;
};

/* Keep a final stall just sent (its hops' names are the resolver's: not kept). */
void hops__remember(struct engine *e, const struct ls_stall *st);
/* hd's waits on locks other than lock inside [from, to): hd->waited, longest first. */
void hops__waited(const struct engine *e, struct ls_holder *hd, const struct ls_lock_id *lock,
		  __u64 from, __u64 to);
/*
 * Go on with st's chain through the wait of holder h that ended inside
 * st's (its longest there, if it was most of h's time asleep): that
 * stall's hops.  Returns the stall followed, or NULL.
 */
const struct past_stall *hops__chain(const struct engine *e, struct ls_stall *st,
				     const struct ls_holder *h);
/*
 * st's chain went on through via: when both holders were kept off CPU,
 * judge the task at the root against the waiter, and take via's cause
 * when st's holder had none.  Returns whether it did (via's advice holds).
 */
bool hops__judge(struct ls_stall *st, const struct past_stall *via);

/* ---- pending.c ------------------------------------------------------- */

/* A TICK: report the waits open long enough (all of them at LS_TICK_EXIT). */
int pending__tick(struct engine *e, const struct ls_rec_tick *r);
/* A pending holder as it is now: state, since when, its latest LS_STACK_NOW. */
void pending__holder_now(struct engine *e, struct ls_holder *hd, __u64 lock_id, bool lossless);

/* ---- task_cgroups.c ------------------------------------------------ */

/* TASK_CGROUP: tid's cgroup from here on. */
void task_cgroups__record(struct engine *e, const struct ls_rec_task_cgroup *r);
/* tid's latest cgroup id; 0: not known. */
__u64 task_cgroups__of(const struct engine *e, __u32 tid);
/* Give the stall being built its owners' and preemptors' cgroup ids, before the sinks see it. */
void task_cgroups__stall(struct engine *e, struct ls_stall *st);
void task_cgroups__free_all(struct engine *e);

/* ---- hists.c --------------------------------------------------------- */

/* A HIST record: the latest cumulative counts of its key. */
void hists__update(struct engine *e, const struct ls_rec_hist *r);
/* Process tgid is named comm by a newer record: its histograms take the name. */
void hists__rename(struct engine *e, __u32 tgid, const char comm[LS_COMM_LEN]);
/* An INTERVAL mark: what changed since the previous one, to the sink. */
int hists__interval(struct engine *e, __u64 ts);
void hists__free(struct engine *e);

/* ---- engine.c -------------------------------------------------------- */

struct lossy_span {
	__u64 from;
	__u64 to;
	__u64 count;
};

/* One preemptor credit accumulated while building a holder. */
struct tally {
	struct ls_task task;
	__u64 ns;
};

struct stall_cand;

struct engine {
	struct engine_opts opts;
	struct sink *sink;
	__u64 retain;		/* max(threshold, 1 s) */
	__u64 stale_age;	/* ENGINE_STALE_RETAINS * retain, saturated */
	__u32 features;		/* LS_MARK_BEGIN's, else opts.features */

	__u64 now;		/* latest record time seen */
	bool have_ts;
	__u64 first_ts;
	bool have_begin, have_end;
	__u64 begin_ts, end_ts;
	bool finished;

	struct ls_summary sum;	/* counters; hists/start/end filled on demand */

	struct map tasks;	/* tid -> struct task */
	struct map locks;	/* lock__key() -> struct lock */
	struct map task_cgroups;	/* tid -> struct task_cgroup (task_cgroups.c) */
	struct cpu *cpus;
	__u32 n_cpus;
	__u32 n_runs;		/* run slots allocated over all CPUs */
	__u32 n_spells;		/* spell slots allocated over all tasks */
	__u32 n_holds;		/* completed holds over all locks */
	__u32 n_waits;		/* completed write waits over all locks */
	__u32 sweep_task, sweep_lock;

	struct ring lossy;	/* struct lossy_span */
	__u64 stack_bytes;	/* STACK records kept: ENGINE_MAX_STACK_BYTES */
	const struct ls_rec_stack *wait_stack;	/* the waiter's, during stall__emit */
	struct task **pend_v;	/* pending.c scratch: the waits one tick reports */
	__u32 pend_alloc;

	/* Histograms: cumulative, the previous interval's, the delta sent. */
	struct ls_hist_set cum;
	struct ls_hist *prev;
	size_t prev_alloc;
	struct map hist_idx;	/* packed key -> index + 1 */
	__u32 hist_exited;	/* entries of one exited process: ENGINE_HIST_EXITED */
	__u32 hist_cmds;	/* entries that sum a command's: ENGINE_HIST_CMDS */
	struct ls_hist_set ival;
	__u64 ival_start;

	/* Disk names of devices IO_DEV records told (dev 0: free), replaced round robin. */
	struct io_disk {
		__u32 dev;
		char name[LS_DISK_NAME_LEN];
	} io_disks[ENGINE_IO_DISKS];
	__u32 io_disk_next;

	/* Stall scratch: reused, so a stall costs no malloc once warm. */
	struct stall_cand *cands;
	struct stall_cand **order;	/* group leaders, most off CPU first */
	__u32 cands_alloc;
	struct tally *tally;
	__u32 n_tally, tally_alloc;
	__u8 tally_idx[2 * ENGINE_MAX_TALLY];	/* tid hash -> tally index + 1 */
	__u32 run_budget;	/* left for this stall: ENGINE_STALL_RUN_BUDGET */
	bool stall_history_short;	/* this stall needed runs or spells that were overwritten */
	__u64 tally_other;
	struct ls_holder holders[LS_MAX_HOLDERS];
	struct ls_spell spells[LS_MAX_HOLDERS][LS_MAX_SPELLS];
	__u64 tally_snap[ENGINE_MAX_TALLY];	/* tally before one spell: its own top runner */
	struct ls_rename renames[LS_MAX_RENAMES];	/* the stall being sent's */
	struct past_stall past[ENGINE_PAST_STALLS];	/* hops.c: a ring, the latest kept */
	__u32 past_next;
};

/* Records lost in the spans that meet (from, to): a stall's lost_in_window. */
__u64 engine__lost_in(const struct engine *e, __u64 from, __u64 to);

/* For unit tests: what the engine holds right now. */
struct engine_debug {
	__u32 tasks;
	__u32 locks;
	__u32 holds;
	__u32 waits;
	__u32 runs;
	__u32 cpus;
	__u32 open_holds;
	__u32 open_waits;
	__u32 lossy_spans;
	__u32 hist_keys;
	__u32 task_cgroups;	/* tids whose cgroup is known */
	__u32 spells;		/* closed spells kept, over all tasks */
	__u64 stack_bytes;	/* STACK records kept */
};

void engine__debug(const struct engine *e, struct engine_debug *out);

#endif /* LOCKSTALL_ENGINE_INTERNAL_H */
