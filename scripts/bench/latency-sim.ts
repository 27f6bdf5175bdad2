/**
 * The cluster side of the latency benchmark, in its own process: the simulator with PODS pods in 10-pod
 * Deployments on NODES nodes, a webhook receiver, and a steady churn of pod status writes (CHURN_PER_SECOND).
 * Prints one JSON line {kubeconfig, webhook}; then on the stdin line `trials N` runs N trials of each failure
 * kind, one after another, each on an object no earlier trial touched: inject the failure, wait for the
 * announcement of its incident at the webhook (20 s at most), undo it, wait for the resolve. Both instants
 * are read here, on one clock. Prints one JSON line of results and exits.
 */
import { createInterface } from "node:readline";
import { seedDeployments } from "./cluster.ts";
import { startSimulator } from "../../src/sim/simulator.ts";
import { startCaptureServer } from "../../src/testing/capture-server.ts";

const PODS = Number(process.env.BENCH_PODS ?? 5_000);
const NODES = Number(process.env.BENCH_NODES ?? 100);
const CHURN_PER_SECOND = Number(process.env.BENCH_CHURN_PER_SECOND ?? 200);
const WAIT_MS = 20_000;

const sim = await startSimulator({ historyLimit: 100_000 });
const hook = await startCaptureServer();
const now = Date.now();
const podType = sim.typeOf("", "v1", "pods");
const healthy: string[] = [];
const deployments = Math.ceil(PODS / 10);
// The churn writes to the last pods of each Deployment; trials use the first.
seedDeployments((o) => sim.apply(o), {
  pods: PODS,
  nodes: NODES,
  now,
  onPod: (pod, index) => {
    if (index % 10 >= 5) healthy.push(pod.metadata.name);
  },
});
process.stdout.write(`${JSON.stringify({ kubeconfig: sim.kubeconfig(), webhook: `${hook.url}/mon` })}\n`);

// Steady churn: restart counts of healthy pods move, as kubelets' status writes do (no failure in them).
let churned = 0;
const churn = setInterval(() => {
  for (let i = 0; i < CHURN_PER_SECOND / 100; i++) {
    const name = healthy[(churned++ * 7919) % healthy.length]!;
    const current = sim.store.get(podType, "bench", name);
    const statuses = current?.status?.containerStatuses ?? [];
    sim.store.patch(
      podType,
      "bench",
      name,
      "application/merge-patch+json",
      { status: { containerStatuses: statuses.map((c: { restartCount?: number }) => ({ ...c, restartCount: 0 })) } },
      "status",
    );
  }
}, 10);

type Kind = "NodeNotReady" | "NodeLost" | "CrashLoopBackOff" | "OOMKilled";
const KINDS: readonly Kind[] = ["NodeNotReady", "NodeLost", "CrashLoopBackOff", "OOMKilled"];

/** Waits for a request matching `match` after index `from`; the instant it arrived (performance.now()), or undefined. */
async function arrival(from: number, match: (body: any) => boolean): Promise<number | undefined> {
  const deadline = performance.now() + WAIT_MS;
  for (let seen = from; performance.now() < deadline; ) {
    for (; seen < hook.requests.length; seen++) if (match(hook.requests[seen]!.json())) return arrivedAt[seen];
    await new Promise((r) => setTimeout(r, 2));
  }
  return undefined;
}
// The instant each request arrived, recorded as it arrives (polling above only finds it).
const arrivedAt: number[] = [];
hook.setDefault(() => {
  arrivedAt.push(performance.now());
  return { status: 200, body: "ok" };
});

const iso = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const crashStatus = (oom: boolean) => ({
  phase: "Running",
  conditions: [{ type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: iso() }],
  containerStatuses: [
    {
      name: "app",
      ready: false,
      restartCount: 5,
      image: "registry.example/app:1.0",
      ...(oom
        ? { state: { terminated: { exitCode: 137, reason: "OOMKilled", finishedAt: iso() } } }
        : {
            state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 2m40s restarting failed container" } },
            lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: iso(), message: "panic: boom" } },
          }),
    },
  ],
});

/** One trial: the failure, its incident id, and how to undo it. */
function inject(kind: Kind, n: number): { incident: string; undo: () => void } {
  if (kind === "NodeNotReady" || kind === "NodeLost") {
    // Node trials take nodes from the end, a different one each time (a node told twice a day goes to the digest).
    const node = `node-${NODES - 1 - n - (kind === "NodeLost" ? Math.floor(NODES / 2) : 0)}`;
    const condition = (status: string) => ({
      type: "Ready",
      status,
      reason: status === "True" ? "KubeletReady" : status === "False" ? "KubeletNotReady" : "NodeStatusUnknown",
      lastTransitionTime: iso(),
      lastHeartbeatTime: iso(),
    });
    sim.patchStatus("v1", "Node", undefined, node, {
      conditions: [condition(kind === "NodeLost" ? "Unknown" : "False")],
    });
    return {
      incident: `Node//${node}`,
      undo: () => sim.patchStatus("v1", "Node", undefined, node, { conditions: [condition("True")] }),
    };
  }
  const d = kind === "CrashLoopBackOff" ? n : deployments - 1 - n;
  const pod = `app-${d}-h${d}-p0`;
  sim.setLogs("bench", pod, "app", "starting\npanic: boom\n", true);
  sim.patchStatus("v1", "Pod", "bench", pod, crashStatus(kind === "OOMKilled"));
  return { incident: `Deployment/bench/app-${d}`, undo: () => sim.remove("v1", "Pod", "bench", pod) };
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, count] = line.trim().split(" ");
  if (command !== "trials") continue;
  const results: Record<string, { latencyMs: (number | null)[]; resolveMs: (number | null)[] }> = {};
  for (const kind of KINDS) {
    const r = (results[kind] = { latencyMs: [] as (number | null)[], resolveMs: [] as (number | null)[] });
    for (let n = 0; n < Number(count); n++) {
      const from = hook.requests.length;
      const t0 = performance.now();
      const { incident, undo } = inject(kind, n);
      const at = await arrival(from, (b) => b.incidentId === incident && b.action === "announce");
      r.latencyMs.push(at === undefined ? null : Math.round(at - t0));
      const fromResolve = hook.requests.length;
      const t1 = performance.now();
      undo();
      const resolved = await arrival(fromResolve, (b) => b.incidentId === incident && b.action === "resolve");
      r.resolveMs.push(resolved === undefined ? null : Math.round(resolved - t1));
    }
  }
  clearInterval(churn);
  process.stdout.write(`${JSON.stringify({ results, churned, requests: hook.requests.length })}\n`);
  break;
}
await hook.close();
await sim.stop();
process.exit(0);
