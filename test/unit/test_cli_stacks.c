// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* src/cli/: --user-stacks, --stack-copy, --stack-interval, --no-stacks and --folded. */
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "cli/cli.h"
#include "lib/cli_fixture.h"
#include "util.h"

Test(cli_stacks, defaults)
{
	const char *const watch[] = { "watch", NULL };
	const char *const record[] = { "record", "-o", "x.lst", NULL };
	struct ls_config cfg;

	cr_assert_eq(cli_fixture__parse(&cfg, watch), 0, "%s", cli_fixture_err);
	cr_assert(cfg.stacks);
	cr_assert_eq(cfg.ustack_mode, LS_USTACK_DWARF);
	cr_assert_eq(cfg.ustack_copy, LS_USTACK_COPY_DEFAULT);
	cr_assert_eq(cfg.stack_interval_ns, LS_STACK_INTERVAL_DEFAULT);
	cr_assert_eq(cfg.report_format, LS_FORMAT_TEXT);
	cr_assert_eq(cli_fixture__parse(&cfg, record), 0, "%s", cli_fixture_err);
	cr_assert(cfg.stacks);
	cr_assert_eq(cfg.ustack_mode, LS_USTACK_DWARF);
}

/* Inline strings: Criterion copies the parameters into its workers. */
struct good_case {
	char args[64];		/* split at spaces */
	bool stacks;
	__u8 mode;
	__u32 copy;
	enum ls_report_format format;
};

static struct good_case good[] = {
	{ "watch --user-stacks=fp", true, LS_USTACK_FP, LS_USTACK_COPY_DEFAULT, LS_FORMAT_TEXT },
	{ "watch --user-stacks none", true, LS_USTACK_NONE, LS_USTACK_COPY_DEFAULT, LS_FORMAT_TEXT },
	{ "record -o x --stack-copy 8K", true, LS_USTACK_DWARF, 8192, LS_FORMAT_TEXT },
	{ "watch --stack-copy=32768", true, LS_USTACK_DWARF, 32768, LS_FORMAT_TEXT },
	/* whole words: the record's padding rule */
	{ "watch --stack-copy=1001", true, LS_USTACK_DWARF, 1000, LS_FORMAT_TEXT },
	{ "watch --no-stacks", false, LS_USTACK_DWARF, LS_USTACK_COPY_DEFAULT, LS_FORMAT_TEXT },
	{ "watch --folded -d 5s", true, LS_USTACK_DWARF, LS_USTACK_COPY_DEFAULT, LS_FORMAT_FOLDED },
	{ "report r.lst --folded", true, LS_USTACK_DWARF, LS_USTACK_COPY_DEFAULT, LS_FORMAT_FOLDED },
	{ "report r.lst --format folded", true, LS_USTACK_DWARF, LS_USTACK_COPY_DEFAULT, LS_FORMAT_FOLDED },
};

ParameterizedTestParameters(cli_stacks, good)
{
	return cr_make_param_array(struct good_case, good, ARRAY_SIZE(good));
}

/* "a b c" -> { "a", "b", "c", NULL } in buf (overwritten) */
static void split(char *buf, const char *argv[16])
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(buf, " ", &save); tok && n < 15; tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n] = NULL;
}

/* Parse a case's command line (spaces between the words). */
static int parse(struct ls_config *cfg, const char *args)
{
	char buf[64];
	const char *argv[16];

	snprintf(buf, sizeof(buf), "%s", args);
	split(buf, argv);
	return cli_fixture__parse(cfg, argv);
}

ParameterizedTest(struct good_case *c, cli_stacks, good)
{
	struct ls_config cfg;

	cr_assert_eq(parse(&cfg, c->args), 0, "%s: %s", c->args, cli_fixture_err);
	cr_assert_eq(cfg.stacks, c->stacks, "%s", c->args);
	cr_assert_eq(cfg.ustack_mode, c->mode, "%s", c->args);
	cr_assert_eq(cfg.ustack_copy, c->copy, "%s", c->args);
	cr_assert_eq(cfg.report_format, c->format, "%s", c->args);
	cr_assert(!cfg.json);
}

/* --stack-interval: one stack per task, lock and op in that time; 0: every stall's. */
struct interval_case {
	char args[64];
	__u64 ns;
};

static struct interval_case intervals[] = {
	{ "watch --stack-interval=500ms", 500000000ULL },
	{ "watch --stack-interval 0", 0 },
	{ "record -o x --stack-interval=1s", 1000000000ULL },
	{ "watch --stack-interval=0.25", 250000000ULL },
};

ParameterizedTestParameters(cli_stacks, interval)
{
	return cr_make_param_array(struct interval_case, intervals, ARRAY_SIZE(intervals));
}

ParameterizedTest(struct interval_case *c, cli_stacks, interval)
{
	struct ls_config cfg;

	cr_assert_eq(parse(&cfg, c->args), 0, "%s: %s", c->args, cli_fixture_err);
	cr_assert_eq(cfg.stack_interval_ns, c->ns, "%s: %llu", c->args,
		     (unsigned long long)cfg.stack_interval_ns);
	cr_assert(cfg.stacks);
}

struct bad_case {
	char args[64];
	char want[80];
};

static struct bad_case bad[] = {
	{ "watch --user-stacks=lbr", "invalid value 'lbr' for --user-stacks: expected none, fp or dwarf" },
	{ "watch --stack-copy=100", "invalid size '100' for --stack-copy" },
	{ "watch --stack-copy=64K", "invalid size '64K' for --stack-copy" },
	{ "watch --stack-copy=lots", "invalid size 'lots'" },
	{ "watch --stack-copy=-1", "invalid size '-1'" },
	{ "watch --stack-interval=2s", "invalid duration '2s' for --stack-interval: expected 0 to 1s" },
	{ "watch --stack-interval=often", "invalid duration 'often' for --stack-interval" },
	{ "record -o x --stack-interval=0 --no-stacks", "--stack-interval go without --no-stacks" },
	{ "watch --no-stacks --user-stacks=fp", "go without --no-stacks" },
	{ "record -o x --stack-copy=4K --no-stacks", "go without --no-stacks" },
	{ "watch --folded --json", "--folded and --json: choose one output" },
	{ "watch --json --folded", "--folded and --json: choose one output" },
	{ "report r.lst --format html --folded", "--folded and --format" },
	{ "record -o x --folded", "unknown option '--folded'" },
	{ "report r.lst --user-stacks=fp", "unknown option '--user-stacks'" },
};

ParameterizedTestParameters(cli_stacks, bad)
{
	return cr_make_param_array(struct bad_case, bad, ARRAY_SIZE(bad));
}

ParameterizedTest(struct bad_case *c, cli_stacks, bad)
{
	struct ls_config cfg;

	cr_assert_eq(parse(&cfg, c->args), LS_EXIT_USAGE, "%s", c->args);
	cr_assert(strstr(cli_fixture_err, c->want), "want '%s' in: %s", c->want, cli_fixture_err);
}

struct size_case {
	char s[24];
	int rc;
	__u64 v;
};

static struct size_case sizes[] = {
	{ "0", 0, 0 }, { "16384", 0, 16384 }, { "16K", 0, 16384 }, { "16KiB", 0, 16384 },
	{ "2M", 0, 2 << 20 }, { "1G", 0, 1 << 30 }, { "7B", 0, 7 },
	{ "", -22, 0 }, { "K", -22, 0 }, { "1.5K", -22, 0 }, { "16 K", -22, 0 }, { "-1", -22, 0 },
	{ "16Kb", -22, 0 }, { "99999999999999999999", -22, 0 }, { "17179869184G", -22, 0 },
};

ParameterizedTestParameters(cli_stacks, parse_size)
{
	return cr_make_param_array(struct size_case, sizes, ARRAY_SIZE(sizes));
}

ParameterizedTest(struct size_case *c, cli_stacks, parse_size)
{
	__u64 v = 12345;
	int rc = ls_parse_size(c->s, &v);

	cr_assert_eq(rc, c->rc, "'%s': %d", c->s, rc);
	if (!rc)
		cr_assert_eq(v, c->v, "'%s': %llu", c->s, (unsigned long long)v);
}
