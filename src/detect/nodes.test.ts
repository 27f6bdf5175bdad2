import { describe, expect, test } from "bun:test";
import { inventoryOf, node, pod } from "../testing/inventory.ts";
import { NODE_PAGE_HOLD_MS } from "./catalogue.ts";
import { detectNodes } from "./nodes.ts";

const SINCE = "2026-01-01T00:00:00Z";
const T = Date.parse(SINCE);
const daemonSetPod = {
  ...pod("kube-system", "cni-x", { nodeName: "n1" }),
  metadata: {
    namespace: "kube-system",
    name: "cni-x",
    ownerReferences: [{ kind: "DaemonSet", name: "cni", uid: "u", controller: true }],
  },
};

const NOW2 = T + 60 * 60_000;
const pressure = (type: string, status: string, agoMs: number) => ({
  type,
  status,
  reason: "KubeletHas",
  message: `kubelet has ${type}`,
  lastTransitionTime: new Date(NOW2 - agoMs).toISOString(),
});
const withConditions = (name: string, ready: string, extra: object[]) => ({
  ...node(name, ready as "True"),
  status: { conditions: [{ type: "Ready", status: ready, lastTransitionTime: SINCE }, ...extra] },
});

describe("detectNodes", () => {
  test("memory, disk and PID pressure after 2 minutes; NetworkUnavailable at once", () => {
    const n = withConditions("p1", "True", [
      pressure("MemoryPressure", "True", 5 * 60_000),
      pressure("DiskPressure", "True", 60_000),
      pressure("PIDPressure", "False", 0),
      { type: "NetworkUnavailable", status: "True", reason: "NoRouteCreated" },
    ]);
    const open = detectNodes(inventoryOf(n), NOW2).filter((f) => !f.opensAt || f.opensAt <= NOW2);
    expect(open.map((f) => f.reason)).toEqual(["NodeMemoryPressure", "NodeNetworkUnavailable"]);
  });

  test("each pressure condition held for 2 minutes is its own finding", () => {
    const n = withConditions("p2", "True", [
      pressure("MemoryPressure", "True", 3 * 60_000),
      pressure("DiskPressure", "True", 3 * 60_000),
      pressure("PIDPressure", "True", 3 * 60_000),
    ]);
    expect(detectNodes(inventoryOf(n), NOW2).map((f) => [f.reason, f.tier])).toEqual([
      ["NodeMemoryPressure", "warning"],
      ["NodeDiskPressure", "warning"],
      ["NodePIDPressure", "warning"],
    ]);
  });

  test("a lost node's pressure conditions are stale and ignored; a cordoned Ready node is no failure", () => {
    expect(
      detectNodes(
        inventoryOf(withConditions("l1", "Unknown", [pressure("MemoryPressure", "True", 10 * 60_000)])),
        NOW2,
      ).map((f) => f.reason),
    ).toEqual(["NodeLost"]);
    expect(detectNodes(inventoryOf(node("c1", "True", SINCE, { spec: { unschedulable: true } })), NOW2)).toEqual([]);
  });

  test("Ready=Unknown is NodeLost and Ready=False is NodeNotReady, both high; a Ready node is fine", () => {
    const found = detectNodes(inventoryOf(node("a", "Unknown"), node("b", "False"), node("c", "True")), T + 1000);
    expect(found.map((f) => [f.reason, f.object.name, f.tier])).toEqual([
      ["NodeLost", "a", "high"],
      ["NodeNotReady", "b", "high"],
    ]);
    expect(found[0]!.summary).toBe("node a is unreachable: Kubelet stopped posting node status.");
  });

  test("page rule P3 applies only after the node has been down 5 minutes, and asks to be rechecked then", () => {
    const inv = inventoryOf(node("n1", "Unknown", SINCE), pod("shop", "api", { nodeName: "n1" }));
    const early = detectNodes(inv, T + NODE_PAGE_HOLD_MS - 1)[0]!;
    expect(early.pageRule).toBeUndefined();
    expect(early.recheckAt).toBe(T + NODE_PAGE_HOLD_MS);
    expect(detectNodes(inv, T + NODE_PAGE_HOLD_MS)[0]!.pageRule).toBe("ClusterCriticalDown");
  });

  test("no page for a node retired on purpose or running only DaemonSet pods", () => {
    const later = T + NODE_PAGE_HOLD_MS * 2;
    const cordoned = node("n1", "Unknown", SINCE, { spec: { unschedulable: true } });
    expect(
      detectNodes(inventoryOf(cordoned, pod("shop", "api", { nodeName: "n1" })), later)[0]!.pageRule,
    ).toBeUndefined();
    expect(detectNodes(inventoryOf(node("n1", "Unknown"), daemonSetPod), later)[0]!.pageRule).toBeUndefined();
  });
});
