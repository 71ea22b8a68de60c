/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A scripted builder of synthetic record streams for tests: each
 * stream__<record>() appends one well-formed record (hdr.type, size, cpu,
 * ts filled in) to a buffer; stream__feed() hands them to an engine in
 * order.  stream__lost_before() sets the next record's hdr.lost_before;
 * stream__raw() appends arbitrary bytes as one "record" for robustness
 * tests.  Allocation failures abort: this is test code.
 */
#ifndef LOCKSTALL_TEST_STREAM_H
#define LOCKSTALL_TEST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <lockstall/abi.h>

struct engine;

struct stream {
	unsigned char *buf;
	size_t len;
	size_t alloc;
	size_t *lens;		/* each record's length, in order */
	size_t n;
	size_t lens_alloc;
	__u16 lost_before;	/* for the next record only */
};

/* The fields of a WAIT_BEGIN / WAIT_END / HOLD that a test chooses. */
struct stream_lock {
	__u64 start;		/* start_ns */
	__u64 granted;		/* granted_ns */
	__u64 acquired;		/* acquired_ns (HOLD) */
	__u64 offcpu;		/* offcpu_ns (HOLD) */
	bool write;
	bool failed;		/* WAIT_END: success = 0 */
	__u8 flags;		/* LS_LOCK_F_* */
	struct ls_op op;	/* all zero: LS_OP_UNKNOWN */
	__u64 cgroup;		/* cgroup_id; 0: unknown */
	__u8 owner_how;		/* enum ls_owner_how */
	__u32 owner_tid;
};

/* The fields of an OWNER record that a test chooses. */
struct stream_owner {
	const struct ls_task *waiter;
	const struct ls_task *owner;
	const struct ls_task *cpu_curr;	/* NULL: unknown */
	__u64 start;
	__u32 owner_cpu;
	__u8 state;		/* enum ls_owner_state */
	__u8 how;		/* enum ls_owner_how */
	__u8 owner_flags;
	__u8 owner_cause;	/* LS_CAUSE_F_IO: asleep on I/O */
};

void stream__init(struct stream *s);
void stream__free(struct stream *s);
/* Forget the records, keep the memory. */
void stream__clear(struct stream *s);
void stream__lost_before(struct stream *s, __u16 n);

/* prio as the kernel reports it: 120 + nice for normal, batch and idle. */
struct ls_task stream__task(__u32 tid, __u32 tgid, __u8 policy, __s8 nice, __u8 rt_prio,
			    const char *comm);
struct ls_lock_id stream__mm(__u64 id, __u32 tgid, const char *comm);
struct ls_op stream__fault(__u64 addr, __u16 fault_flags);
struct ls_op stream__syscall(int nr);

/* A NULL task is tid 0: idle, or "unknown" where the ABI says so. */
void stream__wait_begin(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
			const struct ls_lock_id *mm, const struct stream_lock *l);
void stream__wait_end(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		      const struct ls_lock_id *mm, const struct stream_lock *l);
void stream__hold(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		  const struct ls_lock_id *mm, const struct stream_lock *l);
void stream__switch(struct stream *s, __u16 cpu, __u64 ts,
		    const struct ls_task *prev, __u8 prev_flags, bool prev_runnable,
		    const struct ls_task *next, __u8 next_flags);
void stream__wakeup(struct stream *s, __u16 cpu, __u64 ts,
		    const struct ls_task *wakee, __u8 wakee_flags, const struct ls_task *waker,
		    __u32 target_cpu, const struct ls_task *target_curr);
void stream__migrate(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t, __u8 flags,
		     __u32 from_cpu, __u32 to_cpu, const struct ls_task *dest_curr);
/* The cause byte (LS_CAUSE_F_*) of the last record, a SWITCH (prev_cause), WAKEUP or OWNER. */
void stream__cause(struct stream *s, __u8 cause);
/* An IO_DEV of t: dev as the kernel's dev_t (major << 20 | minor), its disk's name ("": none). */
void stream__io_dev(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t, __u32 dev,
		    const char *disk);
/*
 * A RUNNABLE of t at ts: its pinned spell since start, CPUs allowed (mask,
 * nr of nr_cpus), those outside that idled and the most one did.
 */
void stream__runnable(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		      __u64 start, __u64 allowed, __u32 nr_allowed, __u32 nr_cpus,
		      __u64 idle_cpus, __u64 idle_ns);
/* A STEAL of t at ts: steal_ns stolen in the on_ns on CPU up to ts. */
void stream__steal(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		   __u64 on_ns, __u64 steal_ns);
/* A TASK_CGROUP: t is in cgroup (v2 id) from ts on. */
void stream__task_cgroup(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
			 __u64 cgroup);
/* A THROTTLE of t: path "/a/b" (components of at most LS_CG_NAME bytes), quota, period. */
void stream__throttle(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		      const char *path, __u32 hierarchy_id, __u64 quota_ns, __u64 period_ns);
void stream__unthrottle(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
			__u64 throttled_ns);
/*
 * A RECLAIM of t of kind (enum ls_reclaim_kind); with path non-NULL, the
 * memory cgroup at its limit (LS_MEMCG_LIMIT_*), usage and limit in pages.
 */
struct stream_memcg {
	const char *path;
	__u32 hierarchy_id;
	__u8 limit;
	__u64 usage_pages;
	__u64 limit_pages;
};
void stream__reclaim(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t, __u8 kind,
		     const struct stream_memcg *m);
void stream__reclaim_end(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
			 __u8 kind, __u64 nr_reclaimed);
void stream__owner(struct stream *s, __u16 cpu, __u64 ts, const struct ls_lock_id *lock,
		   const struct stream_owner *o);
void stream__exit(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t, __u8 flags);
void stream__hist(struct stream *s, __u64 ts, __u32 tgid, __u8 kind, __u8 write,
		  const struct ls_hist *h);
/* The final histogram of a process that exited (LS_HIST_F_EXITED). */
void stream__hist_exited(struct stream *s, __u64 ts, __u32 tgid, __u8 kind, __u8 write,
			 const struct ls_hist *h);
void stream__mark(struct stream *s, __u64 ts, __u32 kind, __u32 features);
void stream__lost(struct stream *s, __u64 ts, __u64 count, __u64 first_ns, __u64 last_ns);
void stream__tick(struct stream *s, __u64 ts, __u32 kind);
void stream__raw(struct stream *s, const void *bytes, size_t len);
/*
 * A STACK record of t for mm: kernel frames kip[0..nk), and copy_len bytes
 * of (zeroed) user stack copy after the fixed part.
 */
void stream__stack(struct stream *s, __u16 cpu, __u64 ts, const struct ls_task *t,
		   const struct ls_lock_id *mm, __u8 why, const __u64 *kip, unsigned int nk,
		   __u32 copy_len);

/* Feed every record; returns the first negative engine__feed return, else 0. */
int stream__feed(const struct stream *s, struct engine *e);

#endif /* LOCKSTALL_TEST_STREAM_H */
