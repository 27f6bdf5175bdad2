import type { EntryPoint, Impact, ServiceBackends } from "../model/impact.ts";
import { NODE_DOWN_REASONS } from "../model/finding.ts";
import type { Incident } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ObjectLike, Pod, Service } from "../model/kube.ts";
import { refKey, refLabel } from "../model/object-ref.ts";
import { condition, refOf } from "./build.ts";
import { ingressBackends, ROUTE_KINDS, routedServices, userReachable } from "./reach.ts";

/** Dependents named in the Impact line; the rest are counted. */
const MAX_DEPENDENTS = 5;
const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "DaemonSet"] as const;

/**
 * Who is hurt by an incident (issue 32): the pods it names (its pod findings, a lost node's pods), the
 * workloads they or its findings belong to with their available replicas, the Services selecting those pods
 * or those workloads' pod templates with the ready backends left, how users reach those Services (Ingress hosts,
 * Gateway API routes and their host names, LoadBalancer and NodePort), and the other workloads whose
 * environment names a hurt Service as a host. Undefined when it hurts no workload and no Service. Pure.
 */
export function impactOf(incident: Incident, inventory: InventoryView): Impact | undefined {
  return impactFinder(inventory)(incident);
}

/**
 * `impactOf` for every incident of one pass: the pods and Services by namespace, the routes and the
 * workloads' environment are indexed once, when the first incident asks, not once per incident (a pass that
 * tells thousands of incidents at startup would otherwise walk every pod for each).
 */
export function impactFinder(inventory: InventoryView): (incident: Incident) => Impact | undefined {
  let index: Index | undefined;
  return (incident) => impactWith(incident, inventory, (index ??= indexOf(inventory)));
}

interface Index {
  readonly podsByNamespace: ReadonlyMap<string, readonly Pod[]>;
  readonly servicesByNamespace: ReadonlyMap<string, readonly Service[]>;
  readonly routed: ReadonlyMap<string, string>;
  /** Workloads whose containers' env values are set, with those values. */
  readonly consumers: readonly {
    readonly key: string;
    readonly label: string;
    readonly namespace?: string;
    readonly values: readonly string[];
  }[];
  /** The pods a workload (by uid) owns through its owner chain; every pod's chain walked once, when first asked. */
  ownedPods(uid: string | undefined): readonly Pod[];
}

function indexOf(inventory: InventoryView): Index {
  const group = <T extends ObjectLike>(items: readonly T[]) => {
    const out = new Map<string, T[]>();
    for (const o of items) {
      const ns = o.metadata.namespace ?? "";
      let list = out.get(ns);
      if (!list) out.set(ns, (list = []));
      list.push(o);
    }
    return out;
  };
  const consumers: Index["consumers"][number][] = [];
  for (const kind of WORKLOAD_KINDS)
    for (const w of inventory.list(kind)) {
      const values = (w.spec?.template?.spec?.containers ?? [])
        .flatMap((c) => c.env ?? [])
        .map((e) => e.value ?? "")
        .filter(Boolean);
      if (values.length)
        consumers.push({
          key: keyOf({ ...w, kind }),
          label: labelOf({ ...w, kind }),
          ...(w.metadata.namespace ? { namespace: w.metadata.namespace } : {}),
          values,
        });
    }
  let owned: Map<string, Pod[]> | undefined;
  const ownedIndex = () => {
    const out = new Map<string, Pod[]>();
    for (const pod of inventory.list("Pod"))
      for (const owner of inventory.ownerChain(pod)) {
        const uid = owner.metadata.uid;
        if (!uid) continue;
        let list = out.get(uid);
        if (!list) out.set(uid, (list = []));
        list.push(pod);
      }
    return out;
  };
  return {
    podsByNamespace: group(inventory.list("Pod")),
    servicesByNamespace: group(inventory.list("Service")),
    routed: routedServices(inventory),
    consumers,
    ownedPods: (uid) => (uid ? ((owned ??= ownedIndex()).get(uid) ?? []) : []),
  };
}

function impactWith(incident: Incident, inventory: InventoryView, index: Index): Impact | undefined {
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
  // What a Service selects: a failing pod's labels, or a failing workload's pod template's.
  const labelSets: { namespace: string; labels: Readonly<Record<string, string>> }[] = [
    ...[...failing.values()].map((p) => ({ namespace: p.metadata.namespace ?? "", labels: p.metadata.labels ?? {} })),
    ...[...workloads.values()].map((w) => ({
      namespace: w.metadata.namespace ?? "",
      labels: ((w as { spec?: { template?: { metadata?: { labels?: Record<string, string> } } } }).spec?.template
        ?.metadata?.labels ?? {}) as Readonly<Record<string, string>>,
    })),
  ];
  const services = new Map<string, Service>();
  for (const { namespace, labels } of labelSets)
    for (const svc of index.servicesByNamespace.get(namespace) ?? []) {
      const selector = svc.spec?.selector;
      if (selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v))
        services.set(keyOf(svc), svc);
    }
  for (const f of incident.findings)
    if (f.object.kind === "Service") {
      const svc = inventory.get("Service", f.object.namespace, f.object.name);
      if (svc) services.set(keyOf(svc), svc);
    }
  if (workloads.size === 0 && services.size === 0) return undefined;
  const entryPoints: EntryPoint[] = [];
  const internal: ServiceBackends[] = [];
  for (const svc of services.values()) {
    const backends = backendsOf(svc, index, failing);
    const via = userReachable(svc, index.routed);
    if (via) entryPoints.push({ ...backends, via, hosts: hostsOf(svc, inventory) });
    else internal.push(backends);
  }
  const own = new Set(workloads.keys());
  const dependents = dependentsOf([...services.values()], index).filter((d) => !own.has(d.key));
  return {
    entryPoints,
    internal,
    workloads: [...workloads.values()].map((w) => ({
      workload: labelOf(w),
      ...replicasOf(w, index, failing),
    })),
    dependents: dependents.slice(0, MAX_DEPENDENTS).map((d) => d.label),
    moreDependents: Math.max(0, dependents.length - MAX_DEPENDENTS),
  };
}

// --- internal ---

/** `Kind/namespace/name`, the key every layer uses (model/object-ref.ts). */
const keyOf = (o: ObjectLike): string => refKey(refOf(o));

/** `deployment shop/web`, as messages name objects. */
const labelOf = (o: ObjectLike): string => refLabel(refOf(o));

/**
 * The pods an incident names: its pod findings and the pods of a node that is down (from the Inventory's node
 * index) — a node that only rebooted or is under pressure leaves its running pods serving.
 */
function failingPods(incident: Incident, inventory: InventoryView): Map<string, Pod> {
  const out = new Map<string, Pod>();
  const add = (p: Pod | undefined) => {
    if (p) out.set(keyOf({ ...p, kind: "Pod" }), p);
  };
  for (const f of [{ object: incident.root, reason: incident.rootReason }, ...incident.findings]) {
    const o = f.object;
    if (o.kind === "Pod") add(inventory.get("Pod", o.namespace, o.name));
    else if (o.kind === "Node" && NODE_DOWN_REASONS.has(f.reason)) for (const p of inventory.podsOnNode(o.name)) add(p);
    // A cause's pods (a missing Secret's: those that cannot start without it) are hurt by it.
    for (const e of "explains" in f ? (f.explains ?? []) : [])
      if (e.kind === "Pod") add(inventory.get("Pod", e.namespace, e.name));
  }
  return out;
}

/** A Service's pods that are ready and not failing, of all it selects. */
function backendsOf(svc: Service, index: Index, failing: ReadonlyMap<string, Pod>): ServiceBackends {
  const selector = svc.spec?.selector ?? {};
  let total = 0;
  let ready = 0;
  if (Object.keys(selector).length > 0)
    for (const p of index.podsByNamespace.get(svc.metadata.namespace ?? "") ?? []) {
      if (gone(p)) continue;
      if (!Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v)) continue;
      total++;
      if (serving(p, failing)) ready++;
    }
  return { service: `${svc.metadata.namespace}/${svc.metadata.name}`, ready, total };
}

/** The host names users reach `svc` by: its Ingress rules' hosts and its routes' host names. */
function hostsOf(svc: Service, inventory: InventoryView): string[] {
  const hosts = new Set<string>();
  for (const ing of inventory.listIn("Ingress", svc.metadata.namespace ?? "")) {
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

/**
 * Replicas of a workload available of those desired, counted from its pods in the same snapshot as the
 * Services' backends (issue 41, item 3: "1 of 3 backends ready" beside "2/2 available" from a status the
 * controller had not updated yet): its pods not terminating nor finished, ready and not failing. Desired from
 * the spec (a DaemonSet: the nodes its status says should run it).
 */
function replicasOf(
  w: ObjectLike,
  index: Index,
  failing: ReadonlyMap<string, Pod>,
): { available: number; desired: number } {
  const { spec, status } = w as { spec?: { replicas?: number }; status?: Record<string, number | undefined> };
  const desired = w.kind === "DaemonSet" ? (status?.desiredNumberScheduled ?? 0) : (spec?.replicas ?? 1);
  return { available: index.ownedPods(w.metadata.uid).filter((p) => serving(p, failing)).length, desired };
}

/** A pod that serves: not terminating nor finished, ready, and not one of the incident's failing pods. */
function serving(p: Pod, failing: ReadonlyMap<string, Pod>): boolean {
  return condition(p, "Ready")?.status === "True" && !failing.has(keyOf({ ...p, kind: "Pod" })) && !gone(p);
}

/** A pod on its way out or done: it is no backend and no replica. */
function gone(p: Pod): boolean {
  return p.metadata.deletionTimestamp !== undefined || p.status?.phase === "Succeeded" || p.status?.phase === "Failed";
}

/**
 * The workloads whose containers' environment names one of `services` as a host (`http://cart:8080`,
 * `cart.shop.svc.cluster.local`, `cart.shop`): a bare name counts in the Service's own namespace only.
 */
function dependentsOf(services: readonly Service[], index: Index): { key: string; label: string }[] {
  if (services.length === 0) return [];
  const patterns = services.map((svc) => {
    const name = escapeRegExp(svc.metadata.name);
    const ns = escapeRegExp(svc.metadata.namespace ?? "");
    return {
      namespace: svc.metadata.namespace,
      qualified: new RegExp(`(^|[/@\\s,=])${name}\\.${ns}(\\.svc(\\.cluster\\.local)?)?(?=$|[:/\\s,])`),
      bare: new RegExp(`(^|[/@\\s,=])${name}(?=$|[:/\\s,])`),
    };
  });
  const out = new Map<string, string>();
  for (const w of index.consumers)
    if (
      patterns.some((p) => w.values.some((v) => p.qualified.test(v) || (w.namespace === p.namespace && p.bare.test(v))))
    )
      out.set(w.key, w.label);
  return [...out].map(([key, label]) => ({ key, label }));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
