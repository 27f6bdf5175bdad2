import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import { inventoryOf, pod, workload } from "../testing/inventory.ts";
import { opensAtWithGrace } from "./grace.ts";

const T = Date.parse("2026-06-01T12:00:00Z");
const MIN = 60_000;
const node = (name: string, created: number) => ({
  kind: "Node",
  apiVersion: "v1",
  metadata: { name, creationTimestamp: new Date(created).toISOString() },
});
const inventory = inventoryOf(node("fresh", T - 3 * MIN), node("old", T - 86_400_000));
const f = (nodeName: string | undefined, opensAt?: number): Finding => ({
  key: "k",
  reason: "CrashLoopBackOff",
  object: { kind: "Pod", namespace: "shop", name: "api-1" },
  tier: "medium",
  summary: "crash",
  evidence: [],
  since: T,
  ...(nodeName ? { nodeName } : {}),
  ...(opensAt !== undefined ? { opensAt } : {}),
});

describe("young-node grace (spec 1.8)", () => {
  test("a pod failing on a node younger than 10 minutes opens 5 minutes later than its hold says", () => {
    expect(opensAtWithGrace(f("fresh", T + 3 * MIN), inventory)).toBe(T + 8 * MIN);
    expect(opensAtWithGrace(f("fresh"), inventory)).toBe(T + 5 * MIN);
    // The grace extends the finding's own hold even once that hold has passed (it is added, not put in its place).
    expect(opensAtWithGrace({ ...f("fresh"), holdMs: 3 * MIN }, inventory)).toBe(T + 8 * MIN);
  });

  test("a workload whose pods run on a young node gets the grace too (spec 1.8: they, or their workload)", () => {
    const api = workload("shop", "api");
    const inv = inventoryOf(node("fresh", T - 3 * MIN), api.deployment, api.replicaSet, {
      ...pod("shop", "api-1", { owner: api.replicaSet, nodeName: "fresh" }),
    });
    const unavailable: Finding = {
      ...f(undefined),
      reason: "WorkloadUnavailable",
      object: { kind: "Deployment", namespace: "shop", name: "api" },
      holdMs: 2 * MIN,
    };
    expect(opensAtWithGrace(unavailable, inv)).toBe(T + 7 * MIN);
  });

  test("an older node, an unknown node, or a finding not on a pod keeps its own hold", () => {
    expect(opensAtWithGrace(f("old", T + 3 * MIN), inventory)).toBe(T + 3 * MIN);
    expect(opensAtWithGrace(f("gone"), inventory)).toBeUndefined();
    expect(opensAtWithGrace({ ...f("fresh"), object: { kind: "Node", name: "fresh" } }, inventory)).toBeUndefined();
  });

  test("no grace for the pods of a young node that is failing itself: they join the node's incident at once", () => {
    expect(opensAtWithGrace(f("fresh"), inventory, new Set(["fresh"]))).toBeUndefined();
  });
});
