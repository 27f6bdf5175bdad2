import { describe, expect, test } from "bun:test";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import type { InventoryChange, KubeObject } from "../model/inventory.ts";
import { recordedObjects } from "../testing/recorded-objects.ts";
import { Inventory } from "./inventory.ts";
import { sameKept } from "./same.ts";

const RECORDED = recordedObjects();

/** Every path to a leaf (string, number, boolean, null) of a JSON value. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== "object") return [path];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([k, v]) => leaves(v, [...path, k]));
}

/** A path that leaves the object's key (namespace/name) as it is: another key is another object. */
const sameKey = (path: (string | number)[]) =>
  !(path[0] === "metadata" && (path[1] === "name" || path[1] === "namespace") && path.length === 2);

function changed(object: KubeObject, path: (string | number)[], rv: string): KubeObject {
  const copy = structuredClone(object);
  let at = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  const v = at[last];
  at[last] = typeof v === "number" ? v + 1 : typeof v === "boolean" ? !v : typeof v === "string" ? `${v}x` : "x";
  copy.metadata.resourceVersion = rv;
  return copy;
}

/** The oracle: what mon keeps of a version, without its resourceVersion and its subresource writers' times. */
function kept(object: KubeObject): unknown {
  const copy = structuredClone(object);
  delete copy.metadata.resourceVersion;
  for (const entry of copy.metadata.managedFields ?? []) if (entry.subresource) delete entry.time;
  return copy;
}

describe("a version that changed nothing mon keeps costs nothing (issue 42, item 2)", () => {
  test("recorded objects exist to draw from", () => {
    expect(RECORDED.length).toBeGreaterThan(50);
  });

  test("any field of any recorded object changed: the Inventory keeps the same object and tells no one exactly when nothing kept changed, and always holds the newest resourceVersion", () => {
    const cases = fc
      .constantFrom(...RECORDED)
      .chain((object) => fc.tuple(fc.constant(object), fc.constantFrom(...leaves(object).filter(sameKey))));
    let quiet = 0;
    let told = 0;
    fc.assert(
      fc.property(cases, ([object, path]) => {
        const kind = String(object.kind);
        const first = { ...structuredClone(object), metadata: { ...object.metadata, resourceVersion: "100" } };
        const inventory = new Inventory();
        inventory.apply(kind, "ADDED", structuredClone(first));
        const before = inventory.get(kind, object.metadata.namespace, object.metadata.name) as KubeObject;
        const snapshot = structuredClone(before);
        const changes: InventoryChange[] = [];
        inventory.subscribe((c) => changes.push(c));
        inventory.apply(kind, "MODIFIED", changed(first, path, "101"));
        const after = inventory.get(kind, object.metadata.namespace, object.metadata.name) as KubeObject;
        expect(after.metadata.resourceVersion).toBe("101");
        const nothingKept = isDeepStrictEqual(kept(snapshot), kept(after));
        if (nothingKept) {
          quiet++;
          expect(after).toBe(before);
          expect(changes).toEqual([]);
        } else {
          told++;
          expect(after).not.toBe(before);
          expect(changes.length).toBe(1);
        }
        // The same version again (a relist) is never a change.
        inventory.apply(kind, "MODIFIED", changed(first, path, "101"));
        expect(changes.length).toBe(nothingKept ? 0 : 1);
      }),
      { numRuns: 400 },
    );
    // Both sides of the rule were drawn: the property is not about one of them only.
    expect(quiet).toBeGreaterThan(20);
    expect(told).toBeGreaterThan(20);
  });

  test("sameKept agrees with the oracle on any two projected versions of one object", () => {
    fc.assert(
      fc.property(fc.constantFrom(...RECORDED), fc.jsonValue({ maxDepth: 2 }), fc.boolean(), (object, value, top) => {
        const inventory = new Inventory();
        const kind = String(object.kind);
        inventory.apply(kind, "ADDED", structuredClone(object));
        const a = structuredClone(inventory.get(kind, object.metadata.namespace, object.metadata.name) as KubeObject);
        const b = structuredClone(a);
        // Any value in place of the status, or a new label.
        if (top) b.status = value;
        else b.metadata.labels = { ...b.metadata.labels, drawn: JSON.stringify(value) };
        b.metadata.resourceVersion = "other";
        expect(sameKept(a, b)).toBe(isDeepStrictEqual(kept(a), kept(b)));
      }),
      { numRuns: 300 },
    );
  });

  test("a kubelet status write of fields mon does not keep: the same pod, its newer resourceVersion; a restart is a change", () => {
    const inventory = new Inventory();
    const pod = (rv: string, time: string, containerID: string, restartCount: number): KubeObject => ({
      kind: "Pod",
      apiVersion: "v1",
      metadata: {
        namespace: "shop",
        name: "api",
        uid: "u1",
        resourceVersion: rv,
        managedFields: [
          { manager: "kubelet", operation: "Update", subresource: "status", time },
          { manager: "kube-controller-manager", operation: "Update", time: "2026-11-01T00:00:00Z" },
        ],
      },
      spec: { nodeName: "n1", containers: [{ name: "api", image: "api:1" }] },
      status: {
        qosClass: "BestEffort",
        podIP: "10.0.0.1",
        containerStatuses: [{ name: "api", containerID, restartCount, ready: true }],
      },
    });
    inventory.apply("Pod", "ADDED", pod("1", "2026-11-29T10:00:00Z", "containerd://a", 0));
    const first = inventory.get("Pod", "shop", "api");
    const told: string[] = [];
    inventory.subscribe((c) => told.push(String(c.next?.metadata.resourceVersion)));
    inventory.apply("Pod", "MODIFIED", pod("2", "2026-11-29T10:05:00Z", "containerd://b", 0));
    expect(inventory.get("Pod", "shop", "api")).toBe(first);
    expect(first?.metadata.resourceVersion).toBe("2");
    // A Pod's writers are its controller and its kubelet: what-changed never reads them, so none are kept.
    expect(Object.keys(first?.metadata ?? {})).not.toContain("managedFields");
    expect(told).toEqual([]);
    inventory.apply("Pod", "MODIFIED", pod("3", "2026-11-29T10:06:00Z", "containerd://c", 1));
    expect(inventory.get("Pod", "shop", "api")?.status?.containerStatuses?.[0]?.restartCount).toBe(1);
    expect(told).toEqual(["3"]);
  });
  test("a status write that changes nothing kept of a Deployment: the same object, with its newer writer time", () => {
    const inventory = new Inventory();
    const deployment = (rv: string, time: string): KubeObject => ({
      kind: "Deployment",
      apiVersion: "apps/v1",
      metadata: {
        namespace: "shop",
        name: "api",
        uid: "d1",
        resourceVersion: rv,
        managedFields: [
          { manager: "kube-controller-manager", operation: "Update", subresource: "status", time },
          { manager: "kubectl-client-side-apply", operation: "Update", time: "2026-11-01T00:00:00Z" },
        ],
      },
      spec: { replicas: 2 },
      status: { replicas: 2, readyReplicas: 2 },
    });
    inventory.apply("Deployment", "ADDED", deployment("1", "2026-11-29T10:00:00Z"));
    const first = inventory.get("Deployment", "shop", "api");
    const told: string[] = [];
    inventory.subscribe((c) => told.push(String(c.next?.metadata.resourceVersion)));
    inventory.apply("Deployment", "MODIFIED", deployment("2", "2026-11-29T10:05:00Z"));
    expect(inventory.get("Deployment", "shop", "api")).toBe(first);
    expect(first?.metadata.resourceVersion).toBe("2");
    expect(first?.metadata.managedFields?.[0]?.time).toBe("2026-11-29T10:05:00Z");
    expect(told).toEqual([]);
  });
});
