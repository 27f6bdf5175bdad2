import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { deployment, readyNode, runningPod } from "../sim/scenarios/builders.ts";
import type { Simulator } from "../sim/simulator.ts";
import type { KubeObject } from "../model/inventory.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop, startTestCluster } from "../testing/cluster.ts";

/**
 * No object shape can stop detection of the others (issue 19): odd objects — the ones a chaos tester wrote,
 * then random mutations of every kind mon reads — are written through the simulator, and a canary failure
 * elsewhere (a crash-looping pod of shop/api) must still be announced, with /health answering.
 */
const big = "x".repeat(1_000_000);

/** A pod of the ReplicaSet `rs` in namespace `odd`, with `change` applied. */
function oddPod(sim: Simulator, name: string, change: (pod: Record<string, any>) => void): KubeObject {
  const rs = sim.store.get(sim.typeOf("apps", "v1", "replicasets"), "odd", "odd-abc12");
  const pod = runningPod(rs, name, "n1", Date.now() - 3_600_000) as Record<string, any>;
  change(pod);
  return pod as KubeObject;
}

function seedOdd(sim: Simulator): void {
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "odd" } });
  const { deployment: d, replicaSet } = deployment("odd", "odd", 1, "ghcr.io/odd/odd:1.0", "abc12");
  const dep = sim.apply(d);
  sim.apply({
    ...replicaSet,
    metadata: {
      ...replicaSet.metadata,
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "Deployment", name: "odd", uid: dep.metadata.uid, controller: true },
      ],
    },
  });
}

/** The shapes of issue 19, each written as a client with write access (or `pods/status`) could. */
const ODD: Record<string, (sim: Simulator) => KubeObject[]> = {
  "a ReplicaSet owner-reference cycle": () => [
    {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        namespace: "odd",
        name: "a",
        uid: "cycle-a",
        ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "b", uid: "cycle-b", controller: true }],
      },
      spec: {
        selector: { matchLabels: { a: "a" } },
        template: { metadata: { labels: { a: "a" } }, spec: { containers: [{ name: "a", image: "a" }] } },
      },
    },
    {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        namespace: "odd",
        name: "b",
        uid: "cycle-b",
        ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "a", uid: "cycle-a", controller: true }],
      },
      spec: {
        selector: { matchLabels: { b: "b" } },
        template: { metadata: { labels: { b: "b" } }, spec: { containers: [{ name: "b", image: "b" }] } },
      },
    },
  ],
  "a pod with 1,000 crash-looping containers": (sim) => [
    oddPod(sim, "many", (p) => {
      const c = p.spec.containers[0];
      p.spec.containers = Array.from({ length: 1000 }, (_, i) => ({ ...c, name: `c${i}` }));
      p.status.containerStatuses = Array.from({ length: 1000 }, (_, i) => ({
        name: `c${i}`,
        image: c.image,
        ready: false,
        restartCount: 9,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { exitCode: 1, reason: "Error", message: "boom" } },
      }));
    }),
  ],
  "a pod with 1,000 env entries and host ports": (sim) => [
    oddPod(sim, "env", (p) => {
      p.spec.containers[0].env = Array.from({ length: 1000 }, (_, i) => ({
        name: `E${i}`,
        value: `db-${i}.example.com:5432`,
      }));
      p.spec.containers[0].ports = Array.from({ length: 1000 }, (_, i) => ({
        containerPort: 1000 + i,
        hostPort: 1000 + i,
      }));
    }),
  ],
  "a 1 MB annotation and 10,000 annotations": (sim) => [
    oddPod(sim, "ann", (p) => (p.metadata.annotations = { big })),
    oddPod(
      sim,
      "anns",
      (p) =>
        (p.metadata.annotations = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, `v${i}`]))),
    ),
  ],
  "a 1 MB termination message with a lone surrogate and control characters": (sim) => [
    oddPod(sim, "msg", (p) => {
      p.status.containerStatuses[0] = {
        ...p.status.containerStatuses[0],
        ready: false,
        restartCount: 9,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { exitCode: 1, message: `\uD800\u202E\u0000${big}` } },
      };
    }),
  ],
  "labels: null, numeric annotations, an owner annotation holding an object": (sim) => [
    oddPod(sim, "meta", (p) => {
      p.metadata.labels = null;
      p.metadata.annotations = { "mon.io/ack": 5, "mon.io/owner": { team: "x" } };
    }),
  ],
  "garbage in a Node, a Deployment, a Job and a NetworkPolicy": () => [
    {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "garbage" },
      spec: { taints: "x" },
      status: { conditions: "bad", addresses: 7, capacity: [], allocatable: null },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { namespace: "odd", name: "garbage" },
      spec: { replicas: "many", selector: 5, template: null },
      status: { conditions: [1, null, "x"], replicas: {} },
    },
    {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { namespace: "odd", name: "garbage" },
      spec: { backoffLimit: "x", template: 3 },
      status: { conditions: { a: 1 }, failed: "x" },
    },
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { namespace: "odd", name: "garbage" },
      spec: { podSelector: 5, ingress: "all", egress: [null, 3] },
    },
  ],
  "an Ingress with null spec.tls entries and rules, a pod with a null volume (issue 30)": (sim) => [
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { namespace: "odd", name: "nulls" },
      spec: { tls: [null, { secretName: null, hosts: [null] }], rules: [null] },
    },
    oddPod(sim, "vol", (p) => (p.spec.volumes = [null, { name: "s", secret: null }])),
  ],
  "containerStatuses of the wrong shape, a numeric phase, garbage conditions, spec: null": (sim) => [
    oddPod(sim, "cs", (p) => (p.status.containerStatuses = { a: 1 })),
    oddPod(sim, "cs2", (p) => (p.status.containerStatuses = [null, 5, "x"])),
    oddPod(sim, "phase", (p) => (p.status.phase = 5)),
    oddPod(sim, "conds", (p) => (p.status.conditions = [null, 3, { type: 5, status: {} }])),
    oddPod(sim, "nospec", (p) => (p.spec = null)),
  ],
  "a crash-looping pod whose owner references have no kind and whose owner is not cached, with status fields of the wrong type (issue 41)":
    (sim) => [
      oddPod(sim, "nokind", (p) => {
        p.metadata.ownerReferences = [{ name: "ghost", uid: "ghost-uid", controller: true }];
        p.status.startTime = 12;
        p.status.hostIP = { v4: true };
        p.status.containerStatuses = [
          {
            name: "odd",
            image: "ghcr.io/odd/odd:1.0",
            ready: false,
            restartCount: 6,
            state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s" } },
            lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: "2026-01-01T00:00:00Z" } },
          },
        ];
      }),
    ],
};

const PLURAL: Record<string, string> = {
  Pod: "pods",
  Node: "nodes",
  Service: "services",
  Deployment: "deployments",
  ReplicaSet: "replicasets",
  Job: "jobs",
  NetworkPolicy: "networkpolicies",
  Ingress: "ingresses",
};

/** Writes `objects` as they are into the simulator's store (a loose server, or any client with status access). */
function write(sim: Simulator, objects: readonly KubeObject[]): void {
  for (const object of objects) {
    const apiVersion = String(object.apiVersion);
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    sim.store.replay(sim.typeOf(group!, version!, PLURAL[String(object.kind)]!), "ADDED", object);
  }
}

async function canaryIsToldWith(add: (sim: Simulator) => KubeObject[]): Promise<void> {
  const hook = await startCaptureServer();
  // Odd shapes come as JSON only (a built-in kind's protobuf cannot carry them): a server that answers JSON.
  const cluster = await startTestCluster({ webhook: { url: `${hook.url}/mon`, hourlyBudget: 0 } }, { protobuf: false });
  try {
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    sim.apply(readyNode("n1", clock.now() - 86_400_000));
    seedOdd(sim);
    await cluster.settle();
    write(sim, add(sim));
    await cluster.settle();
    crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
    await cluster.settle();
    // Told on its own or in a roll-up with the odd objects' own failures.
    await waitUntil(() => hook.requests.some((r) => r.body.includes("shop/api")), "the canary");
    // Every pass decided something: no stage after detection failed for all incidents.
    expect(await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_panics_recovered_total")).not.toMatch(
      /stage="(incident|compose)"\} [1-9]/,
    );
    const report = cluster.daemon.health.report();
    expect(report.components.caches?.state).toBe("ok");
    // Not one detector threw on them: the Inventory admits only the shapes detectors read (kube/admit.ts).
    expect(await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_panics_recovered_total")).toContain(
      'mon_panics_recovered_total{stage="detector"} 0',
    );
  } finally {
    await cluster.stop();
    await hook.close();
  }
}

describe("no object shape stops detection of the others (issue 19)", () => {
  for (const [name, add] of Object.entries(ODD)) {
    test(`${name}: the canary crash loop is still announced`, () => canaryIsToldWith(add), 60_000);
  }

  test("random mutations of every kind mon reads: the canary is still announced (fast-check)", async () => {
    const junk = fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.string(),
      fc.constant("\uD800"),
      fc.array(fc.oneof(fc.constant(null), fc.integer(), fc.string()), { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string()), { maxKeys: 3 }),
    );
    const paths = [
      ["metadata", "labels"],
      ["metadata", "annotations"],
      ["metadata", "ownerReferences"],
      ["spec"],
      ["spec", "containers"],
      ["spec", "nodeName"],
      ["status"],
      ["status", "phase"],
      ["status", "conditions"],
      ["status", "containerStatuses"],
      ["status", "addresses"],
      ["spec", "replicas"],
      ["spec", "selector"],
      ["status", "readyReplicas"],
    ];
    const kinds = ["pod", "node", "deployment", "replicaset", "job", "service"] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ kind: fc.constantFrom(...kinds), path: fc.constantFrom(...paths), value: junk }), {
          minLength: 1,
          maxLength: 8,
        }),
        async (mutations) => {
          await canaryIsToldWith((sim) =>
            mutations.map((m, i) => {
              const object = base(sim, m.kind, `m${i}`);
              let at: Record<string, unknown> = object as Record<string, unknown>;
              for (const step of m.path.slice(0, -1)) {
                if (typeof at[step] !== "object" || at[step] === null) at[step] = {};
                at = at[step] as Record<string, unknown>;
              }
              at[m.path[m.path.length - 1]!] = m.value;
              return object;
            }),
          );
        },
      ),
      { numRuns: 12, seed: 19 },
    );
  }, 180_000);
});

/** A well-formed object of `kind` named `name` in namespace odd (cluster-scoped for a Node). */
function base(sim: Simulator, kind: string, name: string): KubeObject {
  switch (kind) {
    case "node":
      return readyNode(name, Date.now() - 86_400_000);
    case "deployment":
    case "replicaset": {
      const { deployment: d, replicaSet } = deployment("odd", name, 1, "img:1", "h1");
      return kind === "deployment" ? d : replicaSet;
    }
    case "job":
      return {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { namespace: "odd", name },
        spec: { template: { spec: { containers: [{ name: "j", image: "j" }] } } },
        status: { failed: 1 },
      };
    case "service":
      return {
        apiVersion: "v1",
        kind: "Service",
        metadata: { namespace: "odd", name },
        spec: { selector: { app: name }, ports: [{ port: 80 }] },
      };
    default:
      return oddPod(sim, name, () => {});
  }
}
