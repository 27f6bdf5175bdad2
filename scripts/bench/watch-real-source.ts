/**
 * The real control plane's side of the watch benchmark (issue 55), in its own process as watch-sim.ts is: reads
 * the cluster scripts/bench/watch-real.ts seeded (BENCH_REAL_KUBECONFIG: the kubeconfig's path), prints one JSON
 * line {kubeconfig, listedBytes, pods, nodes}, then on each stdin line `churn N` writes N pod status changes
 * through the API server (32 at a time) and prints `{"churned": N}`. A backlog is not asked of it: a watcher that
 * does not read is dropped by kube-apiserver once its buffer is full, so the arm would measure a relist.
 */
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { connectKube } from "../../src/kube/connection.ts";
import { restarted } from "./bench-pod.ts";
import { inFlight } from "./in-flight.ts";

const kubeconfig = readFileSync(process.env.BENCH_REAL_KUBECONFIG!, "utf8");
const connection = await connectKube({ kubeconfigText: kubeconfig });

type Listed = { items: { metadata: { name: string } }[] };
const pods = await connection.getJson<Listed>("/api/v1/namespaces/bench/pods");
const nodes = await connection.getJson<Listed>("/api/v1/nodes");
const listedBytes = [...pods.items, ...nodes.items].reduce((n, o) => n + JSON.stringify(o).length, 0);
const names = pods.items.map((p) => p.metadata.name);
process.stdout.write(
  `${JSON.stringify({ kubeconfig, listedBytes, pods: pods.items.length, nodes: nodes.items.length })}\n`,
);

let round = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, count] = line.trim().split(" ");
  if (command !== "churn") continue;
  round += 1;
  await inFlight(Number(count), 32, async (i) => {
    const name = names[(i * 7919) % names.length]!;
    const response = await connection.request(`/api/v1/namespaces/bench/pods/${name}/status`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ status: restarted(name, round * 1_000_000 + i) }),
    });
    if (!response.ok) throw new Error(`PATCH pod ${name}/status: HTTP ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  });
  process.stdout.write(`${JSON.stringify({ churned: Number(count) })}\n`);
}
