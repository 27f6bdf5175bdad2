/**
 * Alert quality on real timing (docs/alert-quality.md):
 * 1. replays every recorded timeline through the real daemon (src/testing/replay.ts), then tells the same story
 *    to the simulator's own controllers, and compares what a webhook received with what a platform engineer
 *    should get (src/testing/expectations.ts): one table, a row per scenario and timing;
 * 2. with `--profiles N`, the deep run of timing invariance (src/e2e/timing-invariance.test.ts): every story of
 *    the catalogue and the recorded ones under N generated legal timing profiles each, judged against the same
 *    conversation and the invariants (src/testing/timing): a second table, a row per story.
 * 3. with `--real`, the catalogue on a real Kubernetes v1.32 control plane (issue 40; src/testing/real-kube.ts,
 *    the kubelet stand-in): every story at its quick schedule, first on the simulator under QUICK_TIMING, then
 *    all at once on the real control plane through the real daemon, judged alike: a third table, a row per story.
 * Usage: bun scripts/quality.ts [--profiles N] [--seed S] [--only story,story] [--real] [--write] (the tables into
 * docs/alert-quality.md between their markers) [--verbose] (every message). `npm run quality --profiles N`
 * works too (npm hands the flag over as npm_config_profiles).
 */
import { join } from "node:path";
import fc from "fast-check";
import { AFTER_SECONDS, EXPECTATIONS, type Judged, judge, qualityTable } from "../src/testing/expectations.ts";
import { startReplay, startStory } from "../src/testing/replay.ts";
import { TIMED_EXPECTATIONS } from "../src/testing/timing/expectations.ts";
import { describeFailure, runTimed, storyTimingArbitrary } from "../src/testing/timing/run.ts";
import { realQualityTable } from "./real-quality.ts";
import { writeBetweenMarkers } from "./generated-file.ts";

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : process.env[`npm_config_${name}`];
};
const profiles = Number(flag("profiles") ?? 0);
const seed = Number(flag("seed") ?? 28);
const only = flag("only")?.split(",");
const verbose = process.argv.includes("--verbose");
const real = process.argv.includes("--real");
const DOC = join(import.meta.dirname, "..", "docs", "alert-quality.md");

if (!only && !real) {
  const rows: Judged[] = [];
  for (const [timing, start] of [
    ["recorded", startReplay],
    ["controllers", startStory],
  ] as const)
    for (const expected of EXPECTATIONS) {
      const run = await start(expected.scenario);
      try {
        await run.runTo(run.lengthSeconds + AFTER_SECONDS);
        const told = run.told();
        rows.push({ ...judge(expected, told), timing });
        if (verbose) {
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
    writeBetweenMarkers(
      DOC,
      "<!-- quality table: bun scripts/quality.ts --write -->",
      "<!-- end of quality table -->",
      table,
    );
    console.log(`wrote ${DOC}`);
  }
}

if (real) {
  const { table, ok } = await realQualityTable(only);
  console.log(`\n${table}`);
  if (process.argv.includes("--write") && !only) {
    writeBetweenMarkers(
      DOC,
      "<!-- real table: bun scripts/quality.ts --real --write -->",
      "<!-- end of real table -->",
      table,
    );
    console.log(`wrote ${DOC}`);
  }
  if (!ok) process.exit(1);
}

if (profiles > 0) {
  const lines = [
    "| story | source | what is told, whatever the timing | invariant under | slowest run (s) |",
    "|---|---|---|---|---|",
  ];
  let runs = 0;
  let failed = 0;
  const started = performance.now();
  for (const [i, expected] of TIMED_EXPECTATIONS.entries()) {
    if (only && !only.includes(expected.story)) continue;
    // The same seeds as the suite's property (seed + the story's index), drawn further.
    const timings = fc.sample(storyTimingArbitrary(), { seed: seed + i, numRuns: profiles });
    let held = 0;
    let slowest = 0;
    for (const timing of timings) {
      const t0 = performance.now();
      const { told, judgement } = await runTimed(expected, timing);
      slowest = Math.max(slowest, (performance.now() - t0) / 1000);
      runs++;
      if (judgement.same && judgement.violations.length === 0) held++;
      else {
        failed++;
        console.log(describeFailure(expected, timing, told, judgement));
      }
    }
    const told = expected.threads.length ? expected.threads.join("; ") : "nothing";
    lines.push(
      `| ${expected.story} | ${expected.source} | ${told} | ${held} of ${timings.length} | ${slowest.toFixed(1)} |`,
    );
    console.log(`${expected.story}: invariant under ${held} of ${timings.length} timing profiles`);
  }
  const summary = `${runs - failed} of ${runs} runs invariant (${lines.length - 2} stories × ${profiles} profiles, seed ${seed}), ${Math.round((performance.now() - started) / 1000)} s`;
  const table = `${lines.join("\n")}\n\n${summary}.`;
  console.log(`\n${table}`);
  if (process.argv.includes("--write") && !only) {
    writeBetweenMarkers(
      DOC,
      "<!-- timing table: bun scripts/quality.ts --profiles N --write -->",
      "<!-- end of timing table -->",
      table,
    );
    console.log(`wrote ${DOC}`);
  }
  if (failed > 0) process.exit(1);
}
process.exit(0);
