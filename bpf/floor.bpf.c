// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The benchmark's floor: one empty program on each tracepoint that
 * bpf/lockstall.bpf.c attaches, with the same attach type (tp_btf).  What
 * these cost is what any BPF tool on those tracepoints pays before doing
 * any work: the trampoline into the program, its run, bpf_stats.  lockstall's
 * overhead is judged against this, not against an untraced host alone.
 *
 * The programs never read their arguments, so one program per tracepoint
 * fits both layouts of the mmap_lock tracepoints (6.8+ "(mm, write)" and
 * the older "(mm, memcg_path, write)"): the attach is by name only.
 * Names are "fl_" + lockstall's, so bpftool output tells them apart.
 */
#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

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

SEC("tp_btf/mmap_lock_start_locking")
int fl_start_locking(void *ctx)
{
	return 0;
}

SEC("tp_btf/mmap_lock_acquire_returned")
int fl_acquire_returned(void *ctx)
{
	return 0;
}

SEC("tp_btf/mmap_lock_released")
int fl_released(void *ctx)
{
	return 0;
}
