import type { FoldReason, IncidentDraft } from "../model/incident.ts";
import { refKey, type ObjectRef } from "../model/object-ref.ts";

/**
 * One draft standing for several (spec 1.3): rooted at `root` with `rootReason`, the members' findings sorted
 * by key, their roots in `affected`, and in `folded` each member's root (as `reason`) plus what the members had
 * folded in already. A member already rooted at `root` (an endpoint a probe found refusing) is the root
 * itself: its findings, affected workloads and folds carry over, and it is not listed as one of them. Pure.
 */
export function mergeDrafts(
  root: ObjectRef,
  rootReason: string,
  members: readonly IncidentDraft[],
  reason: FoldReason,
): IncidentDraft {
  const rootKey = refKey(root);
  const folded = new Map<string, { root: ObjectRef; reason: FoldReason }>();
  const affected: ObjectRef[] = [];
  for (const m of members) {
    if (refKey(m.root) === rootKey) affected.unshift(...(m.affected ?? []));
    else {
      folded.set(refKey(m.root), { root: m.root, reason });
      affected.push(m.root);
    }
    for (const f of m.folded ?? []) if (!folded.has(refKey(f.root))) folded.set(refKey(f.root), f);
  }
  return {
    root,
    rootReason,
    findings: members.flatMap((m) => m.findings).sort((a, b) => a.key.localeCompare(b.key)),
    affected,
    folded: [...folded.values()].sort((a, b) => refKey(a.root).localeCompare(refKey(b.root))),
  };
}

/**
 * Replaces each group of drafts by one merged draft, placed where its first member was (spec 1.3).
 * `groupOf` names a draft's group, or undefined to keep it as it is; `merge` builds a group's draft from its
 * members. Pure; keeps the input order otherwise.
 */
export function replaceGroups(
  drafts: readonly IncidentDraft[],
  groupOf: ReadonlyMap<IncidentDraft, string>,
  merge: (group: string, members: IncidentDraft[]) => IncidentDraft,
): IncidentDraft[] {
  if (groupOf.size === 0) return [...drafts];
  const members = new Map<string, IncidentDraft[]>();
  for (const d of drafts) {
    const g = groupOf.get(d);
    if (g !== undefined) members.set(g, [...(members.get(g) ?? []), d]);
  }
  const out: IncidentDraft[] = [];
  const emitted = new Set<string>();
  for (const d of drafts) {
    const g = groupOf.get(d);
    if (g === undefined) out.push(d);
    else if (!emitted.has(g)) {
      emitted.add(g);
      out.push(merge(g, members.get(g)!));
    }
  }
  return out;
}

/**
 * The members that fold into a shared root (spec 1.3) so that no open incident changes root under the
 * engineer's eyes: only drafts whose own incident is not open (`isOpen` by incident id) move; they move when
 * the shared root's incident (`rootId`) is already open, or when at least two of them fail together. Pure.
 */
export function joining(
  members: readonly IncidentDraft[],
  rootId: string,
  isOpen: (id: string) => boolean,
): IncidentDraft[] {
  const fresh = members.filter((d) => !isOpen(refKey(d.root)));
  return isOpen(rootId) || fresh.length >= 2 ? fresh : [];
}
