// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/symbols/ksyms.c: kallsyms text (modules, aliases, unsorted lines,
 * zero addresses, garbage) to lookups, the extent rule that keeps an
 * address past the last symbol unknown, and the BPF frame skipping on a
 * stack as a tp_btf program captured it on 6.18.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "symbols/symbols.h"
#include "util.h"

/* Unsorted on purpose, with data symbols, aliases and a module. */
static const char kallsyms_text[] =
	"ffffffff82258a08 T __schedule\n"	/* real: 0xffffffff822583e0; shifted for the test */
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 t __pi__text\n"
	"ffffffff81000000 T srso_alias_untrain_ret\n"
	"ffffffff81000000 W weak_alias\n"
	"ffffffff81000040 t local_fn\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff82259350 T schedule\n"
	"ffffffff814cb000 T bpf_trace_run4\n"
	"ffffffff813a52b0 T __traceiter_sched_switch\n"
	"ffffffff813a5300 t __bpf_trace_sched_switch\n"
	"ffffffff8224d0d0 T do_syscall_64\n"
	"ffffffff82259500 T after_schedule\n"
	"ffffffffc0023a08 t bpf_prog_ae44d35154decf45_on_switch\t[bpf]\n"
	"ffffffffc0120000 t bpf_prog_0123456789abcdef_other\t[bpf]\n"
	"ffffffffc0201000 t ext4_fill_super\t[ext4]\n"
	"ffffffffc0201400 T ext4_iget\t[ext4]\n"
	"ffffffffc0300000 t xfs_thing\t[xfs]\n"
	"0000000000000000 A fixed_percpu_data\n"
	"\n"
	"garbage\n"
	"ffffffff81000100\n"
	"ffffffff81000100 T\n"
	"ffffffff81000100 TT bad_type\n"
	"zzzzffff81000100 T bad_addr\n"
	"ffffffff81000100 T bad_module\t[ext4\n"
	"ffffffff81000100 T bad_module2\t[]\n"
	"ffffffff81000100 T trailing junk\n"
	"1ffffffff81000100 T too_long_addr\n";

static struct ksyms *load(const char *text)
{
	struct ksyms *ks = NULL;
	int err = ksyms__parse(&ks, text, strlen(text));

	cr_assert_eq(err, 0, "ksyms__parse: %d", err);
	return ks;
}

Test(ksyms, counts_text_symbols_once_per_address)
{
	struct ksyms *ks = load(kallsyms_text);

	/* 0xffffffff81000000 (4 names), local_fn, __schedule, schedule, bpf_trace_run4,
	 * __traceiter_ and __bpf_trace_, do_syscall_64, after_schedule, 2 bpf progs,
	 * 2 ext4, xfs */
	cr_assert_eq(ksyms__count(ks), 14);
	ksyms__free(ks);
}

struct kfind_case {
	__u64 addr;
	int rc;
	char name[48];
	__u64 off;
	char module[16];
};

ParameterizedTestParameters(ksyms, find)
{
	static struct kfind_case cases[] = {
		/* of aliases, a global wins, then the fewest leading underscores */
		{ 0xffffffff81000000, 0, "srso_alias_untrain_ret", 0, "" },
		{ 0xffffffff8100003f, 0, "srso_alias_untrain_ret", 0x3f, "" },
		{ 0xffffffff81000040, 0, "local_fn", 0, "" },
		{ 0xffffffff82258a08 + 0x628, 0, "__schedule", 0x628, "" },
		{ 0xffffffff82259373, 0, "schedule", 0x23, "" },
		/* the core kernel's last symbol: KSYMS_TAIL_MAX, then unknown */
		{ 0xffffffff82259500 + KSYMS_TAIL_MAX - 1, 0, "after_schedule", KSYMS_TAIL_MAX - 1, "" },
		{ 0xffffffff82259500 + KSYMS_TAIL_MAX, -ENOENT, "", 0, "" },
		{ 0xffffffffc0023a3d, 0, "bpf_prog_ae44d35154decf45_on_switch", 0x35, "bpf" },
		/* BPF programs are not one module: an unloaded one between two is unknown */
		{ 0xffffffffc0023a08 + KSYMS_TAIL_MAX, -ENOENT, "", 0, "" },
		{ 0xffffffffc0120004, 0, "bpf_prog_0123456789abcdef_other", 4, "bpf" },
		{ 0xffffffffc0201010, 0, "ext4_fill_super", 0x10, "ext4" },
		{ 0xffffffffc02013ff, 0, "ext4_fill_super", 0x3ff, "ext4" },
		{ 0xffffffffc0201400, 0, "ext4_iget", 0, "ext4" },
		/* past a module's last symbol: not ext4_iget+0xfebff */
		{ 0xffffffffc0201400 + KSYMS_TAIL_MAX, -ENOENT, "", 0, "" },
		{ 0xffffffffc02ff000, -ENOENT, "", 0, "" },
		{ 0xffffffffc0300001, 0, "xfs_thing", 1, "xfs" },
		/* below everything */
		{ 0xffffffff80ffffff, -ENOENT, "", 0, "" },
		{ 0, -ENOENT, "", 0, "" },
		{ ~0ULL, -ENOENT, "", 0, "" },
	};

	return cr_make_param_array(struct kfind_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct kfind_case *c, ksyms, find)
{
	struct ksyms *ks = load(kallsyms_text);
	struct ls_sym sym;
	int rc = ksyms__find(ks, c->addr, &sym);

	cr_assert_eq(rc, c->rc, "%llx: rc %d", (unsigned long long)c->addr, rc);
	cr_assert_eq(sym.resolved, rc == 0);
	if (rc) {
		cr_assert_null(sym.name);
		cr_assert_eq(sym.status, LS_SYM_NO_SYMBOL);
	} else {
		cr_assert_str_eq(sym.name, c->name);
		cr_assert_eq(sym.off, c->off, "%llx: off %llx", (unsigned long long)c->addr,
			     (unsigned long long)sym.off);
		cr_assert_eq(sym.status, LS_SYM_OK);
		if (c->module[0])
			cr_assert_str_eq(sym.module, c->module);
		else
			cr_assert_null(sym.module);
	}
	ksyms__free(ks);
}

struct kparse_case {
	char text[128];
	int rc;
	size_t count;
};

ParameterizedTestParameters(ksyms, parse_errors)
{
	static struct kparse_case cases[] = {
		{ "", -ENOENT, 0 },
		{ "garbage\nmore garbage\n", -ENOENT, 0 },
		{ "ffffffff82000000 D only_data\n", -ENOENT, 0 },
		/* kptr_restrict: names, no addresses */
		{ "0000000000000000 T _stext\n0000000000000000 t local\n", -EPERM, 0 },
		/* a few zero addresses among real ones are dropped, not fatal */
		{ "0000000000000000 T zero\nffffffff81000000 T one\n", 0, 1 },
		{ "ffffffff81000000 T no_newline", 0, 1 },
		{ "ffffffff81000000 T crlf\r\n", -ENOENT, 0 },
		{ "FFFFFFFF81000000 T upper\n", 0, 1 },
	};

	return cr_make_param_array(struct kparse_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct kparse_case *c, ksyms, parse_errors)
{
	struct ksyms *ks = (struct ksyms *)1;
	int rc = ksyms__parse(&ks, c->text, strlen(c->text));

	cr_assert_eq(rc, c->rc, "'%s': rc %d", c->text, rc);
	if (rc) {
		cr_assert_null(ks);
		return;
	}
	cr_assert_eq(ksyms__count(ks), c->count);
	ksyms__free(ks);
}

Test(ksyms, nul_bytes_and_huge_names_are_garbage)
{
	char text[2048];
	struct ksyms *ks;
	size_t len;

	static const char head[] = "ffffffff81000000 T a\0b\nffffffff81000010 T ";

	len = sizeof(head) - 1;
	memcpy(text, head, len);
	memset(text + len, 'x', KSYMS_NAME_MAX + 1);
	len += KSYMS_NAME_MAX + 1;
	len += (size_t)snprintf(text + len, sizeof(text) - len, "\nffffffff81000020 T ok\n");
	cr_assert_eq(ksyms__parse(&ks, text, len), 0);
	cr_assert_eq(ksyms__count(ks), 1);
	ksyms__free(ks);
}

Test(ksyms, load_from_a_file)
{
	char path[] = "/tmp/ksyms-test-XXXXXX";
	struct ksyms *ks;
	struct ls_sym sym;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, kallsyms_text, strlen(kallsyms_text)), (ssize_t)strlen(kallsyms_text));
	close(fd);
	cr_assert_eq(ksyms__load(&ks, path), 0);
	unlink(path);
	cr_assert_eq(ksyms__find(ks, 0xffffffff82259373, &sym), 0);
	cr_assert_str_eq(sym.name, "schedule");
	ksyms__free(ks);
	cr_assert_eq(ksyms__load(&ks, "/nonexistent/kallsyms"), -ENOENT);
	cr_assert_null(ks);
}

/* text written to a temporary file, then probed */
static int probe_text(const char *text, size_t len)
{
	char path[] = "/tmp/ksyms-probe-XXXXXX";
	int fd = mkstemp(path), err;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	err = ksyms__probe(path);
	unlink(path);
	return err;
}

/*
 * kptr_restrict, or a reader without CAP_SYSLOG: the names are there, every
 * address reads 0.  The probe tells from the start of the file, which the
 * real one begins with thousands of per-CPU symbols.
 */
Test(ksyms, probe_tells_hidden_addresses)
{
	static const char hidden[] = "0000000000000000 A fixed_percpu_data\n"
				     "0000000000000000 T _stext\n"
				     "0000000000000000 T schedule\n"
				     "0000000000000000 t do_one_initcall\n";
	char *big;
	size_t i, n = 2 * KSYMS_PROBE_BYTES;

	cr_assert_eq(probe_text(hidden, strlen(hidden)), -EPERM);
	cr_assert_eq(probe_text(kallsyms_text, strlen(kallsyms_text)), 0);
	/* a line cut at the probe's end is not read as a symbol at a short address */
	big = malloc(n);
	cr_assert_not_null(big);
	for (i = 0; i + strlen(hidden) <= n; i += strlen(hidden))
		memcpy(big + i, hidden, strlen(hidden));
	cr_assert_eq(probe_text(big, i), -EPERM);
	free(big);
	cr_assert_eq(ksyms__probe("/nonexistent/kallsyms"), -ENOENT);
}

/* The stack a tp_btf/sched_switch program got from bpf_get_stack() on 6.18. */
static const __u64 tp_btf_stack[] = {
	0xffffffffc0023a3d,	/* bpf_prog_ae44d35154decf45_on_switch [bpf] */
	0xffffffff814cb01d,	/* bpf_trace_run4+0x1d */
	0xffffffff813a52f1,	/* __traceiter_sched_switch+0x41 */
	0xffffffff82259030,	/* __schedule+0x628 */
	0xffffffff82259373,	/* schedule+0x23 */
	0xffffffff8224d141,	/* do_syscall_64+0x71 */
};

Test(ksyms, skips_bpf_and_tracepoint_frames)
{
	struct ksyms *ks = load(kallsyms_text);
	struct ls_sym sym;
	size_t skip = ksyms__skip_bpf_frames(ks, tp_btf_stack, ARRAY_SIZE(tp_btf_stack));

	cr_assert_eq(skip, 3);
	cr_assert_eq(ksyms__find(ks, tp_btf_stack[skip], &sym), 0);
	cr_assert_str_eq(sym.name, "__schedule");
	cr_assert(ksyms__is_bpf_frame(ks, 0xffffffff813a5301));	/* __bpf_trace_sched_switch */
	cr_assert_not(ksyms__is_bpf_frame(ks, 0xffffffff82259373));
	cr_assert_not(ksyms__is_bpf_frame(ks, 0xdead));
	ksyms__free(ks);
}

Test(ksyms, skips_an_unloaded_program_above_the_tracepoint)
{
	/* the report's kallsyms no longer has the program: its frame is unknown */
	struct ksyms *ks = load("ffffffff814cb000 T bpf_trace_run4\n"
				"ffffffff813a52b0 T __traceiter_sched_switch\n"
				"ffffffff82258a08 T __schedule\n");

	cr_assert_eq(ksyms__skip_bpf_frames(ks, tp_btf_stack, ARRAY_SIZE(tp_btf_stack)), 3);
	ksyms__free(ks);
}

Test(ksyms, skips_a_sole_probe_called_directly)
{
	/* the tracepoint's only probe: its static call goes to __bpf_trace_<tp> */
	struct ksyms *ks = load(kallsyms_text);
	__u64 ips[] = { 0xffffffffc0023a3d, 0xffffffff814cb01d, 0xffffffff813a5310,
			0xffffffff82259030, 0xffffffff82259373 };

	cr_assert_eq(ksyms__skip_bpf_frames(ks, ips, ARRAY_SIZE(ips)), 3);
	ksyms__free(ks);
}

Test(ksyms, keeps_stacks_without_bpf_frames)
{
	struct ksyms *ks = load(kallsyms_text);
	/* unknown frames at the top, then a real one: nothing to skip */
	__u64 ips[] = { 0x1234, 0xffffffff82259373, 0xffffffff814cb01d };

	cr_assert_eq(ksyms__skip_bpf_frames(ks, ips + 1, 2), 0);
	cr_assert_eq(ksyms__skip_bpf_frames(ks, ips, 3), 0);
	cr_assert_eq(ksyms__skip_bpf_frames(ks, ips, 0), 0);
	/* all unknown: no BPF frame seen, nothing skipped */
	cr_assert_eq(ksyms__skip_bpf_frames(ks, ips, 1), 0);
	ksyms__free(ks);
}

Test(ksyms, real_kallsyms_when_readable)
{
	struct ksyms *ks;
	int err = ksyms__load(&ks, NULL);

	if (err == -EPERM || err == -EACCES || err == -ENOENT)
		cr_skip_test("/proc/kallsyms: %s", strerror(-err));
	cr_assert_eq(err, 0);
	cr_assert_gt(ksyms__count(ks), 1000);
	ksyms__free(ks);
}

/*
 * Static locks are data: found among d, D, b, B symbols only, each up to
 * the next, at most KSYMS_DATA_TAIL_MAX; text addresses are not data.
 */
Test(ksyms, find_data_names_static_locks)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff83a0c2e0 D cgroup_mutex\n"
		"ffffffff83a0c300 d event_mutex\n"
		"ffffffff83b00000 B init_mm\n"
		"ffffffff83c00000 b last_bss\n"
		"ffffffff83d00000 r some_rodata\n";
	struct ksyms *ks = load(text);
	struct ls_sym s;

	cr_assert_eq(ksyms__find_data(ks, 0xffffffff83a0c2e0ULL, &s), 0);
	cr_assert_str_eq(s.name, "cgroup_mutex");
	cr_assert_eq(s.off, 0);
	cr_assert_eq(ksyms__find_data(ks, 0xffffffff83a0c308ULL, &s), 0);
	cr_assert_str_eq(s.name, "event_mutex");
	cr_assert_eq(s.off, 8);
	/* a lock inside a static struct */
	cr_assert_eq(ksyms__find_data(ks, 0xffffffff83b00068ULL, &s), 0);
	cr_assert_str_eq(s.name, "init_mm");
	cr_assert_eq(s.off, 0x68);
	/* past the tail of the last: the heap is not last_bss+0x... */
	cr_assert_eq(ksyms__find_data(ks, 0xffffffff83c00000ULL + KSYMS_DATA_TAIL_MAX, &s),
		     -ENOENT);
	cr_assert_not(s.resolved);
	cr_assert_eq(ksyms__find_data(ks, 0xffff888106ca8780ULL, &s), -ENOENT);
	/* code and read-only data are not where locks live */
	cr_assert_eq(ksyms__find_data(ks, 0xffffffff81000000ULL, &s), -ENOENT);
	cr_assert_eq(ksyms__find_data(ks, 0xffffffff83d00000ULL, &s), -ENOENT);
	/* and data is never a frame's name */
	cr_assert_eq(ksyms__find(ks, 0xffffffff83a0c2e0ULL, &s), -ENOENT);
	cr_assert_eq(ksyms__count(ks), 1);
	ksyms__free(ks);
}
