/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A temporary directory per test: made fresh, removed with what it holds. */
#ifndef LOCKSTALL_TEST_TMPDIR_H
#define LOCKSTALL_TEST_TMPDIR_H

#include <stddef.h>

/* /tmp/lockstall-NAME-XXXXXX, made (the test fails if it cannot be), into dir. */
void tmpdir__make(char *dir, size_t len, const char *name);
/* Remove the files of dir (not subdirectories), then dir. */
void tmpdir__remove(const char *dir);

#endif /* LOCKSTALL_TEST_TMPDIR_H */
