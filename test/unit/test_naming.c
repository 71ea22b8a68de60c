// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The naming queue (src/sinks/naming.c) with a fake namer that the test
 * holds at a gate: order, a full queue, intervals in their place, stalls
 * given up on at the end, and a drain.  No root, no files, no sleeps: the
 * worker is held and released through a condition variable.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "engine/sink.h"
#include "sinks/naming.h"

#define LONG_WAIT_NS (30 * 1000 * 1000 * 1000ULL)	/* a worker that is let go is done long before */

/* ---- the fake namer: names each stall "named", once the gate is open ---- */

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
	unsigned int named;
};

static void fake__name(void *ctx, const struct ls_stall *st, struct ls_stall *out,
		       struct ls_holder holders[LS_MAX_HOLDERS])
{
	struct gate *g = ctx;

	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	g->named++;
	pthread_mutex_unlock(&g->lock);
	*out = *st;
	out->lock_name = "named";
	out->holders = holders;
	out->n_holders = 0;
}

static const struct naming_ops fake_ops = { .name = fake__name };

static void gate__open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* ---- what the stage delivers: seq (0 for an interval) and named or not ---- */

#define GOT_MAX 64

struct got_sink {
	struct sink base;
	__u64 seq[GOT_MAX];
	bool named[GOT_MAX];
	unsigned int n, summaries;
	/* the last stall's waiter frames: how many, the first address, named, the note */
	unsigned int frames;
	__u64 frame0;
	bool frame_named;
	bool noted;
	__u64 unnamed;		/* the summary's stalls_unnamed */
};

static int got__stall(struct sink *s, const struct ls_stall *st)
{
	struct got_sink *g = (struct got_sink *)s;

	cr_assert_lt(g->n, GOT_MAX);
	g->seq[g->n] = st->seq;
	g->named[g->n++] = st->lock_name && !strcmp(st->lock_name, "named");
	if (st->waiter_frames) {
		g->frames = st->waiter_frames->n;
		g->frame0 = st->waiter_frames->n ? st->waiter_frames->v[0].addr : 0;
		g->frame_named = st->waiter_frames->n && st->waiter_frames->v[0].sym;
		g->noted = st->waiter_frames->note != NULL;
	}
	return 0;
}

static int got__interval(struct sink *s, const struct ls_hist_set *h)
{
	struct got_sink *g = (struct got_sink *)s;

	cr_assert_lt(g->n, GOT_MAX);
	cr_assert_eq(h->start_ns, 1000, "the interval's copy differs");
	g->seq[g->n] = 0;
	g->named[g->n++] = false;
	return 0;
}

static int got__summary(struct sink *s, const struct ls_summary *sum)
{
	struct got_sink *g = (struct got_sink *)s;

	g->summaries++;
	g->unnamed = sum->stalls_unnamed;
	return 0;
}

static void got__free(struct sink *s)
{
	(void)s;
}

static const struct sink_ops got_ops = {
	.name = "got",
	.stall = got__stall,
	.interval = got__interval,
	.summary = got__summary,
	.free = got__free,
};

/* ---- fixture ---------------------------------------------------------- */

static struct gate gate;
static struct got_sink got;
static struct naming *nq;
static struct sink *stage;

static void setup_queue(unsigned int queue, __u64 late_ns)
{
	struct naming_opts o = { .ops = &fake_ops, .ctx = &gate, .queue = queue, .late_ns = late_ns };

	nq = naming__new(&o);
	cr_assert_not_null(nq);
	stage = sink_naming__new(&got.base, nq);
	cr_assert_not_null(stage);
}

static void setup(void)
{
	memset(&gate, 0, sizeof(gate));
	pthread_mutex_init(&gate.lock, NULL);
	pthread_cond_init(&gate.cond, NULL);
	memset(&got, 0, sizeof(got));
	sink__init(&got.base, &got_ops, NULL, NULL);
	nq = NULL;
	stage = NULL;
}

static void teardown(void)
{
	gate__open(&gate);
	sink__free(stage);
	naming__free(nq);
}

TestSuite(naming, .init = setup, .fini = teardown);

static void stall(__u64 seq)
{
	struct ls_stall st = { .seq = seq, .start_ns = seq * 10, .end_ns = seq * 10 + 5 };

	cr_assert_eq(sink__stall(stage, &st), 0);
}

static void interval(void)
{
	struct ls_hist_entry e = { .key = { .tgid = 7 } };
	struct ls_hist_set h = { .v = &e, .n = 1, .alloc = 1, .start_ns = 1000, .end_ns = 2000 };

	cr_assert_eq(sink__interval(stage, &h), 0);
}

static void finish(void)
{
	struct ls_summary sum = { 0 };

	cr_assert_eq(sink__summary(stage, &sum), 0);
	cr_assert_eq(got.summaries, 1);
}

static void assert_seqs(const __u64 *want, const bool *named, unsigned int n)
{
	unsigned int i;

	cr_assert_eq(got.n, n, "%u delivered, %u expected", got.n, n);
	for (i = 0; i < n; i++) {
		cr_assert_eq(got.seq[i], want[i], "item %u: seq %llu, expected %llu", i,
			     (unsigned long long)got.seq[i], (unsigned long long)want[i]);
		cr_assert_eq(got.named[i], named[i], "item %u (seq %llu): named %d", i,
			     (unsigned long long)want[i], got.named[i]);
	}
}

Test(naming, named_in_the_order_found)
{
	static const __u64 want[] = { 1, 2, 3, 4, 5 };
	static const bool named[] = { true, true, true, true, true };
	__u64 i;

	setup_queue(0, LONG_WAIT_NS);
	for (i = 1; i <= 5; i++)
		stall(i);
	/* held at the gate: nothing can be delivered yet */
	cr_assert_eq(naming__deliver(nq, false, 0), 0);
	cr_assert_eq(got.n, 0);
	gate__open(&gate);
	finish();
	assert_seqs(want, named, 5);
	cr_assert_eq(got.unnamed, 0);
}

Test(naming, a_full_queue_delivers_unnamed_and_counts)
{
	static const __u64 want[] = { 1, 2, 3, 4, 5 };
	static const bool named[] = { true, true, false, false, false };
	struct naming_stats st;
	__u64 i;

	setup_queue(2, LONG_WAIT_NS);
	for (i = 1; i <= 5; i++)
		stall(i);
	gate__open(&gate);
	finish();
	assert_seqs(want, named, 5);
	naming__stats(nq, &st);
	cr_assert_eq(st.queue_full, 3);
	cr_assert_eq(st.named, 2);
	cr_assert_eq(st.max_waiting, 2);
	cr_assert_eq(got.unnamed, 3, "the summary says %llu unnamed", (unsigned long long)got.unnamed);
	cr_assert_eq(gate.named, 2, "the worker named %u", gate.named);
}

Test(naming, intervals_keep_their_place)
{
	static const __u64 want[] = { 1, 0, 2, 0 };
	static const bool named[] = { true, false, true, false };

	setup_queue(0, LONG_WAIT_NS);
	stall(1);
	interval();
	stall(2);
	gate__open(&gate);
	finish();
	/* with nothing queued, an interval goes straight through */
	interval();
	assert_seqs(want, named, 4);
}

Test(naming, the_end_gives_up_on_a_stuck_namer)
{
	static const __u64 want[] = { 1, 2, 3 };
	static const bool named[] = { false, false, false };
	struct naming_stats st;

	setup_queue(0, LONG_WAIT_NS);
	stall(1);
	stall(2);
	stall(3);
	/* the gate stays shut: the end waits briefly, then delivers all, unnamed, in order */
	cr_assert_eq(naming__deliver(nq, true, 1000 * 1000), 0);
	assert_seqs(want, named, 3);
	naming__stats(nq, &st);
	cr_assert_eq(st.late, 3);
	cr_assert_eq(st.named, 0);
	/* the worker, let go, drops the stall it was naming: nothing more comes */
	gate__open(&gate);
	cr_assert(naming__stop(nq, LONG_WAIT_NS));
	cr_assert_eq(naming__deliver(nq, true, 0), 0);
	cr_assert_eq(got.n, 3);
}

Test(naming, late_stalls_go_out_unnamed_while_running)
{
	static const __u64 want[] = { 1, 2 };
	static const bool named[] = { false, false };

	/* late at once: the record side never waits for the namer */
	setup_queue(0, 1);
	stall(1);
	stall(2);
	cr_assert_eq(naming__deliver(nq, false, 0), 0);
	assert_seqs(want, named, 2);
}

Test(naming, stop_with_nothing_queued)
{
	setup_queue(0, LONG_WAIT_NS);
	cr_assert(naming__stop(nq, LONG_WAIT_NS));
	cr_assert(naming__stop(nq, 0), "a stopped worker stops again");
	cr_assert_eq(naming__unnamed(nq), 0);
	cr_assert_eq(naming__unnamed(NULL), 0);
}

/* Unnamed: the waiter's frames are the record's addresses, with a note, and nothing named. */
Test(naming, unnamed_frames_are_the_records_addresses)
{
	struct ls_rec_stack *r = calloc(1, sizeof(*r) + 64);
	struct ls_stall st = { .seq = 2 };

	cr_assert_not_null(r);
	r->hdr.type = LS_REC_STACK;
	r->hdr.size = sizeof(*r) + 64;
	r->tgid = r->tid = 42;
	r->user_mode = LS_USTACK_FP;
	r->copy_len = 64;
	r->nr_kernel = 2;
	r->kernel[0] = 0xffffffff81000010ULL;
	r->kernel[1] = 0xffffffff81000020ULL;
	r->nr_user = 1;
	r->user[0] = 0x401000;
	st.waiter_stack = r;
	setup_queue(1, LONG_WAIT_NS);
	stall(1);
	/* the queue holds one: this one goes without names */
	cr_assert_eq(sink__stall(stage, &st), 0);
	free(r);
	gate__open(&gate);
	finish();
	cr_assert_eq(got.n, 2);
	cr_assert_eq(got.seq[1], 2);
	cr_assert_eq(got.frames, 3, "%u frames", got.frames);
	cr_assert_eq(got.frame0, 0xffffffff81000010ULL);
	cr_assert_not(got.frame_named);
	cr_assert(got.noted, "no note says why the frames have no names");
}
