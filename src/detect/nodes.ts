import type { Reason } from "./catalogue.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import type { Node } from "../model/kube.ts";
import { condition, finding, refOf } from "./build.ts";
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
export function detectNodes(inventory: InventoryView, now: number, usage: UsageView = {}): Finding[] {
  const out: Finding[] = [];
  let gap: ReadonlySet<string> | undefined;
  for (const node of inventory.list("Node")) {
    // Most nodes are healthy: one look at their conditions, no allocation (issue 33: 5,000 nodes a pass).
    if (quiet(node)) continue;
    const name = node.metadata.name;
    const ref = { kind: "Node", name, ...(node.metadata.uid ? { uid: node.metadata.uid } : {}) };
    const ready = readyCondition(node);
    if (ready && ready.status !== "True") {
      gap ??= heartbeatGap(inventory.list("Node"));
      const together = gap.has(name) ? "gap" : catchUp(ready, usage.controlPlaneAway, now) ? "catch-up" : undefined;
      out.push(notReady(inventory, node, ready, now, together));
    }
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

/** Nodes whose Ready went Unknown within this window of each other were lost together, ms. */
export const HEARTBEAT_GAP_WINDOW_MS = 60_000;

/**
 * The share of the cluster's nodes that, lost together, is a heartbeat gap: the node lifecycle controller's
 * unhealthy-zone threshold (`--unhealthy-zone-threshold`, 0.55), past which it stops evicting.
 */
export const HEARTBEAT_GAP_SHARE = 0.55;

/**
 * How long nodes lost together are held before they are told (issue 53): the control plane's or the network's
 * return heals such a gap within seconds (an etcd outage: every node Unknown, Ready again 12–30 s later).
 */
export const HEARTBEAT_GAP_HOLD_MS = 60_000;

/**
 * The names of the nodes lost in a heartbeat gap (issue 53): at least two nodes, and more than
 * HEARTBEAT_GAP_SHARE of all of them, whose Ready went Unknown within HEARTBEAT_GAP_WINDOW_MS of each other —
 * the largest such set. Every kubelet stopping at once is the control plane's or the network's doing (the node
 * lifecycle controller reasons the same way and stops evicting). Empty otherwise. Pure.
 */
export function heartbeatGap(nodes: readonly Node[]): ReadonlySet<string> {
  const lost: { name: string; at: number }[] = [];
  for (const node of nodes) {
    const ready = readyCondition(node);
    if (ready?.status === "Unknown")
      lost.push({ name: node.metadata.name, at: parseTime(ready.lastTransitionTime, 0) });
  }
  if (lost.length < 2 || lost.length <= HEARTBEAT_GAP_SHARE * nodes.length) return new Set();
  lost.sort((a, b) => a.at - b.at);
  let best: { from: number; to: number } = { from: 0, to: 0 };
  for (let from = 0, to = 0; from < lost.length; from++) {
    while (to < lost.length && lost[to]!.at - lost[from]!.at <= HEARTBEAT_GAP_WINDOW_MS) to++;
    if (to - from > best.to - best.from) best = { from, to };
  }
  const together = lost.slice(best.from, best.to);
  if (together.length < 2 || together.length <= HEARTBEAT_GAP_SHARE * nodes.length) return new Set();
  return new Set(together.map((n) => n.name));
}

/**
 * How long after the control plane's return a node's loss is still its catch-up, ms (issue 53): the node
 * lifecycle controller marks a node Unknown once its heartbeat is older than `node-monitor-grace-period`
 * (v1.32: 50 s; 20–60 s in managed clusters), and a kubelet's heartbeats could not be written while the
 * control plane was away — so nodes are marked for up to that long after it is back, until their kubelets'
 * next heartbeat lands.
 */
export const NODE_CATCH_UP_MS = 60_000;

/**
 * Whether a lost node (Ready=Unknown) went Unknown while the control plane was away or within NODE_CATCH_UP_MS
 * of its return (issue 53): held as a heartbeat gap's member is (HEARTBEAT_GAP_HOLD_MS), so the kubelet's next
 * heartbeat heals it untold, and told as a node loss if it does not. Pure.
 */
export function catchUp(
  ready: { readonly status?: string; readonly lastTransitionTime?: string },
  away: UsageView["controlPlaneAway"],
  now: number,
): boolean {
  if (ready.status !== "Unknown" || !away) return false;
  const since = parseTime(ready.lastTransitionTime, now);
  return since >= away.from && since <= (away.to ?? now) + NODE_CATCH_UP_MS;
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
  together: "gap" | "catch-up" | undefined,
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
      [
        "lost together",
        together === "gap"
          ? "with most of the cluster's nodes (a heartbeat gap)"
          : together === "catch-up"
            ? "as the control plane came back (its heartbeats could not be written meanwhile)"
            : undefined,
      ],
    ],
    since,
    now,
    // Its pods wait as it waits (a symptom waits for its cause): a gap, or a catch-up, that heals within its
    // hold tells nothing. Only a gap is the control plane's incident; a node still lost after a catch-up's hold is
    // told as itself.
    ...(lost && together
      ? {
          ...(together === "gap" ? { clusterWide: true } : {}),
          holdMs: HEARTBEAT_GAP_HOLD_MS,
          ...(pods.length ? { explains: pods.map((p) => refOf({ ...p, kind: "Pod" })) } : {}),
        }
      : {}),
    ...(pageable && held ? { pageRule: "ClusterCriticalDown" } : {}),
    ...(pageable && !held ? { recheckAt: since + NODE_PAGE_HOLD_MS } : {}),
  });
}
