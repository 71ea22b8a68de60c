// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/elf_edit.h"

void elf_edit__add_section(const char *path, const char *name, size_t size)
{
	char blob[PATH_MAX + 8], cmd[4 * PATH_MAX];
	FILE *f;

	snprintf(blob, sizeof(blob), "%s.blob", path);
	f = fopen(blob, "w");
	cr_assert_not_null(f, "%s", blob);
	cr_assert_eq(ftruncate(fileno(f), (off_t)size), 0);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "objcopy --add-section '%s=%s' '%s' && rm '%s'", name, blob, path,
		 blob);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}
