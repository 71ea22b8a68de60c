// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: any bytes as a rules file (lines split on '\n', NULs
 * kept), then the rules that parse judge a few synthetic stalls and their
 * violations are written as JSON and text.  It must never crash, hang or
 * print an error that is not one line of printable ASCII.
 *
 *	make fuzz-rules       a few minutes
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alert/slo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *null;

static int on_violation(void *ctx, const struct slo_violation *v)
{
	slo_violation__write_json(null, v);
	slo_violation__write_text(null, v);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slo_rules rules = { 0 };
	struct ls_holder h = { .task = { .tid = 21, .tgid = 20, .comm = "reader" },
			       .cgroup_id = 7, .cgroup = "/system.slice/backup.service" };
	/* the waiter's cgroup as the resolver gives it, or unknown (NULL) */
	static const char *const cgroups[] = { "/a/b/c", "/", NULL, "/system.slice/db\\x20x.service",
					       "/a/bc" };
	struct ls_stall st = { 0 };
	char err[SLO_ERR_LEN];
	const char *p = (const char *)data, *end = p + size;
	struct slo *slo;
	int i;

	if (!null)
		null = fopen("/dev/null", "w");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *c;

		if (slo_rules__parse_line(&rules, p, len, "fuzz", err, sizeof(err))) {
			for (c = err; *c; c++) {
				if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
					abort();
			}
		}
		p += len + 1;
	}
	slo = slo__new(&rules, on_violation, NULL);
	if (!slo) {
		slo_rules__free(&rules);
		return 0;
	}
	memcpy(st.waiter.comm, size ? "\x1b[2J\xff" : "victim", 6);
	st.waiter.tid = 11;
	st.waiter.tgid = 10;
	st.holders = &h;
	st.n_holders = 1;
	st.chain[0] = (struct ls_hop){ .task = st.waiter, .role = LS_ROLE_WAITER };
	st.chain[1] = (struct ls_hop){ .task = h.task, .role = LS_ROLE_HOLDER };
	st.n_chain = 2;
	for (i = 0; i < 64; i++) {
		st.seq = (__u64)i + 1;
		st.end_ns = 1000000000ULL + (__u64)i * 37000000ULL;
		st.lock_wait_ns = st.wait_ns = (__u64)(i % 7) * 9000000ULL;
		st.verdict = (enum ls_verdict)(i % LS_VERDICT_N);
		st.waiter.policy = (__u8)(i % 7);
		st.waiter_cgroup = cgroups[i % 5];
		st.waiter_cgroup_id = st.waiter_cgroup ? (__u64)(i % 5) + 1 : 0;
		slo__on_stall(slo, &st);
	}
	slo__free(slo);
	return 0;
}
