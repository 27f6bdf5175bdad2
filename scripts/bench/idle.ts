/**
 * Benchmark `idle` (issue 20): the resident memory of `mon run` watching a small, quiet cluster (the
 * simulator with 3 nodes and 30 pods, in this process), read from /proc after it has been ready for 20 s.
 * Runs the compiled binary when `dist/mon` exists (`npm run build`), else the source with Bun. Writes
 * scripts/bench/results/idle.json and the line in docs/performance.md. Run: npm run bench
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { publish, waitReady } from "./report.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { deployment, readyNode, runningPod } from "../../src/sim/scenarios/builders.ts";
import { startSimulator } from "../../src/sim/simulator.ts";

const root = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "mon-idle-"));
const sim = await startSimulator();
const now = Date.now();
for (let n = 0; n < 3; n++) sim.apply(readyNode(`node-${n}`, now - 86_400_000));
sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
for (let d = 0; d < 3; d++) {
  const { deployment: dep, replicaSet } = deployment("shop", `app-${d}`, 10, `registry.example/app-${d}:1.0`, `h${d}`);
  sim.apply(dep);
  const rs = sim.apply(replicaSet);
  for (let i = 0; i < 10; i++) sim.apply(runningPod(rs, `p${i}`, `node-${i % 3}`, now - 3_600_000));
}
writeFileSync(join(work, "kubeconfig"), sim.kubeconfig());
const port = 20_000 + Math.floor(Math.random() * 2_000);
writeFileSync(
  join(work, "mon.yaml"),
  stringify({
    app: { clusterName: "idle", disableStartupMessage: true },
    telemetry: { enabled: false },
    upgrader: { disableUpdateCheck: true },
    healthCheck: { port },
    alert: { webhook: { url: "http://127.0.0.1:9/unused" } },
  }),
);
const binary = join(root, "dist", "mon");
const compiled = existsSync(binary);
const args = ["run", "--kubeconfig", join(work, "kubeconfig"), "--config", join(work, "mon.yaml")];
const mon = compiled
  ? spawn(binary, args, { stdio: "ignore", env: { ...process.env, MON_DATA_DIR: work } })
  : spawn(process.execPath, [join(root, "src", "main.ts"), ...args], {
      stdio: "ignore",
      env: { ...process.env, MON_DATA_DIR: work },
    });
await waitReady(port);
await new Promise((r) => setTimeout(r, 20_000));
const status = readFileSync(`/proc/${mon.pid}/status`, "utf8");
const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
mon.kill("SIGTERM");
await sim.stop();
const result = { runtime: `bun ${Bun.version}`, compiled, pods: 30, nodes: 3, idleRssMiB: Math.round(rssKiB / 1024) };
const line = `Idle: \`mon run\` (${compiled ? "the compiled binary" : "from source"}) watching 3 nodes and 30 pods, 20 s after ready: ${result.idleRssMiB} MiB resident.`;
publish("idle", result, line);
process.exit(0);
