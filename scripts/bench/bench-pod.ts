import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The recorded kube-apiserver pod every benchmark pod is shaped like (managed fields included). */
export const POD_TEMPLATE = JSON.parse(readFileSync(join(import.meta.dirname, "testdata", "pod.json"), "utf8"));

/** Replicas per workload in the benchmarks' clusters. */
export const REPLICAS = 10;

/**
 * The i-th pod of a benchmark's cluster, as a cluster has it: pods come in workloads of REPLICAS replicas, a
 * workload's own image, labels and owner; what a pod has of its own is what the kubelet and the API server give each
 * one — its name and token volume, its IP, its container's id, and times a few seconds apart (replicas start one
 * after another). So what a reader shares between objects is only what replicas really share.
 */
export function benchPod(
  i: number,
  nodes: number,
): {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
} {
  const t = POD_TEMPLATE;
  const w = Math.floor(i / REPLICAS);
  const hash = (0x9c7fd99b5 + w * 7919).toString(36).slice(-9);
  const suffix = (i * 2654435761).toString(36).slice(-5).padStart(5, "x");
  const image = `registry.example/app-${w}/web:1.${w % 13}`;
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, generateName: _g, ...metadata } = t.metadata;
  const owner = {
    ...t.metadata.ownerReferences[0],
    name: `app-${w}-${hash}`,
    uid: `00000000-0000-4000-8000-${String(w).padStart(12, "0")}`,
  };
  const started = Date.parse(t.status.startTime) + (i % REPLICAS) * 3_000 + w * 1_000;
  const at = (ms: number) => `${new Date(started + ms).toISOString().slice(0, 19)}Z`;
  const token = `kube-api-access-${suffix}`;
  const ip = `10.${244 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
  return {
    metadata: {
      ...metadata,
      name: `app-${w}-${i}`,
      namespace: "bench",
      labels: { app: `app-${w}`, "pod-template-hash": hash },
      ownerReferences: [owner],
    },
    spec: {
      ...t.spec,
      nodeName: `node-${i % nodes}`,
      volumes: [{ ...t.spec.volumes[0], name: token }],
      containers: t.spec.containers.map((c: Record<string, unknown>) => ({
        ...c,
        image,
        volumeMounts: [{ ...(c.volumeMounts as Record<string, unknown>[])[0], name: token }],
      })),
    },
    status: {
      ...t.status,
      conditions: t.status.conditions.map((c: Record<string, unknown>, k: number) => ({
        ...c,
        lastTransitionTime: at(k === 1 || k === 4 ? 0 : 19_000),
      })),
      podIP: ip,
      podIPs: [{ ip }],
      startTime: at(0),
      containerStatuses: t.status.containerStatuses.map((s: Record<string, unknown>) => ({
        ...s,
        image,
        imageID: `registry.example/app-${w}/web@sha256:${String(w).padStart(64, "0")}`,
        containerID: `containerd://${String(i).padStart(64, "0")}`,
        state: { running: { startedAt: at(19_000) } },
      })),
    },
  };
}

/** A status change of the benchmark pod named `name` (`app-<workload>-<i>`): its container restarted, as counted. */
export function restarted(name: string, restartCount: number): { containerStatuses: Record<string, unknown>[] } {
  const i = Number(name.slice(name.lastIndexOf("-") + 1));
  const statuses = benchPod(i, 1).status.containerStatuses as Record<string, unknown>[];
  return { containerStatuses: [{ ...statuses[0], restartCount }] };
}
