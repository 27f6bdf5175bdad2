/**
 * Benchmark `projection` (issue 42, docs/performance.md "What each kind costs"): the heap each object of a kind
 * holds in the Inventory, kept whole (as served, through the door) and projected to its declared shape
 * (src/model/shapes.ts). For each kind, the largest object of that kind in the recorded kube-apiserver v1.32
 * exchanges (and the benchmark's recorded pod) is applied COPIES times under distinct names into a fresh
 * Inventory of each kind; the heap after a full collection, minus the heap before, over COPIES is the cost
 * per object. Writes scripts/bench/results/projection.json and the table in docs/performance.md.
 * Run: bun scripts/bench/projection.ts (part of npm run bench)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Inventory } from "../../src/kube/inventory.ts";
import { trimManagedFields } from "../../src/kube/trim.ts";
import type { KubeObject } from "../../src/model/inventory.ts";
import { recordedObjects } from "../../src/testing/recorded-objects.ts";
import { publish } from "./report.ts";

const COPIES = Number(process.env.BENCH_PROJECTION_COPIES ?? 5_000);

const largest = new Map<string, KubeObject>();
const pod = JSON.parse(readFileSync(join(import.meta.dirname, "testdata", "pod.json"), "utf8"));
for (const o of [...recordedObjects(), { ...pod, kind: "Pod" }]) {
  const seen = largest.get(o.kind);
  if (!seen || JSON.stringify(o).length > JSON.stringify(seen).length) largest.set(o.kind, o);
}

function heapOf(kind: string, sample: KubeObject, whole: boolean): number {
  const inventory = new Inventory({ whole });
  Bun.gc(true);
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < COPIES; i++) {
    // What an informer hands over: a freshly parsed object, managedFields trimmed.
    const o = trimManagedFields(JSON.parse(JSON.stringify(sample)));
    o.metadata.name = `${sample.metadata.name}-${i}`;
    o.metadata.uid = `uid-${i}`;
    inventory.apply(kind, "ADDED", o);
  }
  Bun.gc(true);
  const bytes = (process.memoryUsage().heapUsed - before) / COPIES;
  if (inventory.counts()[kind] !== COPIES) throw new Error(`${kind}: ${inventory.counts()[kind]} kept`);
  return Math.round(bytes);
}

const rows = [...largest]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([kind, sample]) => {
    const whole = heapOf(kind, sample, true);
    const projected = heapOf(kind, sample, false);
    return { kind, servedBytes: JSON.stringify(sample).length, whole, projected, ratio: projected / whole };
  });
const table = [
  `| kind | served JSON (bytes) | heap per object kept whole (bytes) | projected (bytes) | projected / whole |`,
  "|---|---:|---:|---:|---:|",
  ...rows.map((r) => `| ${r.kind} | ${r.servedBytes} | ${r.whole} | ${r.projected} | ${r.ratio.toFixed(2)} |`),
].join("\n");
publish("projection", { runtime: `bun ${Bun.version}`, copies: COPIES, kinds: rows }, table);
