// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fleet report's JSON lines in a real SQL engine: DuckDB (its npm
 * package, scripts/get-duckdb; run by scripts/fleet-sql.js) ranks the
 * culprits from the fleet_stall lines, and must agree with the report's
 * own culprits table, row for row.  The fleet: the golden run recorded
 * under three host names, and a copy of one (an overlap: its stalls are
 * counted once, in the lines as in the table).  No BPF needed; skips
 * without node or the package, fails then under LOCKSTALL_E2E=required.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include "lib/e2e_watch.h"
#include "lib/tmpdir.h"
#include "lib/trace_fixture.h"

#define NODE_TIMEOUT_MS	60000

static char dir[64];

static void setup(void)
{
	tmpdir__make(dir, sizeof(dir), "fleet-sql");
}

static void teardown(void)
{
	tmpdir__remove(dir);
}

TestSuite(fleet_sql, .init = setup, .fini = teardown, .timeout = 120);

/* $LOCKSTALL_DUCKDB (scripts/get-duckdb DIR): skip (or fail) without it or node. */
static const char *duckdb_dir(void)
{
	const char *d = getenv("LOCKSTALL_DUCKDB"), *mode = getenv("LOCKSTALL_E2E");
	char pkg[512];

	snprintf(pkg, sizeof(pkg), "%s/node_modules/@duckdb/node-api/package.json", d ? d : "");
	if (d && *d && !access(pkg, R_OK) && !access("/usr/bin/node", X_OK))
		return d;
	if (mode && !strcmp(mode, "required"))
		cr_assert_fail("LOCKSTALL_E2E=required, but no node or no %s (scripts/get-duckdb build/tools/duckdb)",
			       pkg);
	cr_log_warn("skipped: no node or no DuckDB (scripts/get-duckdb build/tools/duckdb)");
	cr_skip_test("no DuckDB");
	return NULL;
}

static void write_fleet(void)
{
	static const char *const hosts[] = { "web-1", "web-2", "db-1", "web-1" };
	struct trace_fixture_meta m;
	char path[256];
	struct stream s;
	size_t i;

	stream__init(&s);
	trace_fixture__stream(&s);
	for (i = 0; i < 4; i++) {
		m = (struct trace_fixture_meta){ hosts[i], hosts[i], TFX_REALTIME_NS + i * 1000000000ULL };
		if (i == 3)
			m.realtime_ns = TFX_REALTIME_NS;
		snprintf(path, sizeof(path), "%s/%zu-%s.lst", dir, i, hosts[i]);
		cr_assert_eq(trace_fixture__write_as(path, &s, &m), 0);
	}
	stream__free(&s);
}

/* The report's culprits table as "name\tns\tstalls\thosts\n" lines, in rank order. */
static char *culprits_of(const char *jsonl)
{
	char *text = NULL, *copy = strdup(jsonl), *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_t *j;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		j = json_loads(line, 0, NULL);
		cr_assert_not_null(j, "%s", line);
		if (!strcmp(json_string_value(json_object_get(j, "type")), "fleet_rank") &&
		    !strcmp(json_string_value(json_object_get(j, "table")), "culprits"))
			fprintf(f, "%s\t%lld\t%lld\t%lld\n", json_string_value(json_object_get(j, "name")),
				json_integer_value(json_object_get(j, "stall_ns")),
				json_integer_value(json_object_get(j, "stalls")),
				json_integer_value(json_object_get(j, "hosts")));
		json_decref(j);
	}
	fclose(f);
	free(copy);
	return text;
}

Test(fleet_sql, duckdb_ranks_the_culprits_as_the_report_does)
{
	const char *duck = duckdb_dir();
	char out[128], *want;
	const char *const report[] = { "report", dir, "--format", "json", "-o", out, NULL };
	char *node[] = { "/usr/bin/node", "scripts/fleet-sql.js", out, (char *)duck, NULL };
	struct e2e_proc p = E2E_PROC_INIT, *one[1] = { &p };
	size_t len;
	char *jsonl;

	write_fleet();
	snprintf(out, sizeof(out), "%s.jsonl", dir);
	e2e_run_cli(&p, report);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "report: %s", p.err.data);
	e2e_proc__release(&p);
	jsonl = (char *)trace_fixture__slurp(out, &len);
	cr_assert_not_null(jsonl);
	want = culprits_of(jsonl);
	cr_assert(strstr(want, "wl-io\t180000000\t3\t3\n"), "%s", want);

	p = (struct e2e_proc)E2E_PROC_INIT;
	cr_assert_eq(e2e_proc__spawn(&p, "node", node), 0);
	cr_assert_eq(e2e_proc__pump(one, 1, NODE_TIMEOUT_MS, NULL, NULL), 0, "%s", p.err.data);
	cr_assert_eq(e2e_proc__exit_code(&p), 0, "fleet-sql: %s", p.err.data);
	cr_assert_str_eq(p.out.data, want, "DuckDB:\n%s\nthe report:\n%s", p.out.data, want);
	e2e_proc__release(&p);
	unlink(out);
	free(jsonl);
	free(want);
}
