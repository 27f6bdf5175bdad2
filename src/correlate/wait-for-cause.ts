import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import { refKey } from "../model/object-ref.ts";

/** The longest a symptom waits for the findings of the pods behind it, ms: a real outage is never hidden longer. */
export const SYMPTOM_WAIT_MAX_MS = 2 * 60_000;

const WORKLOADS = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"]);

/**
 * Rule "a symptom waits for its cause": a finding on a Service (it joins its pods) or on a workload whose pods
 * have findings still within their hold (pull back-off, crash loop, configuration error, young-node grace…)
 * is not opened before those findings are decided, so it joins their incident instead of being told first
 * and then folded. The wait ends when the pods' findings open or go away, and never lasts more than
 * SYMPTOM_WAIT_MAX_MS from the symptom's own start. Returns the findings (waiting ones with a later
 * `opensAt`) and how many wait. Pure.
 */
export function waitForCauses(
  findings: readonly Finding[],
  inventory: InventoryView,
  now: number,
): { findings: Finding[]; waiting: number } {
  // Pods and workloads an open cause explains already (a missing ConfigMap): their symptoms join it now.
  const explained = new Set<string>();
  for (const f of findings) {
    if (f.opensAt !== undefined && f.opensAt > now) continue;
    for (const o of f.explains ?? []) explained.add(refKey(o));
  }
  // Until when each pod, and each workload above a pod, has a finding still within its hold.
  const heldUntil = new Map<string, number>();
  const hold = (key: string, until: number) => heldUntil.set(key, Math.max(heldUntil.get(key) ?? 0, until));
  for (const f of findings) {
    if (f.object.kind !== "Pod" || f.opensAt === undefined || f.opensAt <= now) continue;
    const pod = inventory.get("Pod", f.object.namespace, f.object.name);
    const owners = (pod ? inventory.ownerChain(pod) : []).map((o) =>
      refKey({ kind: String(o.kind), namespace: o.metadata.namespace, name: o.metadata.name }),
    );
    const keys = [refKey(f.object), ...owners];
    if (keys.some((k) => explained.has(k))) continue;
    for (const k of keys) hold(k, f.opensAt);
  }
  if (heldUntil.size === 0) return { findings: [...findings], waiting: 0 };
  let waiting = 0;
  // A symptom whose wait ran out opens with the held findings of its pods: they explain it.
  const released = new Set<string>();
  const out = findings.map((f) => {
    const causes = f.joins ?? (WORKLOADS.has(f.object.kind) ? [f.object] : []);
    const until = Math.max(0, ...causes.map((o) => heldUntil.get(refKey(o)) ?? 0));
    if (until === 0) return f;
    const bound = f.since + SYMPTOM_WAIT_MAX_MS;
    if (until > now && bound <= now && (f.opensAt ?? 0) <= now) {
      for (const o of causes) released.add(refKey(o));
      return f;
    }
    const opensAt = Math.min(until, bound);
    if (opensAt <= now || opensAt <= (f.opensAt ?? 0)) return f;
    waiting++;
    return { ...f, opensAt };
  });
  if (released.size === 0) return { findings: out, waiting };
  return {
    findings: out.map((f) => {
      if (f.object.kind !== "Pod" || f.opensAt === undefined || f.opensAt <= now) return f;
      const pod = inventory.get("Pod", f.object.namespace, f.object.name);
      const keys = [
        refKey(f.object),
        ...(pod ? inventory.ownerChain(pod) : []).map((o) =>
          refKey({ kind: String(o.kind), namespace: o.metadata.namespace, name: o.metadata.name }),
        ),
      ];
      if (!keys.some((k) => released.has(k))) return f;
      const { opensAt: _released, ...open } = f;
      return open;
    }),
    waiting,
  };
}
