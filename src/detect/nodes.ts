import type { Reason } from "./catalogue.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Node } from "../model/kube.ts";
import { condition, finding } from "./build.ts";
import { NODE_PAGE_HOLD_MS } from "./catalogue.ts";
import { parseTime } from "./evidence.ts";

const PRESSURES: readonly (readonly [string, Reason, string])[] = [
  ["MemoryPressure", "NodeMemoryPressure", "memory"],
  ["DiskPressure", "NodeDiskPressure", "disk"],
  ["PIDPressure", "NodePIDPressure", "process IDs"],
];

/**
 * The node family (spec 1.2; failure-catalogue 1.C). Ready=False → NodeNotReady, Ready=Unknown → NodeLost
 * (high); page rule P3 after 5 minutes down unless the node is being retired on purpose (cordoned, deleting,
 * ToBeDeletedByClusterAutoscaler) or runs only DaemonSet pods. Memory/Disk/PID pressure (2-minute hold) and
 * NetworkUnavailable. Pressure conditions of a lost node are stale and ignored; kubelet version skew is not
 * a failure. Pure: `now` is epoch ms.
 */
export function detectNodes(inventory: InventoryView, now: number): Finding[] {
  const out: Finding[] = [];
  for (const node of inventory.list("Node")) {
    // Most nodes are healthy: one look at their conditions, no allocation (issue 33: 5,000 nodes a pass).
    if (quiet(node)) continue;
    const name = node.metadata.name;
    const ref = { kind: "Node", name, ...(node.metadata.uid ? { uid: node.metadata.uid } : {}) };
    const ready = readyCondition(node);
    if (ready && ready.status !== "True") out.push(notReady(inventory, node, ready, now));
    if (ready?.status === "Unknown") continue;
    for (const [type, reason, what] of PRESSURES) {
      const c = condition(node, type);
      if (c?.status !== "True") continue;
      out.push(
        finding({
          reason,
          object: ref,
          nodeName: name,
          summary: `node ${name} is under ${what} pressure${c.message ? `: ${c.message}` : ""}`,
          evidence: [
            ["condition", `${type}=True${c.reason ? ` (${c.reason})` : ""}`],
            ["message", c.message],
            ["since", c.lastTransitionTime],
          ],
          since: parseTime(c.lastTransitionTime, now),
          now,
        }),
      );
    }
    const network = condition(node, "NetworkUnavailable");
    if (network?.status === "True") {
      out.push(
        finding({
          reason: "NodeNetworkUnavailable",
          object: ref,
          nodeName: name,
          summary: `node ${name} has no pod network${network.message ? `: ${network.message}` : ""}`,
          evidence: [
            ["condition", `NetworkUnavailable=True${network.reason ? ` (${network.reason})` : ""}`],
            ["message", network.message],
            ["since", network.lastTransitionTime],
          ],
          since: parseTime(network.lastTransitionTime, now),
          now,
        }),
      );
    }
  }
  return out;
}

/** The Ready condition of a node, if it reported one. */
export function readyCondition(node: Node): NonNullable<NonNullable<Node["status"]>["conditions"]>[number] | undefined {
  return (node.status?.conditions ?? []).find((c) => c.type === "Ready");
}

// --- internal ---

const WATCHED = new Set<string>([...PRESSURES.map(([type]) => type), "NetworkUnavailable"]);

/** True when no condition of `node` could make a finding: the family's result for it is empty. */
function quiet(node: Node): boolean {
  for (const c of node.status?.conditions ?? []) {
    if (c.type === "Ready" ? c.status !== "True" : c.status === "True" && WATCHED.has(c.type)) return false;
  }
  return true;
}

function notReady(
  inventory: InventoryView,
  node: Node,
  ready: NonNullable<ReturnType<typeof readyCondition>>,
  now: number,
): Finding {
  const name = node.metadata.name;
  const lost = ready.status === "Unknown";
  const since = parseTime(ready.lastTransitionTime, now);
  const pods = inventory
    .podsOnNode(name)
    .filter((p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
  const workloadPods = pods.filter(
    (p) => !(p.metadata?.ownerReferences ?? []).some((r: { kind?: string }) => r.kind === "DaemonSet"),
  );
  const retiring = Boolean(
    node.spec?.unschedulable ||
      node.metadata.deletionTimestamp ||
      (node.spec?.taints ?? []).some((t: { key?: string }) => t.key === "ToBeDeletedByClusterAutoscaler"),
  );
  const pageable =
    !retiring && (workloadPods.length > 0 || "node-role.kubernetes.io/control-plane" in (node.metadata?.labels ?? {}));
  const held = now - since >= NODE_PAGE_HOLD_MS;
  return finding({
    reason: lost ? "NodeLost" : "NodeNotReady",
    object: { kind: "Node", name, ...(node.metadata.uid ? { uid: node.metadata.uid } : {}) },
    nodeName: name,
    summary: `node ${name} is ${lost ? "unreachable" : "NotReady"}${ready.message ? `: ${ready.message}` : ""}`,
    evidence: [
      ["condition", `Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ""}`],
      ["message", ready.message],
      ["since", ready.lastTransitionTime],
      // The kubelet's last status post (on a change, else every 5 minutes); its heartbeat is its Lease, which
      // the pass reads for a down node (app/pass/heartbeat-evidence.ts).
      ["last status", ready.lastHeartbeatTime],
      ["pods on node", pods.length],
      ["cordoned", node.spec?.unschedulable ? "yes" : undefined],
    ],
    since,
    now,
    ...(pageable && held ? { pageRule: "ClusterCriticalDown" } : {}),
    ...(pageable && !held ? { recheckAt: since + NODE_PAGE_HOLD_MS } : {}),
  });
}
