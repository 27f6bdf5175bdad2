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
  /** Its objects have no namespace (Nodes, PersistentVolumes …). */
  readonly clusterScoped?: boolean;
  /** kubectl's short names (`kubectl api-resources`), for what users type (`mon explain deploy/shop/web`). */
  readonly shortNames?: readonly string[];
}

/** The kinds of spec 1.1 that mon watches in full; every other served kind is watched for its metadata only. */
export const KNOWN_KINDS: readonly KnownKind[] = [
  { group: "", resource: "namespaces", kind: "Namespace", required: true, clusterScoped: true, shortNames: ["ns"] },
  { group: "", resource: "nodes", kind: "Node", required: true, clusterScoped: true, shortNames: ["no"] },
  { group: "", resource: "pods", kind: "Pod", required: true, shortNames: ["po"] },
  { group: "", resource: "services", kind: "Service", shortNames: ["svc"] },
  { group: "", resource: "endpoints", kind: "Endpoints", shortNames: ["ep"] },
  { group: "", resource: "events", kind: "Event", shortNames: ["ev"] },
  { group: "", resource: "persistentvolumeclaims", kind: "PersistentVolumeClaim", shortNames: ["pvc"] },
  { group: "", resource: "persistentvolumes", kind: "PersistentVolume", clusterScoped: true, shortNames: ["pv"] },
  { group: "", resource: "configmaps", kind: "ConfigMap", shortNames: ["cm"] },
  { group: "", resource: "secrets", kind: "Secret", sensitive: true },
  { group: "", resource: "serviceaccounts", kind: "ServiceAccount", shortNames: ["sa"] },
  { group: "apps", resource: "deployments", kind: "Deployment", required: true, shortNames: ["deploy"] },
  { group: "apps", resource: "replicasets", kind: "ReplicaSet", required: true, shortNames: ["rs"] },
  { group: "apps", resource: "statefulsets", kind: "StatefulSet", required: true, shortNames: ["sts"] },
  { group: "apps", resource: "daemonsets", kind: "DaemonSet", required: true, shortNames: ["ds"] },
  // What a StatefulSet's or DaemonSet's rollout changed (issue 32 "what changed").
  { group: "apps", resource: "controllerrevisions", kind: "ControllerRevision" },
  { group: "batch", resource: "jobs", kind: "Job", required: true },
  { group: "batch", resource: "cronjobs", kind: "CronJob", shortNames: ["cj"] },
  { group: "discovery.k8s.io", resource: "endpointslices", kind: "EndpointSlice" },
  { group: "networking.k8s.io", resource: "ingresses", kind: "Ingress", shortNames: ["ing"] },
  { group: "networking.k8s.io", resource: "networkpolicies", kind: "NetworkPolicy", shortNames: ["netpol"] },
  { group: "gateway.networking.k8s.io", resource: "httproutes", kind: "HTTPRoute", optional: true },
  { group: "gateway.networking.k8s.io", resource: "grpcroutes", kind: "GRPCRoute", optional: true },
  { group: "gateway.networking.k8s.io", resource: "tlsroutes", kind: "TLSRoute", optional: true },
  { group: "gateway.networking.k8s.io", resource: "tcproutes", kind: "TCPRoute", optional: true },
  { group: "gateway.networking.k8s.io", resource: "udproutes", kind: "UDPRoute", optional: true },
  {
    group: "cert-manager.io",
    resource: "certificates",
    kind: "Certificate",
    optional: true,
    shortNames: ["cert", "certs"],
  },
  {
    group: "storage.k8s.io",
    resource: "storageclasses",
    kind: "StorageClass",
    clusterScoped: true,
    shortNames: ["sc"],
  },
  {
    group: "storage.k8s.io",
    resource: "volumeattachments",
    kind: "VolumeAttachment",
    optional: true,
    clusterScoped: true,
  },
  { group: "storage.k8s.io", resource: "csidrivers", kind: "CSIDriver", clusterScoped: true },
  { group: "coordination.k8s.io", resource: "leases", kind: "Lease", namespace: "kube-system" },
  { group: "policy", resource: "poddisruptionbudgets", kind: "PodDisruptionBudget", shortNames: ["pdb"] },
  { group: "autoscaling", resource: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler", shortNames: ["hpa"] },
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
