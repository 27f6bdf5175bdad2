import { describe, expect, test } from "bun:test";
import { Inventory } from "../kube/inventory.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import { detectIsolated, type Quarantine } from "./isolate.ts";

const pod = (name: string, rv = "1") => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    namespace: "shop",
    name,
    uid: `u-${name}`,
    resourceVersion: rv,
    labels: { poison: String(name === "bad") },
  },
  spec: { containers: [{ name: "app" }] },
  status: {},
});

/** A detector with a bug: it throws on any pod labelled poison=true, else finds every pod. */
const buggy = (inventory: InventoryView): Finding[] =>
  inventory.list("Pod").map((p) => {
    if (p.metadata.labels?.poison === "true") throw new Error(`cannot read ${p.metadata.name}`);
    return { key: p.metadata.name } as unknown as Finding;
  });

describe("per-object isolation of detectors (issue 19)", () => {
  test("one object a detector throws on is set aside; every other object is still detected", () => {
    const inventory = new Inventory();
    for (let i = 0; i < 100; i++) inventory.apply("Pod", "ADDED", pod(`p${i}`));
    inventory.apply("Pod", "ADDED", pod("bad"));
    const quarantine: Quarantine = new Map();
    const first = detectIsolated("pods", buggy, inventory, 0, {}, quarantine);
    expect(first.failed).toBeUndefined();
    expect(first.findings).toHaveLength(100);
    expect(first.added).toEqual([
      { object: "Pod/shop/bad", resourceVersion: "1", detector: "pods", error: "cannot read bad" },
    ]);
    // The next pass skips it without searching again.
    const second = detectIsolated("pods", buggy, inventory, 0, {}, quarantine);
    expect(second.findings).toHaveLength(100);
    expect(second.added).toEqual([]);
    // Changed, it is tried again (and set aside again while it still breaks the detector).
    inventory.apply("Pod", "MODIFIED", pod("bad", "2"));
    const third = detectIsolated("pods", buggy, inventory, 0, {}, quarantine);
    expect(third.added.map((q) => q.resourceVersion)).toEqual(["2"]);
  });

  test("a detector that fails whatever it is shown fails as a family", () => {
    const inventory = new Inventory();
    inventory.apply("Pod", "ADDED", pod("p0"));
    const broken = () => {
      throw new Error("always");
    };
    expect(detectIsolated("pods", broken, inventory, 0, {}, new Map())).toMatchObject({
      findings: [],
      failed: "always",
    });
  });
});
