// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Why a holder could not run, a row per cause: its name in every output,
 * metric and rule, its advice, and how its time is read from a hold's
 * spells.  A new cause is its value in enum ls_cause (engine.h), a row
 * here with what its record tells of a spell, and the kernel code that
 * sends it (src/README.md, "Adding an off-CPU cause").  A cause lockstall
 * did not see is never inferred.
 */
#include "engine/internal.h"

/*
 * What a cause's own record told of a spell, in the spell's told[] words:
 * a part per cause that has a record, read and written only here, always
 * through struct spell_told (the build has -fno-strict-aliasing).
 */
struct runnable_told {		/* RUNNABLE, of a pinned spell */
	__u64 idle_ns;		/* a CPU it could not use idled this long in it */
	__u64 allowed;		/* the CPUs it may run on, and those outside that idled */
	__u64 idle_cpus;
	__u32 nr_cpus_allowed;
	__u32 nr_cpus;
};

struct steal_told {		/* STEAL: the on-CPU stretch that ended at the spell's start */
	__u64 on_ns;		/* its length */
	__u64 ns;		/* the steal in it */
};

struct spell_told {
	struct runnable_told runnable;
	struct steal_told steal;
};
_Static_assert(sizeof(struct spell_told) <= sizeof(((struct spell *)0)->told),
	       "struct spell's told[] words");

static const struct spell_told *spell__told(const struct spell *sp)
{
	return (const struct spell_told *)sp->told;
}

static struct spell_told *spell__tell(struct spell *sp)
{
	return (struct spell_told *)sp->told;
}

/* Spell sp's part inside [from, to) as [*s, *t); false: none, or not an off-CPU state. */
static bool spell__clip(const struct spell *sp, __u64 from, __u64 to, __u64 *s, __u64 *t)
{
	*s = u64_max(sp->start, from);
	*t = u64_min(sp->end, to);
	return *t > *s && sp->state < LS_STATE_N;
}

/* Runnable while its cgroup's quota was spent, as far as the kernel said. */
static void throttled__spell(struct cause_part *p, const struct spell *sp, __u64 from, __u64 to)
{
	__u64 s, t;

	if (spell__clip(sp, from, to, &s, &t) && spell__runnable(sp))
		p->ns += span_overlap(sp->start, spell__throttled_end(sp), s, t);
}

/* No counter tells when the refill came: the whole spell, as the kernel said. */
static void rt_throttled__spell(struct cause_part *p, const struct spell *sp, __u64 from,
				__u64 to)
{
	__u64 s, t;

	if (spell__clip(sp, from, to, &s, &t) && spell__runnable(sp) &&
	    (sp->cause & LS_CAUSE_F_RT_THROTTLED))
		p->ns += t - s;
}

/* Asleep in an I/O wait; the detail: the device of the longest that named one. */
static void io__spell(struct cause_part *p, const struct spell *sp, __u64 from, __u64 to)
{
	__u64 s, t;

	if (!spell__clip(sp, from, to, &s, &t) || !spell__io(sp))
		return;
	p->ns += t - s;
	if (sp->io_dev && t - s > p->most) {
		p->most = t - s;
		p->detail.io_dev = sp->io_dev;
	}
}

/*
 * A pinned spell's idle elsewhere surely inside its part in the wait, and
 * its CPUs (mask: those that idled).  Not while its cgroup was throttled:
 * the quota is the group's, on every CPU, so another CPU's idling could
 * not have helped.
 */
static void runnable__spell(struct cause_part *p, const struct spell *sp, __u64 from, __u64 to)
{
	const struct runnable_told *told = &spell__told(sp)->runnable;
	__u64 s, t, idle;

	if (!spell__clip(sp, from, to, &s, &t) || !spell__runnable(sp))
		return;
	s = u64_max(s, spell__throttled_end(sp));
	idle = share__sure(told->idle_ns, sp->end - sp->start, t > s ? t - s : 0);
	if (!idle)
		return;
	p->ns += idle;
	p->mask |= told->idle_cpus;
	if (idle > p->most) {
		p->most = idle;
		p->detail.pinned.allowed = told->allowed;
		p->detail.pinned.nr_cpus_allowed = told->nr_cpus_allowed;
		p->detail.pinned.nr_cpus = told->nr_cpus;
	}
}

/* The steal of the stretch on CPU that ended at sp's start, as far as it surely fell in [from, to). */
static void steal__spell(struct cause_part *p, const struct spell *sp, __u64 from, __u64 to)
{
	const struct steal_told *told = &spell__told(sp)->steal;
	__u64 on = sp->start > told->on_ns ? sp->start - told->on_ns : 0;

	if (!(sp->cause & LS_CAUSE_F_STEAL) || !told->ns)
		return;
	p->ns += share__sure(told->ns, sp->start - on, span_overlap(on, sp->start, from, to));
}

/*
 * RUNNABLE, at the task's switch-in: CPUs it could not use idled in the
 * pinned spell it ends (the row's closes_spell: the SWITCH after it may
 * be left unsent, and must not keep the spell open while the task runs).
 */
static bool runnable__told(struct spell *sp, const void *rec)
{
	struct runnable_told *told = &spell__tell(sp)->runnable;
	const struct ls_rec_runnable *r = rec;
	__u64 ts = r->hdr.ts;

	if (!spell__runnable(sp))
		return false;
	if (!(sp->cause & LS_CAUSE_F_PINNED) || r->start_ns > ts)
		return true;
	/* A migration may have split the kernel's spell: the part sure to fall in this one. */
	told->idle_ns = share__sure(r->idle_ns, ts - r->start_ns, ts > sp->start ? ts - sp->start : 0);
	told->allowed = r->allowed;
	told->idle_cpus = r->idle_cpus;
	told->nr_cpus_allowed = r->nr_cpus_allowed;
	told->nr_cpus = r->nr_cpus;
	return true;
}

/* STEAL, just after the SWITCH that opened the spell: the stretch on CPU that ended there. */
static bool steal__told(struct spell *sp, const void *rec)
{
	struct steal_told *told = &spell__tell(sp)->steal;
	const struct ls_rec_steal *r = rec;

	if (!(sp->cause & LS_CAUSE_F_STEAL) || sp->start != r->hdr.ts)
		return false;
	told->on_ns = r->on_ns;
	told->ns = r->steal_ns < r->on_ns ? r->steal_ns : r->on_ns;
	return true;
}

/* In reclaim or compaction, on CPU or off. */
static void reclaim__hold(struct cause_part *p, const struct hold *h, __u64 from, __u64 to)
{
	__u32 i;

	for (i = 0; i < h->n_reclaims; i++)
		p->ns += span_overlap(h->reclaims[i].start, h->reclaims[i].end, from, to);
}

/* Where a cause's LS_CAUSE_F_* flag holds: runnable spells, blocked ones. */
#define CAUSE_RUNNABLE	0x1
#define CAUSE_BLOCKED	0x2

static const struct cause_def {
	struct ls_cause_row row;
	/* the LS_CAUSE_F_* a SWITCH or WAKEUP says it with, and on which spells (CAUSE_*) */
	__u8 flag;
	__u8 flag_on;
	/* its time in spell sp (the whole spell) of a hold inside [from, to) */
	void (*spell)(struct cause_part *p, const struct spell *sp, __u64 from, __u64 to);
	/* its time in hold h inside [from, to), from what the hold kept beside its spells */
	void (*hold)(struct cause_part *p, const struct hold *h, __u64 from, __u64 to);
	/*
	 * Its record, if it has one of its own (a struct cause_rec first):
	 * type, size, and what it tells of its task's open spell (false: not
	 * about that spell).
	 */
	__u16 rec;
	__u16 rec_size;
	bool (*told)(struct spell *sp, const void *rec);
	/* its record, told of the open spell, also ends it: the task runs again */
	bool closes_spell;
} causes[LS_CAUSE_N] = {
	[LS_CAUSE_NONE] = { .row = { "none", NULL } },
	[LS_CAUSE_THROTTLED] = {
		.row = { "throttled", "the holder's cgroup ran out of CPU quota while it held the lock: raise the quota, or move the reader out of the limited container" },
		.flag = LS_CAUSE_F_THROTTLED,
		.flag_on = CAUSE_RUNNABLE,
		.spell = throttled__spell,
	},
	[LS_CAUSE_RECLAIM] = {
		.row = { "reclaim", "the holder reclaimed or compacted memory while it held the lock: raise its memory cgroup's limit (memory.max, memory.limit_in_bytes) or keep more memory free (vm.min_free_kbytes)" },
		.hold = reclaim__hold,
	},
	[LS_CAUSE_RT_THROTTLED] = {
		.row = { "rt_throttled", "the holder's CPU ran out of RT budget (sched_rt_runtime_us): the RT holder spun too long; shorten its RT work or review the RT budget" },
		.flag = LS_CAUSE_F_RT_THROTTLED,
		.flag_on = CAUSE_RUNNABLE,
		.spell = rt_throttled__spell,
	},
	[LS_CAUSE_IO] = {
		.row = { "io", "the holder waited on I/O while it held the lock: look at the device's latency, or do the I/O outside the lock" },
		.flag = LS_CAUSE_F_IO,
		.flag_on = CAUSE_BLOCKED,
		.spell = io__spell,
	},
	[LS_CAUSE_RUNNABLE] = {
		.row = { "runnable", "the holder waited for a CPU its affinity or cpuset allows while another CPU idled: widen its affinity (taskset, sched_setaffinity) or its cpuset (cpuset.cpus)" },
		.flag = LS_CAUSE_F_PINNED,
		.flag_on = CAUSE_RUNNABLE,
		.spell = runnable__spell,
		.rec = LS_REC_RUNNABLE,
		.rec_size = sizeof(struct ls_rec_runnable),
		.told = runnable__told,
		.closes_spell = true,
	},
	[LS_CAUSE_STEAL] = {
		.row = { "steal", "the hypervisor ran something else on the holder's vCPU while it held the lock (steal time): look at the VM's host (overcommit, noisy neighbours) or give the VM dedicated CPUs" },
		.flag = LS_CAUSE_F_STEAL,
		.flag_on = CAUSE_RUNNABLE | CAUSE_BLOCKED,
		.spell = steal__spell,
		.rec = LS_REC_STEAL,
		.rec_size = sizeof(struct ls_rec_steal),
		.told = steal__told,
	},
};

_Static_assert(sizeof(struct ls_rec_runnable) <= ENGINE_CAUSE_REC_MAX, "the feed's union");
_Static_assert(sizeof(struct ls_rec_steal) <= ENGINE_CAUSE_REC_MAX, "the feed's union");

__u8 causes__spell_flags(__u8 told, bool runnable)
{
	__u8 on = runnable ? CAUSE_RUNNABLE : CAUSE_BLOCKED, kept = 0;
	unsigned int k;

	for (k = 0; k < LS_CAUSE_N; k++)
		if (causes[k].flag_on & on)
			kept |= told & causes[k].flag;
	return kept;
}

const struct ls_cause_row *ls_cause_row(enum ls_cause c)
{
	return &causes[(unsigned int)c < LS_CAUSE_N ? c : LS_CAUSE_NONE].row;
}

static const struct cause_def *cause__of_rec(__u16 type)
{
	unsigned int k;

	for (k = 0; k < LS_CAUSE_N; k++)
		if (causes[k].rec && causes[k].rec == type)
			return &causes[k];
	return NULL;
}

size_t causes__rec_size(__u16 type)
{
	const struct cause_def *d = cause__of_rec(type);

	return d ? d->rec_size : 0;
}

void causes__record(struct engine *e, const struct cause_rec *r)
{
	const struct cause_def *d = cause__of_rec(r->hdr.type);
	struct ls_task id = { .tid = r->tid, .tgid = r->tgid };
	struct task *tk = tasks__find(e, &id);

	if (!d || !tk || !tk->spell_open || !d->told(&tk->open, r))
		return;
	tk->last_ts = u64_max(tk->last_ts, r->hdr.ts);
	if (d->closes_spell)
		tasks__back_on(e, tk, r->hdr.ts);
}

void causes__measure(struct cause_part part[LS_CAUSE_N], const struct hold *h, __u64 from,
		     __u64 to)
{
	const struct cause_def *d;
	unsigned int k;
	__u32 i;

	for (k = 0; k < LS_CAUSE_N; k++) {
		d = &causes[k];
		for (i = 0; d->spell && i < h->n_spells; i++)
			d->spell(&part[k], &h->spells[i], from, to);
		if (d->hold)
			d->hold(&part[k], h, from, to);
	}
}

void causes__fold(struct cause_part lead[LS_CAUSE_N], const struct cause_part c[LS_CAUSE_N])
{
	unsigned int k;

	for (k = 0; k < LS_CAUSE_N; k++) {
		lead[k].ns += c[k].ns;
		lead[k].mask |= c[k].mask;
		if (c[k].most > lead[k].most) {
			lead[k].most = c[k].most;
			lead[k].detail = c[k].detail;
		}
	}
}
