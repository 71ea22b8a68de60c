// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's counts, as records: the histogram maps (every one at a
 * mark, an exited process's once and then freed), drops and skipped
 * program runs (LS_REC_LOST), and the loader's statistics.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader/internal.h"
#include "util.h"
#include "lockstall.skel.h"

/* The value of the "drops" map, as bpf/lockstall.bpf.c defines it. */
struct loader_drops {
	__u64 pending;
	__u64 total;
};

void loader_hdr(struct ls_hdr *h, __u16 type, __u16 size, __u64 now)
{
	h->type = type;
	h->size = size;
	h->cpu = 0;
	h->lost_before = 0;
	h->ts = now;
}

/* Drops on all CPUs: the total, and the part not yet told in band. */
int loader_read_drops(const struct loader *l, __u64 *total, __u64 *pending)
{
	struct loader_drops *per_cpu;
	__u32 zero = 0;
	int i, err;

	*total = 0;
	*pending = 0;
	per_cpu = calloc(l->ncpus, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	err = bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.drops), &zero, per_cpu);
	if (err) {
		err = -errno;
		goto cleanup;
	}
	for (i = 0; i < l->ncpus; i++) {
		*total += per_cpu[i].total;
		*pending += per_cpu[i].pending;
	}
cleanup:
	free(per_cpu);
	return err;
}

/*
 * Runs of our programs the kernel skipped: one was still running on that
 * CPU (its recursion guard).  A program preempted midway, as PREEMPT_RT
 * allows, makes the next task's event on that CPU one of these.  Each is an
 * event lost, though no record was dropped.  0 before 5.12 (no count).
 */
__u64 loader_prog_misses(const struct loader *l)
{
	struct bpf_program *p;
	__u64 misses = 0;

	bpf_object__for_each_program(p, l->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			misses += info.recursion_misses;
	}
	return misses;
}

int loader__emit_mark(struct loader *l, __u32 mark_kind, ls_record_fn fn, void *ctx)
{
	struct ls_rec_mark m;
	int err;

	memset(&m, 0, sizeof(m));
	loader_hdr(&m.hdr, LS_REC_MARK, sizeof(m), ls_now_ns());
	m.kind = mark_kind;
	m.features = mark_kind == LS_MARK_BEGIN ? l->features : 0;
	err = fn(ctx, &m, sizeof(m));
	return err < 0 ? err : 0;
}

/*
 * What the kernel leaves to us: the count (the sum of the slots, which
 * saves an atomic per lock event) and, for a live process, its name now
 * (it may have exec'd since the entry was made).  /proc/PID/comm is the
 * task's name, read without the process's mmap_lock.
 */
static void loader_hist_finish(struct ls_hist *h, __u32 tgid, bool live)
{
	char path[48], comm[LS_COMM_LEN + 1];
	ssize_t n;
	int fd, i;

	h->count = 0;
	for (i = 0; i < LS_HIST_SLOTS; i++)
		h->count += h->slots[i];
	if (!live || !tgid)
		return;
	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, LS_COMM_LEN);
	close(fd);
	if (n <= 0)
		return;
	if (comm[n - 1] == '\n')
		n--;
	memset(h->comm, 0, sizeof(h->comm));
	memcpy(h->comm, comm, (size_t)n);
}

/* Every histogram slot is free before the programs run: hand them all out. */
int loader_fill_hist_free(struct loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.hist_free);
	__u32 i;

	for (i = 0; i < LS_HIST_MAX; i++) {
		if (bpf_map_update_elem(fd, NULL, &i, BPF_ANY)) {
			int err = -errno;

			fprintf(stderr, "lockstall: cannot set up the BPF histogram slots: %s\n",
				strerror(-err));
			return err;
		}
	}
	return 0;
}

/* key's histogram from its slot; -ENOENT when it went meanwhile (reaped). */
static int loader_hist_read(struct loader *l, const struct ls_hist_key *key, __u32 *idx,
			    struct ls_hist *out)
{
	struct ls_hist_slot slot;

	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.hist_index), key, idx) ||
	    bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.hist_slots), idx, &slot) ||
	    memcmp(&slot.key, key, sizeof(*key)))
		return -ENOENT;
	*out = slot.hist;
	return 0;
}

/* Histograms of the kernel maps, cumulative, one record each. */
static int loader_emit_hists(struct loader *l, ls_record_fn fn, void *ctx, __u64 now)
{
	int fd = bpf_map__fd(l->skel->maps.hist_index);
	struct ls_hist_key key, next;
	struct ls_rec_hist r;
	bool first = true;
	__u32 idx;
	int err;

	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		memset(&r, 0, sizeof(r));
		/* Reaped meanwhile: it was delivered then. */
		if (loader_hist_read(l, &key, &idx, &r.hist))
			continue;
		loader_hist_finish(&r.hist, key.tgid, true);
		loader_hdr(&r.hdr, LS_REC_HIST, sizeof(r), now);
		r.key = key;
		err = fn(ctx, &r, sizeof(r));
		if (err < 0)
			return err;
	}
	return 0;
}

static bool loader_tgid_gone(__u32 tgid)
{
	return kill((pid_t)tgid, 0) && errno == ESRCH;
}

/*
 * The kernel maps never free a slot, so on a host that starts processes all
 * day they would fill up and stop counting.  An exited process's
 * histograms are final: hand them to the engine (which keeps the
 * cumulative set), then free their keys and give their slots back to the
 * BPF side (zeroed first: a slot is taken as it is).  A pid reused before
 * this runs just keeps adding to the same key, which is what a new process
 * of that pid would have created.
 */
int loader_reap_hists(struct loader *l, ls_record_fn fn, void *ctx)
{
	int fd = bpf_map__fd(l->skel->maps.hist_index);
	static const struct ls_hist_slot zero;
	struct ls_hist_key key, next, *dead;
	struct ls_rec_hist r;
	__u32 n = 0, i, idx;
	bool first = true;
	int err = 0;

	dead = calloc(LOADER_REAP_MAX, sizeof(*dead));
	if (!dead)
		return -ENOMEM;
	while (n < LOADER_REAP_MAX && !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (key.tgid && loader_tgid_gone(key.tgid))
			dead[n++] = key;
	}
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		if (loader_hist_read(l, &dead[i], &idx, &r.hist))
			continue;
		loader_hist_finish(&r.hist, dead[i].tgid, false);
		loader_hdr(&r.hdr, LS_REC_HIST, sizeof(r), ls_now_ns());
		r.key = dead[i];
		/* final: the engine may sum it with others of its command */
		r.key.flags = LS_HIST_F_EXITED;
		err = fn(ctx, &r, sizeof(r));
		if (err < 0)
			break;
		bpf_map_delete_elem(fd, &dead[i]);
		bpf_map_update_elem(bpf_map__fd(l->skel->maps.hist_slots), &idx, &zero, BPF_ANY);
		bpf_map_update_elem(bpf_map__fd(l->skel->maps.hist_free), NULL, &idx, BPF_ANY);
	}
	free(dead);
	return err < 0 ? err : 0;
}

int loader__emit_histograms(struct loader *l, __u32 mark_kind, ls_record_fn fn, void *ctx)
{
	__u64 snap_ns = ls_now_ns(), now, total, pending, told;
	struct ls_rec_lost lost;
	int err;

	err = loader_read_drops(l, &total, &pending);
	if (err)
		return err;
	total += loader_prog_misses(l);
	/*
	 * Records made before that snapshot carry their lost_before in band:
	 * deliver them before judging what the engine has not been told.
	 */
	l->fn = fn;
	l->fn_ctx = ctx;
	l->fn_err = 0;
	err = ring_buffer__consume(l->rb);
	l->fn = NULL;
	if (l->fn_err)
		return l->fn_err;
	if (err < 0)
		return err;

	now = ls_now_ns();
	err = loader_emit_hists(l, fn, ctx, now);
	if (err)
		return err;

	/*
	 * Pending drops will ride in band on their CPU's next record; at the
	 * end there is no next record, so they are told here.
	 */
	if (mark_kind != LS_MARK_END)
		total -= pending;
	told = l->lost_in_band + l->lost_sent;
	if (total > told) {
		memset(&lost, 0, sizeof(lost));
		loader_hdr(&lost.hdr, LS_REC_LOST, sizeof(lost), now);
		lost.count = total - told;
		lost.first_ns = l->lost_since_ns;
		lost.last_ns = now;
		l->lost_sent += lost.count;
		err = fn(ctx, &lost, sizeof(lost));
		if (err < 0)
			return err;
	}
	/* Drops still pending happened before now: keep the span open over them. */
	if (!pending || mark_kind == LS_MARK_END)
		l->lost_since_ns = snap_ns;

	return loader__emit_mark(l, mark_kind, fn, ctx);
}

void loader__stats(const struct loader *l, struct loader_stats *out)
{
	__u64 total, pending;

	*out = l->stats;
	if (!loader_read_drops(l, &total, &pending))
		out->drops = total;
	out->hist_misses = l->skel->bss->hist_misses;
	out->prog_misses = loader_prog_misses(l);
	out->stack_records = l->skel->bss->stack_records;
	out->stack_ns = l->skel->bss->stack_ns;
	out->kstack_saves = l->skel->bss->kstack_saves;
	out->kstack_save_ns = l->skel->bss->kstack_save_ns;
	out->task_state_full = l->skel->bss->task_state_full;
	out->owner_marks_full = l->skel->bss->owner_marks_full;
}
