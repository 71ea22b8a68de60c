/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What `lockstall report` of one recording (cmd_report.c) shares with the
 * report of many (cmd_report_fleet.c): each recording of a fleet is read
 * with the options, metadata and cgroup paths one report would use.
 */
#ifndef LOCKSTALL_CMD_REPORT_H
#define LOCKSTALL_CMD_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "cli/cli.h"
#include "session.h"

struct trace_reader;
struct cgroups;

/* A number from the metadata: absent or malformed leaves *out alone. */
void report__meta_u64(struct trace_reader *r, const char *key, __u64 max, __u64 *out);
/*
 * The options the recording was made with, unless given again (threshold,
 * -p, --top), and --from/--to for it: into so.  0 or an exit code, after
 * one line on err.
 */
int report__options(struct trace_reader *r, const struct ls_config *cfg, struct session_opts *so,
		    FILE *err);
/* A metadata entry into cg if it is a cgroup's path ("cgroup.ID=PATH"). */
void report__cgroups_meta(struct cgroups *cg, const char *key, const char *val, size_t len);
/* -o: *res the file made (out without -o).  0 or a negative errno, said on err. */
int report__open_output(const struct ls_config *cfg, FILE *out, FILE *err, FILE **res);

/* Many files, a directory or --host: the fleet report (cmd_report_fleet.c). */
bool report__is_fleet(const struct ls_config *cfg);
int cmd_report_fleet(const struct ls_config *cfg, FILE *out, FILE *err);

#endif /* LOCKSTALL_CMD_REPORT_H */
