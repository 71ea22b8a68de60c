/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The JSON sink's stall object, for others that embed stalls in their own
 * objects (SLO violations, src/alert/slo.c): one writer, one contract.
 */
#ifndef LOCKSTALL_SINK_JSON_STALL_H
#define LOCKSTALL_SINK_JSON_STALL_H

#include <stdio.h>
#include "engine/engine.h"

/*
 * {"type":"stall",...} ({"type":"pending",...} for st->pending) exactly as
 * the JSON sink prints it, without the newline.
 */
void sink_json__write_stall(FILE *f, const struct ls_stall *st);
/*
 * ,"cgroup_id":ID,"cgroup":PATH|null: a task's cgroup v2 (id 0: unknown,
 * path null: not resolved), as stalls show their waiter and holders.
 */
void sink_json__write_cgroup(FILE *f, __u64 id, const char *path);
/*
 * ,"comm_was":NAME or ,"comm_now":NAME: the other name of the task (or
 * lock process) tid that st names comm, where its name changed; else nothing.
 */
void sink_json__write_rename(FILE *f, const struct ls_stall *st, __u32 tid,
			     const char comm[LS_COMM_LEN]);

#endif /* LOCKSTALL_SINK_JSON_STALL_H */
