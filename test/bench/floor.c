// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * floor: attach bpf/floor.bpf.c (empty programs on lockstall's tracepoints)
 * and hold them until SIGINT or SIGTERM.  The benchmark's "floor" condition;
 * with --clock, its "clock" condition (the mmap_lock programs time each
 * wait and hold, and do nothing else).
 *
 * Prints "floor: attached N programs" on stderr once attached, so that
 * scripts/bench starts its workload only then, as it does for lockstall's
 * "tracing" line.  Exit status: 0 after a signal, 1 if loading failed,
 * 2 for a bad argument.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"

static volatile sig_atomic_t floor_stop;

static void floor_on_signal(int sig)
{
	floor_stop = 1;
}

static int floor_count_links(const struct floor_bpf *s)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, s->obj)
		n += bpf_program__autoload(p);
	return n;
}

/* Only the tracepoints this kernel has (its BTF's btf_trace_NAME), as lockstall. */
static int floor_select(struct floor_bpf *s)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct bpf_program *p;
	char name[128];
	const char *tp;
	int err;

	if (!btf) {
		err = -errno;
		fprintf(stderr, "floor: cannot read the kernel's BTF: %s\n", strerror(-err));
		return err;
	}
	bpf_object__for_each_program(p, s->obj) {
		tp = strchr(bpf_program__section_name(p), '/');
		snprintf(name, sizeof(name), "btf_trace_%s", tp ? tp + 1 : "");
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0)
			bpf_program__set_autoload(p, false);
	}
	btf__free(btf);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = floor_on_signal };
	struct floor_bpf *s;
	sigset_t block, old;
	int err, ret = 1;

	/* Block first: a signal between attach and sigsuspend must not be lost. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--clock"))) {
		fprintf(stderr, "usage: floor [--clock]\n");
		return 2;
	}
	s = floor_bpf__open();
	if (!s) {
		fprintf(stderr, "floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	s->rodata->clocked = argc == 2;
	err = floor_select(s);
	if (err)
		goto cleanup;
	err = floor_bpf__load(s);
	if (err) {
		fprintf(stderr, "floor: cannot load the BPF programs: %s\n", strerror(-err));
		goto cleanup;
	}
	err = floor_bpf__attach(s);
	if (err) {
		fprintf(stderr, "floor: cannot attach: %s\n", strerror(-err));
		goto cleanup;
	}
	fprintf(stderr, "floor: attached %d programs\n", floor_count_links(s));
	fflush(stderr);

	while (!floor_stop)
		sigsuspend(&old);
	ret = 0;
cleanup:
	floor_bpf__destroy(s);
	return ret;
}
