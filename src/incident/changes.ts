import type { Change, ChangeReport } from "../model/change.ts";
import { configReferences, type PodSpec } from "../model/config-refs.ts";
import type { Incident } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ObjectLike } from "../model/kube.ts";
import { type ObjectRef, refKey } from "../model/object-ref.ts";

/** How far back before an incident's onset a change is looked for, ms: 24 hours. */
export const CHANGE_WINDOW_MS = 24 * 3_600_000;
/** A change stamped up to this long after the onset still counts as before it (timestamps are whole seconds), ms. */
const SLACK_MS = 1_000;
/** A Deployment's spec writer names a rollout's author when it wrote within this long of the new ReplicaSet, ms. */
const AUTHOR_MS = 60_000;
/** Most lines of one change's difference; the rest are counted. */
const MAX_WHAT = 6;
const REVISION = "deployment.kubernetes.io/revision";
const DESIRED = "deployment.kubernetes.io/desired-replicas";
const RESTARTED_AT = "kubectl.kubernetes.io/restartedAt";
/** Kinds whose spec a person or a deployment tool writes (a Pod's or ReplicaSet's is a controller's). */
const AUTHORED = new Set(["Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "ConfigMap", "Secret"]);

/** ConfigMaps and Secrets deleted recently, by `Kind/namespace/name` (the pass loop remembers them). */
export interface RememberedChanges {
  deletedAt(kind: string, namespace: string | undefined, name: string): number | undefined;
  /** When `node` last restarted (its bootID changed), epoch ms. */
  restartedAt(node: string): number | undefined;
}

/**
 * What changed before an incident began (issue 32): the last change, in the CHANGE_WINDOW_MS before its onset,
 * (or, when there is none, the first between its onset and its opening) of its root, the root's owner chain, and the ConfigMaps and Secrets their pod template references — a
 * Deployment's rollout with the difference of its pod template (images, env references, resources, volumes,
 * the revision) from its current and previous ReplicaSets, a StatefulSet's or DaemonSet's from its
 * ControllerRevisions, another object's spec write (who and when, from
 * managedFields), a creation, a ConfigMap's or Secret's deletion, or a restart of the node (the root, or where
 * the failing pods run). Undefined for roots without an owner
 * chain (a Service, a namespace, the cluster). Pure; a Secret's values are never read.
 */
export function whatChanged(
  incident: Incident,
  inventory: InventoryView,
  deletions?: RememberedChanges,
): ChangeReport | undefined {
  return changeFinder(inventory, deletions)(incident);
}

/**
 * `whatChanged` for every incident of one pass: the ReplicaSets and ControllerRevisions are indexed by owner
 * once, when the first incident asks, not scanned once per incident.
 */
export function changeFinder(
  inventory: InventoryView,
  deletions?: RememberedChanges,
): (incident: Incident) => ChangeReport | undefined {
  let owned: Map<string, ObjectLike[]> | undefined;
  const ownedBy = (uid: string | undefined) => {
    if (!owned) {
      owned = new Map();
      for (const kind of ["ReplicaSet", "ControllerRevision"])
        for (const o of inventory.list(kind))
          for (const r of o.metadata.ownerReferences ?? []) {
            let list = owned.get(r.uid);
            if (!list) owned.set(r.uid, (list = []));
            list.push(o);
          }
    }
    return uid ? (owned.get(uid) ?? []) : [];
  };
  return (incident) => changesOf(incident, inventory, deletions, ownedBy);
}

function changesOf(
  incident: Incident,
  inventory: InventoryView,
  deletions: RememberedChanges | undefined,
  ownedBy: (uid: string | undefined) => readonly ObjectLike[],
): ChangeReport | undefined {
  const onsetAt = incident.onsetAt ?? Math.min(...incident.findings.map((f) => f.since), incident.openedAt);
  const root = incident.root;
  const found = inventory.get(root.kind, root.namespace, root.name);
  const config = root.kind === "ConfigMap" || root.kind === "Secret";
  if (!found && !config && !AUTHORED.has(root.kind) && root.kind !== "Pod" && root.kind !== "Node") return undefined;
  if (found && !AUTHORED.has(root.kind) && !["Pod", "ReplicaSet", "Node"].includes(root.kind)) return undefined;
  const chain = found ? [found, ...inventory.ownerChain(found)] : [];
  const changes: Change[] = [];
  const seen = new Set<string>();
  const consider = (o: ObjectLike) => {
    const ref = refOf(o);
    if (seen.has(refKey(ref))) return;
    seen.add(refKey(ref));
    if (o.kind === "Deployment") {
      const rollout = rolloutOf(o, ownedBy);
      if (rollout) changes.push(rollout);
    }
    if (o.kind === "StatefulSet" || o.kind === "DaemonSet") {
      const rollout = revisionRolloutOf(o, ownedBy);
      if (rollout) changes.push(rollout);
    }
    if (AUTHORED.has(String(o.kind))) {
      const written = specWriteOf(o);
      if (written) changes.push(written);
    }
  };
  for (const o of chain) consider(o);
  // A missing ConfigMap or Secret has no owner chain: what changed is on the workloads whose pods reference it
  // (a Deployment created a second before, issue 52 item 12).
  if (config && !found)
    for (const ref of incident.findings.flatMap((f) => [...(f.explains ?? []), f.object])) {
      if (ref.kind !== "Pod") continue;
      const pod = inventory.get("Pod", ref.namespace, ref.name);
      if (pod) for (const o of inventory.ownerChain(pod)) consider(o);
    }
  // The ConfigMaps and Secrets the failing pods read: a change there explains a crash as well as a rollout.
  for (const ref of configRefs(chain)) {
    const o = inventory.get(ref.kind, ref.namespace, ref.name);
    if (o) consider(o);
    else {
      const at = deletions?.deletedAt(ref.kind, ref.namespace, ref.name);
      if (at !== undefined) changes.push({ object: ref, kind: "deleted", at, what: [] });
    }
  }
  // A node that restarted: the root itself, or the node the failing pods run on.
  const nodes = new Set<string>();
  if (root.kind === "Node") nodes.add(root.name);
  for (const f of incident.findings) if (f.nodeName) nodes.add(f.nodeName);
  for (const node of nodes) {
    const at = deletions?.restartedAt(node);
    if (at !== undefined) changes.push({ object: { kind: "Node", name: node }, kind: "restarted", at, what: [] });
  }
  if (config && !found) {
    const at = deletions?.deletedAt(root.kind, root.namespace, root.name);
    if (at !== undefined) changes.push({ object: root, kind: "deleted", at, what: [] });
  }
  const before = changes
    .filter((c) => c.at <= onsetAt + SLACK_MS && c.at >= onsetAt - CHANGE_WINDOW_MS)
    // The latest first; at the same second a rollout says more than the spec write that caused it.
    .sort((a, b) => b.at - a.at || rank(a) - rank(b));
  // Nothing before: a change between the onset mon could date and the announcement (a StatefulSet's rolling
  // update takes its pod down before the new revision's pod exists) is told as what it is, after the onset.
  const after = changes
    .filter((c) => c.at > onsetAt + SLACK_MS && c.at <= incident.openedAt)
    .sort((a, b) => a.at - b.at || rank(a) - rank(b));
  // A missing ConfigMap or Secret that was deleted: its deletion is what changed, whatever rolled out after it (the
  // rollout only made pods read it again); its workloads' changes tell only when it was never there.
  const ownDeletion =
    config && !found ? before.find((c) => c.kind === "deleted" && refKey(c.object) === refKey(root)) : undefined;
  const change = ownDeletion ?? before[0] ?? after[0];
  // Of a node mon knows only its restarts: no restart is not "nothing changed".
  if (!change && root.kind === "Node") return undefined;
  return { onsetAt, windowMs: CHANGE_WINDOW_MS, ...(change ? { change } : {}) };
}

// --- internal ---

function rank(c: Change): number {
  return c.kind === "rollout" ? 0 : c.kind === "deleted" ? 1 : c.kind === "restarted" ? 2 : c.kind === "spec" ? 3 : 4;
}

function refOf(o: ObjectLike): ObjectRef {
  return {
    kind: String(o.kind),
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    name: o.metadata.name,
  };
}

type ManagedEntry = NonNullable<ObjectLike["metadata"]["managedFields"]>[number];

/**
 * The field managers of the control plane's own components (the name each gives kube-apiserver as its field
 * manager, from its user agent). What they write on their own — the root CA ConfigMap published into every
 * namespace, a ServiceAccount's token, a controller's status or scale, a node's labels — is not a change a
 * person or a deployment tool made, so it is never "what changed" (issue 50).
 */
const CONTROL_PLANE_MANAGERS: ReadonlySet<string> = new Set([
  "kube-controller-manager",
  "cloud-controller-manager",
  "kube-scheduler",
  "kube-apiserver",
  "kubelet",
  "kube-proxy",
]);

/** Whether a managedFields manager is one of the control plane's own components (CONTROL_PLANE_MANAGERS). */
export function isControlPlaneManager(manager: string | undefined): boolean {
  return manager !== undefined && CONTROL_PLANE_MANAGERS.has(manager.split("/")[0]!);
}

/**
 * The last write of an object's spec by a person or a tool (managedFields' latest entry outside the status whose
 * manager is not a control-plane component), or its creation when a person or a tool created it; undefined when
 * only the control plane ever wrote it (issue 50: the root CA ConfigMap is nobody's change).
 */
function specWriteOf(o: ObjectLike): Change | undefined {
  const entries = o.metadata.managedFields ?? [];
  let latest: ManagedEntry | undefined;
  for (const e of entries)
    if (
      !e.subresource &&
      e.time &&
      !isControlPlaneManager(e.manager) &&
      (!latest || String(e.time) > String(latest.time))
    )
      latest = e;
  const created = Date.parse(String(o.metadata.creationTimestamp ?? ""));
  const at = latest ? Date.parse(String(latest.time)) : Number.NaN;
  if (!Number.isNaN(at) && (Number.isNaN(created) || at > created + SLACK_MS))
    return { object: refOf(o), kind: "spec", ...(latest?.manager ? { manager: latest.manager } : {}), at, what: [] };
  if (Number.isNaN(created)) return undefined;
  // The creator: the earliest write of the object itself (managedFields are not kept in time order).
  let creator: ManagedEntry | undefined;
  for (const e of entries)
    if (!e.subresource && (!creator || String(e.time ?? "") < String(creator.time ?? ""))) creator = e;
  creator ??= entries[0];
  // Created by the control plane itself (and never written by anyone since): nobody's change.
  if (isControlPlaneManager(creator?.manager)) return undefined;
  return {
    object: refOf(o),
    kind: "created",
    ...(creator?.manager ? { manager: creator.manager } : {}),
    at: created,
    what: [],
  };
}

/** A Deployment's last rollout: its newest ReplicaSet, and how its pod template differs from the one before. */
function rolloutOf(
  deployment: ObjectLike,
  ownedBy: (uid: string | undefined) => readonly ObjectLike[],
): Change | undefined {
  const sets = ownedBy(deployment.metadata.uid)
    .filter((rs) => rs.kind === "ReplicaSet" && Number.isFinite(revisionOf(rs)))
    .sort((a, b) => revisionOf(b) - revisionOf(a));
  const [current, previous] = sets;
  if (!current || !previous) return undefined;
  const at = Date.parse(String(current.metadata.creationTimestamp ?? ""));
  if (Number.isNaN(at)) return undefined;
  // The Deployment controller stamps each ReplicaSet with the replicas wanted when it rolled out.
  const desired = (rs: ObjectLike) => rs.metadata.annotations?.[DESIRED];
  const replicas =
    desired(previous) && desired(current) && desired(previous) !== desired(current)
      ? [`replicas ${desired(previous)} → ${desired(current)}`]
      : [];
  const template = (rs: ObjectLike) => (rs as { spec?: { template?: Template } }).spec?.template;
  const what = [...replicas, ...templateDiff(template(previous), template(current))];
  return rolloutChange(deployment, at, [revisionOf(previous), revisionOf(current)], what);
}

/**
 * A StatefulSet's or DaemonSet's last rollout: its newest ControllerRevision (by `revision`), and how its pod
 * template (`data.spec.template`) differs from the one before.
 */
function revisionRolloutOf(
  workload: ObjectLike,
  ownedBy: (uid: string | undefined) => readonly ObjectLike[],
): Change | undefined {
  type Revision = ObjectLike & { revision?: number; data?: { spec?: { template?: Template } } };
  const revisions = (ownedBy(workload.metadata.uid) as readonly Revision[])
    .filter((r) => r.kind === "ControllerRevision" && Number.isFinite(Number(r.revision)))
    .sort((a, b) => Number(b.revision) - Number(a.revision));
  const [current, previous] = revisions;
  if (!current || !previous) return undefined;
  const at = Date.parse(String(current.metadata.creationTimestamp ?? ""));
  if (Number.isNaN(at)) return undefined;
  const what = templateDiff(previous.data?.spec?.template, current.data?.spec?.template);
  return rolloutChange(workload, at, [Number(previous.revision), Number(current.revision)], what);
}

/**
 * A rollout of `workload` at `at` (epoch ms) from revision `[from, to]`: named after the workload's last spec
 * writer when it wrote within AUTHOR_MS of the new revision (otherwise no one, rather than a later write).
 */
function rolloutChange(workload: ObjectLike, at: number, [from, to]: [number, number], what: string[]): Change {
  const writer = specWriteOf(workload);
  const manager = writer?.manager && Math.abs(writer.at - at) <= AUTHOR_MS ? writer.manager : undefined;
  return {
    object: refOf(workload),
    kind: "rollout",
    ...(manager ? { manager } : {}),
    at,
    what: [`revision ${from} → ${to}`, ...what],
  };
}

function revisionOf(rs: ObjectLike): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? Number.NaN);
}

type Template = { metadata?: { annotations?: Record<string, string> }; spec?: PodSpecLike } | undefined;
interface ContainerLike {
  name: string;
  image?: string;
  command?: readonly string[];
  args?: readonly string[];
  env?: readonly EnvLike[];
  envFrom?: readonly { configMapRef?: { name?: string }; secretRef?: { name?: string } }[];
  resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
}
interface EnvLike {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name?: string; key?: string };
    secretKeyRef?: { name?: string; key?: string };
    fieldRef?: { fieldPath?: string };
  };
}
interface PodSpecLike {
  containers?: readonly ContainerLike[];
  initContainers?: readonly ContainerLike[];
  volumes?: readonly { name: string; configMap?: { name?: string }; secret?: { secretName?: string } }[];
}

/** How a pod template changed, one short line each: never an env value (it may be a credential), only that it changed. */
export function templateDiff(before: Template, after: Template): string[] {
  const out: string[] = [];
  const containers = (t: Template) =>
    new Map([...(t?.spec?.initContainers ?? []), ...(t?.spec?.containers ?? [])].map((c) => [c.name, c] as const));
  const was = containers(before);
  const now = containers(after);
  for (const [name, c] of now) {
    const old = was.get(name);
    if (!old) {
      out.push(`container ${name} added (${c.image ?? "no image"})`);
      continue;
    }
    if (old.image !== c.image) out.push(`image ${name}: ${old.image ?? "none"} → ${c.image ?? "none"}`);
    if (JSON.stringify(old.command ?? []) !== JSON.stringify(c.command ?? [])) out.push(`command of ${name} changed`);
    if (JSON.stringify(old.args ?? []) !== JSON.stringify(c.args ?? [])) out.push(`args of ${name} changed`);
    out.push(...envDiff(name, old, c), ...resourceDiff(name, old, c));
  }
  for (const name of was.keys()) if (!now.has(name)) out.push(`container ${name} removed`);
  const volumes = (t: Template) =>
    new Map(
      (t?.spec?.volumes ?? []).map((v) => [
        v.name,
        v.configMap ? `configMap ${v.configMap.name}` : v.secret ? `secret ${v.secret.secretName}` : "other",
      ]),
    );
  const vWas = volumes(before);
  for (const [name, source] of volumes(after)) {
    const old = vWas.get(name);
    if (old === undefined) out.push(`volume ${name} added (${source})`);
    else if (old !== source) out.push(`volume ${name}: ${old} → ${source}`);
  }
  const restarted = after?.metadata?.annotations?.[RESTARTED_AT];
  if (restarted && restarted !== before?.metadata?.annotations?.[RESTARTED_AT])
    out.push("restarted (kubectl rollout restart)");
  if (out.length === 0) out.push("pod template changed (labels or annotations)");
  return out.length > MAX_WHAT ? [...out.slice(0, MAX_WHAT), `and ${out.length - MAX_WHAT} more`] : out;
}

function envSource(e: EnvLike): string {
  const f = e.valueFrom;
  if (f?.secretKeyRef) return `secret ${f.secretKeyRef.name}/${f.secretKeyRef.key}`;
  if (f?.configMapKeyRef) return `configMap ${f.configMapKeyRef.name}/${f.configMapKeyRef.key}`;
  if (f?.fieldRef) return `field ${f.fieldRef.fieldPath}`;
  return "value";
}

function envDiff(container: string, before: ContainerLike, after: ContainerLike): string[] {
  const out: string[] = [];
  const was = new Map((before.env ?? []).map((e) => [e.name, e] as const));
  const now = new Map((after.env ?? []).map((e) => [e.name, e] as const));
  for (const [name, e] of now) {
    const old = was.get(name);
    if (!old) out.push(`env ${name} of ${container} added (${envSource(e)})`);
    else if (envSource(old) !== envSource(e))
      out.push(`env ${name} of ${container}: ${envSource(old)} → ${envSource(e)}`);
    else if (envSource(e) === "value" ? old.value !== e.value : JSON.stringify(old) !== JSON.stringify(e))
      out.push(`env ${name} of ${container} changed`);
  }
  for (const name of was.keys()) if (!now.has(name)) out.push(`env ${name} of ${container} removed`);
  const from = (c: ContainerLike) =>
    new Set(
      (c.envFrom ?? []).map((f) =>
        f.configMapRef ? `configMap ${f.configMapRef.name}` : `secret ${f.secretRef?.name ?? "?"}`,
      ),
    );
  const fWas = from(before);
  const fNow = from(after);
  for (const f of fNow) if (!fWas.has(f)) out.push(`envFrom ${f} added to ${container}`);
  for (const f of fWas) if (!fNow.has(f)) out.push(`envFrom ${f} removed from ${container}`);
  return out;
}

function resourceDiff(container: string, before: ContainerLike, after: ContainerLike): string[] {
  const out: string[] = [];
  for (const side of ["limits", "requests"] as const) {
    const was = before.resources?.[side] ?? {};
    const now = after.resources?.[side] ?? {};
    for (const key of new Set([...Object.keys(was), ...Object.keys(now)])) {
      const a = was[key];
      const b = now[key];
      if (String(a) !== String(b))
        out.push(`${container} ${key} ${side === "limits" ? "limit" : "request"}: ${a ?? "none"} → ${b ?? "none"}`);
    }
  }
  return out;
}

/** The ConfigMaps and Secrets the pod template of `chain` (a Pod's spec, else a workload's template) references. */
function configRefs(chain: readonly ObjectLike[]): ObjectRef[] {
  const out = new Map<string, ObjectRef>();
  for (const o of chain) {
    const body = (o as { spec?: PodSpecLike & { template?: Template } }).spec;
    const spec = o.kind === "Pod" ? body : body?.template?.spec;
    if (!spec) continue;
    const namespace = o.metadata.namespace;
    for (const r of configReferences(spec as PodSpec | undefined)) {
      const ref = { kind: r.kind, ...(namespace ? { namespace } : {}), name: r.name };
      out.set(refKey(ref), ref);
    }
  }
  return [...out.values()];
}
