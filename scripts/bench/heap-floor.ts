/**
 * Benchmark `heap-floor` (issue 42, docs/performance.md "Where the per-event cost goes"): what one pod event
 * costs the runtime itself as the cluster grows. In a process of its own per size (runArms), an Inventory holds N
 * recorded pods (scripts/bench/testdata/pod.json under distinct names, through the door as an informer hands
 * them over); then, on the CPU clock, EVENTS watch lines of those pods (each a new status and resourceVersion):
 * - "parsed and dropped": `JSON.parse` of the line, the result thrown away (what no informer can go below);
 * - "into the Inventory": parsed, managed fields trimmed, through the door into the Inventory (mon's informer
 *   without the stream).
 * No stream and no TLS: the difference between sizes is the heap the runtime manages. Writes
 * scripts/bench/results/heap-floor.json and the table in docs/performance.md. Run: bun scripts/bench/heap-floor.ts
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Inventory } from "../../src/kube/inventory.ts";
import { trimManagedFields } from "../../src/kube/trim.ts";
import { runArms } from "./arms.ts";
import { publish } from "./report.ts";

const SIZES = (process.env.BENCH_FLOOR_SIZES ?? "5000,50000,150000").split(",");
const EVENTS = Number(process.env.BENCH_FLOOR_EVENTS ?? 100_000);
const template = JSON.parse(readFileSync(join(import.meta.dirname, "testdata", "pod.json"), "utf8"));

/**
 * The watch line of pod `i` at resourceVersion `rv`, its first container restarted `restarts` times: the recorded
 * pod's line with its varying values put in place by concatenation (a line costs well under a microsecond to
 * make, and no burst of lines is kept on the heap, where it would weigh more than the pods held).
 */
const line = (() => {
  const o = structuredClone(template);
  o.metadata = { ...o.metadata, name: "@name@", namespace: "bench", uid: "@uid@", resourceVersion: "@rv@" };
  o.spec.nodeName = "@node@";
  o.status.podIP = "@ip@";
  o.status.podIPs = [{ ip: "@ip@" }];
  o.status.containerStatuses[0].restartCount = "@restarts@";
  const parts = JSON.stringify({ type: "MODIFIED", object: o })
    .replace('"@restarts@"', "@restarts@")
    .split(/@(name|uid|rv|node|ip|restarts)@/);
  return (i: number, rv: number, restarts: number): string => {
    const values: Record<string, string> = {
      name: `pod-${i}`,
      uid: `uid-${i}`,
      rv: String(rv),
      node: `node-${i % 1_000}`,
      ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      restarts: String(restarts),
    };
    let out = "";
    for (let k = 0; k < parts.length; k++) out += k % 2 === 0 ? parts[k] : values[parts[k] as string];
    return out;
  };
})();

function cpuMicros(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

async function measure(size: string) {
  const pods = Number(size);
  const inventory = new Inventory();
  for (let i = 0; i < pods; i++)
    inventory.apply("Pod", "ADDED", trimManagedFields(JSON.parse(line(i, i + 1, 0)).object));
  Bun.gc(true);
  let checksum = 0;
  // Distinct versions throughout: a version applied twice would be the one already kept.
  const parseMicros = cpuMicros(() => {
    for (let e = 0; e < EVENTS; e++)
      checksum += (JSON.parse(line((e * 7_919) % pods, pods + e + 1, e + 1)) as { type: string }).type.length;
  });
  const applyMicros = cpuMicros(() => {
    for (let e = 0; e < EVENTS; e++) {
      const event = JSON.parse(line((e * 7_919) % pods, pods + EVENTS + e + 1, EVENTS + e + 1));
      inventory.apply("Pod", "MODIFIED", trimManagedFields(event.object));
    }
  });
  const changed = inventory.get("Pod", "bench", `pod-${((EVENTS - 1) * 7_919) % pods}`);
  if (changed?.status?.containerStatuses?.[0]?.restartCount !== 2 * EVENTS)
    throw new Error("the last event was not kept");
  if (inventory.counts().Pod !== pods) throw new Error(`${inventory.counts().Pod} pods kept of ${pods}`);
  return {
    pods,
    parsedAndDroppedMicros: Number((parseMicros / EVENTS).toFixed(1)),
    intoInventoryMicros: Number((applyMicros / EVENTS).toFixed(1)),
    heapMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    checksum,
  };
}

const results = await runArms(import.meta.filename, SIZES, measure);
const table = [
  `CPU per pod event (µs), ${EVENTS.toLocaleString("en")} events, one process per size, one run:`,
  "",
  "| pods held | heap (MiB) | parsed and dropped (µs) | into the Inventory (µs) | parsed and dropped, against 5,000 pods |",
  "|---:|---:|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.pods} | ${r.heapMiB} | ${r.parsedAndDroppedMicros} | ${r.intoInventoryMicros} | ${(r.parsedAndDroppedMicros / results[0]!.parsedAndDroppedMicros).toFixed(2)} |`,
  ),
].join("\n");
publish("heap-floor", { runtime: `bun ${Bun.version}`, events: EVENTS, results }, table);
process.exit(0);
