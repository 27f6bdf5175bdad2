import { describe, expect, test } from "bun:test";
import { emptyLifecycle, type LifecycleState } from "../../incident/lifecycle.ts";
import type { KubeObject } from "../../model/inventory.ts";
import { inventoryOf, node, pod, workload } from "../../testing/inventory.ts";
import { prepareRules, type DeliveryRules } from "../../incident/suppress.ts";
import type { Message } from "../../model/message.ts";
import { withLog } from "../../detect/evidence.ts";
import type { Finding } from "../../model/finding.ts";
import { runPass } from "./pipeline.ts";

/**
 * Cluster stories replayed through the pure core (detect → correlate → lifecycle → render) with injected
 * time: each step is the cluster as it is at that moment, and the assertion is the exact message titles.
 */
const NOW = Date.parse("2026-01-01T01:00:00Z");
const crashing = (output: string) => ({
  restartCount: 5,
  state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s" } },
  lastState: { terminated: { exitCode: 1, reason: "Error", message: output, finishedAt: "2026-01-01T00:59:00Z" } },
});

function replay(steps: readonly [number, KubeObject[]][], rules: DeliveryRules = { silences: [] }): string[][] {
  return replayMessages(steps, rules).map((ms) => ms.map((m) => m.title));
}

function replayMessages(
  steps: readonly [number, KubeObject[]][],
  rules: DeliveryRules = { silences: [] },
): Message[][] {
  let state: LifecycleState = emptyLifecycle();
  const prepared = prepareRules(rules);
  return steps.map(([at, objects]) => {
    const result = runPass(inventoryOf(...objects), state, at, "prod", {}, undefined, prepared);
    state = result.state;
    return result.messages.map((m) => m.message);
  });
}

/** Pro delivery rules: maintenance annotations and acknowledgement honoured. */
const PRO: DeliveryRules = {
  silences: [],
  maintenance: { annotation: "mon.io/maintenance", untilAnnotation: "mon.io/maintenance-until" },
  acknowledge: true,
};
const MIN = 60_000;
const annotated = (o: KubeObject, annotations: Record<string, string>): KubeObject => ({
  ...o,
  metadata: { ...o.metadata, annotations },
});

describe("stories through the pure core (issue: one incident per root cause)", () => {
  test("a node lost with 30 pods of 3 Deployments: one announcement, one resolve", () => {
    const apps = ["api", "web", "cart"].map((n) => workload("shop", n));
    const pods = apps.flatMap((a, i) =>
      Array.from({ length: 10 }, (_, j) =>
        pod("shop", `${["api", "web", "cart"][i]}-${j}`, { nodeName: "n1", owner: a.replicaSet }),
      ),
    );
    const world = (ready: "True" | "Unknown") => [
      node("n1", ready, "2026-01-01T00:30:00Z"),
      node("n2", "True"),
      ...apps.flatMap((a) => [a.deployment, a.replicaSet]),
      ...pods,
    ];
    expect(
      replay([
        [NOW, world("Unknown")],
        [NOW + 60_000, world("Unknown")],
        [NOW + 600_000, world("True")],
      ]),
    ).toEqual([["node n1: unreachable, 30 pods on it down"], [], ["Resolved: node n1"]]);
  });

  test("a database refusing connections for 4 workloads: one incident naming host:port", () => {
    const names = ["api", "web", "cart", "search"];
    const apps = names.map((n) => workload("shop", n));
    const objects = [
      node("n1", "True"),
      ...apps.flatMap((a) => [a.deployment, a.replicaSet]),
      ...names.map((n, i) =>
        pod("shop", `${n}-1`, {
          nodeName: "n1",
          owner: apps[i]!.replicaSet,
          status: crashing("dial tcp 10.96.14.7:5432: connect: connection refused"),
        }),
      ),
    ];
    // Four of four workloads at once would be a namespace outage; these four live among eight.
    const quiet = ["a", "b", "c", "d"].map((n) => workload("shop", n).deployment);
    expect(replay([[NOW, [...objects, ...quiet]]])).toEqual([
      [
        "endpoint 10.96.14.7:5432: unreachable, 4 workloads failing on it (deployment shop/api, deployment shop/cart, deployment shop/search, …)",
      ],
    ]);
  });

  test("a Secret deleted under 3 Deployments: one incident naming the Secret", () => {
    const names = ["api", "web", "cart"];
    const apps = names.map((n) => workload("shop", n));
    const needsSecret = (p: KubeObject) => ({
      ...p,
      spec: { ...p.spec, containers: [{ name: "app", image: "x:1", envFrom: [{ secretRef: { name: "db-creds" } }] }] },
    });
    const pods = names.map((n, i) =>
      needsSecret(
        pod("shop", `${n}-1`, {
          nodeName: "n1",
          owner: apps[i]!.replicaSet,
          phase: "Pending",
          status: {
            state: { waiting: { reason: "CreateContainerConfigError", message: 'secret "db-creds" not found' } },
          },
        }),
      ),
    );
    const quiet = ["a", "b", "c", "d"].map((n) => workload("shop", n).deployment);
    expect(
      replay([[NOW, [node("n1", "True"), ...apps.flatMap((a) => [a.deployment, a.replicaSet]), ...pods, ...quiet]]]),
    ).toEqual([["secret shop/db-creds: SecretMissing, 3 pods affected"]]);
  });

  test("a rolling update (a new pod still pulling its image, the old one terminating gracefully): no message", () => {
    const api = workload("shop", "api");
    const pulling = pod("shop", "api-new", {
      nodeName: "n1",
      owner: api.replicaSet,
      phase: "Pending",
      status: { state: { waiting: { reason: "ContainerCreating" } } },
    });
    const old = {
      ...pod("shop", "api-old", { nodeName: "n1", owner: api.replicaSet }),
      metadata: {
        ...pod("shop", "api-old").metadata,
        deletionTimestamp: "2026-01-01T00:59:50Z",
        deletionGracePeriodSeconds: 30,
      },
    };
    expect(replay([[NOW, [node("n1", "True"), api.deployment, api.replicaSet, pulling, old]]])).toEqual([[]]);
  });

  test("restart with a problem already open: the baseline pass tells it in the startup summary, its resolve follows on its own", () => {
    const api = workload("shop", "api");
    const world = [
      node("n1", "True"),
      api.deployment,
      api.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet, status: crashing("panic: boom") }),
    ];
    let state: LifecycleState = emptyLifecycle();
    const first = runPass(inventoryOf(...world), state, NOW, "prod", {}, undefined, prepareRules({ silences: [] }), {
      baseline: true,
    });
    state = first.state;
    expect(first.messages.map((m) => m.message.title)).toEqual(["Startup summary: 1 problem already open"]);
    const later = runPass(
      inventoryOf(...world.slice(0, 3)),
      state,
      NOW + 60_000,
      "prod",
      {},
      undefined,
      prepareRules({ silences: [] }),
    );
    expect(later.messages.map((m) => m.message.title)).toEqual(["Resolved: deployment shop/api"]);
  });

  test("three workloads failing with the same error line: one incident naming the error", () => {
    const names = ["api", "web", "cart"];
    const apps = names.map((n) => workload("shop", n));
    const line = "FATAL: remaining connection slots are reserved for non-replication superuser connections";
    const pods = names.map((n, i) =>
      pod("shop", `${n}-1`, { nodeName: "n1", owner: apps[i]!.replicaSet, status: crashing(line) }),
    );
    const quiet = ["a", "b", "c", "d"].map((n) => workload("shop", n).deployment);
    const told = replayMessages([
      [NOW, [node("n1", "True"), ...apps.flatMap((a) => [a.deployment, a.replicaSet]), ...pods, ...quiet]],
    ])[0]![0];
    expect(told!.title).toBe(
      `error "${line}": the same error in 3 workloads (deployment shop/api, deployment shop/cart, deployment shop/web)`,
    );
  });

  test("a crash every 10 minutes for a day: told, told again, stated once with its rhythm, then only in the digest", () => {
    const api = workload("shop", "api");
    const world = (up: boolean) => [
      node("n1", "True"),
      api.deployment,
      api.replicaSet,
      pod("shop", "api-1", {
        nodeName: "n1",
        owner: api.replicaSet,
        ...(up ? {} : { status: crashing("panic: boom") }),
      }),
    ];
    const steps: [number, KubeObject[]][] = [];
    for (let t = 0; t < 24 * 60 * MIN; t += 10 * MIN)
      steps.push([NOW + t, world(false)], [NOW + t + 5 * MIN, world(true)]);
    const messages = replayMessages(steps).flat();
    const own = messages.filter((m) => m.delivery === undefined);
    expect(own.map((m) => m.title.replace(/: .*/, ""))).toEqual([
      "deployment shop/api",
      "Resolved",
      "deployment shop/api",
      "Resolved",
      "deployment shop/api",
      "Resolved",
    ]);
    expect(own[4]!.text).toContain("fails every 10 minutes");
    // 288 openings and resolves in the day, told as 6 messages and 40 digests.
    expect(messages.filter((m) => m.delivery === "digest")).toHaveLength(40);
  });

  test("maintenance on a namespace (Pro): nothing is told while it lasts; what still fails is announced when it ends", () => {
    const api = workload("shop", "api");
    const shop = { kind: "Namespace", apiVersion: "v1", metadata: { name: "shop", uid: "uid-ns-shop" } };
    const world = (ns: KubeObject) => [
      ns,
      node("n1", "True"),
      api.deployment,
      api.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet, status: crashing("panic: boom") }),
    ];
    expect(
      replay(
        [
          [NOW, world(annotated(shop, { "mon.io/maintenance": "true" }))],
          [NOW + 30 * MIN, world(shop)],
        ],
        PRO,
      ),
    ).toEqual([[], ["deployment shop/api: CrashLoopBackOff in 1 pod"]]);
  });

  test("ack and un-ack (Pro): one update each, then quiet", () => {
    const api = workload("shop", "api");
    const crashed = pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet, status: crashing("panic: boom") });
    const world = (p: KubeObject) => [node("n1", "True"), api.deployment, api.replicaSet, p];
    const out = replayMessages(
      [
        [NOW, world(crashed)],
        [NOW + MIN, world(annotated(crashed, { "mon.io/ack": "on it" }))],
        [NOW + 2 * MIN, world(annotated(crashed, { "mon.io/ack": "on it" }))],
        [NOW + 3 * MIN, world(crashed)],
      ],
      PRO,
    );
    expect(out.map((ms) => ms.map((m) => m.action))).toEqual([["announce"], ["update"], [], ["update"]]);
    expect(out[1]![0]!.text).toContain('Acknowledged on Pod/api-1: "on it"');
    expect(out[3]![0]!.text).toContain("Acknowledgement removed");
  });

  test("opened and resolved before its announcement went out: the resolve carries the one combined message", () => {
    const api = workload("shop", "api");
    const world = (up: boolean) => [
      node("n1", "True"),
      api.deployment,
      api.replicaSet,
      pod("shop", "api-1", {
        nodeName: "n1",
        owner: api.replicaSet,
        ...(up ? {} : { status: crashing("panic: boom") }),
      }),
    ];
    let state: LifecycleState = emptyLifecycle();
    const rules = prepareRules({ silences: [] });
    state = runPass(inventoryOf(...world(false)), state, NOW, "prod", {}, undefined, rules).state;
    const resolved = runPass(inventoryOf(...world(true)), state, NOW + 10_000, "prod", {}, undefined, rules);
    expect(resolved.messages.map((m) => [m.message.title, m.openedResolved?.title])).toEqual([
      ["Resolved: deployment shop/api", "Opened and resolved: deployment shop/api: CrashLoopBackOff in 1 pod"],
    ]);
  });
});

describe("active probes (Pro, spec 2.3) through the pure core", () => {
  test("a dependency the probe finds refusing is named as the cause of the pods that call it", () => {
    const names = ["api", "worker"];
    const apps = names.map((n) => workload("shop", n));
    const callers = names.map((n, i) =>
      pod("shop", `${n}-1`, {
        nodeName: "n1",
        owner: apps[i]!.replicaSet,
        status: crashing("dial tcp 203.0.113.5:5432: connect: connection refused"),
      }),
    );
    const target = {
      kind: "tcp" as const,
      name: "dependency/db.example.test:5432",
      origin: "dependency" as const,
      address: "db.example.test:5432",
      callers: callers.map((p) => ({ kind: "Pod", namespace: "shop", name: String(p.metadata.name) })),
    };
    const probes = [
      { target, failures: 3, since: NOW - 90_000, last: { ok: false, latencyMs: 3, error: "connection refused" } },
    ];
    const quiet = ["a", "b", "c", "d"].map((n) => workload("shop", n).deployment);
    const result = runPass(
      inventoryOf(node("n1", "True"), ...apps.flatMap((a) => [a.deployment, a.replicaSet]), ...callers, ...quiet),
      emptyLifecycle(),
      NOW,
      "prod",
      { probes },
      undefined,
      prepareRules({ silences: [] }),
    );
    expect(result.messages.map((m) => m.message.title)).toEqual([
      "endpoint db.example.test:5432: ActiveProbeFailure, 2 pods affected",
    ]);
    expect(result.decisions[0]!.incident.rootReason).toBe("ActiveProbeFailure");
  });
});

describe("a stage that throws (spec 4.2 mon_panics_recovered_total)", () => {
  test("the pass decides nothing, names the stage and keeps the previous state for the next pass", () => {
    const api = workload("shop", "api");
    const world = inventoryOf(
      node("n1", "True"),
      api.deployment,
      api.replicaSet,
      pod("shop", "api-1", { nodeName: "n1", owner: api.replicaSet, status: crashing("panic: boom") }),
    );
    const broken = { ...emptyLifecycle(), digest: undefined } as unknown as LifecycleState;
    const result = runPass(world, broken, NOW, "prod", {}, undefined, prepareRules({ silences: [] }));
    expect(result.panicked?.stage).toBe("incident");
    expect(result.messages).toEqual([]);
    expect(result.state).toBe(broken);
    expect(
      runPass(world, emptyLifecycle(), NOW, "prod", {}, undefined, prepareRules({ silences: [] })).messages,
    ).toHaveLength(1);
  });
});

describe("cause before symptom, and no resolve in the middle of one failure, whatever the pass sees first", () => {
  const api = workload("shop", "api", 0);
  const svc = {
    kind: "Service",
    apiVersion: "v1",
    metadata: { namespace: "shop", name: "api", creationTimestamp: "2026-01-01T00:00:00Z" },
    spec: { selector: { app: "api" }, ports: [{ port: 80 }] },
  };
  const slice = (ready: boolean) => ({
    kind: "EndpointSlice",
    apiVersion: "discovery.k8s.io/v1",
    metadata: { namespace: "shop", name: "api-x", labels: { "kubernetes.io/service-name": "api" } },
    endpoints: [{ addresses: ["10.244.0.9"], conditions: { ready } }],
  });
  const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
  /** api-1 on a node that joined 3 minutes ago, crash-looping for 150 s, not ready since then. */
  const crashingPod: KubeObject = {
    ...pod("shop", "api-1", {
      nodeName: "young",
      owner: api.replicaSet,
      conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(NOW - 150_000) }],
      status: crashing("panic: boom"),
    }),
  };
  const labelled: KubeObject = { ...crashingPod, metadata: { ...crashingPod.metadata, labels: { app: "api" } } };
  const withStart: KubeObject = { ...labelled, status: { ...labelled.status, startTime: iso(NOW - 150_000) } };
  /** Between two crashes api-1 runs for a moment: Ready (no probe), the Deployment available, the slice ready. */
  const runningBetween: KubeObject = {
    ...withStart,
    status: {
      ...withStart.status,
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: iso(NOW + 1_000) }],
      containerStatuses: [
        {
          name: "app",
          ready: true,
          restartCount: 6,
          state: { running: { startedAt: iso(NOW + 1_000) } },
          lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: iso(NOW - 1_000) } },
        },
      ],
    },
  };
  const world = (up: boolean) => [
    node("young", "True", iso(NOW - 3 * MIN), {
      metadata: { name: "young", uid: "uid-young", creationTimestamp: iso(NOW - 3 * MIN) },
    }),
    up ? workload("shop", "api", 2).deployment : api.deployment,
    api.replicaSet,
    svc,
    slice(up),
    up ? runningBetween : withStart,
  ];

  test("a crash told with its Service when the Service's wait ran out stays told when the Service is back for a moment", () => {
    const out = replayMessages([
      [NOW, world(false)],
      [NOW + 1_000, world(true)],
      [NOW + 2_000, world(false)],
    ]);
    // The young node's grace holds the crash 5 more minutes; the Service's 2-minute wait ran out first, so
    // both are told now, the cause first (one incident, named by the crash).
    expect(out[0]!.map((m) => m.title)).toEqual(["deployment shop/api: CrashLoopBackOff in 1 pod"]);
    // The grace does not take back what was told: no resolve, no "failing again".
    expect(out.slice(1).flat()).toEqual([]);
  });

  test("a new incident waits as a whole while its crash's log is read: the Service is not told before the crash", () => {
    const rules = prepareRules({ silences: [] });
    const reading = {
      attach: (f: Finding) => f,
      pending: (f: { reason: string }) => f.reason === "CrashLoopBackOff",
    };
    const old = [
      node("n1", "True"),
      api.deployment,
      api.replicaSet,
      svc,
      slice(false),
      { ...withStart, spec: { ...withStart.spec, nodeName: "n1" } },
    ];
    const waiting = runPass(inventoryOf(...old), emptyLifecycle(), NOW, "prod", {}, reading, rules);
    expect(waiting.messages).toEqual([]);
    expect(waiting.awaitingEvidence.map((f) => f.reason)).toEqual(["CrashLoopBackOff"]);
    const read = { attach: (f: Finding) => withLog(f, { lines: ["panic: boom"] }), pending: () => false };
    const told = runPass(inventoryOf(...old), waiting.state, NOW + 500, "prod", {}, read, rules);
    expect(told.messages.map((m) => m.message.title)).toEqual(["deployment shop/api: CrashLoopBackOff in 1 pod"]);
  });
});
