// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgroup v2 ids and paths: see cgroup.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "resolve/cgroup.h"
#include "engine/sink.h"
#include "util.h"

/* include/linux/exportfs.h: a kernfs node's handle is its 64-bit id. */
#define LS_FILEID_KERNFS 0xfe

struct cg_entry {
	__u64 id;		/* 0: empty slot */
	char *path;		/* text form; NULL: looked up, unknown */
	bool pinned;		/* from cgroups__add(): kept by forget */
};

struct cgroups {
	char *mount;		/* the cgroup2 mount point; NULL: table only */
	char *root;		/* the mount's root in the hierarchy, "/" but for bind mounts */
	int mount_fd;		/* -1 without a mount */
	struct cg_entry *v;	/* 2 * CGROUPS_MAX slots, linear probing */
	size_t n;
	size_t n_pinned;
};

#define CG_SLOTS (2 * CGROUPS_MAX)

struct cgroups *cgroups__new(void)
{
	struct cgroups *cg = calloc(1, sizeof(*cg));

	if (!cg)
		return NULL;
	cg->mount_fd = -1;
	cg->v = calloc(CG_SLOTS, sizeof(*cg->v));
	if (!cg->v) {
		free(cg);
		return NULL;
	}
	return cg;
}

void cgroups__free(struct cgroups *cg)
{
	size_t i;

	if (!cg)
		return;
	for (i = 0; i < CG_SLOTS; i++)
		free(cg->v[i].path);
	free(cg->v);
	if (cg->mount_fd >= 0)
		close(cg->mount_fd);
	free(cg->mount);
	free(cg->root);
	free(cg);
}

const char *cgroups__mount(const struct cgroups *cg)
{
	return cg->mount;
}

/* mountinfo escapes blanks, newlines and the backslash as \ooo: in place. */
static void mountinfo__unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE ...".
 * true with *root and *mnt pointing into line when it is a cgroup2 mount.
 */
static bool mountinfo__cgroup2(char *line, char **root, char **mnt)
{
	char *save = NULL, *f[5], *tok;
	int i;

	for (i = 0; i < 5; i++) {
		f[i] = strtok_r(i ? NULL : line, " \n", &save);
		if (!f[i])
			return false;
	}
	while ((tok = strtok_r(NULL, " \n", &save)) && strcmp(tok, "-"))
		;
	tok = tok ? strtok_r(NULL, " \n", &save) : NULL;
	if (!tok || strcmp(tok, "cgroup2"))
		return false;
	mountinfo__unescape(f[3]);
	mountinfo__unescape(f[4]);
	*root = f[3];
	*mnt = f[4];
	return true;
}

int cgroups__open(struct cgroups **out, const char *mountinfo, char *err, size_t err_len)
{
	char *line = NULL, *root, *mnt;
	struct cgroups *cg = NULL;
	size_t alloc = 0;
	FILE *f;
	int rc = -ENOENT;

	*out = NULL;
	f = fopen(mountinfo, "re");
	if (!f) {
		rc = -errno;
		snprintf(err, err_len, "%s: cannot read: %s", mountinfo, strerror(-rc));
		return rc;
	}
	cg = cgroups__new();
	if (!cg) {
		rc = -ENOMEM;
		goto cleanup;
	}
	/* the whole hierarchy's mount (root "/") wins over a bind mount of a part of it */
	while (getline(&line, &alloc, f) >= 0) {
		if (!mountinfo__cgroup2(line, &root, &mnt))
			continue;
		if (cg->mount && strcmp(root, "/"))
			continue;
		free(cg->mount);
		free(cg->root);
		cg->mount = strdup(mnt);
		cg->root = strdup(root);
		if (!cg->mount || !cg->root) {
			rc = -ENOMEM;
			goto cleanup;
		}
		if (!strcmp(root, "/"))
			break;
	}
	if (!cg->mount) {
		snprintf(err, err_len, "no cgroup2 file system in %s: cgroup= needs cgroup v2 (a unified or hybrid hierarchy)",
			 mountinfo);
		goto cleanup;
	}
	cg->mount_fd = open(cg->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->mount_fd < 0) {
		rc = -errno;
		snprintf(err, err_len, "%s (the cgroup2 mount): cannot open: %s", cg->mount,
			 strerror(-rc));
		goto cleanup;
	}
	*out = cg;
	cg = NULL;
	rc = 0;
cleanup:
	cgroups__free(cg);
	free(line);
	fclose(f);
	return rc;
}

static __u64 id_hash(__u64 id)
{
	return id * 0x9e3779b97f4a7c15ULL;
}

static struct cg_entry *cgroups__slot(struct cg_entry *v, __u64 id)
{
	size_t i = (size_t)(id_hash(id) >> 32) & (CG_SLOTS - 1);

	while (v[i].id && v[i].id != id)
		i = (i + 1) & (CG_SLOTS - 1);
	return &v[i];
}

/* Drop every entry cgroups__add() did not make: rebuilt, so probing stays right. */
static void cgroups__drop_cached(struct cgroups *cg)
{
	struct cg_entry *old = cg->v, *e;
	size_t i;

	cg->v = calloc(CG_SLOTS, sizeof(*cg->v));
	if (!cg->v) {
		/* no memory for a new table: clear the old one in place, pinned ones too */
		cg->v = old;
		for (i = 0; i < CG_SLOTS; i++) {
			free(old[i].path);
			old[i] = (struct cg_entry){ 0 };
		}
		cg->n = cg->n_pinned = 0;
		return;
	}
	for (i = 0; i < CG_SLOTS; i++) {
		if (!old[i].id)
			continue;
		if (old[i].pinned) {
			e = cgroups__slot(cg->v, old[i].id);
			*e = old[i];
		} else {
			free(old[i].path);
		}
	}
	free(old);
	cg->n = cg->n_pinned;
}

void cgroups__forget(struct cgroups *cg)
{
	cgroups__drop_cached(cg);
}

void cgroups__reserve(struct cgroups *cg, size_t n)
{
	if (cg->n + n > CGROUPS_MAX)
		cgroups__drop_cached(cg);
}

static int cgroups__put(struct cgroups *cg, __u64 id, char *path, bool pinned)
{
	struct cg_entry *e;

	e = cgroups__slot(cg->v, id);
	if (e->id) {
		free(e->path);
		e->path = path;
		e->pinned |= pinned;
		return 0;
	}
	if (cg->n >= CGROUPS_MAX) {
		if (cg->n_pinned >= CGROUPS_MAX) {
			free(path);
			return -ENOSPC;
		}
		cgroups__drop_cached(cg);
		e = cgroups__slot(cg->v, id);
	}
	e->id = id;
	e->path = path;
	e->pinned = pinned;
	cg->n++;
	cg->n_pinned += pinned;
	return 0;
}

/*
 * path is text as ls_cgroup_text() writes it: printable ASCII, no space,
 * a backslash only in \xNN.  A recording's may be anything: outputs print
 * these paths as they are, so a raw control byte must not get in.
 */
static bool cgroups__is_text(const char *path)
{
	char raw[LS_CGROUP_TEXT_MAX];
	const char *c;
	size_t len;

	for (c = path; *c; c++) {
		if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
			return false;
	}
	return !ls_cgroup_raw(path, raw, sizeof(raw), &len);
}

int cgroups__add(struct cgroups *cg, __u64 id, const char *path)
{
	char *p;

	if (!id || !path || path[0] != '/' || !cgroups__is_text(path))
		return -EINVAL;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	return cgroups__put(cg, id, p, true);
}

/*
 * The path of a cgroup2 directory fd, from the hierarchy's root: its link
 * in /proc/self/fd, less the mount point, with the mount's root in front.
 */
static char *cgroups__fd_path(const struct cgroups *cg, int fd)
{
	char link[64], raw[PATH_MAX + 1], full[2 * PATH_MAX + 2], *text;
	size_t mlen = strlen(cg->mount), rlen;
	const char *rest;
	ssize_t n;
	int tlen;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, raw, sizeof(raw) - 1);
	if (n <= 0 || n >= (ssize_t)sizeof(raw) - 1)
		return NULL;
	raw[n] = '\0';
	/* removed between the open and now: a name no cgroup has */
	if ((size_t)n > 10 && !strcmp(raw + n - 10, " (deleted)"))
		return NULL;
	/* "/" is a mount point that ends in '/' */
	if (mlen == 1)
		mlen = 0;
	if (strncmp(raw, cg->mount, mlen) || (raw[mlen] && raw[mlen] != '/'))
		return NULL;	/* outside our mount (another mount namespace): unknown */
	rest = raw + mlen;
	rlen = strlen(cg->root);
	if (rlen == 1)
		rlen = 0;
	if (!rlen && !*rest)
		rest = "/";
	snprintf(full, sizeof(full), "%.*s%s", (int)rlen, cg->root, rest);
	text = malloc(LS_CGROUP_TEXT_MAX);
	if (!text)
		return NULL;
	tlen = ls_cgroup_text(full, strlen(full), text, LS_CGROUP_TEXT_MAX);
	if (tlen < 0) {
		free(text);
		return NULL;
	}
	return realloc(text, (size_t)tlen + 1) ?: text;
}

/* Open cgroup id by its handle on the mount: exact, and one system call. */
static char *cgroups__lookup(const struct cgroups *cg, __u64 id)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(__u64)];
	} h;
	char *path;
	int fd;

	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = sizeof(__u64);
	h.fh.handle_type = LS_FILEID_KERNFS;
	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(cg->mount_fd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;	/* removed (ESTALE), or not allowed: unknown */
	path = cgroups__fd_path(cg, fd);
	close(fd);
	return path;
}

const char *cgroups__path(struct cgroups *cg, __u64 id)
{
	struct cg_entry *e;

	if (!id)
		return NULL;
	e = cgroups__slot(cg->v, id);
	if (e->id)
		return e->path;
	if (cg->mount_fd < 0)
		return NULL;
	/* an unknown one is remembered too: a removed cgroup costs one look */
	if (cgroups__put(cg, id, cgroups__lookup(cg, id), false))
		return NULL;
	return cgroups__slot(cg->v, id)->path;
}

void cgroups__for_each(const struct cgroups *cg, void (*fn)(void *ctx, __u64 id, const char *path),
		       void *ctx)
{
	size_t i;

	for (i = 0; i < CG_SLOTS; i++)
		if (cg->v[i].id && cg->v[i].path)
			fn(ctx, cg->v[i].id, cg->v[i].path);
}

int cgroups__exists(void *ctx, const char *path, char *why, size_t why_len)
{
	const struct cgroups *cg = ctx;
	char raw[PATH_MAX + 1], full[2 * PATH_MAX + 2];
	size_t len, rlen;
	const char *rel;
	struct stat st;
	int rc;

	if (!cg->mount) {
		snprintf(why, why_len, "cgroup %.200s cannot be looked for: no cgroup2 mount", path);
		return -ENOENT;
	}
	rlen = strlen(cg->root);
	if (ls_cgroup_raw(path, raw, sizeof(raw), &len)) {
		snprintf(why, why_len, "cgroup %.200s: too long or malformed", path);
		return -EINVAL;
	}
	/* a bind mount of a part of the hierarchy shows only what lies below its root */
	if (rlen > 1 && (strncmp(raw, cg->root, rlen) || (raw[rlen] && raw[rlen] != '/'))) {
		snprintf(why, why_len, "cgroup %.200s is outside %s, the part of the hierarchy mounted at %s",
			 path, cg->root, cg->mount);
		return -ENOENT;
	}
	rel = rlen > 1 ? raw + rlen : raw;
	snprintf(full, sizeof(full), "%s%s", cg->mount, rel);
	if (stat(full, &st)) {
		rc = -errno;
		snprintf(why, why_len, "no cgroup %.200s: %s: %s; expected an existing cgroup v2 path from the cgroup2 root, as in the 0:: line of /proc/PID/cgroup",
			 path, full, strerror(-rc));
		return rc;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%.200s is not a cgroup (%s is not a directory)", path, full);
		return -ENOTDIR;
	}
	/* it exists, but a rule on it could never fire if ids cannot be resolved */
	return cgroups__can_resolve(cg, why, why_len);
}

int cgroups__can_resolve(const struct cgroups *cg, char *why, size_t why_len)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	int mount_id, fd;

	if (cg->mount_fd < 0) {
		snprintf(why, why_len, "no cgroup2 mount: cgroups are not known");
		return -ENOENT;
	}
	/* the very call that resolves ids, on the root: it needs CAP_DAC_READ_SEARCH */
	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(cg->mount_fd, "", &h.fh, &mount_id, AT_EMPTY_PATH))
		goto fail;
	fd = open_by_handle_at(cg->mount_fd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	close(fd);
	return 0;
fail:
	snprintf(why, why_len, "cgroup ids cannot be resolved to paths (open_by_handle_at: %s)%s",
		 strerror(errno), errno == EPERM ? ": it needs CAP_DAC_READ_SEARCH" : "");
	return errno == EPERM ? -EPERM : -errno;
}

/* The sink ---------------------------------------------------------------- */

struct cgroups_sink {
	struct sink_pass pass;	/* first: the sink */
	struct cgroups *cg;
	struct ls_holder holders[LS_MAX_HOLDERS];
};

static int cgroups_sink__stall(struct sink_pass *p, const struct ls_stall *st)
{
	struct cgroups_sink *cs = (struct cgroups_sink *)p;
	unsigned int i, k, n = st->n_holders < LS_MAX_HOLDERS ? st->n_holders : LS_MAX_HOLDERS;
	struct ls_stall c = *st;
	struct ls_holder *h;

	/* every path of this stall stays valid while the sinks look at it */
	cgroups__reserve(cs->cg, 1 + n * (1 + LS_MAX_PREEMPTORS));
	c.waiter_cgroup = cgroups__path(cs->cg, st->waiter_cgroup_id);
	memcpy(cs->holders, st->holders, n * sizeof(st->holders[0]));
	for (i = 0; i < n; i++) {
		h = &cs->holders[i];
		h->cgroup = cgroups__path(cs->cg, h->cgroup_id);
		for (k = 0; k < h->n_preempted_by && k < LS_MAX_PREEMPTORS; k++)
			h->preempted_by[k].cgroup = cgroups__path(cs->cg,
								  h->preempted_by[k].cgroup_id);
	}
	c.holders = cs->holders;
	return sink__stall(cs->pass.inner, &c);
}

static const struct sink_pass_ops cgroups_sink_ops = {
	.name = "cgroups",
	.stall = cgroups_sink__stall,
};

struct sink *sink_cgroups__new(struct sink *inner, struct cgroups *cg)
{
	struct cgroups_sink *cs = sink_pass__new(sizeof(*cs), &cgroups_sink_ops, inner);

	if (!cs)
		return NULL;
	cs->cg = cg;
	return &cs->pass.base;
}
