// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fleet of real recordings: the demo's inversion (proc_reader) recorded
 * by `watch -o` on two "hosts" (lockstall in a UTS namespace of its own,
 * under another host name), then `report DIR` over both: one report that
 * names the workload's holder as the common culprit, on both hosts.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include "lib/e2e_watch.h"
#include "lib/tmpdir.h"

static struct e2e_watch w = E2E_WATCH_INIT;
static struct e2e_proc p = E2E_PROC_INIT;
static char dir[64];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "fleet-e2e");
}

static void teardown(void)
{
	e2e_watch__release(&w);
	e2e_proc__release(&p);
	tmpdir__remove(dir);
}

TestSuite(fleet, .init = setup, .fini = teardown, .timeout = 240);

/*
 * A lockstall that runs under another host name: unshare(1) and sh exec
 * it in turn, so it keeps the pid the test signals.
 */
static void wrapper(const char *bin, const char *host, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/lockstall-%s", dir, host);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\nexec unshare --uts sh -c 'hostname %s && exec \"$0\" \"$@\"' '%s' \"$@\"\n",
		host, bin);
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
}

/*
 * The comm of the holder the workload names, as watch saw it: the host's
 * own stalls (a kworker's mutex) may come first.
 */
static const char *workload_holder(void)
{
	json_int_t tid = e2e_int(w.truth, "holder_tid");
	const json_t *st, *h;
	size_t i, j;

	json_array_foreach(w.stalls, i, st) {
		json_array_foreach(e2e_array(st, "holders"), j, h) {
			if (e2e_int(h, "tid") == tid)
				return e2e_str(h, "comm");
		}
	}
	cr_assert_fail("no stall held by the workload's holder (tid %lld)", (long long)tid);
	return NULL;
}

Test(fleet, workloads_on_two_hosts_name_the_common_culprit)
{
	static const char *const hosts[] = { "fleet-a", "fleet-b" };
	const char *bin = e2e_require(true), *const wl_args[] = { NULL };
	char file[128], wrap[128], holder[64] = "", want[128];
	const char *const watch_args[] = { "-o", file, "--no-stacks", NULL };
	const char *const report[] = { "report", dir, NULL };
	char *real = strdup(bin);
	size_t i;

	cr_assert_not_null(real);
	for (i = 0; i < 2; i++) {
		wrapper(real, hosts[i], wrap, sizeof(wrap));
		snprintf(file, sizeof(file), "%s/%s.lst", dir, hosts[i]);
		setenv("LOCKSTALL_BIN", wrap, 1);
		e2e_watch__run_with(&w, "proc_reader", wl_args, watch_args);
		setenv("LOCKSTALL_BIN", real, 1);
		cr_assert_gt(json_array_size(w.stalls), 0, "no stall on %s: %s", hosts[i],
			     w.lockstall.err.data);
		if (!holder[0])
			snprintf(holder, sizeof(holder), "%s", workload_holder());
		e2e_watch__release(&w);
		unlink(wrap);
	}
	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: %s", p.err.data);
	cr_assert(strstr(p.out.data, "2 recordings of 2 hosts"), "%s", p.out.data);
	cr_assert(strstr(p.out.data, "\n  fleet-a ") && strstr(p.out.data, "\n  fleet-b "), "%s",
		  p.out.data);
	/* the reader that holds the lock stalls the victim on both hosts */
	snprintf(want, sizeof(want), "2 of 2  %s\n", holder);
	cr_assert(strstr(p.out.data, want), "want '%s' in:\n%s", want, p.out.data);
	free(real);
}
