/**
 * Benchmark `watch-real` (issue 55): the watch benchmark's arms — mon (JSON), mon (protobuf), client-node — once
 * on the real v1.32 control plane (a control plane of its own, src/testing/real-kube.ts) at 5,000 pods. The
 * cluster is seeded through the API server: 200 nodes and 5,000 pods shaped like the recorded pod, in workloads of
 * 10 replicas (bench-pod.ts; status included, bound to their nodes), after which the controller manager and the scheduler are stopped so that
 * nothing but the benchmark's own writes changes a pod. Each arm then lists, syncs and reads a burst of pod
 * status changes written through the API server (scripts/bench/watch-real-source.ts), in a process of its own,
 * reading as a ServiceAccount with a token (cluster-admin), as mon does in a cluster.
 * Writes scripts/bench/results/watch-real.json and its table in docs/performance.md. Needs the real control plane
 * (prints one `skipped:` line without it). Run: bun scripts/bench/watch-real.ts (part of npm run bench).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectKube } from "../../src/kube/connection.ts";
import { realKubeMissing, startControlPlane } from "../../src/testing/real-kube.ts";
import { runArms } from "./arms.ts";
import { publish } from "./report.ts";
import { benchPod } from "./bench-pod.ts";
import { inFlight } from "./in-flight.ts";

const PODS = Number(process.env.BENCH_PODS ?? 5_000);
const NODES = Math.max(200, Math.round(PODS / 25));
const CHURN = Number(process.env.BENCH_CHURN ?? 10_000);
const ARMS = ["mon", "mon-protobuf", "client-node"] as const;

const missing = realKubeMissing();
if (missing) {
  console.log(`skipped: watch-real: ${missing}`);
  process.exit(0);
}
const kube = await startControlPlane();
const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });

/** Sends one JSON request; throws with the answer when it is not 2xx. */
async function send(method: string, path: string, body: unknown, type = "application/json"): Promise<void> {
  const response = await connection.request(path, {
    method,
    headers: { "content-type": type },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

const began = Date.now();
await send("POST", "/api/v1/namespaces", { metadata: { name: "bench" } });
// Pods need the namespace's default ServiceAccount, which the controller manager creates.
for (let i = 0; ; i++) {
  const r = await connection.request("/api/v1/namespaces/bench/serviceaccounts/default");
  await r.arrayBuffer();
  if (r.ok) break;
  if (i > 600) throw new Error("the default ServiceAccount of namespace bench did not appear within 60 s");
  await new Promise((resolve) => setTimeout(resolve, 100));
}
// Nothing but the benchmark's writes: no node lifecycle, no garbage collection of the pods' owners, no scheduling.
kube.kill("kube-controller-manager");
kube.kill("kube-scheduler");
await inFlight(NODES, 32, async (n) => {
  await send("POST", "/api/v1/nodes", { metadata: { name: `node-${n}` } });
  await send(
    "PATCH",
    `/api/v1/nodes/node-${n}/status`,
    {
      status: {
        conditions: [
          { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" },
        ],
        addresses: [{ type: "InternalIP", address: "127.0.0.1" }],
      },
    },
    "application/merge-patch+json",
  );
});
await inFlight(PODS, 32, async (i) => {
  const { metadata, spec, status } = benchPod(i, NODES);
  // As a client sends it: the API server writes who wrote it and when.
  const { managedFields: _written, ...sent } = metadata;
  const name = String(metadata.name);
  await send("POST", "/api/v1/namespaces/bench/pods", { metadata: sent, spec });
  await send("PATCH", `/api/v1/namespaces/bench/pods/${name}/status`, { status }, "application/merge-patch+json");
});
// Every arm reads as a ServiceAccount with a token, as mon does in a cluster: client-node's requests under Bun
// lose a kubeconfig's client certificate (the admin kubeconfig's), so they would be anonymous and refused.
await send("POST", "/api/v1/namespaces/bench/serviceaccounts", { metadata: { name: "bench" } });
await send("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
  metadata: { name: "bench" },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
  subjects: [{ kind: "ServiceAccount", namespace: "bench", name: "bench" }],
});
const issued = await connection.request("/api/v1/namespaces/bench/serviceaccounts/bench/token", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ spec: { expirationSeconds: 86_400 } }),
});
if (!issued.ok) throw new Error(`a token for ServiceAccount bench/bench: HTTP ${issued.status} ${await issued.text()}`);
const token = ((await issued.json()) as { status: { token: string } }).status.token;
const ca = /certificate-authority-data: (\S+)/.exec(kube.kubeconfigText)?.[1];
const tokenKubeconfig = join(kube.stateDir, "bench-kubeconfig");
writeFileSync(
  tokenKubeconfig,
  [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{name: bench, cluster: {server: "${kube.url}", certificate-authority-data: ${ca}}}]`,
    `users: [{name: bench, user: {token: "${token}"}}]`,
    "contexts: [{name: bench, context: {cluster: bench, user: bench}}]",
    "current-context: bench",
    "",
  ].join("\n"),
);
const seededSeconds = Math.round((Date.now() - began) / 1000);
console.log(`seeded ${NODES} nodes and ${PODS} pods through the API server in ${seededSeconds} s`);

const results = await runArms(
  join(import.meta.dirname, "watch.ts"),
  ARMS,
  async () => ({}) as Record<string, number | string>,
  {
    BENCH_PODS: String(PODS),
    BENCH_CHURN: String(CHURN),
    BENCH_SOURCE: "real",
    BENCH_REAL_KUBECONFIG: tokenKubeconfig,
  },
);
kube.close();

const name = (arm: unknown) =>
  arm === "client-node" ? "@kubernetes/client-node" : arm === "mon-protobuf" ? "mon (protobuf)" : "mon (JSON)";
const table = [
  `On the real v1.32 control plane (kube-apiserver and etcd on this machine, the arm in a process of its own): ${PODS} pods and ${NODES} nodes seeded through the API server in ${seededSeconds} s, then a burst of ${CHURN} pod status changes written through it, 32 at a time.`,
  "",
  "| pods | nodes | informer | listed JSON (MiB) | list → synced (s) | watch events per CPU-second | JSON.parse events per CPU-second (same bytes) | ratio to JSON.parse (CPU against CPU) | RSS after sync (MiB) | RSS / listed byte |",
  "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.pods} | ${r.nodes} | ${name(r.arm)} | ${r.listedMiB} | ${r.listToSyncedSeconds} | ${r.watchEventsPerCpuSecond} | ${r.jsonParseEventsPerCpuSecond} | ${r.ratioToJsonParse} | ${r.rssAfterSyncMiB} | ${r.rssPerListedByte} |`,
  ),
].join("\n");
publish("watch-real", { runtime: `bun ${Bun.version}`, churn: CHURN, seededSeconds, results }, table);
process.exit(0);
