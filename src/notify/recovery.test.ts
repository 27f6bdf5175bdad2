import { describe, expect, test } from "bun:test";
import { inventoryOf } from "../testing/inventory.ts";
import { recoveryOf } from "./recovery.ts";

const deployment = (name: string, available: number) => ({
  kind: "Deployment",
  metadata: { namespace: "shop", name },
  spec: { replicas: 2 },
  status: { availableReplicas: available },
});

describe("a resolve says what changed", () => {
  test("a shared root outside the cluster (an endpoint) reports the workloads that failed on it", () => {
    const inventory = inventoryOf(deployment("checkout", 2));
    const root = { kind: "Endpoint", name: "orders-db.shop:5432" };
    expect(recoveryOf(root, inventory, [{ kind: "Deployment", namespace: "shop", name: "checkout" }])).toBe(
      "deployment shop/checkout 2/2 replicas available",
    );
    expect(recoveryOf(root, inventory)).toBeUndefined();
  });

  test("a Service whose pods are still starting has nothing to report, not '0 ready endpoints'", () => {
    const svc = { kind: "Service", metadata: { namespace: "shop", name: "web" }, spec: { selector: { app: "web" } } };
    const slice = (ready: boolean) => ({
      kind: "EndpointSlice",
      metadata: { namespace: "shop", name: "web-x", labels: { "kubernetes.io/service-name": "web" } },
      endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready } }],
    });
    const root = { kind: "Service", namespace: "shop", name: "web" };
    expect(recoveryOf(root, inventoryOf(svc, slice(false)))).toBeUndefined();
    expect(recoveryOf(root, inventoryOf(svc, slice(true)))).toBe("1 ready endpoint");
  });
});
