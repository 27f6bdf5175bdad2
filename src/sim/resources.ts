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
  /**
   * The version objects of this type are stored in (a CustomResourceDefinition's storage version) when it is
   * not this one: every served version reads and writes the same objects, shown with its own `apiVersion`.
   */
  readonly storageVersion?: string;
  /** The `openAPIV3Schema` of a custom resource's version: created and updated objects are pruned and validated. */
  readonly schema?: Readonly<Record<string, unknown>>;
  /** Sent as a `Warning: 299` header on every request to a deprecated version. */
  readonly deprecationWarning?: string;
  /** The CustomResourceDefinition that serves this type. */
  readonly definedBy?: string;
}

const ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"] as const;
const NO_COLLECTION = ["create", "delete", "get", "list", "patch", "update", "watch"] as const;

function r(
  group: string,
  version: string,
  name: string,
  kind: string,
  namespaced: boolean,
  status: boolean,
  extra: Partial<ResourceType> = {},
): ResourceType {
  return { group, version, name, singularName: kind.toLowerCase(), kind, namespaced, verbs: ALL, status, ...extra };
}

/**
 * The built-in resource types the simulator serves (kube-apiserver v1.32 names, verbs and short names, from
 * src/sim/testdata/kube-apiserver-v1.32/discovery). Events of core/v1 and events.k8s.io/v1 are kept apart here,
 * unlike a real server that stores them once (documented in docs/simulator.md).
 */
export const BUILTIN_TYPES: readonly ResourceType[] = [
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
  r("apps", "v1", "controllerrevisions", "ControllerRevision", true, false),
  r("batch", "v1", "jobs", "Job", true, true, { categories: ["all"] }),
  r("batch", "v1", "cronjobs", "CronJob", true, true, { shortNames: ["cj"], categories: ["all"] }),
  r("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true, false),
  r("coordination.k8s.io", "v1", "leases", "Lease", true, false),
  r("events.k8s.io", "v1", "events", "Event", true, false, { shortNames: ["ev"] }),
  r("networking.k8s.io", "v1", "ingresses", "Ingress", true, true, { shortNames: ["ing"] }),
  r("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true, false, { shortNames: ["netpol"] }),
  r("storage.k8s.io", "v1", "storageclasses", "StorageClass", false, false, { shortNames: ["sc"] }),
  r("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", false, true),
  r("storage.k8s.io", "v1", "csidrivers", "CSIDriver", false, false),
  r("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, true, { shortNames: ["pdb"] }),
  r("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, true, {
    shortNames: ["hpa"],
    categories: ["all"],
  }),
  r("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false, true, {
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
  }),
  // Stored and served (what an installer applies); the simulator's authorizer reads its own rules (addUser).
  r("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, false),
  r("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false, false),
  r("rbac.authorization.k8s.io", "v1", "roles", "Role", true, false),
  r("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, false),
  r("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false, false, {
    verbs: ["create"],
  }),
];

/** The metrics API (metrics.k8s.io/v1beta1), optional: served only when a simulator is started with it. */
export const METRICS_TYPES: readonly ResourceType[] = [
  r("metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics", false, false, { singularName: "", verbs: ["get", "list"] }),
  r("metrics.k8s.io", "v1beta1", "pods", "PodMetrics", true, false, { singularName: "", verbs: ["get", "list"] }),
];

/** Builds a custom resource type (a CRD's kind), served with the full verb set. */
export function customResourceType(options: {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  status?: boolean;
}): ResourceType {
  return r(options.group, options.version, options.plural, options.kind, options.namespaced, options.status ?? false);
}

/**
 * The resource types one simulator serves: the built-ins, minus any a test removed (an optional API that is
 * not installed), plus custom resources and the metrics API when added.
 */
export class TypeRegistry {
  private readonly types: ResourceType[];

  constructor(types: readonly ResourceType[] = BUILTIN_TYPES) {
    this.types = [...types];
  }

  /** Every served type. */
  all(): readonly ResourceType[] {
    return this.types;
  }

  /** Serves another type (a custom resource); replaces one with the same group, version and name. */
  add(type: ResourceType): void {
    this.remove(type.group, type.version, type.name);
    this.types.push(type);
  }

  /** Stops serving a type (an API that is not installed). */
  remove(group: string, version: string, name: string): void {
    const at = this.types.findIndex((t) => t.group === group && t.version === version && t.name === name);
    if (at >= 0) this.types.splice(at, 1);
  }

  /** A served type by group, version and plural name. */
  find(group: string, version: string, name: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.version === version && t.name === name);
  }

  /** A served type by `apiVersion` and `kind` (what a manifest names). */
  findByKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.types.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
  }

  /** Stops serving every type a CustomResourceDefinition defined. */
  removeDefinedBy(crd: string): void {
    for (let at = this.types.length - 1; at >= 0; at--) if (this.types[at]!.definedBy === crd) this.types.splice(at, 1);
  }

  /** The group/version pairs served, core first, in registration order. */
  groups(): { group: string; version: string }[] {
    const seen = new Map<string, { group: string; version: string }>();
    for (const t of this.types) seen.set(`${t.group}/${t.version}`, { group: t.group, version: t.version });
    return [...seen.values()];
  }

  /** Every served group with its versions, the preferred (first registered) version first. */
  groupVersions(): { group: string; versions: string[] }[] {
    const out = new Map<string, string[]>();
    for (const { group, version } of this.groups()) out.set(group, [...(out.get(group) ?? []), version]);
    return [...out].map(([group, versions]) => ({ group, versions }));
  }
}

/** `apiVersion` of a resource type: `v1` or `group/version`. */
export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** Unique key of a resource type: `group/version/name`. */
export function typeKey(type: ResourceType): string {
  return `${type.group}/${type.version}/${type.name}`;
}

/** Key of the objects a type reads and writes: its storage version's (every served version shares them). */
export function storageKey(type: ResourceType): string {
  return `${type.group}/${type.storageVersion ?? type.version}/${type.name}`;
}
