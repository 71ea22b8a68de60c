/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the trace file's writer (trace_writer.c) and reader
 * (trace_reader.c) share from trace_file.c; nothing else includes it.
 */
#ifndef LOCKSTALL_RECORD_TRACE_INTERNAL_H
#define LOCKSTALL_RECORD_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* "lockstall: " and the message, a line on err; nothing if err is NULL. */
void say(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* *buf grown to hold need bytes (doubling, from 4 KiB); -ENOMEM. */
int buf__reserve(unsigned char **buf, size_t *alloc, size_t need);
/* A metadata key: 1 to 64 of [a-z0-9_.]. */
bool meta__key_ok(const char *k, size_t len);

#endif /* LOCKSTALL_RECORD_TRACE_INTERNAL_H */
