import { CRD_GROUP } from "../config/overlay.ts";
import { KNOWN_KINDS } from "../kube/kinds.ts";

/** An RBAC rule as `rbac.authorization.k8s.io/v1` writes it (a ClusterRole's or Role's `rules` entry). */
export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly verbs: readonly string[];
}

/** Spec 5.5's `rbac.mode`: list/watch on everything, or only on the kinds mon knows (custom resources uncovered). */
export type RbacMode = "full" | "least-privilege";

/** The Secret holding the license's instance key (spec 5.4), read and written by name in mon's namespace. */
export const INSTANCE_SECRET = "mon-license-instance";

/**
 * The ClusterRole's rules (spec 5.5). `full`: list and watch on every resource of every group.
 * `least-privilege`: list and watch on each cluster-wide kind of KNOWN_KINDS (the kinds mon has detectors
 * for, so the list can never drift from the code) plus the metrics API; with `watchSecrets` false the Secret
 * kind is left out, so no Secret can be read cluster-wide. In both modes: `get` on namespaces, nodes, nodes/stats, nodes/metrics,
 * pods/log and leases (a down node's heartbeat) only (no wildcard get), the API server's /readyz and /metrics, and SelfSubjectAccessReview create.
 * A `full` ClusterRole covers Secrets through its wildcard; `watchSecrets` false therefore requires
 * least-privilege (the chart and the no-secrets component enforce it), and namespaceRules drops the instance
 * Secret too.
 */
export function clusterRules(options: { mode: RbacMode; watchSecrets: boolean }): PolicyRule[] {
  const watch: PolicyRule[] =
    options.mode === "full" && options.watchSecrets
      ? [{ apiGroups: ["*"], resources: ["*"], verbs: ["list", "watch"] }]
      : [
          ...byGroup(KNOWN_KINDS.filter((k) => !k.namespace && (options.watchSecrets || k.resource !== "secrets"))).map(
            ([group, resources]) => ({ apiGroups: [group], resources, verbs: ["list", "watch"] }),
          ),
          // The metrics reader lists node and pod usage (it does not watch).
          { apiGroups: ["metrics.k8s.io"], resources: ["nodes", "pods"], verbs: ["list"] },
        ];
  return [
    ...watch,
    {
      apiGroups: [""],
      resources: ["namespaces", "nodes", "nodes/stats", "nodes/metrics", "pods/log"],
      verbs: ["get"],
    },
    // A down node's last heartbeat: its Lease in kube-node-lease, read by name (issue 50).
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get"] },
    { nonResourceURLs: ["/readyz", "/metrics"], verbs: ["get"] },
    { apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews"], verbs: ["create"] },
  ];
}

/**
 * The Role in mon's own namespace (spec 5.5): its state-lock Lease by name (`get`, `update`, and `watch`: a
 * standby watches the Lease with a `metadata.name` field selector, which RBAC authorizes by name, to take over
 * at once on a release) and `create` on Leases (creating cannot be limited by name in RBAC), `get` on its own
 * namespace's pods, and the license's instance Secret by name (`get`, `update`) with `create` for its first
 * write — unless `instanceSecret` is false (watch.secrets false: no Secret permission at all; Pro then keeps
 * its instance key in memory, docs/install.md) — and list/watch on MonConfig unless `overlay` is false.
 */
export function namespaceRules(options: {
  leaseName: string;
  instanceSecret?: boolean;
  overlay?: boolean;
}): PolicyRule[] {
  const secret: PolicyRule[] = [
    { apiGroups: [""], resources: ["secrets"], resourceNames: [INSTANCE_SECRET], verbs: ["get", "update"] },
    { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
  ];
  return [
    {
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      resourceNames: [options.leaseName],
      verbs: ["get", "update", "watch"],
    },
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
    { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
    ...(options.instanceSecret === false ? [] : secret),
    ...(options.overlay === false ? [] : overlayRules()),
  ];
}

/** The overlay's rule in mon's namespace (spec 5.5, crd.enabled): list and watch MonConfig objects. */
export function overlayRules(): PolicyRule[] {
  return [{ apiGroups: [CRD_GROUP], resources: ["monconfigs"], verbs: ["list", "watch"] }];
}

/**
 * The Role in each namespace KNOWN_KINDS watches on its own (kube-system: the control plane's leader Leases),
 * by namespace: `get` in every mode (spec 5.5) plus list and watch, which `full` already grants cluster-wide
 * but least-privilege does not.
 */
export function namespacedWatchRules(): Map<string, PolicyRule[]> {
  const out = new Map<string, PolicyRule[]>();
  for (const k of KNOWN_KINDS.filter((k) => k.namespace)) {
    const rules = out.get(k.namespace!) ?? [];
    rules.push({ apiGroups: [k.group], resources: [k.resource], verbs: ["get", "list", "watch"] });
    out.set(k.namespace!, rules);
  }
  return out;
}

// --- internal ---

/** Resources by API group, groups and resources in the order KNOWN_KINDS gives them. */
function byGroup(kinds: readonly { group: string; resource: string }[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const k of kinds) groups.set(k.group, [...(groups.get(k.group) ?? []), k.resource]);
  return [...groups];
}
