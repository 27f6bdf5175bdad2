import { describe, expect, test } from "bun:test";
import { detectNodes } from "../detect/nodes.ts";
import { detectPods } from "../detect/pods.ts";
import { inventoryOf, node, pod, workload } from "../testing/inventory.ts";
import { groupFindings } from "./group.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const crashing = { restartCount: 4, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 1 } } };

function drafts(...objects: Parameters<typeof inventoryOf>) {
  const inv = inventoryOf(...objects);
  return groupFindings([...detectNodes(inv, NOW), ...detectPods(inv, NOW)], inv);
}

describe("groupFindings", () => {
  test("a lost node folds in every pod on it: one draft rooted at the node", () => {
    const api = workload("shop", "api");
    const web = workload("shop", "web");
    const out = drafts(node("n1", "Unknown"), api.deployment, api.replicaSet, web.deployment, web.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet }), pod("shop", "web-1", { nodeName: "n1", owner: web.replicaSet }), pod("kube-system", "dns", { nodeName: "n1" }));
    expect(out).toHaveLength(1);
    expect(out[0]!.root).toMatchObject({ kind: "Node", name: "n1" });
    expect(out[0]!.rootReason).toBe("NodeLost");
    expect(out[0]!.findings.map((f) => f.object.name)).toEqual(["n1", "dns", "api-1", "web-1"]);
  });

  test("failing pods of one Deployment are one draft rooted at the Deployment, through its ReplicaSet", () => {
    const api = workload("shop", "api");
    const out = drafts(node("n1", "True"), api.deployment, api.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet, status: crashing }), pod("shop", "api-2", { nodeName: "n1", owner: api.replicaSet, status: crashing }));
    expect(out.map((d) => [d.root.kind, d.root.namespace, d.root.name, d.rootReason, d.findings.length])).toEqual([["Deployment", "shop", "api", "CrashLoopBackOff", 2]]);
  });

  test("a pod with no controller in the cache is its own root; different workloads stay apart", () => {
    const api = workload("shop", "api");
    const out = drafts(api.deployment, api.replicaSet, pod("shop", "api-1", { owner: api.replicaSet, status: crashing }), pod("shop", "bare", { status: crashing }));
    expect(out.map((d) => `${d.root.kind}/${d.root.name}`)).toEqual(["Deployment/api", "Pod/bare"]);
  });

  test("the loudest reason names a workload's incident", () => {
    const api = workload("shop", "api");
    const pull = { state: { waiting: { reason: "ErrImagePull" } } };
    const out = drafts(api.deployment, api.replicaSet, pod("shop", "a", { owner: api.replicaSet, status: crashing }), pod("shop", "b", { owner: api.replicaSet, status: pull }), pod("shop", "c", { owner: api.replicaSet, status: pull }));
    expect(out[0]!.rootReason).toBe("ImagePullBackOff");
  });
});
