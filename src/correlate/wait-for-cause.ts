import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import { type ObjectRef, refKey } from "../model/object-ref.ts";

/** The longest a symptom waits for the findings of the pods behind it, ms: a real outage is never hidden longer. */
export const SYMPTOM_WAIT_MAX_MS = 2 * 60_000;

const WORKLOADS = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"]);

/**
 * Rule "a symptom waits for its cause" (docs/incidents.md): a finding is not opened before the findings that
 * explain it are decided, so it joins their incident instead of being told first and then folded:
 * - a Service's finding (it joins its pods), or a workload's whose pods have findings still within their
 *   hold (pull back-off, crash loop, configuration error, young-node grace…);
 * - any finding on an object that a cause still within its own hold explains (a pod of a claim that is
 *   Pending, whose hold is longer than the pod's), and a Service or workload over such a pod.
 * The wait ends when the causes open or go away, and never lasts more than SYMPTOM_WAIT_MAX_MS from the
 * symptom's own start or, for a symptom older than the cause holding it, from the cause's start: then the held
 * causes open with it, since they explain it (grace delays, it never reorders). A cause already open explains at once: its symptoms join it. Returns the findings (waiting ones
 * with a later `opensAt`, released ones without one) and how many wait. Pure.
 */
export function waitForCauses(
  findings: readonly Finding[],
  inventory: InventoryView,
  now: number,
): { findings: Finding[]; waiting: number } {
  const isDue = (f: Finding) => f.opensAt === undefined || f.opensAt <= now;
  if (findings.every(isDue)) return { findings: [...findings], waiting: 0 };
  // An object and, for a pod, its owners (a workload waits on its pods), by key.
  const chains = new Map<string, string[]>();
  const chainOf = (o: ObjectRef): string[] => {
    const key = refKey(o);
    let keys = chains.get(key);
    if (!keys) {
      const pod = o.kind === "Pod" ? inventory.get("Pod", o.namespace, o.name) : undefined;
      const owners = (pod ? inventory.ownerChain(pod) : []).map((owner) =>
        refKey({ kind: String(owner.kind), namespace: owner.metadata.namespace, name: owner.metadata.name }),
      );
      keys = [key, ...owners];
      chains.set(key, keys);
    }
    return keys;
  };
  // The objects causes explain, by key.
  const objects = new Map<string, ObjectRef>();
  for (const f of findings) for (const o of f.explains ?? []) objects.set(refKey(o), o);
  // Releases only ever add, so this settles in a few rounds: each opens findings that may release others.
  const released = new Set<Finding>();
  let waits = new Map<Finding, number>();
  for (let round = 0; round < 8; round++) {
    const due = (f: Finding) => released.has(f) || isDue(f);
    // Objects an open cause explains (its symptoms join it now), and those a held cause explains (until when).
    const explained = new Set<string>();
    const heldCause = new Map<string, { until: number; causes: Finding[] }>();
    for (const f of findings) {
      for (const o of f.explains ?? []) {
        if (due(f)) explained.add(refKey(o));
        else {
          const at = heldCause.get(refKey(o));
          heldCause.set(refKey(o), {
            until: Math.min(at?.until ?? Number.POSITIVE_INFINITY, f.opensAt ?? now),
            causes: [...(at?.causes ?? []), f],
          });
        }
      }
    }
    // Until when each pod, and each workload above a pod, has a held finding or a held cause.
    const heldUntil = new Map<string, { until: number; held: Finding[] }>();
    const hold = (key: string, until: number, held: readonly Finding[]) => {
      const at = heldUntil.get(key);
      heldUntil.set(key, { until: Math.max(at?.until ?? 0, until), held: [...(at?.held ?? []), ...held] });
    };
    for (const f of findings) {
      if (f.object.kind !== "Pod" || due(f)) continue;
      const keys = chainOf(f.object);
      if (!keys.some((k) => explained.has(k))) for (const k of keys) hold(k, f.opensAt ?? now, [f]);
    }
    for (const [key, cause] of heldCause) {
      const object = objects.get(key);
      if (object?.kind !== "Pod") continue;
      for (const k of chainOf(object)) hold(k, cause.until, cause.causes);
    }
    waits = new Map();
    const releasing = new Set<Finding>();
    for (const f of findings) {
      if (!due(f)) continue;
      const own = heldCause.get(refKey(f.object));
      const on = f.joins ?? (WORKLOADS.has(f.object.kind) ? [f.object] : []);
      const blockers = [
        ...(own ? [own] : []),
        ...on.map((o) => heldUntil.get(refKey(o))).filter((b) => b !== undefined),
      ].map((b) => ({ until: b.until, held: "held" in b ? b.held : b.causes }));
      const live = blockers.filter((b) => b.until > now);
      if (live.length === 0) continue;
      // What a workload or Service showed while its pods' node was down was the node's doing (told in its
      // incident): as a failure of their own it counts from the node's return (issue 50: a workload whose pods
      // were evicted from a lost node forced its new pods' readiness open a second after the node was back).
      // A symptom waits for a cause from when that cause began, never from before it: a crash loop minutes old
      // on a node that has just gone down must not open the node's held finding at once (issue 53: one node of
      // a heartbeat gap told as lost on its own, before the gap's hold, because an old failure sat on it).
      const bound =
        Math.max(
          f.since,
          ...live.flatMap((b) =>
            b.held.map((h) => Math.max(h.explains?.length ? h.since : 0, nodeBackAt(h, inventory))),
          ),
        ) + SYMPTOM_WAIT_MAX_MS;
      if (bound <= now) {
        for (const b of live) for (const h of b.held) if (!released.has(h)) releasing.add(h);
        continue;
      }
      const until = Math.min(bound, ...live.map((b) => b.until));
      if (until > (f.opensAt ?? 0)) waits.set(f, until);
    }
    if (releasing.size === 0) break;
    for (const f of releasing) released.add(f);
  }
  const out = findings.map((f) => {
    if (released.has(f)) {
      const { opensAt: _released, ...open } = f;
      return open;
    }
    const until = waits.get(f);
    return until === undefined ? f : { ...f, opensAt: until };
  });
  return { findings: out, waiting: waits.size };
}

/** When the node of a pod finding turned Ready last (epoch ms), 0 when it has none or is not Ready. */
function nodeBackAt(f: Finding, inventory: InventoryView): number {
  const node = f.object.kind === "Pod" && f.nodeName ? inventory.get("Node", undefined, f.nodeName) : undefined;
  const ready = (node?.status?.conditions ?? []).find((c) => c.type === "Ready");
  if (ready?.status !== "True") return 0;
  const at = Date.parse(String(ready.lastTransitionTime ?? ""));
  return Number.isNaN(at) ? 0 : at;
}
