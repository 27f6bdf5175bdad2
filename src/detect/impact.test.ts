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
const incident = (root: { kind: string; namespace?: string; name: string }, findings: Incident["findings"] = []) =>
  ({
    id: "i",
    root,
    rootReason: "X",
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
    const impact = impactOf(incident({ kind: "Node", name: "n1" }, [podFinding("shop", "web-1")]), inv)!;
    expect(impact.entryPoints).toEqual([
      { service: "shop/web", ready: 1, total: 2, via: "a LoadBalancer", hosts: [] },
      { service: "shop/api", ready: 0, total: 1, via: "a NodePort", hosts: [] },
      { service: "shop/cart", ready: 0, total: 1, via: "httproute public", hosts: ["cart.example.com"] },
    ]);
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
