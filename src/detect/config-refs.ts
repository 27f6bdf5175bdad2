import { configReferences } from "../model/config-refs.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryChange, InventoryView } from "../model/inventory.ts";
import type { ContainerStatus, Pod } from "../model/kube.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import { condition, finding, refOf } from "./build.ts";
import { parseTime } from "./evidence.ts";
import { isPartial, ObjectMemo, sortedBy, TimeEdges } from "./incremental.ts";

/** A non-optional reference of a pod to a Secret or ConfigMap (and the key, when it names one). */
interface Reference {
  readonly kind: "Secret" | "ConfigMap";
  readonly name: string;
  readonly key?: string;
  /** Where it is referenced: `env of container app`, `volume config`, … */
  readonly from: string;
}

/**
 * Config references (spec 1.2; failure-catalogue G1–G3, rule R4): a Secret, ConfigMap (or one of its keys)
 * that a failing pod references and that does not exist becomes its own root finding, explaining every pod
 * that references it; a ServiceAccount named in a controller's create failure that does not exist likewise.
 * Only pods that actually fail are considered (spec 1.6: what is happening, not what could happen), and only
 * kinds mon watches: with Secrets not watched, nothing is said about them here (the pod's own finding says
 * the reference cannot be verified). A missing object is missing since the earliest pod that references it
 * was created. Pure.
 */
export function detectConfigRefs(inventory: InventoryView, now: number): Finding[] {
  const missing: MissingReference[] = [];
  for (const pod of inventory.list("Pod")) missing.push(...missingReferences(pod, inventory, new TimeEdges(now)));
  return [...configRefFindings(sortedBy(missing, referenceOrder), now), ...missingServiceAccounts(inventory, now)];
}

/**
 * The config-reference family, incremental (detect/incremental.ts): only pods that changed, or whose
 * references' objects changed, are read again; pods not blocked on configuration are not remembered. Equals
 * `detectConfigRefs` (incremental.test.ts). `noteChange` takes every Inventory change.
 */
export function createIncrementalConfigRefs(): {
  detect: (inventory: InventoryView, now: number) => Finding[];
  noteChange: (change: InventoryChange, keysOf?: () => readonly string[]) => void;
  /** The earliest instant after `now` a remembered pod's references change with time alone. */
  nextEdge: (now: number) => number | undefined;
} {
  const memo = new ObjectMemo<Pod, MissingReference>({
    kind: "Pod",
    sortKey: referenceOrder,
    edges: () => [],
    localKeys: () => [],
  });
  return {
    noteChange: (change, keysOf) => memo.noteChange(change, keysOf),
    nextEdge: (now) => memo.nextEdge(now),
    detect(inventory, now) {
      if (isPartial(inventory)) return detectConfigRefs(inventory, now);
      const missing = memo.run(inventory, now, (pod, view, time) => missingReferences(pod, view, time));
      return [...configRefFindings(missing, now), ...missingServiceAccounts(inventory, now)];
    },
  };
}

/** One missing Secret or ConfigMap (or key) that one blocked pod references. `since`: epoch ms. */
export interface MissingReference {
  /** `Kind/namespace/name[/key]`. */
  readonly id: string;
  readonly ref: ObjectRef;
  readonly key?: string;
  readonly pod: ObjectRef;
  /** `pod (env X of container Y)`. */
  readonly from: string;
  readonly since: number;
  /** The kubelet said so (CreateContainerConfigError), rather than the pod only still being created. */
  readonly confirmed: boolean;
}

/**
 * How long a reference missing only from mon's view of a pod still being created waits before it is told, ms:
 * objects created together reach mon's watches in any order (up to half a second apart), so a ConfigMap created
 * with its Deployment may arrive after the pods that read it (issue 50, found by the timing property).
 */
const UNCONFIRMED_HOLD_MS = 5_000;

/** The missing references of one pod blocked on its configuration (none for any other pod). */
function missingReferences(pod: Pod, inventory: InventoryView, time: TimeEdges): MissingReference[] {
  if (!blockedOnConfig(pod)) return [];
  const out: MissingReference[] = [];
  const confirmed = configErrorIn(pod.status?.containerStatuses) || configErrorIn(pod.status?.initContainerStatuses);
  for (const r of references(pod)) {
    if (!inventory.watches(r.kind)) continue;
    const object = inventory.get(r.kind, pod.metadata.namespace, r.name);
    const keyMissing =
      object &&
      r.key !== undefined &&
      !(r.key in (object.data ?? {})) &&
      !(r.key in ("binaryData" in object ? (object.binaryData ?? {}) : {}));
    if (object && !keyMissing) continue;
    out.push({
      id: `${r.kind}/${pod.metadata.namespace}/${r.name}${keyMissing ? `/${r.key}` : ""}`,
      ref: { kind: r.kind, namespace: pod.metadata.namespace, name: r.name },
      ...(keyMissing ? { key: r.key } : {}),
      pod: refOf({ ...pod, kind: "Pod" }),
      from: `${pod.metadata.name} (${r.from})`,
      since: time.time(pod.metadata?.creationTimestamp),
      confirmed,
    });
  }
  return out;
}

function referenceOrder(m: MissingReference): string {
  return `${m.id}\0${m.pod.namespace ?? ""}/${m.pod.name}\0${m.from}`;
}

/** One finding per missing object, from its references in `referenceOrder`. */
function configRefFindings(missing: readonly MissingReference[], now: number): Finding[] {
  const byId = new Map<
    string,
    { ref: ObjectRef; key?: string; pods: ObjectRef[]; from: Set<string>; since: number; confirmed: boolean }
  >();
  for (const m of missing) {
    const entry = byId.get(m.id);
    if (entry) {
      entry.pods.push(m.pod);
      entry.from.add(m.from);
      entry.since = Math.min(entry.since, m.since);
      entry.confirmed ||= m.confirmed;
    } else
      byId.set(m.id, {
        ref: m.ref,
        ...(m.key !== undefined ? { key: m.key } : {}),
        pods: [m.pod],
        from: new Set([m.from]),
        since: m.since,
        confirmed: m.confirmed,
      });
  }
  const out: Finding[] = [];
  for (const m of byId.values()) {
    const what = `${m.ref.kind.toLowerCase()} ${m.ref.namespace}/${m.ref.name}`;
    out.push(
      finding({
        reason: m.ref.kind === "Secret" ? "SecretMissing" : "ConfigMapMissing",
        object: m.ref,
        ...(m.key ? { part: m.key } : {}),
        summary: m.key
          ? `${what} has no key ${m.key}, which ${m.pods.length} pod${m.pods.length === 1 ? "" : "s"} need`
          : `${what} does not exist; ${m.pods.length === 1 ? "1 pod references" : `${m.pods.length} pods reference`} it`,
        evidence: [
          ["referenced by", [...m.from].slice(0, 5).join(", ")],
          ["key", m.key],
        ],
        since: m.since,
        now,
        // Not said by the kubelet yet: the object may only be late to mon's watch.
        ...(m.confirmed ? {} : { holdMs: UNCONFIRMED_HOLD_MS }),
        explains: m.pods,
      }),
    );
  }
  return out;
}

/** Every non-optional Secret and ConfigMap reference of a pod spec (kube-root-ca.crt, published into every namespace by the control plane, aside). */
export function references(pod: Pod): Reference[] {
  return configReferences(pod.spec)
    .filter((r) => !r.optional && !(r.projected && r.kind === "ConfigMap" && r.name === "kube-root-ca.crt"))
    .map((r) => ({ kind: r.kind, name: r.name, ...(r.key !== undefined ? { key: r.key } : {}), from: r.from }));
}

// --- internal ---

/** A pod that cannot start its containers: configuration errors, or still creating them (volumes not mounted). */
function blockedOnConfig(pod: Pod): boolean {
  if (pod.metadata?.deletionTimestamp || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed")
    return false;
  // Every pod is asked on every pass: no array is built for the question.
  return waitsOnConfig(pod.status?.containerStatuses) || waitsOnConfig(pod.status?.initContainerStatuses);
}

/** A container the kubelet could not configure: a referenced object or key is missing from its view. */
function configErrorIn(statuses: readonly ContainerStatus[] | undefined): boolean {
  for (const s of statuses ?? []) if (s.state?.waiting?.reason === "CreateContainerConfigError") return true;
  return false;
}

function waitsOnConfig(statuses: readonly ContainerStatus[] | undefined): boolean {
  for (const s of statuses ?? []) {
    const reason = s.state?.waiting?.reason;
    if (reason === "CreateContainerConfigError" || reason === "ContainerCreating") return true;
  }
  return false;
}

function missingServiceAccounts(inventory: InventoryView, now: number): Finding[] {
  if (!inventory.watches("ServiceAccount")) return [];
  const out: Finding[] = [];
  for (const kind of ["ReplicaSet", "StatefulSet", "DaemonSet", "Job"] as const) {
    for (const w of inventory.list(kind)) {
      const failure = condition(w, "ReplicaFailure") ?? condition(w, "FailureTarget");
      const name = /serviceaccount "([^"]+)" not found/.exec(failure?.message ?? "")?.[1];
      if (!name || inventory.get("ServiceAccount", w.metadata.namespace, name)) continue;
      out.push(
        finding({
          reason: "ServiceAccountMissing",
          object: { kind: "ServiceAccount", namespace: w.metadata.namespace, name },
          summary: `serviceaccount ${w.metadata.namespace}/${name} does not exist, so ${kind.toLowerCase()} ${w.metadata.name} cannot create pods`,
          evidence: [
            ["needed by", `${kind.toLowerCase()} ${w.metadata.name}`],
            ["message", failure?.message],
          ],
          since: parseTime(failure?.lastTransitionTime, now),
          now,
          explains: [refOf({ ...w, kind })],
        }),
      );
    }
  }
  return out;
}
