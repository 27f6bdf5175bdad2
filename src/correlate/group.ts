import { explanatoryDepth, type Finding, WORKLOAD_KINDS } from "../model/finding.ts";
import type { Fold, FoldReason, IncidentDraft } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import { refKey, type ObjectRef } from "../model/object-ref.ts";
import { TIERS } from "../model/severity.ts";
import { foldSharedEndpoints, isServiceEndpoint, serviceBackends, serviceEndpoint } from "./endpoints.ts";
import { nodeExplains } from "./node-explains.ts";
import { workloadRoot } from "./workload-root.ts";
import { foldSharedErrors } from "./shared-errors.ts";

/**
 * Root-cause grouping (spec 1.3; failure-catalogue 2.2 rules R1 "node down", R2 and R8 "workload ← pods").
 * Node findings are roots; a pod finding on a failing node joins that node's incident when the node's
 * failure explains it (node-explains.ts: a node down, what began since; a pressure, its evictions; a reboot,
 * the containers it lost); other pod
 * findings join the incident of their top controller (Pod → ReplicaSet → Deployment, Pod → StatefulSet,
 * Pod → Job), or stand alone when the pod has no controller in the cache. Workloads failing on the same
 * unreachable `host:port` are then folded into one incident rooted at that endpoint (`endpoints.ts`), and
 * workloads failing with the same error line into one rooted at that error (`shared-errors.ts`). Each draft
 * names in `folded` the incidents it stands for (node inhibition, cascading suppression). `isOpen` says
 * whether an incident id is open: a workload already told on its own is not moved under a shared root; `quiet`
 * whether a workload's draft is held back (every cause silenced, out of scope or under maintenance): such a
 * draft joins no shared root. `heldBy` names, by finding key, the root of the open incident another root's
 * incident holds a finding in (a symptom folded into its node's): a symptom whose failing pods are gone for a
 * moment (one deleted, its replacement not created yet) stays there while that root still fails, rather than
 * opening on its own. Pure and deterministic: drafts come out sorted by root key, findings by key.
 */
export function groupFindings(
  findings: readonly Finding[],
  inventory: InventoryView,
  isOpen: (id: string) => boolean = () => false,
  quiet: (draft: IncidentDraft) => boolean = () => false,
  heldBy: (findingKey: string) => ObjectRef | undefined = () => undefined,
): IncidentDraft[] {
  const groups = new Map<
    string,
    { root: ObjectRef; rootReason?: string; findings: Finding[]; folded: Map<string, Fold> }
  >();
  const failingNodes = new Map<string, Finding[]>();
  for (const f of findings)
    if (f.object.kind === "Node") failingNodes.set(f.object.name, [...(failingNodes.get(f.object.name) ?? []), f]);
  // Rule R4: a missing Secret, ConfigMap or ServiceAccount is the root of what it explains.
  const explainedBy = new Map<string, Finding>();
  for (const f of findings) for (const o of f.explains ?? []) explainedBy.set(refKey(o), f);

  // `fold` names the incident the finding would have had on its own, and why it joins `root` instead (spec 1.7).
  const add = (
    root: ObjectRef,
    finding: Finding,
    rootReason?: string,
    fold?: { reason: FoldReason; root: () => ObjectRef },
  ) => {
    rootOf.set(refKey(finding.object), root);
    const key = refKey(root);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { root, findings: [], folded: new Map() }));
    group.findings.push(finding);
    if (rootReason) group.rootReason = rootReason;
    if (fold) {
      const own = fold.root();
      const ownKey = refKey(own);
      if (ownKey !== key && !group.folded.has(ownKey)) group.folded.set(ownKey, { root: own, reason: fold.reason });
    }
  };

  // Rule R7: symptoms of other objects (a Service of its pods) are placed after everything else. A workload's
  // own finding (no available replica) is a symptom of its pods too: when they failed for a deeper cause
  // (their node, a missing Secret), it joins that cause instead of opening an incident of its own.
  let pods: Map<string, ObjectRef[]> | undefined;
  // A workload's pods that a cause explains count as failing too, with or without a finding of their own yet.
  const explainedPods = () => findings.flatMap((f) => (f.explains ?? []).filter((o) => o.kind === "Pod"));
  const symptomOf = (f: Finding): readonly ObjectRef[] | undefined =>
    f.joins ??
    (WORKLOAD_KINDS.has(f.object.kind)
      ? (pods ??= failingPodsByWorkload(
          [...findings.filter((x) => x.object.kind === "Pod").map((x) => x.object), ...explainedPods()],
          inventory,
        )).get(refKey(f.object))
      : undefined);
  const isSymptom = (f: Finding) => f.joins !== undefined || WORKLOAD_KINDS.has(f.object.kind);
  const ordered = [...findings.filter((f) => !isSymptom(f)), ...findings.filter(isSymptom)];
  const rootOf = new Map<string, ObjectRef>();
  // The root a symptom of `o` joins: the root of `o`'s own finding, of the cause that explains `o`, or, for a
  // pod without either, of its workload (a Service of pods whose Deployment is failing joins the Deployment).
  const rootOfObject = (key: string) => {
    const cause = explainedBy.get(key);
    return rootOf.get(key) ?? (cause ? rootOf.get(refKey(cause.object)) : undefined);
  };
  const rootFor = (o: ObjectRef): ObjectRef | undefined => {
    const direct = rootOfObject(refKey(o));
    if (direct || o.kind !== "Pod") return direct;
    const pod = inventory.get("Pod", o.namespace, o.name);
    for (const owner of pod ? inventory.ownerChain(pod) : []) {
      const root = rootOfObject(
        refKey({ kind: String(owner.kind), namespace: owner.metadata.namespace, name: owner.metadata.name }),
      );
      if (root) return root;
    }
    return undefined;
  };
  for (const f of ordered) {
    const joins = isSymptom(f) ? symptomOf(f) : undefined;
    if (joins) {
      const joined = joins
        .map(rootFor)
        .find((r) => r !== undefined && !(f.joins === undefined && refKey(r) === refKey(f.object)));
      if (joined) {
        add(joined, f, undefined, {
          reason: failingNodes.has(joined.name) && joined.kind === "Node" ? "node_inhibition" : "cascading_suppression",
          root: () => f.object,
        });
        continue;
      }
    }
    // Causes come first: a root with findings this pass has its group by now.
    const held = isSymptom(f) ? heldBy(f.key) : undefined;
    if (held && refKey(held) !== refKey(f.object) && groups.has(refKey(held))) {
      add(held, f, undefined, {
        reason: held.kind === "Node" && failingNodes.has(held.name) ? "node_inhibition" : "cascading_suppression",
        root: () => f.object,
      });
      continue;
    }
    if (f.object.kind === "Node") {
      add({ kind: "Node", name: f.object.name, uid: f.object.uid }, f, f.reason);
      continue;
    }
    if (f.explains) {
      add(f.object, f, f.reason);
      continue;
    }
    const cause = explainedBy.get(refKey(f.object));
    if (cause) {
      add(cause.object, f, undefined, { reason: "cascading_suppression", root: () => workloadRoot(f, inventory) });
      continue;
    }
    // A failure already told on its own stays in its incident when its node goes down (issue 52 item 5).
    // (Its workload is looked up only for a finding a failing node would take: most pods' nodes are fine.)
    const node = f.nodeName ? failingNodes.get(f.nodeName)?.find((n) => nodeExplains(n, f)) : undefined;
    if (node && !isOpen(refKey(workloadRoot(f, inventory)))) {
      add({ kind: "Node", name: node.object.name, uid: node.object.uid }, f, undefined, {
        reason: "node_inhibition",
        root: () => workloadRoot(f, inventory),
      });
      continue;
    }
    add(workloadRoot(f, inventory), f);
  }

  const drafts = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, g]) => {
      const sorted = [...g.findings].sort((a, b) => a.key.localeCompare(b.key));
      const own = sorted.filter((f) => !f.joins);
      const folded = [...g.folded.values()].sort((a, b) => refKey(a.root).localeCompare(refKey(b.root)));
      return {
        root: g.root,
        rootReason: g.rootReason ?? dominantReason(own.length ? own : sorted),
        findings: sorted,
        ...(folded.length ? { folded } : {}),
      };
    });
  // A workload whose failure a silence, the scope or maintenance holds back is no member of a shared root: it
  // would be named and counted there, or make the root exist at all (issue 52 item 3). It stays its own, held.
  const held: IncidentDraft[] = [];
  const loud: IncidentDraft[] = [];
  for (const d of drafts) (quiet(d) ? held : loud).push(d);
  const shared = foldSharedErrors(
    foldSharedEndpoints(
      loud,
      (endpoint) => serviceEndpoint(endpoint, inventory),
      isOpen,
      (endpoint) => isServiceEndpoint(endpoint, inventory),
      (endpoint) => serviceBackends(endpoint, inventory),
    ),
    isOpen,
  );
  return [...shared, ...held].sort((a, b) => refKey(a.root).localeCompare(refKey(b.root)));
}

// --- internal ---

/** Failing pods by the key of every workload in their owner chain; built once per grouping when needed. */
function failingPodsByWorkload(failing: readonly ObjectRef[], inventory: InventoryView): Map<string, ObjectRef[]> {
  const index = new Map<string, ObjectRef[]>();
  const seen = new Set<string>();
  for (const o of failing) {
    if (seen.has(refKey(o))) continue;
    seen.add(refKey(o));
    const pod = inventory.get("Pod", o.namespace, o.name);
    if (!pod) continue;
    for (const owner of inventory.ownerChain(pod)) {
      if (!WORKLOAD_KINDS.has(String(owner.kind))) continue;
      const key = refKey({
        kind: String(owner.kind),
        namespace: owner.metadata?.namespace,
        name: String(owner.metadata?.name),
      });
      const list = index.get(key);
      if (list) list.push(o);
      else index.set(key, [o]);
    }
  }
  return index;
}

/** The reason of the loudest tier, ties broken by how many findings carry it, then by name. */
/**
 * The incident's reason: its most explanatory finding (cause over symptom, rule 3): what explains others
 * (a missing ConfigMap) over what happens to a pod or container (a crash with its exit code, a failing probe)
 * over what a workload or Service shows as a result ("no available replica", "no ready endpoint"); then the
 * loudest tier, then the most frequent.
 */
function dominantReason(findings: readonly Finding[]): string {
  const score = new Map<string, { depth: number; tier: number; count: number }>();
  for (const f of findings) {
    const s = score.get(f.reason) ?? { depth: 3, tier: TIERS.length, count: 0 };
    score.set(f.reason, {
      depth: Math.min(s.depth, explanatoryDepth(f)),
      tier: Math.min(s.tier, TIERS.indexOf(f.tier)),
      count: s.count + 1,
    });
  }
  return (
    [...score.entries()].sort(
      ([ra, a], [rb, b]) => a.depth - b.depth || a.tier - b.tier || b.count - a.count || ra.localeCompare(rb),
    )[0]?.[0] ?? ""
  );
}
