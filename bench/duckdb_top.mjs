// duckdb_top.mjs TRACE.json -- an anchor of `make bench` (bench/recipes.sh,
// bench/scale.sh): the top-kernels question asked of DuckDB (2 threads)
// reading the Kineto JSON itself.  Copied next to node_modules/@duckdb/node-api
// (npm install --prefix DIR @duckdb/node-api) and run there.
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
const f = process.argv[2].replace(/'/g, "''");
const r = await con.runAndReadAll(`
  SELECT e.name AS name, count(*) AS calls, sum(e.dur) AS total_us
  FROM (SELECT unnest(traceEvents) AS e
        FROM read_json('${f}', format = 'unstructured', maximum_object_size = 4000000000,
                       columns = {traceEvents: 'STRUCT(cat VARCHAR, name VARCHAR, dur DOUBLE)[]'}))
  WHERE e.cat = 'kernel' GROUP BY 1 ORDER BY total_us DESC LIMIT 10`);
for (const row of r.getRows()) console.log(row.map(String).join('\t'));
