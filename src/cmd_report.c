// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall report FILE: the records of a recording, in their order, into
 * the same session (engine and sink) watch uses.  Nothing else shapes the
 * output, so the same file prints the same bytes every time, and what
 * watch printed when the file was made.
 *
 * Where, when and how the recording was made goes to stderr, one line:
 * stdout stays exactly what watch printed, so the two can be compared
 * with cmp(1).
 *
 * Pure C (no libbpf): the unit tests and the fuzzer call cmd_report().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "resolve/cgroup.h"
#include "cmd_report.h"
#include "commands.h"
#include "session.h"
#include "resolve/stacks.h"
#include "sinks/report.h"
#include "sinks/sinks.h"
#include "record/meta.h"
#include "record/trace_file.h"
#include "util.h"

/* A number from the metadata: absent or malformed leaves *out alone. */
void report__meta_u64(struct trace_reader *r, const char *key, __u64 max, __u64 *out)
{
	const char *v = trace_reader__meta(r, key, NULL);
	__u64 n;

	if (v && !ls_parse_u64(v, max, &n))
		*out = n;
}

/* Text for a header: at most 64 bytes, made safe for a terminal. */
static const char *meta_text(struct trace_reader *r, const char *key, char *buf, size_t len)
{
	const char *v = trace_reader__meta(r, key, NULL);
	char part[LS_COMM_LEN];
	size_t off = 0, n, o = 0;

	buf[0] = '\0';
	if (!v)
		return "?";
	/* ls_comm_text() escapes 16 bytes at a time */
	while (v[off] && off < 64) {
		n = strnlen(v + off, sizeof(part));
		memset(part, 0, sizeof(part));
		memcpy(part, v + off, n);
		ls_comm_text(part, buf + o, len - o);
		o = strlen(buf);
		off += n;
	}
	return buf;
}

static void report__header(struct trace_reader *r, const struct ls_config *cfg, FILE *err,
			   __u64 threshold_ns)
{
	char host[300], rel[300], ver[300], when[64] = "?", thr[32];
	__u64 real = 0, cpus = 0;
	struct tm tm;
	time_t t;

	report__meta_u64(r, "start.realtime_ns", UINT64_MAX, &real);
	report__meta_u64(r, "cpus", 1 << 20, &cpus);
	if (real) {
		t = (time_t)(real / NSEC_PER_SEC);
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	}
	fprintf(err, "lockstall: %s: recorded on %s (Linux %s, %llu CPUs) by lockstall %s at %s, threshold %s\n",
		cfg->input, meta_text(r, "host", host, sizeof(host)),
		meta_text(r, "kernel.release", rel, sizeof(rel)), (unsigned long long)cpus,
		meta_text(r, "lockstall.version", ver, sizeof(ver)), when,
		ls_format_duration(threshold_ns, thr, sizeof(thr)));
}

int report__open_output(const struct ls_config *cfg, FILE *out, FILE *err, FILE **res)
{
	struct stat in, o;
	int fd;

	*res = out;
	if (!cfg->output)
		return 0;
	/* --force would unlink the recording being read: refuse, it may be the only copy */
	if (cfg->force && !stat(cfg->input, &in) && !lstat(cfg->output, &o) &&
	    in.st_dev == o.st_dev && in.st_ino == o.st_ino) {
		fprintf(err, "lockstall: %s: is the recording itself: choose another output\n",
			cfg->output);
		return -EINVAL;
	}
	fd = ls_create_file(cfg->output, cfg->force, err);
	if (fd < 0)
		return fd;
	*res = fdopen(fd, "w");
	if (!*res) {
		fd = -errno;
		fprintf(err, "lockstall: %s: cannot write: %s\n", cfg->output, strerror(-fd));
		return fd;
	}
	return 0;
}

/*
 * The report formats' sink, made here: they also want the recording's
 * metadata (meta points into r, which outlives the session).
 */
static int report__sink(struct trace_reader *r, const struct ls_config *cfg,
			struct session_opts *so, struct report_meta *meta, FILE *f)
{
	const char *v = trace_reader__meta(r, "clock.realtime_minus_monotonic_ns", NULL);
	struct sink_opts o = {
		.top = so->top,
		.filter_pid = so->pid,
		.per_pid = so->per_pid,
		.hist_min_ns = so->hist_min_ns,
	};
	char *end;

	if (cfg->report_format == LS_FORMAT_TEXT || cfg->report_format == LS_FORMAT_JSON)
		return 0;
	if (cfg->report_format == LS_FORMAT_FOLDED) {
		so->custom = sink_folded__new(f, &o);
		so->format = SESSION_CUSTOM;
		return so->custom ? 0 : -ENOMEM;
	}
	meta->input = cfg->input;
	meta->host = trace_reader__meta(r, "host", NULL);
	meta->kernel = trace_reader__meta(r, "kernel.release", NULL);
	meta->version = trace_reader__meta(r, "lockstall.version", NULL);
	report__meta_u64(r, "cpus", 1 << 20, &meta->cpus);
	meta->threshold_ns = so->threshold_ns;
	if (v && *v) {
		errno = 0;
		meta->realtime_minus_monotonic_ns = strtoll(v, &end, 10);
		meta->has_clock = !errno && !*end;
	}
	switch (cfg->report_format) {
	case LS_FORMAT_MARKDOWN:
		so->custom = sink_markdown__new(f, &o, meta);
		break;
	case LS_FORMAT_HTML:
		so->custom = sink_html__new(f, &o, meta);
		break;
	default:
		so->custom = sink_perfetto__new(f, &o);
		break;
	}
	if (!so->custom)
		return -ENOMEM;
	so->format = SESSION_CUSTOM;
	return 0;
}

#define NSEC_PER_DAY	(86400 * NSEC_PER_SEC)

/*
 * --from/--to as UTC times of day: the first time the clock showed that
 * time after the recording began, or in the hour before it (then it means
 * "from the start"), and --to the first time after --from.  Then into
 * CLOCK_MONOTONIC, the records' clock, by the offset measured at the start.
 */
static int report__wall_window(struct trace_reader *r, const struct ls_config *cfg,
			       struct session_opts *so, FILE *err)
{
	const char *v = trace_reader__meta(r, "clock.realtime_minus_monotonic_ns", NULL);
	__u64 start = 0, day, from_real, to_real;
	long long offset;
	char *end;

	report__meta_u64(r, "start.realtime_ns", UINT64_MAX, &start);
	errno = 0;
	offset = v ? strtoll(v, &end, 10) : 0;
	if (!v || errno || *end || !*v || !start) {
		fprintf(err, "lockstall: %s: no wall-clock time in the recording: give --from and --to as times since it began (2s, 500ms)\n",
			cfg->input);
		return -EINVAL;
	}
	day = start - start % NSEC_PER_DAY;
	from_real = day + (cfg->has_from ? cfg->from_ns : start % NSEC_PER_DAY);
	if (from_real + 3600 * NSEC_PER_SEC < start)
		from_real += NSEC_PER_DAY;
	so->window_abs = true;
	so->from_ns = from_real - (__u64)offset;
	if (cfg->has_to) {
		to_real = from_real - from_real % NSEC_PER_DAY + cfg->to_ns;
		if (to_real <= from_real)
			to_real += NSEC_PER_DAY;
		so->to_ns = to_real - (__u64)offset;
	}
	return 0;
}

/* Is the recording from this boot?  Its kernel addresses mean nothing otherwise. */
static bool report__same_boot(struct trace_reader *r)
{
	const char *then = trace_reader__meta(r, "boot_id", NULL);
	char now[64];

	return then && !record_meta__boot_id(now, sizeof(now)) && !strcmp(now, then);
}

/* maps.TGID comes before buildids.TGID: see record_meta__maps() */
static void report__stacks_meta(struct stacks *sk, const char *key, const char *val, size_t len)
{
	bool maps = !strncmp(key, "maps.", 5);
	unsigned long tgid;
	char *end;

	if (!maps && strncmp(key, "buildids.", 9))
		return;
	errno = 0;
	tgid = strtoul(key + (maps ? 5 : 9), &end, 10);
	if (errno || *end || !tgid || tgid > LS_PID_MAX)
		return;
	if (maps)
		stacks__add_maps(sk, (__u32)tgid, val, len);
	else
		stacks__add_build_ids(sk, (__u32)tgid, val, len);
}

/* cgroup.ID=PATH: see record_meta__cgroups(); a malformed one is left out. */
void report__cgroups_meta(struct cgroups *cg, const char *key, const char *val, size_t len)
{
	unsigned long long id;
	char *end;

	if (strncmp(key, "cgroup.", 7) || strlen(val) != len)
		return;
	errno = 0;
	id = strtoull(key + 7, &end, 10);
	if (errno || *end || key[7] < '1' || key[7] > '9')
		return;
	cgroups__add(cg, id, val);
}

/*
 * The stack resolver with the mappings the recording kept, and the cgroup
 * paths the live run resolved.  Both are written at its end (after tracing
 * stopped), so one more pass over the file reads them before the replay
 * needs them.  *sk NULL: no frames (perfetto, or no memory: the stalls
 * then print without them); *cg NULL: no paths (no memory).
 */
static void report__end_meta(struct trace_reader *r, const struct ls_config *cfg,
			     struct stacks **sk, struct cgroups **cg)
{
	struct stacks_opts o = { .no_kernel = !report__same_boot(r) };
	struct trace_reader *all = NULL;
	const char *key, *val;
	size_t i, len;

	*sk = cfg->report_format == LS_FORMAT_PERFETTO ? NULL : stacks__new(&o);
	*cg = cgroups__new();
	/* damage was reported by the replay's reader: this one is silent */
	if ((!*sk && !*cg) || trace_reader__open(&all, cfg->input, NULL))
		return;
	trace_reader__skip_to_end(all);
	for (i = 0; !trace_reader__meta_at(all, i, &key, &val, &len); i++) {
		if (*sk)
			report__stacks_meta(*sk, key, val, len);
		if (*cg)
			report__cgroups_meta(*cg, key, val, len);
	}
	trace_reader__close(all);
}

static void report__count_one(void *ctx, __u64 id, const char *path)
{
	(*(size_t *)ctx)++;
}

/* A cgroup= rule over a recording that names no cgroup matches nothing: say so. */
static void report__warn_cgroups(const struct ls_config *cfg, const struct slo_rules *rules,
				 struct cgroups *cg, FILE *err)
{
	size_t i, known = 0;

	cgroups__for_each(cg, report__count_one, &known);
	for (i = 0; i < rules->n && !known; i++) {
		if (!rules->v[i].cgroup.path && !rules->v[i].holder_cgroup.path)
			continue;
		fprintf(err, "lockstall: %s: the recording names no cgroup (an older lockstall's, or made without cgroup v2): rule '%s' matches no stall\n",
			cfg->input, rules->v[i].text);
	}
}

/*
 * The options the recording was made with, unless given again: threshold
 * (never below the recording's), -p, --top.  0 or an exit code.
 */
int report__options(struct trace_reader *r, const struct ls_config *cfg, struct session_opts *so,
		    FILE *err)
{
	__u64 v, recorded_ns;
	char a[32], b[32];

	report__meta_u64(r, "threshold_ns", UINT64_MAX, &so->threshold_ns);
	recorded_ns = so->threshold_ns;
	if (cfg->threshold_set) {
		if (cfg->threshold_ns < recorded_ns) {
			fprintf(err, "lockstall: threshold %s is below the recording's %s: the kernel sent shorter waits only when they went off CPU (see 'lockstall report --help')\n",
				ls_format_duration(cfg->threshold_ns, a, sizeof(a)),
				ls_format_duration(recorded_ns, b, sizeof(b)));
			return LS_EXIT_USAGE;
		}
		so->threshold_ns = cfg->threshold_ns;
	}
	if (cli__pending(cfg, so->threshold_ns, &so->pending_after_ns, &so->pending_every_ns)) {
		fprintf(err, "lockstall: --pending-after %s is below the threshold %s: a wait shorter than the threshold is no stall\n",
			ls_format_duration(cfg->pending_after_ns, a, sizeof(a)),
			ls_format_duration(so->threshold_ns, b, sizeof(b)));
		return LS_EXIT_USAGE;
	}
	if (cfg->wall_clock && report__wall_window(r, cfg, so, err))
		return LS_EXIT_FAILURE;
	v = 0;
	report__meta_u64(r, "pid", LS_PID_MAX, &v);
	so->pid = cfg->pid_set ? cfg->pid : (__u32)v;
	v = LS_DEFAULT_TOP;
	report__meta_u64(r, "top", UINT32_MAX, &v);
	so->top = cfg->top_set ? cfg->top : (unsigned int)v;
	return 0;
}

/* --slo, --rules into rules.  0 or an exit code (the reason printed). */
static int report__rules(const struct ls_config *cfg, struct slo_rules *rules, FILE *err)
{
	char why[SLO_ERR_LEN];
	int rc;

	/* the recording's cgroups, not this host's: paths are not checked here */
	rc = slo_rules__read(rules, cfg->slo, cfg->n_slo, cfg->rules_file, NULL, why, sizeof(why));
	if (!rc)
		return 0;
	fprintf(err, "lockstall: %s\n", why);
	return rc == -EINVAL || rc == -E2BIG ? LS_EXIT_USAGE : LS_EXIT_FAILURE;
}

/* Every record of r into s, then the summary to f.  An exit code. */
static int report__replay(struct trace_reader *r, struct session *s, FILE *f, FILE *err)
{
	const void *rec;
	size_t len;
	int rc;

	while ((rc = trace_reader__next_record(r, &rec, &len)) > 0) {
		if (session__feed(s, rec, len) < 0)
			break;
	}
	/* the reader said what went wrong with the file; a read error is fatal */
	if (rc < 0)
		return LS_EXIT_FAILURE;
	if (!s->feed_err)
		session__finish(s);
	if (s->feed_err == -EPIPE)
		return LS_EXIT_OK;
	if (!s->feed_err && (fflush(f) || ferror(f)))
		s->feed_err = -(errno ? errno : EIO);
	if (s->feed_err) {
		fprintf(err, "lockstall: cannot write output: %s\n", strerror(-s->feed_err));
		return LS_EXIT_FAILURE;
	}
	return LS_EXIT_OK;
}

int cmd_report(const struct ls_config *cfg, FILE *out, FILE *err)
{
	struct session_opts so = {
		.format = cfg->json ? SESSION_JSON : SESSION_TEXT,
		.top = LS_DEFAULT_TOP,
		.per_pid = cfg->per_pid,
		.hist_min_ns = cfg->hist_min_ns,
		.threshold_ns = LS_DEFAULT_THRESHOLD_NS,
		.window = cfg->has_from || cfg->has_to,
		.from_ns = cfg->from_ns,
		.to_ns = cfg->has_to ? cfg->to_ns : 0,
	};
	struct trace_reader *r = NULL;
	struct report_meta meta = { 0 };
	struct session s = { 0 };
	struct slo_rules rules = { 0 };	/* --slo, --rules */
	struct stacks *sk = NULL;
	struct cgroups *cg = NULL;
	FILE *f = NULL;
	int ret = LS_EXIT_FAILURE, rc;

	if (report__is_fleet(cfg))
		return cmd_report_fleet(cfg, out, err);
	if (trace_reader__open(&r, cfg->input, err))
		return LS_EXIT_FAILURE;
	rc = report__options(r, cfg, &so, err);
	if (!rc && (cfg->n_slo || cfg->rules_file)) {
		rc = report__rules(cfg, &rules, err);
		so.rules = &rules;
	}
	if (rc) {
		ret = rc;
		goto cleanup;
	}
	if (report__open_output(cfg, out, err, &f))
		goto cleanup;
	report__header(r, cfg, err, so.threshold_ns);
	report__end_meta(r, cfg, &sk, &cg);
	so.stacks = sk;
	so.cgroups = cg;
	if (cg && so.rules)
		report__warn_cgroups(cfg, so.rules, cg, err);
	if (report__sink(r, cfg, &so, &meta, f) || session__init(&s, &so, f)) {
		fprintf(err, "lockstall: cannot set up the engine: %s\n", strerror(ENOMEM));
		goto cleanup;
	}
	ret = report__replay(r, &s, f, err);
cleanup:
	session__destroy(&s);
	stacks__free(sk);
	cgroups__free(cg);
	slo_rules__free(&rules);
	if (f && f != out && fclose(f) && ret == LS_EXIT_OK) {
		fprintf(err, "lockstall: %s: cannot write: %s\n", cfg->output, strerror(errno));
		ret = LS_EXIT_FAILURE;
	}
	trace_reader__close(r);
	return ret;
}
