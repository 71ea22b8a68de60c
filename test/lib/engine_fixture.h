/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine tests' common ground: one stream, one capture sink, one engine
 * per test (Criterion runs each test in its own process), a cast of tasks,
 * and the scripted scenarios more than one suite replays.
 *
 * Times: T(ms) is an absolute record time (a base plus ms milliseconds),
 * MS(ms) a duration.  The default threshold is 10 ms.
 */
#ifndef LOCKSTALL_TEST_ENGINE_FIXTURE_H
#define LOCKSTALL_TEST_ENGINE_FIXTURE_H

#include "engine/engine.h"
#include "lib/capture_sink.h"
#include "lib/stream.h"

#define FX_BASE_NS	1000000000ULL
#define MS(x)		((__u64)((x) * 1000000.0 + 0.5))
#define T(x)		(FX_BASE_NS + MS(x))

/* A static struct ls_task; prio as the kernel would report it. */
#define FX_TASK(tid_, tgid_, policy_, nice_, rt_, prio_, comm_) {	\
	.tid = (tid_), .tgid = (tgid_), .prio = (prio_), .policy = (policy_),	\
	.nice = (nice_), .rt_prio = (rt_), .comm = comm_ }

#define FX_NORMAL(tid_, tgid_, nice_, comm_) \
	FX_TASK(tid_, tgid_, LS_POLICY_NORMAL, nice_, 0, 120 + (nice_), comm_)

struct engine_fixture {
	struct stream s;
	struct capture_sink *cs;
	struct engine *e;	/* made by fixture__engine() with opts */
	struct engine_opts opts;
	struct ls_lock_id mm;	/* the process whose lock everyone wants */
	struct ls_task holder;	/* tid 101, tgid 100, normal nice 0 */
	struct ls_task waiter;	/* tid 102, tgid 100, normal nice 0 */
	struct ls_task hog;	/* tid 200, tgid 200, normal nice 0 */
};

extern struct engine_fixture efx;

/* Criterion .init / .fini */
void fixture__setup(void);
/* fixture__setup(), with waits reported in progress after 1 s, then every 2 s */
void fixture__setup_pending(void);
void fixture__teardown(void);
/* The engine, made on first use with efx.opts. */
struct engine *fixture__engine(void);
/* Feed efx.s, then engine__finish: 0 or the first negative return. */
int fixture__run(void);
/* The i-th captured stall (asserts it exists). */
const struct ls_stall *fixture__stall(size_t i);

/*
 * The classic inversion on efx.mm:
 *	T(1)	holder, holding since T(0), preempted on CPU 0 by hog
 *	T(2)	waiter starts waiting; off CPU on CPU 1 at T(3)
 *	T(50)	hog switches back to holder; holder releases at T(51)
 *	T(51)	waiter woken (waker holder), runs at T(52), acquires at T(53)
 * Wait 51 ms; holder overlaps 49 ms of it, 48 ms of them preempted by hog.
 */
void scenario__preempted_holder(const struct ls_task *holder, bool hold_write,
				const struct ls_task *waiter, bool wait_write,
				const struct ls_task *hog);

/*
 * A waiter on efx.mm from start to end, on CPU 1, in two halves so other
 * records can go between in time order: it goes off CPU 1 ms after start;
 * it is woken 2 ms before end (by waker, NULL: tid 0) and runs 1 ms
 * before end.
 */
void scenario__wait_begin(const struct ls_task *waiter, bool write, __u64 start);
void scenario__wait_end(const struct ls_task *waiter, bool write, __u64 start, __u64 end,
			const struct ls_task *waker);

#endif /* LOCKSTALL_TEST_ENGINE_FIXTURE_H */
