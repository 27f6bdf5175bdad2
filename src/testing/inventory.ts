import { Inventory } from "../kube/inventory.ts";
import type { KubeObject } from "../model/inventory.ts";

/** An Inventory holding `objects` (each with `kind` and `metadata`), for detector and correlation tests. */
export function inventoryOf(...objects: KubeObject[]): Inventory {
  const inventory = new Inventory();
  for (const o of objects) inventory.apply(o.kind, "ADDED", o);
  for (const kind of [
    "Pod",
    "Node",
    "Namespace",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "Service",
    "EndpointSlice",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "VolumeAttachment",
    "ConfigMap",
    "Secret",
    "ServiceAccount",
    "Event",
    "NetworkPolicy",
    "Ingress",
    "HTTPRoute",
    "GRPCRoute",
    "Lease",
  ])
    inventory.markWatched(kind);
  return inventory;
}

/** Like inventoryOf, but only `watched` kinds count as watched (the others are denied or disabled). */
export function inventoryWatching(watched: readonly string[], ...objects: KubeObject[]): Inventory {
  const inventory = new Inventory();
  for (const o of objects) inventory.apply(o.kind, "ADDED", o);
  for (const kind of watched) inventory.markWatched(kind);
  return inventory;
}

const T0 = "2026-01-01T00:00:00Z";

/** A Node with the given Ready status; `since` is the condition's lastTransitionTime. */
export function node(
  name: string,
  ready: "True" | "False" | "Unknown",
  since = T0,
  extra: KubeObject = {},
): KubeObject {
  const reason = ready === "True" ? "KubeletReady" : ready === "Unknown" ? "NodeStatusUnknown" : "KubeletNotReady";
  const message =
    ready === "Unknown"
      ? "Kubelet stopped posting node status."
      : ready === "False"
        ? "container runtime is down"
        : "kubelet is posting ready status";
  return {
    kind: "Node",
    apiVersion: "v1",
    metadata: { name, uid: `uid-${name}` },
    spec: {},
    status: { conditions: [{ type: "Ready", status: ready, reason, message, lastTransitionTime: since }] },
    ...extra,
  };
}

/**
 * A Deployment → ReplicaSet pair with uids, for owner chains. The Deployment wants 2 replicas and, unless
 * `available` says otherwise, has both available (its failing pods are what a test is about).
 */
export function workload(
  namespace: string,
  name: string,
  available = 2,
): { deployment: KubeObject; replicaSet: KubeObject } {
  const deployment = {
    kind: "Deployment",
    apiVersion: "apps/v1",
    metadata: { namespace, name, uid: `uid-d-${name}` },
    spec: { replicas: 2 },
    status: { replicas: 2, readyReplicas: available, availableReplicas: available },
  };
  const replicaSet = {
    kind: "ReplicaSet",
    apiVersion: "apps/v1",
    metadata: {
      namespace,
      name: `${name}-7c9d8f6b5`,
      uid: `uid-rs-${name}`,
      ownerReferences: [{ kind: "Deployment", name, uid: `uid-d-${name}`, controller: true }],
    },
  };
  return { deployment, replicaSet };
}

/**
 * A pod owned by `owner` (a ReplicaSet, or none) on `nodeName`, with the given container status; a Running
 * pod given no status and no conditions is Ready.
 */
export function pod(
  namespace: string,
  name: string,
  options: {
    owner?: KubeObject;
    nodeName?: string;
    phase?: string;
    status?: KubeObject;
    containers?: KubeObject[];
    conditions?: KubeObject[];
  } = {},
): KubeObject {
  return {
    kind: "Pod",
    apiVersion: "v1",
    metadata: {
      namespace,
      name,
      uid: `uid-p-${name}`,
      creationTimestamp: T0,
      ...(options.owner
        ? {
            ownerReferences: [
              {
                kind: options.owner.kind,
                name: options.owner.metadata.name,
                uid: options.owner.metadata.uid,
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
      containers: options.containers ?? [{ name: "app", image: "registry.example/app:1.0" }],
    },
    status: {
      phase: options.phase ?? "Running",
      // A running pod with no status given is healthy: Ready, as the kubelet reports it.
      ...(options.conditions
        ? { conditions: options.conditions }
        : !options.status && (options.phase ?? "Running") === "Running"
          ? { conditions: [{ type: "Ready", status: "True", lastTransitionTime: T0 }] }
          : {}),
      ...(options.status
        ? {
            containerStatuses: [
              { name: "app", image: "registry.example/app:1.0", ready: false, restartCount: 0, ...options.status },
            ],
          }
        : {}),
    },
  };
}
