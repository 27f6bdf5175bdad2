/**
 * Benchmark `latency` (issue 20): failure → provider request, for several failure kinds, over repeated
 * trials, under a steady churn of pod status writes. The cluster (simulator, webhook receiver, churn,
 * trials: latency-sim.ts) runs in one process; mon is the real daemon (`bun src/main.ts run`) in another, as
 * a user runs it, with the webhook provider. Each trial uses an object no earlier trial touched, so no
 * deliberate hold applies (a node told twice in a day goes to the digest, spec 1.8: that is not a delay).
 * Writes scripts/bench/results/latency.json and the table in docs/performance.md. Run: npm run bench
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { stringify } from "yaml";
import { publish, waitReady } from "./report.ts";

const TRIALS = Number(process.env.BENCH_TRIALS ?? 20);
const root = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "mon-latency-"));

const cluster = spawn(process.execPath, [join(import.meta.dirname, "latency-sim.ts")], {
  stdio: ["pipe", "pipe", "inherit"],
  env: process.env,
});
const lines = createInterface({ input: cluster.stdout! })[Symbol.asyncIterator]();
const next = async () => JSON.parse(String((await lines.next()).value));
const started = (await next()) as { kubeconfig: string; webhook: string };
writeFileSync(join(work, "kubeconfig"), started.kubeconfig);
const healthPort = 18_000 + Math.floor(Math.random() * 2_000);
writeFileSync(
  join(work, "mon.yaml"),
  stringify({
    app: { clusterName: "bench", disableStartupMessage: true },
    telemetry: { enabled: false },
    upgrader: { disableUpdateCheck: true },
    healthCheck: { port: healthPort },
    // Every trial is a new conversation: the hourly budget (60 by default) would send most to the overflow digest.
    alert: { webhook: { url: started.webhook, hourlyBudget: 0 } },
  }),
);
const mon = spawn(
  process.execPath,
  [join(root, "src", "main.ts"), "run", "--kubeconfig", join(work, "kubeconfig"), "--config", join(work, "mon.yaml")],
  { stdio: ["ignore", "ignore", "ignore"], env: { ...process.env, MON_DATA_DIR: work } },
);
// Ready once the required caches synced; the first pass (the startup baseline) follows within a batch.
await waitReady(healthPort);
await new Promise((r) => setTimeout(r, 2_000));
cluster.stdin!.write(`trials ${TRIALS}\n`);
const out = (await next()) as {
  results: Record<string, { latencyMs: (number | null)[]; resolveMs: (number | null)[] }>;
  churned: number;
};
mon.kill("SIGTERM");
cluster.kill();

const quantile = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))];
const summary = Object.entries(out.results).map(([kind, r]) => {
  const got = r.latencyMs.filter((x): x is number => x !== null).sort((a, b) => a - b);
  const resolved = r.resolveMs.filter((x): x is number => x !== null).sort((a, b) => a - b);
  return {
    kind,
    trials: r.latencyMs.length,
    missed: r.latencyMs.length - got.length,
    p50Ms: quantile(got, 0.5) ?? null,
    p99Ms: quantile(got, 0.99) ?? null,
    maxMs: got.at(-1) ?? null,
    resolveP50Ms: quantile(resolved, 0.5) ?? null,
    resolveMissed: r.resolveMs.length - resolved.length,
  };
});
const result = {
  runtime: `bun ${Bun.version}`,
  pods: Number(process.env.BENCH_PODS ?? 5_000),
  nodes: Number(process.env.BENCH_NODES ?? 100),
  churnPerSecond: Number(process.env.BENCH_CHURN_PER_SECOND ?? 200),
  churnWrites: out.churned,
  summary,
  raw: out.results,
};
const table = [
  `${result.pods} pods on ${result.nodes} nodes, ${result.churnPerSecond} pod status writes per second throughout; ${TRIALS} trials per kind, one after another.`,
  "",
  "| failure | trials | not announced within 20 s | p50 (ms) | p99 (ms) | max (ms) | resolve p50 (ms) |",
  "|---|---:|---:|---:|---:|---:|---:|",
  ...summary.map(
    (s) =>
      `| ${s.kind} | ${s.trials} | ${s.missed} | ${s.p50Ms ?? "—"} | ${s.p99Ms ?? "—"} | ${s.maxMs ?? "—"} | ${s.resolveP50Ms ?? "—"} |`,
  ),
].join("\n");
publish("latency", result, table);
process.exit(0);
