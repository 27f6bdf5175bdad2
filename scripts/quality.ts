/**
 * Alert quality on real timing: replays every recorded timeline through the real daemon (src/testing/replay.ts),
 * then tells the same story to the simulator's own controllers, and compares what a webhook received with what
 * a platform engineer should get (src/testing/expectations.ts). Prints one table, a row per scenario and timing. Usage: bun scripts/quality.ts [--write] (writes the table into docs/alert-quality.md between
 * its markers) [--verbose] (every message).
 */
import { join } from "node:path";
import { EXPECTATIONS, type Judged, judge, qualityTable } from "../src/testing/expectations.ts";
import { startReplay, startStory } from "../src/testing/replay.ts";
import { writeBetweenMarkers } from "./generated-file.ts";

const rows: Judged[] = [];
for (const [timing, start] of [
  ["recorded", startReplay],
  ["controllers", startStory],
] as const)
  for (const expected of EXPECTATIONS) {
    const run = await start(expected.scenario);
    try {
      await run.runTo(run.lengthSeconds + 10);
      const told = run.told();
      rows.push({ ...judge(expected, told), timing });
      if (process.argv.includes("--verbose")) {
        console.log(`${expected.scenario} (${timing}):`);
        for (const m of told) console.log(`  t=${m.t.toFixed(1)} ${m.action} ${m.incidentId} ${m.reason}`);
      }
    } finally {
      await run.stop();
    }
  }
const table = qualityTable(rows);
console.log(table);
console.log(`\n${rows.filter((r) => r.ok).length} of ${rows.length} scenarios as expected`);
if (process.argv.includes("--write")) {
  const path = join(import.meta.dirname, "..", "docs", "alert-quality.md");
  writeBetweenMarkers(
    path,
    "<!-- quality table: bun scripts/quality.ts --write -->",
    "<!-- end of quality table -->",
    table,
  );
  console.log(`wrote ${path}`);
}
process.exit(0);
