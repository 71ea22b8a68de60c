// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* See tmpdir.h. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "lib/tmpdir.h"

void tmpdir__make(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "/tmp/lockstall-%s-XXXXXX", name);
	cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
}

void tmpdir__remove(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}
