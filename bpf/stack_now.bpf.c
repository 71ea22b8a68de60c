// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel stacks of a few tasks as they are now: a task iterator that
 * user space runs at a tick for the holders of pending stalls (tids[]),
 * never on a hot path.  One struct ls_stack_now per task found, written to
 * the iterator's seq_file; user space makes LS_STACK_NOW records of them.
 * Its own object, apart from bpf/lockstall.bpf.c: an iterator is a tracing
 * program, and a kernel that refuses it leaves the tracing itself alone.
 */
#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "lockstall/abi.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Which tasks: tid -> 1, filled by user space before each run. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LS_STACK_NOW_MAX);
	__type(key, __u32);
	__type(value, __u8);
} wanted SEC(".maps");

/* Too big for the stack: one per CPU, the iterator runs on one at a time. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ls_stack_now);
} scratch SEC(".maps");

SEC("iter/task")
int ls_stack_now(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct ls_stack_now *out;
	__u32 zero = 0, tid;
	long n;

	if (!task)
		return 0;
	tid = task->pid;
	if (!bpf_map_lookup_elem(&wanted, &tid))
		return 0;
	out = bpf_map_lookup_elem(&scratch, &zero);
	if (!out)
		return 0;
	out->tid = tid;
	out->tgid = task->tgid;
	out->state = task->__state;
	n = bpf_get_task_stack(task, out->kernel, sizeof(out->kernel), 0);
	out->nr_kernel = n > 0 ? n / sizeof(__u64) : 0;
	bpf_seq_write(ctx->meta->seq, out, sizeof(*out));
	return 0;
}
