// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* src/cli/: --backend, --btf and --task-state (watch, record). */
#include <string.h>
#include <criterion/criterion.h>
#include "cli/cli.h"
#include "lib/cli_fixture.h"
#include "util.h"

/* watch and record with "opt val": both must parse, into w and r. */
static void parse_watch_and_record(const char *opt, const char *val, struct ls_config *w,
				   struct ls_config *r)
{
	const char *const watch[] = { "watch", opt, val, NULL };
	const char *const record[] = { "record", "-o", "x.lst", opt, val, NULL };

	cr_assert_eq(cli_fixture__parse(w, watch), 0, "watch %s %s: %s", opt, val, cli_fixture_err);
	cr_assert_eq(cli_fixture__parse(r, record), 0, "record %s %s: %s", opt, val, cli_fixture_err);
}

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
	struct ls_config w, r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		parse_watch_and_record("--backend", names[i], &w, &r);
		cr_assert_eq(w.backend, want[i], "watch --backend %s", names[i]);
		cr_assert_eq(r.backend, want[i], "record --backend %s", names[i]);
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

Test(cli_backend, task_state)
{
	const char *const names[] = { "auto", "storage", "hash" };
	const __u8 want[] = { LS_TASK_STATE_AUTO, LS_TASK_STATE_STORAGE, LS_TASK_STATE_HASH };
	const char *const none[] = { "watch", NULL };
	struct ls_config w, r;
	size_t i;

	cr_assert_eq(cli_fixture__parse(&w, none), 0, "%s", cli_fixture_err);
	cr_assert_eq(w.task_state, LS_TASK_STATE_AUTO);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		parse_watch_and_record("--task-state", names[i], &w, &r);
		cr_assert_eq(w.task_state, want[i], "watch --task-state %s", names[i]);
		cr_assert_eq(r.task_state, want[i], "record --task-state %s", names[i]);
	}
}

/* A bad word is refused with the words it takes; report has neither option. */
Test(cli_backend, refused)
{
	static const struct {
		const char *bad, *says, *on_report, *unknown;
	} cases[] = {
		{ "--backend=ebpf",
		  "invalid backend 'ebpf' for --backend: expected auto, tracepoint, fentry or kprobe",
		  "--backend=fentry", "unknown option '--backend'" },
		{ "--task-state=lru",
		  "invalid task state 'lru' for --task-state: expected auto, storage or hash",
		  "--task-state=hash", "unknown option '--task-state'" },
	};
	struct ls_config cfg;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *const bad[] = { "watch", cases[i].bad, NULL };
		const char *const on_report[] = { "report", "r.lst", cases[i].on_report, NULL };

		cr_assert_eq(cli_fixture__parse(&cfg, bad), LS_EXIT_USAGE, "%s", cases[i].bad);
		cr_assert(strstr(cli_fixture_err, cases[i].says), "%s", cli_fixture_err);
		cr_assert_eq(cli_fixture__parse(&cfg, on_report), LS_EXIT_USAGE, "%s", cases[i].on_report);
		cr_assert(strstr(cli_fixture_err, cases[i].unknown), "%s", cli_fixture_err);
	}
}
