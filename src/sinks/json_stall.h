/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The JSON sink's stall object, for others that embed stalls in their own
 * objects (SLO violations, src/slo.c): one writer, one contract.
 */
#ifndef LOCKSTALL_SINK_JSON_STALL_H
#define LOCKSTALL_SINK_JSON_STALL_H

#include <stdio.h>
#include "engine/engine.h"

/* {"type":"stall",...} exactly as the JSON sink prints it, without the newline. */
void sink_json__write_stall(FILE *f, const struct ls_stall *st);

#endif /* LOCKSTALL_SINK_JSON_STALL_H */
