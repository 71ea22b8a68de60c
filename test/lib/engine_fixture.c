// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The engine tests' common fixture and scenarios: see engine_fixture.h. */
#include <string.h>
#include <criterion/criterion.h>
#include "lib/engine_fixture.h"

struct engine_fixture efx;

void fixture__setup(void)
{
	static const struct ls_task holder = FX_NORMAL(101, 100, 0, "holder");
	static const struct ls_task waiter = FX_NORMAL(102, 100, 0, "waiter");
	static const struct ls_task hog = FX_NORMAL(200, 200, 0, "hog");

	memset(&efx, 0, sizeof(efx));
	stream__init(&efx.s);
	efx.cs = capture_sink__new();
	efx.opts.threshold_ns = MS(10);
	efx.mm = stream__mm(0xffff888012340000ULL, 100, "app");
	efx.holder = holder;
	efx.waiter = waiter;
	efx.hog = hog;
}

void fixture__setup_pending(void)
{
	fixture__setup();
	efx.opts.pending_after_ns = MS(1000);
	efx.opts.pending_every_ns = MS(2000);
}

void fixture__teardown(void)
{
	engine__free(efx.e);
	sink__free(&efx.cs->sink);
	stream__free(&efx.s);
	memset(&efx, 0, sizeof(efx));
}

struct engine *fixture__engine(void)
{
	if (!efx.e)
		efx.e = engine__new(&efx.opts, &efx.cs->sink);
	cr_assert_not_null(efx.e, "engine__new failed");
	return efx.e;
}

int fixture__run(void)
{
	struct engine *e = fixture__engine();
	int err = stream__feed(&efx.s, e);

	if (err)
		return err;
	return engine__finish(e);
}

const struct ls_stall *fixture__stall(size_t i)
{
	const struct ls_stall *st = capture_sink__stall(efx.cs, i);

	cr_assert_not_null(st, "stall %zu missing: %zu captured", i, efx.cs->n_stalls);
	return st;
}

void scenario__wait_begin(const struct ls_task *waiter, bool write, __u64 start)
{
	struct stream_lock w = { .start = start, .write = write };

	stream__wait_begin(&efx.s, 1, start + MS(1), waiter, &efx.mm, &w);
	stream__switch(&efx.s, 1, start + MS(1), waiter, LS_TASK_F_WAITING, false, NULL, 0);
}

void scenario__wait_end(const struct ls_task *waiter, bool write, __u64 start, __u64 end,
			const struct ls_task *waker)
{
	struct stream_lock w = { .start = start, .write = write, .flags = LS_LOCK_F_BEGIN_SENT };

	stream__wakeup(&efx.s, 0, end - MS(2), waiter, LS_TASK_F_WAITING, waker, 1, NULL);
	stream__switch(&efx.s, 1, end - MS(1), NULL, 0, false, waiter, LS_TASK_F_WAITING);
	stream__wait_end(&efx.s, 1, end, waiter, &efx.mm, &w);
}

void scenario__preempted_holder(const struct ls_task *holder, bool hold_write,
				const struct ls_task *waiter, bool wait_write,
				const struct ls_task *hog)
{
	struct stream_lock h = { .start = T(0), .acquired = T(0), .offcpu = MS(49),
				 .write = hold_write };

	stream__switch(&efx.s, 0, T(1), holder, LS_TASK_F_HOLDING, true, hog, 0);
	scenario__wait_begin(waiter, wait_write, T(2));
	stream__switch(&efx.s, 0, T(50), hog, 0, true, holder, LS_TASK_F_HOLDING);
	stream__hold(&efx.s, 0, T(51), holder, &efx.mm, &h);
	scenario__wait_end(waiter, wait_write, T(2), T(53), holder);
}
