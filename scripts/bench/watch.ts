/**
 * Benchmark `watch` (issue "see the whole cluster"): the simulator (another process) serves 50,000 pods and
 * 2,000 nodes, then a stream of pod status changes. Reports:
 * - list-to-synced seconds (Pods and Nodes informers into the Inventory, over HTTPS),
 * - steady watch events per second processed into an up-to-date Inventory, and the same stream's
 *   JSON.parse-only rate in the same run (our throughput as a ratio of it),
 * - RSS after sync divided by the JSON bytes of the listed objects,
 * - what trimming managed fields saves (spec 6.9) on the listed pods.
 * Writes scripts/bench/results/watch.json and the table in docs/performance.md. Run: npm run bench
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runArms } from "./arms.ts";
import { publish } from "./report.ts";
import { measureWatch, type WatchArm } from "./watch-arm.ts";
import { trimManagedFields } from "../../src/kube/trim.ts";

const CHURN = Number(process.env.BENCH_CHURN ?? 20_000);
const SIZES = (process.env.BENCH_WATCH_SIZES ?? "5000,20000,50000,150000").split(",").map(Number);
const ARMS: readonly WatchArm[] = ["mon", "mon-protobuf", "client-node"];
const root = join(import.meta.dirname, "..", "..");

const results: Awaited<ReturnType<typeof measureWatch>>[] = [];
for (const size of SIZES) {
  results.push(...(await runArms(import.meta.filename, ARMS, measureWatch, { BENCH_PODS: String(size) })));
}

// Sizes not measured in this run keep their rows from the last one (a long size can be re-run on its own).
const resultsFile = join(root, "scripts", "bench", "results", "watch.json");
const earlier = existsSync(resultsFile)
  ? (JSON.parse(readFileSync(resultsFile, "utf8")).results as typeof results).filter((r) => !SIZES.includes(r.pods))
  : [];
results.push(...earlier);
results.sort((a, b) => a.pods - b.pods || ARMS.indexOf(a.arm) - ARMS.indexOf(b.arm));

// Managed fields: the recorded pod's bytes with and without trimming (spec 6.9).
const template = JSON.parse(readFileSync(join(import.meta.dirname, "testdata", "pod.json"), "utf8"));
const full = JSON.stringify(template).length;
const trimmed = JSON.stringify(trimManagedFields(structuredClone(template))).length;
const result = {
  runtime: `bun ${Bun.version}`,
  churn: CHURN,
  managedFieldsBytesPerPod: { full, trimmed, savedPercent: Number((((full - trimmed) / full) * 100).toFixed(1)) },
  results,
};
const table = [
  "| pods | nodes | informer | listed JSON (MiB) | list → synced (s) | watch events per CPU-second | JSON.parse events per CPU-second (same bytes) | ratio to JSON.parse (CPU against CPU) | a backlog: events per CPU-second | a backlog: ratio to JSON.parse | RSS after sync (MiB) | RSS / listed byte |",
  "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.pods} | ${r.nodes} | ${r.arm === "client-node" ? "@kubernetes/client-node" : r.arm === "mon-protobuf" ? "mon (protobuf)" : "mon (JSON)"} | ${r.listedMiB} | ${r.listToSyncedSeconds} | ${r.watchEventsPerCpuSecond} | ${r.jsonParseEventsPerCpuSecond} | ${r.ratioToJsonParse} | ${r.backlogEventsPerCpuSecond ?? "–"} | ${r.backlogRatioToJsonParse ?? "–"} | ${r.rssAfterSyncMiB} | ${r.rssPerListedByte} |`,
  ),
  "",
  `Managed fields trimmed (spec 6.9): ${full} → ${trimmed} bytes per recorded pod (−${result.managedFieldsBytesPerPod.savedPercent} %).`,
].join("\n");
publish("watch", result, table);
process.exit(0);
