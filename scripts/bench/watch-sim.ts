/**
 * The simulator side of the watch benchmark, in its own process so the benchmark's RSS is mon's alone.
 * Seeds PODS pods and NODES nodes (pods shaped like a recorded kube-apiserver pod, managed fields included, in
 * workloads of 10 replicas: bench-pod.ts),
 * prints one JSON line {kubeconfig, listedBytes}, then on each stdin line `churn N` makes N pod status changes
 * in one burst (the events queue on the watch stream and reach mon as fast as it reads) and prints
 * `{"churned": N}` (and writes the round's number to BENCH_CHURNED_FILE when set); `backlog N` prints
 * `{"backlog": round}` first and makes the changes a second later.
 */
import { createInterface } from "node:readline";
import { writeFileSync } from "node:fs";
import { startSimulator } from "../../src/sim/simulator.ts";
import { benchPod, restarted } from "./bench-pod.ts";

const PODS = Number(process.env.BENCH_PODS ?? 50_000);
const NODES = Number(process.env.BENCH_NODES ?? 2_000);

const sim = await startSimulator({ historyLimit: 200_000 });
const podType = sim.typeOf("", "v1", "pods");
const nodeType = sim.typeOf("", "v1", "nodes");
for (let n = 0; n < NODES; n++) {
  sim.store.create(nodeType, undefined, {
    metadata: { name: `node-${n}` },
    status: {
      conditions: [{ type: "Ready", status: "True", reason: "KubeletReady" }],
      addresses: [{ type: "InternalIP", address: "127.0.0.1" }],
    },
  });
}
sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } });
// Writes go straight to the store with the recorded shape (status included) to seed quickly.
const names: string[] = [];
for (let i = 0; i < PODS; i++) {
  const { status, ...pod } = benchPod(i, NODES);
  const created = sim.store.create(podType, "bench", pod);
  sim.store.update(podType, "bench", created.metadata.name, { status }, "status");
  names.push(created.metadata.name);
}
let listedBytes = 0;
for (const o of [...sim.store.list(podType, undefined), ...sim.store.list(nodeType, undefined)])
  listedBytes += JSON.stringify(o).length;
process.stdout.write(`${JSON.stringify({ kubeconfig: sim.kubeconfig(), listedBytes, pods: PODS, nodes: NODES })}\n`);

let round = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, count] = line.trim().split(" ");
  if (command !== "churn" && command !== "backlog") continue;
  round += 1;
  if (command === "backlog") {
    // Told first, then a second's pause: the arm holds its event loop still before the first change is made.
    process.stdout.write(`${JSON.stringify({ backlog: round })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  for (let i = 0; i < Number(count); i++) {
    const name = names[(i * 7919) % names.length]!;
    sim.store.patch(
      podType,
      "bench",
      name,
      "application/merge-patch+json",
      { status: restarted(name, round * 1_000_000 + i) },
      "status",
    );
  }
  // A file as well as the line: an arm that holds its event loop still (a backlog) polls for it synchronously.
  if (process.env.BENCH_CHURNED_FILE) writeFileSync(process.env.BENCH_CHURNED_FILE, String(round));
  process.stdout.write(`${JSON.stringify({ churned: Number(count) })}\n`);
}
await sim.stop();
