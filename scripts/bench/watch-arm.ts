/**
 * One arm of the watch benchmarks (scripts/bench/watch.ts, watch-stages.ts), in a process of its own against its
 * own simulator process (or the real control plane scripts/bench/watch-real.ts seeded): list → synced, RSS after
 * sync, a burst of pod status changes at the simulator's pace and again as a backlog, each on the CPU clock, and
 * `JSON.parse` of the same bytes.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { CoreV1Api, type Informer, KubeConfig, type KubernetesObject, makeInformer } from "@kubernetes/client-node";
import { connectKube } from "../../src/kube/connection.ts";
import { createInformer } from "../../src/kube/informer.ts";
import { Inventory } from "../../src/kube/inventory.ts";
import { PROTOBUF_TYPE } from "../../src/kube/protobuf/envelope.ts";
import { protobufRead } from "../../src/kube/protobuf/plans.ts";
import { createSystemClock } from "../../src/runtime/clock.ts";
import { createSilentLogger } from "../../src/runtime/logger.ts";

/**
 * The informers measured: mon's in JSON and in protobuf, client-node's; and two stages of mon's protobuf path —
 * the stream alone (the runtime's fetch and TLS reading the watch, frames counted by their length prefix,
 * nothing decoded) and the informer decoding every frame into the declared projection, nothing kept.
 */
export const WATCH_ARMS = ["mon", "mon-protobuf", "client-node", "protobuf-stream", "protobuf-decoded"] as const;
export type WatchArm = (typeof WATCH_ARMS)[number];

const CHURN = Number(process.env.BENCH_CHURN ?? 20_000);

/** One arm at BENCH_PODS pods, in a process of its own (runArms): list → synced, RSS, the burst's CPU rate. */
export async function measureWatch(arm: WatchArm) {
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
      : arm === "protobuf-stream"
        ? await startStream(connection, counted)
        : await startMon(connection, counted, arm !== "mon", arm !== "protobuf-decoded");
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

/**
 * mon's informers (Pods, Nodes) into its Inventory, in JSON or protobuf (issue 55), or with nothing kept (`keep`
 * false: each decoded object dropped); resolves once both synced.
 */
async function startMon(
  connection: Awaited<ReturnType<typeof connectKube>>,
  counted: () => void,
  protobuf: boolean,
  keep: boolean,
) {
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
        if (keep) inventory.apply(kind.kind, type, o);
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

/**
 * The runtime's floor for a protobuf watch: the Pods and Nodes watches opened from their current resourceVersion
 * as mon opens them (protobuf asked for), every chunk read and its length-prefixed frames counted, nothing
 * decoded. Throws when the server does not answer protobuf.
 */
async function startStream(connection: Awaited<ReturnType<typeof connectKube>>, counted: () => void) {
  const aborted = new AbortController();
  for (const path of ["/api/v1/pods", "/api/v1/nodes"]) {
    const { metadata } = await connection.getJson<{ metadata: { resourceVersion: string } }>(`${path}?limit=1`);
    const response = await connection.request(
      `${path}?watch=1&resourceVersion=${metadata.resourceVersion}&timeoutSeconds=3600`,
      { signal: aborted.signal, stream: true, headers: { accept: `${PROTOBUF_TYPE}, application/json` } },
    );
    if (!response.headers.get("content-type")?.startsWith(PROTOBUF_TYPE) || !response.body)
      throw new Error(`watch ${path}: not answered in protobuf (${response.headers.get("content-type")})`);
    const reader = response.body.getReader();
    void (async () => {
      // A frame is a 4-byte big-endian length and that many bytes: only the lengths are read.
      let header = 0;
      let headerBytes = 0;
      let remaining = 0;
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done || !value) return;
        let i = 0;
        while (i < value.length) {
          if (remaining > 0) {
            const take = Math.min(remaining, value.length - i);
            i += take;
            remaining -= take;
            if (remaining === 0) counted();
            continue;
          }
          header = header * 256 + value[i++]!;
          if (++headerBytes === 4) {
            remaining = header;
            header = 0;
            headerBytes = 0;
          }
        }
      }
    })();
  }
  return () => aborted.abort();
}
