// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall, kernel side: follow every task that waits for or holds an
 * mm->mmap_lock, and tell user space when such a task goes off CPU, is woken,
 * migrates or exits, and who runs in its place.  src/engine/DESIGN.md is the
 * contract; the exact sending rules are here:
 *
 *  WAIT_BEGIN  at the first switch-out of a wait (start_locking .. acquire_returned).
 *  WAIT_END    at acquire_returned when the wait went off CPU (so a WAIT_BEGIN
 *              was at least attempted) or lasted at least cfg.min_wait_ns; at
 *              exit for a wait that went off CPU (LS_LOCK_F_EXITED).
 *  HOLD        at release when the holder was off CPU while holding, or was
 *              granted, or held at least cfg.min_hold_ns (a write hold that
 *              ends in a downgrade follows the same rule, with
 *              LS_LOCK_F_DOWNGRADED); always for a hold open at exit
 *              (LS_LOCK_F_EXITED).
 *  SWITCH      when prev or next waits, holds or is granted, or watch[cpu] > 0.
 *  WAKEUP      when the wakee waits or holds.
 *  MIGRATE     when the task raised a watch, or waits or holds while queued.
 *  EXIT        at sched_process_exit of a task that appeared with lock state
 *              in a record; again at its final switch (TASK_DEAD) if it took
 *              the lock after sched_process_exit (exit_mm) and was seen again.
 *
 * Histograms count every wait (except a trylock that failed at once) and
 * every hold, whether or not a record was sent for it; the off-CPU one
 * counts the holds that went off CPU.  Short samples reach them in batches
 * (ls_hist_add()): a task's last few are added when it leaves the CPU.
 */
#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <lockstall/abi.h>
#include "log2.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile struct ls_bpf_config cfg = {};

/* ls_wait_state.flags */
#define LS_W_ACTIVE	0x01
#define LS_W_BEGIN_SENT	0x02
#define LS_W_GRANTED	0x04	/* woken while waiting: the lock is ours */
#define LS_W_WENT_OFF	0x08	/* went off CPU at least once */
#define LS_W_OWNER_SENT	0x10	/* an OWNER record named this wait's owner: WAIT_END owed */

/* ls_hold_state.flags */
#define LS_H_ACTIVE	0x01
#define LS_H_GRANTED	0x02

struct ls_wait_state {
	__u64 mm;		/* the mm; a futex's user address when kind says so */
	__u64 start_ns;
	__u8 write;
	__u8 flags;		/* LS_W_* */
	__u8 kind;		/* enum ls_lock_kind: 0 an mmap_lock (bpf/futex.bpf.h) */
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
	__u32 hist[4];		/* 1 + hist_slots index, by ls_hist_cache_idx(); 0: none yet */
	__u16 off_kstack_len;	/* bytes of off_kstack bpf_get_stack() filled */
	struct ls_grant_state grant;
	/* The last user page fault, once the task left the CPU it was taken on. */
	struct ls_fault fault;
	struct ls_task waker;	/* current at sched_waking; tid 0: none pending */
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

#ifndef LS_TASK_STATE_HASH
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ls_task_state);
} task_state SEC(".maps");

/* t from ls_current() or a tracepoint's argument: a BTF pointer, plain loads. */
#define LS_TASK_READ(t, field) ((t)->field)

static __always_inline struct task_struct *ls_current(void)
{
	return bpf_get_current_task_btf();
}
#else
/*
 * The second object (make builds it with -DLS_TASK_STATE_HASH), for
 * kernels before 5.11 (Debian 11's 5.10): no task storage, no
 * bpf_get_current_task_btf(), no bpf_task_pt_regs().  The state is a hash
 * entry keyed by the task_struct's address, which no other task can have
 * until this one is freed, after its final switch, where its entry is
 * deleted (ls_state_forget()): a tid could be reused by a new task while
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

/*
 * Helpers 5.10 lacks: a use in this object fails the build here, rather
 * than its load on 5.10 only (a newer kernel would take it).
 */
#pragma GCC poison bpf_get_current_task_btf bpf_task_pt_regs bpf_task_storage_get
#endif

/*
 * Per CPU: n counts tasks runnable there, not running, while holding or
 * granted the lock; curr is the task that CPU switched to last.  A plain
 * array, not per-CPU, since a wakeup on one CPU raises another CPU's count
 * and reads its curr; one cache line each so the switch path of one CPU
 * does not bounce another's line.  BPF_F_MMAPABLE for its page-aligned
 * values: a plain array's start 56 bytes into a line (6.18), so every
 * entry would straddle two.
 *
 * curr stands in for rq->curr: the per-CPU runqueues variable is a typed
 * ksym, which only kernels with CONFIG_KALLSYMS_ALL can resolve.
 *
 * fault is the last user page fault taken on this CPU, by fault_task.  It
 * is noted here, not in the task's storage: most faults never take
 * mmap_lock (per-VMA locks), and a task storage lookup at every fault
 * measured 40 ns of a 100 ns handler under stress-ng --fault, this line
 * next to nothing.  It moves to the task's storage at the task's next
 * switch-out (ls_fault_keep()), the only way off this CPU, so the task's
 * last fault is always in one of the two: here while fault_task is
 * current, else in its storage.
 */
struct ls_watch {
	__u64 n;
	__u64 curr;		/* task_struct address; 0 until the CPU switched once */
	__u64 fault_task;	/* whose fault is in fault; 0: none */
	struct ls_fault fault;
	__u64 pad[1];
};
_Static_assert(sizeof(struct ls_watch) == 64, "ls_watch is one cache line");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1024);	/* the loader sets the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct ls_watch);
} watch SEC(".maps");

struct ls_drops {
	__u64 pending;		/* since this CPU's last record: its next lost_before */
	__u64 total;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ls_drops);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/*
 * Histograms: slots in an array (hist_slots), found by key through
 * hist_index, handed out from hist_free (the loader fills it with every
 * index at start and gives back the slots of processes that exited).  A
 * task caches the indices of the slots it adds to (ls_task_state.hist):
 * the hash is looked up once per task and kind, not on every lock event.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LS_HIST_MAX);
	__type(key, __u32);
	__type(value, struct ls_hist_slot);
} hist_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LS_HIST_MAX);
	__type(key, struct ls_hist_key);
	__type(value, __u32);
} hist_index SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, LS_HIST_MAX);
	__type(value, __u32);
} hist_free SEC(".maps");

/*
 * STACK records are built here, per CPU, then copied into the ring buffer
 * with bpf_ringbuf_output(): their size depends on how much user stack
 * could be copied, and a reservation's size must be a constant.  Too big
 * for a per-CPU array (32 KiB values at most): a plain array with one
 * entry per CPU (the loader sets max_entries).  Only the lock tracepoints
 * fill it, in process context with preemption off (tracepoint callbacks),
 * so nothing else runs on this CPU's entry while it is in use.
 */
struct ls_stack_buf {
	struct ls_rec_stack rec;
	/* slack past LS_USTACK_COPY_MAX: the copy loop's masked bounds */
	__u8 copy[LS_USTACK_COPY_MAX + 8192];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct ls_stack_buf);
} stack_bufs SEC(".maps");

/* hist_misses goes into loader_stats; hold_overflows is for bpftool map dump. */
__u64 hist_misses = 0;		/* samples lost: the histogram map was full */
__u64 hold_overflows = 0;	/* holds not followed: both slots busy */
/*
 * What stacks cost, measured where it is spent (two clock reads per stack,
 * a few per second): STACK records made and the time making them took,
 * and the kernel stacks saved after a holder's long off-CPU spell.
 */
__u64 stack_records = 0;
__u64 stack_ns = 0;
__u64 kstack_saves = 0;
__u64 kstack_save_ns = 0;
/* Events of tasks not followed: the hash object's task_state was full (0 with task storage). */
__u64 task_state_full = 0;

static __always_inline __u32 ls_task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return t->thread_info.cpu;
	return BPF_CORE_READ((struct task_struct___pre516 *)t, cpu);
}

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

/* The process's name: its leader's comm, which exec renames. */
static __always_inline void ls_process_comm(char *out, struct task_struct *t)
{
	struct task_struct *leader = t->group_leader;
	const __u64 *comm = (const __u64 *)leader->comm;
	__u64 *dst = (__u64 *)out;

	dst[0] = comm[0];
	dst[1] = comm[1];
}
#else
/* The hash object: t may be current, a plain address (see ls_current()). */
static __always_inline void ls_task_fill(struct ls_task *out, struct task_struct *t)
{
	ls_task_fill_probe(out, t);
}

static __always_inline void ls_process_comm(char *out, struct task_struct *t)
{
	BPF_CORE_READ_INTO((char (*)[LS_COMM_LEN])out, t, group_leader, comm);
}
#endif

/*
 * What runs on another CPU: only an address, which may have exited since,
 * so probe reads.  tid stays 0 (unknown) if the CPU has not switched yet.
 */
static __always_inline void ls_task_fill_cpu_curr(struct ls_task *out, __u32 cpu)
{
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);

	if (!w || !w->curr)
		return;
	ls_task_fill_probe(out, (struct task_struct *)w->curr);
}

/*
 * mm is only an address here (kept in task storage), so probe reads.  Owner
 * is mm->owner when the kernel has it (CONFIG_MEMCG), else t when mm is t's.
 */
static __always_inline void ls_mm_fill(struct ls_mm *out, __u64 mm, struct task_struct *t)
{
	struct mm_struct *m = (struct mm_struct *)mm;
	struct task_struct *owner = NULL;

	out->id = mm;
	if (bpf_core_field_exists(m->owner))
		owner = BPF_CORE_READ(m, owner);
	if (owner) {
		out->tgid = BPF_CORE_READ(owner, tgid);
		BPF_CORE_READ_INTO(&out->comm, owner, group_leader, comm);
	} else if ((__u64)LS_TASK_READ(t, mm) == mm) {
		ls_process_comm(out->comm, t);
		out->tgid = LS_TASK_READ(t, tgid);
	}
}

/* A futex wait's lock: the user address in the waiter's process. */
static __always_inline void ls_lock_fill(struct ls_mm *out, const struct ls_wait_state *w,
					 struct task_struct *t)
{
	out->id = w->mm;
	out->kind = w->kind;
	out->tgid = LS_TASK_READ(t, tgid);
	ls_process_comm(out->comm, t);
}

#ifndef LS_TASK_STATE_HASH
static __always_inline struct ls_task_state *ls_state_get(struct task_struct *t, bool create)
{
	return bpf_task_storage_get(&task_state, t, NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}
#else
static __always_inline void ls_drops_count(__u64 taken);

/* A new entry starts zeroed, as task storage does: copied from here. */
static const struct ls_task_state ls_state_zero;

static __always_inline struct ls_task_state *ls_state_get(struct task_struct *t, bool create)
{
	__u64 key = (__u64)t;
	struct ls_task_state *st = bpf_map_lookup_elem(&task_state, &key);

	if (st || !create)
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
static __always_inline void ls_state_forget(struct task_struct *t)
{
	__u64 key = (__u64)t;

	bpf_map_delete_elem(&task_state, &key);
}
#endif

static __always_inline bool ls_holding(const struct ls_task_state *st)
{
	return (st->hold[0].flags | st->hold[1].flags) & LS_H_ACTIVE;
}

static __always_inline __u8 ls_state_flags(const struct ls_task_state *st)
{
	__u8 f = 0;

	if (st->wait.flags & LS_W_ACTIVE) {
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

static __always_inline void ls_watch_add(__u32 cpu, __u64 delta)
{
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);

	/* Raised on one CPU, lowered on another: atomics. */
	if (w)
		__sync_fetch_and_add(&w->n, delta);
}

static __always_inline void ls_watch_raise(struct ls_task_state *st, __u32 cpu)
{
	__u32 slot = st->watch_slot;

	if (slot == cpu + 1)
		return;
	if (slot)
		ls_watch_add(slot - 1, (__u64)-1);
	ls_watch_add(cpu, 1);
	st->watch_slot = cpu + 1;
}

static __always_inline void ls_watch_lower(struct ls_task_state *st)
{
	__u32 slot = st->watch_slot;

	if (!slot)
		return;
	ls_watch_add(slot - 1, (__u64)-1);
	st->watch_slot = 0;
}

/* The switch path's one array access: note next as curr, read the count. */
static __always_inline bool ls_switch_watched(struct ls_watch *w, struct task_struct *next)
{
	if (!w)
		return false;
	w->curr = (__u64)next;
	return (__s64)w->n > 0;
}

/*
 * Every record goes through here: reserve, zero, stamp.  A failed reserve
 * is counted twice: pending goes into this CPU's next record as lost_before
 * (the engine learns where the hole is), total is for the loader.
 */
/* One record lost; give back the count a failed record had taken (ls_hdr_fill). */
static __always_inline void ls_drops_count(__u64 taken)
{
	__u32 zero = 0;
	struct ls_drops *d = bpf_map_lookup_elem(&drops, &zero);

	if (d) {
		d->pending += 1 + taken;
		d->total++;
	}
}

/* Stamp a header; takes this CPU's pending drop count into it, and returns it. */
static __always_inline __u64 ls_hdr_fill(struct ls_hdr *h, __u16 type, __u32 size, __u64 now)
{
	__u32 zero = 0;
	struct ls_drops *d = bpf_map_lookup_elem(&drops, &zero);
	__u64 lost = 0;

	if (d) {
		lost = d->pending;
		d->pending = 0;
	}
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->lost_before = lost > 0xffff ? 0xffff : lost;
	h->ts = now;
	return lost;
}

static __always_inline void *ls_emit_reserve(__u16 type, __u32 size, __u64 now)
{
	struct ls_hdr *h;

	h = bpf_ringbuf_reserve(&events, size, 0);
	if (!h) {
		ls_drops_count(0);
		return NULL;
	}
	__builtin_memset(h, 0, size);
	ls_hdr_fill(h, type, size, now);
	return h;
}

/*
 * Wake the reader only when a good part of the ring is full: it polls at
 * least every 100 ms anyway, and a wakeup per record would make lockstall
 * preempt the very tasks it watches (each SWITCH waking the reader, whose
 * run is another SWITCH on a watched CPU).
 */
#define LS_RB_WAKEUP_BYTES (1 << 20)

static __always_inline __u64 ls_rb_wakeup_flags(void)
{
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	return avail >= LS_RB_WAKEUP_BYTES ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void ls_emit_submit(void *rec)
{
	bpf_ringbuf_submit(rec, ls_rb_wakeup_flags());
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

/* cur's last user page fault: on this CPU's line while noted there, else kept in st. */
static __always_inline const struct ls_fault *ls_fault_of(struct task_struct *cur,
							  const struct ls_task_state *st)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);

	if (w && w->fault_task == (__u64)cur)
		return &w->fault;
	return &st->fault;
}

/* What the current task was doing when it asked for the lock. */
static __always_inline void ls_op_fill(struct ls_op *op, struct task_struct *cur,
				       const struct ls_task_state *st)
{
	const struct ls_fault *f;
	struct pt_regs *regs, regs_copy;
	__u64 ip, sp, orig_ax;

	op->addr = 0;
	op->syscall = -1;
	op->kind = LS_OP_UNKNOWN;
	op->fault_flags = 0;
	if (!LS_TASK_READ(cur, mm) || (LS_TASK_READ(cur, flags) & (PF_KTHREAD | PF_IO_WORKER)))
		return;
	regs = LS_USER_REGS(cur, &regs_copy);
	if (!regs)
		return;
	ip = regs->ip;
	sp = regs->sp;
	orig_ax = regs->orig_ax;
	/*
	 * In a user fault the saved user regs are the fault's, and the x86
	 * exception entry sets orig_ax to -1 (no syscall to restart); in a
	 * syscall, orig_ax is its number.  Checking orig_ax keeps a syscall
	 * whose user ip and sp happen to equal an earlier fault's (the
	 * instruction after a syscall faulted) from passing for that fault.
	 */
	f = ls_fault_of(cur, st);
	if (f->ip && ip == f->ip && sp == f->sp && (__s64)orig_ax == -1) {
		op->kind = LS_OP_PAGE_FAULT;
		op->addr = f->addr;
		op->fault_flags = f->err & (LS_PF_WRITE | LS_PF_USER | LS_PF_INSTR);
		return;
	}
	op->kind = LS_OP_SYSCALL;
	op->syscall = (__s32)orig_ax;
}

static __always_inline bool ls_emit_lock(__u16 type, __u64 now, struct task_struct *t, __u64 mm,
					 const struct ls_task_state *st, __u64 start_ns, __u64 granted_ns,
					 __u64 acquired_ns, __u64 offcpu_ns, __u8 write,
					 __u8 success, __u8 flags)
{
	struct ls_rec_lock *r = ls_emit_reserve(type, sizeof(*r), now);

	if (!r)
		return false;
	ls_task_fill(&r->task, t);
	if (type != LS_REC_HOLD && st->wait.kind && st->wait.mm == mm) {
		ls_lock_fill(&r->mm, &st->wait, t);
		r->owner_how = st->wait.owner_how;
		r->owner_tid = st->wait.owner_tid;
	} else {
		ls_mm_fill(&r->mm, mm, t);
	}
	ls_op_fill(&r->op, t, st);
	r->start_ns = start_ns;
	r->granted_ns = granted_ns;
	r->acquired_ns = acquired_ns;
	r->offcpu_ns = offcpu_ns;
	r->write = write;
	r->success = success;
	r->flags = flags;
	/*
	 * Every caller passes current (sched_switch's prev is still current
	 * at the tracepoint, sched_process_exit runs in the exiting task), so
	 * the helper reads t's own cgroup.  Should a caller ever pass another
	 * task, 0 (unknown) rather than current's cgroup under t's name.
	 */
	if ((__u64)t == (__u64)ls_current())
		r->cgroup_id = bpf_get_current_cgroup_id();
	ls_emit_submit(r);
	return true;
}

/* Stacks ------------------------------------------------------------------ */


#define LS_PAGE_SIZE 4096

/*
 * Copy the user stack from sp up, page by page: bpf_probe_read_user() is
 * all or nothing, and the stack's mapping may end (or a page be swapped
 * out) before want bytes.  Returns the bytes copied.  Never faults pages
 * in and takes no lock: the copy is of current's memory only.
 */
static __always_inline __u32 ls_copy_ustack(__u8 *dst, __u64 sp, __u32 want)
{
	__u32 done = 0;
	int i;

	for (i = 0; i < LS_USTACK_COPY_MAX / LS_PAGE_SIZE + 1; i++) {
		__u32 chunk = LS_PAGE_SIZE - ((sp + done) & (LS_PAGE_SIZE - 1));
		__u32 off = done;

		if (done >= want)
			break;
		if (chunk > want - done)
			chunk = want - done;
		/* The verifier needs the bounds it cannot infer through the loop. */
		asm volatile("" : "+r"(off), "+r"(chunk));
		off &= LS_USTACK_COPY_MAX - 1;
		chunk &= 2 * LS_PAGE_SIZE - 1;
		if (bpf_probe_read_user(dst + off, chunk, (const void *)(sp + done)))
			break;
		done += chunk;
	}
	return done;
}

/*
 * Send where current is: a STACK record, just before the WAIT_END or HOLD
 * it belongs to (same timestamp), so the engine has it when that record
 * arrives.  kstack, when set, is a kernel stack saved earlier (the
 * holder's long off-CPU spell); else current's stack now.
 */
static __always_inline void ls_emit_stack(void *ctx, __u8 why, __u64 now, struct task_struct *cur,
					  __u64 mm, const __u64 *kstack, __u32 kstack_len)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_stack_buf *b = bpf_map_lookup_elem(&stack_bufs, &cpu);
	__u64 t0 = bpf_ktime_get_ns();
	struct ls_rec_stack *r;
	struct pt_regs *regs, regs_copy;
	__u32 size, copied = 0;
	__u64 taken;
	long n;

	if (!b)
		return;
	r = &b->rec;
	__builtin_memset(r, 0, sizeof(*r));
	r->tid = LS_TASK_READ(cur, pid);
	r->tgid = LS_TASK_READ(cur, tgid);
	r->mm = mm;
	r->why = why;
	if (kstack) {
		if (kstack_len > sizeof(r->kernel))
			kstack_len = sizeof(r->kernel);
		bpf_probe_read_kernel(r->kernel, kstack_len & (sizeof(r->kernel) * 2 - 1), kstack);
		n = kstack_len;
	} else {
		n = bpf_get_stack(ctx, r->kernel, sizeof(r->kernel), 0);
	}
	if (n > 0) {
		r->nr_kernel = n / 8;
		if (n >= sizeof(r->kernel))
			r->flags |= LS_STACK_F_KERNEL_TRUNC;
	}
	if (!LS_TASK_READ(cur, mm) || (LS_TASK_READ(cur, flags) & (PF_KTHREAD | PF_IO_WORKER))) {
		r->flags |= LS_STACK_F_KTHREAD;
		goto send;
	}
	r->user_mode = cfg.ustack_mode;
	if (cfg.ustack_mode == LS_USTACK_NONE)
		goto send;
	n = bpf_get_stack(ctx, r->user, sizeof(r->user), BPF_F_USER_STACK);
	if (n > 0) {
		r->nr_user = n / 8;
		if (n >= sizeof(r->user))
			r->flags |= LS_STACK_F_USER_TRUNC;
	}
	if (cfg.ustack_mode != LS_USTACK_DWARF)
		goto send;
	regs = LS_USER_REGS(cur, &regs_copy);
	if (!regs)
		goto send;
	r->uregs[0] = regs->ax;
	r->uregs[1] = regs->dx;
	r->uregs[2] = regs->cx;
	r->uregs[3] = regs->bx;
	r->uregs[4] = regs->si;
	r->uregs[5] = regs->di;
	r->uregs[6] = regs->bp;
	r->uregs[7] = regs->sp;
	r->uregs[8] = regs->r8;
	r->uregs[9] = regs->r9;
	r->uregs[10] = regs->r10;
	r->uregs[11] = regs->r11;
	r->uregs[12] = regs->r12;
	r->uregs[13] = regs->r13;
	r->uregs[14] = regs->r14;
	r->uregs[15] = regs->r15;
	r->uregs[16] = regs->ip;
	r->flags |= LS_STACK_F_REGS;
	copied = ls_copy_ustack(b->copy, regs->sp, cfg.ustack_copy);
	if (copied < cfg.ustack_copy)
		r->flags |= LS_STACK_F_COPY_SHORT;
	r->copy_len = copied;
	/* Zero the padding to the next multiple of 8: no stale bytes leave. */
	copied &= LS_USTACK_COPY_MAX - 1;
	*(__u64 *)(b->copy + (copied & ~7u)) &= (copied & 7) ? ~0ULL >> (64 - 8 * (copied & 7)) : 0;
	copied = (copied + 7) & ~7u;
send:
	size = sizeof(*r) + copied;
	asm volatile("" : "+r"(size));
	if (size > sizeof(*r) + LS_USTACK_COPY_MAX)
		size = sizeof(*r) + LS_USTACK_COPY_MAX;
	taken = ls_hdr_fill(&r->hdr, LS_REC_STACK, size, now);
	/*
	 * The reader reads a process's mappings when its first STACK
	 * arrives; waking it for each (BPF_RB_FORCE_WAKEUP) would shorten the
	 * time a short-lived process has to exit first, but measured 2-3x the
	 * cost of the whole record here (an IPI, a VM exit on a guest).  It
	 * polls every 100 ms anyway.
	 */
	if (bpf_ringbuf_output(&events, r, size, ls_rb_wakeup_flags()))
		ls_drops_count(taken);
	__sync_fetch_and_add(&stack_records, 1);
	__sync_fetch_and_add(&stack_ns, bpf_ktime_get_ns() - t0);
}

/* ls_task_state.hist[]: which cached slot a histogram of kind and mode uses. */
static __always_inline __u32 ls_hist_cache_idx(__u8 kind, __u8 write)
{
	return kind == LS_HIST_WAIT ? (write & 1) : (kind + 1) & 3;
}

/* The slot of key, made if it has none (NULL: no slot left, counted). */
static __always_inline struct ls_hist_slot *ls_hist_slot_get(struct ls_hist_key *key,
							     struct task_struct *t, __u32 *out_idx)
{
	struct ls_hist_slot *s;
	__u32 *p, idx;

	p = bpf_map_lookup_elem(&hist_index, key);
	if (p) {
		idx = *p;
		*out_idx = idx;
		return bpf_map_lookup_elem(&hist_slots, &idx);
	}
	if (bpf_map_pop_elem(&hist_free, &idx))
		goto miss;
	s = bpf_map_lookup_elem(&hist_slots, &idx);
	if (!s)
		goto miss;
	s->key = *key;
	ls_process_comm(s->hist.comm, t);
	/* -EEXIST: another CPU made this key's slot first; give ours back. */
	if (bpf_map_update_elem(&hist_index, key, &idx, BPF_NOEXIST)) {
		__builtin_memset(&s->key, 0, sizeof(s->key));
		bpf_map_push_elem(&hist_free, &idx, 0);
		p = bpf_map_lookup_elem(&hist_index, key);
		if (!p)
			goto miss;
		idx = *p;
		s = bpf_map_lookup_elem(&hist_slots, &idx);
	}
	*out_idx = idx;
	return s;
miss:
	return NULL;
}

/* The histogram a cached index (ls_hist_cache_idx()) stands for. */
static __always_inline void ls_hist_key_of(struct ls_hist_key *key, __u32 ci, struct task_struct *t)
{
	key->tgid = LS_TASK_READ(t, tgid);
	key->kind = ci < 2 ? LS_HIST_WAIT : ci == 2 ? LS_HIST_HOLD : LS_HIST_OFFCPU;
	key->write = ci < 2 ? ci : LS_HIST_ANY_MODE;
}

/*
 * Add samples and their sum to t's process's histogram ci: one sample in
 * slot `slot`, or (counts set) counts[i] samples in slot i for i < n.
 * Samples the map had no room for are counted in hist_misses.
 */
static __always_inline void ls_hist_put(struct ls_task_state *st, struct task_struct *t, __u32 ci,
					const __u8 *counts, __u32 n, __u32 slot, __u64 sum_ns,
					__u32 total)
{
	struct ls_hist_key key = {};
	struct ls_hist_slot *s = NULL;
	__u32 idx, i;

	ls_hist_key_of(&key, ci, t);
	ci &= 3;
	idx = st->hist[ci];
	/* A cached index is used only while its slot still holds this key. */
	if (idx) {
		idx--;
		s = bpf_map_lookup_elem(&hist_slots, &idx);
		if (s && *(__u64 *)&s->key != *(__u64 *)&key)
			s = NULL;
	}
	if (!s) {
		s = ls_hist_slot_get(&key, t, &idx);
		if (!s) {
			__sync_fetch_and_add(&hist_misses, total);
			return;
		}
		st->hist[ci] = idx + 1;
	}
	/*
	 * count is the sum of the slots (the loader adds it up), and comm is
	 * written only at creation -- reading the leader's comm each time
	 * touched a second task_struct; the loader renames after an exec.
	 */
	__sync_fetch_and_add(&s->hist.sum_ns, sum_ns);
	if (!counts) {
		/* clang drops a mask it can prove redundant; the verifier cannot prove it. */
		asm volatile("" : "+r"(slot));
		slot &= LS_HIST_SLOTS - 1;
		__sync_fetch_and_add(&s->hist.slots[slot], 1);
		return;
	}
	for (i = 0; i < LS_PEND_HOLD_SLOTS && i < n; i++)
		if (counts[i])
			__sync_fetch_and_add(&s->hist.slots[i], counts[i]);
}

/* The waits of one mode st holds back go to the process's histogram. */
static __always_inline void ls_hist_flush_wait(struct ls_task_state *st, struct task_struct *t,
					       __u32 mode)
{
	struct ls_hist_pend *p = &st->pend;

	mode &= 1;
	if (!p->wait_n[mode])
		return;
	ls_hist_put(st, t, ls_hist_cache_idx(LS_HIST_WAIT, mode), &p->wait_n[mode], 1, 0,
		    p->wait_sum_ns[mode], p->wait_n[mode]);
	p->wait_n[mode] = 0;
	p->wait_sum_ns[mode] = 0;
}

static __always_inline void ls_hist_flush_hold(struct ls_task_state *st, struct task_struct *t)
{
	struct ls_hist_pend *p = &st->pend;
	__u32 total = p->hold_n[0] + p->hold_n[1] + p->hold_n[2];

	if (!total)
		return;
	ls_hist_put(st, t, ls_hist_cache_idx(LS_HIST_HOLD, LS_HIST_ANY_MODE), p->hold_n,
		    LS_PEND_HOLD_SLOTS, 0, p->hold_sum_ns, total);
	p->hold_n[0] = 0;
	p->hold_n[1] = 0;
	p->hold_n[2] = 0;
	p->hold_sum_ns = 0;
}

static __always_inline bool ls_hist_pending(const struct ls_task_state *st)
{
	const struct ls_hist_pend *p = &st->pend;

	return (p->wait_n[0] | p->wait_n[1] | p->hold_n[0] | p->hold_n[1] | p->hold_n[2]) != 0;
}

/*
 * Everything st holds back, at the task's switch-out and its exit: the
 * histograms user space reads lag a task's last few short samples only
 * while it stays on CPU.
 */
static __always_inline void ls_hist_flush_all(struct ls_task_state *st, struct task_struct *t)
{
	ls_hist_flush_wait(st, t, 0);
	ls_hist_flush_wait(st, t, 1);
	ls_hist_flush_hold(st, t);
}

/*
 * One sample.  Most samples are the uncontended operation's wait and
 * hold, a few microseconds at most, and adding each to the process's slot
 * took two atomics and two or three of the slot's cache lines: 40 ns of
 * each lock cycle under stress-ng --mmap (measured against a build without
 * histograms).  Waits under 1 us and holds under 4 us are counted in the
 * task's state instead (pend, on a line every lock event touches anyway)
 * and go to the slot when a count reaches LS_PEND_MAX, when the task
 * leaves the CPU and at its exit.  Longer ones, and off-CPU times, go at
 * once.
 */
static __always_inline void ls_hist_add(struct ls_task_state *st, struct task_struct *t, __u8 kind,
					__u8 write, __u64 ns)
{
	struct ls_hist_pend *p = &st->pend;
	__u32 slot = ls_hist_slot(ns), m = write & 1;

	if (!p->exiting && kind == LS_HIST_WAIT && slot == 0) {
		p->wait_sum_ns[m] += ns;
		if (++p->wait_n[m] >= LS_PEND_MAX)
			ls_hist_flush_wait(st, t, m);
		return;
	}
	if (!p->exiting && kind == LS_HIST_HOLD && slot < LS_PEND_HOLD_SLOTS) {
		p->hold_sum_ns += ns;
		/* The verifier cannot see the bound through the slot's computation. */
		asm volatile("" : "+r"(slot));
		if (slot < LS_PEND_HOLD_SLOTS && ++p->hold_n[slot] >= LS_PEND_MAX)
			ls_hist_flush_hold(st, t);
		return;
	}
	ls_hist_put(st, t, ls_hist_cache_idx(kind, write), NULL, 0, slot, ns, 1);
}

static __always_inline bool ls_is_self(struct task_struct *cur)
{
	return cfg.self_tgid && (__u32)LS_TASK_READ(cur, tgid) == cfg.self_tgid;
}

/* Which hold slot a new hold of mm takes; -1: both busy (counted). */
static __always_inline int ls_hold_slot(struct ls_task_state *st, __u64 mm)
{
	/*
	 * A task cannot hold one mm twice, so an active slot on the same mm is
	 * a hold whose release we missed (e.g. a non-owner release): reuse it.
	 */
	if (!(st->hold[0].flags & LS_H_ACTIVE) || st->hold[0].mm == mm)
		return 0;
	if (!(st->hold[1].flags & LS_H_ACTIVE) || st->hold[1].mm == mm)
		return 1;
	__sync_fetch_and_add(&hold_overflows, 1);
	return -1;
}

/* The slot of an open hold of mm (only a write hold if write_only); -1: none. */
static __always_inline int ls_hold_find(const struct ls_task_state *st, __u64 mm, bool write_only)
{
	if ((st->hold[0].flags & LS_H_ACTIVE) && st->hold[0].mm == mm &&
	    (!write_only || st->hold[0].write))
		return 0;
	if ((st->hold[1].flags & LS_H_ACTIVE) && st->hold[1].mm == mm &&
	    (!write_only || st->hold[1].write))
		return 1;
	return -1;
}

/*
 * t is current, except at sched_process_exit (also current, but exiting:
 * no stack worth sending).  ctx is the program's, for bpf_get_stack().
 */
static __always_inline void ls_hold_end(void *ctx, struct ls_task_state *st, __u32 k,
					struct task_struct *t, __u64 now, __u8 end_flags)
{
	struct ls_hold_state *h = &st->hold[k & 1];
	__u64 granted_ns = (h->flags & LS_H_GRANTED) ? st->grant.hold_ns[k & 1] : 0;
	__u64 start = granted_ns ? granted_ns : h->acquired_ns;
	__u64 held = now > start ? now - start : 0;
	__u8 flags = end_flags;

	ls_hist_add(st, t, LS_HIST_HOLD, LS_HIST_ANY_MODE, held);
	/* Its count is of holds that went off CPU: zeros would drown them. */
	if (h->offcpu_ns)
		ls_hist_add(st, t, LS_HIST_OFFCPU, LS_HIST_ANY_MODE, h->offcpu_ns);
	if (h->flags & LS_H_GRANTED)
		flags |= LS_LOCK_F_GRANTED;
	/*
	 * A downgrade alone is no reason to send: on 6.18 every munmap
	 * downgrades, and a short on-CPU write hold cannot explain a stall.
	 */
	if ((flags & ~LS_LOCK_F_DOWNGRADED) || h->offcpu_ns || held >= cfg.min_hold_ns) {
		/* Only holds long enough to matter to a stall bring their stack. */
		if (cfg.kstacks && held >= cfg.min_hold_ns && !(end_flags & LS_LOCK_F_EXITED)) {
			if (st->off_kstack_valid)
				ls_emit_stack(ctx, LS_STACK_HOLD_OFF, now, t, h->mm, st->off_kstack,
					      st->off_kstack_len);
			else
				ls_emit_stack(ctx, LS_STACK_HOLD_LONG, now, t, h->mm, NULL, 0);
		}
		if (ls_emit_lock(LS_REC_HOLD, now, t, h->mm, st, start, granted_ns,
				 h->acquired_ns, h->offcpu_ns, h->write, 1, flags))
			st->seen = 1;
	}
	h->flags = 0;
}

/* Lock tracepoints -------------------------------------------------------- */

static __always_inline int ls_on_start_locking(struct mm_struct *mm, bool write)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st;
	struct ls_wait_state *w;

	if (ls_is_self(cur))
		return 0;
	st = ls_state_get(cur, true);
	if (!st)
		return 0;
	w = &st->wait;
	w->mm = (__u64)mm;
	w->start_ns = bpf_ktime_get_ns();
	w->write = write;
	w->flags = LS_W_ACTIVE;
	/* A fault inside a futex call: that wait's state is overwritten, and ends here. */
	w->kind = LS_LOCK_MMAP;
	w->owner_how = LS_OWNER_NONE;
	w->owner_tid = 0;
	return 0;
}

static __always_inline void ls_wait_end(void *ctx, struct ls_task_state *st,
					struct task_struct *cur, __u64 now, bool success)
{
	struct ls_wait_state *w = &st->wait;
	struct ls_hold_state *h;
	int k;
	__u64 waited = now > w->start_ns ? now - w->start_ns : 0;
	/* A failed wait was not granted, whatever woke it (a fatal signal). */
	bool granted = success && (w->flags & LS_W_GRANTED);
	bool trylock = !success && !(w->flags & LS_W_WENT_OFF);
	__u8 flags = 0;

	/* The histograms are mmap_lock's. */
	if (!trylock && !w->kind)
		ls_hist_add(st, cur, LS_HIST_WAIT, w->write, waited);
	if ((w->flags & (LS_W_WENT_OFF | LS_W_OWNER_SENT)) || waited >= cfg.min_wait_ns) {
		if (w->flags & LS_W_BEGIN_SENT)
			flags |= LS_LOCK_F_BEGIN_SENT;
		if (granted)
			flags |= LS_LOCK_F_GRANTED;
		if (trylock)
			flags |= LS_LOCK_F_TRYLOCK;
		/*
		 * A stall, or close to one: where the waiter is.  Its user
		 * stack and registers have not changed since it asked for the
		 * lock (it has not been back in user space), and the kernel
		 * stack is the path that asked.
		 */
		if (cfg.kstacks && !trylock && waited >= cfg.min_wait_ns)
			ls_emit_stack(ctx, LS_STACK_WAIT, now, cur, w->mm, NULL, 0);
		if (ls_emit_lock(LS_REC_WAIT_END, now, cur, w->mm, st, w->start_ns,
				 granted ? st->grant.wait_ns : 0, 0, 0, w->write, success, flags))
			st->seen = 1;
	}
	w->flags = 0;
	/* A futex's holds are in user space: its owner is followed instead. */
	if (!success || w->kind)
		return;
	/* A new hold with none other open: the saved switch-out stack is stale. */
	if (!ls_holding(st))
		st->off_kstack_valid = 0;
	k = ls_hold_slot(st, w->mm);
	if (k < 0)
		return;
	h = &st->hold[k & 1];
	h->mm = w->mm;
	h->acquired_ns = now;
	h->offcpu_ns = 0;
	if (granted) {
		st->grant.hold_ns[k & 1] = st->grant.wait_ns;
		h->offcpu_ns = st->grant.wait_offcpu_ns;
	}
	h->write = w->write;
	h->flags = LS_H_ACTIVE | (granted ? LS_H_GRANTED : 0);
}

static __always_inline int ls_on_acquire_returned(void *ctx, struct mm_struct *mmp, bool write,
						  bool success)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st;
	struct ls_hold_state *h;
	__u64 mm = (__u64)mmp, now;
	int k;

	if (ls_is_self(cur))
		return 0;
	st = ls_state_get(cur, false);
	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	if ((st->wait.flags & LS_W_ACTIVE) && st->wait.mm == mm) {
		ls_wait_end(ctx, st, cur, now, success);
		return 0;
	}
	/* mmap_write_downgrade(): acquire_returned(read) with no start_locking. */
	if (write || !success)
		return 0;
	k = ls_hold_find(st, mm, true);
	if (k < 0)
		return 0;
	ls_hold_end(ctx, st, k, cur, now, LS_LOCK_F_DOWNGRADED);
	h = &st->hold[k & 1];
	h->acquired_ns = now;
	h->offcpu_ns = 0;
	h->write = 0;
	h->flags = LS_H_ACTIVE;
	return 0;
}

static __always_inline int ls_on_released(void *ctx, struct mm_struct *mmp, bool write)
{
	struct task_struct *cur = ls_current();
	struct ls_task_state *st;
	int k;

	if (ls_is_self(cur))
		return 0;
	st = ls_state_get(cur, false);
	if (!st)
		return 0;
	k = ls_hold_find(st, (__u64)mmp, false);
	if (k < 0)
		return 0;	/* began before we attached */
	ls_hold_end(ctx, st, k, cur, bpf_ktime_get_ns(), 0);
	return 0;
}

/* 6.8+: (mm, write[, success]) */
SEC("tp_btf/mmap_lock_start_locking")
int BPF_PROG(ls_start_locking, struct mm_struct *mm, bool write)
{
	return ls_on_start_locking(mm, write);
}

SEC("tp_btf/mmap_lock_acquire_returned")
int BPF_PROG(ls_acquire_returned, struct mm_struct *mm, bool write, bool success)
{
	return ls_on_acquire_returned(ctx, mm, write, success);
}

SEC("tp_btf/mmap_lock_released")
int BPF_PROG(ls_released, struct mm_struct *mm, bool write)
{
	return ls_on_released(ctx, mm, write);
}

/* Older kernels: (mm, memcg_path, write[, success]).  The loader picks one set. */
SEC("tp_btf/mmap_lock_start_locking")
int BPF_PROG(ls_start_locking_memcg, struct mm_struct *mm, const char *memcg_path, bool write)
{
	return ls_on_start_locking(mm, write);
}

SEC("tp_btf/mmap_lock_acquire_returned")
int BPF_PROG(ls_acquire_returned_memcg, struct mm_struct *mm, const char *memcg_path, bool write,
	     bool success)
{
	return ls_on_acquire_returned(ctx, mm, write, success);
}

SEC("tp_btf/mmap_lock_released")
int BPF_PROG(ls_released_memcg, struct mm_struct *mm, const char *memcg_path, bool write)
{
	return ls_on_released(ctx, mm, write);
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(ls_page_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);

	/*
	 * No self filter: lockstall's own lock events are left out, so its
	 * faults are never read.  fault_task is cleared first and set last:
	 * on PREEMPT_RT this program can be preempted, and a switch-out in
	 * between must not keep a half-written fault as this task's (a torn
	 * one would still have to match the task's saved registers).
	 */
	if (!w)
		return 0;
	w->fault_task = 0;
	w->fault.ip = regs->ip;
	w->fault.sp = regs->sp;
	w->fault.addr = address;
	w->fault.err = error_code;
	w->fault_task = (__u64)ls_current();
	return 0;
}

/* Scheduler tracepoints ----------------------------------------------------- */

static __always_inline void ls_emit_exit(struct ls_task_state *st, struct task_struct *t,
					 __u64 now, __u8 flags)
{
	struct ls_rec_exit *r = ls_emit_reserve(LS_REC_EXIT, sizeof(*r), now);

	st->seen = 0;
	if (!r)
		return;
	ls_task_fill(&r->task, t);
	r->flags = flags;
	ls_emit_submit(r);
}

/*
 * prev leaves this CPU: its fault noted on this CPU's line goes to its
 * storage (made if need be: the fault may yet take mmap_lock, e.g. retried
 * under it after I/O).  A dying task's is dropped.
 */
static __always_inline struct ls_task_state *ls_fault_keep(struct ls_watch *w,
							   struct task_struct *prev,
							   struct ls_task_state *ps,
							   unsigned int prev_state)
{
	if (!w || w->fault_task != (__u64)prev)
		return ps;
	w->fault_task = 0;
	if (prev_state & TASK_DEAD)
		return ps;
	if (!ps)
		ps = ls_state_get(prev, true);
	if (ps)
		ps->fault = w->fault;
	return ps;
}

/*
 * The hot path.  Tasks without lock state cost two storage lookups and one
 * array read; nothing is sent unless prev or next has state or this CPU has
 * a runnable holder waiting to run.
 */
static __always_inline int ls_on_switch(bool preempt, struct task_struct *prev,
					struct task_struct *next, unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ls_watch *w = bpf_map_lookup_elem(&watch, &cpu);
	struct ls_task_state *ps = ls_fault_keep(w, prev, ls_state_get(prev, false), prev_state);
	struct ls_task_state *ns = ls_state_get(next, false);
	__u8 pf = ps ? ls_state_flags(ps) : 0;
	__u8 pf_after = pf;
	__u8 nf = ns ? ls_state_flags(ns) : 0;
	bool runnable = preempt || prev_state == TASK_RUNNING;
	struct ls_rec_switch *r;
	__u64 now = 0;

	if (ps && ls_hist_pending(ps))
		ls_hist_flush_all(ps, prev);
	if (pf) {
		struct ls_wait_state *w = &ps->wait;

		now = bpf_ktime_get_ns();
		ps->offcpu_start_ns = now;
		if ((w->flags & LS_W_ACTIVE) && !(w->flags & LS_W_WENT_OFF)) {
			w->flags |= LS_W_WENT_OFF;
			if (ls_emit_lock(LS_REC_WAIT_BEGIN, now, prev, w->mm, ps, w->start_ns,
					 (w->flags & LS_W_GRANTED) ? ps->grant.wait_ns : 0, 0, 0,
					 w->write, 0,
					 (w->flags & LS_W_GRANTED) ? LS_LOCK_F_GRANTED : 0))
				w->flags |= LS_W_BEGIN_SENT;
		}
		/* Asleep again before acquire_returned: the wakeup did not grant it. */
		if ((w->flags & LS_W_GRANTED) && !runnable) {
			w->flags &= ~LS_W_GRANTED;
		}
		pf_after = ls_state_flags(ps);
		if (runnable && (pf_after & (LS_TASK_F_HOLDING | LS_TASK_F_GRANTED | LS_TASK_F_OWNER)))
			ls_watch_raise(ps, cpu);
		else
			ls_watch_lower(ps);
	} else if (ps && (prev_state & TASK_DEAD) && ps->seen) {
		/* Took the lock after sched_process_exit (exit_mm): its last word. */
		now = bpf_ktime_get_ns();
		ls_emit_exit(ps, prev, now, 0);
	}

	if (ns && (ns->offcpu_start_ns || ns->watch_slot)) {
		__u64 start = ns->offcpu_start_ns;

		if (!now)
			now = bpf_ktime_get_ns();
		if (start && now > start) {
			__u64 off = now - start;
			struct ls_wait_state *w = &ns->wait;

			if (ns->hold[0].flags & LS_H_ACTIVE)
				ns->hold[0].offcpu_ns += off;
			if (ns->hold[1].flags & LS_H_ACTIVE)
				ns->hold[1].offcpu_ns += off;
			/*
			 * Where a holder was while it was off CPU, for its HOLD's
			 * stack: taken as it comes back, where it still sits (in
			 * __schedule, under the path that holds the lock), and
			 * only after a spell long enough to matter -- a stack
			 * walk costs microseconds, and most spells are short.
			 */
			if (cfg.kstacks && off >= cfg.min_hold_ns && ls_holding(ns) &&
			    !ns->off_kstack_valid) {
				__u64 t0 = bpf_ktime_get_ns();
				long n = bpf_get_task_stack(next, ns->off_kstack,
							    sizeof(ns->off_kstack), 0);

				ns->off_kstack_len = n > 0 ? n : 0;
				ns->off_kstack_valid = 1;
				__sync_fetch_and_add(&kstack_saves, 1);
				__sync_fetch_and_add(&kstack_save_ns, bpf_ktime_get_ns() - t0);
			}
			if ((w->flags & (LS_W_ACTIVE | LS_W_GRANTED)) ==
			    (LS_W_ACTIVE | LS_W_GRANTED)) {
				if (ns->grant.wait_ns > start)
					start = ns->grant.wait_ns;
				if (now > start)
					ns->grant.wait_offcpu_ns += now - start;
			}
		}
		ns->offcpu_start_ns = 0;
		ls_watch_lower(ns);
	}

	if (!ls_switch_watched(w, next) && !pf && !nf)
		return 0;
	if (!now)
		now = bpf_ktime_get_ns();
	r = ls_emit_reserve(LS_REC_SWITCH, sizeof(*r), now);
	if (!r)
		return 0;
	ls_task_fill(&r->prev, prev);
	ls_task_fill(&r->next, next);
	r->prev_runnable = runnable;
	r->prev_flags = pf_after;
	r->next_flags = nf;
	ls_emit_submit(r);
	if (pf)
		ps->seen = 1;
	if (nf)
		ns->seen = 1;
	return 0;
}

/* The switch, then, in the hash object, a dead task's entry goes. */
static __always_inline int ls_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next, unsigned int prev_state)
{
	ls_on_switch(preempt, prev, next, prev_state);
#ifdef LS_TASK_STATE_HASH
	if (prev_state & TASK_DEAD)
		ls_state_forget(prev);
#endif
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ls_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return ls_switch(preempt, prev, next, prev_state);
}

/*
 * Before 5.18 the tracepoint had no prev_state: the task's own state, which
 * __schedule() passes on from 5.18 (the loader picks one of the two
 * programs by the tracepoint's arity).
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(ls_sched_switch_nostate, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	unsigned int state = TASK_RUNNING;

	if (!preempt && bpf_core_field_exists(prev->__state))
		state = BPF_CORE_READ(prev, __state);
	else if (!preempt)
		state = BPF_CORE_READ((struct task_struct___pre514 *)prev, state);
	return ls_switch(preempt, prev, next, state);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(ls_sched_waking, struct task_struct *p)
{
	struct ls_task_state *st = ls_state_get(p, false);

	if (!st || !ls_state_flags(st))
		return 0;
	ls_task_fill(&st->waker, ls_current());
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(ls_sched_wakeup, struct task_struct *p)
{
	struct ls_task_state *st = ls_state_get(p, false);
	struct ls_rec_wakeup *r;
	__u32 cpu;
	__u64 now;
	__u8 f;

	if (!st)
		return 0;
	f = ls_state_flags(st);
	if (!f)
		return 0;
	cpu = ls_task_cpu(p);
	now = bpf_ktime_get_ns();
	if ((f & (LS_TASK_F_WAITING | LS_TASK_F_GRANTED)) == LS_TASK_F_WAITING) {
		st->wait.flags |= LS_W_GRANTED;
		st->grant.wait_ns = now;
		st->grant.wait_offcpu_ns = 0;
		f |= LS_TASK_F_GRANTED;
	}
	/* Only if it is off CPU: a task woken before it switched out keeps running. */
	if ((f & (LS_TASK_F_HOLDING | LS_TASK_F_GRANTED | LS_TASK_F_OWNER)) && st->offcpu_start_ns)
		ls_watch_raise(st, cpu);

	r = ls_emit_reserve(LS_REC_WAKEUP, sizeof(*r), now);
	if (r) {
		ls_task_fill(&r->wakee, p);
		r->waker = st->waker;
		ls_task_fill_cpu_curr(&r->target_curr, cpu);
		r->target_cpu = cpu;
		r->wakee_flags = f;
		ls_emit_submit(r);
		st->seen = 1;
	}
	st->waker.tid = 0;
	st->waker.tgid = 0;
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(ls_sched_migrate_task, struct task_struct *p, int dest_cpu)
{
	struct ls_task_state *st = ls_state_get(p, false);
	struct ls_rec_migrate *r;
	bool raised;
	__u8 f;

	if (!st)
		return 0;
	f = ls_state_flags(st);
	raised = st->watch_slot != 0;
	/* A wakeup's migration (not on_rq yet) is told by WAKEUP.target_cpu. */
	if (!raised && !(f && p->on_rq))
		return 0;
	if (raised)
		ls_watch_raise(st, dest_cpu);
	r = ls_emit_reserve(LS_REC_MIGRATE, sizeof(*r), bpf_ktime_get_ns());
	if (!r)
		return 0;
	ls_task_fill(&r->task, p);
	ls_task_fill_cpu_curr(&r->dest_curr, dest_cpu);
	r->from_cpu = ls_task_cpu(p);
	r->to_cpu = dest_cpu;
	r->flags = f;
	ls_emit_submit(r);
	if (f)
		st->seen = 1;
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ls_sched_process_exit, struct task_struct *p)
{
	struct ls_task_state *st = ls_state_get(p, false);
	struct ls_wait_state *w;
	__u64 now;
	__u8 f;

	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	f = ls_state_flags(st);
	ls_watch_lower(st);
	if (st->hold[0].flags & LS_H_ACTIVE)
		ls_hold_end(ctx, st, 0, p, now, LS_LOCK_F_EXITED);
	if (st->hold[1].flags & LS_H_ACTIVE)
		ls_hold_end(ctx, st, 1, p, now, LS_LOCK_F_EXITED);
	/*
	 * From here on its samples go straight to the slot: the loader frees
	 * an exited process's slots once it is gone, which may come before
	 * this task's final switch.
	 */
	ls_hist_flush_all(st, p);
	st->pend.exiting = 1;
	w = &st->wait;
	if ((w->flags & LS_W_ACTIVE) && (w->flags & LS_W_WENT_OFF)) {
		if (ls_emit_lock(LS_REC_WAIT_END, now, p, w->mm, st, w->start_ns, 0, 0, 0,
				 w->write, 0,
				 LS_LOCK_F_EXITED |
				 ((w->flags & LS_W_BEGIN_SENT) ? LS_LOCK_F_BEGIN_SENT : 0)))
			st->seen = 1;
	}
	w->flags = 0;
	st->offcpu_start_ns = 0;
	st->waker.tid = 0;
	if (st->seen)
		ls_emit_exit(st, p, now, f);
	return 0;
}

/* The fentry and kprobe backends: the rwsem functions, into the handlers above. */
#include "backend_rwsem.bpf.h"
#include "futex.bpf.h"
