import { type Finding, NODE_DOWN_REASONS, NODE_DOWN_SLACK_MS } from "../model/finding.ts";

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
 * True when the node finding `node` explains the pod finding `pod` on that node (failure-catalogue R1, R2,
 * C12): a node that is down explains every pod finding that began at most 2 minutes before it went down — a
 * crash loop from a rollout minutes earlier is not the node's doing; a pressure or a reboot explains only the
 * pod reasons it causes, within 10 minutes either side for pressure, from 2 minutes before a reboot. Pure.
 */
export function nodeExplains(node: Finding, pod: Finding): boolean {
  const explains = EXPLAINS[node.reason];
  if (explains === undefined) return false;
  if (explains === "all") return pod.since >= node.since - NODE_DOWN_SLACK_MS;
  if (!explains.has(pod.reason)) return false;
  if (node.reason === "NodeRebooted") return pod.since >= node.since - NODE_DOWN_SLACK_MS;
  return Math.abs(pod.since - node.since) <= NODE_PRESSURE_WINDOW_MS;
}
