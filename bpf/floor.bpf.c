// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The benchmark's floor: one empty program on each tracepoint that
 * bpf/lockstall.bpf.c attaches, with the same attach type (tp_btf).  What
 * these cost is what any BPF tool on those tracepoints pays before doing
 * any work: the trampoline into the program, its run, bpf_stats.  lockstall's
 * overhead is judged against this, not against an untraced host alone.
 *
 * A tracepoint this kernel lacks is left out (test/bench/floor.c), as
 * lockstall leaves it out.
 *
 * The programs never read their arguments, so one program per tracepoint
 * fits both layouts of the mmap_lock tracepoints (6.8+ "(mm, write)" and
 * the older "(mm, memcg_path, write)"): the attach is by name only.
 * Names are "fl_" + lockstall's, so bpftool output tells them apart.
 *
 * With clocked set (floor --clock, the benchmark's "clock" condition), the
 * three mmap_lock programs also do the least that timing every wait and
 * every hold takes: a per-task slot in task storage and one clock read per
 * event, start_locking -> acquire_returned the wait, acquire_returned ->
 * released the hold.  No histogram, no filter, nothing sent.  What that
 * costs over the empty floor is the part of lockstall's overhead that no
 * design measuring every lock operation avoids.
 */
#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool clocked = false;

struct fl_task {
	__u64 since;		/* the last lock event's time */
	__u64 sum;		/* the waits and holds, so nothing is optimised out */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fl_task);
} fl_tasks SEC(".maps");

static __always_inline int fl_lock_event(bool first)
{
	struct fl_task *t;
	__u64 now;

	if (!clocked)
		return 0;
	t = bpf_task_storage_get(&fl_tasks, bpf_get_current_task_btf(), NULL,
				 first ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	if (!first)
		t->sum += now - t->since;
	t->since = now;
	return 0;
}

SEC("tp_btf/sched_switch")
int fl_sched_switch(void *ctx)
{
	return 0;
}

SEC("tp_btf/sched_waking")
int fl_sched_waking(void *ctx)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int fl_sched_wakeup(void *ctx)
{
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int fl_sched_migrate_task(void *ctx)
{
	return 0;
}

SEC("tp_btf/sched_process_exit")
int fl_sched_process_exit(void *ctx)
{
	return 0;
}

SEC("tp_btf/page_fault_user")
int fl_page_fault_user(void *ctx)
{
	return 0;
}

/*
 * The futex and kernel lock programs' tracepoints.  sys_enter and sys_exit
 * are the costly ones: enabled at all, they send every syscall of every
 * task down the kernel's slow path, which the floor pays as lockstall does.
 */
SEC("tp_btf/sys_enter")
int fl_sys_enter(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int fl_sys_exit(void *ctx)
{
	return 0;
}

SEC("tp_btf/contention_begin")
int fl_contention_begin(void *ctx)
{
	return 0;
}

SEC("tp_btf/contention_end")
int fl_contention_end(void *ctx)
{
	return 0;
}

/* The causes' and names' tracepoints: rare events, here for completeness. */
SEC("tp_btf/sched_process_exec")
int fl_sched_process_exec(void *ctx)
{
	return 0;
}

SEC("tp_btf/block_bio_queue")
int fl_block_bio_queue(void *ctx)
{
	return 0;
}

SEC("tp_btf/iomap_iter_dstmap")
int fl_iomap_iter_dstmap(void *ctx)
{
	return 0;
}

SEC("tp_btf/mm_vmscan_direct_reclaim_begin")
int fl_direct_reclaim_begin(void *ctx)
{
	return 0;
}

SEC("tp_btf/mm_vmscan_direct_reclaim_end")
int fl_direct_reclaim_end(void *ctx)
{
	return 0;
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_begin")
int fl_memcg_reclaim_begin(void *ctx)
{
	return 0;
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_end")
int fl_memcg_reclaim_end(void *ctx)
{
	return 0;
}

SEC("tp_btf/mm_compaction_begin")
int fl_compaction_begin(void *ctx)
{
	return 0;
}

SEC("tp_btf/mm_compaction_end")
int fl_compaction_end(void *ctx)
{
	return 0;
}

SEC("tp_btf/mmap_lock_start_locking")
int fl_start_locking(void *ctx)
{
	return fl_lock_event(true);
}

SEC("tp_btf/mmap_lock_acquire_returned")
int fl_acquire_returned(void *ctx)
{
	return fl_lock_event(false);
}

SEC("tp_btf/mmap_lock_released")
int fl_released(void *ctx)
{
	return fl_lock_event(false);
}
