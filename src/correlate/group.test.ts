import { describe, expect, test } from "bun:test";
import { detectNodes } from "../detect/nodes.ts";
import { detectPods } from "../detect/pods/family.ts";
import { detectStorage } from "../detect/storage.ts";
import { detectWorkloads } from "../detect/workloads.ts";
import { finding } from "../detect/build.ts";
import fc from "fast-check";
import { inventoryOf, node, pod, workload } from "../testing/inventory.ts";
import { groupFindings } from "./group.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const crashing = {
  restartCount: 4,
  state: { waiting: { reason: "CrashLoopBackOff" } },
  lastState: { terminated: { exitCode: 1 } },
};

function drafts(...objects: Parameters<typeof inventoryOf>) {
  const inv = inventoryOf(...objects);
  return groupFindings([...detectNodes(inv, NOW), ...detectPods(inv, NOW)], inv);
}

describe("groupFindings", () => {
  test("a lost node folds in every pod on it: one draft rooted at the node", () => {
    const api = workload("shop", "api");
    const web = workload("shop", "web");
    const out = drafts(
      node("n1", "Unknown"),
      api.deployment,
      api.replicaSet,
      web.deployment,
      web.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet }),
      pod("shop", "web-1", { nodeName: "n1", owner: web.replicaSet }),
      pod("kube-system", "dns", { nodeName: "n1" }),
    );
    expect(out).toHaveLength(1);
    expect(out[0]!.root).toMatchObject({ kind: "Node", name: "n1" });
    expect(out[0]!.rootReason).toBe("NodeLost");
    expect(out[0]!.findings.map((f) => f.object.name)).toEqual(["n1", "dns", "api-1", "web-1"]);
    // The incidents the node stands for, each once, for the audit (node inhibition, spec 1.7).
    expect(out[0]!.folded?.map((f) => [f.reason, `${f.root.kind}/${f.root.name}`])).toEqual([
      ["node_inhibition", "Deployment/api"],
      ["node_inhibition", "Deployment/web"],
      ["node_inhibition", "Pod/dns"],
    ]);
  });

  test("failing pods of one Deployment are one draft rooted at the Deployment, through its ReplicaSet", () => {
    const api = workload("shop", "api");
    const out = drafts(
      node("n1", "True"),
      api.deployment,
      api.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet, status: crashing }),
      pod("shop", "api-2", { nodeName: "n1", owner: api.replicaSet, status: crashing }),
    );
    expect(out.map((d) => [d.root.kind, d.root.namespace, d.root.name, d.rootReason, d.findings.length])).toEqual([
      ["Deployment", "shop", "api", "CrashLoopBackOff", 2],
    ]);
  });

  test("a pod with no controller in the cache is its own root; different workloads stay apart", () => {
    const api = workload("shop", "api");
    const out = drafts(
      api.deployment,
      api.replicaSet,
      pod("shop", "api-1", { owner: api.replicaSet, status: crashing }),
      pod("shop", "bare", { status: crashing }),
    );
    expect(out.map((d) => `${d.root.kind}/${d.root.name}`)).toEqual(["Deployment/api", "Pod/bare"]);
  });

  test("the loudest reason names a workload's incident", () => {
    const api = workload("shop", "api");
    const pull = { state: { waiting: { reason: "ErrImagePull" } } };
    const out = drafts(
      api.deployment,
      api.replicaSet,
      pod("shop", "a", { owner: api.replicaSet, status: crashing }),
      pod("shop", "b", { owner: api.replicaSet, status: pull }),
      pod("shop", "c", { owner: api.replicaSet, status: pull }),
    );
    expect(out[0]!.rootReason).toBe("ImagePullBackOff");
  });

  test("a Deployment left without replicas by a lost node joins the node's incident; failing on its own it keeps its root", () => {
    const api = workload("shop", "api");
    const unavailable = {
      ...api.deployment,
      spec: { replicas: 1 },
      status: {
        replicas: 1,
        availableReplicas: 0,
        readyReplicas: 0,
        conditions: [
          {
            type: "Available",
            status: "False",
            lastTransitionTime: "2025-12-31T23:00:00Z",
            message: "Deployment does not have minimum availability.",
          },
        ],
      },
    };
    const inv = inventoryOf(
      node("n1", "Unknown"),
      unavailable,
      api.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet }),
    );
    const found = [...detectNodes(inv, NOW), ...detectPods(inv, NOW), ...detectWorkloads(inv, NOW)];
    expect(found.map((f) => f.reason).sort()).toEqual(["NodeLost", "PodNodeLost", "WorkloadUnavailable"]);
    const out = groupFindings(found, inv);
    expect(out.map((d) => [d.root.kind, d.root.name, d.findings.length])).toEqual([["Node", "n1", 3]]);
    expect(out[0]!.folded?.map((f) => f.reason)).toEqual(["node_inhibition"]);

    const alone = inventoryOf(
      node("n1", "True"),
      unavailable,
      api.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet, status: crashing }),
    );
    const own = groupFindings([...detectPods(alone, NOW), ...detectWorkloads(alone, NOW)], alone);
    expect(own.map((d) => [d.root.kind, d.root.name, d.findings.map((f) => f.reason).sort()])).toEqual([
      ["Deployment", "api", ["CrashLoopBackOff", "WorkloadUnavailable"]],
    ]);
    expect(own[0]!.folded).toBeUndefined();
  });

  test("a Deployment's symptom folded into its lost node stays there while its pod is replaced, not once the node is back", () => {
    const api = workload("shop", "api");
    const unavailable = {
      ...api.deployment,
      spec: { replicas: 1 },
      status: {
        replicas: 1,
        availableReplicas: 0,
        conditions: [{ type: "Available", status: "False", lastTransitionTime: "2025-12-31T23:00:00Z" }],
      },
    };
    // The evicted pod deleted, its replacement not created yet: no pod of the Deployment fails this pass.
    const between = (ready: "Unknown" | "True") => {
      const inv = inventoryOf(node("n1", ready), unavailable, api.replicaSet);
      return { inv, found: [...detectNodes(inv, NOW), ...detectWorkloads(inv, NOW)] };
    };
    const lost = between("Unknown");
    const heldByNode = (key: string) =>
      key.startsWith("WorkloadUnavailable/") ? { kind: "Node", name: "n1", uid: "n1" } : undefined;
    const out = groupFindings(
      lost.found,
      lost.inv,
      () => true,
      () => false,
      heldByNode,
    );
    expect(out.map((d) => [d.root.kind, d.root.name, d.findings.map((f) => f.reason).sort()])).toEqual([
      ["Node", "n1", ["NodeLost", "WorkloadUnavailable"]],
    ]);
    // Without what held it, or once the node no longer fails, it is its own.
    expect(
      groupFindings(lost.found, lost.inv)
        .map((d) => d.root.kind)
        .sort(),
    ).toEqual(["Deployment", "Node"]);
    const back = between("True");
    expect(
      groupFindings(
        back.found,
        back.inv,
        () => true,
        () => false,
        heldByNode,
      ).map((d) => d.root.kind),
    ).toEqual(["Deployment"]);
  });
  test("pods waiting for a Pending claim join the claim's incident: pod → PVC", () => {
    const db = workload("shop", "db");
    const claimed = (name: string) => {
      const p = pod("shop", name, {
        owner: db.replicaSet,
        phase: "Pending",
        conditions: [
          {
            type: "PodScheduled",
            status: "False",
            reason: "Unschedulable",
            message: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.",
            lastTransitionTime: "2025-12-31T23:00:00Z",
          },
        ],
      });
      return {
        ...p,
        spec: { ...p.spec, volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-db" } }] },
      };
    };
    const pvc = {
      kind: "PersistentVolumeClaim",
      apiVersion: "v1",
      metadata: { namespace: "shop", name: "data-db", uid: "uid-pvc", creationTimestamp: "2025-12-31T23:00:00Z" },
      spec: { storageClassName: "fast" },
      status: { phase: "Pending" },
    };
    const fast = {
      kind: "StorageClass",
      apiVersion: "storage.k8s.io/v1",
      metadata: { name: "fast" },
      volumeBindingMode: "Immediate",
    };
    const inv = inventoryOf(db.deployment, db.replicaSet, claimed("db-0"), claimed("db-1"), pvc, fast);
    const out = groupFindings([...detectPods(inv, NOW), ...detectStorage(inv, NOW)], inv);
    expect(out.map((d) => [d.root.kind, d.root.name, d.rootReason, d.findings.map((f) => f.reason).sort()])).toEqual([
      ["PersistentVolumeClaim", "data-db", "PVCPending", ["FailedScheduling", "FailedScheduling", "PVCPending"]],
    ]);
    expect(out[0]!.folded?.map((f) => [f.reason, f.root.name])).toEqual([["cascading_suppression", "db"]]);
  });
});

describe("what a node's failure explains (failure-catalogue R1, R2, C12)", () => {
  const NODE_REASONS = [
    "NodeNotReady",
    "NodeLost",
    "NodeNetworkUnavailable",
    "NodeMemoryPressure",
    "NodeDiskPressure",
    "NodePIDPressure",
    "NodeEvicting",
    "NodeSystemOOM",
    "NodeImageGCFailed",
    "NodeRebooted",
  ] as const;
  const POD_REASONS = [
    "CrashLoopBackOff",
    "OOMKilled",
    "PodEvicted",
    "ContainerStatusUnknown",
    "ReadinessProbeFailing",
    "PodNodeLost",
    "ImagePullBackOff",
  ] as const;
  const api = workload("shop", "api");
  const inv = inventoryOf(
    node("n1", "True"),
    api.deployment,
    api.replicaSet,
    pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet }),
  );
  const nodeFinding = (reason: (typeof NODE_REASONS)[number], since: number) =>
    finding({
      reason,
      object: { kind: "Node", name: "n1" },
      nodeName: "n1",
      summary: reason,
      evidence: [],
      since,
      now: NOW,
    });
  const podFinding = (reason: (typeof POD_REASONS)[number], since: number) =>
    finding({
      reason,
      object: { kind: "Pod", namespace: "shop", name: "api-1" },
      nodeName: "n1",
      summary: reason,
      evidence: [],
      since,
      now: NOW,
    });

  test("a crash loop from a rollout 4 minutes before a reboot stays the Deployment's; a container the reboot lost is the node's", () => {
    const reboot = NOW - 60_000;
    const before = groupFindings(
      [nodeFinding("NodeRebooted", reboot), podFinding("CrashLoopBackOff", reboot - 4 * 60_000)],
      inv,
    );
    expect(before.map((d) => [`${d.root.kind}/${d.root.name}`, d.rootReason])).toEqual([
      ["Deployment/api", "CrashLoopBackOff"],
      ["Node/n1", "NodeRebooted"],
    ]);
    const lost = groupFindings(
      [nodeFinding("NodeRebooted", reboot), podFinding("ContainerStatusUnknown", reboot + 5_000)],
      inv,
    );
    expect(lost.map((d) => [`${d.root.kind}/${d.root.name}`, d.findings.length])).toEqual([["Node/n1", 2]]);
  });

  test("any node failure, any pod finding on it, any timing: the node takes the pod only when its failure explains it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NODE_REASONS),
        fc.constantFrom(...POD_REASONS),
        fc.integer({ min: -30 * 60, max: 30 * 60 }),
        (nodeReason, podReason, offsetS) => {
          const since = NOW - 60 * 60_000;
          const out = groupFindings(
            [nodeFinding(nodeReason, since), podFinding(podReason, since + offsetS * 1000)],
            inv,
          );
          const joined = out.length === 1;
          const down = ["NodeNotReady", "NodeLost", "NodeNetworkUnavailable"].includes(nodeReason);
          // Nothing that began more than 2 minutes before the node failed is the node's doing.
          if (offsetS < -120 && (down || nodeReason === "NodeRebooted")) expect(joined).toBe(false);
          // A down node takes what a down node causes from 2 minutes before it failed, any other failure begun
          // once it was down, and never one with evidence of its own (an image that does not exist; issue 52).
          const own = ["ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError"].includes(podReason);
          const caused = [
            "PodNodeLost",
            "PodStuckTerminating",
            "PodEvicted",
            "ContainerStatusUnknown",
            "ReadinessProbeFailing",
          ].includes(podReason);
          if (down) expect(joined).toBe(!own && (caused ? offsetS >= -120 : offsetS >= 0));
          // A reboot is a low-priority fact: it never carries a crash loop, an image pull or a failing probe.
          if (!down && ["CrashLoopBackOff", "ImagePullBackOff", "ReadinessProbeFailing"].includes(podReason))
            expect(joined).toBe(false);
          if (nodeReason === "NodeRebooted")
            expect(joined).toBe(podReason === "ContainerStatusUnknown" && offsetS >= -120);
        },
      ),
    );
  });
});
