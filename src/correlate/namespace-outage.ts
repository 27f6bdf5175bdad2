import type { IncidentDraft } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import { refKey } from "../model/object-ref.ts";
import { mergeDrafts, replaceGroups } from "./merge.ts";

/** The root reason of a namespace outage (spec 1.3). */
export const NAMESPACE_OUTAGE = "NamespaceOutage";

/** Fewest workloads failing at once that make a namespace outage. */
export const NAMESPACE_OUTAGE_MIN_WORKLOADS = 3;

const WORKLOADS = ["Deployment", "StatefulSet", "DaemonSet"] as const;

/**
 * Folds a namespace outage into one incident (spec 1.3): when at least 3 workloads of one namespace, and more
 * than half of its Deployments, StatefulSets and DaemonSets, start failing in the same pass (their incidents
 * are not open yet), their drafts become one rooted at the Namespace, reason `NamespaceOutage`, the workloads
 * in `affected` and `folded` (mass failure). While that incident is open, every failing workload of the
 * namespace stays in it; workloads already told on their own keep their incidents. `isOpen` says whether an incident id is open. Pure.
 *
 * "At once" is what mon saw (issue 52 item 1): a workload whose objects were failing in mon's baseline pass —
 * the first of this process — (`failingAtStart`: the objects with a finding there, due or held) was already
 * failing when mon started, with an unknown onset, whether it is due in that pass or only later (a hold, a log
 * still read): several such are not an outage that began at once, and stay incidents of their own (the startup
 * summary names them together); such a workload neither counts toward a new outage nor joins one as it begins.
 * One healthy at the start that fails later counts, whenever its pods started. An outage already open keeps
 * every failing workload of its namespace. A `quiet` workload (held back by a silence,
 * the scope or maintenance) neither counts nor joins.
 */
export function foldNamespaceOutages(
  drafts: readonly IncidentDraft[],
  inventory: InventoryView,
  isOpen: (id: string) => boolean,
  failingAtStart: ReadonlySet<string> = new Set(),
  quiet: (draft: IncidentDraft) => boolean = () => false,
): IncidentDraft[] {
  const byNamespace = new Map<string, IncidentDraft[]>();
  for (const d of drafts) {
    if (!(WORKLOADS as readonly string[]).includes(d.root.kind) || !d.root.namespace || quiet(d)) continue;
    const members = byNamespace.get(d.root.namespace);
    if (members) members.push(d);
    else byNamespace.set(d.root.namespace, [d]);
  }
  const folded = new Map<IncidentDraft, string>();
  for (const [namespace, members] of byNamespace) {
    const root = { kind: "Namespace", name: namespace };
    const ongoing = isOpen(refKey(root));
    const fresh = members.filter((d) => !isOpen(refKey(d.root)));
    if (ongoing) {
      for (const d of fresh) folded.set(d, namespace);
      continue;
    }
    const began = fresh.filter((d) => !d.findings.some((f) => failingAtStart.has(refKey(f.object))));
    if (began.length < NAMESPACE_OUTAGE_MIN_WORKLOADS) continue;
    const total = WORKLOADS.reduce((n, kind) => n + inventory.listIn(kind, namespace).length, 0);
    if (began.length * 2 <= total) continue;
    for (const d of began) folded.set(d, namespace);
  }
  return replaceGroups(drafts, folded, (namespace, members) =>
    mergeDrafts({ kind: "Namespace", name: namespace }, NAMESPACE_OUTAGE, members, "mass_failure"),
  );
}
