import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Node } from "../model/kube.ts";
import { inventoryOf, node, pod } from "../testing/inventory.ts";
import {
  HEARTBEAT_GAP_HOLD_MS,
  HEARTBEAT_GAP_SHARE,
  HEARTBEAT_GAP_WINDOW_MS,
  NODE_CATCH_UP_MS,
  detectNodes,
  heartbeatGap,
} from "./nodes.ts";

/**
 * A heartbeat gap (issue 53): most of the cluster's nodes lost together is the control plane's or the network's
 * doing. Checked against the definition by brute force over any cluster: its size, which nodes are lost, when.
 */
const T = Date.parse("2026-01-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

const clusterArb = fc.array(
  fc.record({ state: fc.constantFrom("True", "False", "Unknown"), at: fc.integer({ min: 0, max: 300_000 }) }),
  { minLength: 1, maxLength: 12 },
);

function nodesOf(cluster: readonly { state: string; at: number }[]): Node[] {
  return cluster.map((n, i) => node(`n${i}`, n.state as "True", iso(T + n.at)) as Node);
}

/** The largest set of lost nodes within the window of each other, by brute force over every starting node. */
function largestTogether(cluster: readonly { state: string; at: number }[]): number {
  const lost = cluster.filter((n) => n.state === "Unknown");
  return Math.max(
    0,
    ...lost.map((a) => lost.filter((b) => b.at >= a.at && b.at - a.at <= HEARTBEAT_GAP_WINDOW_MS).length),
  );
}

describe("heartbeat gap (issue 53)", () => {
  test("a gap is the largest set of nodes lost within the window, at least two and more than 55 % of the cluster", () => {
    fc.assert(
      fc.property(clusterArb, (cluster) => {
        const gap = heartbeatGap(nodesOf(cluster));
        const most = largestTogether(cluster);
        const isGap = most >= 2 && most > HEARTBEAT_GAP_SHARE * cluster.length;
        expect(gap.size).toBe(isGap ? most : 0);
        const members = cluster.filter((_, i) => gap.has(`n${i}`));
        for (const m of members) expect(m.state).toBe("Unknown");
        if (members.length)
          expect(Math.max(...members.map((m) => m.at)) - Math.min(...members.map((m) => m.at))).toBeLessThanOrEqual(
            HEARTBEAT_GAP_WINDOW_MS,
          );
      }),
    );
  });

  test("nodes lost in a gap are held its minute and explain their pods; a node lost alone is told at once", () => {
    const now = T + 30_000;
    const gap = inventoryOf(
      node("n1", "Unknown", iso(T)),
      node("n2", "Unknown", iso(T + 5_000)),
      node("n3", "True"),
      pod("shop", "web-1", { nodeName: "n1" }),
    );
    const lost = detectNodes(gap, now).filter((f) => f.reason === "NodeLost");
    expect(lost.map((f) => [f.object.name, f.clusterWide, f.opensAt])).toEqual([
      ["n1", true, T + HEARTBEAT_GAP_HOLD_MS],
      ["n2", true, T + 5_000 + HEARTBEAT_GAP_HOLD_MS],
    ]);
    expect(lost[0]!.explains?.map((o) => o.name)).toEqual(["web-1"]);
    const alone = inventoryOf(node("n1", "Unknown", iso(T)), node("n2", "True"), node("n3", "True"));
    const one = detectNodes(alone, now).filter((f) => f.reason === "NodeLost");
    expect(one.map((f) => [f.object.name, f.clusterWide ?? false, f.opensAt])).toEqual([["n1", false, undefined]]);
  });

  test("a node lost while the control plane was away or within a node grace of its return is held, and says why", () => {
    const away = { from: T, to: T + 40_000 };
    const lostAt = (ms: number) =>
      detectNodes(inventoryOf(node("n1", "Unknown", iso(ms)), node("n2", "True"), node("n3", "True")), ms + 1_000, {
        controlPlaneAway: away,
      }).find((f) => f.reason === "NodeLost")!;
    for (const at of [T, T + 20_000, T + 40_000, T + 40_000 + NODE_CATCH_UP_MS]) {
      const f = lostAt(at);
      expect(f.opensAt).toBe(at + HEARTBEAT_GAP_HOLD_MS);
      expect(f.clusterWide).toBeUndefined();
      expect(f.evidence.find((e) => e.label === "lost together")?.value).toContain("as the control plane came back");
    }
    for (const at of [T - 1, T + 40_001 + NODE_CATCH_UP_MS]) expect(lostAt(at).opensAt).toBeUndefined();
  });
});
