/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgroup v2 ids and paths, for cgroup= rules and the output.  The engine
 * only carries the ids the kernel sent (bpf_get_current_cgroup_id()); this
 * module, between the engine and the sinks, turns them into paths.
 *
 * A path is as people see it: from the cgroup2 root, "/" the root itself,
 * in the text form of ls_cgroup_text().  An id is the kernel's cgroup id,
 * which on 64-bit is the inode number of the cgroup's directory.
 *
 * Live, the cgroup2 mount comes from mountinfo, and an id not cached yet
 * is opened by handle on that mount (open_by_handle_at(), FILEID_KERNFS:
 * the handle of a kernfs node is its id) and its path read back from
 * /proc/self/fd: one lookup per cgroup, never a walk.  Ids are not reused
 * (64-bit), so a cached path stays right until the cgroup is renamed; a
 * cgroup removed and made again gets a new id, which resolves to the same
 * path.  The cache holds at most CGROUPS_MAX ids, and starts afresh when
 * full or on cgroups__forget() (SIGHUP).
 *
 * Over a recording the table is what the recording's metadata says
 * ("cgroup.ID=PATH", written by the live run as it closes the file).
 */
#ifndef LOCKSTALL_CGROUP_H
#define LOCKSTALL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define CGROUPS_MAX 4096	/* ids cached */

struct cgroups;
struct sink;

/*
 * Live: the first cgroup2 mount in mountinfo (a /proc/PID/mountinfo file).
 * -ENOENT when there is none (a cgroup v1-only host), with err saying so.
 */
int cgroups__open(struct cgroups **out, const char *mountinfo, char *err, size_t err_len);
/* No mount: ids resolve only to what cgroups__add() was told. */
struct cgroups *cgroups__new(void);
void cgroups__free(struct cgroups *cg);
/* The cgroup2 mount point, NULL without one. */
const char *cgroups__mount(const struct cgroups *cg);

/* Tell the table id's path (text form).  0, -EINVAL (id 0, not a path), -ENOSPC, -ENOMEM. */
int cgroups__add(struct cgroups *cg, __u64 id, const char *path);
/*
 * id's path, NULL when unknown (id 0, removed, no mount and not added).
 * Valid until the next cgroups__path() that has to make room: see
 * cgroups__reserve().
 */
const char *cgroups__path(struct cgroups *cg, __u64 id);
/* Room for n more ids without dropping any path handed out since. */
void cgroups__reserve(struct cgroups *cg, size_t n);
/* Forget every cached path (live only; added ones stay): SIGHUP. */
void cgroups__forget(struct cgroups *cg);
/* Every id known and its path: for the recording's metadata. */
void cgroups__for_each(const struct cgroups *cg, void (*fn)(void *ctx, __u64 id, const char *path),
		       void *ctx);

/*
 * slo_cgroup_check's exists(): is path (text form) a cgroup v2 directory
 * under the mount now?  0, else -errno and why.  ctx is the cgroups.
 */
int cgroups__exists(void *ctx, const char *path, char *why, size_t why_len);

/*
 * Whether cgroup ids can be resolved to paths here (open_by_handle_at(),
 * which needs CAP_DAC_READ_SEARCH): 0, else -errno and why.  cgroups__exists()
 * asks it too: a cgroup= rule that could never fire is refused.
 */
int cgroups__can_resolve(const struct cgroups *cg, char *why, size_t why_len);

/* A sink that gives each stall its cgroup paths, then hands it to inner. */
struct sink *sink_cgroups__new(struct sink *inner, struct cgroups *cg);

#endif /* LOCKSTALL_CGROUP_H */
