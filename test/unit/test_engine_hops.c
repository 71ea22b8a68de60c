// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Chains through waits that ended: a holder that waited on a second lock
 * inside the waiter's wait, and got it before that wait ended.  The hop
 * names the second lock, how long the holder waited on it, that lock's
 * holder and why it was off CPU, and the stall of that wait; the verdict
 * judges the task at the root.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include "lib/engine_fixture.h"
#include "cli/cli.h"
#include "commands.h"
#include "lib/trace_fixture.h"
#include "sinks/report.h"
#include "sinks/sinks.h"
#include "util.h"

#define WAITING LS_TASK_F_WAITING
#define HOLDING LS_TASK_F_HOLDING
#define GRANTED LS_TASK_F_GRANTED
#define OWNER LS_TASK_F_OWNER

TestSuite(hops, .init = fixture__setup, .fini = fixture__teardown);

static const struct ls_task rt_victim = FX_TASK(102, 100, LS_POLICY_FIFO, 0, 10, 89, "rt-victim");
static const struct ls_task reader = FX_TASK(301, 300, LS_POLICY_IDLE, 0, 0, 120, "agent");

/*
 * rt-victim waits from T(2) on a pthread mutex of app that worker owns
 * (running on CPU 0).  At T(5) worker, inside the mutex, asks for app's
 * mmap_lock for write (mmap) and sleeps: agent, SCHED_IDLE, holds it for
 * read since T(0) and a hog keeps it off CPU 2 from T(1) to T(50).  agent
 * lets go at T(51), handing the lock to worker, whose wait ends at
 * T(52) after waiting mmap_wait_ms in all; worker releases the mutex at
 * T(53) and the victim's wait ends at T(54).  sleep_first: before that,
 * worker sleeps on something else from T(4) to T(38).
 */
static void mutex_then_mmap_lock(const struct ls_task *worker, double mmap_wait_ms,
				 bool sleep_first)
{
	struct ls_lock_id mutex = stream__mm(0x55d0c0de2000ULL, 100, "app");
	double w0 = 51 - mmap_wait_ms;
	struct stream_owner o = { .waiter = &rt_victim, .owner = worker, .start = T(2),
				  .owner_cpu = 0, .state = LS_OWNER_RUNNING,
				  .how = LS_OWNER_PTHREAD };
	struct stream_lock vw = { .start = T(2), .write = true, .owner_how = LS_OWNER_PTHREAD,
				  .owner_tid = worker->tid };
	struct stream_lock vend = vw;
	struct stream_lock r_hold = { .start = T(0), .acquired = T(0), .offcpu = MS(49) };
	struct stream_lock mw = { .start = T(w0), .write = true, .op = stream__syscall(9) };
	struct stream_lock mend = mw;

	mutex.kind = LS_LOCK_FUTEX;
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_FUTEX | LS_FEAT_CAUSES);
	stream__switch(&efx.s, 2, T(1), &reader, HOLDING, true, &efx.hog, 0);
	/* its wait began first: the victim finds the worker asleep, a waiter only till now */
	if (w0 < 2) {
		stream__wait_begin(&efx.s, 0, T(w0), worker, &efx.mm, &mw);
		stream__switch(&efx.s, 0, T(w0), worker, WAITING, false, NULL, 0);
		o.state = LS_OWNER_BLOCKED;
	}
	stream__owner(&efx.s, 1, T(2), &mutex, &o);
	stream__wait_begin(&efx.s, 1, T(3), &rt_victim, &mutex, &vw);
	stream__switch(&efx.s, 1, T(3), &rt_victim, WAITING, false, NULL, 0);
	if (sleep_first) {
		stream__switch(&efx.s, 0, T(4), worker, OWNER, false, NULL, 0);
		stream__wakeup(&efx.s, 3, T(38), worker, OWNER, &efx.holder, 0, NULL);
		stream__switch(&efx.s, 0, T(38.1), NULL, 0, false, worker, OWNER);
	}
	/* worker, holding the mutex, waits for the mmap_lock */
	if (w0 >= 2) {
		stream__wait_begin(&efx.s, 0, T(w0), worker, &efx.mm, &mw);
		stream__switch(&efx.s, 0, T(w0), worker, WAITING | OWNER, false, NULL, 0);
	}
	stream__switch(&efx.s, 2, T(50), &efx.hog, 0, true, &reader, HOLDING);
	stream__hold(&efx.s, 2, T(51), &reader, &efx.mm, &r_hold);
	stream__wakeup(&efx.s, 2, T(51), worker, WAITING | GRANTED | OWNER, &reader, 0, NULL);
	stream__switch(&efx.s, 0, T(51.5), NULL, 0, false, worker, WAITING | GRANTED | OWNER);
	mend.granted = T(51);
	mend.flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED;
	stream__wait_end(&efx.s, 0, T(52), worker, &efx.mm, &mend);
	/* worker lets go of the mutex: the victim runs */
	stream__wakeup(&efx.s, 0, T(53), &rt_victim, WAITING | GRANTED, worker, 1, NULL);
	stream__switch(&efx.s, 1, T(53.5), NULL, 0, false, &rt_victim, WAITING | GRANTED);
	vend.granted = T(53);
	vend.flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED;
	stream__wait_end(&efx.s, 1, T(54), &rt_victim, &mutex, &vend);
}

static void assert_hop(const struct ls_stall *st, unsigned int i, enum ls_role role, __u32 tid)
{
	cr_assert_lt(i, st->n_chain, "hop %u missing (%u hops)", i, st->n_chain);
	cr_assert_eq(st->chain[i].role, role, "hop %u: role %s", i, ls_role_name(st->chain[i].role));
	cr_assert_eq(st->chain[i].task.tid, tid, "hop %u: tid %u", i, st->chain[i].task.tid);
}

/* The scenario with a worker of 46 ms on the mmap_lock, through a sink that new makes: its text. */
static char *output_of(struct sink *(*new)(FILE *, const struct sink_opts *))
{
	static const struct ls_task worker = FX_NORMAL(101, 100, 0, "worker");
	const struct sink_opts opts = { .top = 10, .t0_ns = T(0) };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct engine *e;
	struct sink *s;

	mutex_then_mmap_lock(&worker, 46, false);
	s = new(f, &opts);
	e = engine__new(&efx.opts, s);
	cr_assert_eq(stream__feed(&efx.s, e), 0);
	cr_assert_eq(engine__finish(e), 0);
	engine__free(e);
	sink__free(s);
	fclose(f);
	return text;
}

/*
 * The worker matters less than the victim, or more (SCHED_FIFO 50): either
 * way the root is the SCHED_IDLE reader the hog preempted, so a priority
 * inversion, never "holder off CPU".
 */
ParameterizedTestParameters(hops, mutex_holder_waited_on_mmap_lock)
{
	static struct ls_task workers[] = {
		FX_NORMAL(101, 100, 0, "worker"),
		FX_TASK(101, 100, LS_POLICY_FIFO, 0, 50, 49, "worker"),
	};

	return cr_make_param_array(struct ls_task, workers, 2);
}

ParameterizedTest(struct ls_task *worker, hops, mutex_holder_waited_on_mmap_lock)
{
	const struct ls_stall *own, *st;
	const struct ls_holder *h;

	mutex_then_mmap_lock(worker, 46, false);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);

	/* the worker's own wait, reported first: agent preempted by the hog */
	own = fixture__stall(0);
	cr_assert_eq(own->waiter.tid, 101);
	cr_assert_eq(own->lock.kind, LS_LOCK_MMAP);
	cr_assert_eq(own->seq, 1);

	st = fixture__stall(1);
	cr_assert_eq(st->waiter.tid, 102);
	cr_assert_eq(st->lock.kind, LS_LOCK_FUTEX);
	cr_assert_eq(st->n_holders, 1);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 101);
	cr_assert_eq(h->state, LS_STATE_BLOCKED);
	/* its time asleep, by what it waited for */
	cr_assert_eq(h->n_waited, 1);
	cr_assert_eq(h->waited[0].lock.id, efx.mm.id);
	cr_assert_eq(h->waited[0].ns, MS(46));
	cr_assert_eq(h->waited[0].stall_seq, 1);
	cr_assert_eq(h->waited[0].holder.tid, reader.tid);
	cr_assert_eq(h->waited[0].holder_state, LS_STATE_PREEMPTED);

	/* victim <- worker <- agent (of app's mmap_lock, STALL #1) <- hog */
	cr_assert_eq(st->n_chain, 4);
	assert_hop(st, 0, LS_ROLE_WAITER, 102);
	assert_hop(st, 1, LS_ROLE_HOLDER, 101);
	assert_hop(st, 2, LS_ROLE_HOLDER, reader.tid);
	cr_assert(st->chain[2].has_lock);
	cr_assert_eq(st->chain[2].lock.id, efx.mm.id);
	cr_assert_eq(st->chain[2].lock.kind, LS_LOCK_MMAP);
	cr_assert_eq(st->chain[2].stall_seq, 1);
	cr_assert_eq(st->chain[2].wait_ns, MS(46));
	assert_hop(st, 3, LS_ROLE_PREEMPTOR, efx.hog.tid);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
	cr_assert_str_eq(st->advice, own->advice);
	cr_assert(strstr(st->advice, "waited for a CPU"), "advice: %s", st->advice);
}

/*
 * The worker's wait on the mmap_lock began before the victim's: the
 * victim's OWNER record finds it asleep, a spell opened as a mere waiter's.
 * From then on that spell is one of holding the mutex: blocked, not
 * "running", and the chain goes on through the worker's stall.
 */
Test(hops, holder_asleep_on_the_second_lock_before_the_wait)
{
	static const struct ls_task worker = FX_NORMAL(101, 100, 0, "worker");
	const struct ls_stall *st;

	mutex_then_mmap_lock(&worker, 49.5, false);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);
	st = fixture__stall(1);
	cr_assert_eq(st->waiter.tid, 102);
	cr_assert_eq(st->holders[0].state, LS_STATE_BLOCKED);
	cr_assert_eq(st->holders[0].offcpu_by_state[LS_STATE_BLOCKED], MS(49));
	cr_assert_eq(st->n_chain, 4);
	cr_assert_eq(st->chain[2].task.tid, reader.tid);
	cr_assert_eq(st->chain[2].stall_seq, 1);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
}

/*
 * A wait below the threshold made no stall: nothing says who held that
 * lock, so the chain stops at the worker (or its waker), no hop made up.
 */
Test(hops, short_wait_makes_no_hop)
{
	static const struct ls_task worker = FX_NORMAL(101, 100, 0, "worker");
	const struct ls_stall *st;
	unsigned int i;

	efx.opts.threshold_ns = MS(47);
	mutex_then_mmap_lock(&worker, 46, false);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 1);
	st = fixture__stall(0);
	cr_assert_eq(st->waiter.tid, 102);
	cr_assert_eq(st->holders[0].n_waited, 0);
	for (i = 0; i < st->n_chain; i++)
		cr_assert_eq(st->chain[i].stall_seq, 0);
	cr_assert_neq(st->chain[st->n_chain - 1].role, LS_ROLE_PREEMPTOR);
}

/*
 * A short wait on the second lock in a long sleep on something else does
 * not explain the sleep: it is among what the worker waited for, but the
 * chain does not go through it.
 */
Test(hops, short_wait_in_a_long_sleep_is_no_hop)
{
	static const struct ls_task worker = FX_NORMAL(101, 100, 0, "worker");
	const struct ls_stall *st;
	unsigned int i;

	mutex_then_mmap_lock(&worker, 11, true);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 2);
	st = fixture__stall(1);
	cr_assert_eq(st->holders[0].state, LS_STATE_BLOCKED);
	cr_assert_eq(st->holders[0].n_waited, 1);
	cr_assert_eq(st->holders[0].waited[0].ns, MS(11));
	cr_assert_eq(st->holders[0].waited[0].stall_seq, 1);
	for (i = 0; i < st->n_chain; i++)
		cr_assert_eq(st->chain[i].stall_seq, 0, "hop %u", i);
}

/*
 * The worker, inside the mutex, waits three times on the mmap_lock, as a
 * reader of smaps_rollup that lets go of a contended lock does: each wait
 * 12 ms until granted, agent holding it each time and the hog keeping
 * agent off CPU.
 * Wait k: agent takes the lock at A, the hog preempts it at A + 0.5; the
 * worker waits from S = 4 + 16k; agent runs at R - 0.5 and lets go at
 * R = 16 + 16k, granting the worker, which runs at R + 0.3 and ends its
 * wait at R + 1.  No wait is half the worker's sleep; the three are.
 */
static void mutex_then_three_mmap_waits(const struct ls_task *worker)
{
	struct ls_lock_id mutex = stream__mm(0x55d0c0de2000ULL, 100, "app");
	struct stream_owner o = { .waiter = &rt_victim, .owner = worker, .start = T(2),
				  .owner_cpu = 0, .state = LS_OWNER_RUNNING,
				  .how = LS_OWNER_PTHREAD };
	struct stream_lock vw = { .start = T(3), .write = true, .owner_how = LS_OWNER_PTHREAD,
				  .owner_tid = worker->tid };
	struct stream_lock vend = vw;
	unsigned int k;

	mutex.kind = LS_LOCK_FUTEX;
	stream__mark(&efx.s, T(0), LS_MARK_BEGIN, LS_FEAT_FUTEX | LS_FEAT_CAUSES);
	for (k = 0; k < 3; k++) {
		double a = k ? 16 * k + 1.5 : 1, w0 = 4 + 16 * k, r = 16 + 16 * k;
		struct stream_lock hold = { .start = T(a), .acquired = T(a),
					    .offcpu = MS(r - 0.5 - (a + 0.5)) };
		struct stream_lock mw = { .start = T(w0), .write = true, .op = stream__syscall(9) };
		struct stream_lock mend = mw;

		stream__switch(&efx.s, 2, T(a + 0.5), &reader, HOLDING, true, &efx.hog, 0);
		if (!k) {
			stream__owner(&efx.s, 1, T(2), &mutex, &o);
			stream__wait_begin(&efx.s, 1, T(3), &rt_victim, &mutex, &vw);
			stream__switch(&efx.s, 1, T(3), &rt_victim, WAITING, false, NULL, 0);
		}
		stream__wait_begin(&efx.s, 0, T(w0), worker, &efx.mm, &mw);
		stream__switch(&efx.s, 0, T(w0), worker, WAITING | OWNER, false, NULL, 0);
		stream__switch(&efx.s, 2, T(r - 0.5), &efx.hog, 0, true, &reader, HOLDING);
		stream__hold(&efx.s, 2, T(r), &reader, &efx.mm, &hold);
		stream__wakeup(&efx.s, 2, T(r), worker, WAITING | GRANTED | OWNER, &reader, 0, NULL);
		stream__switch(&efx.s, 0, T(r + 0.3), NULL, 0, false, worker,
			       WAITING | GRANTED | OWNER);
		mend.granted = T(r);
		mend.flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED;
		stream__wait_end(&efx.s, 0, T(r + 1), worker, &efx.mm, &mend);
	}
	/* worker lets go of the mutex: the victim runs */
	stream__wakeup(&efx.s, 0, T(49), &rt_victim, WAITING | GRANTED, worker, 1, NULL);
	stream__switch(&efx.s, 1, T(49.5), NULL, 0, false, &rt_victim, WAITING | GRANTED);
	vend.granted = T(49);
	vend.flags = LS_LOCK_F_BEGIN_SENT | LS_LOCK_F_GRANTED;
	stream__wait_end(&efx.s, 1, T(50), &rt_victim, &mutex, &vend);
}

/* The three waits on one lock together are why the worker slept: the chain goes through them. */
Test(hops, waits_again_on_the_same_lock_make_one_hop)
{
	static const struct ls_task worker = FX_NORMAL(101, 100, 0, "worker");
	const struct ls_stall *st;
	const struct ls_holder *h;

	mutex_then_three_mmap_waits(&worker);
	cr_assert_eq(fixture__run(), 0);
	cr_assert_eq(efx.cs->n_stalls, 4);
	st = fixture__stall(3);
	cr_assert_eq(st->waiter.tid, 102);
	h = &st->holders[0];
	cr_assert_eq(h->task.tid, 101);
	cr_assert_eq(h->state, LS_STATE_BLOCKED);
	cr_assert_eq(h->n_waited, 3);
	cr_assert_lt(h->waited[0].ns * 2, h->offcpu_by_state[LS_STATE_BLOCKED],
		     "one wait alone would explain the sleep: the test shows nothing");

	/* victim <- worker <- agent (of app's mmap_lock) <- hog */
	cr_assert_eq(st->n_chain, 4);
	assert_hop(st, 1, LS_ROLE_HOLDER, 101);
	assert_hop(st, 2, LS_ROLE_HOLDER, reader.tid);
	cr_assert_eq(st->chain[2].lock.id, efx.mm.id);
	/* each wait until agent granted the lock: 12 ms */
	cr_assert_eq(st->chain[2].wait_ns, 3 * MS(12));
	cr_assert_eq(st->chain[2].stall_seq, h->waited[0].stall_seq);
	assert_hop(st, 3, LS_ROLE_PREEMPTOR, efx.hog.tid);
	cr_assert_eq(st->verdict, LS_VERDICT_PRIORITY_INVERSION);
}

/* Read as a person reads it: the hop's lock, its wait and its stall, and what the worker waited for. */
Test(hops, text_names_the_hop)
{
	char *text = output_of(sink_text__new);

	cr_assert(strstr(text, "  chain    rt-victim/102 (waiter, write) <- worker/101 (holder, write) <- agent/301 (holder, of mmap_lock 0xffff888012340000 of app[100], waited 46ms, STALL #1) <- hog/200 (preemptor, 45ms)\n"),
		  "%s", text);
	cr_assert(strstr(text, "           waited   46ms for mmap_lock 0xffff888012340000 of app[100], held by agent[300/301] preempted (STALL #1)\n"),
		  "%s", text);
	free(text);
}

/* The same in JSON: the hop's stall and wait, the holder's waited_on. */
Test(hops, json_names_the_hop)
{
	char *text = output_of(sink_json__new), *second;
	json_t *line, *hop, *w;
	json_error_t err;

	second = strchr(text, '\n');
	cr_assert_not_null(second);
	line = json_loadb(second + 1, strcspn(second + 1, "\n"), 0, &err);
	cr_assert_not_null(line, "%s", err.text);
	hop = json_array_get(json_object_get(line, "chain"), 2);
	cr_assert_eq(json_integer_value(json_object_get(hop, "stall")), 1);
	cr_assert_eq(json_integer_value(json_object_get(hop, "wait_ns")), (json_int_t)MS(46));
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(hop, "lock"), "kind")),
			 "mmap_lock");
	w = json_array_get(json_object_get(json_array_get(json_object_get(line, "holders"), 0),
					   "waited_on"), 0);
	cr_assert_not_null(w, "%s", second + 1);
	cr_assert_eq(json_integer_value(json_object_get(w, "ns")), (json_int_t)MS(46));
	cr_assert_eq(json_integer_value(json_object_get(w, "stall")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(w, "verdict")), "priority_inversion");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(w, "holder"), "comm")),
			 "agent");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(w, "holder"), "state")),
			 "preempted");
	json_decref(line);
	free(text);
}

/* Perfetto: the worker's wait for the mmap_lock, the reader holding it, a flow between. */
Test(hops, perfetto_draws_the_hop)
{
	char *text = output_of(sink_perfetto__new);
	json_error_t err;
	json_t *doc;

	doc = json_loads(text, 0, &err);
	cr_assert_not_null(doc, "%s: %s", err.text, text);
	json_decref(doc);
	cr_assert(strstr(text, "\"waiting for mmap_lock (STALL #1)\""), "%s", text);
	cr_assert(strstr(text, "\"holding mmap_lock (preempted, STALL #1)\""), "%s", text);
	free(text);
}

/* Recorded, then reported: the same chain from the file, nothing read live. */
Test(hops, replay_gives_the_same_chain)
{
	static const struct ls_task worker = FX_NORMAL(101, 100, 0, "worker");
	char tmp[] = "/tmp/lockstall-hops-XXXXXX", path[64];
	char *argv[] = { "lockstall", "report", path, NULL };
	char *live = output_of(sink_text__new), *out = NULL, *err = NULL;
	const char *chain = strstr(live, "  chain    rt-victim/102");
	size_t out_len = 0, err_len = 0;
	struct ls_config cfg;
	FILE *o, *e;

	cr_assert_not_null(chain);
	cr_assert_not_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/hops.lst", tmp);
	stream__clear(&efx.s);
	mutex_then_mmap_lock(&worker, 46, false);
	cr_assert_eq(trace_fixture__write(path, &efx.s), 0);
	o = open_memstream(&out, &out_len);
	e = open_memstream(&err, &err_len);
	cr_assert_eq(cli__parse(3, argv, &cfg, e), 0);
	cr_assert_eq(cmd_report(&cfg, o, e), 0);
	fclose(o);
	fclose(e);
	cr_assert(strstr(out, "STALL #2"), "%s%s", out, err);
	cr_assert(!strncmp(strstr(out, "  chain    rt-victim/102"), chain, strcspn(chain, "\n") + 1),
		  "live:\n%s\nreport:\n%s", live, out);
	unlink(path);
	rmdir(tmp);
	free(live);
	free(out);
	free(err);
}
