import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Inventory } from "./inventory.ts";

const KINDS = ["Pod", "Service", "Node"] as const;
const NAMESPACES = ["shop", "kube-system", "web"] as const;

/** One informer event on a small space of keys, so that sequences add, change and delete the same objects. */
const event = fc.record({
  kind: fc.constantFrom(...KINDS),
  namespace: fc.constantFrom(...NAMESPACES),
  name: fc.constantFrom("a", "b", "c", "d"),
  type: fc.constantFrom("ADDED" as const, "MODIFIED" as const, "DELETED" as const),
  node: fc.constantFrom("node-1", "node-2"),
  read: fc.boolean(),
});

function objectOf(e: Event) {
  return {
    kind: e.kind,
    metadata: {
      name: e.name,
      ...(e.kind === "Node" ? {} : { namespace: e.namespace }),
      uid: `${e.kind}-${e.namespace}-${e.name}`,
    },
    spec: e.kind === "Pod" ? { nodeName: e.node } : {},
  };
}

type Event = typeof event extends fc.Arbitrary<infer T> ? T : never;

describe("Inventory lists", () => {
  test("listIn(kind, namespace) is always list(kind) of that namespace, in order, whatever the sequence of events and reads", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        const inventory = new Inventory();
        for (const e of events) {
          inventory.apply(e.kind, e.type, objectOf(e));
          // Reads between changes fill the caches that a later change must drop.
          if (!e.read) continue;
          for (const kind of KINDS)
            for (const namespace of [...NAMESPACES, ""]) {
              const expected = inventory.list(kind).filter((o) => (o.metadata.namespace ?? "") === namespace);
              expect(inventory.listIn(kind, namespace)).toEqual(expected);
            }
        }
        for (const kind of KINDS) {
          const all = inventory.list(kind);
          const byNamespace = [...NAMESPACES, ""].flatMap((ns) => inventory.listIn(kind, ns));
          expect(byNamespace.length).toBe(all.length);
          expect(new Set(byNamespace)).toEqual(new Set(all));
        }
      }),
      { numRuns: 300 },
    );
  });

  test("a kind listed twice without a change is one array, and a change of the kind gives a new one", () => {
    const inventory = new Inventory();
    inventory.apply("Pod", "ADDED", { metadata: { name: "a", namespace: "shop" } });
    const first = inventory.list("Pod");
    const inShop = inventory.listIn("Pod", "shop");
    expect(inventory.list("Pod")).toBe(first);
    expect(inventory.listIn("Pod", "shop")).toBe(inShop);
    inventory.apply("Service", "ADDED", { metadata: { name: "s", namespace: "shop" } });
    expect(inventory.listIn("Pod", "shop")).toBe(inShop);
    inventory.apply("Pod", "ADDED", { metadata: { name: "b", namespace: "shop" } });
    expect(inventory.listIn("Pod", "shop").map((p) => p.metadata.name)).toEqual(["a", "b"]);
    expect(inventory.list("Pod")).not.toBe(first);
  });
});

describe("the version already kept costs nothing (issue 42)", () => {
  test("a relist's same uid and resourceVersion keeps the object, touches no index and tells no listener; a new version does", () => {
    const inventory = new Inventory();
    const pod = (rv: string, node: string, ip: string) => ({
      kind: "Pod",
      apiVersion: "v1",
      metadata: { namespace: "shop", name: "api", uid: "u1", resourceVersion: rv },
      spec: { nodeName: node },
      status: { podIP: ip },
    });
    inventory.apply("Pod", "ADDED", pod("1", "n1", "10.0.0.1"));
    const kept = inventory.get("Pod", "shop", "api");
    const told: string[] = [];
    inventory.subscribe((change) => told.push(String(change.next?.metadata.resourceVersion)));
    // The same version again, even as delivered with other bytes: nothing changes.
    inventory.apply("Pod", "MODIFIED", pod("1", "n2", "10.0.0.2"));
    expect(inventory.get("Pod", "shop", "api")).toBe(kept);
    expect(inventory.podsOnNode("n1").map((p) => p.metadata.name)).toEqual(["api"]);
    expect(told).toEqual([]);
    inventory.apply("Pod", "MODIFIED", pod("2", "n2", "10.0.0.2"));
    expect(inventory.get("Pod", "shop", "api")?.spec?.nodeName).toBe("n2");
    expect(inventory.podsOnNode("n1")).toEqual([]);
    expect(told).toEqual(["2"]);
  });
});
