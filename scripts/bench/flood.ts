import { word } from "../../src/testing/words.ts";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readyNode } from "../../src/sim/scenarios/builders.ts";
import { seedWorkload } from "../../src/testing/cluster.ts";
import { startSimulator } from "../../src/sim/simulator.ts";
import { startCaptureServer } from "../../src/testing/capture-server.ts";
import { publish, startMon } from "./report.ts";

const NAMESPACES = Number(process.env.BENCH_FLOOD_NAMESPACES ?? 50);
const DEPLOYMENTS = 10; // per namespace
const REPLICAS = 10;
const PODS = NAMESPACES * DEPLOYMENTS * REPLICAS;
const SIZING = {
  steady: 2 * (100 * 2 ** 20 + 7.5 * 1024 * PODS),
  flood: 2 * (100 * 2 ** 20 + 7.5 * 1024 * PODS) + 30 * 1024 * PODS,
} as const;
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

const arms = [];
for (const sizing of ["steady", "flood"] as const) arms.push(await runArm(sizing));
const table = [
  "| MON_MEMORY_LIMIT sized for | MON_MEMORY_LIMIT (MiB) | soft limit (MiB) | RSS before (MiB) | peak RSS (MiB) | RSS 60 s after (MiB) | /healthz p50 / max (ms) | log reads | forced collections | messages | largest body (bytes) |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...arms.map(
    (r) =>
      `| ${r.sizing === "steady" ? "steady churn" : "a flood"} | ${r.memoryLimitMiB} | ${r.softLimitMiB} | ${r.rssBeforeMiB} | ${r.peakMiB} | ${r.endMiB} | ${r.healthzP50Ms} / ${r.healthzMaxMs} | ${r.logReads} | ${r.forcedCollections} | ${r.messages} | ${r.bodyMaxBytes} |`,
  ),
].join("\n");
publish(
  "flood",
  { runtime: `bun ${Bun.version}`, pods: PODS, deployments: NAMESPACES * DEPLOYMENTS, namespaces: NAMESPACES, arms },
  table,
);
process.exit(0);

async function runArm(sizing: keyof typeof SIZING) {
  const limit = SIZING[sizing];
  const work = mkdtempSync(join(tmpdir(), "mon-flood-"));
  const sim = await startSimulator();
  const hook = await startCaptureServer();
  const now = Date.now();
  for (let n = 0; n < 50; n++) sim.apply(readyNode(`node-${n}`, now - 86_400_000));
  const pods: { namespace: string; name: string; container: string; image: string; d: number }[] = [];
  for (let n = 0; n < NAMESPACES; n++)
    for (let d = 0; d < DEPLOYMENTS; d++) {
      const [namespace, name] = [`team-${n}`, `service-${d}`];
      // One pod per node of these ten, as the scheduler spreads a Deployment.
      const nodes = Array.from({ length: REPLICAS }, (_, i) => `node-${(n * 100 + d * 10 + i) % 50}`);
      seedWorkload(sim, namespace, name, nodes, now);
      for (let i = 0; i < REPLICAS; i++)
        pods.push({
          namespace,
          name: `${name}-abc12-p${i}`,
          container: name,
          image: `ghcr.io/${namespace}/${name}:1.0`,
          d: n * DEPLOYMENTS + d,
        });
    }
  const { mon, port, compiled } = await startMon({
    work,
    kubeconfig: sim.kubeconfig(),
    clusterName: "flood",
    alert: { webhook: { url: `${hook.url}/mon` } },
    env: { MON_MEMORY_LIMIT: String(Math.round(limit)) },
  });
  await new Promise((r) => setTimeout(r, 10_000));

  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${mon.pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rss()), 100);
  const healthMs: number[] = [];
  let asking = true;
  const ask = (async () => {
    while (asking) {
      const t = performance.now();
      await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      healthMs.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  await new Promise((r) => setTimeout(r, 5_000));
  const before = rss();
  // The flood: every pod crash-loops at once, each Deployment with its own error (letters: digits would be
  // normalised into one shared error) and a 4 KB log.
  const log = (d: number) =>
    `${Array.from({ length: 40 }, (_, i) => `2026-11-27T02:00:${String(i).padStart(2, "0")}Z INFO worker step ${i} ${"·".repeat(60)}`).join("\n")}\npanic: ${word(d)} cannot reach its queue\n`;
  const at = new Date().toISOString();
  for (const p of pods) {
    sim.setLogs(p.namespace, p.name, p.container, log(p.d), true);
    sim.patchStatus("v1", "Pod", p.namespace, p.name, {
      phase: "Running",
      containerStatuses: [
        {
          name: p.container,
          image: p.image,
          imageID: "",
          ready: false,
          started: false,
          restartCount: 4,
          state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s restarting failed container" } },
          lastState: {
            terminated: {
              exitCode: 2,
              reason: "Error",
              message: `panic: ${word(p.d)} cannot reach its queue`,
              startedAt: at,
              finishedAt: at,
            },
          },
        },
      ],
    });
  }
  await new Promise((r) => setTimeout(r, 60_000));
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counter = (name: string, labels = "") =>
    [...metrics.matchAll(/^(mon_[a-z_]+)(\{[^}]*\})? (\d+)/gm)]
      .filter((m) => m[1] === name && (m[2] ?? "").includes(labels))
      .reduce((n, m) => n + Number(m[3]), 0);
  asking = false;
  await ask;
  clearInterval(sampler);
  const sorted = [...healthMs].sort((a, b) => a - b);
  const result = {
    sizing,
    compiled,
    memoryLimitMiB: mib(limit),
    softLimitMiB: mib(limit * 0.9),
    rssBeforeMiB: mib(before),
    peakMiB: mib(Math.max(...samples)),
    endMiB: mib(samples.at(-1) ?? 0),
    healthzP50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    healthzMaxMs: Math.round(sorted.at(-1) ?? 0),
    logReads: counter("mon_investigations_total") - counter("mon_investigations_total", 'result="shed"'),
    forcedCollections: counter("mon_memory_pressure_total"),
    messages: hook.requests.length,
    announced: new Set(hook.requests.flatMap((r) => r.json().covers ?? [r.json().incidentId])).size,
    bodyMaxBytes: Math.max(0, ...hook.requests.map((r) => Buffer.byteLength(r.body))),
  };
  mon.kill("SIGTERM");
  await sim.stop();
  await hook.close();
  return result;
}
