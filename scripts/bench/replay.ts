/**
 * Benchmark `mon replay` (issue 32, docs/explain.md): a day of history — the recorded `statefulset_crash`
 * timeline repeated every 10 minutes for 24 hours, each repetition in a namespace of its own (12,672 watch
 * events, 144 incidents) — replayed through the real engine on a fake clock with one webhook. Measures wall
 * time and the peak resident set of this process. Writes scripts/bench/results/replay.json and the table in
 * docs/performance.md.
 */
import { join } from "node:path";
import { CONFIG_DOMAIN } from "../../src/config-domain.ts";
import { replay } from "../../src/app/commands/replay.ts";
import { parseConfig } from "../../src/config/load.ts";
import { loadTimeline, TIMELINES_DIR, type Timeline } from "../../src/sim/timeline.ts";
import { publish } from "./report.ts";

const REPETITIONS = 144;
const EVERY_SECONDS = 600;

const one = loadTimeline(join(TIMELINES_DIR, "statefulset_crash"));
const rename = (o: unknown, i: number) =>
  JSON.parse(JSON.stringify(o).replaceAll("tl-statefulset-crash", `tl-statefulset-crash-${i}`));
const day: Timeline = {
  ...one,
  name: "a day of statefulset_crash",
  events: Array.from({ length: REPETITIONS }, (_, i) =>
    one.events.map((e) => ({ ...e, t: e.t + i * EVERY_SECONDS, object: rename(e.object, i) })),
  ).flat(),
  lengthSeconds: one.lengthSeconds + (REPETITIONS - 1) * EVERY_SECONDS,
};
const loaded = parseConfig(
  "app:\n  clusterName: bench\nalert:\n  webhook:\n    url: http://127.0.0.1:9/hook\n",
  "bench.yaml",
  {},
  CONFIG_DOMAIN,
);
let peak = process.memoryUsage().rss;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const started = performance.now();
const { lines } = await replay(day, loaded, "community");
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
const result = {
  runtime: `bun ${Bun.version}`,
  events: day.events.length,
  historySeconds: Math.round(day.lengthSeconds),
  messages: lines.length,
  seconds: Math.round(seconds * 100) / 100,
  peakRssMiB: Math.round(peak / 1024 ** 2),
};
const table = [
  "| history replayed | watch events | messages | wall time | peak RSS |",
  "|---|---:|---:|---:|---:|",
  `| ${Math.round(result.historySeconds / 3600)} h (statefulset_crash every 10 min) | ${result.events} | ${result.messages} | ${result.seconds} s | ${result.peakRssMiB} MiB |`,
].join("\n");
publish("replay", result, table);
