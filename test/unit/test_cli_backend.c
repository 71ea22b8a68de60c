// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* src/cli.c: --backend, --btf and --task-state (watch, record). */
#include <string.h>
#include <criterion/criterion.h>
#include "cli.h"
#include "lib/cli_fixture.h"

Test(cli_backend, default_is_auto)
{
	const char *const watch[] = { "watch", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, watch), 0, "%s", cli_fixture_err);
	cr_assert_eq(cfg.backend, LS_BACKEND_AUTO);
	cr_assert_null(cfg.btf_path);
}

Test(cli_backend, each_name)
{
	const char *const names[] = { "auto", "tracepoint", "fentry", "kprobe" };
	const __u8 want[] = { LS_BACKEND_AUTO, LS_BACKEND_TRACEPOINT, LS_BACKEND_FENTRY,
			      LS_BACKEND_KPROBE };
	struct ls_config cfg;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *const watch[] = { "watch", "--backend", names[i], NULL };
		const char *const record[] = { "record", "-o", "x.lst", "--backend", names[i], NULL };

		cr_assert_eq(cli_fixture__parse(&cfg, watch), 0, "%s: %s", names[i], cli_fixture_err);
		cr_assert_eq(cfg.backend, want[i], "watch --backend %s", names[i]);
		cr_assert_eq(cli_fixture__parse(&cfg, record), 0, "%s: %s", names[i], cli_fixture_err);
		cr_assert_eq(cfg.backend, want[i], "record --backend %s", names[i]);
	}
}

Test(cli_backend, btf_file)
{
	const char *const watch[] = { "watch", "--btf=/tmp/vmlinux.btf", "--backend=kprobe", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, watch), 0, "%s", cli_fixture_err);
	cr_assert_str_eq(cfg.btf_path, "/tmp/vmlinux.btf");
	cr_assert_eq(cfg.backend, LS_BACKEND_KPROBE);
}

Test(cli_backend, refused)
{
	const char *const bad_name[] = { "watch", "--backend=ebpf", NULL };
	const char *const no_report[] = { "report", "r.lst", "--backend=fentry", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, bad_name), LS_EXIT_USAGE);
	cr_assert(strstr(cli_fixture_err,
			 "invalid backend 'ebpf' for --backend: expected auto, tracepoint, fentry or kprobe"),
		  "%s", cli_fixture_err);
	cr_assert_eq(cli_fixture__parse(&cfg, no_report), LS_EXIT_USAGE);
	cr_assert(strstr(cli_fixture_err, "unknown option '--backend'"), "%s", cli_fixture_err);
}

Test(cli_backend, task_state)
{
	const char *const names[] = { "auto", "storage", "hash" };
	const __u8 want[] = { LS_TASK_STATE_AUTO, LS_TASK_STATE_STORAGE, LS_TASK_STATE_HASH };
	const char *const none[] = { "watch", NULL };
	struct ls_config cfg;
	size_t i;

	cr_assert_eq(cli_fixture__parse(&cfg, none), 0, "%s", cli_fixture_err);
	cr_assert_eq(cfg.task_state, LS_TASK_STATE_AUTO);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *const watch[] = { "watch", "--task-state", names[i], NULL };
		const char *const record[] = { "record", "-o", "x.lst", "--task-state", names[i], NULL };

		cr_assert_eq(cli_fixture__parse(&cfg, watch), 0, "%s: %s", names[i], cli_fixture_err);
		cr_assert_eq(cfg.task_state, want[i], "watch --task-state %s", names[i]);
		cr_assert_eq(cli_fixture__parse(&cfg, record), 0, "%s: %s", names[i], cli_fixture_err);
		cr_assert_eq(cfg.task_state, want[i], "record --task-state %s", names[i]);
	}
}

Test(cli_backend, task_state_refused)
{
	const char *const bad_name[] = { "watch", "--task-state=lru", NULL };
	const char *const no_report[] = { "report", "r.lst", "--task-state=hash", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, bad_name), LS_EXIT_USAGE);
	cr_assert(strstr(cli_fixture_err,
			 "invalid task state 'lru' for --task-state: expected auto, storage or hash"),
		  "%s", cli_fixture_err);
	cr_assert_eq(cli_fixture__parse(&cfg, no_report), LS_EXIT_USAGE);
	cr_assert(strstr(cli_fixture_err, "unknown option '--task-state'"), "%s", cli_fixture_err);
}
