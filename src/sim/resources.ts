/** One served resource type of the simulator, shaped like a kube-apiserver discovery entry. */
export interface ResourceType {
  readonly group: string; // "" for core
  readonly version: string;
  readonly name: string; // plural, e.g. "pods"
  readonly singularName: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  /** Has a `status` subresource: writes to the main resource ignore `.status`, writes to `/status` change only it. */
  readonly status: boolean;
}

const ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"] as const;
const NO_COLLECTION = ["create", "delete", "get", "list", "patch", "update", "watch"] as const;

function r(group: string, version: string, name: string, kind: string, namespaced: boolean, status: boolean, extra: Partial<ResourceType> = {}): ResourceType {
  return { group, version, name, singularName: kind.toLowerCase(), kind, namespaced, verbs: ALL, status, ...extra };
}

/**
 * Every resource type the simulator serves (kube-apiserver v1.32 names, verbs and short names, from
 * shared/fixtures/kube-apiserver-v1.32/discovery). Events of core/v1 and events.k8s.io/v1 are kept apart here,
 * unlike a real server that stores them once (documented in docs/simulator.md).
 */
export const RESOURCE_TYPES: readonly ResourceType[] = [
  r("", "v1", "pods", "Pod", true, true, { shortNames: ["po"], categories: ["all"] }),
  r("", "v1", "nodes", "Node", false, true, { shortNames: ["no"] }),
  r("", "v1", "namespaces", "Namespace", false, true, { shortNames: ["ns"], verbs: NO_COLLECTION }),
  r("", "v1", "services", "Service", true, true, { shortNames: ["svc"], categories: ["all"] }),
  r("", "v1", "endpoints", "Endpoints", true, false, { singularName: "endpoints", shortNames: ["ep"] }),
  r("", "v1", "events", "Event", true, false, { shortNames: ["ev"] }),
  r("", "v1", "configmaps", "ConfigMap", true, false, { shortNames: ["cm"] }),
  r("", "v1", "secrets", "Secret", true, false),
  r("", "v1", "serviceaccounts", "ServiceAccount", true, false, { shortNames: ["sa"] }),
  r("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, true, { shortNames: ["pvc"] }),
  r("", "v1", "persistentvolumes", "PersistentVolume", false, true, { shortNames: ["pv"] }),
  r("apps", "v1", "deployments", "Deployment", true, true, { shortNames: ["deploy"], categories: ["all"] }),
  r("apps", "v1", "replicasets", "ReplicaSet", true, true, { shortNames: ["rs"], categories: ["all"] }),
  r("apps", "v1", "statefulsets", "StatefulSet", true, true, { shortNames: ["sts"], categories: ["all"] }),
  r("apps", "v1", "daemonsets", "DaemonSet", true, true, { shortNames: ["ds"], categories: ["all"] }),
  r("batch", "v1", "jobs", "Job", true, true, { categories: ["all"] }),
  r("batch", "v1", "cronjobs", "CronJob", true, true, { shortNames: ["cj"], categories: ["all"] }),
  r("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true, false),
  r("coordination.k8s.io", "v1", "leases", "Lease", true, false),
  r("events.k8s.io", "v1", "events", "Event", true, false, { shortNames: ["ev"] }),
];

/** `apiVersion` of a resource type: `v1` or `group/version`. */
export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** Unique key of a resource type: `group/version/name`. */
export function typeKey(type: ResourceType): string {
  return `${type.group}/${type.version}/${type.name}`;
}

/** Finds a served type by group, version and plural name. */
export function findType(group: string, version: string, name: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.name === name);
}

/** Finds a served type by `apiVersion` and `kind` (what a manifest names). */
export function findTypeByKind(apiVersion: string, kind: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
}

/** The group/version pairs served, core first, in discovery order. */
export function servedGroups(): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const t of RESOURCE_TYPES) seen.set(`${t.group}/${t.version}`, { group: t.group, version: t.version });
  return [...seen.values()];
}
