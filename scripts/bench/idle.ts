import { mkdtempSync, readFileSync } from "node:fs";
import { publish, startMon } from "./report.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deployment, readyNode, runningPod } from "../../src/sim/scenarios/builders.ts";
import { startSimulator } from "../../src/sim/simulator.ts";

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
const { mon, compiled } = await startMon({
  work,
  kubeconfig: sim.kubeconfig(),
  clusterName: "idle",
  alert: { webhook: { url: "http://127.0.0.1:9/unused" } },
});
await new Promise((r) => setTimeout(r, 20_000));
const status = readFileSync(`/proc/${mon.pid}/status`, "utf8");
const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
mon.kill("SIGTERM");
await sim.stop();
const result = { runtime: `bun ${Bun.version}`, compiled, pods: 30, nodes: 3, idleRssMiB: Math.round(rssKiB / 1024) };
const line = `Idle: \`mon run\` (${compiled ? "the compiled binary" : "from source"}) watching 3 nodes and 30 pods, 20 s after ready: ${result.idleRssMiB} MiB resident.`;
publish("idle", result, line);
process.exit(0);
