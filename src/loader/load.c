// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BPF side, seen from user space: open the object that fits the
 * kernel, load it (again without what a kernel refuses, or on the next
 * backend), attach in an order that never sees a hold begin without its
 * end, and deliver the ring buffer's records.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "loader/internal.h"
#include "util.h"
#include "lockstall.skel.h"
#include "lockstall_hash.skel.h"

/*
 * Two objects are built from bpf/lockstall.bpf.c: the one for kernels with
 * BPF task storage and the 5.11-5.15 helpers, and the hash one
 * (-DLS_TASK_STATE_HASH) for kernels without (Debian 11's 5.10).  Their
 * skeletons differ only in the ELF they embed: the same maps, programs and
 * variables under the same names in the same order, since the source
 * #ifdefs only helpers and the type of task_state.  So the hash skeleton is
 * used through struct lockstall_bpf, and everything but opening has one
 * code path.  These checks fail the build if the layouts ever part.
 */
#define LOADER_SAME_MEMBER(m) \
	_Static_assert(offsetof(struct lockstall_bpf, m) == offsetof(struct lockstall_hash_bpf, m) && \
		       sizeof(((struct lockstall_bpf *)0)->m) == sizeof(((struct lockstall_hash_bpf *)0)->m), \
		       "lockstall_hash_bpf differs from lockstall_bpf at " #m)
LOADER_SAME_MEMBER(skeleton);
LOADER_SAME_MEMBER(obj);
LOADER_SAME_MEMBER(maps);
LOADER_SAME_MEMBER(progs);
LOADER_SAME_MEMBER(links);
LOADER_SAME_MEMBER(rodata);
LOADER_SAME_MEMBER(bss);
LOADER_SAME_MEMBER(maps.task_state);
LOADER_SAME_MEMBER(maps.watch);
LOADER_SAME_MEMBER(maps.drops);
LOADER_SAME_MEMBER(maps.events);
LOADER_SAME_MEMBER(maps.hist_slots);
LOADER_SAME_MEMBER(maps.hist_index);
LOADER_SAME_MEMBER(maps.hist_free);
LOADER_SAME_MEMBER(maps.stack_bufs);
LOADER_SAME_MEMBER(progs.ls_sched_switch);
LOADER_SAME_MEMBER(progs.ls_sched_switch_nostate);
LOADER_SAME_MEMBER(progs.ls_sched_waking);
LOADER_SAME_MEMBER(progs.ls_sched_wakeup);
LOADER_SAME_MEMBER(progs.ls_sched_migrate_task);
LOADER_SAME_MEMBER(progs.ls_sched_process_exit);
LOADER_SAME_MEMBER(progs.ls_sched_process_exec);
LOADER_SAME_MEMBER(progs.ls_page_fault_user);
LOADER_SAME_MEMBER(progs.ls_start_locking);
LOADER_SAME_MEMBER(progs.ls_start_locking_memcg);
LOADER_SAME_MEMBER(progs.ls_acquire_returned);
LOADER_SAME_MEMBER(progs.ls_acquire_returned_memcg);
LOADER_SAME_MEMBER(progs.ls_released);
LOADER_SAME_MEMBER(progs.ls_released_memcg);
LOADER_SAME_MEMBER(links.ls_sched_switch);
LOADER_SAME_MEMBER(links.ls_sched_switch_nostate);
LOADER_SAME_MEMBER(links.ls_released_memcg);
LOADER_SAME_MEMBER(links.ls_start_locking);
LOADER_SAME_MEMBER(progs.ls_futex_fentry);
LOADER_SAME_MEMBER(progs.ls_prior_unqueue_pi);
_Static_assert(offsetof(struct lockstall_bpf__rodata, cfg) ==
	       offsetof(struct lockstall_hash_bpf__rodata, cfg),
	       "lockstall_hash_bpf differs from lockstall_bpf at rodata cfg");
_Static_assert(offsetof(struct lockstall_bpf__bss, prior_late) ==
	       offsetof(struct lockstall_hash_bpf__bss, prior_late),
	       "lockstall_hash_bpf differs from lockstall_bpf at bss prior_late");
_Static_assert(sizeof(struct lockstall_bpf) == sizeof(struct lockstall_hash_bpf) &&
	       sizeof(struct lockstall_bpf__rodata) == sizeof(struct lockstall_hash_bpf__rodata) &&
	       sizeof(struct lockstall_bpf__bss) == sizeof(struct lockstall_hash_bpf__bss),
	       "lockstall_hash_bpf differs from lockstall_bpf");

static struct lockstall_bpf *loader_skel_open(bool hash, const struct bpf_object_open_opts *opts)
{
	if (hash)
		return (struct lockstall_bpf *)lockstall_hash_bpf__open_opts(opts);
	return lockstall_bpf__open_opts(opts);
}

/*
 * Backend l->backend did not load or attach.  With --backend=auto: free
 * it, say so, and make the next one current; true: try that one.  fentry
 * and kprobes can be refused by a kernel that has BTF (a host can turn
 * both off), so their failure is told as the backend's; the
 * tracepoint backend's is left to the caller's messages.
 */
static bool loader_backend_failed(struct loader *l, __u8 asked, int err)
{
	const char *name = ls_backend__name(l->backend);
	__u8 next = asked == LS_BACKEND_AUTO ? loader_backend_next(l, asked) : LS_BACKEND_AUTO;

	if (next != LS_BACKEND_AUTO) {
		fprintf(stderr, "lockstall: the %s backend does not work on this kernel (%s): trying %s\n",
			name, strerror(-err), ls_backend__name(next));
		/* the same code for both objects' skeletons (see LOADER_SAME_MEMBER) */
		lockstall_bpf__destroy(l->skel);
		l->skel = NULL;
		l->backend = next;
		return true;
	}
	if (l->backend != LS_BACKEND_TRACEPOINT)
		fprintf(stderr, "lockstall: the %s backend does not work on this kernel (%s)%s\n", name,
			strerror(-err), asked == LS_BACKEND_AUTO ? "" : ": try --backend=auto");
	return false;
}

bool loader_retry_without(struct loader *l, bool *refused, const char *why, int err)
{
	fprintf(stderr, "lockstall: %s (%s)\n", why, strerror(-err));
	*refused = true;
	lockstall_bpf__destroy(l->skel);
	l->skel = NULL;
	return true;
}

/* The load or attach failed with fentry on the futex calls: the syscall tracepoints instead. */
static bool loader_futex_fentry_failed(struct loader *l, int err)
{
	if (!(l->features & LS_FEAT_FUTEX_FENTRY))
		return false;
	fprintf(stderr, "lockstall: futex calls traced by the syscall tracepoints after all: fentry on them failed (%s)\n",
		strerror(-err));
	l->futex_fentry = false;
	lockstall_bpf__destroy(l->skel);
	l->skel = NULL;
	return true;
}

/*
 * The load failed with the scan in: try once more without it, which
 * tracing does not need (a kernel that refuses sleepable iterators).
 */
static bool loader_prior_failed(struct loader *l, int err)
{
	if (!(l->features & (LS_FEAT_PRIOR_WAITS | LS_FEAT_PRIOR_MUTEX)))
		return false;
	return loader_retry_without(l, &l->prior_refused,
				    "lock waits that began before tracing are not looked for: the kernel refused the scan",
				    err);
}

/* The load failed with the quiet waits' scan in: without it every wait is sent. */
static bool loader_quiet_failed(struct loader *l, int err)
{
	if (!(l->features & LS_FEAT_QUIET_WAITS))
		return false;
	return loader_retry_without(l, &l->quiet_refused,
				    "short lock waits are sent too: the kernel refused their scan", err);
}

/* How many loads a signal may cut short in a row: a reload storm, not a kernel's refusal. */
#define LOADER_MAX_INTERRUPTED	64

/*
 * The verifier gives up with EAGAIN when a signal is pending (a SIGHUP from
 * a reload while the programs load), which says nothing about the kernel:
 * load again, as it was, rather than take it for a backend's or a
 * feature's failure.  *retry: try again; false with an interrupted err: give up.
 */
static bool loader_interrupted(struct loader *l, int err, bool *retry)
{
	*retry = false;
	if (err != -EAGAIN && err != -EINTR)
		return false;
	if (++l->interrupted > LOADER_MAX_INTERRUPTED) {
		fprintf(stderr, "lockstall: loading the BPF programs was cut short by signals %d times: giving up\n",
			LOADER_MAX_INTERRUPTED);
		return true;
	}
	lockstall_bpf__destroy(l->skel);
	l->skel = NULL;
	*retry = true;
	return true;
}

/* lockstall_bpf__destroy() detaches what is stored in *link. */
static int loader_attach_one(struct bpf_program *prog, struct bpf_link **link)
{
	int err;

	if (!bpf_program__autoload(prog))
		return 0;
	*link = bpf_program__attach(prog);
	if (!*link) {
		err = -errno;
		fprintf(stderr, "lockstall: cannot attach BPF program %s: %s\n",
			bpf_program__name(prog), strerror(-err));
		return err;
	}
	return 0;
}

/*
 * When an rwsem backend program attaches: 0 the releases (up_*(), and
 * downgrade_write(), which ends a write hold), 1 the returns of down_*(),
 * 2 their entries; -1 not one of them.  As for the tracepoints, so that
 * every hold whose start is seen has its end seen.
 */
static int loader_rwsem_pass(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	const char *fn = loader_rwsem_fn(prog);

	if (!bpf_program__autoload(prog) || !fn)
		return -1;
	if (!strncmp(fn, "up_", 3) || !strcmp(fn, "downgrade_write"))
		return 0;
	sec += *sec == '?';
	return !strncmp(sec, "fexit/", 6) || !strncmp(sec, "kretprobe/", 10) ? 1 : 2;
}

static int loader_attach(struct loader *l)
{
	struct lockstall_bpf *s = l->skel;
	bool memcg = l->features & LS_FEAT_MEMCG_PATH_ARG;
	bool nostate = l->switch_nargs != 5;
	/*
	 * The scheduler first, so a task's state is followed from its first
	 * lock event; then release before acquire_returned before
	 * start_locking, so every hold whose start is seen has its end seen.
	 */
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} order[] = {
		{ nostate ? s->progs.ls_sched_switch_nostate : s->progs.ls_sched_switch,
		  nostate ? &s->links.ls_sched_switch_nostate : &s->links.ls_sched_switch },
		{ s->progs.ls_sched_waking, &s->links.ls_sched_waking },
		{ s->progs.ls_sched_wakeup, &s->links.ls_sched_wakeup },
		{ s->progs.ls_sched_migrate_task, &s->links.ls_sched_migrate_task },
		{ s->progs.ls_sched_process_exit, &s->links.ls_sched_process_exit },
		{ s->progs.ls_sched_process_exec, &s->links.ls_sched_process_exec },
		{ s->progs.ls_page_fault_user, &s->links.ls_page_fault_user },
		{ memcg ? s->progs.ls_released_memcg : s->progs.ls_released,
		  memcg ? &s->links.ls_released_memcg : &s->links.ls_released },
		{ memcg ? s->progs.ls_acquire_returned_memcg : s->progs.ls_acquire_returned,
		  memcg ? &s->links.ls_acquire_returned_memcg : &s->links.ls_acquire_returned },
		{ memcg ? s->progs.ls_start_locking_memcg : s->progs.ls_start_locking,
		  memcg ? &s->links.ls_start_locking_memcg : &s->links.ls_start_locking },
		/* futex waits: the end before the start, as for mmap_lock */
		{ s->progs.ls_sys_exit, &s->links.ls_sys_exit },
		{ s->progs.ls_sys_enter, &s->links.ls_sys_enter },
		{ s->progs.ls_prior_unqueue, &s->links.ls_prior_unqueue },
		{ s->progs.ls_prior_unqueue_pi, &s->links.ls_prior_unqueue_pi },
		{ s->progs.ls_futex_fexit, &s->links.ls_futex_fexit },
		{ s->progs.ls_futex_fentry, &s->links.ls_futex_fentry },
		{ s->progs.ls_futex_waitv_fexit, &s->links.ls_futex_waitv_fexit },
		{ s->progs.ls_futex_waitv_fentry, &s->links.ls_futex_waitv_fentry },
		{ s->progs.ls_futex_wait2_fexit, &s->links.ls_futex_wait2_fexit },
		{ s->progs.ls_futex_wait2_fentry, &s->links.ls_futex_wait2_fentry },
		/* reclaim and compaction: the ends before the starts, likewise */
		{ s->progs.ls_direct_reclaim_end, &s->links.ls_direct_reclaim_end },
		{ s->progs.ls_memcg_reclaim_end, &s->links.ls_memcg_reclaim_end },
		{ s->progs.ls_compaction_end, &s->links.ls_compaction_end },
		{ s->progs.ls_direct_reclaim_begin, &s->links.ls_direct_reclaim_begin },
		{ s->progs.ls_memcg_reclaim_begin, &s->links.ls_memcg_reclaim_begin },
		{ s->progs.ls_compaction_begin, &s->links.ls_compaction_begin },
		{ s->progs.ls_block_bio_queue, &s->links.ls_block_bio_queue },
		{ s->progs.ls_iomap_iter_dstmap, &s->links.ls_iomap_iter_dstmap },
		/* kernel locks: likewise */
		{ s->progs.ls_contention_end, &s->links.ls_contention_end },
		{ s->progs.ls_contention_begin, &s->links.ls_contention_begin },
	};
	const struct bpf_object_skeleton *sk = s->skeleton;
	int i, pass, err;

	for (i = 0; i < (int)ARRAY_SIZE(order); i++) {
		err = loader_attach_one(order[i].prog, order[i].link);
		if (err)
			return err;
	}
	/* The rwsem backends after the scheduler, in the same order of lock events. */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < sk->prog_cnt; i++) {
			if (loader_rwsem_pass(*sk->progs[i].prog) != pass)
				continue;
			err = loader_attach_one(*sk->progs[i].prog, sk->progs[i].link);
			if (err)
				return err;
		}
	}
	return 0;
}

static int loader_on_sample(void *ctx, void *data, size_t size)
{
	struct loader *l = ctx;
	const struct ls_hdr *h = data;
	int err;

	if (size >= sizeof(*h))
		l->lost_in_band += h->lost_before;
	l->stats.records++;
	l->stats.bytes += size;
	err = l->fn(l->fn_ctx, data, size);
	if (err < 0) {
		l->fn_err = err;
		return err;
	}
	l->delivered++;
	return 0;
}

/* The per-CPU maps get one entry per possible CPU; the ring buffer the size asked for. */
static int loader_size_maps(struct loader *l, const struct loader_opts *opts)
{
	int err;

	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus <= 0) {
		err = l->ncpus ? l->ncpus : -EINVAL;
		fprintf(stderr, "lockstall: cannot count the possible CPUs: %s\n", strerror(-err));
		return err;
	}
	/* The BPF side keeps 1 + a CPU number in 16 bits (ls_task_state.watch_slot). */
	if (l->ncpus > 65534) {
		fprintf(stderr, "lockstall: %d possible CPUs: at most 65534 are supported\n",
			l->ncpus);
		return -E2BIG;
	}
	loader_select_cpu_time(l);
	err = bpf_map__set_max_entries(l->skel->maps.watch, l->ncpus);
	if (!err)
		err = bpf_map__set_max_entries(l->skel->maps.stack_bufs, opts->stacks ? l->ncpus : 1);
	if (err) {
		fprintf(stderr, "lockstall: cannot size the BPF maps to %d CPUs: %s\n", l->ncpus,
			strerror(-err));
		return err;
	}
	if (opts->ring_bytes)
		err = bpf_map__set_max_entries(l->skel->maps.events, opts->ring_bytes);
	if (err)
		fprintf(stderr, "lockstall: cannot size the ring buffer to %u bytes: %s\n",
			opts->ring_bytes, strerror(-err));
	return err;
}

/*
 * LOCKSTALL_VERIFY_STATS=1 (make verify-stats): the verifier's statistics
 * of each program loaded, one line each on stderr.  The buffers of every
 * program, LOADER_VSTATS_LEN bytes each; NULL when not asked (or no memory:
 * then nothing is said).
 */
#define LOADER_VSTATS_LEN 4096

static char *loader_vstats_prepare(struct loader *l)
{
	const char *env = getenv("LOCKSTALL_VERIFY_STATS");
	struct bpf_program *p;
	size_t n = 0;
	char *buf;

	if (!env || strcmp(env, "1"))
		return NULL;
	bpf_object__for_each_program(p, l->skel->obj)
		n++;
	buf = calloc(n, LOADER_VSTATS_LEN);
	if (!buf)
		return NULL;
	n = 0;
	bpf_object__for_each_program(p, l->skel->obj) {
		bpf_program__set_log_level(p, 4);	/* statistics only */
		bpf_program__set_log_buf(p, buf + n++ * LOADER_VSTATS_LEN, LOADER_VSTATS_LEN);
	}
	return buf;
}

static unsigned long long loader_vstats_field(const char *log, const char *key)
{
	const char *at = strstr(log, key);

	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

static void loader_vstats_print(struct loader *l, char *buf)
{
	unsigned long long insns = 0, us = 0;
	struct bpf_program *p;
	const char *log;
	size_t n = 0;

	if (!buf)
		return;
	bpf_object__for_each_program(p, l->skel->obj) {
		log = buf + n++ * LOADER_VSTATS_LEN;
		if (!bpf_program__autoload(p))
			continue;
		fprintf(stderr, "lockstall: verified %s: %llu insns, %llu states, %llu us\n",
			bpf_program__name(p), loader_vstats_field(log, "processed "),
			loader_vstats_field(log, "total_states "),
			loader_vstats_field(log, "verification time "));
		insns += loader_vstats_field(log, "processed ");
		us += loader_vstats_field(log, "verification time ");
	}
	fprintf(stderr, "lockstall: verified in all: %llu insns, %llu us\n", insns, us);
}

static int loader_load(struct loader *l)
{
	char *vstats = loader_vstats_prepare(l);
	int err = lockstall_bpf__load(l->skel);

	if (!err)
		loader_vstats_print(l, vstats);
	free(vstats);
	return err;
}

/* Why the load failed, when the backend's own message has not said it. */
static void loader_say_load_failed(const struct loader *l, int err)
{
	if (l->backend != LS_BACKEND_TRACEPOINT)
		return;	/* said */
	if (err == -EPERM)
		loader_say_root();
	else
		fprintf(stderr, "lockstall: cannot load the BPF programs into the kernel: %s (rerun with --verbose for the verifier's log)\n",
			strerror(-err));
}

/* The ring buffer the records come through. */
static int loader_open_ring(struct loader *l)
{
	int err;

	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.events), loader_on_sample, l, NULL);
	if (!l->rb) {
		err = -errno;
		fprintf(stderr, "lockstall: cannot open the BPF ring buffer: %s\n", strerror(-err));
		return err;
	}
	l->lost_since_ns = ls_now_ns();
	return 0;
}

/*
 * Open, configure, load and attach; a backend that fails to load or
 * attach under --backend=auto gives way to the next (retry).
 */
static int loader_open(struct loader **out, const struct loader_opts *opts)
{
	/* CO-RE relocations against --btf's types when given. */
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .btf_custom_path = opts->btf_path);
	struct loader *l;
	bool memcg, has_fault_tp = false, again;
	int err;

	*out = NULL;
	err = loader_check_host(opts);
	if (err)
		return err;
	l = calloc(1, sizeof(*l));
	if (!l) {
		fprintf(stderr, "lockstall: cannot allocate the loader: out of memory\n");
		return -ENOMEM;
	}
	err = loader_choose(l, opts, &has_fault_tp);
	if (err)
		goto cleanup;
	memcg = l->features & LS_FEAT_MEMCG_PATH_ARG;

retry:
	l->skel = loader_skel_open(l->hash, &open_opts);
	if (!l->skel) {
		err = -errno;
		fprintf(stderr, "lockstall: cannot open the BPF object: %s\n", strerror(-err));
		goto cleanup;
	}
	loader_configure(l, opts, memcg, has_fault_tp);
	err = loader_size_maps(l, opts);
	if (err)
		goto cleanup;
	err = loader_load(l);
	if (err && loader_interrupted(l, err, &again))
		goto interrupted;
	if (err) {
		if (loader_cpu_time_failed(l, err) || loader_futex_fentry_failed(l, err) ||
		    loader_prior_failed(l, err) || loader_quiet_failed(l, err) ||
		    loader_backend_failed(l, opts->backend, err))
			goto retry;
		loader_say_load_failed(l, err);
		goto cleanup;
	}
	err = loader_fill_hist_free(l);
	if (err)
		goto cleanup;
	err = loader_attach(l);
	if (err && loader_interrupted(l, err, &again))
		goto interrupted;
	if (err && (loader_futex_fentry_failed(l, err) ||
		    loader_backend_failed(l, opts->backend, err)))
		goto retry;
	if (err)
		goto cleanup;
	loader_quiet_start(l);
	if (opts->backend == LS_BACKEND_AUTO)
		fprintf(stderr, "lockstall: using the %s backend (--backend=auto)\n",
			ls_backend__name(l->backend));
	err = loader_open_ring(l);
	if (err)
		goto cleanup;
	*out = l;
	return 0;

interrupted:
	if (again)
		goto retry;
cleanup:
	loader__free(l);
	return err;
}

/* A reload (SIGHUP) while the programs load waits until they are in: it would only cut the load short. */
int loader__open(struct loader **out, const struct loader_opts *opts)
{
	sigset_t reload, old;
	int err;

	sigemptyset(&reload);
	sigaddset(&reload, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &reload, &old);
	err = loader_open(out, opts);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

__u32 loader__features(const struct loader *l)
{
	return l->features;
}

int loader__poll(struct loader *l, int timeout_ms, ls_record_fn fn, void *ctx)
{
	__u64 now;
	int err;

	l->fn = fn;
	l->fn_ctx = ctx;
	l->fn_err = 0;
	l->delivered = 0;
	err = ring_buffer__poll(l->rb, timeout_ms);
	/*
	 * The BPF side wakes us only when the ring fills up (see
	 * ls_emit_submit()), so a timeout does not mean it is empty.
	 */
	if (!l->fn_err && (err >= 0 || err == -EINTR))
		err = ring_buffer__consume(l->rb);
	l->fn = NULL;
	if (l->fn_err)
		return l->fn_err;
	if (err < 0 && err != -EINTR)
		return err;
	now = ls_now_ns();
	if (now >= l->next_reap_ns) {
		l->next_reap_ns = now + LOADER_REAP_NS;
		err = loader_reap_hists(l, fn, ctx);
		if (err < 0)
			return err;
	}
	return l->delivered;
}

int loader__epoll_fd(const struct loader *l)
{
	return ring_buffer__epoll_fd(l->rb);
}

void loader__ring(const struct loader *l, int *fd, size_t *size)
{
	*fd = bpf_map__fd(l->skel->maps.events);
	*size = bpf_map__max_entries(l->skel->maps.events);
}

void loader__free(struct loader *l)
{
	if (!l)
		return;
	loader_iter_free(l);
	ring_buffer__free(l->rb);
	lockstall_bpf__destroy(l->skel);
	if (l->btf_fd > 0)
		close(l->btf_fd);
	free(l);
}
