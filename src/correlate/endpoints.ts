import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import { type ObjectRef, refKey } from "../model/object-ref.ts";
import { joining, mergeDrafts, replaceGroups } from "./merge.ts";

/** The root reason of an incident rooted at an endpoint several workloads cannot reach (spec 1.3). */
export const DEPENDENCY_UNREACHABLE = "DependencyUnreachable";

/**
 * Connection failures as runtimes and clients print them, each capturing host and port:
 * Go (`dial tcp host:port: connect: connection refused`), Node.js (`connect ECONNREFUSED host:port`),
 * libpq (`connection to server at "host" (ip), port 5432 failed`), and a generic `host:port … refused/timed out`.
 */
const PATTERNS: readonly RegExp[] = [
  /dial tcp \[?([A-Za-z0-9.:-]+?)\]?:(\d{1,5}): (?:connect: )?(?:connection refused|i\/o timeout|no route to host|connection reset)/i,
  /\b(?:ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ECONNRESET) ([A-Za-z0-9.-]+):(\d{1,5})\b/,
  /connection to server at "?([A-Za-z0-9.-]+)"?(?: \([^)]*\))?, port (\d{1,5}) failed/i,
  /\b([A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z0-9-]+):(\d{2,5})\b[^\n]{0,60}?\b(?:connection refused|refused|timed out|timeout|unreachable)\b/i,
];

/**
 * The `host:port` a finding says its container could not reach, from its summary and evidence (last output,
 * log lines), lower-cased; undefined when it names none. Pure.
 */
export function unreachableEndpoint(finding: Finding): string | undefined {
  for (const text of [finding.summary, ...finding.evidence.map((e) => e.value)]) {
    for (const pattern of PATTERNS) {
      const m = pattern.exec(text);
      if (m) return `${m[1]!.toLowerCase()}:${m[2]}`;
    }
  }
  return undefined;
}

/**
 * Folds workload incidents that fail on the same unreachable endpoint into one incident rooted at that
 * endpoint (spec 1.3): when two or more drafts rooted at workloads or pods name the same `host:port`, they
 * become one draft with root `{kind: "Endpoint", name: "host:port"}`, reason `DependencyUnreachable`, and the
 * workloads in `affected` and `folded` (cascading suppression). An in-cluster Service (`inCluster`, canonical
 * form) that a crash says refuses is failing itself, so it is the root even for one workload.
 * `canonical` maps an endpoint to one name per server (a Service's ClusterIP and DNS names to
 * `name.namespace:port`). An in-cluster Service whose backends fail (`backends`: the top controllers of the pods
 * it selects, canonical form) is failing because of them: the workloads failing on it join the draft rooted at
 * its failing backend workload, whose root and reason stay, the dependents in `affected`.
 * Node-rooted and configuration-rooted drafts (a missing Secret) keep their root:
 * they are deeper causes. A workload whose incident is already open (`isOpen`) keeps it (`joining`).
 * Pure; keeps the input order, the merged draft where its first member was.
 */
export function foldSharedEndpoints(
  drafts: readonly IncidentDraft[],
  canonical: (endpoint: string) => string = (e) => e,
  isOpen: (id: string) => boolean = () => false,
  inCluster: (endpoint: string) => boolean = () => false,
  backends: (endpoint: string) => readonly ObjectRef[] = () => [],
): IncidentDraft[] {
  const endpointOf = new Map<IncidentDraft, string>();
  const members = new Map<string, IncidentDraft[]>();
  // An endpoint a probe found refusing (spec 2.3 autoDependencies) is already a root: workloads join it.
  const anchors = new Map<string, IncidentDraft>();
  for (const d of drafts) if (d.root.kind === "Endpoint") anchors.set(canonical(d.root.name), d);
  // An in-cluster Service whose backends are failing refuses because of them (issue 40): the workloads failing
  // on it join the incident of its failing backend workload, which names them all.
  const byRoot = new Map(drafts.map((d) => [refKey(d.root), d]));
  const backendAnchor = (endpoint: string) =>
    inCluster(endpoint)
      ? backends(endpoint)
          .map((b) => byRoot.get(refKey(b)))
          .find((d) => d !== undefined)
      : undefined;
  for (const d of drafts) {
    if (d.root.kind === "Node" || d.root.kind === "Endpoint" || d.findings.some((f) => f.explains)) continue;
    const found = d.findings.map(unreachableEndpoint).find((e) => e !== undefined);
    if (!found) continue;
    const endpoint = canonical(found);
    endpointOf.set(d, endpoint);
    members.set(endpoint, [...(members.get(endpoint) ?? []), d]);
  }
  const grouped = new Map<IncidentDraft, string>();
  for (const [endpoint, all] of members) {
    const backend = backendAnchor(endpoint);
    if (backend) {
      const joined = all.filter((d) => d !== backend && !isOpen(refKey(d.root)));
      if (joined.length === 0) continue;
      grouped.set(backend, endpoint);
      for (const d of joined) grouped.set(d, endpoint);
      continue;
    }
    const group = all;
    const anchor = anchors.get(endpoint);
    const rootId = anchor ? refKey(anchor.root) : refKey({ kind: "Endpoint", name: endpoint });
    // An in-cluster Service a crash says refuses is failing itself: it is the root even for one workload
    // (the demo's checkout names orders-db). An outside host:port needs two workloads to be the root.
    const joined = inCluster(endpoint)
      ? group.filter((d) => !isOpen(refKey(d.root)))
      : joining(group, rootId, (id) => (anchor && id === rootId) || isOpen(id));
    if (joined.length === 0) continue;
    if (anchor) grouped.set(anchor, endpoint);
    for (const d of joined) grouped.set(d, endpoint);
  }
  return replaceGroups(drafts, grouped, (endpoint, group) => {
    const backend = backendAnchor(endpoint);
    if (backend && group.includes(backend))
      return mergeDrafts(backend.root, backend.rootReason, group, "cascading_suppression");
    const anchor = group.find((d) => d.root.kind === "Endpoint");
    return mergeDrafts(
      anchor?.root ?? { kind: "Endpoint", name: endpoint },
      anchor?.rootReason ?? DEPENDENCY_UNREACHABLE,
      group,
      "cascading_suppression",
    );
  });
}

/** True when a canonical endpoint (`name.namespace:port`) is a Service of the cluster. Pure. */
export function isServiceEndpoint(endpoint: string, inventory: InventoryView): boolean {
  const m = /^([a-z0-9-]+)\.([a-z0-9-]+):\d+$/.exec(endpoint);
  return m !== null && inventory.get("Service", m[2], m[1]!) !== undefined;
}

/**
 * One name per in-cluster Service for `host:port` (spec 1.3): its ClusterIP, `name.namespace`,
 * `name.namespace.svc` and `name.namespace.svc.cluster.local` all become `name.namespace:port`; so does the IP
 * of a pod the Service selects (issue 50: a headless Service's name resolves to its pods' IPs, so that is what a
 * client of a StatefulSet database prints), the first such Service by name. Anything else (an external host, the
 * IP of a pod no Service selects) is kept as written. Pure.
 */
export function serviceEndpoint(endpoint: string, inventory: InventoryView): string {
  const at = endpoint.lastIndexOf(":");
  const host = endpoint.slice(0, at);
  const port = endpoint.slice(at + 1);
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
    const owner = inventory.ownerOfIp(host);
    const [namespace, name] = owner?.split("/") ?? [];
    if (!namespace || !name) return endpoint;
    const service = inventory.get("Service", namespace, name);
    if (service?.spec?.clusterIP === host) return `${name}.${namespace}:${port}`;
    const pod = inventory.get("Pod", namespace, name);
    if (pod?.status?.podIP !== host && !(pod?.status?.podIPs ?? []).some((a: { ip?: string }) => a.ip === host))
      return endpoint;
    const labels: Record<string, string> = pod?.metadata.labels ?? {};
    const selecting = inventory
      .listIn("Service", namespace)
      .filter((svc) => {
        const selector = svc.spec?.selector as Record<string, string> | undefined;
        return (
          selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v)
        );
      })
      .map((svc) => svc.metadata.name)
      .sort();
    return selecting[0] ? `${selecting[0]}.${namespace}:${port}` : endpoint;
  }
  const m = /^([a-z0-9-]+)\.([a-z0-9-]+)(?:\.svc(?:\.cluster\.local)?)?$/.exec(host);
  return m && inventory.get("Service", m[2], m[1]!) ? `${m[1]}.${m[2]}:${port}` : endpoint;
}

/**
 * The workloads behind an in-cluster Service (canonical `name.namespace:port`): the top controllers of the pods
 * its selector matches (a StatefulSet for its pods, a Deployment for its ReplicaSets' pods), or a pod without
 * controller. Empty for a Service without selector (an outside database). Pure.
 */
export function serviceBackends(endpoint: string, inventory: InventoryView): ObjectRef[] {
  const m = /^([a-z0-9-]+)\.([a-z0-9-]+):\d+$/.exec(endpoint);
  const service = m ? inventory.get("Service", m[2], m[1]!) : undefined;
  const selector = service?.spec?.selector as Record<string, string> | undefined;
  if (!service || !selector || Object.keys(selector).length === 0) return [];
  const out = new Map<string, ObjectRef>();
  for (const pod of inventory.listIn("Pod", m![2]!)) {
    const labels = pod.metadata.labels ?? {};
    if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) continue;
    const top = inventory.ownerChain(pod).at(-1);
    const ref: ObjectRef = top
      ? { kind: String(top.kind), namespace: top.metadata.namespace, name: top.metadata.name }
      : { kind: "Pod", namespace: pod.metadata.namespace, name: pod.metadata.name };
    out.set(refKey(ref), ref);
  }
  return [...out.values()];
}
