import type { Finding } from "../model/finding.ts";
import type { InventoryView, KubeObject } from "../model/inventory.ts";
import { CATALOGUE, NODE_PAGE_HOLD_MS } from "./catalogue.ts";
import { evidence, parseTime } from "./evidence.ts";

/**
 * Node failures (spec 1.2; failure-catalogue C1 NodeNotReady, C2 NodeLost). Ready=False → NodeNotReady,
 * Ready=Unknown → NodeLost, tier high. Page rule P3 (cluster-critical component down) applies after the node
 * has been down 5 minutes, unless it is being retired on purpose (cordoned, deleting, or tainted
 * ToBeDeletedByClusterAutoscaler) or runs only DaemonSet pods. Pure: `now` is epoch ms.
 */
export function detectNodes(inventory: InventoryView, now: number): Finding[] {
  const findings: Finding[] = [];
  for (const node of inventory.list("Node")) {
    const ready = readyCondition(node);
    if (!ready || ready.status === "True") continue;
    const entry = ready.status === "Unknown" ? CATALOGUE.NodeLost : CATALOGUE.NodeNotReady;
    const name: string = node.metadata.name;
    const since = parseTime(ready.lastTransitionTime, now);
    const pods = inventory.podsOnNode(name).filter((p) => !isTerminal(p));
    const workloadPods = pods.filter((p) => !ownedBy(p, "DaemonSet"));
    const retiring = Boolean(node.spec?.unschedulable || node.metadata.deletionTimestamp || (node.spec?.taints ?? []).some((t: { key?: string }) => t.key === "ToBeDeletedByClusterAutoscaler"));
    const pageable = !retiring && (workloadPods.length > 0 || isControlPlane(node));
    const held = now - since >= NODE_PAGE_HOLD_MS;
    const state = ready.status === "Unknown" ? "unreachable" : "NotReady";
    findings.push({
      key: `${entry.reason}/Node//${name}`,
      reason: entry.reason,
      object: { kind: "Node", name, uid: node.metadata.uid },
      tier: entry.tier,
      ...(pageable && held ? { pageRule: "ClusterCriticalDown" } : {}),
      ...(pageable && !held ? { recheckAt: since + NODE_PAGE_HOLD_MS } : {}),
      summary: `node ${name} is ${state}${ready.message ? `: ${ready.message}` : ""}`,
      evidence: evidence([
        ["condition", `Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ""}`],
        ["message", ready.message],
        ["since", ready.lastTransitionTime],
        ["last heartbeat", ready.lastHeartbeatTime],
        ["pods on node", pods.length],
        ["cordoned", node.spec?.unschedulable ? "yes" : undefined],
      ]),
      nodeName: name,
      since,
    });
  }
  return findings;
}

/** The Ready condition of a node, if it reported one. */
export function readyCondition(node: KubeObject): { status: string; reason?: string; message?: string; lastTransitionTime?: string; lastHeartbeatTime?: string } | undefined {
  return (node.status?.conditions ?? []).find((c: { type?: string }) => c.type === "Ready");
}

// --- internal ---

function isTerminal(pod: KubeObject): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

function ownedBy(pod: KubeObject, kind: string): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((r: { kind?: string }) => r.kind === kind);
}

function isControlPlane(node: KubeObject): boolean {
  return "node-role.kubernetes.io/control-plane" in (node.metadata?.labels ?? {});
}
