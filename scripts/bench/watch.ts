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
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { connectKube } from "../../src/kube/connection.ts";
import { createInformer } from "../../src/kube/informer.ts";
import { Inventory } from "../../src/kube/inventory.ts";
import { trimManagedFields } from "../../src/kube/trim.ts";
import { createSystemClock } from "../../src/runtime/clock.ts";
import { createSilentLogger } from "../../src/runtime/logger.ts";

const CHURN = Number(process.env.BENCH_CHURN ?? 20_000);
const root = join(import.meta.dirname, "..", "..");

const child = spawn(process.execPath, [join(import.meta.dirname, "watch-sim.ts")], {
  stdio: ["pipe", "pipe", "inherit"],
  env: process.env,
});
const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
const next = async () => JSON.parse(String((await lines.next()).value));
const seeded = (await next()) as { kubeconfig: string; listedBytes: number; pods: number; nodes: number };

const rssBefore = process.memoryUsage().rss;
const connection = await connectKube({ kubeconfigText: seeded.kubeconfig });
const inventory = new Inventory();
let events = 0;
// Resolved from the informer's own callback when `target` events arrived: no polling charged to mon.
let target = Number.POSITIVE_INFINITY;
let reached: (() => void) | undefined;
const eventsReach = (n: number) =>
  new Promise<void>((resolve) => {
    target = n;
    reached = resolve;
    if (events >= n) resolve();
  });
const started = performance.now();
const informers = [
  { kind: "Pod", path: "/api/v1/pods" },
  { kind: "Node", path: "/api/v1/nodes" },
].map((kind) =>
  createInformer({
    connection,
    kind,
    clock: createSystemClock(),
    logger: createSilentLogger(),
    resyncMs: 0,
    onEvent: (type, o) => {
      inventory.apply(kind.kind, type, o);
      events++;
      if (events >= target) reached?.();
    },
    onState: () => {},
  }),
);
for (const i of informers) i.start();
while (!informers.every((i) => i.synced())) await new Promise((r) => setTimeout(r, 5));
const syncSeconds = (performance.now() - started) / 1000;
Bun.gc(true);
const rssAfterSync = process.memoryUsage().rss;

// Steady state: a burst of changes; time from the first one received to the last one in the Inventory.
const rvBefore = (await connection.getJson<{ metadata: { resourceVersion: string } }>("/api/v1/pods?limit=1")).metadata
  .resourceVersion;
const before = events;
child.stdin!.write(`churn ${CHURN}\n`);
await eventsReach(before + 1);
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await eventsReach(before + CHURN);
const watchSeconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
// The producer (the simulator) paces the stream; mon's own CPU time tells what mon could sustain on one core.
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
await next();
const eventsPerSecond = CHURN / watchSeconds;

// The same bytes mon received: the watch replayed from the resourceVersion before the burst (the server
// serialises each event as it did for mon), then JSON.parse alone over those lines, in CPU time, like mon's.
const replay = await connection.request(`/api/v1/pods?watch=1&resourceVersion=${rvBefore}&timeoutSeconds=2`);
const sample = new TextDecoder()
  .decode(await replay.arrayBuffer())
  .split("\n")
  .filter((l) => l.includes('"MODIFIED"'))
  .slice(0, CHURN);
const streamBytes = sample.reduce((n, l) => n + l.length + 1, 0);
const p0 = process.cpuUsage();
let parsed = 0;
for (const line of sample) parsed += JSON.parse(line).type.length;
const parseUsage = process.cpuUsage(p0);
const parseCpuSeconds = (parseUsage.user + parseUsage.system) / 1e6;
const parsePerSecond = sample.length / parseCpuSeconds;

// mon's per-event work without the transport: parse, trim managed fields, apply to an Inventory.
const scratch = new Inventory();
const q0 = performance.now();
for (const line of sample) {
  const event = JSON.parse(line) as { type: "MODIFIED"; object: Record<string, any> };
  scratch.apply("Pod", event.type, trimManagedFields(event.object));
}
const processingPerSecond = sample.length / ((performance.now() - q0) / 1000);

// Managed fields: the recorded pod's bytes with and without trimming, over the listed pods.
const template = JSON.parse(readFileSync(join(import.meta.dirname, "testdata", "pod.json"), "utf8"));
const full = JSON.stringify(template).length;
const trimmed = JSON.stringify(trimManagedFields(structuredClone(template))).length;

for (const i of informers) i.stop();
child.kill();

const result = {
  runtime: `bun ${Bun.version}`,
  pods: seeded.pods,
  nodes: seeded.nodes,
  listedMiB: Number((seeded.listedBytes / 2 ** 20).toFixed(1)),
  listToSyncedSeconds: Number(syncSeconds.toFixed(2)),
  watchEventsPerSecondWall: Math.round(eventsPerSecond),
  watchEventsPerCpuSecond: Math.round(CHURN / cpuSeconds),
  jsonParseEventsPerSecond: Math.round(parsePerSecond),
  processingOnlyEventsPerSecond: Math.round(processingPerSecond),
  // CPU against CPU, on the same bytes: JSON.parse's CPU time over mon's for the same events.
  throughputRatioToJsonParse: Number(((parseCpuSeconds / sample.length) * (CHURN / cpuSeconds)).toFixed(3)),
  streamBytesPerEvent: Math.round(streamBytes / Math.max(1, sample.length)),
  parsedEvents: sample.length,
  rssAfterSyncMiB: Math.round(rssAfterSync / 2 ** 20),
  rssGrowthMiB: Math.round((rssAfterSync - rssBefore) / 2 ** 20),
  rssPerListedByte: Number((rssAfterSync / seeded.listedBytes).toFixed(2)),
  managedFieldsBytesPerPod: { full, trimmed, savedPercent: Number((((full - trimmed) / full) * 100).toFixed(1)) },
  checksum: parsed,
};
writeFileSync(join(root, "scripts", "bench", "results", "watch.json"), `${JSON.stringify(result, null, 2)}\n`);
const table = [
  "| pods | nodes | listed JSON (MiB) | list → synced (s) | watch events/s (wall, producer-paced) | watch events per CPU-second | JSON.parse events per CPU-second (same bytes) | ratio (CPU against CPU) | parse+trim+Inventory events/s (no transport) | RSS after sync (MiB) | RSS / listed byte | managed fields trimmed (bytes/pod) |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  `| ${result.pods} | ${result.nodes} | ${result.listedMiB} | ${result.listToSyncedSeconds} | ${result.watchEventsPerSecondWall} | ${result.watchEventsPerCpuSecond} | ${result.jsonParseEventsPerSecond} | ${result.throughputRatioToJsonParse} | ${result.processingOnlyEventsPerSecond} | ${result.rssAfterSyncMiB} | ${result.rssPerListedByte} | ${full} → ${trimmed} (−${result.managedFieldsBytesPerPod.savedPercent} %) |`,
].join("\n");
const doc = join(root, "docs", "performance.md");
writeFileSync(
  doc,
  readFileSync(doc, "utf8").replace(
    /<!-- watch:begin -->[\s\S]*<!-- watch:end -->/,
    `<!-- watch:begin -->\n${table}\n<!-- watch:end -->`,
  ),
);
console.log(table);
process.exit(0);
