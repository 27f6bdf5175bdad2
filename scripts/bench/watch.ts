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
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { CoreV1Api, type Informer, KubeConfig, type KubernetesObject, makeInformer } from "@kubernetes/client-node";
import { runArms } from "./arms.ts";
import { publish } from "./report.ts";
import { connectKube } from "../../src/kube/connection.ts";
import { createInformer } from "../../src/kube/informer.ts";
import { Inventory } from "../../src/kube/inventory.ts";
import { protobufRead } from "../../src/kube/protobuf/plans.ts";
import { trimManagedFields } from "../../src/kube/trim.ts";
import { createSystemClock } from "../../src/runtime/clock.ts";
import { createSilentLogger } from "../../src/runtime/logger.ts";

const CHURN = Number(process.env.BENCH_CHURN ?? 20_000);
const SIZES = (process.env.BENCH_WATCH_SIZES ?? "5000,20000,50000,150000").split(",").map(Number);
const ARMS = ["mon", "mon-protobuf", "client-node"] as const;
type Arm = (typeof ARMS)[number];
const root = join(import.meta.dirname, "..", "..");

/** One arm at BENCH_PODS pods, in a process of its own (runArms): list → synced, RSS, the burst's CPU rate. */
async function measure(arm: Arm) {
  const churned = join(mkdtempSync(join(tmpdir(), "mon-watch-")), "churned");
  // The simulator, or the real control plane scripts/bench/watch-real.ts seeded (no backlog: see its source).
  const real = process.env.BENCH_SOURCE === "real";
  const source = real ? "watch-real-source.ts" : "watch-sim.ts";
  const child = spawn(process.execPath, [join(import.meta.dirname, source)], {
    stdio: ["pipe", "pipe", "inherit"],
    env: {
      ...process.env,
      BENCH_NODES: String(Math.max(200, Math.round(Number(process.env.BENCH_PODS) / 25))),
      BENCH_CHURNED_FILE: churned,
    },
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(String((await lines.next()).value));
  const seeded = (await next()) as { kubeconfig: string; listedBytes: number; pods: number; nodes: number };

  const rssBefore = process.memoryUsage().rss;
  const connection = await connectKube({ kubeconfigText: seeded.kubeconfig });
  let events = 0;
  // Resolved from the informer's own callback when `target` events arrived: no polling charged to the arm.
  let target = Number.POSITIVE_INFINITY;
  let reached: (() => void) | undefined;
  const counted = () => {
    events++;
    if (events >= target) reached?.();
  };
  const eventsReach = (n: number) =>
    new Promise<void>((resolve) => {
      target = n;
      reached = resolve;
      if (events >= n) resolve();
    });
  const started = performance.now();
  const stop =
    arm === "client-node"
      ? await startClientNode(seeded.kubeconfig, counted)
      : await startMon(connection, counted, arm === "mon-protobuf");
  const syncSeconds = (performance.now() - started) / 1000;
  Bun.gc(true);
  const rssAfterSync = process.memoryUsage().rss;

  // Steady state: a burst of changes; CPU time from the first one received to the last one handled.
  const rvBefore = (await connection.getJson<{ metadata: { resourceVersion: string } }>("/api/v1/pods?limit=1"))
    .metadata.resourceVersion;
  const before = events;
  child.stdin!.write(`churn ${CHURN}\n`);
  await eventsReach(before + 1);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await eventsReach(before + CHURN);
  const watchSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await next();

  // The same bytes: the watch replayed from the resourceVersion before the burst, then JSON.parse alone.
  const replay = await connection.request(`/api/v1/pods?watch=1&resourceVersion=${rvBefore}&timeoutSeconds=2`);
  const sample = new TextDecoder()
    .decode(await replay.arrayBuffer())
    .split("\n")
    .filter((l) => l.includes('"MODIFIED"'))
    .slice(0, CHURN);
  if (sample.length === 0) throw new Error(`the burst could not be read again from resourceVersion ${rvBefore}`);
  const p0 = process.cpuUsage();
  let parsed = 0;
  for (const line of sample) parsed += JSON.parse(line).type.length;
  const parseUsage = process.cpuUsage(p0);
  const parseCpuSeconds = (parseUsage.user + parseUsage.system) / 1e6;

  // A backlog: the same burst again while this process's event loop is held still (Atomics.wait sleeps without
  // CPU), so the events wait in the connection; then the CPU time from release to the last event handled. The
  // chunks are then full (no wake-up per event): what reading costs when it keeps up with a busy cluster.
  async function backlog() {
    const backlogBefore = events;
    child.stdin!.write(`backlog ${CHURN}\n`);
    await next();
    const still = new Int32Array(new SharedArrayBuffer(4));
    while (!existsSync(churned) || readFileSync(churned, "utf8") !== "2") Atomics.wait(still, 0, 0, 50);
    const b0 = process.cpuUsage();
    await eventsReach(backlogBefore + CHURN);
    const backlogUsage = process.cpuUsage(b0);
    await next();
    return (backlogUsage.user + backlogUsage.system) / 1e6;
  }
  const backlogCpuSeconds = real ? undefined : await backlog();
  stop();
  child.kill();
  return {
    arm,
    pods: seeded.pods,
    nodes: seeded.nodes,
    listedMiB: Number((seeded.listedBytes / 2 ** 20).toFixed(1)),
    listToSyncedSeconds: Number(syncSeconds.toFixed(2)),
    watchEventsPerSecondWall: Math.round(CHURN / watchSeconds),
    watchEventsPerCpuSecond: Math.round(CHURN / cpuSeconds),
    jsonParseEventsPerCpuSecond: Math.round(sample.length / parseCpuSeconds),
    // CPU against CPU, on the same bytes: JSON.parse's CPU time over the arm's for the same events.
    ratioToJsonParse: Number(((parseCpuSeconds / sample.length) * (CHURN / cpuSeconds)).toFixed(3)),
    ...(backlogCpuSeconds !== undefined
      ? {
          backlogEventsPerCpuSecond: Math.round(CHURN / backlogCpuSeconds),
          backlogRatioToJsonParse: Number(((parseCpuSeconds / sample.length) * (CHURN / backlogCpuSeconds)).toFixed(3)),
        }
      : {}),
    rssAfterSyncMiB: Math.round(rssAfterSync / 2 ** 20),
    rssGrowthMiB: Math.round((rssAfterSync - rssBefore) / 2 ** 20),
    rssPerListedByte: Number((rssAfterSync / seeded.listedBytes).toFixed(2)),
    checksum: parsed,
  };
}

/** mon's informers (Pods, Nodes) into its Inventory, in JSON or protobuf (issue 55); resolves once both synced. */
async function startMon(connection: Awaited<ReturnType<typeof connectKube>>, counted: () => void, protobuf: boolean) {
  const inventory = new Inventory();
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
      // As the daemon's watcher asks (kube/protobuf/plans.ts protobufRead): decoded objects are not projected again.
      ...(protobuf ? { protobuf: protobufRead(kind.path, kind.kind, false)! } : {}),
      onEvent: (type, o) => {
        inventory.apply(kind.kind, type, o);
        counted();
      },
      onState: () => {},
    }),
  );
  for (const i of informers) i.start();
  while (!informers.every((i) => i.synced())) await new Promise((r) => setTimeout(r, 5));
  return () => {
    for (const i of informers) i.stop();
  };
}

/** @kubernetes/client-node's own informers (makeInformer, its ObjectCache) on the same stream. */
async function startClientNode(kubeconfig: string, counted: () => void) {
  // client-node's requests under Bun do not take the kubeconfig's CA (they fail "self signed certificate in
  // certificate chain"); this arm talks only to the simulator on loopback, in a process of its own.
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const api = kc.makeApiClient(CoreV1Api);
  const informers: Informer<KubernetesObject>[] = [
    makeInformer<KubernetesObject>(kc, "/api/v1/pods", () => api.listPodForAllNamespaces()),
    makeInformer<KubernetesObject>(kc, "/api/v1/nodes", () => api.listNode()),
  ];
  for (const informer of informers) {
    informer.on("add", counted);
    informer.on("update", counted);
    informer.on("delete", counted);
  }
  await Promise.all(informers.map((i) => i.start()));
  return () => {
    for (const i of informers) void i.stop();
  };
}

const results: Awaited<ReturnType<typeof measure>>[] = [];
for (const size of SIZES) {
  results.push(...(await runArms(import.meta.filename, ARMS, measure, { BENCH_PODS: String(size) })));
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
