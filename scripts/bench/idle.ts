import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { SERVICE_ACCOUNT_DIR } from "../../src/kube/in-cluster.ts";
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
// In a pod, mon takes the state lock (a Lease) in its own namespace first.
sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
for (let d = 0; d < 3; d++) {
  const { deployment: dep, replicaSet } = deployment("shop", `app-${d}`, 10, `registry.example/app-${d}:1.0`, `h${d}`);
  sim.apply(dep);
  const rs = sim.apply(replicaSet);
  for (let i = 0; i < 10; i++) sim.apply(runningPod(rs, `p${i}`, `node-${i % 3}`, now - 3_600_000));
}
/** Resident set of `mon run` watching the small cluster, 20 s after ready, MiB. */
async function idleRss(inCluster: boolean): Promise<{ rssMiB: number; compiled: boolean }> {
  const { mon, compiled } = await startMon({
    work,
    kubeconfig: sim.kubeconfig(),
    clusterName: "idle",
    alert: { webhook: { url: "http://127.0.0.1:9/unused" } },
    ...(inCluster ? { inCluster: { server: sim.server.url, token: sim.token, ca: sim.pki.caCert } } : {}),
  });
  await new Promise((r) => setTimeout(r, 20_000));
  const status = readFileSync(`/proc/${mon.pid}/status`, "utf8");
  mon.kill("SIGTERM");
  return { rssMiB: Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024), compiled };
}

const kubeconfig = await idleRss(false);
// In a pod (its ServiceAccount, no kubeconfig) needs the token where a pod has it: root only.
// The files are removed afterwards unless they were there before: a machine that is no pod must not look like one.
const mounted = existsSync(SERVICE_ACCOUNT_DIR);
const inCluster = process.getuid?.() === 0 ? await idleRss(true) : undefined;
if (!mounted) rmSync(SERVICE_ACCOUNT_DIR, { recursive: true, force: true });
await sim.stop();
const result = {
  runtime: `bun ${Bun.version}`,
  compiled: kubeconfig.compiled,
  pods: 30,
  nodes: 3,
  idleRssMiB: kubeconfig.rssMiB,
  ...(inCluster ? { idleInClusterRssMiB: inCluster.rssMiB } : {}),
};
const line = `Idle: \`mon run\` (${kubeconfig.compiled ? "the compiled binary" : "from source"}) watching 3 nodes and 30 pods, 20 s after ready: ${inCluster ? `${inCluster.rssMiB} MiB resident in a cluster (its ServiceAccount, no kubeconfig library loaded), ` : ""}${kubeconfig.rssMiB} MiB with a kubeconfig (@kubernetes/client-node loaded to read it).`;
publish("idle", result, line);
process.exit(0);
