/**
 * Benchmark `watch-stages` (issue 55): where a protobuf watch event's CPU goes in mon, stage by stage, in one run
 * per size — the stream alone (the runtime reading the watch, frames counted by their length, nothing decoded),
 * the informer decoding every frame into the declared projection with nothing kept, and the whole path into the
 * Inventory — beside client-node's informer on the same stream. Each arm is the watch benchmark's
 * (scripts/bench/watch-arm.ts), in a process of its own against its own simulator. Sizes in BENCH_WATCH_SIZES
 * (5,000 and 150,000 pods unless told). Writes scripts/bench/results/watch-stages.json and its table in
 * docs/performance.md. Run: npm run bench
 */
import { runArms } from "./arms.ts";
import { publish } from "./report.ts";
import { measureWatch, type WatchArm } from "./watch-arm.ts";

const SIZES = (process.env.BENCH_WATCH_SIZES ?? "5000,150000").split(",").map(Number);
const ARMS: readonly WatchArm[] = ["protobuf-stream", "protobuf-decoded", "mon-protobuf", "client-node"];
const LABEL: Partial<Record<WatchArm, string>> = {
  "protobuf-stream": "the stream alone: read, frames counted, nothing decoded",
  "protobuf-decoded": "and decoded into the declared projection, nothing kept",
  "mon-protobuf": "and kept: the Inventory's door, indexes, the collector's work on what is kept (mon)",
  "client-node": "@kubernetes/client-node (JSON, its ObjectCache)",
};

const results: Awaited<ReturnType<typeof measureWatch>>[] = [];
for (const size of SIZES)
  results.push(...(await runArms(import.meta.filename, ARMS, measureWatch, { BENCH_PODS: String(size) })));

/** CPU microseconds an event, from events per CPU-second. */
const micros = (rate: number | undefined) => (rate ? Number((1e6 / rate).toFixed(1)) : undefined);
const rows = results.map((r) => ({
  pods: r.pods,
  arm: r.arm,
  pace: micros(r.watchEventsPerCpuSecond),
  backlog: micros(r.backlogEventsPerCpuSecond),
}));
const table = [
  "CPU per pod status event (µs; events per CPU-second in brackets), one process per arm, one run:",
  "",
  "| pods | stage | at the simulator's pace | on a backlog | added at pace | added on a backlog |",
  "|---:|---|---:|---:|---:|---:|",
  ...rows.map((r, i) => {
    const before = r.arm === "protobuf-decoded" || r.arm === "mon-protobuf" ? rows[i - 1] : undefined;
    const added = (a?: number, b?: number) => (a !== undefined && b !== undefined ? (a - b).toFixed(1) : "–");
    const rate = results[i]!;
    return `| ${r.pods} | ${LABEL[r.arm]} | ${r.pace} (${rate.watchEventsPerCpuSecond}) | ${r.backlog ?? "–"} (${rate.backlogEventsPerCpuSecond ?? "–"}) | ${before ? added(r.pace, before.pace) : "–"} | ${before ? added(r.backlog, before.backlog) : "–"} |`;
  }),
].join("\n");
publish("watch-stages", { runtime: `bun ${Bun.version}`, results }, table);
process.exit(0);
