// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * src/resolve/cgroup.c: the cgroup2 mount from mountinfo, path checks for rules,
 * the id -> path table and cache, and the sink that fills stalls' paths.
 * The lookups by handle need a real cgroup2 file system and root: that
 * test skips without them (the e2e tests cover it too).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "resolve/cgroup.h"
#include "lib/capture_sink.h"
#include "lib/tmpdir.h"

static struct {
	char dir[64];
	char mnt[128];		/* a directory standing in for the cgroup2 mount */
	char mountinfo[128];
	char live[512];		/* a real cgroup the live test made, for teardown */
} cx;

static void cx_setup(void)
{
	tmpdir__make(cx.dir, sizeof(cx.dir), "cgroup");
	/* a blank in the mount point: mountinfo writes it as \040 */
	snprintf(cx.mnt, sizeof(cx.mnt), "%s/cg root", cx.dir);
	snprintf(cx.mountinfo, sizeof(cx.mountinfo), "%s/mountinfo", cx.dir);
	cr_assert_eq(mkdir(cx.mnt, 0755), 0);
}

static void cx_teardown(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cx.dir);
	if (system(cmd))
		cr_log_info("could not remove %s", cx.dir);
	/* a failed assertion left it there */
	if (cx.live[0] && rmdir(cx.live) && errno != ENOENT)
		cr_log_info("could not remove %s: %s", cx.live, strerror(errno));
}

static void write_mountinfo(const char *body)
{
	FILE *f = fopen(cx.mountinfo, "w");

	cr_assert_not_null(f);
	fputs(body, f);
	fclose(f);
}

/* mountinfo lines: v1 hierarchies, a bind mount of a part of cgroup2, then the whole of it. */
static void write_hybrid_mountinfo(void)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
		 "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
		 "40 31 0:37 /sub /elsewhere rw,relatime shared:9 - cgroup2 cgroup2 rw\n"
		 "41 31 0:38 / %s/cg\\040root rw,relatime shared:10 master:2 - cgroup2 cgroup2 rw,nsdelegate\n"
		 "42 31 0:39 / /later rw - cgroup2 cgroup2 rw\n",
		 cx.dir);
	write_mountinfo(buf);
}

TestSuite(cgroup, .init = cx_setup, .fini = cx_teardown, .timeout = 30);

Test(cgroup, mount_from_mountinfo)
{
	struct cgroups *cg;
	char err[256];

	write_hybrid_mountinfo();
	cr_assert_eq(cgroups__open(&cg, cx.mountinfo, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(cgroups__mount(cg), cx.mnt, "the whole hierarchy's mount, unescaped");
	cgroups__free(cg);
}

Test(cgroup, no_cgroup2)
{
	struct cgroups *cg = (struct cgroups *)1;
	char err[256];

	write_mountinfo("32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
			"33 31 0:30 / /x rw - tmpfs cgroup2 rw\n"
			"garbage\n\n- cgroup2\n");
	cr_assert_eq(cgroups__open(&cg, cx.mountinfo, err, sizeof(err)), -ENOENT);
	cr_assert_null(cg);
	cr_assert(strstr(err, "no cgroup2 file system in"), "%s", err);
	cr_assert(strstr(err, "cgroup= needs cgroup v2"), "%s", err);

	cr_assert_eq(cgroups__open(&cg, "/nonexistent/mountinfo", err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "/nonexistent/mountinfo: cannot read"), "%s", err);
}

Test(cgroup, exists)
{
	struct cgroups *cg;
	char err[256], path[256], why[512];

	write_hybrid_mountinfo();
	cr_assert_eq(cgroups__open(&cg, cx.mountinfo, err, sizeof(err)), 0, "%s", err);
	snprintf(path, sizeof(path), "%s/a", cx.mnt);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/b", cx.mnt);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/my app", cx.mnt);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cx.mnt);
	fclose(fopen(path, "w"));

	cr_assert_eq(cgroups__exists(cg, "/", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cgroups__exists(cg, "/a/b", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cgroups__exists(cg, "/my\\x20app", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cgroups__exists(cg, "/a/c", why, sizeof(why)), -ENOENT);
	cr_assert(strstr(why, "no cgroup /a/c: "), "%s", why);
	cr_assert(strstr(why, "expected an existing cgroup v2 path from the cgroup2 root"), "%s", why);
	cr_assert_eq(cgroups__exists(cg, "/cgroup.procs", why, sizeof(why)), -ENOTDIR);
	cr_assert(strstr(why, "is not a cgroup"), "%s", why);
	cgroups__free(cg);

	/* no cgroup2 at all: a rule cannot be checked, and says why */
	cg = cgroups__new();
	cr_assert_eq(cgroups__exists(cg, "/a", why, sizeof(why)), -ENOENT);
	cr_assert(strstr(why, "no cgroup2 mount"), "%s", why);
	cgroups__free(cg);
}

static void count_one(void *ctx, __u64 id, const char *path)
{
	(*(size_t *)ctx)++;
}

/* A recording's paths are printed as they are: only text form gets in. */
Test(cgroup, table_text_only)
{
	struct cgroups *cg = cgroups__new();

	cr_assert_eq(cgroups__add(cg, 6, "/a\033[2J"), -EINVAL, "a raw ESC: not text");
	cr_assert_eq(cgroups__add(cg, 6, "/a\nforged"), -EINVAL, "a raw newline: not text");
	cr_assert_eq(cgroups__add(cg, 6, "/a b"), -EINVAL, "a raw space: not text");
	cr_assert_eq(cgroups__add(cg, 6, "/a\xe9"), -EINVAL, "a raw non-ASCII byte: not text");
	cr_assert_eq(cgroups__add(cg, 6, "/a\\q"), -EINVAL, "a backslash not in \\xNN");
	cr_assert_null(cgroups__path(cg, 6));
	cr_assert_eq(cgroups__add(cg, 7, "/a\\x1b"), 0, "an escaped ESC is text");
	cr_assert_str_eq(cgroups__path(cg, 7), "/a\\x1b");
	cgroups__free(cg);
}

/* A recording's table: what it was told, nothing else; bounded. */
Test(cgroup, table)
{
	struct cgroups *cg = cgroups__new();
	size_t n = 0;
	__u64 id;

	cr_assert_eq(cgroups__add(cg, 5, "/system.slice"), 0);
	cr_assert_eq(cgroups__add(cg, 5, "/renamed"), 0, "a later entry wins");
	cr_assert_eq(cgroups__add(cg, 0, "/x"), -EINVAL);
	cr_assert_eq(cgroups__add(cg, 6, "relative"), -EINVAL);
	cr_assert_str_eq(cgroups__path(cg, 5), "/renamed");
	cr_assert_null(cgroups__path(cg, 0));
	cr_assert_null(cgroups__path(cg, 6), "no mount: never looked up");
	cgroups__forget(cg);
	cr_assert_str_eq(cgroups__path(cg, 5), "/renamed", "a recording's paths stay");
	for (id = 100; id < 100 + CGROUPS_MAX - 1; id++)
		cr_assert_eq(cgroups__add(cg, id, "/many"), 0);
	cr_assert_eq(cgroups__add(cg, id, "/one-too-many"), -ENOSPC);
	cgroups__for_each(cg, count_one, &n);
	cr_assert_eq(n, CGROUPS_MAX);
	cgroups__free(cg);
}

/* The sink gives the waiter and each holder its path; unknown ones stay NULL. */
Test(cgroup, sink_fills_paths)
{
	struct cgroups *cg = cgroups__new();
	struct capture_sink *cs = capture_sink__new();
	struct sink *s = sink_cgroups__new(&cs->sink, cg);
	struct ls_holder h[2];
	struct ls_stall st;
	const struct ls_stall *got;

	memset(&st, 0, sizeof(st));
	memset(h, 0, sizeof(h));
	cr_assert_eq(cgroups__add(cg, 10, "/db.service"), 0);
	cr_assert_eq(cgroups__add(cg, 20, "/backup.slice"), 0);
	st.waiter_cgroup_id = 10;
	h[0].cgroup_id = 20;
	h[1].cgroup_id = 30;
	st.holders = h;
	st.n_holders = 2;
	cr_assert_eq(sink__stall(s, &st), 0);
	got = capture_sink__stall(cs, 0);
	cr_assert_not_null(got);
	cr_assert_str_eq(got->waiter_cgroup, "/db.service");
	cr_assert_str_eq(got->holders[0].cgroup, "/backup.slice");
	cr_assert_null(got->holders[1].cgroup);
	cr_assert_null(h[0].cgroup, "the engine's holders are not written to");
	sink__free(s);
	capture_sink__free(cs);
	cgroups__free(cg);
}

/*
 * The real thing: ids by stat(), paths by handle.  A cgroup removed and
 * made again has a new id, which resolves to the same path; the old id
 * resolves to nothing.
 */
Test(cgroup, live_lookup_by_handle)
{
	char err[256], name[64], *path = cx.live;
	struct cgroups *cg;
	struct stat st;
	__u64 old_id;

	if (geteuid())
		cr_skip_test("needs root (open_by_handle_at wants CAP_DAC_READ_SEARCH)");
	if (cgroups__open(&cg, "/proc/self/mountinfo", err, sizeof(err)))
		cr_skip_test("%s", err);
	cr_assert_eq(stat(cgroups__mount(cg), &st), 0);
	cr_assert_str_eq(cgroups__path(cg, st.st_ino), "/", "the root's id is its inode");
	snprintf(name, sizeof(name), "lockstall-unit-%d", getpid());
	snprintf(path, sizeof(cx.live), "%s/%s", cgroups__mount(cg), name);
	if (mkdir(path, 0755)) {
		cgroups__free(cg);
		cr_skip_test("%s: cannot make a cgroup: %s", path, strerror(errno));
	}
	cr_assert_eq(stat(path, &st), 0);
	old_id = st.st_ino;
	snprintf(err, sizeof(err), "/%s", name);
	cr_assert_str_eq(cgroups__path(cg, old_id), err);
	cr_assert_eq(rmdir(path), 0);
	cr_assert_eq(mkdir(path, 0755), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_neq(st.st_ino, old_id, "a cgroup made again has a new id");
	cr_assert_str_eq(cgroups__path(cg, st.st_ino), err);
	cr_assert_eq(rmdir(path), 0);
	cgroups__forget(cg);
	cr_assert_null(cgroups__path(cg, old_id), "a removed cgroup resolved");
	cr_assert_null(cgroups__path(cg, st.st_ino), "a removed cgroup resolved");
	cgroups__free(cg);
}
