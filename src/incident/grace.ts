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
  if (finding.object.kind !== "Pod" || !finding.nodeName || failingNodes.has(finding.nodeName)) return finding.opensAt;
  const created = Date.parse(
    String(inventory.get("Node", undefined, finding.nodeName)?.metadata?.creationTimestamp ?? ""),
  );
  if (Number.isNaN(created) || finding.since - created >= YOUNG_NODE_SECONDS * 1000) return finding.opensAt;
  return (finding.opensAt ?? finding.since) + YOUNG_NODE_GRACE_SECONDS * 1000;
}
