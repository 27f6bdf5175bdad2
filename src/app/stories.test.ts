import { describe, expect, test } from "bun:test";
import { emptyLifecycle, type LifecycleState } from "../incident/lifecycle.ts";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf, node, pod, workload } from "../testing/inventory.ts";
import { prepareRules } from "../incident/suppress.ts";
import { runPass } from "./pipeline.ts";

/**
 * Cluster stories replayed through the pure core (detect → correlate → lifecycle → render) with injected
 * time: each step is the cluster as it is at that moment, and the assertion is the exact message titles.
 */
const NOW = Date.parse("2026-01-01T01:00:00Z");
const crashing = (output: string) => ({ restartCount: 5, state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s" } }, lastState: { terminated: { exitCode: 1, reason: "Error", message: output, finishedAt: "2026-01-01T00:59:00Z" } } });

function replay(steps: readonly [number, KubeObject[]][]): string[][] {
  let state: LifecycleState = emptyLifecycle();
  return steps.map(([at, objects]) => {
    const result = runPass(inventoryOf(...objects), state, at, "prod", {}, undefined, prepareRules({ silences: [] }));
    state = result.state;
    return result.messages.map((m) => m.message.title);
  });
}

describe("stories through the pure core (issue: one incident per root cause)", () => {
  test("a node lost with 30 pods of 3 Deployments: one announcement, one resolve", () => {
    const apps = ["api", "web", "cart"].map((n) => workload("shop", n));
    const pods = apps.flatMap((a, i) => Array.from({ length: 10 }, (_, j) => pod("shop", `${["api", "web", "cart"][i]}-${j}`, { nodeName: "n1", owner: a.replicaSet })));
    const world = (ready: "True" | "Unknown") => [node("n1", ready, "2026-01-01T00:30:00Z"), node("n2", "True"), ...apps.flatMap((a) => [a.deployment, a.replicaSet]), ...pods];
    expect(replay([[NOW, world("Unknown")], [NOW + 60_000, world("Unknown")], [NOW + 600_000, world("True")]])).toEqual([
      ["node n1: unreachable, 30 pods on it down"],
      [],
      ["Resolved: node n1"],
    ]);
  });

  test("a database refusing connections for 4 workloads: one incident naming host:port", () => {
    const names = ["api", "web", "cart", "search"];
    const apps = names.map((n) => workload("shop", n));
    const objects = [node("n1", "True"), ...apps.flatMap((a) => [a.deployment, a.replicaSet]), ...names.map((n, i) => pod("shop", `${n}-1`, { nodeName: "n1", owner: apps[i]!.replicaSet, status: crashing("dial tcp 10.96.14.7:5432: connect: connection refused") }))];
    // Four of four workloads at once would be a namespace outage; these four live among eight.
    const quiet = ["a", "b", "c", "d"].map((n) => workload("shop", n).deployment);
    expect(replay([[NOW, [...objects, ...quiet]]])).toEqual([["endpoint 10.96.14.7:5432: unreachable, 4 workloads failing on it (deployment shop/api, deployment shop/cart, deployment shop/search, …)"]]);
  });

  test("a Secret deleted under 3 Deployments: one incident naming the Secret", () => {
    const names = ["api", "web", "cart"];
    const apps = names.map((n) => workload("shop", n));
    const needsSecret = (p: KubeObject) => ({ ...p, spec: { ...p.spec, containers: [{ name: "app", image: "x:1", envFrom: [{ secretRef: { name: "db-creds" } }] }] } });
    const pods = names.map((n, i) => needsSecret(pod("shop", `${n}-1`, { nodeName: "n1", owner: apps[i]!.replicaSet, phase: "Pending", status: { state: { waiting: { reason: "CreateContainerConfigError", message: 'secret "db-creds" not found' } } } })));
    const quiet = ["a", "b", "c", "d"].map((n) => workload("shop", n).deployment);
    expect(replay([[NOW, [node("n1", "True"), ...apps.flatMap((a) => [a.deployment, a.replicaSet]), ...pods, ...quiet]]])).toEqual([["secret shop/db-creds: SecretMissing, 3 pods affected"]]);
  });

  test("a rolling update (a new pod still pulling its image, the old one terminating gracefully): no message", () => {
    const api = workload("shop", "api");
    const pulling = pod("shop", "api-new", { nodeName: "n1", owner: api.replicaSet, phase: "Pending", status: { state: { waiting: { reason: "ContainerCreating" } } } });
    const old = { ...pod("shop", "api-old", { nodeName: "n1", owner: api.replicaSet }), metadata: { ...pod("shop", "api-old").metadata, deletionTimestamp: "2026-01-01T00:59:50Z", deletionGracePeriodSeconds: 30 } };
    expect(replay([[NOW, [node("n1", "True"), api.deployment, api.replicaSet, pulling, old]]])).toEqual([[]]);
  });

  test("restart with a problem already open: the baseline pass tells it in the startup summary, its resolve follows on its own", () => {
    const api = workload("shop", "api");
    const world = [node("n1", "True"), api.deployment, api.replicaSet, pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet, status: crashing("panic: boom") })];
    let state: LifecycleState = emptyLifecycle();
    const first = runPass(inventoryOf(...world), state, NOW, "prod", {}, undefined, prepareRules({ silences: [] }), { baseline: true });
    state = first.state;
    expect(first.messages.map((m) => m.message.title)).toEqual(["Startup summary: 1 problem already open"]);
    const later = runPass(inventoryOf(...world.slice(0, 3)), state, NOW + 60_000, "prod", {}, undefined, prepareRules({ silences: [] }));
    expect(later.messages.map((m) => m.message.title)).toEqual(["Resolved: deployment shop/api"]);
  });
});
