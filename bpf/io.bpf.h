/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A holder asleep on I/O: io_schedule() sleeps in
 * TASK_UNINTERRUPTIBLE with task->in_iowait set, which the switch-out
 * reads.  The device is the one the task itself last mapped or submitted
 * I/O to, kept only by tasks that have lock state already (everyone
 * else's I/O costs one lookup):
 *  - iomap_iter_dstmap: a file system on iomap (ext4 and xfs direct I/O,
 *    xfs buffered) maps the range to its block device, in the task's
 *    context before any bio exists;
 *  - block_bio_queue: a bio enters the block layer, in the submitter's
 *    context, except for bios that blk-throttle held back: a worker
 *    submits those later, so they name nothing here.
 * Included after the emitters, before sched.bpf.h.
 */
#ifndef LOCKSTALL_IO_BPF_H
#define LOCKSTALL_IO_BPF_H

#include "emit.bpf.h"

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct task_struct___io {
	unsigned int in_iowait:1;
};

struct gendisk {
	char disk_name[32];
};

struct block_device {
	__u32 bd_dev;		/* dev_t */
	struct gendisk *bd_disk;
};

/* 5.12+ (commit 309dca309fc3, "block: store a block_device pointer in struct bio"). */
struct bio {
	struct block_device *bi_bdev;
};

struct iomap {
	struct block_device *bdev;	/* NULL: inline data, DAX */
};

#pragma clang attribute pop

#define LS_TASK_UNINTERRUPTIBLE	0x00000002

/* t, which leaves the CPU in state, sleeps in io_schedule(). */
static __always_inline bool ls_in_io_wait(struct task_struct *t, unsigned int state)
{
	struct task_struct___io *p = (void *)t;

	if (!(state & LS_TASK_UNINTERRUPTIBLE))
		return false;
	return BPF_CORE_READ_BITFIELD_PROBED(p, in_iowait);
}

/* The device of the holder t's I/O wait, after the record that said it waits on I/O. */
static __always_inline void ls_emit_io_dev(struct task_struct *t, struct ls_task_state *st,
					   __u64 now)
{
	struct ls_rec_io_dev *r;

	if (!st->io_dev)
		return;
	r = ls_emit_reserve(LS_REC_IO_DEV, sizeof(*r), now);
	if (!r)
		return;
	r->tid = LS_TASK_READ(t, pid);
	r->tgid = LS_TASK_READ(t, tgid);
	r->dev = st->io_dev;
	__builtin_memcpy(r->disk, st->io_disk, sizeof(r->disk));
	ls_emit_submit(r);
}

/*
 * A task with state sleeps: a sleep that is not an I/O wait ends what its
 * earlier bios say, so a later wait on I/O someone else submitted (a page
 * another task reads in) names no device rather than a stale one.
 */
static __always_inline void ls_io_sleep(struct ls_task_state *st, struct task_struct *t,
					unsigned int state)
{
	if (st->io_dev && !ls_in_io_wait(t, state))
		st->io_dev = 0;
}

/* current does I/O to bdev: its device, if current is followed. */
static __always_inline void ls_io_note(struct block_device *bdev)
{
	struct ls_task_state *st;
	struct gendisk *disk;
	__u32 dev;

	if (!bdev)
		return;
	st = task_state__lookup(ls_current());
	if (!st)
		return;
	dev = BPF_CORE_READ(bdev, bd_dev);
	if (!dev || dev == st->io_dev)
		return;
	task_state__arm(ls_current(), st);
	st->io_dev = dev;
	disk = BPF_CORE_READ(bdev, bd_disk);
	if (!disk || bpf_probe_read_kernel_str(st->io_disk, sizeof(st->io_disk),
					       &disk->disk_name) < 0)
		st->io_disk[0] = '\0';
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(ls_block_bio_queue, struct bio *bio)
{
	if (bpf_core_field_exists(bio->bi_bdev))
		ls_io_note(BPF_CORE_READ(bio, bi_bdev));
	return 0;
}

SEC("tp_btf/iomap_iter_dstmap")
int BPF_PROG(ls_iomap_iter_dstmap, struct inode *inode, struct iomap *iomap)
{
	ls_io_note(BPF_CORE_READ(iomap, bdev));
	return 0;
}

#endif /* LOCKSTALL_IO_BPF_H */
