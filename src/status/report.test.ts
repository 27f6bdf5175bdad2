import { describe, expect, test } from "bun:test";
import { Inventory } from "../kube/inventory.ts";
import { nodeReady, readyNode } from "../sim/scenarios/builders.ts";
import { statusReport, statusText } from "./report.ts";

const NOW = Date.UTC(2026, 10, 24, 12);
const iso = (ms: number) => new Date(ms).toISOString();

/** A cluster of two zones, one node not ready, the control plane's Leases, cluster DNS and a drain-blocking budget. */
function cluster(): Inventory {
  const inv = new Inventory();
  const node = (name: string, zone: string, ready: boolean) => {
    const n = readyNode(name, NOW - 86_400_000);
    n.metadata.labels["topology.kubernetes.io/zone"] = zone;
    if (!ready) n.status.conditions = [nodeReady("Unknown", NOW - 60_000)];
    inv.apply("Node", "ADDED", n);
  };
  node("a1", "eu-1a", true);
  node("a2", "eu-1a", false);
  node("b1", "eu-1b", true);
  inv.apply("Lease", "ADDED", {
    metadata: { name: "kube-scheduler", namespace: "kube-system" },
    spec: { holderIdentity: "cp-1_abc", renewTime: iso(NOW - 5_000), leaseDurationSeconds: 15 },
  });
  inv.apply("Lease", "ADDED", { metadata: { name: "kube-controller-manager", namespace: "kube-system" }, spec: {} });
  for (const [name, ready] of [
    ["coredns-1", true],
    ["coredns-2", false],
  ] as const)
    inv.apply("Pod", "ADDED", {
      metadata: { name, namespace: "kube-system", labels: { "k8s-app": "kube-dns" } },
      status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
    });
  inv.apply("PodDisruptionBudget", "ADDED", {
    metadata: { name: "db", namespace: "shop" },
    status: { disruptionsAllowed: 0, expectedPods: 2, currentHealthy: 2, desiredHealthy: 2 },
  });
  inv.apply("PodDisruptionBudget", "ADDED", {
    metadata: { name: "web", namespace: "shop" },
    status: { disruptionsAllowed: 1, expectedPods: 3 },
  });
  return inv;
}

describe("statusReport (pure)", () => {
  const input: Parameters<typeof statusReport>[0] = {
    now: NOW,
    cluster: "prod",
    version: "0.1.0",
    edition: "pro",
    leading: true,
    incidents: [],
    inventory: cluster(),
    usage: {
      apiServer: { failing: ["etcd"], since: NOW - 30_000 },
      apiServerReading: { at: NOW - 12_000, readable: true },
    },
    unseen: [{ what: "example.com/widgets", reason: "permission_denied" }],
    license: { state: "active", licenseId: "LIC-…48", leaseExpiresAt: NOW + 86_400_000 },
    providers: { kept: ["slack"], inactive: [] },
  };
  const report = statusReport(input);

  test("zones count ready nodes and name the others; upgrade readiness names what would stop a drain", () => {
    expect(report.zones).toEqual([
      { zone: "eu-1a", nodes: 2, ready: 1, notReady: ["a2"] },
      { zone: "eu-1b", nodes: 1, ready: 1, notReady: [] },
    ]);
    expect(report.upgradeReadiness).toEqual({
      kubeletVersions: { "v1.32.13": 3 },
      notReadyNodes: ["a2"],
      blockingDisruptionBudgets: ["shop/db"],
    });
  });

  test("the control plane: the API server's failing checks, who holds each leader Lease, cluster DNS readiness", () => {
    expect(report.controlPlane).toEqual({
      apiServer: { ready: false, failing: ["etcd"], readAt: new Date(NOW - 12_000).toISOString() },
      leaders: [
        { lease: "kube-scheduler", visible: true, holder: "cp-1_abc", renewedSecondsAgo: 5 },
        { lease: "kube-controller-manager", visible: true, holder: null, renewedSecondsAgo: null },
      ],
      clusterDns: { pods: 2, ready: 1 },
    });
    const text = statusText(report);
    expect(text).toContain("API server: failing etcd (read 12 s ago)");
    expect(text).toContain("kube-scheduler: held by cp-1_abc, renewed 5 s ago");
    expect(text).toContain("kube-controller-manager: no holder");
    expect(text).toContain("cluster DNS: 1/2 pods ready");
    expect(text).toContain("eu-1a: 1/2 nodes ready (not ready: a2)");
    expect(text).toContain("example.com/widgets: permission_denied");
  });

  test("the API server line shows the last reading either way: ready, unreadable, or not read yet (issue 29.8)", () => {
    const line = (usage: Parameters<typeof statusReport>[0]["usage"]) =>
      statusText(statusReport({ ...input, usage }))
        .split("\n")
        .find((l) => l.includes("API server"));
    expect(line({ apiServerReading: { at: NOW - 3_000, readable: true } })).toBe("  API server: ready (read 3 s ago)");
    expect(line({ apiServerReading: { at: NOW - 60_000, readable: false } })).toBe(
      "  API server: /readyz could not be read 60 s ago (no permission, not served, or no answer)",
    );
    expect(line({})).toBe("  API server: not read yet (the first usage round runs once the caches are synced)");
  });
});
