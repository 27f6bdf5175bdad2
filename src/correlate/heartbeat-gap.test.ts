import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import { foldHeartbeatGap, HEARTBEAT_GAP_ROOT, NODE_HEARTBEAT_GAP } from "./heartbeat-gap.ts";

const nodeDraft = (name: string, clusterWide: boolean): IncidentDraft => {
  const f: Finding = {
    key: `NodeLost/Node//${name}`,
    reason: "NodeLost",
    object: { kind: "Node", name },
    tier: "high",
    summary: `node ${name} is unreachable`,
    evidence: [],
    since: 0,
    ...(clusterWide ? { clusterWide: true } : {}),
  };
  const pod: Finding = {
    key: `PodNodeLost/Pod/shop/web-${name}`,
    reason: "PodNodeLost",
    object: { kind: "Pod", namespace: "shop", name: `web-${name}` },
    tier: "medium",
    summary: "down with its node",
    evidence: [],
    since: 0,
    nodeName: name,
  };
  return { root: { kind: "Node", name }, rootReason: "NodeLost", findings: [f, pod] };
};
const ids = (ds: readonly IncidentDraft[]) => ds.map((d) => `${d.root.kind}//${d.root.name}`);

describe("foldHeartbeatGap (issue 53)", () => {
  test("nodes lost together are one incident of the control plane with their pods, never node losses", () => {
    const out = foldHeartbeatGap([nodeDraft("a", true), nodeDraft("b", true)], () => false);
    expect(ids(out)).toEqual(["ControlPlane//node-heartbeats"]);
    expect(out[0]).toMatchObject({ root: HEARTBEAT_GAP_ROOT, rootReason: NODE_HEARTBEAT_GAP });
    expect(out[0]!.affected?.map((r) => r.name)).toEqual(["a", "b"]);
    expect(out[0]!.findings.map((f) => f.key)).toHaveLength(4);
  });

  test("a node lost alone stays its own; one joins an open gap; a node already told keeps its incident", () => {
    expect(ids(foldHeartbeatGap([nodeDraft("a", false), nodeDraft("b", false)], () => false))).toEqual([
      "Node//a",
      "Node//b",
    ]);
    expect(ids(foldHeartbeatGap([nodeDraft("a", true)], () => false))).toEqual(["Node//a"]);
    expect(ids(foldHeartbeatGap([nodeDraft("a", true)], (id) => id === "ControlPlane//node-heartbeats"))).toEqual([
      "ControlPlane//node-heartbeats",
    ]);
    expect(
      ids(
        foldHeartbeatGap([nodeDraft("a", true), nodeDraft("b", true), nodeDraft("c", true)], (id) => id === "Node//a"),
      ),
    ).toEqual(["Node//a", "ControlPlane//node-heartbeats"]);
  });
});
