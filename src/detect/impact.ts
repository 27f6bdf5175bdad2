import type { EntryPoint, Impact, ServiceBackends } from "../model/impact.ts";
import type { Incident } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ObjectLike, Pod, Service } from "../model/kube.ts";
import { condition } from "./build.ts";
import { ingressBackends, ROUTE_KINDS, routedServices, userReachable } from "./reach.ts";

/** Dependents named in the Impact line; the rest are counted. */
const MAX_DEPENDENTS = 5;
const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "DaemonSet"] as const;

/**
 * Who is hurt by an incident (issue 32): the pods it names (a lost node's pods, a workload's), the workloads
 * they belong to with their available replicas, the Services selecting them with the ready backends left, how
 * users reach those Services (Ingress hosts, Gateway API routes and their host names, LoadBalancer and
 * NodePort), and the other workloads whose environment names a hurt Service as a host. Undefined when it
 * hurts no workload and no Service. Pure.
 */
export function impactOf(incident: Incident, inventory: InventoryView): Impact | undefined {
  const failing = failingPods(incident, inventory);
  const workloads = new Map<string, ObjectLike>();
  for (const pod of failing.values()) {
    const top = inventory.ownerChain(pod).at(-1);
    if (top && (WORKLOAD_KINDS as readonly string[]).includes(String(top.kind))) workloads.set(keyOf(top), top);
  }
  for (const f of [{ object: incident.root }, ...incident.findings])
    if ((WORKLOAD_KINDS as readonly string[]).includes(f.object.kind)) {
      const o = inventory.get(f.object.kind, f.object.namespace, f.object.name);
      if (o) workloads.set(keyOf(o), o);
    }
  const services = new Map<string, Service>();
  for (const svc of inventory.list("Service")) {
    const selector = svc.spec?.selector;
    if (!selector || Object.keys(selector).length === 0) continue;
    const selects = (p: Pod) =>
      p.metadata.namespace === svc.metadata.namespace &&
      Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v);
    if ([...failing.values()].some(selects)) services.set(keyOf(svc), svc);
  }
  for (const f of incident.findings)
    if (f.object.kind === "Service") {
      const svc = inventory.get("Service", f.object.namespace, f.object.name);
      if (svc) services.set(keyOf(svc), svc);
    }
  if (workloads.size === 0 && services.size === 0) return undefined;
  const routed = routedServices(inventory);
  const entryPoints: EntryPoint[] = [];
  const internal: ServiceBackends[] = [];
  for (const svc of services.values()) {
    const backends = backendsOf(svc, inventory, failing);
    const via = userReachable(svc, routed);
    if (via) entryPoints.push({ ...backends, via, hosts: hostsOf(svc, inventory) });
    else internal.push(backends);
  }
  const own = new Set(workloads.keys());
  const dependents = dependentsOf([...services.values()], inventory).filter((d) => !own.has(d.key));
  return {
    entryPoints,
    internal,
    workloads: [...workloads.values()].map((w) => ({ workload: labelOf(w), ...replicasOf(w) })),
    dependents: dependents.slice(0, MAX_DEPENDENTS).map((d) => d.label),
    moreDependents: Math.max(0, dependents.length - MAX_DEPENDENTS),
  };
}

// --- internal ---

function keyOf(o: ObjectLike): string {
  return `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
}

function labelOf(o: ObjectLike): string {
  return `${String(o.kind).toLowerCase()} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
}

/** The pods an incident names: its Pod findings, the pods of a lost node, the pods of a failing workload. */
function failingPods(incident: Incident, inventory: InventoryView): Map<string, Pod> {
  const out = new Map<string, Pod>();
  const add = (p: Pod | undefined) => {
    if (p) out.set(keyOf({ ...p, kind: "Pod" }), p);
  };
  for (const f of [{ object: incident.root }, ...incident.findings]) {
    const o = f.object;
    if (o.kind === "Pod") add(inventory.get("Pod", o.namespace, o.name));
    else if (o.kind === "Node") for (const p of inventory.podsOnNode(o.name)) add(p);
    else if ((WORKLOAD_KINDS as readonly string[]).includes(o.kind))
      for (const p of inventory.list("Pod"))
        if (
          p.metadata.namespace === o.namespace &&
          condition(p, "Ready")?.status !== "True" &&
          inventory.ownerChain(p).some((c) => c.kind === o.kind && c.metadata.name === o.name)
        )
          add(p);
  }
  return out;
}

/** A Service's pods that are ready and not failing, of all it selects. */
function backendsOf(svc: Service, inventory: InventoryView, failing: ReadonlyMap<string, Pod>): ServiceBackends {
  const selector = svc.spec?.selector ?? {};
  let total = 0;
  let ready = 0;
  if (Object.keys(selector).length > 0)
    for (const p of inventory.list("Pod")) {
      if (p.metadata.namespace !== svc.metadata.namespace || p.metadata.deletionTimestamp) continue;
      if (!Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v)) continue;
      total++;
      if (condition(p, "Ready")?.status === "True" && !failing.has(keyOf({ ...p, kind: "Pod" }))) ready++;
    }
  return { service: `${svc.metadata.namespace}/${svc.metadata.name}`, ready, total };
}

/** The host names users reach `svc` by: its Ingress rules' hosts and its routes' host names. */
function hostsOf(svc: Service, inventory: InventoryView): string[] {
  const hosts = new Set<string>();
  for (const ing of inventory.list("Ingress")) {
    if (ing.metadata.namespace !== svc.metadata.namespace) continue;
    for (const b of ingressBackends(ing)) if (b.name === svc.metadata.name && b.path) hosts.add(b.path);
  }
  for (const kind of ROUTE_KINDS)
    for (const route of inventory.list(kind)) {
      const targets = (route.spec?.rules ?? []).some((r) =>
        (r.backendRefs ?? []).some(
          (ref) =>
            ref.name === svc.metadata.name && (ref.namespace ?? route.metadata.namespace) === svc.metadata.namespace,
        ),
      );
      if (targets) for (const h of route.spec?.hostnames ?? []) hosts.add(h);
    }
  return [...hosts].sort();
}

/** Replicas of a workload available (ready for a StatefulSet) of those desired, from its status. */
function replicasOf(w: ObjectLike): { available: number; desired: number } {
  const { spec, status } = w as { spec?: { replicas?: number }; status?: Record<string, number | undefined> };
  if (w.kind === "DaemonSet")
    return { available: status?.numberAvailable ?? 0, desired: status?.desiredNumberScheduled ?? 0 };
  const available = w.kind === "StatefulSet" ? status?.readyReplicas : status?.availableReplicas;
  return { available: available ?? 0, desired: spec?.replicas ?? 1 };
}

/**
 * The workloads whose containers' environment names one of `services` as a host (`http://cart:8080`,
 * `cart.shop.svc.cluster.local`, `cart.shop`): a bare name counts in the Service's own namespace only.
 */
function dependentsOf(services: readonly Service[], inventory: InventoryView): { key: string; label: string }[] {
  if (services.length === 0) return [];
  const out = new Map<string, string>();
  for (const kind of WORKLOAD_KINDS)
    for (const w of inventory.list(kind)) {
      const values = (w.spec?.template?.spec?.containers ?? [])
        .flatMap((c) => c.env ?? [])
        .map((e) => e.value ?? "")
        .filter(Boolean);
      if (values.length === 0) continue;
      const names = services.some((svc) => {
        const name = escapeRegExp(svc.metadata.name);
        const ns = escapeRegExp(svc.metadata.namespace ?? "");
        const qualified = new RegExp(`(^|[/@\\s,=])${name}\\.${ns}(\\.svc(\\.cluster\\.local)?)?(?=$|[:/\\s,])`);
        const bare = new RegExp(`(^|[/@\\s,=])${name}(?=$|[:/\\s,])`);
        return values.some(
          (v) => qualified.test(v) || (w.metadata.namespace === svc.metadata.namespace && bare.test(v)),
        );
      });
      if (names) out.set(keyOf({ ...w, kind }), labelOf({ ...w, kind }));
    }
  return [...out].map(([key, label]) => ({ key, label }));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
