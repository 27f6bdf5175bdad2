import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import { inventoryOf } from "../testing/inventory.ts";
import {
  foldSharedEndpoints,
  isServiceEndpoint,
  serviceBackends,
  serviceEndpoint,
  unreachableEndpoint,
} from "./endpoints.ts";

const crash = (pod: string, output: string): Finding => ({
  key: `CrashLoopBackOff/Pod/shop/${pod}`,
  reason: "CrashLoopBackOff",
  object: { kind: "Pod", namespace: "shop", name: pod },
  tier: "medium",
  summary: `container of ${pod} is crash-looping`,
  evidence: [{ label: "last output", value: output }],
  since: 0,
});
const draft = (name: string, f: Finding): IncidentDraft => ({
  root: { kind: "Deployment", namespace: "shop", name },
  rootReason: f.reason,
  findings: [f],
});

describe("unreachable endpoints (spec 1.3)", () => {
  test.each([
    ["Go", "dial tcp 10.96.14.7:5432: connect: connection refused", "10.96.14.7:5432"],
    ["Go timeout", "dial tcp orders-db.shop.svc:5432: i/o timeout", "orders-db.shop.svc:5432"],
    ["Node.js", "Error: connect ECONNREFUSED 10.96.14.7:5432", "10.96.14.7:5432"],
    [
      "libpq",
      'connection to server at "orders-db.shop" (10.96.14.7), port 5432 failed: Connection refused',
      "orders-db.shop:5432",
    ],
    ["Java", "java.net.ConnectException: Orders-DB.shop:5432 Connection refused", "orders-db.shop:5432"],
  ])("%s: %s", (_, output, endpoint) => {
    expect(unreachableEndpoint(crash("a-1", output))).toBe(endpoint);
  });

  test("ordinary errors name no endpoint", () => {
    expect(unreachableEndpoint(crash("a-1", "panic: nil pointer dereference"))).toBeUndefined();
    expect(unreachableEndpoint(crash("a-1", "listening on 0.0.0.0:8080"))).toBeUndefined();
  });

  test("workloads failing on the same endpoint become one incident naming host:port; others keep their root", () => {
    const out = foldSharedEndpoints([
      draft("cart", crash("cart-1", "dial tcp 10.96.14.7:5432: connect: connection refused")),
      draft("checkout", crash("checkout-1", "Error: connect ECONNREFUSED 10.96.14.7:5432")),
      draft("search", crash("search-1", "panic: index corrupt")),
      draft("orders", crash("orders-1", "dial tcp 10.96.14.7:5432: connect: connection refused")),
      {
        ...draft("billing", crash("billing-1", "dial tcp 10.96.14.7:5432: connect: connection refused")),
        root: { kind: "Node", name: "n1" },
      },
    ]);
    expect(out.map((d) => [d.root.kind, d.root.name, d.findings.length])).toEqual([
      ["Endpoint", "10.96.14.7:5432", 3],
      ["Deployment", "search", 1],
      ["Node", "n1", 1],
    ]);
    expect(out[0]).toMatchObject({
      rootReason: "DependencyUnreachable",
      affected: [{ name: "cart" }, { name: "checkout" }, { name: "orders" }],
    });
  });

  test("one workload alone keeps its own root", () => {
    const only = draft("cart", crash("cart-1", "dial tcp 10.96.14.7:5432: connect: connection refused"));
    expect(foldSharedEndpoints([only])).toEqual([only]);
  });

  test("a Service's ClusterIP and its DNS names are one endpoint; other hosts stay as written", () => {
    const inventory = inventoryOf({
      kind: "Service",
      apiVersion: "v1",
      metadata: { namespace: "shop", name: "orders-db" },
      spec: { clusterIP: "10.96.14.7", ports: [{ port: 5432 }] },
    });
    for (const written of [
      "10.96.14.7:5432",
      "orders-db.shop:5432",
      "orders-db.shop.svc:5432",
      "orders-db.shop.svc.cluster.local:5432",
    ]) {
      expect(serviceEndpoint(written, inventory)).toBe("orders-db.shop:5432");
    }
    expect(serviceEndpoint("db.example.com:5432", inventory)).toBe("db.example.com:5432");
    expect(serviceEndpoint("10.0.0.9:5432", inventory)).toBe("10.0.0.9:5432");
    const out = foldSharedEndpoints(
      [
        draft("cart", crash("cart-1", "dial tcp 10.96.14.7:5432: connect: connection refused")),
        draft(
          "checkout",
          crash(
            "checkout-1",
            'connection to server at "orders-db.shop.svc.cluster.local" (10.96.14.7), port 5432 failed',
          ),
        ),
      ],
      (e) => serviceEndpoint(e, inventory),
    );
    expect(out.map((d) => d.root.name)).toEqual(["orders-db.shop:5432"]);
  });
});

describe("a dependency named in a crash's output becomes the root when it is failing (rule 4)", () => {
  const inventory = inventoryOf({
    kind: "Service",
    apiVersion: "v1",
    metadata: { namespace: "shop", name: "orders-db" },
    spec: { clusterIP: "10.96.14.7", ports: [{ port: 5432 }] },
  });
  const canonical = (e: string) => serviceEndpoint(e, inventory);
  const inCluster = (e: string) => isServiceEndpoint(e, inventory);

  test("one workload refused by an in-cluster Service: the Service's endpoint is the root, the workload is folded in", () => {
    const checkout = draft("checkout", crash("checkout-1", "dial tcp 10.96.14.7:5432: connect: connection refused"));
    const [merged] = foldSharedEndpoints([checkout], canonical, () => false, inCluster);
    expect(merged).toMatchObject({
      root: { kind: "Endpoint", name: "orders-db.shop:5432" },
      rootReason: "DependencyUnreachable",
    });
  });

  test("one workload refused by a host outside the cluster keeps its own root (it may be its own mistake)", () => {
    const one = draft("checkout", crash("checkout-1", "dial tcp db.example.com:5432: connect: connection refused"));
    expect(foldSharedEndpoints([one], canonical, () => false, inCluster)[0]!.root).toMatchObject({
      kind: "Deployment",
      name: "checkout",
    });
  });
});

describe("a pod's IP is the Service that selects it (issue 50: a headless Service resolves to its pods)", () => {
  const postgresPod = (ip: string, labels: Record<string, string>) => ({
    kind: "Pod",
    apiVersion: "v1",
    metadata: { namespace: "shop", name: "postgres-0", labels },
    spec: { nodeName: "n1", containers: [{ name: "postgres", image: "postgres:16" }] },
    status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
  });
  const headless = (name: string, selector: Record<string, string>) => ({
    kind: "Service",
    apiVersion: "v1",
    metadata: { namespace: "shop", name },
    spec: { clusterIP: "None", selector, ports: [{ port: 5432 }] },
  });

  test("whatever the addresses and names, a selected pod's IP becomes its Service; an unselected one stays as written", () => {
    fc.assert(
      fc.property(
        fc.ipV4(),
        fc.constantFrom("postgres", "db", "a-database"),
        fc.boolean(),
        fc.integer({ min: 1, max: 65535 }),
        (ip, service, selected, port) => {
          const inventory = inventoryOf(
            postgresPod(ip, { app: "postgres" }),
            headless(service, selected ? { app: "postgres" } : { app: "other" }),
          );
          expect(serviceEndpoint(`${ip}:${port}`, inventory)).toBe(
            selected ? `${service}.shop:${port}` : `${ip}:${port}`,
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  test("workloads refused at the IP of a crash-looping StatefulSet's pod join the StatefulSet's incident", () => {
    const sts = {
      kind: "StatefulSet",
      apiVersion: "apps/v1",
      metadata: { namespace: "shop", name: "postgres", uid: "sts" },
    };
    const pod = {
      ...postgresPod("10.244.91.12", { app: "postgres" }),
      metadata: {
        namespace: "shop",
        name: "postgres-0",
        labels: { app: "postgres" },
        ownerReferences: [{ kind: "StatefulSet", name: "postgres", uid: "sts", controller: true }],
      },
    };
    const inventory = inventoryOf(sts, pod, headless("postgres", { app: "postgres" }));
    const backendDraft: IncidentDraft = {
      root: { kind: "StatefulSet", namespace: "shop", name: "postgres" },
      rootReason: "CrashLoopBackOff",
      findings: [crash("postgres-0", "PANIC:  could not locate a valid checkpoint record")],
    };
    const refused = (app: string) =>
      draft(app, crash(`${app}-1`, "Error: dial tcp 10.244.91.12:5432: connect: connection refused"));
    const out = foldSharedEndpoints(
      [backendDraft, refused("checkout"), refused("cart")],
      (e) => serviceEndpoint(e, inventory),
      () => false,
      (e) => isServiceEndpoint(e, inventory),
      (e) => serviceBackends(e, inventory),
    );
    expect(out.map((d) => `${d.root.kind}/${d.root.name}`)).toEqual(["StatefulSet/postgres"]);
    expect(out[0]!.affected?.map((a) => a.name).sort()).toEqual(["cart", "checkout"]);
  });
});
