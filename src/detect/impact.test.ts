import { describe, expect, test } from "bun:test";
import type { Incident } from "../model/incident.ts";
import type { KubeObject } from "../model/inventory.ts";
import { impactLine } from "../notify/impact.ts";
import { inventoryOf } from "../testing/inventory.ts";
import { impactOf } from "./impact.ts";

const pod = (ns: string, name: string, app: string, ready: boolean, node = "n1"): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { namespace: ns, name, labels: { app } },
  spec: { nodeName: node, containers: [{ name: app, image: `${app}:1` }] },
  status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});
const service = (ns: string, name: string, type = "ClusterIP"): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { namespace: ns, name },
  spec: { type, selector: { app: name } },
});
const consumer = (ns: string, name: string, value: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { namespace: ns, name },
  spec: { replicas: 1, template: { spec: { containers: [{ name, image: "x", env: [{ name: "URL", value }] }] } } },
  status: { availableReplicas: 1 },
});
const incident = (
  root: { kind: string; namespace?: string; name: string },
  findings: Incident["findings"] = [],
  rootReason = "X",
) =>
  ({
    id: "i",
    root,
    rootReason,
    tier: "high",
    mode: "notify",
    findings,
    openedAt: 0,
    phase: "open",
    told: [],
    dedupKey: "k",
    revision: 1,
  }) as Incident;
const podFinding = (ns: string, name: string) =>
  ({
    key: `X/Pod/${ns}/${name}`,
    reason: "CrashLoopBackOff",
    object: { kind: "Pod", namespace: ns, name },
    tier: "high",
    summary: "",
    evidence: [],
    since: 0,
  }) as unknown as Incident["findings"][number];

describe("who is hurt (issue 32)", () => {
  test("a LoadBalancer, a NodePort and a Gateway route with its host names are how users reach a Service", () => {
    const inv = inventoryOf(
      pod("shop", "web-1", "web", false),
      pod("shop", "web-2", "web", true, "n2"),
      service("shop", "web", "LoadBalancer"),
      pod("shop", "api-1", "api", false),
      service("shop", "api", "NodePort"),
      pod("shop", "cart-1", "cart", false),
      service("shop", "cart"),
      {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "HTTPRoute",
        metadata: { namespace: "shop", name: "public" },
        spec: { hostnames: ["cart.example.com"], rules: [{ backendRefs: [{ name: "cart", port: 80 }] }] },
      },
    );
    const impact = impactOf(incident({ kind: "Node", name: "n1" }, [podFinding("shop", "web-1")], "NodeLost"), inv)!;
    expect(impact.entryPoints).toEqual([
      { service: "shop/web", ready: 1, total: 2, via: "a LoadBalancer", hosts: [] },
      { service: "shop/api", ready: 0, total: 1, via: "a NodePort", hosts: [] },
      { service: "shop/cart", ready: 0, total: 1, via: "httproute public", hosts: ["cart.example.com"] },
    ]);
    // A node that rebooted and is back is not down: its ready pods still serve (issue 41: "users lose it" was
    // said of a Service whose backend on the rebooted node was ready).
    const reboot = { ...podFinding("shop", "n1"), reason: "NodeRebooted", object: { kind: "Node", name: "n1" } };
    const rebooted = impactOf(
      incident({ kind: "Node", name: "n1" }, [reboot], "NodeRebooted"),
      inventoryOf(pod("shop", "web-2", "web", true, "n1"), service("shop", "web", "LoadBalancer")),
    );
    expect(rebooted).toBeUndefined();
    expect(impactLine(impact)).toStartWith(
      "Impact: service shop/web through a LoadBalancer: 1 of 2 backends ready; service shop/api through a NodePort: users lose it; service shop/cart through httproute public (cart.example.com): users lose it",
    );
  });

  test("an internal Service says so; a bare name depends only in its namespace, a qualified one anywhere", () => {
    const inv = inventoryOf(
      pod("shop", "db-1", "db", false),
      service("shop", "db"),
      consumer("shop", "orders", "postgres://db:5432/orders"),
      consumer("other", "report", "postgres://db:5432/x"),
      consumer("other", "audit", "db.shop.svc.cluster.local:5432"),
      consumer("shop", "unrelated", "dbx:5432"),
    );
    const impact = impactOf(incident({ kind: "Pod", namespace: "shop", name: "db-1" }), inv)!;
    expect(impact.internal).toEqual([{ service: "shop/db", ready: 0, total: 1 }]);
    expect([...impact.dependents].sort()).toEqual(["deployment other/audit", "deployment shop/orders"]);
    expect(impactLine(impact)).toContain("no Ingress, Gateway route, LoadBalancer or NodePort leads users to it");
  });

  test("dependents are bounded: five named, the rest counted", () => {
    const many = Array.from({ length: 12 }, (_, i) => consumer("shop", `c${i}`, "http://db:80"));
    const impact = impactOf(
      incident({ kind: "Pod", namespace: "shop", name: "db-1" }),
      inventoryOf(pod("shop", "db-1", "db", false), service("shop", "db"), ...many),
    )!;
    expect(impact.dependents).toHaveLength(5);
    expect(impact.moreDependents).toBe(7);
    expect(impactLine(impact)).toContain("and 7 more depend on it");
  });

  test("nothing hurt, nothing said: a root without workloads or Services", () => {
    expect(impactOf(incident({ kind: "Namespace", name: "empty" }), inventoryOf())).toBeUndefined();
  });
});

describe("every figure from one snapshot (issue 41, item 3)", () => {
  test("a Deployment's available replicas are counted from the same pods as its Service's backends, not from a status that lags", () => {
    const owned = (name: string, ready: boolean, extra: Partial<KubeObject["metadata"]> = {}): KubeObject => {
      const p = pod("shop", name, "web", ready);
      return {
        ...p,
        metadata: {
          ...p.metadata,
          uid: `uid-${name}`,
          ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-1", uid: "rs", controller: true }],
          ...extra,
        },
      };
    };
    const inv = inventoryOf(
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { namespace: "shop", name: "web", uid: "dep" },
        spec: { replicas: 2, template: { metadata: { labels: { app: "web" } } } },
        // The controller has not caught up: it still says both are available.
        status: { replicas: 2, availableReplicas: 2 },
      },
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          namespace: "shop",
          name: "web-1",
          uid: "rs",
          ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "dep", controller: true }],
        },
      },
      owned("web-a", true),
      owned("web-b", false),
      owned("web-old", true, { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      service("shop", "web", "LoadBalancer"),
    );
    const impact = impactOf(
      incident({ kind: "Deployment", namespace: "shop", name: "web" }, [podFinding("shop", "web-b")]),
      inv,
    )!;
    expect(impactLine(impact)).toBe(
      "Impact: service shop/web through a LoadBalancer: 1 of 2 backends ready; deployment shop/web 1/2 available.",
    );
  });
});
