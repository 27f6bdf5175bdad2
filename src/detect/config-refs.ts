import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Pod } from "../model/kube.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import { condition, finding, refOf } from "./build.ts";
import { parseTime } from "./evidence.ts";

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
 * the reference cannot be verified). Pure.
 */
export function detectConfigRefs(inventory: InventoryView, now: number): Finding[] {
  const missing = new Map<
    string,
    { ref: ObjectRef; key?: string; pods: ObjectRef[]; from: Set<string>; since: number }
  >();
  for (const pod of inventory.list("Pod")) {
    if (!blockedOnConfig(pod)) continue;
    for (const r of references(pod)) {
      if (!inventory.watches(r.kind)) continue;
      const object = inventory.get(r.kind, pod.metadata.namespace, r.name);
      const keyMissing =
        object &&
        r.key !== undefined &&
        !(r.key in (object.data ?? {})) &&
        !(r.key in ("binaryData" in object ? (object.binaryData ?? {}) : {}));
      if (object && !keyMissing) continue;
      const id = `${r.kind}/${pod.metadata.namespace}/${r.name}${keyMissing ? `/${r.key}` : ""}`;
      const entry = missing.get(id) ?? {
        ref: { kind: r.kind, namespace: pod.metadata.namespace, name: r.name },
        ...(keyMissing ? { key: r.key } : {}),
        pods: [] as ObjectRef[],
        from: new Set<string>(),
        since: parseTime(pod.metadata?.creationTimestamp, now),
      };
      entry.pods.push(refOf({ ...pod, kind: "Pod" }));
      entry.from.add(`${pod.metadata.name} (${r.from})`);
      missing.set(id, entry);
    }
  }
  const out: Finding[] = [];
  for (const m of missing.values()) {
    const what = `${m.ref.kind.toLowerCase()} ${m.ref.namespace}/${m.ref.name}`;
    out.push(
      finding({
        reason: m.ref.kind === "Secret" ? "SecretMissing" : "ConfigMapMissing",
        object: m.ref,
        ...(m.key ? { part: m.key } : {}),
        summary: m.key
          ? `${what} has no key ${m.key}, which ${m.pods.length} pod${m.pods.length === 1 ? "" : "s"} need`
          : `${what} does not exist; ${m.pods.length} pod${m.pods.length === 1 ? "" : "s"} reference it`,
        evidence: [
          ["referenced by", [...m.from].slice(0, 5).join(", ")],
          ["key", m.key],
        ],
        since: m.since,
        now,
        explains: m.pods,
      }),
    );
  }
  out.push(...missingServiceAccounts(inventory, now));
  return out;
}

/** Every non-optional Secret and ConfigMap reference of a pod spec. */
export function references(pod: Pod): Reference[] {
  const out: Reference[] = [];
  const spec = pod.spec;
  if (!spec) return out;
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    for (const env of c.env ?? []) {
      const s = env.valueFrom?.secretKeyRef;
      if (s?.name && !s.optional)
        out.push({ kind: "Secret", name: s.name, key: s.key, from: `env ${env.name} of container ${c.name}` });
      const m = env.valueFrom?.configMapKeyRef;
      if (m?.name && !m.optional)
        out.push({ kind: "ConfigMap", name: m.name, key: m.key, from: `env ${env.name} of container ${c.name}` });
    }
    for (const from of c.envFrom ?? []) {
      if (from.secretRef?.name && !from.secretRef.optional)
        out.push({ kind: "Secret", name: from.secretRef.name, from: `envFrom of container ${c.name}` });
      if (from.configMapRef?.name && !from.configMapRef.optional)
        out.push({ kind: "ConfigMap", name: from.configMapRef.name, from: `envFrom of container ${c.name}` });
    }
  }
  for (const v of spec.volumes ?? []) {
    if (v.secret?.secretName && !v.secret.optional)
      out.push({ kind: "Secret", name: v.secret.secretName, from: `volume ${v.name}` });
    if (v.configMap?.name && !v.configMap.optional)
      out.push({ kind: "ConfigMap", name: v.configMap.name, from: `volume ${v.name}` });
    for (const source of v.projected?.sources ?? []) {
      if (source.secret?.name && !source.secret.optional)
        out.push({ kind: "Secret", name: source.secret.name, from: `volume ${v.name}` });
      // kube-root-ca.crt is published into every namespace by the control plane.
      if (source.configMap?.name && !source.configMap.optional && source.configMap.name !== "kube-root-ca.crt")
        out.push({ kind: "ConfigMap", name: source.configMap.name, from: `volume ${v.name}` });
    }
  }
  return out;
}

// --- internal ---

/** A pod that cannot start its containers: configuration errors, or still creating them (volumes not mounted). */
function blockedOnConfig(pod: Pod): boolean {
  if (pod.metadata?.deletionTimestamp || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed")
    return false;
  return [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].some(
    (s) =>
      s.state?.waiting?.reason === "CreateContainerConfigError" || s.state?.waiting?.reason === "ContainerCreating",
  );
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
