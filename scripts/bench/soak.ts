/**
 * Benchmark `soak` (issue 33, docs/performance.md "Soak"): a day of churn at PODS pods, compressed. An
 * Inventory of PODS pods shaped like the recorded kube-apiserver pod (on 2,000 nodes) runs through mon's
 * per-event work (JSON.parse, managed-fields trim, Inventory.apply) and the real pass loop (incremental
 * families, lifecycle, change memory) on a fake clock: EVENTS pod changes at 20,000 a second of that clock, one
 * in ten replacing a pod by a new one (a rollout's turnover), a pass every 250 ms. After a full collection every
 * SAMPLE events the resident set and the heap are sampled: flat after the warm-up means no growth per event.
 * Writes scripts/bench/results/soak.json (with the samples, the plot data) and the table in docs/performance.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPassLoop } from "../../src/app/pass/loop.ts";
import { Inventory } from "../../src/kube/inventory.ts";
import { trimManagedFields } from "../../src/kube/trim.ts";
import { createFakeClock } from "../../src/runtime/clock.ts";
import { publish } from "./report.ts";

const PODS = Number(process.env.BENCH_SOAK_PODS ?? 50_000);
const EVENTS = Number(process.env.BENCH_SOAK_EVENTS ?? 2_000_000);
const SAMPLE = 100_000;
const WARM_UP = 400_000;
const PER_PASS = 5_000;
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

const template = JSON.parse(readFileSync(join(import.meta.dirname, "testdata", "pod.json"), "utf8"));
const line = (name: string, uid: string, rv: number, restarts: number) => {
  const pod = structuredClone(template);
  pod.metadata.name = name;
  pod.metadata.namespace = "bench";
  pod.metadata.uid = uid;
  pod.metadata.resourceVersion = String(rv);
  pod.spec.nodeName = `node-${rv % 2000}`;
  for (const s of pod.status?.containerStatuses ?? []) s.restartCount = restarts;
  return JSON.stringify({ type: "MODIFIED", object: pod });
};
const clock = createFakeClock(Date.UTC(2026, 10, 1));
const inventory = new Inventory();
const names: string[] = [];
let rv = 0;
for (let i = 0; i < PODS; i++) {
  names.push(`pod-${i}`);
  inventory.apply("Pod", "ADDED", trimManagedFields(JSON.parse(line(`pod-${i}`, `uid-${i}`, ++rv, 0)).object));
}
for (let n = 0; n < 2000; n++)
  inventory.apply("Node", "ADDED", {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: `node-${n}`, creationTimestamp: "2026-10-01T00:00:00Z" },
    status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-10-01T00:00:00Z" }] },
  });
for (const kind of ["Pod", "Node"]) inventory.markWatched(kind);
let passes = 0;
const loop = createPassLoop({
  clock,
  inventory,
  cluster: "soak",
  rules: { silences: [], prepared: { scope: {}, silences: [] } },
  evidence: { attach: (f) => f, pending: () => false, request: () => {}, busy: () => false },
  ready: () => true,
  usage: () => ({}),
  onResult: () => {
    passes++;
  },
  onLag: () => {},
  nextWakeAt: () => undefined,
});
loop.passNow();
const samples: { events: number; rssMiB: number; heapMiB: number }[] = [];
const sample = (events: number) => {
  Bun.gc(true);
  samples.push({ events, rssMiB: mib(process.memoryUsage.rss()), heapMiB: mib(process.memoryUsage().heapUsed) });
};
sample(0);
const started = performance.now();
for (let n = 1; n <= EVENTS; n++) {
  const k = (n * 7919) % PODS;
  if (n % 10 === 0) {
    // Turnover: the pod goes, a new one with a new name takes its place.
    const gone = names[k]!;
    inventory.apply("Pod", "DELETED", trimManagedFields(JSON.parse(line(gone, `uid-${gone}`, ++rv, 0)).object));
    names[k] = `pod-${PODS + n}`;
    inventory.apply("Pod", "ADDED", trimManagedFields(JSON.parse(line(names[k]!, `uid-${names[k]}`, ++rv, 0)).object));
  } else {
    const event = JSON.parse(line(names[k]!, `uid-${names[k]}`, ++rv, Math.floor(n / PODS)));
    inventory.apply("Pod", event.type, trimManagedFields(event.object));
  }
  loop.schedule();
  if (n % PER_PASS === 0) await clock.advance(250);
  if (n % SAMPLE === 0) sample(n);
}
const seconds = Math.round((performance.now() - started) / 100) / 10;
loop.stop();
const warm = samples.find((s) => s.events >= WARM_UP) ?? samples[0]!;
const end = samples.at(-1)!;
const perMillion = (a: number, b: number) => Math.round(((b - a) / ((end.events - warm.events) / 1e6)) * 10) / 10;
const result = {
  runtime: `bun ${Bun.version}`,
  pods: PODS,
  events: EVENTS,
  clockHours: Math.round((EVENTS / 20_000 / 3600) * 10) / 10,
  passes,
  seconds,
  warmUpEvents: warm.events,
  rssAfterWarmUpMiB: warm.rssMiB,
  rssAtEndMiB: end.rssMiB,
  rssGrowthMiBPerMillionEvents: perMillion(warm.rssMiB, end.rssMiB),
  heapAfterWarmUpMiB: warm.heapMiB,
  heapAtEndMiB: end.heapMiB,
  heapGrowthMiBPerMillionEvents: perMillion(warm.heapMiB, end.heapMiB),
  samples,
};
const table = [
  "| pods | events (one in ten a new pod) | passes | RSS after warm-up (MiB) | RSS at the end (MiB) | RSS growth per million events (MiB) | heap after warm-up (MiB) | heap at the end (MiB) | heap growth per million events (MiB) | wall time (s) |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  `| ${PODS} | ${EVENTS} | ${passes} | ${warm.rssMiB} | ${end.rssMiB} | ${result.rssGrowthMiBPerMillionEvents} | ${warm.heapMiB} | ${end.heapMiB} | ${result.heapGrowthMiBPerMillionEvents} | ${seconds} |`,
].join("\n");
publish("soak", result, table);
