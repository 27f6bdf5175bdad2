import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Inventory } from "../kube/inventory.ts";
import type { KubeObject } from "../model/inventory.ts";
import { FINDING_RESULTS, ObjectMemo, type RecordingView, TimeEdges } from "./incremental.ts";
import { createIncrementalPods, detectPods } from "./pods/family.ts";
import { createIncrementalConfigRefs, detectConfigRefs } from "./config-refs.ts";
import { detectWorkloads } from "./workloads.ts";
import { createIncrementalFamilies } from "./families.ts";

const T0 = Date.parse("2026-03-01T12:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const NODES = ["n0", "n1", "n2"];
const OWNERS = ["rs0", "rs1", "rs2"];

// Instants around the pass's time, so holds, back-offs and retries fall on both sides of `now`.
const offset = fc.constantFrom(-7_200_000, -3_600_001, -600_000, -185_000, -65_000, -30_000, -8_000, -1_000, 0);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** Mostly absent: the pod-level shapes that end a pod's evaluation early must not crowd out its containers. */
const rare = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const seldom = fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

const terminated = fc.record({
  exitCode: fc.constantFrom(0, 1, 137),
  reason: fc.constantFrom("Error", "OOMKilled", "Completed", "StartError", "ContainerStatusUnknown"),
  finishedAt: offset,
  message: maybe(fc.constantFrom("panic: boom", "password=hunter2 failed")),
});

const containerStatus = fc.record({
  name: fc.constantFrom("app", "side"),
  restartCount: fc.constantFrom(0, 1, 2, 5),
  ready: fc.boolean(),
  started: maybe(fc.boolean()),
  image: fc.constantFrom("registry.example/app:1.0", "registry.example/app:latest", "registry.example/app"),
  imageID: maybe(fc.constantFrom("sha256:aaa", "sha256:bbb")),
  state: fc.oneof(
    fc.record({
      waiting: fc.record({
        reason: fc.constantFrom(
          "CrashLoopBackOff",
          "ImagePullBackOff",
          "CreateContainerConfigError",
          "RunContainerError",
          "ContainerCreating",
        ),
        message: fc.constantFrom('configmap "cm0" not found', 'secret "s0" not found', "back-off 5m0s"),
      }),
    }),
    fc.record({ running: fc.record({ startedAt: offset }) }),
    fc.record({ terminated }),
  ),
  lastState: fc.oneof(fc.constant({}), fc.record({ terminated })),
});

const podShape = fc.record({
  namespace: fc.constantFrom("a", "b"),
  index: fc.integer({ min: 0, max: 3 }),
  phase: fc.constantFrom("Running", "Running", "Pending", "Failed", "Succeeded"),
  node: maybe(fc.constantFrom(...NODES)),
  // Mostly one controller, so that a pod's findings depend on its siblings (ready and image counts).
  owner: maybe(fc.constantFrom("rs0", "rs0", "rs0", ...OWNERS)),
  app: fc.constantFrom("x", "y"),
  deleting: rare(offset),
  ready: fc.constantFrom("True", "False"),
  readyAt: offset,
  startTime: maybe(offset),
  unschedulable: seldom,
  reason: rare(fc.constantFrom("Evicted", "OutOfmemory", "Preempting")),
  probe: fc.boolean(),
  restartPolicy: fc.constantFrom("Always", "Never", "OnFailure"),
  statuses: fc.array(containerStatus, { minLength: 1, maxLength: 2 }),
  initFailed: seldom,
});

type Generated = typeof podShape extends fc.Arbitrary<infer S> ? S : never;
/** A generated pod, or one written out by hand (container statuses as plain objects). */
type PodShape = Omit<Generated, "statuses"> & { readonly statuses: readonly KubeObject[] };

type Step =
  | { do: "pod"; shape: PodShape }
  | { do: "deletePod"; namespace: string; index: number }
  | { do: "node"; name: string; ready: string; at: number }
  | { do: "deleteNode"; name: string }
  | { do: "config"; kind: "ConfigMap" | "Secret"; name: string; at: number; remove: boolean; keys: boolean }
  | { do: "service"; selector: string; remove: boolean }
  | { do: "watchSecrets"; on: boolean }
  | { do: "owner"; name: string; remove: boolean }
  | { do: "time"; ms: number }
  | { do: "workload"; shape: WorkloadShape };

const workloadShape = fc.record({
  kind: fc.constantFrom("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "CronJob"),
  index: fc.integer({ min: 0, max: 2 }),
  replicas: fc.constantFrom(0, 1, 3),
  available: fc.constantFrom(0, 0, 2),
  conditions: fc.subarray(["Available", "Progressing", "ReplicaFailure", "Failed"]),
  at: offset,
  deleting: seldom,
  remove: seldom,
  app: fc.constantFrom("x", "y"),
});
type WorkloadShape = typeof workloadShape extends fc.Arbitrary<infer S> ? S : never;

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: workloadShape.map((shape) => ({ do: "workload" as const, shape })) },
  { weight: 6, arbitrary: podShape.map((shape) => ({ do: "pod" as const, shape })) },
  {
    weight: 1,
    arbitrary: fc.record({
      do: fc.constant("deletePod" as const),
      namespace: fc.constantFrom("a", "b"),
      index: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      do: fc.constant("node" as const),
      name: fc.constantFrom(...NODES),
      ready: fc.constantFrom("True", "True", "True", "False", "Unknown"),
      at: offset,
    }),
  },
  { weight: 1, arbitrary: fc.record({ do: fc.constant("deleteNode" as const), name: fc.constantFrom(...NODES) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      do: fc.constant("config" as const),
      kind: fc.constantFrom("ConfigMap" as const, "Secret" as const),
      name: fc.constantFrom("cm0", "s0"),
      at: offset,
      remove: fc.boolean(),
      keys: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      do: fc.constant("service" as const),
      selector: fc.constantFrom("x", "y"),
      remove: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ do: fc.constant("watchSecrets" as const), on: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ do: fc.constant("owner" as const), name: fc.constantFrom(...OWNERS), remove: fc.boolean() }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      do: fc.constant("time" as const),
      ms: fc.constantFrom(0, 1_000, 9_999, 10_000, 59_000, 61_000, 180_000, 300_001, 3_600_000),
    }),
  },
);

/** A running pod of rs0 with nothing wrong at the pod level (its containers decide). */
const quietShape = {
  namespace: "a",
  phase: "Running",
  node: undefined,
  owner: "rs0",
  app: "x",
  deleting: undefined,
  ready: "False",
  readyAt: -600_000,
  startTime: -600_000,
  unschedulable: false,
  reason: undefined,
  probe: true,
  restartPolicy: "Always",
  initFailed: false,
} as const;

function pod(s: PodShape, now: number): KubeObject {
  const conditions: KubeObject[] = [{ type: "Ready", status: s.ready, lastTransitionTime: iso(now + s.readyAt) }];
  if (s.unschedulable)
    conditions.push({ type: "PodScheduled", status: "False", reason: "Unschedulable", message: "0/3 nodes" });
  if (s.initFailed) conditions.push({ type: "Initialized", status: "False" });
  return {
    metadata: {
      namespace: s.namespace,
      name: `p${s.index}`,
      labels: { app: s.app },
      creationTimestamp: iso(now - 7_200_000),
      ...(s.deleting !== undefined
        ? { deletionTimestamp: iso(now + s.deleting), deletionGracePeriodSeconds: 30, finalizers: ["x/y"] }
        : {}),
      ...(s.owner
        ? {
            ownerReferences: [
              { apiVersion: "apps/v1", kind: "ReplicaSet", name: s.owner, uid: `uid-${s.owner}`, controller: true },
            ],
          }
        : {}),
    },
    spec: {
      ...(s.node ? { nodeName: s.node } : {}),
      restartPolicy: s.restartPolicy,
      containers: [
        {
          name: "app",
          image: "registry.example/app:1.0",
          ...(s.probe ? { readinessProbe: { httpGet: { port: 80 } } } : {}),
          env: [
            { name: "K", valueFrom: { configMapKeyRef: { name: "cm0", key: "k" } } },
            { name: "S", valueFrom: { secretKeyRef: { name: "s0", key: "password" } } },
          ],
        },
        { name: "side", image: "registry.example/side:latest", resources: { limits: { memory: "64Mi" } } },
      ],
    },
    status: {
      phase: s.phase,
      ...(s.reason ? { reason: s.reason, message: "the node was low on resource: memory" } : {}),
      ...(s.startTime !== undefined ? { startTime: iso(now + s.startTime) } : {}),
      conditions,
      containerStatuses: s.statuses.map((c) => ({
        ...c,
        state: timed(c.state as KubeObject, now),
        lastState: timed(c.lastState as KubeObject, now),
      })),
      ...(s.initFailed
        ? {
            initContainerStatuses: [
              {
                name: "init",
                restartCount: 2,
                state: { waiting: { reason: "CrashLoopBackOff" } },
                lastState: timed({ terminated: { exitCode: 1, finishedAt: -30_000 } }, now),
              },
            ],
          }
        : {}),
    },
  };
}

/** Turns the offsets of a generated container state into timestamps around `now`. */
function timed(state: KubeObject, now: number): KubeObject {
  if (state.running) return { running: { startedAt: iso(now + state.running.startedAt) } };
  if (state.terminated)
    return { terminated: { ...state.terminated, finishedAt: iso(now + state.terminated.finishedAt) } };
  return state;
}

/** A workload of any kind, with the conditions its controller writes when it fails. */
function workload(s: WorkloadShape, now: number): KubeObject {
  const status = (type: string) =>
    ({ Available: "False", Progressing: "False", ReplicaFailure: "True", Failed: "True" })[type] ?? "True";
  const reason = (type: string) =>
    type === "Progressing"
      ? "ProgressDeadlineExceeded"
      : type === "ReplicaFailure"
        ? "FailedCreate"
        : "BackoffLimitExceeded";
  return {
    metadata: {
      namespace: "a",
      name: `${s.kind.toLowerCase()}-${s.index}`,
      uid: `uid-${s.kind}-${s.index}`,
      creationTimestamp: iso(now - 7_200_000),
      ...(s.deleting ? { deletionTimestamp: iso(now) } : {}),
      ...(s.kind === "Job" && s.index > 0
        ? {
            ownerReferences: [
              { apiVersion: "batch/v1", kind: "CronJob", name: "cronjob-0", uid: "uid-CronJob-0", controller: true },
            ],
          }
        : {}),
    },
    spec: { replicas: s.replicas, template: { metadata: { labels: { app: s.app } } } },
    status: {
      availableReplicas: s.available,
      conditions: s.conditions.map((type) => ({
        type,
        status: status(type),
        reason: reason(type),
        message: 'pods "x" is forbidden: error looking up service account a/robot: serviceaccount "robot" not found',
        lastTransitionTime: iso(now + s.at),
      })),
      ...(s.kind === "CronJob" ? { lastScheduleTime: iso(now + s.at) } : {}),
    },
  };
}

function play(inventory: Inventory, s: Step, now: number): number {
  switch (s.do) {
    case "pod":
      inventory.apply("Pod", "MODIFIED", pod(s.shape, now));
      return now;
    case "deletePod":
      inventory.apply("Pod", "DELETED", { metadata: { namespace: s.namespace, name: `p${s.index}` } });
      return now;
    case "node":
      inventory.apply("Node", "MODIFIED", {
        metadata: { name: s.name, creationTimestamp: iso(T0 - 86_400_000) },
        status: { conditions: [{ type: "Ready", status: s.ready, lastTransitionTime: iso(now + s.at) }] },
      });
      return now;
    case "deleteNode":
      inventory.apply("Node", "DELETED", { metadata: { name: s.name } });
      return now;
    case "config":
      inventory.apply(s.kind, s.remove ? "DELETED" : "MODIFIED", {
        metadata: { namespace: "a", name: s.name, creationTimestamp: iso(now + s.at) },
        ...(s.keys ? { data: { k: "v", password: "x" } } : {}),
      });
      return now;
    case "service":
      inventory.apply("Service", s.remove ? "DELETED" : "MODIFIED", {
        metadata: { namespace: "a", name: "web" },
        spec: { selector: { app: s.selector }, clusterIP: "10.96.0.10" },
      });
      return now;
    case "watchSecrets":
      if (s.on) inventory.markWatched("Secret");
      else inventory.forget("Secret");
      return now;
    case "owner":
      inventory.apply("ReplicaSet", s.remove ? "DELETED" : "MODIFIED", {
        metadata: { namespace: "a", name: s.name, uid: `uid-${s.name}` },
      });
      return now;
    case "time":
      return now + s.ms;
    case "workload":
      inventory.apply(s.shape.kind, s.shape.remove ? "DELETED" : "MODIFIED", workload(s.shape, now));
      return now;
  }
}

describe("incremental pod family", () => {
  test("equal the full pod, config-reference and workload families after every step of random event sequences (changes and time)", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
        const inventory = new Inventory();
        for (const kind of [
          "Pod",
          "Node",
          "ConfigMap",
          "Service",
          "ReplicaSet",
          "Deployment",
          "StatefulSet",
          "DaemonSet",
          "Job",
          "CronJob",
        ])
          inventory.markWatched(kind);
        // The families as the pass loop wires them (one computation of each change's keys for all).
        const { detectors, noteChange } = createIncrementalFamilies();
        inventory.subscribe(noteChange);
        let now = T0;
        for (const s of steps) {
          now = play(inventory, s, now);
          expect(detectors.pods(inventory, now)).toEqual(detectPods(inventory, now));
          expect(detectors.config(inventory, now)).toEqual(detectConfigRefs(inventory, now));
          expect(detectors.workloads(inventory, now)).toEqual(detectWorkloads(inventory, now));
        }
      }),
      { numRuns: 400, seed: 20_261_126 },
    );
  });

  test("a pass after one pod changed evaluates that pod only; time reaching a hold re-evaluates the held pod", () => {
    const inventory = new Inventory();
    inventory.markWatched("Node");
    const pods = createIncrementalPods();
    inventory.subscribe(pods.noteChange);
    const shape = { ...quietShape, node: "n0", ready: "True", startTime: -3_600_001 } as const;
    const running = {
      name: "app",
      restartCount: 0,
      ready: true,
      started: true,
      image: "registry.example/app:1.0",
      imageID: "sha256:aaa",
      state: { running: { startedAt: -3_600_001 } },
      lastState: {},
    };
    for (let i = 0; i < 100; i++) inventory.apply("Pod", "ADDED", pod({ ...shape, index: i, statuses: [running] }, T0));
    expect(pods.detect(inventory, T0)).toEqual([]);
    // A first crash: held 3 minutes (failure-catalogue A1).
    const crashed = {
      ...running,
      restartCount: 1,
      ready: false,
      state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 10s" } },
      lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: -1_000 } },
    };
    inventory.apply("Pod", "MODIFIED", pod({ ...shape, index: 7, startTime: -1_000, statuses: [crashed] }, T0));
    const held = pods.detect(inventory, T0 + 1_000);
    expect(pods.evaluated()).toBe(1);
    expect(held.map((f) => [f.reason, f.opensAt])).toEqual([["CrashLoopBackOff", T0 - 1_000 + 180_000]]);
    expect(pods.detect(inventory, T0 + 60_000)).toEqual(held);
    expect(pods.evaluated()).toBe(0);
    const open = pods.detect(inventory, T0 + 180_000);
    expect(pods.evaluated()).toBe(1);
    expect(open[0]?.opensAt).toBeUndefined();
    // The node going NotReady re-evaluates the pods on it, and only those.
    inventory.apply("Node", "ADDED", {
      metadata: { name: "n0" },
      status: { conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(T0) }] },
    });
    expect(pods.detect(inventory, T0 + 181_000)).toHaveLength(100);
    expect(pods.evaluated()).toBe(100);
  });
});

test("a sibling becoming ready re-evaluates a pod that never was (PodNeverReady reads its controller's ready pods)", () => {
  const inventory = new Inventory();
  const pods = createIncrementalPods();
  inventory.subscribe(pods.noteChange);
  const shape = (index: number, ready: "True" | "False") =>
    pod(
      {
        ...quietShape,
        index,
        ready,
        statuses: [
          {
            name: "app",
            restartCount: 0,
            ready: ready === "True",
            started: true,
            image: "registry.example/app:1.0",
            imageID: "sha256:aaa",
            state: { running: { startedAt: -600_000 } },
            lastState: {},
          },
        ],
      },
      T0,
    );
  inventory.apply("Pod", "ADDED", shape(0, "False"));
  inventory.apply("Pod", "ADDED", shape(1, "False"));
  expect(pods.detect(inventory, T0).map((f) => f.reason)).toEqual(["ReadinessProbeFailing", "ReadinessProbeFailing"]);
  inventory.apply("Pod", "MODIFIED", shape(1, "True"));
  const after = pods.detect(inventory, T0);
  expect(after).toEqual(detectPods(inventory, T0));
  expect(after.map((f) => f.reason)).toEqual(["PodNeverReady"]);
});

test("a blocked pod whose ConfigMap exists is told as soon as the ConfigMap is deleted (the family remembers what it read)", () => {
  const inventory = new Inventory();
  for (const kind of ["Pod", "ConfigMap", "Secret"]) inventory.markWatched(kind);
  const config = createIncrementalConfigRefs();
  inventory.subscribe(config.noteChange);
  const present = { metadata: { namespace: "a", name: "cm0" }, data: { k: "v" } };
  inventory.apply("ConfigMap", "ADDED", present);
  inventory.apply("Secret", "ADDED", { metadata: { namespace: "a", name: "s0" }, data: { password: "x" } });
  const waiting = { name: "app", state: { waiting: { reason: "ContainerCreating" } }, lastState: {} };
  for (let i = 0; i < 3; i++)
    inventory.apply("Pod", "ADDED", {
      ...pod({ ...quietShape, index: i, statuses: [waiting] }, T0),
    });
  expect(config.detect(inventory, T0)).toEqual([]);
  inventory.apply("ConfigMap", "DELETED", present);
  const told = config.detect(inventory, T0 + 1_000);
  expect(told).toEqual(detectConfigRefs(inventory, T0 + 1_000));
  expect(told.map((f) => [f.reason, f.explains?.length])).toEqual([["ConfigMapMissing", 3]]);
});

describe("ObjectMemo", () => {
  const family = {
    kind: "Pod",
    ...FINDING_RESULTS,
    localKeys: (p: KubeObject) => (p.spec?.nodeName ? [`obj:Node//${p.spec.nodeName}`] : []),
  };

  test("remembers only objects with findings, time edges or reads of their own; a deleted one is forgotten", () => {
    const inventory = new Inventory();
    const memo = new ObjectMemo(family);
    inventory.subscribe((c) => memo.noteChange(c));
    for (let i = 0; i < 10; i++)
      inventory.apply("Pod", "ADDED", { metadata: { namespace: "a", name: `p${i}` }, spec: { nodeName: "n0" } });
    const evaluate = (p: KubeObject, view: RecordingView) => {
      view.get("Node", undefined, "n0");
      // Pods 0-2 read a ConfigMap: not routed back by the Inventory's indexes, so they are remembered.
      if (Number(p.metadata.name.slice(1)) < 3) view.get("ConfigMap", "a", "cm");
      return [];
    };
    memo.run(inventory, T0, evaluate);
    expect(memo.size).toBe(3);
    for (let i = 0; i < 10; i++) inventory.apply("Pod", "DELETED", { metadata: { namespace: "a", name: `p${i}` } });
    memo.run(inventory, T0, evaluate);
    expect(memo.size).toBe(0);
  });

  test("time running backwards evaluates everything again rather than trust results computed later", () => {
    const memo = new ObjectMemo(family);
    const inventory = new Inventory();
    inventory.subscribe((c) => memo.noteChange(c));
    inventory.apply("Pod", "ADDED", { metadata: { namespace: "a", name: "p" } });
    memo.run(inventory, T0, () => []);
    memo.run(inventory, T0 + 1, () => []);
    expect(memo.evaluated).toBe(0);
    memo.run(inventory, T0 - 1, () => []);
    expect(memo.evaluated).toBe(1);
  });
});

describe("TimeEdges", () => {
  test("records the earliest future instant compared, and a timestamp falling back to now ties the result to every pass", () => {
    const time = new TimeEdges(T0);
    expect(time.before(T0 + 5_000)).toBe(true);
    expect(time.before(T0 + 1_000)).toBe(true);
    expect(time.before(T0 - 1)).toBe(false);
    expect(time.until).toBe(T0 + 1_000);
    expect(time.time("2026-03-01T11:00:00Z")).toBe(T0 - 3_600_000);
    expect(time.until).toBe(T0 + 1_000);
    expect(time.time(undefined)).toBe(T0);
    expect(time.until).toBe(T0);
  });
});
