import { type Finding, NODE_DOWN_REASONS, NODE_DOWN_SLACK_MS, OWN_EVIDENCE_REASONS } from "../model/finding.ts";

export { NODE_DOWN_SLACK_MS } from "../model/finding.ts";

/** How far apart a node pressure and an eviction or OOM kill on that node may be and still be one story, ms (R2). */
export const NODE_PRESSURE_WINDOW_MS = 10 * 60_000;

/**
 * What each node reason explains of the pods on that node (failure-catalogue 2.2): `all` for a node that is
 * down (R1 NotReady, lost; R3 no pod network), else the pod reasons it causes (R2 pressure → evictions and
 * OOM kills; C12 a reboot → containers the runtime lost). A node finding not listed explains no pod.
 */
const EXPLAINS: Readonly<Record<string, "all" | ReadonlySet<string>>> = {
  ...Object.fromEntries([...NODE_DOWN_REASONS].map((r) => [r, "all" as const])),
  NodeMemoryPressure: new Set(["PodEvicted", "OOMKilled"]),
  NodeDiskPressure: new Set(["PodEvicted"]),
  NodePIDPressure: new Set(["PodEvicted"]),
  NodeEvicting: new Set(["PodEvicted"]),
  NodeSystemOOM: new Set(["OOMKilled"]),
  NodeImageGCFailed: new Set(["PodEvicted"]),
  NodeRebooted: new Set(["ContainerStatusUnknown"]),
};

/**
 * What a down node does to its pods (failure-catalogue R1, R3; issue 52 item 5): they go unknown or not ready,
 * stick in Terminating, are evicted or cannot be placed, lose their sandbox or network. A pod finding of these
 * that began at most 2 minutes before the node went down is the node's doing.
 */
const DOWN_NODE_CAUSES: ReadonlySet<string> = new Set([
  "PodNodeLost",
  "PodStuckTerminating",
  "PodEvicted",
  "ContainerStatusUnknown",
  "ReadinessProbeFailing",
  "PodNeverReady",
  "FailedScheduling",
  "FailedCreatePodSandBox",
  "NetworkNotReady",
  "FailedMount",
  "FailedAttachVolume",
]);

/**
 * True when the node finding `node` explains the pod finding `pod` on that node (failure-catalogue R1, R2,
 * C12): a node that is down explains what a down node causes (DOWN_NODE_CAUSES) when it began at most 2 minutes
 * before the node went down, and any other failure but one with evidence of its own (OWN_EVIDENCE_REASONS) that began
 * once it was down — a crash loop from a rollout minutes earlier, or an image that does not exist, is not the
 * node's doing; a pressure or a reboot explains only the pod reasons it causes, within 10 minutes either side
 * for pressure, from 2 minutes before a reboot. Pure.
 */
export function nodeExplains(node: Finding, pod: Finding): boolean {
  const explains = EXPLAINS[node.reason];
  if (explains === undefined) return false;
  if (explains === "all") {
    if (OWN_EVIDENCE_REASONS.has(pod.reason)) return false;
    if (DOWN_NODE_CAUSES.has(pod.reason)) return pod.since >= node.since - NODE_DOWN_SLACK_MS;
    return pod.since >= node.since;
  }
  if (!explains.has(pod.reason)) return false;
  if (node.reason === "NodeRebooted") return pod.since >= node.since - NODE_DOWN_SLACK_MS;
  return Math.abs(pod.since - node.since) <= NODE_PRESSURE_WINDOW_MS;
}
