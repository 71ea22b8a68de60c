// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The fleet report's culprits, ranked by a SQL engine (DuckDB) from the
// report's JSON lines: `lockstall report DIR --format json > fleet.jsonl`,
// then
//
//	node scripts/fleet-sql.js fleet.jsonl [DIR]
//
// prints "holder<TAB>stall_ns<TAB>stalls<TAB>hosts" per line, most stall
// time first, as the report's "culprits" table ranks them.  DIR holds
// node_modules/@duckdb/node-api (scripts/get-duckdb DIR; default: found
// from here as node finds packages).  lockstall-report(8) shows the same query.
'use strict';
const path = require('path');
const { createRequire } = require('module');

async function main() {
	const [file, dir] = process.argv.slice(2);
	if (!file) {
		console.error('usage: node scripts/fleet-sql.js FLEET.jsonl [DIR]');
		process.exit(2);
	}
	const req = dir ? createRequire(path.join(path.resolve(dir), 'x.js')) : require;
	const { DuckDBInstance } = req('@duckdb/node-api');
	const db = await DuckDBInstance.create(':memory:');
	const c = await db.connect();
	const quoted = file.replace(/'/g, "''");
	await c.run(`CREATE TABLE fleet_stall AS
		SELECT host, waiter, holder, holder_cgroup, lock_wait_ns
		FROM read_json('${quoted}', format = 'newline_delimited',
			columns = {type: 'VARCHAR', host: 'VARCHAR', waiter: 'VARCHAR',
				   holder: 'VARCHAR', holder_cgroup: 'VARCHAR', lock_wait_ns: 'UBIGINT'})
		WHERE type = 'fleet_stall'`);
	const r = await c.runAndReadAll(`SELECT holder, sum(lock_wait_ns) AS stall_ns,
			count(*) AS stalls, count(DISTINCT host) AS hosts
		FROM fleet_stall WHERE holder IS NOT NULL
		GROUP BY holder ORDER BY stall_ns DESC, holder`);
	for (const row of r.getRows())
		console.log(row.map(String).join('\t'));
}

main().catch((e) => {
	console.error(`fleet-sql: ${e.message}`);
	process.exit(1);
});
