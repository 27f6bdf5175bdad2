import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { KubeObject } from "../model/inventory.ts";
import { SHAPES } from "../model/shapes.ts";
import { Inventory } from "./inventory.ts";
import { LAST_APPLIED, project } from "./project.ts";

const pod = (): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "web-1",
    namespace: "shop",
    uid: "u1",
    resourceVersion: "7",
    labels: { app: "web" },
    annotations: { team: "shop", [LAST_APPLIED]: JSON.stringify({ big: "x".repeat(5_000) }) },
    selfLink: "/api/v1/namespaces/shop/pods/web-1",
  },
  spec: {
    nodeName: "worker-1",
    containers: [{ name: "web", image: "web:1" }],
    tolerations: [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" }],
    securityContext: { runAsNonRoot: true },
    dnsPolicy: "ClusterFirst",
  },
  status: { phase: "Running", podIP: "10.0.0.7", qosClass: "BestEffort" },
});

describe("the declared projection at the Inventory's door (issue 42)", () => {
  test("a Pod keeps what mon reads and loses what it does not", () => {
    const kept = project("Pod", pod());
    expect(kept).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "web-1",
        namespace: "shop",
        uid: "u1",
        resourceVersion: "7",
        labels: { app: "web" },
        annotations: { team: "shop" },
      },
      spec: { nodeName: "worker-1", containers: [{ name: "web", image: "web:1" }] },
      status: { phase: "Running", podIP: "10.0.0.7" },
    });
  });

  test("the Inventory serves the projected object, and its indexes still find the pod by node and IP", () => {
    const inventory = new Inventory();
    inventory.apply("Pod", "ADDED", pod());
    const kept = inventory.get("Pod", "shop", "web-1") as KubeObject;
    expect(kept.spec.tolerations).toBeUndefined();
    expect(kept.metadata.annotations[LAST_APPLIED]).toBeUndefined();
    expect(inventory.podsOnNode("worker-1").map((p) => p.metadata.name)).toEqual(["web-1"]);
    expect(inventory.ownerOfIp("10.0.0.7")).toBe("shop/web-1");
  });

  test("a field held in another shape than declared is dropped, not kept as it came", () => {
    const odd = { ...pod(), spec: "not an object", status: { phase: "Running", conditions: { type: "Ready" } } };
    const kept = project("Pod", odd);
    expect(kept.spec).toBeUndefined();
    expect(kept.status.conditions).toBeDefined(); // kept whole by the shape, cleaned by the door (kube/admit.ts)
    const inventory = new Inventory();
    inventory.apply("Pod", "ADDED", odd);
    expect((inventory.get("Pod", "shop", "web-1") as KubeObject).status.conditions).toBeUndefined();
  });

  test("a kind without a declared shape (a custom resource) is kept as served", () => {
    const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 3 } };
    expect(project("Widget", widget)).toBe(widget);
  });

  test("property: for every declared kind and any object, the projection only removes, and projecting twice changes nothing", () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const object = fc.record({
      apiVersion: fc.string(),
      metadata: fc.record({ name: fc.string({ minLength: 1 }), annotations: fc.dictionary(fc.string(), fc.string()) }),
      spec: fc.oneof(json, fc.dictionary(fc.constantFrom("nodeName", "containers", "template", "replicas", "x"), json)),
      status: fc.oneof(json, fc.dictionary(fc.constantFrom("phase", "conditions", "podIP", "y"), json)),
      extra: json,
    });
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(SHAPES)), object, (kind, raw) => {
        const once = project(kind, raw);
        expect(project(kind, structuredClone(once))).toEqual(once);
        expect(within(once, raw)).toBe(true);
        expect(once.metadata.name).toBe(raw.metadata.name);
      }),
      { numRuns: 300 },
    );
  });
});

/** Whether every value `kept` holds is one `whole` holds at the same path (a list's kept items in their order). */
function within(kept: unknown, whole: unknown): boolean {
  if (kept === whole) return true;
  if (Array.isArray(kept)) {
    if (!Array.isArray(whole)) return false;
    let at = 0;
    return kept.every((v) => {
      while (at < whole.length && !within(v, whole[at])) at++;
      return at++ < whole.length;
    });
  }
  if (typeof kept !== "object" || kept === null || typeof whole !== "object" || whole === null) return false;
  return Object.entries(kept).every(([k, v]) => within(v, (whole as Record<string, unknown>)[k]));
}
