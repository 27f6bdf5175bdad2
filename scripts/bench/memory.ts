/**
 * Benchmark `memory` (spec 8, docs/performance.md "Memory limit"): what the soft memory limit does to the
 * resident set under watch churn. Each arm runs in a fresh process: an Inventory of PODS pods shaped like the
 * recorded kube-apiserver pod, then EVENTS pod status changes through mon's per-event work (JSON.parse,
 * managed-fields trim, Inventory.apply), yielding to timers every 500 events as the informers do. The resident
 * set is sampled every 100 ms. Arm "off" runs without a limit; arm "on" runs the real memory guard with a soft
 * limit 64 MiB above its own resident set after the Inventory was built. Reports peak and median RSS during
 * the churn and the number of forced collections. Writes scripts/bench/results/memory.json and the table in
 * docs/performance.md. Run: bun scripts/bench/memory.ts (part of npm run bench)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startMemoryGuard } from "../../src/app/replica/memory-guard.ts";
import { Inventory } from "../../src/kube/inventory.ts";
import { trimManagedFields } from "../../src/kube/trim.ts";
import { createMetrics } from "../../src/metrics.ts";
import { createSystemClock } from "../../src/runtime/clock.ts";
import { createSilentLogger } from "../../src/runtime/logger.ts";
import { publish } from "./report.ts";
import { runArms } from "./arms.ts";

const PODS = Number(process.env.BENCH_MEMORY_PODS ?? 20_000);
const EVENTS = Number(process.env.BENCH_MEMORY_EVENTS ?? 400_000);
const HEADROOM = 64 * 2 ** 20;
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

interface Arm {
  arm: "off" | "on";
  rssAfterBuildMiB: number;
  softLimitMiB: number | null;
  peakMiB: number;
  medianMiB: number;
  endMiB: number;
  forcedCollections: number;
  seconds: number;
}

const results = await runArms(import.meta.filename, ["off", "on"] as const, runArm);
const table = [
  "| soft limit | pods | events | RSS after the Inventory (MiB) | soft limit (MiB) | peak RSS (MiB) | median RSS (MiB) | RSS at the end (MiB) | forced collections | seconds |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.arm} | ${PODS} | ${EVENTS} | ${r.rssAfterBuildMiB} | ${r.softLimitMiB ?? "—"} | ${r.peakMiB} | ${r.medianMiB} | ${r.endMiB} | ${r.forcedCollections} | ${r.seconds} |`,
  ),
].join("\n");
publish("memory", { runtime: `bun ${Bun.version}`, pods: PODS, events: EVENTS, arms: results }, table);

async function runArm(name: "off" | "on"): Promise<Arm> {
  const template = JSON.parse(readFileSync(join(import.meta.dirname, "testdata", "pod.json"), "utf8"));
  const line = (i: number, restarts: number) => {
    const pod = structuredClone(template);
    pod.metadata.name = `pod-${i}`;
    pod.metadata.uid = `uid-${i}`;
    pod.metadata.resourceVersion = String(restarts * PODS + i);
    for (const s of pod.status?.containerStatuses ?? []) s.restartCount = restarts;
    return JSON.stringify({ type: "MODIFIED", object: pod });
  };
  const inventory = new Inventory();
  for (let i = 0; i < PODS; i++) inventory.apply("Pod", "ADDED", trimManagedFields(JSON.parse(line(i, 0)).object));
  Bun.gc(true);
  const rssAfterBuild = process.memoryUsage.rss();
  const metrics = createMetrics();
  const softLimit = rssAfterBuild + HEADROOM;
  const guard =
    name === "on"
      ? startMemoryGuard({
          softLimitBytes: softLimit,
          clock: createSystemClock(),
          logger: createSilentLogger(),
          metrics,
        })
      : undefined;
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(process.memoryUsage.rss()), 100);
  const started = performance.now();
  // Each pod changes in turn; the event text is new each time, as it is on the wire.
  for (let n = 0; n < EVENTS; n++) {
    const event = JSON.parse(line(n % PODS, 1 + Math.floor(n / PODS)));
    inventory.apply("Pod", event.type, trimManagedFields(event.object));
    if (n % 500 === 499) await new Promise((r) => setTimeout(r, 0));
  }
  const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
  clearInterval(sampler);
  guard?.stop();
  const sorted = [...samples].sort((a, b) => a - b);
  const pressure = (await metrics.memoryPressure.get()).values[0]?.value ?? 0;
  return {
    arm: name,
    rssAfterBuildMiB: mib(rssAfterBuild),
    softLimitMiB: name === "on" ? mib(softLimit) : null,
    peakMiB: mib(sorted.at(-1) ?? 0),
    medianMiB: mib(sorted[Math.floor(sorted.length / 2)] ?? 0),
    endMiB: mib(process.memoryUsage.rss()),
    forcedCollections: pressure,
    seconds,
  };
}
