// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per CPU: who runs there, and a history of runs while some holder sat
 * runnable on that CPU, from which a stall reads who ran instead of the
 * holder (the preemptor tally).  The scheduler records (tasks.c) tell it
 * who runs; a stall (stall_holders.c) reads the tally.
 *
 * The tally is read at stall time from the runs rather than summed into
 * each spell as it goes: a stall judges only the part of a spell inside
 * its wait, and runs clip exactly where running sums could not.
 */
#include <stdlib.h>
#include <string.h>
#include "engine/internal.h"

struct cpu *cpus__get(struct engine *e, __u32 cpu)
{
	struct cpu *cpus;
	__u32 n, i;

	if (cpu >= ENGINE_MAX_CPUS)
		return NULL;
	if (cpu < e->n_cpus)
		return &e->cpus[cpu];
	for (n = e->n_cpus ? e->n_cpus : 8; n <= cpu; n *= 2)
		;
	/* Callers must not hold a struct cpu * across this realloc. */
	cpus = realloc(e->cpus, n * sizeof(*cpus));
	if (!cpus)
		return NULL;
	memset(cpus + e->n_cpus, 0, (n - e->n_cpus) * sizeof(*cpus));
	for (i = e->n_cpus; i < n; i++)
		ring__init(&cpus[i].runs, sizeof(struct run));
	e->cpus = cpus;
	e->n_cpus = n;
	return &cpus[cpu];
}

void cpus__free_all(struct engine *e)
{
	__u32 i;

	for (i = 0; i < e->n_cpus; i++)
		ring__free(&e->cpus[i].runs);
	free(e->cpus);
	e->cpus = NULL;
	e->n_cpus = 0;
	e->n_runs = 0;
}

/*
 * t ran on c during [from, to).  Kept only if a runnable spell on c may
 * overlap it: one is open now, or one closed after from.  Runs stay
 * ordered (from and to never decrease) so a stall can binary-search them.
 */
void cpu__push_run(struct engine *e, struct cpu *c, const struct ls_task *t,
		   __u64 from, __u64 to)
{
	struct run *last = NULL, *run;
	__u32 old_cap = c->runs.cap, max;
	int err;

	if (!t->tid || (!c->n_open && c->last_close <= from))
		return;
	if (c->runs.n) {
		last = ring__at(&c->runs, c->runs.n - 1);
		from = u64_max(from, last->to);
	}
	if (to <= from)
		return;
	if (last && last->task.tid == t->tid && last->to == from) {
		last->to = to;
		return;
	}
	/* Grow while the budget over all CPUs allows, else overwrite the oldest. */
	max = c->runs.cap;
	if (e->n_runs + (old_cap ? old_cap : 8) <= ENGINE_MAX_RUNS)
		max = ENGINE_RUNS_MAX;
	err = ring__reserve(&c->runs, max ? max : 8);
	if (err && c->runs.n) {
		/*
		 * On a busy CPU the history turns over constantly; that only
		 * matters to a stall that needs the lost span, and cpus__tally
		 * counts it then.
		 */
		run = ring__at(&c->runs, 0);
		c->evicted_to = u64_max(c->evicted_to, run->to);
		ring__pop_front(&c->runs);
		/* The oldest run is cold by now; the next push reads the next one. */
		__builtin_prefetch(ring__at(&c->runs, 1));
	} else if (err) {
		return;
	}
	e->n_runs += c->runs.cap - old_cap;
	run = ring__push(&c->runs);
	run->task = *t;
	run->from = from;
	run->to = to;
}

/* Learned who runs on c at ts from a record that is not a switch on c. */
void cpu__set_runner(struct engine *e, struct cpu *c, const struct ls_task *t, __u64 ts)
{
	if (!t->tid)		/* "unknown": keep what we know */
		return;
	if (c->runner_known && c->runner.tid == t->tid) {
		c->runner = *t;
		return;
	}
	if (c->runner_known && ts < c->since)	/* older news than ours */
		return;
	if (c->runner_known)
		cpu__push_run(e, c, &c->runner, c->since, ts);
	c->runner = *t;
	c->since = ts;
	c->runner_known = true;
}

/* Reset the stall's preemptor tally for the next holder. */
void tally__reset(struct engine *e)
{
	e->n_tally = 0;
	e->tally_other = 0;
	memset(e->tally_idx, 0, sizeof(e->tally_idx));
}

static void tally__credit(struct engine *e, const struct ls_task *t, __u64 ns)
{
	const __u32 mask = sizeof(e->tally_idx) - 1;
	struct tally *tl;
	__u32 i, n;

	if (!ns)
		return;
	/* Invariant: at most half the index is used, so the probe ends. */
	for (i = (t->tid * 0x9e3779b1u) & mask; e->tally_idx[i]; i = (i + 1) & mask) {
		tl = &e->tally[e->tally_idx[i] - 1];
		if (tl->task.tid == t->tid) {
			tl->ns += ns;
			return;
		}
	}
	if (e->n_tally >= ENGINE_MAX_TALLY) {
		e->tally_other += ns;
		return;
	}
	if (e->n_tally == e->tally_alloc) {
		n = e->tally_alloc ? e->tally_alloc * 2 : 16;
		tl = realloc(e->tally, n * sizeof(*tl));
		if (!tl) {
			e->tally_other += ns;
			return;
		}
		e->tally = tl;
		e->tally_alloc = n;
	}
	e->tally[e->n_tally].task = *t;
	e->tally[e->n_tally].ns = ns;
	e->tally_idx[i] = ++e->n_tally;
}

static __u64 run__end(const void *elem)
{
	return ((const struct run *)elem)->to;
}

void cpus__tally(struct engine *e, __u32 cpu, __u64 from, __u64 to, __u32 holder_tid)
{
	const struct cpu *c;
	const struct run *run;
	__u64 since;
	__u32 lo;

	if (cpu >= e->n_cpus || to <= from)
		return;
	c = &e->cpus[cpu];
	if (from < c->evicted_to) {
		/* Who ran then was overwritten: the time stays, unnamed. */
		e->tally_other += u64_min(to, c->evicted_to) - from;
		e->stall_history_short = true;
		from = c->evicted_to;
		if (to <= from)
			return;
	}
	lo = ring__first_after(&c->runs, from, run__end);
	for (; lo < c->runs.n; lo++) {
		run = ring__at(&c->runs, lo);
		if (run->from >= to)
			break;
		if (!e->run_budget) {
			/* Out of budget: the rest of the span ran someone, unnamed. */
			e->tally_other += to - u64_max(run->from, from);
			return;
		}
		e->run_budget--;
		if (run->task.tid != holder_tid)
			tally__credit(e, &run->task, span_overlap(run->from, run->to, from, to));
	}
	/* Who runs now has not been pushed as a run yet; it began after the last. */
	since = c->since;
	if (c->runs.n)
		since = u64_max(since, run__end(ring__at(&c->runs, c->runs.n - 1)));
	if (c->runner_known && c->runner.tid && c->runner.tid != holder_tid)
		tally__credit(e, &c->runner, span_overlap(since, to, from, to));
}
