import { describe, expect, test } from "bun:test";
import { inventoryOf, node, pod } from "../testing/inventory.ts";
import { annotateIps } from "./ip-owners.ts";

const svc = {
  kind: "Service",
  apiVersion: "v1",
  metadata: { namespace: "shop", name: "orders-db" },
  spec: { clusterIP: "10.96.14.7", clusterIPs: ["10.96.14.7"] },
};
const db = {
  ...pod("shop", "orders-db-0"),
  status: { phase: "Running", podIP: "10.244.1.23", podIPs: [{ ip: "10.244.1.23" }] },
};
const hostNet = {
  ...pod("kube-system", "kube-proxy-x"),
  spec: { hostNetwork: true, containers: [] },
  status: { podIP: "10.0.0.11" },
};
const worker = {
  ...node("worker-1", "True"),
  status: { conditions: [], addresses: [{ type: "InternalIP", address: "10.0.0.11" }] },
};
const inventory = inventoryOf(svc, db, hostNet, worker);
const owner = (ip: string) => inventory.ownerOfIp(ip);

describe("IP owners in evidence (spec 6.8)", () => {
  test("Service ClusterIP, Pod IP and Node InternalIP are named; unknown and public addresses stay as they are", () => {
    expect(annotateIps("dial tcp 10.96.14.7:5432: connect: connection refused", owner)).toBe(
      "dial tcp 10.96.14.7 (shop/orders-db):5432: connect: connection refused",
    );
    expect(annotateIps("upstream 10.244.1.23 reset the connection", owner)).toBe(
      "upstream 10.244.1.23 (shop/orders-db-0) reset the connection",
    );
    expect(annotateIps("kubelet on 10.0.0.11 is unreachable", owner)).toBe(
      "kubelet on 10.0.0.11 (node worker-1) is unreachable",
    );
    expect(annotateIps("no route to 10.1.2.3 nor 8.8.8.8", owner)).toBe("no route to 10.1.2.3 nor 8.8.8.8");
  });

  test("an address already followed by its owner is not annotated twice; versions are not addresses", () => {
    const once = annotateIps("10.96.14.7 down", owner);
    expect(annotateIps(once, owner)).toBe(once);
    expect(annotateIps("kubelet v1.32.13 and 1.2.3.4.5", owner)).toBe("kubelet v1.32.13 and 1.2.3.4.5");
  });

  test("without an owner lookup the text is unchanged", () => {
    expect(annotateIps("10.96.14.7", undefined)).toBe("10.96.14.7");
  });
});

describe("the Inventory's IP index", () => {
  test("follows updates and deletions", () => {
    const inv = inventoryOf(db);
    expect(inv.ownerOfIp("10.244.1.23")).toBe("shop/orders-db-0");
    inv.apply("Pod", "MODIFIED", { ...db, status: { podIP: "10.244.9.9" } });
    expect([inv.ownerOfIp("10.244.1.23"), inv.ownerOfIp("10.244.9.9")]).toEqual([undefined, "shop/orders-db-0"]);
    inv.apply("Pod", "DELETED", { ...db, status: { podIP: "10.244.9.9" } });
    expect(inv.ownerOfIp("10.244.9.9")).toBeUndefined();
  });
});
