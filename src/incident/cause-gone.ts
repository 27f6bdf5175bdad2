import type { Finding } from "../model/finding.ts";
import { refKey } from "../model/object-ref.ts";
import type { LifecycleState } from "./lifecycle.ts";

/**
 * Failures a cause explained whose cause has gone (issue 52 item 6): `incidents` are the open incidents whose
 * root's own cause is gone this pass (a node Ready again) — what they told is no longer told, so a finding of
 * theirs that stays opens as a new incident would, after its hold; `freedAt` is, by the key (`refKey`) of each
 * would-be incident such a cause folded in (a workload, a bare pod), the epoch ms from which its failures are
 * judged on their own: the cause's resolve, or `now` while its incident still waits for recovery.
 */
export interface CausesGone {
  readonly incidents: ReadonlySet<string>;
  readonly freedAt: ReadonlyMap<string, number>;
}

/**
 * The causes gone as of this pass (issue 52 item 6: a symptom whose cause just resolved is judged from that
 * resolve, not from the cause's onset): open incidents that folded others in and whose root's own cause
 * (`isOwnCause`) `present` (a finding key → in this pass) no longer finds, and incidents resolved within the
 * repage window that folded others in (`Resolved.folds`). Pure: `now` is epoch ms.
 */
export function causesGone(state: LifecycleState, present: (findingKey: string) => boolean, now: number): CausesGone {
  const incidents = new Set<string>();
  const freedAt = new Map<string, number>();
  const free = (keys: readonly string[] | undefined, at: number) => {
    for (const key of keys ?? []) freedAt.set(key, Math.max(freedAt.get(key) ?? 0, at));
  };
  for (const incident of state.incidents.values()) {
    if (!incident.folds?.length) continue;
    const own = incident.findings.filter((f) => isOwnCause(incident.id, f));
    if (own.length === 0 || own.some((f) => present(f.key))) continue;
    incidents.add(incident.id);
    free(incident.folds, now);
  }
  for (const resolved of state.recent.values()) free(resolved.folds, resolved.resolvedAt);
  return { incidents, freedAt };
}

/**
 * True when `f` is the own finding of incident `id`'s root and a cause of what it folded in: a node's (down,
 * under pressure), or one that explains other objects (a missing ConfigMap). A workload's own finding (no
 * available replica) restates its pods: its going says nothing of a cause gone.
 */
export function isOwnCause(id: string, f: Pick<Finding, "object" | "explains">): boolean {
  return refKey(f.object) === id && (f.object.kind === "Node" || (f.explains?.length ?? 0) > 0);
}
