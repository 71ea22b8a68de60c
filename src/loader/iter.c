// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The task iterators: the kernel stacks of stuck holders as they are now
 * (bpf/stack_now.bpf.c), and the scans for lock waits that began before
 * tracing or whose beginning was lost (bpf/prior.bpf.h), each read by a
 * thread of its own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader/internal.h"
#include "lockstall.skel.h"
#include "stack_now.skel.h"

_Static_assert(LOADER_STACKS_NOW_MAX == LS_STACK_NOW_MAX, "one limit for the iterator's tids");

/* The iterator, loaded and attached once; false when the kernel refuses it. */
static bool loader_stack_now_ready(struct loader *l)
{
	if (l->sn_link)
		return true;
	if (l->sn_refused)
		return false;
	l->sn = stack_now_bpf__open_and_load();
	if (l->sn)
		l->sn_link = bpf_program__attach_iter(l->sn->progs.ls_stack_now, NULL);
	if (!l->sn_link) {
		l->sn_refused = true;
		if (l->verbose)
			fprintf(stderr, "lockstall: no task iterator (%s): stacks of pending stalls' holders are the ones from when they went off CPU\n",
				strerror(errno));
		return false;
	}
	return true;
}

static int loader_stack_now_emit(const struct ls_stack_now *sn, __u64 ts, ls_record_fn fn,
				 void *ctx)
{
	struct ls_rec_stack r;

	memset(&r, 0, sizeof(r));
	loader_hdr(&r.hdr, LS_REC_STACK, sizeof(r), ts);
	r.tid = sn->tid;
	r.tgid = sn->tgid;
	r.why = LS_STACK_NOW;
	r.user_mode = LS_USTACK_NONE;
	r.nr_kernel = sn->nr_kernel < LS_KSTACK_MAX ? sn->nr_kernel : LS_KSTACK_MAX;
	memcpy(r.kernel, sn->kernel, r.nr_kernel * sizeof(r.kernel[0]));
	return fn(ctx, &r, sizeof(r));
}

/* Run the iterator once: whole ls_stack_now entries, in the order it wrote them. */
static int loader_stack_now_read(struct loader *l, __u64 ts, ls_record_fn fn, void *ctx)
{
	static struct ls_stack_now buf[LS_STACK_NOW_MAX];
	size_t have = 0, i;
	int fd, delivered = 0, rc = 0;
	ssize_t n;

	fd = bpf_iter_create(bpf_link__fd(l->sn_link));
	if (fd < 0)
		return 0;
	while (have < sizeof(buf)) {
		n = read(fd, (char *)buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	for (i = 0; i < have / sizeof(buf[0]) && rc >= 0; i++, delivered++)
		rc = loader_stack_now_emit(&buf[i], ts, fn, ctx);
	return rc < 0 ? rc : delivered;
}

int loader__stacks_now(struct loader *l, const __u32 *tids, size_t n, __u64 ts,
		       ls_record_fn fn, void *ctx)
{
	int map_fd, rc;
	__u8 one = 1;
	size_t i;

	if (!l->stacks || !n || !loader_stack_now_ready(l))
		return 0;
	map_fd = bpf_map__fd(l->sn->maps.wanted);
	if (n > LS_STACK_NOW_MAX)
		n = LS_STACK_NOW_MAX;
	for (i = 0; i < n; i++)
		bpf_map_update_elem(map_fd, &tids[i], &one, BPF_ANY);
	rc = loader_stack_now_read(l, ts, fn, ctx);
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(map_fd, &tids[i]);
	return rc;
}

/*
 * Whether a scan is going on, shared by the loader and the scan's thread,
 * which may outlive it (a read of a waiter's memory can wait long): freed
 * by whichever lets go last.
 */
struct prior_gate {
	int refs;
	int busy;
};

static void prior_gate__put(struct prior_gate *g)
{
	if (g && !__atomic_sub_fetch(&g->refs, 1, __ATOMIC_ACQ_REL))
		free(g);
}

/* The scan's iterator, read by a thread of its own; it owns what it is given. */
struct prior_scan {
	struct bpf_link *link;
	int fd;
	bool verbose;
	bool late;
	struct prior_gate *gate;	/* a reference of its own */
};

static void prior_scan__free(struct prior_scan *ps)
{
	if (ps->fd >= 0)
		close(ps->fd);
	bpf_link__destroy(ps->link);
	__atomic_store_n(&ps->gate->busy, 0, __ATOMIC_RELEASE);
	prior_gate__put(ps->gate);
	free(ps);
}

static void *loader_prior_read(void *arg)
{
	struct prior_scan *ps = arg;
	__u32 tids[256];
	int err = 0, found = 0;
	ssize_t n;

	while ((n = read(ps->fd, tids, sizeof(tids))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		found += (int)(n / sizeof(tids[0]));
	}
	if (err)
		fprintf(stderr, "lockstall: lock waits %s were not looked for: %s\n",
			ps->late ? "whose beginning was lost" : "that began before tracing",
			strerror(-err));
	else if (ps->verbose && !ps->late)
		fprintf(stderr, "lockstall: %d lock waits began before tracing\n", found);
	else if (ps->verbose && found)
		fprintf(stderr, "lockstall: %d lock waits found late (their beginning was lost)\n",
			found);
	prior_scan__free(ps);
	return NULL;
}

/* One scan, read by a thread of its own; late: after start-up (prior_late). */
static int loader_prior_scan(struct loader *l, bool late)
{
	struct prior_scan *ps;
	pthread_attr_t attr;
	pthread_t t;
	int err;

	if (!l->prior_gate) {
		l->prior_gate = calloc(1, sizeof(*l->prior_gate));
		if (!l->prior_gate)
			return -ENOMEM;
		l->prior_gate->refs = 1;
	}
	if (__atomic_exchange_n(&l->prior_gate->busy, 1, __ATOMIC_ACQ_REL))
		return -EBUSY;
	ps = calloc(1, sizeof(*ps));
	if (!ps) {
		__atomic_store_n(&l->prior_gate->busy, 0, __ATOMIC_RELEASE);
		return -ENOMEM;
	}
	__atomic_add_fetch(&l->prior_gate->refs, 1, __ATOMIC_ACQ_REL);
	ps->gate = l->prior_gate;
	ps->verbose = l->verbose;
	ps->late = late;
	/* read by the iterator as it runs: no other scan runs meanwhile (the gate) */
	l->skel->bss->prior_late = late;
	ps->link = bpf_program__attach_iter(l->skel->progs.ls_prior_waits, NULL);
	ps->fd = ps->link ? bpf_iter_create(bpf_link__fd(ps->link)) : -1;
	err = ps->fd < 0 ? -errno : 0;
	/*
	 * A read of a waiter's memory takes its process's mmap_lock (the
	 * scan skips a busy one, but a writer may come between): a thread
	 * of its own waits for it, never the loop that drains the ring.
	 */
	if (!err)
		err = -pthread_attr_init(&attr);
	if (!err) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = -pthread_create(&t, &attr, loader_prior_read, ps);
		pthread_attr_destroy(&attr);
	}
	if (!err)
		return 0;
	prior_scan__free(ps);
	fprintf(stderr, "lockstall: lock waits %s were not looked for: %s\n",
		late ? "whose beginning was lost" : "that began before tracing", strerror(-err));
	return err;
}

static bool loader_scans(const struct loader *l)
{
	return l->features & (LS_FEAT_PRIOR_WAITS | LS_FEAT_PRIOR_MUTEX);
}

int loader__prior_waits(struct loader *l)
{
	if (!loader_scans(l))
		return 0;
	l->misses_scanned = loader_prog_misses(l);
	return loader_prior_scan(l, false);
}

int loader__late_waits(struct loader *l)
{
	__u64 misses;
	int err;

	if (!loader_scans(l) || l->late_scans < 0)
		return 0;
	misses = loader_prog_misses(l);
	if (misses > l->misses_scanned) {
		l->misses_scanned = misses;
		l->late_scans = 2;
	}
	if (!l->late_scans)
		return 0;
	err = loader_prior_scan(l, true);
	if (err == -EBUSY)
		return 0;	/* the next period, after it */
	/* said on stderr once: it would fail the same way each time */
	l->late_scans = err ? -1 : l->late_scans - 1;
	return err;
}

/*
 * The quiet waits' scan, once attached, turns them on (bpf/owner.bpf.h);
 * without it every wait is sent, said once.
 */
void loader_quiet_start(struct loader *l)
{
	if (!(l->features & LS_FEAT_QUIET_WAITS))
		return;
	l->quiet_link = bpf_program__attach_iter(l->skel->progs.ls_quiet_waits, NULL);
	if (!l->quiet_link) {
		fprintf(stderr, "lockstall: short lock waits are sent too: their scan did not attach (%s)\n",
			strerror(errno));
		l->features &= ~LS_FEAT_QUIET_WAITS;
		return;
	}
	l->skel->bss->quiet_waits = true;
}

/*
 * The quiet waits that reached the threshold are told (they turn
 * ordinary): read before each tick, so a wait still going on is judged
 * as if it had sent everything.  Reads only task storage: never blocks.
 */
int loader__quiet_waits(struct loader *l)
{
	char buf[64];
	ssize_t n;
	int fd, err = 0;

	if (!l || !l->quiet_link)
		return 0;
	fd = bpf_iter_create(bpf_link__fd(l->quiet_link));
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
	}
	close(fd);
	return err;
}

void loader_iter_free(struct loader *l)
{
	bpf_link__destroy(l->quiet_link);
	prior_gate__put(l->prior_gate);
	bpf_link__destroy(l->sn_link);
	stack_now_bpf__destroy(l->sn);
}
