// The peer side of scripts/dataviewbench: Dataview's own engine, warm,
// answering the benchmark's queries one at a time and timing each.
//
//   node engine.mjs ENGINE.cjs VAULT_DIR
//
// ENGINE.cjs is a CommonJS bundle of Dataview 0.5.70's engine (its index,
// importer and query API, built from Dataview's source) exporting
// createOracle(dir, {ctime, mtime}) → {api} and Settings (luxon's). It
// reads the vault once, then for each line on stdin (a JSON query) runs
// api.query(query, origin) and prints {ms, rows} on stdout.
process.env.TZ = "UTC";
import { createRequire } from "module";
import * as readline from "readline";

const [enginePath, vaultDir] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const E = require(enginePath);
const loadStart = performance.now();
const o = E.createOracle(vaultDir, { ctime: Date.parse("2026-10-15T09:30:00Z"), mtime: Date.parse("2026-11-18T14:45:00Z") });
process.stdout.write(JSON.stringify({ loaded: performance.now() - loadStart }) + "\n");

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
    const q = JSON.parse(line);
    const start = performance.now();
    const r = await o.api.query(q.query, q.origin ?? "");
    const ms = performance.now() - start;
    let rows = -1;
    if (r.successful) rows = Array.isArray(r.value.values) ? r.value.values.length : 1;
    process.stdout.write(JSON.stringify({ ms, rows, error: r.successful ? undefined : String(r.error) }) + "\n");
}
