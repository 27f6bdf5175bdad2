import { isSymptom } from "../model/finding.ts";
import type { Incident, IncidentDraft } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Condition, ObjectLike } from "../model/kube.ts";
import { type ObjectRef, refKey } from "../model/object-ref.ts";

/** How long an incident whose findings are gone waits for its root to show recovery before it resolves anyway, ms. */
export const RECOVERY_WAIT_MS = 5 * 60_000;

/**
 * Whether an incident's root, and what its findings named, are back (rule "a resolve says what changed" and
 * "no resolve while the failure is still observable"): `recovered` when they are; `now` what is true of the
 * root in plain words for the resolve's `Now:` line (`node Ready again; 3 pods running`, `2/2 replicas
 * available`, `2 ready endpoints`, `ConfigMap reports-config exists now`; for a shared root outside the
 * cluster, what its `affected` workloads are now); `missing` what is not back yet, one short phrase each.
 */
export interface Recovery {
  readonly recovered: boolean;
  readonly now?: string;
  readonly missing: readonly string[];
}

/**
 * What an incident's recovery looks like in the Inventory now (docs/incidents.md "No false resolved"):
 * - the root: a Node Ready; a Deployment or StatefulSet with every wanted replica available, a DaemonSet with
 *   every pod ready; a Pod ready, finished or gone; a Service with a ready endpoint; a ConfigMap, Secret or
 *   ServiceAccount that exists; a PersistentVolumeClaim that is Bound; other roots have no state of their own;
 * - every pod its findings named is ready, finished or gone (replaced); a Job's pods are its history and not
 *   waited for;
 * - every workload and Service its findings named (or `affected` names) is available as above;
 * - except what `explainedElsewhere` says another incident's findings explain now (a pod that came back with
 *   its node and crash-loops on its own is in its own incident, not missing from the node's).
 * The lifecycle resolves only a recovered incident, or one that stayed unrecovered for RECOVERY_WAIT_MS.
 * Pure: reads the Inventory only.
 */
export function recoveryOf(
  incident: Pick<Incident, "root" | "findings" | "affected">,
  inventory: InventoryView,
  explainedElsewhere: (o: ObjectRef) => boolean = () => false,
): Recovery {
  const missing: string[] = [];
  const own = stateOf(incident.root, inventory);
  if (!own.ok) missing.push(own.missing ?? `${label(incident.root)} not back`);
  const seen = new Set<string>([refKey(incident.root)]);
  const named: ObjectRef[] = [...incident.findings.map((f) => f.object), ...(incident.affected ?? [])];
  for (const o of named) {
    const key = refKey(o);
    if (seen.has(key)) continue;
    seen.add(key);
    if (explainedElsewhere(o)) continue;
    const state = stateOf(o, inventory);
    if (!state.ok) missing.push(state.missing ?? `${label(o)} not back`);
  }
  const now = own.now ?? affectedNow(incident.affected ?? [], inventory);
  return { recovered: missing.length === 0, ...(now !== undefined ? { now } : {}), missing };
}

// --- internal ---

interface State {
  readonly ok: boolean;
  /** What is true of the object now, when there is something to say. */
  readonly now?: string;
  readonly missing?: string;
}

const OK: State = { ok: true };

function stateOf(o: ObjectRef, inventory: InventoryView): State {
  const { kind, namespace, name } = o;
  switch (kind) {
    case "Node": {
      const node = inventory.get("Node", undefined, name);
      if (!node) return { ok: true, now: "node removed" };
      if (ready(node.status?.conditions) !== "True") return { ok: false, missing: `node ${name} not Ready` };
      const running = inventory
        .podsOnNode(name)
        .filter((p) => p.status?.phase === "Running" && ready(p.status?.conditions) === "True").length;
      return {
        ok: true,
        now: running ? `node Ready again; ${running} pod${running === 1 ? "" : "s"} running` : "node Ready again",
      };
    }
    case "Deployment":
    case "StatefulSet": {
      const w = inventory.get(kind, namespace, name);
      if (!w) return { ok: true, now: "removed" };
      const wanted = w.spec?.replicas ?? 1;
      const available = w.status?.availableReplicas ?? 0;
      const now = `${available}/${wanted} replica${wanted === 1 ? "" : "s"} available`;
      return available >= wanted ? { ok: true, now } : { ok: false, now, missing: `${label(o)} ${now}` };
    }
    case "DaemonSet": {
      const d = inventory.get("DaemonSet", namespace, name);
      if (!d) return { ok: true, now: "removed" };
      const want = d.status?.desiredNumberScheduled ?? 0;
      const have = d.status?.numberReady ?? 0;
      const now = `${have}/${want} pods ready`;
      return have >= want ? { ok: true, now } : { ok: false, now, missing: `${label(o)} ${now}` };
    }
    case "Pod": {
      const p = inventory.get("Pod", namespace, name);
      if (!p) return { ok: true, now: "pod gone (replaced or deleted)" };
      if (p.status?.phase === "Succeeded" || ownedByJob(p)) return OK;
      return ready(p.status?.conditions) === "True"
        ? { ok: true, now: "pod running and ready" }
        : { ok: false, missing: `pod ${namespace}/${name} not ready` };
    }
    case "Service": {
      if (!inventory.get("Service", namespace, name)) return { ok: true, now: "removed" };
      const endpoints = inventory
        .listIn("EndpointSlice", namespace ?? "")
        .filter((s) => s.metadata.labels?.["kubernetes.io/service-name"] === name)
        .flatMap((s) => s.endpoints ?? [])
        .filter((e) => e.conditions?.ready !== false && !e.conditions?.terminating).length;
      return endpoints
        ? { ok: true, now: `${endpoints} ready endpoint${endpoints === 1 ? "" : "s"}` }
        : { ok: false, missing: `service ${namespace}/${name} has no ready endpoint` };
    }
    case "ConfigMap":
    case "Secret":
    case "ServiceAccount":
      // A Secret mon does not watch cannot be seen to exist: the findings going away is all there is to go on.
      if (!inventory.watches(kind)) return OK;
      return inventory.get(kind, namespace, name)
        ? { ok: true, now: `${kind} ${name} exists now` }
        : { ok: false, missing: `${kind} ${name} still missing` };
    case "PersistentVolumeClaim": {
      const claim = inventory.get("PersistentVolumeClaim", namespace, name);
      if (!claim) return { ok: true, now: "removed" };
      return claim.status?.phase === "Bound"
        ? { ok: true, now: "claim Bound" }
        : { ok: false, missing: `claim ${namespace}/${name} ${claim.status?.phase ?? "not Bound"}` };
    }
    default:
      return OK;
  }
}

/** For a shared root outside the cluster (an endpoint, an error): what its affected workloads are now. */
function affectedNow(affected: readonly ObjectRef[], inventory: InventoryView): string | undefined {
  const lines = affected
    .map((w) => {
      const now = stateOf(w, inventory).now;
      return now ? `${label(w)} ${now}` : undefined;
    })
    .filter((line): line is string => line !== undefined);
  return lines.length ? lines.slice(0, 3).join("; ") : undefined;
}

function label(o: ObjectRef): string {
  return `${o.kind.toLowerCase()} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
}

function ownedByJob(p: ObjectLike): boolean {
  return (p.metadata.ownerReferences ?? []).some((r) => r.kind === "Job");
}

function ready(conditions: readonly Condition[] | undefined): string | undefined {
  return conditions?.find((c) => c.type === "Ready")?.status;
}

/**
 * Recovery traffic (rule "recovery is quiet"): while an announced incident recovers (its draft gone this
 * pass, its root not yet back), a would-be new incident made only of findings it told (a pod still showing the
 * unbound claim for a moment, pods whose deleted owner the garbage collector has not reached yet) and of
 * symptoms (Finding.symptom, joins: a workload without available replica, a Service without ready endpoints)
 * on objects it named, or on the workloads of pods it named, is its recovery taking its time, not a new problem. Such a draft is absorbed into the
 * recovering incident (which then keeps waiting for them, RECOVERY_WAIT_MS at most). Returns the drafts left
 * and, by incident id, the roots of the drafts each absorbed (audited as `cascading_suppression`). Pure.
 */
export function absorbRecoveryTraffic(
  drafts: readonly IncidentDraft[],
  incidents: Iterable<
    Pick<Incident, "id" | "findings"> & { readonly announced: boolean; readonly absorbedInto?: string }
  >,
  inventory: InventoryView,
): { drafts: IncidentDraft[]; absorbed: Map<string, ObjectRef[]> } {
  const drafted = new Set(drafts.map((d) => refKey(d.root)));
  const namedBy = new Map<string, string>();
  const toldBy = new Map<string, string>();
  const open = new Set<string>();
  for (const incident of incidents) {
    open.add(incident.id);
    if (!incident.announced || incident.absorbedInto || drafted.has(incident.id)) continue;
    for (const f of incident.findings) {
      namedBy.set(refKey(f.object), incident.id);
      toldBy.set(f.key, incident.id);
      // A pod it named stands for its workloads too: their lack of replicas is the same recovery.
      if (f.object.kind !== "Pod") continue;
      const pod = inventory.get("Pod", f.object.namespace, f.object.name);
      for (const owner of pod ? inventory.ownerChain(pod) : [])
        namedBy.set(
          refKey({ kind: String(owner.kind), namespace: owner.metadata.namespace, name: owner.metadata.name }),
          incident.id,
        );
    }
  }
  const absorbed = new Map<string, ObjectRef[]>();
  if (namedBy.size === 0) return { drafts: [...drafts], absorbed };
  const out: IncidentDraft[] = [];
  for (const d of drafts) {
    const into = new Set(
      d.findings.map((f) => toldBy.get(f.key) ?? (isSymptom(f) ? namedBy.get(refKey(f.object)) : undefined)),
    );
    const [id] = into;
    if (into.size !== 1 || id === undefined || open.has(refKey(d.root))) {
      out.push(d);
      continue;
    }
    absorbed.set(id, [...(absorbed.get(id) ?? []), d.root]);
  }
  return { drafts: out, absorbed };
}

/** The resolve's `Now:` line: what is true of the root, and what is still not back when the wait ran out. */
export function recoveryLine(recovery: Recovery): string | undefined {
  if (recovery.recovered) return recovery.now;
  const missing = `still not back after ${RECOVERY_WAIT_MS / 60_000} min: ${recovery.missing.slice(0, 3).join(", ")}${recovery.missing.length > 3 ? ` and ${recovery.missing.length - 3} more` : ""}`;
  return recovery.now ? `${recovery.now}; ${missing}` : missing;
}
