import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";

/** A node younger than this (seconds) at the time a finding starts is still joining the cluster (spec 1.8). */
export const YOUNG_NODE_SECONDS = 600;

/** Extra hold (seconds) for findings on pods of a young node: images pull, CNI and DaemonSets settle (spec 1.8). */
export const YOUNG_NODE_GRACE_SECONDS = 300;

/**
 * Young-node grace (spec 1.8): a finding on a pod scheduled to a node that was less than 10 minutes old when
 * the finding started opens 5 minutes later than its own hold says. No grace on a node in `failingNodes`:
 * its pods are symptoms of the node's own incident and join it at once. Returns the epoch ms the finding
 * opens, or undefined when it has no hold and no grace. Pure: reads the node's `metadata.creationTimestamp`
 * from the Inventory.
 */
export function opensAtWithGrace(
  finding: Finding,
  inventory: InventoryView,
  failingNodes: ReadonlySet<string> = new Set(),
): number | undefined {
  const nodes =
    finding.object.kind === "Pod"
      ? finding.nodeName
        ? [finding.nodeName]
        : []
      : WORKLOADS.has(finding.object.kind)
        ? nodesOfWorkload(finding.object, inventory)
        : [];
  const young = nodes.some((name) => {
    if (failingNodes.has(name)) return false;
    const created = Date.parse(String(inventory.get("Node", undefined, name)?.metadata?.creationTimestamp ?? ""));
    return !Number.isNaN(created) && finding.since - created < YOUNG_NODE_SECONDS * 1000;
  });
  if (!young || nodes.some((n) => failingNodes.has(n))) return finding.opensAt;
  // The grace is added to the finding's own hold, not put in its place.
  return (finding.opensAt ?? finding.since + (finding.holdMs ?? 0)) + YOUNG_NODE_GRACE_SECONDS * 1000;
}

// --- internal ---

const WORKLOADS = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"]);

/** The nodes the pods of a workload run on (through their owner chains). */
function nodesOfWorkload(workload: Finding["object"], inventory: InventoryView): string[] {
  const out = new Set<string>();
  for (const pod of inventory.list("Pod")) {
    if (pod.metadata.namespace !== workload.namespace || !pod.spec?.nodeName) continue;
    if (inventory.ownerChain(pod).some((o) => o.kind === workload.kind && o.metadata.name === workload.name)) {
      out.add(pod.spec.nodeName);
    }
  }
  return [...out];
}
