import type { InventoryView } from "../../model/inventory.ts";
import type { Node, Pod } from "../../model/kube.ts";
import { readyCondition } from "../nodes.ts";

/**
 * The nodes an unschedulable pod may run on when every one of them is lost (issue 40): the nodes its
 * `nodeSelector` and required node affinity allow are all not Ready (or tainted unreachable / not-ready), so the
 * pod waits for them — its being Pending is their doing, not a capacity or configuration problem of its own.
 * Empty when some allowed node is Ready, or no node is allowed at all (a selector nothing matches: the pod's own
 * problem). Node affinity is read for `matchExpressions` on labels (In, NotIn, Exists, DoesNotExist). Pure.
 */
export function lostCandidates(pod: Pod, inventory: InventoryView): string[] {
  const allowed = inventory.list("Node").filter((node) => allows(pod, node));
  if (allowed.length === 0) return [];
  const lost = allowed.filter(isLost);
  return lost.length === allowed.length ? lost.map((n) => n.metadata.name).sort() : [];
}

// --- internal ---

const DOWN_TAINTS = new Set(["node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"]);

function isLost(node: Node): boolean {
  if (readyCondition(node)?.status !== "True") return true;
  return (node.spec?.taints ?? []).some((t) => DOWN_TAINTS.has(t.key ?? ""));
}

function allows(pod: Pod, node: Node): boolean {
  const labels: Record<string, string> = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms?.length) return true;
  // Terms are ORed; the expressions of one term are ANDed.
  return terms.some((term) =>
    (term.matchExpressions ?? []).every((e) => {
      const have = labels[e.key];
      switch (e.operator) {
        case "In":
          return have !== undefined && (e.values ?? []).includes(have);
        case "NotIn":
          return have === undefined || !(e.values ?? []).includes(have);
        case "Exists":
          return have !== undefined;
        case "DoesNotExist":
          return have === undefined;
        default:
          return true;
      }
    }),
  );
}
