// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The JSON sink: JSON Lines, one object per line, for tools.  The field
 * names and types are a contract (README, test/unit/test_sink_json.c):
 * add fields, never rename or retype one.
 *
 *	{"type":"stall",...}		one per stall, flushed at once (consumers tail it)
 *	{"type":"histograms",...}	one per interval, when intervals were asked for
 *	{"type":"summary",...}		last
 *
 * Numbers are decimal integers: nanoseconds, counts and ids unsigned, prio
 * and nice signed.  Kernel addresses that identify a lock are "0x..."
 * strings (they exceed what a double holds exactly).  Every string goes
 * through ls_json_str(), so any comm bytes give valid JSON.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/json_stall.h"
#include "sinks/sinks.h"
#include "sinks/sink_common.h"
#include "util.h"

static void json_u64(FILE *f, const char *key, __u64 v)
{
	fprintf(f, ",\"%s\":%llu", key, (unsigned long long)v);
}

static void json_bool(FILE *f, const char *key, bool v)
{
	fprintf(f, ",\"%s\":%s", key, v ? "true" : "false");
}

/* key names are ours, plain ASCII; values go through ls_json_str */
static void json_strv(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	ls_json_str(f, v, (size_t)-1);
}

static const char *mode_name(bool write)
{
	return write ? "write" : "read";
}

void sink_json__write_rename(FILE *f, const struct ls_stall *st, __u32 tid,
			     const char comm[LS_COMM_LEN])
{
	const struct ls_rename *r = ls_stall__rename(st, tid, comm);

	if (!r)
		return;
	fprintf(f, ",\"%s\":", r->was ? "comm_was" : "comm_now");
	ls_json_str(f, r->other, LS_COMM_LEN);
}

/*
 * "pid":..,"tid":..,"comm":..: opens the object (no leading comma).  A task
 * known only by its TID has null where a zeroed struct has 0 and "".
 */
static void json_task_id(FILE *f, const struct ls_stall *st, const struct ls_task *t)
{
	if (!ls_task_seen(t)) {
		fprintf(f, "\"pid\":null,\"tid\":%u,\"comm\":null", t->tid);
		return;
	}
	fprintf(f, "\"pid\":%u,\"tid\":%u,\"comm\":", t->tgid, t->tid);
	ls_json_str(f, t->comm, LS_COMM_LEN);
	sink_json__write_rename(f, st, t->tid, t->comm);
}

static void json_task(FILE *f, const struct ls_stall *st, const struct ls_task *t)
{
	json_task_id(f, st, t);
	if (!ls_task_seen(t)) {
		fputs(",\"policy\":\"unknown\",\"prio\":null,\"nice\":null,\"rt_prio\":null", f);
		return;
	}
	json_strv(f, "policy", ls_policy_name(t->policy));
	fprintf(f, ",\"prio\":%d,\"nice\":%d,\"rt_prio\":%u", t->prio, t->nice, t->rt_prio);
}

/*
 * ,"<key>":{"kind":..,"addr":..,"pid":..,"comm":..,"name":..,"module":..,"caller":..}:
 * a lock other than an mmap_lock (an mmap_lock's identity is in "mm").
 * pid/comm: the process a futex belongs to; absent for kernel locks.
 * name/caller: a kernel lock's data symbol and first caller outside the
 * locking code (no caller for a chain hop); name/module: a futex's data
 * symbol and the file mapped there; when known (NULL: not).
 */
static void json_lock(FILE *f, const char *key, const struct ls_lock_id *lock, const char *name,
		      const char *module, const char *caller)
{
	fprintf(f, ",\"%s\":{\"kind\":", key);
	ls_json_str(f, ls_lock_kind_name(lock->kind), (size_t)-1);
	fprintf(f, ",\"addr\":\"0x%llx\"", (unsigned long long)lock->id);
	if (lock->tgid) {
		fprintf(f, ",\"pid\":%u,\"comm\":", lock->tgid);
		ls_json_str(f, lock->comm, LS_COMM_LEN);
	}
	if (name)
		json_strv(f, "name", name);
	if (name && module)
		json_strv(f, "module", module);
	if (caller)
		json_strv(f, "caller", caller);
	putc('}', f);
}

static void json_op(FILE *f, const struct ls_op *op)
{
	char name[32];

	json_strv(f, "op", ls_op_name(op, name, sizeof(name)));
	if (op->kind == LS_OP_PAGE_FAULT)
		json_u64(f, "addr", op->addr);
}

/*
 * "stack":[{"addr":..,"sym":..,"off":..,"module":..,"kind":"kernel"|"user"},..],
 * innermost first; sym and module are null when unknown.  With it,
 * "stack_user_method" and, when something could not be done, "stack_note".
 */
static void json_stack(FILE *f, const struct ls_frames *fr)
{
	unsigned int i;

	if (!fr)
		return;
	fprintf(f, ",\"stack\":[");
	for (i = 0; i < fr->n; i++) {
		const struct ls_frame *fm = &fr->v[i];

		fprintf(f, "%s{\"addr\":\"0x%llx\",\"sym\":", i ? "," : "",
			(unsigned long long)fm->addr);
		if (fm->sym)
			ls_json_str(f, fm->sym, (size_t)-1);
		else
			fputs("null", f);
		fprintf(f, ",\"off\":%llu,\"module\":", (unsigned long long)fm->off);
		if (fm->module)
			ls_json_str(f, fm->module, (size_t)-1);
		else
			fputs("null", f);
		fprintf(f, ",\"kind\":\"%s\"}", fm->kind == LS_FRAME_KERNEL ? "kernel" : "user");
	}
	putc(']', f);
	json_strv(f, "stack_user_method", fr->user_method);
	if (fr->note)
		json_strv(f, "stack_note", fr->note);
}

void sink_json__write_cgroup(FILE *f, __u64 id, const char *path)
{
	json_u64(f, "cgroup_id", id);
	if (path)
		json_strv(f, "cgroup", path);
	else
		fputs(",\"cgroup\":null", f);
}

/* A pending stall's holder as it is now: "state_now", since when, whether its lock is known. */
static void json_holder_now(FILE *f, const struct ls_holder *h)
{
	json_strv(f, "state_now", ls_state_name(h->state_now));
	json_u64(f, "state_since_ns", h->state_since_ns);
	json_bool(f, "mm_confirmed", !h->lock_unconfirmed);
}

/* ,"cgroup":PATH,"cgroup_id":N,"cgroup_version":1|2 of a limit the kernel named. */
static void json_cause_cgroup(FILE *f, const char *raw, size_t size, __u64 id, __u32 hierarchy)
{
	char path[4 * LS_THROTTLE_PATH_MAX];

	if (ls_cgroup_text(raw, strnlen(raw, size), path, sizeof(path)) >= 0)
		json_strv(f, "cgroup", path);
	json_u64(f, "cgroup_id", id);
	json_u64(f, "cgroup_version", hierarchy ? 1 : 2);
}

/* ,"cgroup":PATH,...,"quota_ns":N,"period_ns":N of a throttled holder's limit. */
static void json_cause_throttled(FILE *f, const struct ls_holder *h)
{
	const struct ls_throttle *t = h->throttle;

	if (!t)
		return;
	json_cause_cgroup(f, t->path, sizeof(t->path), t->cgroup_id, t->hierarchy_id);
	json_u64(f, "quota_ns", t->quota_ns);
	json_u64(f, "period_ns", t->period_ns);
}

/* ,"kind":NAME[,"cgroup":PATH,...,"limit":"max","limit_bytes":N,"usage_bytes":N] of a reclaim. */
static void json_cause_reclaim(FILE *f, const struct ls_holder *h)
{
	const struct ls_reclaim *r = h->reclaim;

	if (!r)
		return;
	json_strv(f, "kind", ls_reclaim_kind_name(r->kind));
	if (r->limit == LS_MEMCG_LIMIT_NONE)
		return;
	json_cause_cgroup(f, r->path, sizeof(r->path), r->cgroup_id, r->hierarchy_id);
	json_strv(f, "limit", r->limit == LS_MEMCG_LIMIT_HIGH ? "high" : "max");
	json_u64(f, "limit_bytes", r->limit_bytes);
	json_u64(f, "usage_bytes", r->usage_bytes);
}

/* ,"device":"MAJ:MIN","major":N,"minor":N[,"disk":NAME] of an I/O wait's device. */
static void json_cause_io(FILE *f, const struct ls_holder *h)
{
	char d[24];

	if (!h->io_dev)
		return;
	snprintf(d, sizeof(d), "%u:%u", LS_DEV_MAJOR(h->io_dev), LS_DEV_MINOR(h->io_dev));
	json_strv(f, "device", d);
	json_u64(f, "major", LS_DEV_MAJOR(h->io_dev));
	json_u64(f, "minor", LS_DEV_MINOR(h->io_dev));
	if (h->io_disk[0]) {
		fputs(",\"disk\":", f);
		ls_json_str(f, h->io_disk, sizeof(h->io_disk));
	}
}

/* ,"allowed_cpus":"1","nr_cpus_allowed":N,"nr_cpus":N,"idle_cpus":"0" of a pinned holder. */
static void json_cause_pinned(FILE *f, const struct ls_holder *h)
{
	const struct ls_pinned *p = &h->pinned;
	char list[SINK_CPU_LIST_LEN];

	if (!p->nr_cpus)
		return;
	json_strv(f, "allowed_cpus", sink__cpu_list(p->allowed, list, sizeof(list)));
	json_u64(f, "nr_cpus_allowed", p->nr_cpus_allowed);
	json_u64(f, "nr_cpus", p->nr_cpus);
	json_strv(f, "idle_cpus", sink__cpu_list(p->idle_cpus, list, sizeof(list)));
}

/*
 * ,"cause":NAME,"causes":{"throttled":{"ns":N,"cgroup":PATH,...},
 * "reclaim":{...},"io":{"ns":N,"device":"M:m",...}}: what the kernel said of
 * the holder's time (ABI 4 runs only: older recordings' output stays as it was).
 */
static void json_causes(FILE *f, const struct ls_holder *h)
{
	/* What a cause's entry has beyond "ns", when the kernel said it. */
	static void (*const detail[LS_CAUSE_N])(FILE *f, const struct ls_holder *h) = {
		[LS_CAUSE_THROTTLED] = json_cause_throttled,
		[LS_CAUSE_RECLAIM] = json_cause_reclaim,
		[LS_CAUSE_IO] = json_cause_io,
		[LS_CAUSE_RUNNABLE] = json_cause_pinned,
	};
	const char *sep = "";
	unsigned int c;

	json_strv(f, "cause", ls_cause_name(h->cause));
	fprintf(f, ",\"causes\":{");
	for (c = LS_CAUSE_NONE + 1; c < LS_CAUSE_N; c++) {
		if (!h->cause_ns[c])
			continue;
		fprintf(f, "%s\"%s\":{\"ns\":%llu", sep, ls_cause_name(c),
			(unsigned long long)h->cause_ns[c]);
		sep = ",";
		if (detail[c])
			detail[c](f, h);
		putc('}', f);
	}
	putc('}', f);
}

/* ,"waited_on":[{"lock":..,"ns":..,"stall":..,"verdict":..,"holder":{..}},..] when any */
static void json_waited(FILE *f, const struct ls_stall *st, const struct ls_holder *h)
{
	const struct ls_waited *w;
	unsigned int i;

	if (!h->n_waited)
		return;
	fputs(",\"waited_on\":[", f);
	for (i = 0; i < h->n_waited && i < LS_MAX_WAITED; i++) {
		w = &h->waited[i];
		fputs(i ? ",{" : "{", f);
		/* json_lock() opens with a comma: this key leads the object */
		fputs("\"ns\":", f);
		fprintf(f, "%llu", (unsigned long long)w->ns);
		json_lock(f, "lock", &w->lock, NULL, NULL, NULL);
		json_u64(f, "stall", w->stall_seq);
		json_strv(f, "verdict", ls_verdict_name(w->verdict));
		if (w->holder.tid) {
			fputs(",\"holder\":{", f);
			json_task_id(f, st, &w->holder);
			json_strv(f, "state", ls_state_name(w->holder_state));
			putc('}', f);
		}
		putc('}', f);
	}
	putc(']', f);
}

static void json_holder(FILE *f, const struct ls_stall *st, const struct ls_holder *h)
{
	unsigned int i, n = h->n_preempted_by, s;

	putc('{', f);
	json_task(f, st, &h->task);
	sink_json__write_cgroup(f, h->cgroup_id, h->cgroup);
	json_strv(f, "mode", mode_name(h->write));
	if (ls_owner_how_name(h->how))
		json_strv(f, "found_by", ls_owner_how_name(h->how));
	json_op(f, &h->op);
	json_u64(f, "hold_start_ns", h->hold_start_ns);
	json_u64(f, "hold_end_ns", h->hold_end_ns);
	json_u64(f, "held_ns", h->held_ns);
	json_u64(f, "overlap_ns", h->overlap_ns);
	json_u64(f, "offcpu_ns", h->offcpu_ns);
	if (h->unseen_ns)
		json_u64(f, "unseen_ns", h->unseen_ns);
	fprintf(f, ",\"offcpu_by_state\":{");
	for (s = LS_STATE_PREEMPTED; s < LS_STATE_N; s++) {
		fprintf(f, "%s", s == LS_STATE_PREEMPTED ? "" : ",");
		ls_json_str(f, ls_state_name(s), (size_t)-1);
		fprintf(f, ":%llu", (unsigned long long)h->offcpu_by_state[s]);
	}
	putc('}', f);
	json_strv(f, "state", ls_state_name(h->state));
	json_bool(f, "granted", h->granted);
	json_bool(f, "downgraded", h->downgraded);
	json_bool(f, "released", h->released);
	/* a PI futex's owner: was it boosted to the waiter's priority in time (engine/locks.md)? */
	if (st->lock.kind == LS_LOCK_PI_FUTEX && h->how == LS_OWNER_FUTEX_WORD) {
		json_bool(f, "pi_boosted_in_time", !h->pi_late);
		json_u64(f, "pi_unboosted_ns", h->pi_unboosted_ns);
	}
	if (st->pending)
		json_holder_now(f, h);
	fprintf(f, ",\"preempted_by\":[");
	if (n > LS_MAX_PREEMPTORS)
		n = LS_MAX_PREEMPTORS;
	for (i = 0; i < n; i++) {
		const struct ls_preemptor *p = &h->preempted_by[i];

		fprintf(f, "%s{", i ? "," : "");
		json_task_id(f, st, &p->task);
		json_strv(f, "policy", ls_policy_name(p->task.policy));
		json_u64(f, "ns", p->ns);
		/* runs that told preemptors' cgroups: older recordings' output stays as it was */
		if (st->task_cgroups)
			sink_json__write_cgroup(f, p->cgroup_id, p->cgroup);
		putc('}', f);
	}
	putc(']', f);
	json_u64(f, "preempted_other_ns", h->preempted_other_ns);
	/* runs that looked for causes (ABI 4): older recordings' output stays as it was */
	if (st->advice)
		json_causes(f, h);
	json_waited(f, st, h);
	if (h->has_waker) {
		fprintf(f, ",\"woken_by\":{");
		json_task_id(f, st, &h->woken_by);
		putc('}', f);
	}
	json_stack(f, h->frames);
	putc('}', f);
}

static void json_chain(FILE *f, const struct ls_stall *st)
{
	unsigned int i, n = st->n_chain;

	if (n > LS_MAX_HOPS)
		n = LS_MAX_HOPS;
	fprintf(f, ",\"chain\":[");
	for (i = 0; i < n; i++) {
		const struct ls_hop *hop = &st->chain[i];

		fprintf(f, "%s{", i ? "," : "");
		json_task_id(f, st, &hop->task);
		json_strv(f, "role", ls_role_name(hop->role));
		if (hop->role == LS_ROLE_WAITER || hop->role == LS_ROLE_QUEUED_WRITER ||
		    hop->role == LS_ROLE_HOLDER)
			json_strv(f, "mode", mode_name(hop->write));
		if (hop->has_lock)
			json_lock(f, "lock", &hop->lock, hop->lock_name, hop->lock_module, NULL);
		json_u64(f, "ns", hop->ns);
		/* through a wait that ended inside this one: its record and length */
		if (hop->stall_seq) {
			json_u64(f, "stall", hop->stall_seq);
			json_u64(f, "wait_ns", hop->wait_ns);
		}
		putc('}', f);
	}
	putc(']', f);
}

void sink_json__write_stall(FILE *f, const struct ls_stall *st)
{
	unsigned int i;

	if (st->pending) {
		/* A wait still open: waiter.tid and start_ns name it, its stall repeats them. */
		fprintf(f, "{\"type\":\"pending\"");
		json_u64(f, "report", st->pending_reports);
		json_bool(f, "at_exit", st->at_exit);
		json_u64(f, "first_report_ns", st->pending_first_ns);
	} else {
		fprintf(f, "{\"type\":\"stall\"");
		json_u64(f, "seq", st->seq);
		if (st->pending_reports) {
			json_u64(f, "pending_reports", st->pending_reports);
			json_u64(f, "first_report_ns", st->pending_first_ns);
		}
	}
	json_strv(f, "lock", ls_lock_kind_name(st->lock.kind));
	if (st->lock.kind != LS_LOCK_MMAP)
		json_lock(f, "lock_id", &st->lock, st->lock_name, st->lock_module, st->lock_caller);
	json_strv(f, "mode", mode_name(st->write));
	json_bool(f, "acquired", st->acquired);
	json_u64(f, "start_ns", st->start_ns);
	json_u64(f, "end_ns", st->end_ns);
	json_u64(f, "wait_ns", st->wait_ns);
	json_u64(f, "lock_wait_ns", st->lock_wait_ns);
	json_u64(f, "run_delay_ns", st->run_delay_ns);

	fprintf(f, ",\"mm\":{\"pid\":%u,\"comm\":", st->lock.tgid);
	ls_json_str(f, st->lock.comm, LS_COMM_LEN);
	sink_json__write_rename(f, st, st->lock.tgid, st->lock.comm);
	fprintf(f, ",\"id\":\"0x%llx\"}", (unsigned long long)st->lock.id);

	fprintf(f, ",\"waiter\":{");
	json_task(f, st, &st->waiter);
	sink_json__write_cgroup(f, st->waiter_cgroup_id, st->waiter_cgroup);
	json_op(f, &st->op);
	if (st->op.kind == LS_OP_PAGE_FAULT)
		json_bool(f, "vma_lock_fallback", st->vma_lock_fallback);
	json_stack(f, st->waiter_frames);
	putc('}', f);

	fprintf(f, ",\"holders\":[");
	for (i = 0; i < st->n_holders; i++) {
		if (i)
			putc(',', f);
		json_holder(f, st, &st->holders[i]);
	}
	putc(']', f);
	json_u64(f, "holders_dropped", st->holders_dropped);
	json_chain(f, st);
	json_strv(f, "verdict", ls_verdict_name(st->verdict));
	if (ls_unknown_reason_name(st->unknown_reason))
		json_strv(f, "unknown_reason", ls_unknown_reason_name(st->unknown_reason));
	if (st->advice) {
		json_strv(f, "cause", ls_cause_name(st->cause));
		json_strv(f, "advice", st->advice);
	}
	json_u64(f, "lost_in_window", st->lost_in_window);
	if (st->history_short)
		json_bool(f, "history_short", true);
	/* present only then, as history_short: older consumers and goldens read on */
	if (st->found_late)
		json_bool(f, "found_late", true);
	else if (st->began_before)
		json_bool(f, "began_before_tracing", true);
	putc('}', f);
}

static int json__stall(struct sink *s, const struct ls_stall *st)
{
	sink_json__write_stall(s->out, st);
	putc('\n', s->out);
	/* consumers tail this live */
	return sink__flush(s->out);
}

static const char *kind_key(unsigned int kind)
{
	int lock_kind = ls_hist_lock_kind(kind);

	if (lock_kind >= 0)
		return ls_lock_kind((unsigned int)lock_kind)->hist_key;
	switch (kind) {
	case LS_HIST_HOLD:
		return "hold";
	case LS_HIST_OFFCPU:
		return "offcpu";
	}
	return "other";
}

/* One histogram view: its process(es), lock kind (waits), mode, totals and slots. */
static void json_hist(FILE *f, const struct hist_view *v)
{
	int lock = ls_hist_lock_kind(v->key.kind);
	unsigned int j;

	fprintf(f, "{\"pid\":%u,\"comm\":", v->key.tgid);
	ls_json_str(f, v->hist.comm, LS_COMM_LEN);
	json_u64(f, "processes", v->processes);
	if (v->exited)
		json_u64(f, "exited_processes", v->exited);
	fprintf(f, ",\"pids\":[");
	for (j = 0; j < v->n_pids; j++)
		fprintf(f, "%s%u", j ? "," : "", v->pids[j]);
	putc(']', f);
	if (lock >= 0)
		json_strv(f, "lock", ls_lock_kind_name((unsigned int)lock));
	if (v->key.write == 0 || v->key.write == 1)
		json_strv(f, "mode", mode_name(v->key.write));
	json_u64(f, "count", v->hist.count);
	json_u64(f, "sum_ns", v->hist.sum_ns);
	fprintf(f, ",\"log2_usecs\":[");
	for (j = 0; j < LS_HIST_SLOTS; j++)
		fprintf(f, "%s%llu", j ? "," : "", (unsigned long long)v->hist.slots[j]);
	fprintf(f, "]}");
}

/*
 * "histograms":{"wait":[...],"hold":[...],"offcpu":[...],"futex_wait":[...],
 * ... one per other lock kind ("lock" in each says which)}, the same
 * selection and order as the text sink: by command name unless --per-pid
 * ("processes" and "pids" say whose), then how they were picked and how
 * many each kind left out ("histograms_not_shown").  "mode" only where the kernel keyed the histogram by lock
 * mode (waits); hold and off-CPU ones cover both.
 */
static int json_hists(FILE *f, const struct sink_opts *opts, const struct ls_hist_set *set)
{
	struct hist_sel sel[LS_HIST_KIND_N] = { 0 };
	unsigned int kind;
	size_t i;
	int err = 0;

	/* select everything first: never leave half a line behind on ENOMEM */
	for (kind = 0; kind < LS_HIST_KIND_N; kind++) {
		err = hist__select(set, kind, opts, &sel[kind]);
		if (err)
			goto cleanup;
	}
	fprintf(f, ",\"histograms\":{");
	for (kind = 0; kind < LS_HIST_KIND_N; kind++) {
		fprintf(f, "%s\"%s\":[", kind ? "," : "", kind_key(kind));
		for (i = 0; i < sel[kind].n; i++) {
			if (i)
				putc(',', f);
			json_hist(f, &sel[kind].v[i]);
		}
		putc(']', f);
	}
	putc('}', f);
	json_bool(f, "histograms_per_pid", opts->per_pid);
	json_u64(f, "histograms_min_ns", opts->hist_min_ns);
	fprintf(f, ",\"histograms_not_shown\":{");
	for (kind = 0; kind < LS_HIST_KIND_N; kind++) {
		fprintf(f, "%s\"%s\":{\"top\":%zu", kind ? "," : "", kind_key(kind), sel[kind].n_more);
		fprintf(f, ",\"under_min\":%zu}", sel[kind].n_quiet);
	}
	putc('}', f);
cleanup:
	for (kind = 0; kind < LS_HIST_KIND_N; kind++)
		hist_sel__release(&sel[kind]);
	return err;
}

static int json__interval(struct sink *s, const struct ls_hist_set *h)
{
	FILE *f = s->out;
	int err;

	fprintf(f, "{\"type\":\"histograms\"");
	json_u64(f, "start_ns", h->start_ns);
	json_u64(f, "end_ns", h->end_ns);
	json_u64(f, "duration_ns", h->end_ns >= h->start_ns ? h->end_ns - h->start_ns : 0);
	/* on ENOMEM still end the line: every line stays one JSON object */
	err = json_hists(f, &s->opts, h);
	fprintf(f, "}\n");
	return err ? err : sink__flush(f);
}

static int json__summary(struct sink *s, const struct ls_summary *sum)
{
	static const struct ls_hist_set empty;
	FILE *f = s->out;
	unsigned int v;
	int err;

	fprintf(f, "{\"type\":\"summary\"");
	json_u64(f, "duration_ns", sum->duration_ns);
	json_u64(f, "start_ns", sum->start_ns);
	json_u64(f, "end_ns", sum->end_ns);
	json_u64(f, "stalls", sum->stalls);
	fprintf(f, ",\"stalls_by_verdict\":{");
	for (v = 0; v < LS_VERDICT_N; v++) {
		if (!sink__verdict_listed(sum, v))
			continue;
		fprintf(f, "%s", v ? "," : "");
		ls_json_str(f, ls_verdict_name(v), (size_t)-1);
		fprintf(f, ":%llu", (unsigned long long)sum->stalls_by_verdict[v]);
	}
	putc('}', f);
	if (sum->pending_reports) {
		json_u64(f, "pending_reports", sum->pending_reports);
		json_u64(f, "pending_at_exit", sum->pending_at_exit);
	}
	json_u64(f, "events", sum->events);
	json_u64(f, "lost_events", sum->lost_events);
	json_u64(f, "bad_records", sum->bad_records);
	json_u64(f, "evicted", sum->evicted);
	if (sum->stalls_short)
		json_u64(f, "stalls_short", sum->stalls_short);
	if (sum->stalls_unnamed)
		json_u64(f, "stalls_unnamed", sum->stalls_unnamed);
	if (sum->slo) {
		fprintf(f, ",\"slo\":{\"violations\":%llu", (unsigned long long)sum->slo_violations);
		json_u64(f, "suppressed", sum->slo_suppressed);
		fprintf(f, ",\"hooks\":{\"runs\":%llu", (unsigned long long)sum->hook_runs);
		json_u64(f, "failures", sum->hook_failures);
		json_u64(f, "timeouts", sum->hook_timeouts);
		json_u64(f, "skipped", sum->hook_skipped);
		fprintf(f, "}}");
	}
	err = json_hists(f, &s->opts, sum->hists ? sum->hists : &empty);
	fprintf(f, "}\n");
	return err ? err : sink__flush(f);
}

static void json__free(struct sink *s)
{
	free(s);
}

static const struct sink_ops json_ops = {
	.name = "json",
	.stall = json__stall,
	.interval = json__interval,
	.summary = json__summary,
	.free = json__free,
};

struct sink *sink_json__new(FILE *out, const struct sink_opts *opts)
{
	struct sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	sink__init(s, &json_ops, out, opts);
	return s;
}
