import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf } from "../testing/inventory.ts";
import { detectWorkloads } from "./workloads.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const MIN = 60_000;

function deployment(name: string, spec: KubeObject, status: KubeObject, extra: KubeObject = {}): KubeObject {
  return {
    kind: "Deployment",
    apiVersion: "apps/v1",
    metadata: { namespace: "shop", name, uid: `d-${name}`, creationTimestamp: iso(NOW - 60 * MIN), ...extra },
    spec,
    status,
  };
}
const available = (
  status: "True" | "False",
  agoMs: number,
  message = "Deployment does not have minimum availability.",
) => ({
  type: "Available",
  status,
  reason: status === "True" ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
  message,
  lastTransitionTime: iso(NOW - agoMs),
});
function job(name: string, conditions: KubeObject[], owner?: KubeObject, created = NOW - 10 * MIN): KubeObject {
  return {
    kind: "Job",
    apiVersion: "batch/v1",
    metadata: {
      namespace: "batch",
      name,
      uid: `j-${name}`,
      creationTimestamp: iso(created),
      ...(owner
        ? {
            ownerReferences: [
              { kind: "CronJob", name: owner.metadata.name, uid: owner.metadata.uid, controller: true },
            ],
          }
        : {}),
    },
    spec: {},
    status: { conditions, failed: 6 },
  };
}
const failedCondition = {
  type: "Failed",
  status: "True",
  reason: "BackoffLimitExceeded",
  message: "Job has reached the specified backoff limit",
  lastTransitionTime: iso(NOW - 5 * MIN),
};
const cron: KubeObject = {
  kind: "CronJob",
  apiVersion: "batch/v1",
  metadata: { namespace: "batch", name: "nightly", uid: "c-nightly" },
  spec: { schedule: "0 2 * * *" },
  status: { lastScheduleTime: iso(NOW - 10 * MIN), lastSuccessfulTime: iso(NOW - 24 * 60 * MIN) },
};

const cases: { name: string; objects: KubeObject[]; want: string[] }[] = [
  {
    name: "WorkloadUnavailable: no available replica for 2 minutes",
    objects: [
      deployment(
        "api",
        { replicas: 3 },
        { replicas: 3, availableReplicas: 0, conditions: [available("False", 5 * MIN)] },
      ),
    ],
    want: ["WorkloadUnavailable"],
  },
  {
    name: "WorkloadUnavailable for a StatefulSet",
    objects: [
      {
        kind: "StatefulSet",
        apiVersion: "apps/v1",
        metadata: { namespace: "shop", name: "db", uid: "s-db", creationTimestamp: iso(NOW - 60 * MIN) },
        spec: { replicas: 1 },
        status: { replicas: 1, readyReplicas: 0, availableReplicas: 0 },
      },
    ],
    want: ["WorkloadUnavailable"],
  },
  {
    name: "ProgressDeadlineExceeded (serving, so not unavailable)",
    objects: [
      deployment(
        "web",
        { replicas: 2, progressDeadlineSeconds: 600 },
        {
          availableReplicas: 2,
          conditions: [
            available("True", 60 * MIN),
            {
              type: "Progressing",
              status: "False",
              reason: "ProgressDeadlineExceeded",
              message: 'ReplicaSet "web-5d8b7f9c4" has timed out progressing.',
              lastTransitionTime: iso(NOW - 2 * MIN),
            },
          ],
        },
      ),
    ],
    want: ["ProgressDeadlineExceeded"],
  },
  {
    name: "ReplicaCreateFailed from a ReplicaSet's ReplicaFailure condition",
    objects: [
      {
        kind: "ReplicaSet",
        apiVersion: "apps/v1",
        metadata: { namespace: "shop", name: "api-7c9", uid: "rs" },
        status: {
          conditions: [
            {
              type: "ReplicaFailure",
              status: "True",
              reason: "FailedCreate",
              message:
                'pods "api-7c9-" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=8, limited: cpu=8',
            },
          ],
        },
      },
    ],
    want: ["ReplicaCreateFailed"],
  },
  { name: "JobFailed with the controller's reason", objects: [job("report", [failedCondition])], want: ["JobFailed"] },
  {
    name: "CronJobFailing when the newest run failed and none succeeded since",
    objects: [cron, job("nightly-1", [failedCondition], cron)],
    // In the order of their keys, as the family returns its findings.
    want: ["CronJobFailing", "JobFailed"],
  },
  // Healthy churn.
  {
    name: "a rolling update keeps replicas available",
    objects: [
      deployment(
        "api",
        { replicas: 3 },
        {
          availableReplicas: 2,
          updatedReplicas: 1,
          conditions: [
            available("True", 60 * MIN),
            { type: "Progressing", status: "True", reason: "ReplicaSetUpdated" },
          ],
        },
      ),
    ],
    want: [],
  },
  {
    name: "a new Deployment scaling up has 2 minutes",
    objects: [deployment("new", { replicas: 2 }, { availableReplicas: 0, conditions: [available("False", 30_000)] })],
    want: [],
  },
  {
    name: "scaled to zero, paused or being deleted is not unavailable",
    objects: [
      deployment("zero", { replicas: 0 }, {}),
      deployment("paused", { replicas: 1, paused: true }, {}),
      deployment("going", { replicas: 1 }, {}, { deletionTimestamp: iso(NOW) }),
    ],
    want: [],
  },
  { name: "a completed Job", objects: [job("ok", [{ type: "Complete", status: "True" }])], want: [] },
  {
    name: "a CronJob whose last run succeeded after its failure",
    objects: [
      { ...cron, status: { lastScheduleTime: iso(NOW - 10 * MIN), lastSuccessfulTime: iso(NOW - 5 * MIN) } },
      job("nightly-2", [{ type: "Complete", status: "True" }], cron, NOW - 10 * MIN),
    ],
    want: [],
  },
];

describe("detectWorkloads", () => {
  for (const c of cases) {
    test(c.name, () => {
      const open = detectWorkloads(inventoryOf(...c.objects), NOW).filter(
        (f) => f.opensAt === undefined || f.opensAt <= NOW,
      );
      expect(open.map((f) => f.reason)).toEqual(c.want);
    });
  }
});

describe("page rule (b): the last replica of a user-facing workload is down (LastReplicaDown)", () => {
  const down = deployment(
    "web",
    { replicas: 2, template: { metadata: { labels: { app: "web", tier: "front" } } } },
    { replicas: 2, availableReplicas: 0, conditions: [available("False", 5 * MIN)] },
  );
  const service = (type: string, name = "web"): KubeObject => ({
    kind: "Service",
    apiVersion: "v1",
    metadata: { namespace: "shop", name, uid: `s-${name}` },
    spec: { type, selector: { app: "web" }, ports: [{ port: 80 }] },
  });
  const route = (kind: string, backend: string): KubeObject => ({
    kind,
    apiVersion: "gateway.networking.k8s.io/v1",
    metadata: { namespace: "shop", name: "shop-route", uid: "r-1" },
    spec: { parentRefs: [{ name: "gw" }], rules: [{ backendRefs: [{ name: backend, port: 80 }] }] },
  });
  const page = (...objects: KubeObject[]) => {
    const f = detectWorkloads(inventoryOf(down, ...objects), NOW).find((x) => x.reason === "WorkloadUnavailable")!;
    return { rule: f.pageRule, summary: f.summary };
  };

  test.each([
    ["a LoadBalancer Service", [service("LoadBalancer")], "service shop/web through a LoadBalancer"],
    ["a NodePort Service", [service("NodePort")], "service shop/web through a NodePort"],
    [
      "an HTTPRoute to its ClusterIP Service",
      [service("ClusterIP"), route("HTTPRoute", "web")],
      "httproute shop-route",
    ],
    ["a GRPCRoute to its ClusterIP Service", [service("ClusterIP"), route("GRPCRoute", "web")], "grpcroute shop-route"],
  ])("pages when users reach it through %s", (_how, objects, named) => {
    const { rule, summary } = page(...(objects as KubeObject[]));
    expect(rule).toBe("LastReplicaDown");
    expect(summary).toContain(named);
  });

  test("a workload only a ClusterIP Service selects, or a route to another Service, notifies", () => {
    expect(page(service("ClusterIP")).rule).toBeUndefined();
    expect(page(service("ClusterIP"), route("HTTPRoute", "other")).rule).toBeUndefined();
    expect(page().rule).toBeUndefined();
  });
});

test("a single replica that is down says what it cost: nothing else served (spec 1.6)", () => {
  const one = deployment(
    "solo",
    { replicas: 1 },
    { replicas: 1, availableReplicas: 0, conditions: [available("False", 5 * MIN)] },
  );
  const two = deployment(
    "pair",
    { replicas: 2 },
    { replicas: 2, availableReplicas: 0, conditions: [available("False", 5 * MIN)] },
  );
  const summaries = detectWorkloads(inventoryOf(one, two), NOW).map((f) => f.summary);
  expect(summaries).toEqual([
    "deployment shop/pair has no available replica (wants 2)",
    "deployment shop/solo has no available replica (wants 1); a single replica, so nothing else served while it was down",
  ]);
});

describe("a workload scaled up is starting, not failing, whatever its controller's pace", () => {
  test("spec scaled up, status not written yet (Available still True): no finding until the controller says so", () => {
    const scaled = deployment("batch-ui", { replicas: 2 }, { conditions: [available("True", 60 * MIN)] });
    expect(detectWorkloads(inventoryOf(scaled), NOW)).toEqual([]);
  });

  test("a StatefulSet scaled up from zero counts from its newest pod, not from its creation", () => {
    const sts: KubeObject = {
      kind: "StatefulSet",
      apiVersion: "apps/v1",
      metadata: { namespace: "shop", name: "db", uid: "s-db", creationTimestamp: iso(NOW - 60 * MIN) },
      spec: { replicas: 1 },
      status: { replicas: 1, availableReplicas: 0 },
    };
    const starting: KubeObject = {
      kind: "Pod",
      apiVersion: "v1",
      metadata: {
        namespace: "shop",
        name: "db-0",
        uid: "p-db-0",
        creationTimestamp: iso(NOW - 20_000),
        ownerReferences: [{ kind: "StatefulSet", name: "db", uid: "s-db", controller: true }],
      },
      status: { phase: "Pending" },
    };
    const [f] = detectWorkloads(inventoryOf(sts, starting), NOW);
    expect(f).toMatchObject({ reason: "WorkloadUnavailable", since: NOW - 20_000, opensAt: NOW - 20_000 + 2 * MIN });
  });
});
