// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The hostile host (issue 14): processes that work against the tracer, and
 * an operator's input that is not what it should be.  Each test is one way
 * lockstall was frozen, fooled or made to lose data, run for real.  Needs
 * root and BPF for the tracing ones (see e2e_require()).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/e2e_watch.h"
#include "lib/tmpdir.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static struct e2e_proc p = E2E_PROC_INIT;
static char dir[64];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "e2e-hostile");
}

static void teardown(void)
{
	e2e_watch__release(&w);
	e2e_proc__release(&p);
	tmpdir__remove(dir);
}

TestSuite(hostile, .init = setup, .fini = teardown, .timeout = 120);

/*
 * The workload's executable is swapped with a FIFO and a symlink to it the
 * whole time it stalls: the symbolizer and the unwinder open it while it
 * is, and must neither block (a FIFO) nor follow the link.  A tracer that
 * blocks never stops on SIGINT (e2e_watch__run fails at its deadline).
 */
Test(hostile, executable_swapped_with_a_fifo)
{
	/* small and fast: short stalls, many, each with stacks to unwind */
	const char *const args[] = { "--swap-exe", "-d", "2", "-s", "64", NULL };
	const char *const watch_args[] = { "-t", "100us", NULL };

	e2e_watch__run_with(&w, "mprotect_fault", args, watch_args);
	cr_assert_gt(e2e_int(w.truth, "exe_swaps"), 0, "the workload swapped nothing");
	cr_assert_eq(e2e_proc__exit_code(&w.lockstall), 0, "stderr:\n%s", w.lockstall.err.data);
	cr_assert_gt(e2e_int(w.summary, "events"), 0);
	cr_assert_gt(json_array_size(w.stalls), 0, "no stall reported at all");
}
