/** One kind mon watches: its `kind`, API path of the collection across all namespaces, and whether it is required for readiness. */
export interface WatchedKind {
  readonly kind: string;
  readonly path: string;
  readonly required: boolean;
}

/** The kinds watched by this release (issue "main job"; the full list of spec 1.1 follows). */
export const WATCHED_KINDS: readonly WatchedKind[] = [
  { kind: "Namespace", path: "/api/v1/namespaces", required: true },
  { kind: "Node", path: "/api/v1/nodes", required: true },
  { kind: "Pod", path: "/api/v1/pods", required: true },
  { kind: "Event", path: "/api/v1/events", required: false },
  { kind: "Service", path: "/api/v1/services", required: false },
  { kind: "EndpointSlice", path: "/apis/discovery.k8s.io/v1/endpointslices", required: false },
  { kind: "Deployment", path: "/apis/apps/v1/deployments", required: true },
  { kind: "ReplicaSet", path: "/apis/apps/v1/replicasets", required: true },
  { kind: "StatefulSet", path: "/apis/apps/v1/statefulsets", required: true },
  { kind: "DaemonSet", path: "/apis/apps/v1/daemonsets", required: true },
  { kind: "Job", path: "/apis/batch/v1/jobs", required: true },
];
