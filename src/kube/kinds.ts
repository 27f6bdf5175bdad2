/**
 * A kind mon knows (spec 1.1): detectors read it in full. `required` kinds decide readiness; `optional`
 * APIs may be absent without degrading readiness (spec 1.5); `namespace` limits the watch to one namespace
 * (Leases in kube-system); `sensitive` kinds have their values hashed before they are cached.
 */
export interface KnownKind {
  readonly group: string;
  readonly resource: string;
  readonly kind: string;
  readonly required?: boolean;
  readonly optional?: boolean;
  readonly namespace?: string;
  readonly sensitive?: boolean;
}

/** The kinds of spec 1.1 that mon watches in full; every other served kind is watched for its metadata only. */
export const KNOWN_KINDS: readonly KnownKind[] = [
  { group: "", resource: "namespaces", kind: "Namespace", required: true },
  { group: "", resource: "nodes", kind: "Node", required: true },
  { group: "", resource: "pods", kind: "Pod", required: true },
  { group: "", resource: "services", kind: "Service" },
  { group: "", resource: "endpoints", kind: "Endpoints" },
  { group: "", resource: "events", kind: "Event" },
  { group: "", resource: "persistentvolumeclaims", kind: "PersistentVolumeClaim" },
  { group: "", resource: "persistentvolumes", kind: "PersistentVolume" },
  { group: "", resource: "configmaps", kind: "ConfigMap" },
  { group: "", resource: "secrets", kind: "Secret", sensitive: true },
  { group: "", resource: "serviceaccounts", kind: "ServiceAccount" },
  { group: "apps", resource: "deployments", kind: "Deployment", required: true },
  { group: "apps", resource: "replicasets", kind: "ReplicaSet", required: true },
  { group: "apps", resource: "statefulsets", kind: "StatefulSet", required: true },
  { group: "apps", resource: "daemonsets", kind: "DaemonSet", required: true },
  // What a StatefulSet's or DaemonSet's rollout changed (issue 32 "what changed").
  { group: "apps", resource: "controllerrevisions", kind: "ControllerRevision" },
  { group: "batch", resource: "jobs", kind: "Job", required: true },
  { group: "batch", resource: "cronjobs", kind: "CronJob" },
  { group: "discovery.k8s.io", resource: "endpointslices", kind: "EndpointSlice" },
  { group: "networking.k8s.io", resource: "ingresses", kind: "Ingress" },
  { group: "networking.k8s.io", resource: "networkpolicies", kind: "NetworkPolicy" },
  { group: "gateway.networking.k8s.io", resource: "httproutes", kind: "HTTPRoute", optional: true },
  { group: "gateway.networking.k8s.io", resource: "grpcroutes", kind: "GRPCRoute", optional: true },
  { group: "gateway.networking.k8s.io", resource: "tlsroutes", kind: "TLSRoute", optional: true },
  { group: "gateway.networking.k8s.io", resource: "tcproutes", kind: "TCPRoute", optional: true },
  { group: "gateway.networking.k8s.io", resource: "udproutes", kind: "UDPRoute", optional: true },
  { group: "cert-manager.io", resource: "certificates", kind: "Certificate", optional: true },
  { group: "storage.k8s.io", resource: "storageclasses", kind: "StorageClass" },
  { group: "storage.k8s.io", resource: "volumeattachments", kind: "VolumeAttachment", optional: true },
  { group: "storage.k8s.io", resource: "csidrivers", kind: "CSIDriver" },
  { group: "coordination.k8s.io", resource: "leases", kind: "Lease", namespace: "kube-system" },
  { group: "policy", resource: "poddisruptionbudgets", kind: "PodDisruptionBudget" },
  { group: "autoscaling", resource: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler" },
];

/** Served kinds mon never watches: the same objects under another name, or not objects at all. */
export const NOT_WATCHED: ReadonlySet<string> = new Set([
  "events.k8s.io/events", // the same Events as core/v1, watched there
  "metrics.k8s.io/nodes", // read by the metrics reader, not watched
  "metrics.k8s.io/pods",
]);

/** A kind an informer watches, as the watch plan decides. */
export interface WatchTarget {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  /** Collection path: `/api/v1/pods`, `/apis/apps/v1/deployments`, `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases`. */
  readonly path: string;
  readonly required: boolean;
  /** Cache only `apiVersion`, `kind` and `metadata` (kinds mon has no detector for). */
  readonly metadataOnly: boolean;
  readonly sensitive: boolean;
  readonly namespace?: string;
}

/** `group/resource`, the key of a kind in coverage and health. */
export function kindKey(target: { group: string; resource: string }): string {
  return target.group ? `${target.group}/${target.resource}` : target.resource;
}
