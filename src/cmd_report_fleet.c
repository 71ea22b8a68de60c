// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstall report FILE... | DIR | --host PATTERN: a fleet's recordings
 * into one report.  Each recording is replayed by a worker thread into a
 * session of its own, as `report FILE` would (its options, its -p, its
 * --from/--to, its cgroup paths), whose output is a summary of that
 * recording (sinks/fleet.h); once all are in, the summaries are merged and
 * printed.  The threads share nothing but the next file's index; each
 * summary is written by one thread and read after the join.
 *
 * A file that cannot be read is left out and named, with its reason, in
 * the report and on stderr; the exit code says whether any was
 * (LS_EXIT_PARTIAL) or whether none could be read (LS_EXIT_FAILURE).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cmd_report.h"
#include "commands.h"
#include "resolve/cgroup.h"
#include "record/trace_file.h"
#include "sinks/fleet.h"
#include "util.h"

#define FLEET_MAX_THREADS 8

/* One file's outcome, written by the thread that read it. */
struct fleet_job {
	char *path;
	struct fleet_rec *rec;	/* NULL: left out or skipped */
	char *why;		/* left out: the reason */
	bool skipped;		/* not of --host */
};

struct fleet_run {
	const struct ls_config *cfg;
	struct fleet_job *jobs;
	size_t n_jobs, alloc_jobs;
	atomic_size_t next;
};

bool report__is_fleet(const struct ls_config *cfg)
{
	struct stat st;

	return cfg->n_inputs > 1 || cfg->host_pattern ||
	       (!stat(cfg->input, &st) && S_ISDIR(st.st_mode));
}

static int fleet_run__add(struct fleet_run *run, const char *path)
{
	struct fleet_job *j;

	if (run->n_jobs == run->alloc_jobs) {
		size_t a = run->alloc_jobs ? run->alloc_jobs * 2 : 64;

		j = reallocarray(run->jobs, a, sizeof(*j));
		if (!j)
			return -ENOMEM;
		run->jobs = j;
		run->alloc_jobs = a;
	}
	j = &run->jobs[run->n_jobs];
	memset(j, 0, sizeof(*j));
	j->path = strdup(path);
	if (!j->path)
		return -ENOMEM;
	run->n_jobs++;
	return 0;
}

/* Every entry of a directory but . and .. and hidden ones, in name order (not recursive). */
static int fleet_run__dir(struct fleet_run *run, const char *dir, FILE *err)
{
	struct dirent **names;
	char *path;
	int n, i, rc = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		rc = -errno;
		fprintf(err, "lockstall: %s: cannot read the directory: %s\n", dir, strerror(-rc));
		return rc;
	}
	for (i = 0; i < n; i++) {
		if (!rc && names[i]->d_name[0] != '.') {
			if (asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0)
				rc = -ENOMEM;
			else
				rc = fleet_run__add(run, path);
			if (rc != -ENOMEM)
				free(path);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* The command line's files and directories into jobs. */
static int fleet_run__inputs(struct fleet_run *run, FILE *err)
{
	const struct ls_config *cfg = run->cfg;
	struct stat st;
	unsigned int i;
	int rc = 0;

	for (i = 0; !rc && i < cfg->n_inputs; i++) {
		if (!stat(cfg->inputs[i], &st) && S_ISDIR(st.st_mode))
			rc = fleet_run__dir(run, cfg->inputs[i], err);
		else
			rc = fleet_run__add(run, cfg->inputs[i]);
	}
	if (rc == -ENOMEM)
		fprintf(err, "lockstall: cannot list the recordings: %s\n", strerror(ENOMEM));
	return rc;
}

/*
 * What a reader said about path, as one line: each "lockstall: PATH: "
 * taken off, lines joined by "; ".  NULL: nothing said.
 */
static char *fleet__why(char *said, const char *path)
{
	size_t plen = strlen(path), o = 0;
	char *line, *save = NULL, *out;

	if (!said || !*said)
		return NULL;
	/* "; " for each newline, and lines without the prefix: at most twice as long */
	out = malloc(2 * strlen(said) + 1);
	if (!out)
		return NULL;
	for (line = strtok_r(said, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "lockstall: ", 11))
			line += 11;
		if (!strncmp(line, path, plen) && !strncmp(line + plen, ": ", 2))
			line += plen + 2;
		o += (size_t)sprintf(out + o, "%s%s", o ? "; " : "", line);
	}
	return out;
}

static const char *fleet__cgroup_path(void *cg, __u64 id)
{
	return cgroups__path(cg, id);
}

/*
 * The paths of the cgroups rec's stalls name, from the metadata at the
 * recording's end: read with its records, one pass over the file.
 */
static int fleet__rec_cgroups(struct fleet_rec *rec, struct trace_reader *r)
{
	struct cgroups *cg = cgroups__new();
	const char *key, *val;
	size_t i, len;
	int rc;

	if (!cg)
		return -ENOMEM;
	for (i = 0; !trace_reader__meta_at(r, i, &key, &val, &len); i++)
		report__cgroups_meta(cg, key, val, len);
	rc = fleet_rec__cgroup_paths(rec, fleet__cgroup_path, cg);
	cgroups__free(cg);
	return rc;
}

/* The recording's metadata the fleet keeps, its clock offset and cgroup paths. */
static int fleet__rec_meta(struct fleet_rec *rec, struct trace_reader *r)
{
	static const char *const keys[] = { "host", "boot_id", "kernel.release", "lockstall.version" };
	const char *v = trace_reader__meta(r, "clock.realtime_minus_monotonic_ns", NULL);
	char *end;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		fleet_rec__meta(rec, keys[i], trace_reader__meta(r, keys[i], NULL));
	if (!rec->host[0])
		snprintf(rec->host, sizeof(rec->host), "?");
	if (v && *v) {
		errno = 0;
		rec->offset_ns = strtoll(v, &end, 10);
		rec->has_clock = !errno && !*end;
	}
	return fleet__rec_cgroups(rec, r);
}

/* Every record of r into a session whose output is rec.  0 or a negative errno. */
static int fleet__replay(struct trace_reader *r, struct session_opts *so, struct fleet_rec *rec)
{
	struct sink_opts o = { .top = 0, .filter_pid = so->pid, .hist_min_ns = 0 };
	struct session s = { 0 };
	const void *p;
	size_t len;
	int rc;

	so->format = SESSION_CUSTOM;
	so->custom = fleet_rec__sink(rec, &o);
	if (!so->custom || session__init(&s, so, NULL)) {
		session__destroy(&s);
		return -ENOMEM;
	}
	while ((rc = trace_reader__next_record(r, &p, &len)) > 0) {
		if (session__feed(&s, p, len) < 0)
			break;
	}
	if (!rc && !s.feed_err)
		session__finish(&s);
	if (!rc && s.feed_err)
		rc = s.feed_err;
	session__destroy(&s);
	return rc;
}

/*
 * Open, filter by host, take the options: 0, 1 (not of --host), or an
 * error (said on said).  Only regular files: opening a FIFO would wait for
 * a writer, and a thousand files must not hang on one.
 */
static int fleet__open(const struct ls_config *c, struct trace_reader **r,
		       struct session_opts *so, FILE *said)
{
	const char *host;
	struct stat st;

	if (stat(c->input, &st)) {
		fprintf(said, "%s\n", strerror(errno));
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(said, "%s\n", S_ISDIR(st.st_mode) ?
			"a directory: its recordings are read when it is named itself" :
			"not a regular file");
		return -EINVAL;
	}
	if (trace_reader__open(r, c->input, said))
		return -EINVAL;
	host = trace_reader__meta(*r, "host", NULL);
	if (c->host_pattern && fnmatch(c->host_pattern, host ? host : "", 0))
		return 1;
	return report__options(*r, c, so, said) ? -EINVAL : 0;
}

/* One file, as `report FILE` reads it, into job->rec or job->why. */
static void fleet__read_one(const struct ls_config *cfg, struct fleet_job *job)
{
	struct ls_config c = *cfg;
	struct session_opts so = {
		.top = LS_DEFAULT_TOP,
		.threshold_ns = LS_DEFAULT_THRESHOLD_NS,
		.window = cfg->has_from || cfg->has_to,
		.from_ns = cfg->from_ns,
		.to_ns = cfg->has_to ? cfg->to_ns : 0,
	};
	struct trace_reader *r = NULL;
	char *said = NULL;
	size_t said_len = 0;
	FILE *sf = open_memstream(&said, &said_len);
	int rc;

	c.input = job->path;
	rc = sf ? fleet__open(&c, &r, &so, sf) : -ENOMEM;
	job->skipped = rc == 1;
	if (rc)
		goto out;
	job->rec = fleet_rec__new(job->path);
	rc = job->rec ? fleet__replay(r, &so, job->rec) : -ENOMEM;
	rc = rc ?: fleet__rec_meta(job->rec, r);
	if (!rc)
		job->rec->damage = trace_reader__status(r);
out:
	if (sf)
		fclose(sf);
	if (rc < 0) {
		fleet_rec__free(job->rec);
		job->rec = NULL;
		job->why = fleet__why(said, job->path);
		if (!job->why)
			job->why = strdup(rc == -ENOMEM ? "out of memory" : strerror(-rc));
	} else if (job->rec && job->rec->damage) {
		job->rec->note = fleet__why(said, job->path);
	}
	free(said);
	trace_reader__close(r);
}

static void *fleet__worker(void *arg)
{
	struct fleet_run *run = arg;
	size_t i;

	while ((i = atomic_fetch_add(&run->next, 1)) < run->n_jobs)
		fleet__read_one(run->cfg, &run->jobs[i]);
	return NULL;
}

/* Read every job, in up to one thread per CPU (this thread is one). */
static void fleet_run__read(struct fleet_run *run)
{
	pthread_t t[FLEET_MAX_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 1 ? (size_t)cpus : 1, i, started = 0;

	if (n > FLEET_MAX_THREADS)
		n = FLEET_MAX_THREADS;
	if (n > run->n_jobs)
		n = run->n_jobs ? run->n_jobs : 1;
	for (i = 1; i < n; i++) {
		if (pthread_create(&t[started], NULL, fleet__worker, run))
			break;
		started++;
	}
	fleet__worker(run);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
}

static void fleet_run__free(struct fleet_run *run)
{
	size_t i;

	for (i = 0; i < run->n_jobs; i++) {
		free(run->jobs[i].path);
		free(run->jobs[i].why);
		fleet_rec__free(run->jobs[i].rec);
	}
	free(run->jobs);
}

/* What one report does that many cannot: refused before anything is read. */
static int fleet__check(const struct ls_config *cfg, FILE *err)
{
	const char *what = cfg->n_slo ? "--slo" : cfg->rules_file ? "--rules" :
			   cfg->report_format == LS_FORMAT_FOLDED ? "--folded" :
			   cfg->per_pid ? "--per-pid" :
			   cfg->hist_min_ns != LS_DEFAULT_HIST_MIN_NS ? "--hist-min" : NULL;

	if (!what)
		return 0;
	fprintf(err, "lockstall: %s goes with one recording, not a fleet's (see 'lockstall report --help')\n",
		what);
	return LS_EXIT_USAGE;
}

/* --force must not replace a recording being read. */
static int fleet__check_output(const struct fleet_run *run, FILE *err)
{
	const char *out = run->cfg->output;
	struct stat o, in;
	size_t i;

	if (!out || !run->cfg->force || lstat(out, &o))
		return 0;
	for (i = 0; i < run->n_jobs; i++) {
		if (!stat(run->jobs[i].path, &in) && in.st_dev == o.st_dev && in.st_ino == o.st_ino) {
			fprintf(err, "lockstall: %s: is one of the recordings: choose another output\n",
				out);
			return -EINVAL;
		}
	}
	return 0;
}

/* The jobs' outcomes into f; the files left out said on err too.  Counts skipped ones. */
static int fleet__collect(struct fleet_run *run, struct fleet *f, size_t *skipped, FILE *err)
{
	struct fleet_job *j;
	size_t i;

	for (i = 0; i < run->n_jobs; i++) {
		j = &run->jobs[i];
		*skipped += j->skipped;
		if (j->rec) {
			if (j->rec->damage)
				fprintf(err, "lockstall: %s: %s\n", j->path,
					j->rec->note ? j->rec->note : "damaged: read up to the damage");
			if (fleet__add(f, j->rec))
				return -ENOMEM;
			j->rec = NULL;
		} else if (j->why) {
			fprintf(err, "lockstall: %s: %s: left out\n", j->path, j->why);
			if (fleet__bad(f, j->path, j->why))
				return -ENOMEM;
		}
	}
	return 0;
}

static int fleet__output(const struct ls_config *cfg, const struct fleet *f, FILE *out, FILE *err)
{
	struct fleet_opts o = { .top = cfg->top_set ? cfg->top : LS_DEFAULT_TOP,
				.hosts = cfg->host_pattern };
	static int (*const print[])(const struct fleet *, const struct fleet_opts *, FILE *) = {
		[LS_FORMAT_TEXT] = fleet__print_text,
		[LS_FORMAT_JSON] = fleet__print_json,
		[LS_FORMAT_MARKDOWN] = fleet__print_markdown,
		[LS_FORMAT_HTML] = fleet__print_html,
		[LS_FORMAT_PERFETTO] = fleet__print_perfetto,
	};
	FILE *fo = NULL;
	int rc;

	if (report__open_output(cfg, out, err, &fo))
		return LS_EXIT_FAILURE;
	rc = print[cfg->report_format](f, &o, fo);
	if (fo != out && fclose(fo) && !rc)
		rc = -errno;
	if (rc == -EPIPE)
		return LS_EXIT_OK;
	if (rc) {
		fprintf(err, "lockstall: cannot write output: %s\n", strerror(-rc));
		return LS_EXIT_FAILURE;
	}
	return LS_EXIT_OK;
}

/* Nothing to report: say why.  An exit code. */
static int fleet__none(const struct ls_config *cfg, const struct fleet_run *run, size_t skipped,
		       FILE *err)
{
	if (!run->n_jobs)
		fprintf(err, "lockstall: no file to read: the directories given are empty\n");
	else if (skipped && cfg->host_pattern)
		fprintf(err, "lockstall: no recording of a host matching '%s' could be read (%zu file%s)\n",
			cfg->host_pattern, run->n_jobs, run->n_jobs == 1 ? "" : "s");
	else
		fprintf(err, "lockstall: none of the %zu file%s could be read\n", run->n_jobs,
			run->n_jobs == 1 ? "" : "s");
	return LS_EXIT_FAILURE;
}

int cmd_report_fleet(const struct ls_config *cfg, FILE *out, FILE *err)
{
	struct fleet_run run = { .cfg = cfg };
	struct fleet f;
	size_t skipped = 0;
	int ret = fleet__check(cfg, err);

	if (ret)
		return ret;
	fleet__init(&f);
	ret = LS_EXIT_FAILURE;
	if (fleet_run__inputs(&run, err) || fleet__check_output(&run, err))
		goto cleanup;
	fleet_run__read(&run);
	if (fleet__collect(&run, &f, &skipped, err) || (f.n_recs && fleet__merge(&f))) {
		fprintf(err, "lockstall: cannot merge the recordings: %s\n", strerror(ENOMEM));
		goto cleanup;
	}
	if (!f.n_recs) {
		ret = fleet__none(cfg, &run, skipped, err);
		goto cleanup;
	}
	fprintf(err, "lockstall: %zu recording%s of %zu host%s read, %zu left out%s\n", f.n_recs,
		f.n_recs == 1 ? "" : "s", f.n_rows, f.n_rows == 1 ? "" : "s", f.n_bad,
		skipped ? " (and the other hosts' not read: --host)" : "");
	ret = fleet__output(cfg, &f, out, err);
	if (ret == LS_EXIT_OK && f.n_bad)
		ret = LS_EXIT_PARTIAL;
cleanup:
	fleet__free(&f);
	fleet_run__free(&run);
	return ret;
}
