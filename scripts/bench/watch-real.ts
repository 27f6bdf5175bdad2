/**
 * The real control plane's side of the watch benchmark (issue 55: "once on the real control plane at 5k"), in
 * its own process as watch-sim.ts is, and speaking its protocol: starts a kube-apiserver v1.32 of its own
 * (src/testing/real-kube.ts), seeds PODS pods (the recorded pod, status written through the status subresource)
 * and NODES nodes through the API, prints one JSON line {kubeconfig, listedBytes, pods, nodes}, then on each
 * stdin line `churn N` writes N pod statuses (32 at a time) and prints `{"churned": N}`; `backlog N` prints
 * `{"backlog": round}` first. The controller manager is stopped once the namespace's ServiceAccount exists:
 * its node lifecycle, pod and garbage collectors would otherwise write or delete what the benchmark counts
 * (the nodes post no heartbeats, the pods' owner does not exist).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { connectKube } from "../../src/kube/connection.ts";
import { startControlPlane } from "../../src/testing/real-kube.ts";

const PODS = Number(process.env.BENCH_PODS ?? 5_000);
const NODES = Number(process.env.BENCH_NODES ?? 200);
const PARALLEL = 32;
const template = JSON.parse(readFileSync(join(import.meta.dirname, "testdata", "pod.json"), "utf8"));

const kube = await startControlPlane();
process.on("exit", () => kube.close());
process.on("SIGTERM", () => process.exit(0));
const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });

/** One request; throws with the server's answer unless it succeeded. */
async function send(method: string, path: string, body: unknown, type = "application/json"): Promise<unknown> {
  const response = await connection.request(path, {
    method,
    headers: { "content-type": type },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Runs `work` for each of `items`, PARALLEL at a time. */
async function inParallel<T>(items: readonly T[], work: (item: T, i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

await send("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } });
// Pods need their namespace's ServiceAccount (admission); the controller manager creates it.
for (let i = 0; ; i++) {
  const r = await connection.request("/api/v1/namespaces/bench/serviceaccounts/default");
  await r.body?.cancel();
  if (r.ok) break;
  if (i > 600) throw new Error("no ServiceAccount bench/default after 60 s");
  await new Promise((resolve) => setTimeout(resolve, 100));
}
kube.kill("kube-controller-manager");

const nodeNames = Array.from({ length: NODES }, (_, n) => `node-${n}`);
await inParallel(nodeNames, async (name) => {
  await send("POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name } });
  await send(
    "PATCH",
    `/api/v1/nodes/${name}/status`,
    {
      status: {
        conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", lastHeartbeatTime: new Date() }],
        addresses: [{ type: "InternalIP", address: "127.0.0.1" }],
      },
    },
    "application/merge-patch+json",
  );
});
const names = Array.from({ length: PODS }, (_, i) => `app-${Math.floor(i / 10)}-${i}`);
await inParallel(names, async (name, i) => {
  const pod = structuredClone(template);
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...metadata } = pod.metadata;
  pod.metadata = { ...metadata, name, namespace: "bench", generateName: undefined };
  pod.spec.nodeName = nodeNames[i % NODES];
  const { status, ...created } = pod;
  await send("POST", "/api/v1/namespaces/bench/pods", created);
  await send("PATCH", `/api/v1/namespaces/bench/pods/${name}/status`, { status }, "application/merge-patch+json");
});

let listedBytes = 0;
for (const path of ["/api/v1/pods", "/api/v1/nodes"]) {
  const list = (await connection.getJson(path)) as { items: unknown[] };
  for (const o of list.items) listedBytes += JSON.stringify(o).length;
}
process.stdout.write(`${JSON.stringify({ kubeconfig: kube.kubeconfigText, listedBytes, pods: PODS, nodes: NODES })}\n`);

let round = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, count] = line.trim().split(" ");
  if (command !== "churn" && command !== "backlog") continue;
  round += 1;
  if (command === "backlog") {
    process.stdout.write(`${JSON.stringify({ backlog: round })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const changes = Array.from({ length: Number(count) }, (_, i) => i);
  await inParallel(changes, (i) =>
    send(
      "PATCH",
      `/api/v1/namespaces/bench/pods/${names[(i * 7919) % names.length]}/status`,
      {
        status: {
          containerStatuses: [{ ...template.status.containerStatuses[0], restartCount: round * 1_000_000 + i }],
        },
      },
      "application/merge-patch+json",
    ),
  );
  if (process.env.BENCH_CHURNED_FILE) writeFileSync(process.env.BENCH_CHURNED_FILE, String(round));
  process.stdout.write(`${JSON.stringify({ churned: Number(count) })}\n`);
}
