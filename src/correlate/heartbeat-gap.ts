import type { IncidentDraft } from "../model/incident.ts";
import { type ObjectRef, refKey } from "../model/object-ref.ts";
import { mergeDrafts, replaceGroups } from "./merge.ts";

/** The root reason of a heartbeat gap: most of the cluster's nodes lost together (issue 53). */
export const NODE_HEARTBEAT_GAP = "NodeHeartbeatGap";

/**
 * The root of a heartbeat gap: what stopped every kubelet's heartbeat at once is the control plane (the API
 * server, etcd) or the network to it, not the nodes. Its incident id is `ControlPlane//node-heartbeats`.
 */
export const HEARTBEAT_GAP_ROOT: ObjectRef = {
  kind: "ControlPlane",
  name: "node-heartbeats",
  label: "the control plane or the network to it",
};

/**
 * Folds the nodes lost in a heartbeat gap into one incident (issue 53; detect/nodes.ts `heartbeatGap`): the
 * drafts rooted at a node whose loss is `clusterWide` — with the pods on it they took down — become one
 * rooted at HEARTBEAT_GAP_ROOT, reason `NodeHeartbeatGap`, the nodes in `affected` and `folded`
 * (`mass_failure`). Never told as node losses: two or more such nodes, or one while the gap's incident is open,
 * join it; a node whose own incident is already open keeps it. Pure; keeps the input order otherwise.
 */
export function foldHeartbeatGap(drafts: readonly IncidentDraft[], isOpen: (id: string) => boolean): IncidentDraft[] {
  const members = drafts.filter(
    (d) =>
      d.root.kind === "Node" &&
      !isOpen(refKey(d.root)) &&
      d.findings.some((f) => f.clusterWide && f.object.kind === "Node" && f.object.name === d.root.name),
  );
  if (members.length === 0 || (members.length < 2 && !isOpen(refKey(HEARTBEAT_GAP_ROOT)))) return [...drafts];
  const gap = new Map(members.map((d) => [d, "gap"]));
  return replaceGroups(drafts, gap, (_, nodes) =>
    mergeDrafts(HEARTBEAT_GAP_ROOT, NODE_HEARTBEAT_GAP, nodes, "mass_failure"),
  );
}
