// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/symbols/proc_maps.c: /proc/<pid>/maps text, real and hostile, to
 * sorted mappings; lookups by address; this process's own maps.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "symbols/symbols.h"
#include "util.h"

static const char maps_text[] =
	"55d5c0a00000-55d5c0a02000 r--p 00000000 fe:01 1234                       /usr/bin/cat\n"
	"55d5c0a02000-55d5c0a06000 r-xp 00002000 fe:01 1234                       /usr/bin/cat\n"
	"55d5c1000000-55d5c1021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f0000000000-7f0000001000 rw-s 00000000 00:05 99                         /memfd:x (deleted)\n"
	"7f0000001000-7f0000002000 r-xp 00001000 103:02 4567                      /opt/my app/lib x.so\n"
	"7f0000003000-7f0000004000 rw-p 00000000 00:00 0 \n"
	"7f0000004000-7f0000005000 ---p 00000000 00:00 0\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffd000fe000-7ffd00100000 r-xp 00000000 00:00 0                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static struct proc_maps *parse(const char *text, size_t len)
{
	struct proc_maps *maps = NULL;
	int err = proc_maps__parse(&maps, text, len);

	cr_assert_eq(err, 0, "proc_maps__parse: %d", err);
	return maps;
}

Test(maps, parses_every_field)
{
	struct proc_maps *maps = parse(maps_text, strlen(maps_text));
	const struct proc_map *m;

	cr_assert_eq(maps->n, 10);
	cr_assert_eq(maps->dropped, 0);
	m = &maps->v[1];
	cr_assert_eq(m->start, 0x55d5c0a02000);
	cr_assert_eq(m->end, 0x55d5c0a06000);
	cr_assert_eq(m->pgoff, 0x2000);
	cr_assert_eq(m->dev_major, 0xfe);
	cr_assert_eq(m->dev_minor, 1);
	cr_assert_eq(m->inode, 1234);
	cr_assert_eq(m->perms, PROC_MAP_R | PROC_MAP_X);
	cr_assert_str_eq(m->path, "/usr/bin/cat");
	cr_assert(proc_map__is_file(m));
	cr_assert_not(m->deleted);
	cr_assert_eq(m->build_id_len, 0);

	m = &maps->v[3];
	cr_assert_str_eq(m->path, "/memfd:x");
	cr_assert(m->deleted);
	cr_assert_eq(m->perms, PROC_MAP_R | PROC_MAP_W | PROC_MAP_SHARED);
	cr_assert_str_eq(maps->v[4].path, "/opt/my app/lib x.so");
	cr_assert_eq(maps->v[4].dev_major, 0x103);
	cr_assert_str_eq(maps->v[2].path, "[heap]");
	cr_assert_not(proc_map__is_file(&maps->v[2]));
	cr_assert_str_eq(maps->v[5].path, "");
	cr_assert_str_eq(maps->v[6].path, "");
	cr_assert_eq(maps->v[6].perms, 0);
	cr_assert_str_eq(maps->v[8].path, "[vdso]");
	cr_assert_eq(maps->v[9].end, 0xffffffffff601000);
	proc_maps__free(maps);
}

struct find_case {
	__u64 addr;
	int idx;		/* -1: none */
};

ParameterizedTestParameters(maps, find)
{
	static struct find_case cases[] = {
		{ 0, -1 },
		{ 0x55d5c09fffff, -1 },
		{ 0x55d5c0a00000, 0 },
		{ 0x55d5c0a01fff, 0 },
		{ 0x55d5c0a02000, 1 },
		{ 0x55d5c0a05fff, 1 },
		{ 0x55d5c0a06000, -1 },
		{ 0x7f0000002000, -1 },		/* a hole between mappings */
		{ 0x7f0000003fff, 5 },
		{ 0x7ffd000ff000, 8 },
		{ 0xffffffffff600fff, 9 },
		{ ~0ULL, -1 },
	};

	return cr_make_param_array(struct find_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct find_case *c, maps, find)
{
	struct proc_maps *maps = parse(maps_text, strlen(maps_text));
	const struct proc_map *m = proc_maps__find(maps, c->addr);

	if (c->idx < 0)
		cr_assert_null(m, "%llx", (unsigned long long)c->addr);
	else
		cr_assert_eq(m, &maps->v[c->idx], "%llx", (unsigned long long)c->addr);
	proc_maps__free(maps);
}

/* One line each: does it parse (1) or is it dropped (0)? */
struct line_case {
	char line[96];
	int ok;
};

ParameterizedTestParameters(maps, hostile_lines)
{
	static struct line_case cases[] = {
		{ "1000-2000 r-xp 00000000 08:01 1 /bin/x", 1 },
		{ "1000-2000 r-xp 0 8:1 1 /bin/x", 1 },
		{ "1000-2000 r-xp 00000000 08:01 1", 1 },
		{ "1000-2000 r-xp 00000000 08:01 1\t\t/tabs", 1 },
		{ "2000-1000 r-xp 00000000 08:01 1 /bin/x", 0 },		/* end before start */
		{ "1000-1000 r-xp 00000000 08:01 1 /bin/x", 0 },		/* empty */
		{ "1000 2000 r-xp 00000000 08:01 1 /bin/x", 0 },
		{ "1000-2000 rwxq 00000000 08:01 1 /bin/x", 0 },
		{ "1000-2000 xwrp 00000000 08:01 1 /bin/x", 0 },
		{ "1000-2000 r-x 00000000 08:01 1 /bin/x", 0 },
		{ "1000-2000 r-xp 0000000g 08:01 1 /bin/x", 0 },
		{ "1000-2000 r-xp 00000000 0801 1 /bin/x", 0 },
		{ "1000-2000 r-xp 00000000 08:01 x /bin/x", 0 },
		{ "1000-2000 r-xp 00000000 08:01 1x /bin/x", 0 },
		{ "1000-2000 r-xp 00000000 08:01 99999999999999999999 /x", 0 },
		{ "1000-2000 r-xp 00000000 100000000:01 1 /bin/x", 0 },
		{ "11000000000000000-11000000000000001 r-xp 0 0:0 1 /x", 0 },
		{ "-2000 r-xp 00000000 08:01 1 /bin/x", 0 },
		{ "1000-2000", 0 },
		{ "1000-", 0 },
		{ "r-xp", 0 },
		{ " 1000-2000 r-xp 00000000 08:01 1 /bin/x", 0 },
		{ "", 0 },
	};

	return cr_make_param_array(struct line_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct line_case *c, maps, hostile_lines)
{
	struct proc_maps *maps = parse(c->line, strlen(c->line));

	cr_assert_eq(maps->n, (size_t)c->ok, "'%s'", c->line);
	cr_assert_eq(maps->dropped, (size_t)(!c->ok && c->line[0]), "'%s'", c->line);
	proc_maps__free(maps);
}

Test(maps, unsorted_and_overlapping_lines)
{
	static const char text[] =
		"5000-6000 r-xp 00000000 08:01 2 /b\n"
		"1000-2000 r-xp 00000000 08:01 1 /a\n"
		"1800-2800 r-xp 00000000 08:01 3 /overlap\n"
		"3000-4000 r-xp 00000000 08:01 4 /c\n"
		"3000-3800 r-xp 00000000 08:01 5 /same-start\n";
	struct proc_maps *maps = parse(text, sizeof(text) - 1);

	cr_assert_eq(maps->n, 3);
	cr_assert_eq(maps->dropped, 2);
	cr_assert_str_eq(maps->v[0].path, "/a");
	cr_assert_str_eq(maps->v[1].path, "/c");	/* the earlier line of one start wins */
	cr_assert_str_eq(maps->v[2].path, "/b");
	cr_assert_str_eq(proc_maps__find(maps, 0x1900)->path, "/a");
	proc_maps__free(maps);
}

Test(maps, nul_bytes_and_long_paths)
{
	char text[PROC_MAPS_PATH_MAX + 256];
	static const char first[] = "1000-2000 r-xp 00000000 08:01 1 /bin/a\0junk\n";
	static const char head[] = "3000-4000 r-xp 00000000 08:01 1 /";
	struct proc_maps *maps;
	size_t len;

	memcpy(text, first, sizeof(first) - 1);
	len = sizeof(first) - 1;
	memcpy(text + len, head, sizeof(head) - 1);
	len += sizeof(head) - 1;
	memset(text + len, 'p', PROC_MAPS_PATH_MAX);
	len += PROC_MAPS_PATH_MAX;
	maps = parse(text, len);
	cr_assert_eq(maps->n, 1);
	cr_assert_str_eq(maps->v[0].path, "/bin/a");
	cr_assert_eq(maps->dropped, 1);
	proc_maps__free(maps);
}

Test(maps, build_ids)
{
	struct proc_maps *maps = parse(maps_text, strlen(maps_text));
	__u8 id[LS_BUILD_ID_MAX + 1] = { 0xab, 0xcd };

	cr_assert_eq(proc_maps__set_build_id(maps, 1, id, 20), 0);
	cr_assert_eq(maps->v[1].build_id_len, 20);
	cr_assert_eq(maps->v[1].build_id[1], 0xcd);
	cr_assert_eq(proc_maps__set_build_id(maps, maps->n, id, 20), -EINVAL);
	cr_assert_eq(proc_maps__set_build_id(maps, 1, id, 0), -EINVAL);
	cr_assert_eq(proc_maps__set_build_id(maps, 1, id, LS_BUILD_ID_MAX + 1), -EINVAL);
	proc_maps__free(maps);
}

Test(maps, this_process)
{
	struct proc_maps *maps;
	const struct proc_map *m;

	cr_assert_eq(proc_maps__load_pid(&maps, (__u32)getpid()), 0);
	cr_assert_eq(maps->pid, (__u32)getpid());
	cr_assert_eq(maps->dropped, 0);
	m = proc_maps__find(maps, (__u64)(uintptr_t)&proc_maps__parse);
	cr_assert_not_null(m);
	cr_assert(m->perms & PROC_MAP_X);
	cr_assert(proc_map__is_file(m));
	proc_maps__free(maps);
	cr_assert_eq(proc_maps__load_pid(&maps, 0x7fffffff), -ENOENT);
}

Test(maps, empty_and_too_big)
{
	struct proc_maps *maps = parse("", 0);

	cr_assert_eq(maps->n, 0);
	cr_assert_null(proc_maps__find(maps, 0x1000));
	proc_maps__free(maps);
	cr_assert_eq(proc_maps__parse(&maps, "", (size_t)PROC_MAPS_MAX_TEXT + 1), -E2BIG);
	cr_assert_null(maps);
	cr_assert_null(proc_maps__find(NULL, 0));
}
