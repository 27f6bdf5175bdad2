import { describe, expect, test } from "bun:test";
import { groupFindings } from "../correlate/group.ts";
import { incidentTier } from "../incident/tiers.ts";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf, pod, workload } from "../testing/inventory.ts";
import { apiUnreachable, detectControlPlane } from "./control-plane.ts";
import { detectNetwork } from "./network.ts";
import { detectNetworkPolicies } from "./network-policy.ts";
import { detectPods } from "./pods/family.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const MIN = 60_000;
const api = workload("shop", "api");

const service = (name: string, spec: KubeObject = {}, ageMs = 60 * MIN): KubeObject => ({
  kind: "Service",
  apiVersion: "v1",
  metadata: { namespace: "shop", name, creationTimestamp: iso(NOW - ageMs) },
  spec: { selector: { app: name }, ports: [{ name: "http", port: 80 }], ...spec },
});
const slice = (svc: string, ready: boolean[]): KubeObject => ({
  kind: "EndpointSlice",
  apiVersion: "discovery.k8s.io/v1",
  metadata: { namespace: "shop", name: `${svc}-abc`, labels: { "kubernetes.io/service-name": svc } },
  endpoints: ready.map((r, i) => ({ addresses: [`10.244.0.${i + 10}`], conditions: { ready: r } })),
});
const notReadyPod = (name: string, app: string, agoMs: number) => ({
  ...pod("shop", name, {
    owner: api.replicaSet,
    status: {
      restartCount: 4,
      state: { waiting: { reason: "CrashLoopBackOff" } },
      lastState: { terminated: { exitCode: 1 } },
    },
  }),
  metadata: {
    namespace: "shop",
    name,
    uid: `u-${name}`,
    labels: { app },
    ownerReferences: [
      { kind: "ReplicaSet", name: api.replicaSet.metadata.name, uid: api.replicaSet.metadata.uid, controller: true },
    ],
  },
  status: {
    phase: "Running",
    conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(NOW - agoMs) }],
    containerStatuses: [
      {
        name: "app",
        ready: false,
        restartCount: 4,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { exitCode: 1 } },
      },
    ],
  },
});
const ingress = (backend: string, port?: number): KubeObject => ({
  kind: "Ingress",
  apiVersion: "networking.k8s.io/v1",
  metadata: { namespace: "shop", name: "shop" },
  spec: {
    rules: [
      {
        host: "shop.example.com",
        http: {
          paths: [
            { path: "/", backend: { service: { name: backend, port: port ? { number: port } : { name: "http" } } } },
          ],
        },
      },
    ],
  },
});

describe("detectNetwork", () => {
  test("no ready endpoint while pods match: ServiceNoReadyEndpoints, no page when users cannot reach it", () => {
    const found = detectNetwork(
      inventoryOf(service("api"), slice("api", [false, false]), notReadyPod("api-1", "api", 5 * MIN)),
      NOW,
    );
    expect(found.map((f) => [f.reason, f.pageRule])).toEqual([["ServiceNoReadyEndpoints", undefined]]);
  });

  test("behind a Gateway API HTTPRoute for 2 minutes: page rule UserEntryLostBackends, the route named", () => {
    const route: KubeObject = {
      kind: "HTTPRoute",
      apiVersion: "gateway.networking.k8s.io/v1",
      metadata: { namespace: "shop", name: "storefront" },
      spec: { parentRefs: [{ name: "public" }], rules: [{ backendRefs: [{ name: "api", port: 80 }] }] },
    };
    const found = detectNetwork(
      inventoryOf(service("api"), slice("api", [false]), notReadyPod("api-1", "api", 5 * MIN), route),
      NOW,
    );
    expect(found.map((f) => [f.reason, f.pageRule])).toEqual([["ServiceNoReadyEndpoints", "UserEntryLostBackends"]]);
    expect(found[0]!.summary).toContain("users reach it through httproute storefront");
  });

  test("behind an Ingress for 2 minutes: page rule UserEntryLostBackends; and it joins the pods' incident, which then pages", () => {
    const objects = [
      api.deployment,
      api.replicaSet,
      service("api"),
      slice("api", [false]),
      notReadyPod("api-1", "api", 5 * MIN),
      ingress("api"),
    ];
    const inventory = inventoryOf(...objects);
    const net = detectNetwork(inventory, NOW);
    expect(net.map((f) => [f.reason, f.pageRule])).toEqual([["ServiceNoReadyEndpoints", "UserEntryLostBackends"]]);
    const drafts = groupFindings([...detectPods(inventory, NOW), ...net], inventory);
    expect(drafts.map((d) => [d.root.kind, d.root.name, d.rootReason, d.findings.map((f) => f.reason)])).toEqual([
      ["Deployment", "api", "CrashLoopBackOff", ["CrashLoopBackOff", "ServiceNoReadyEndpoints"]],
    ]);
    expect(incidentTier(drafts[0]!.findings)).toMatchObject({
      tier: "critical",
      mode: "page",
      pageRule: "UserEntryLostBackends",
    });
  });

  test("a Service created broken less than 10 minutes ago notifies, it does not page", () => {
    const found = detectNetwork(
      inventoryOf(
        service("new", { type: "LoadBalancer" }, 5 * MIN),
        slice("new", [false]),
        notReadyPod("new-1", "new", 5 * MIN),
      ),
      NOW,
    );
    expect(found[0]?.pageRule).toBeUndefined();
  });

  test("P1 (c) from what mon saw: a Service seen serving within the day pages however young; one watched a whole day and never seen serving does not", () => {
    const objects = (ageMs: number) => [
      service("lb", { type: "LoadBalancer" }, ageMs),
      slice("lb", [false]),
      notReadyPod("lb-1", "lb", 5 * MIN),
    ];
    const seen = { at: new Map([["shop/lb", NOW - 3 * MIN]]), since: NOW - 4 * MIN };
    expect(detectNetwork(inventoryOf(...objects(5 * MIN)), NOW, { served: seen })[0]?.pageRule).toBe(
      "UserEntryLostBackends",
    );
    const neverServed = { at: new Map<string, number>(), since: NOW - 25 * 3600_000 };
    expect(
      detectNetwork(inventoryOf(...objects(48 * 3600_000)), NOW, { served: neverServed })[0]?.pageRule,
    ).toBeUndefined();
    const servedLongAgo = { at: new Map([["shop/lb", NOW - 25 * 3600_000]]), since: NOW - 30 * 3600_000 };
    expect(
      detectNetwork(inventoryOf(...objects(48 * 3600_000)), NOW, { served: servedLongAgo })[0]?.pageRule,
    ).toBeUndefined();
  });

  test("a selector that matches nothing for 5 minutes", () => {
    const found = detectNetwork(inventoryOf(service("ghost")), NOW);
    expect(found.map((f) => f.reason)).toEqual(["ServiceSelectorMatchesNothing"]);
  });

  test("a Service being deleted, or in a namespace being deleted, is no failure while its pods go first", () => {
    const terminating = (phase: boolean) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "shop", ...(phase ? {} : { deletionTimestamp: new Date(NOW).toISOString() }) },
      status: { phase: phase ? "Terminating" : "Active" },
    });
    for (const ns of [terminating(true), terminating(false)])
      expect(detectNetwork(inventoryOf(service("ghost"), ns), NOW)).toEqual([]);
    const deleting = service("ghost");
    deleting.metadata.deletionTimestamp = new Date(NOW).toISOString();
    expect(detectNetwork(inventoryOf(deleting), NOW)).toEqual([]);
    // An active namespace: told as before.
    const active = { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" }, status: { phase: "Active" } };
    expect(detectNetwork(inventoryOf(service("ghost"), active), NOW).map((f) => f.reason)).toEqual([
      "ServiceSelectorMatchesNothing",
    ]);
  });

  test("an Ingress to a missing Service or port", () => {
    expect(detectNetwork(inventoryOf(ingress("nope")), NOW).map((f) => f.summary)).toEqual([
      "ingress shop/shop routes to service nope, which does not exist",
    ]);
    expect(
      detectNetwork(inventoryOf(service("api", {}, 60 * MIN), slice("api", [true]), ingress("api", 8080)), NOW).map(
        (f) => f.reason,
      ),
    ).toEqual(["IngressBackendMissing"]);
  });

  test("healthy: ready endpoints, ExternalName, headless-ready, no selector", () => {
    expect(
      detectNetwork(
        inventoryOf(
          service("api"),
          slice("api", [true, false]),
          service("ext", { type: "ExternalName", selector: undefined }),
          service("manual", { selector: undefined }),
          ingress("api"),
        ),
        NOW,
      ),
    ).toEqual([]);
  });
});

describe("detectControlPlane", () => {
  const lease = (name: string, renewedAgoMs: number, holder = "cp-1_abc"): KubeObject => ({
    kind: "Lease",
    apiVersion: "coordination.k8s.io/v1",
    metadata: { namespace: "kube-system", name },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: new Date(NOW - renewedAgoMs).toISOString() },
  });
  const dnsDeployment = (available: number): KubeObject => ({
    kind: "Deployment",
    apiVersion: "apps/v1",
    metadata: { namespace: "kube-system", name: "coredns", labels: { "k8s-app": "kube-dns" } },
    spec: { replicas: 2 },
    status: {
      availableReplicas: available,
      conditions: [{ type: "Available", status: available ? "True" : "False", lastTransitionTime: iso(NOW - 5 * MIN) }],
    },
  });

  test("a leader Lease not renewed for twice its duration, or without holder", () => {
    expect(
      detectControlPlane(
        inventoryOf(lease("kube-scheduler", 45_000), lease("kube-controller-manager", 5_000)),
        NOW,
      ).map((f) => f.reason),
    ).toEqual(["ControlPlaneLeaderLost"]);
    expect(detectControlPlane(inventoryOf(lease("kube-controller-manager", 0, "")), NOW)[0]?.summary).toBe(
      "kube-controller-manager has no leader: its lease has no holder",
    );
    expect(detectControlPlane(inventoryOf(), NOW)).toEqual([]);
  });

  test("cluster DNS without available replicas pages after a minute", () => {
    const [f] = detectControlPlane(inventoryOf(dnsDeployment(0)), NOW);
    expect([f?.reason, f?.pageRule]).toEqual(["ClusterDNSUnavailable", "ClusterCriticalDown"]);
    expect(detectControlPlane(inventoryOf(dnsDeployment(2)), NOW)).toEqual([]);
  });
});

describe("API server readiness", () => {
  test("failing /readyz checks: APIServerUnhealthy, paging after a minute", () => {
    const early = detectControlPlane(inventoryOf(), NOW, { apiServer: { failing: ["etcd"], since: NOW - 30_000 } });
    expect(early.map((f) => [f.reason, f.pageRule, f.summary])).toEqual([
      ["APIServerUnhealthy", undefined, "the API server reports failing readiness checks: etcd"],
    ]);
    expect(
      detectControlPlane(inventoryOf(), NOW, { apiServer: { failing: ["etcd"], since: NOW - 90_000 } })[0]?.pageRule,
    ).toBe("ClusterCriticalDown");
    expect(detectControlPlane(inventoryOf(), NOW, {})).toEqual([]);
  });

  test("a server starting (post-start hooks, informer sync) is judged after a minute: told only if still not ready, paging then (issue 53)", () => {
    const starting = ["poststarthook/start-apiextensions-informers", "informer-sync"];
    const [early] = detectControlPlane(inventoryOf(), NOW, { apiServer: { failing: starting, since: NOW - 5_000 } });
    expect(early?.opensAt).toBe(NOW + 55_000);
    const [late] = detectControlPlane(inventoryOf(), NOW, { apiServer: { failing: starting, since: NOW - 60_000 } });
    expect([late?.opensAt, late?.pageRule]).toEqual([undefined, "ClusterCriticalDown"]);
    // etcd among them is no start: told at once.
    const [etcd] = detectControlPlane(inventoryOf(), NOW, {
      apiServer: { failing: [...starting, "etcd"], since: NOW - 5_000 },
    });
    expect(etcd?.opensAt).toBeUndefined();
  });
});

describe("the API server unreachable from mon (issue 53)", () => {
  test("APIServerUnreachable opens a minute after the first unanswered round and pages; /readyz's failing checks are named", () => {
    const early = apiUnreachable({ since: NOW - 30_000, error: "connection refused" }, NOW);
    expect([early.reason, early.opensAt, early.pageRule]).toEqual([
      "APIServerUnreachable",
      NOW + 30_000,
      "ClusterCriticalDown",
    ]);
    expect(early.summary).toBe("mon cannot reach the API server: connection refused");
    const etcd = apiUnreachable({ since: NOW - 60_000, error: "no answer within 5 s", failing: ["etcd"] }, NOW);
    expect(etcd.opensAt).toBeUndefined();
    expect(etcd.summary).toBe("the API server answers but does not serve: its /readyz reports etcd failing");
    expect(etcd.evidence.map((e) => e.label)).toEqual(["since", "last error", "failing checks"]);
  });
});

describe("default-deny NetworkPolicies", () => {
  const policy = (name: string, spec: KubeObject, changedAgoMs: number): KubeObject => ({
    kind: "NetworkPolicy",
    apiVersion: "networking.k8s.io/v1",
    metadata: { namespace: "shop", name, creationTimestamp: iso(NOW - changedAgoMs) },
    spec,
  });
  const denyAll = (agoMs: number) => policy("default-deny", { podSelector: {}, policyTypes: ["Ingress"] }, agoMs);
  const allowApi = policy(
    "allow-api",
    { podSelector: { matchLabels: { app: "api" } }, ingress: [{ from: [{ podSelector: {} }] }] },
    60 * MIN,
  );

  test("a recent default-deny with no policy admitting a Service's not-ready pods is named as their cause", () => {
    const [f] = detectNetworkPolicies(
      inventoryOf(denyAll(5 * MIN), service("api"), notReadyPod("api-1", "api", 4 * MIN)),
      NOW,
    );
    expect(f?.reason).toBe("NetworkPolicyBlocksTraffic");
    expect(f?.explains?.map((o) => o.name)).toEqual(["api-1"]);
  });

  test("a policy admitting the traffic, or ready pods, clears it", () => {
    expect(
      detectNetworkPolicies(
        inventoryOf(denyAll(5 * MIN), allowApi, service("api"), notReadyPod("api-1", "api", 4 * MIN)),
        NOW,
      ),
    ).toEqual([]);
    const ready = {
      ...notReadyPod("api-1", "api", 4 * MIN),
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
    };
    expect(detectNetworkPolicies(inventoryOf(denyAll(5 * MIN), service("api"), ready), NOW)).toEqual([]);
  });

  test("a policy whose matchExpressions select other pods admits nothing to these", () => {
    const allowWeb = policy(
      "allow-web",
      {
        podSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] },
        ingress: [{ from: [{ podSelector: {} }] }],
      },
      60 * MIN,
    );
    expect(
      detectNetworkPolicies(
        inventoryOf(denyAll(5 * MIN), allowWeb, service("api"), notReadyPod("api-1", "api", 4 * MIN)),
        NOW,
      ).map((f) => f.reason),
    ).toEqual(["NetworkPolicyBlocksTraffic"]);
    const allowApiByExpression = policy(
      "allow-api",
      {
        podSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["api"] }] },
        ingress: [{ from: [{ podSelector: {} }] }],
      },
      60 * MIN,
    );
    expect(
      detectNetworkPolicies(
        inventoryOf(denyAll(5 * MIN), allowApiByExpression, service("api"), notReadyPod("api-1", "api", 4 * MIN)),
        NOW,
      ),
    ).toEqual([]);
  });
});

describe("error rates from the API server's and CoreDNS's own metrics (spec 4.3)", () => {
  const NOW = Date.parse("2026-01-01T01:00:00Z");
  const dns = {
    kind: "Deployment",
    apiVersion: "apps/v1",
    metadata: { namespace: "kube-system", name: "coredns", uid: "uid-coredns", labels: { "k8s-app": "kube-dns" } },
    spec: { replicas: 2 },
    status: { availableReplicas: 2 },
  };

  test("5 % or more of 100+ API requests answered 5xx in the last round: APIServerErrorRate; fewer requests or a smaller share: nothing", () => {
    const found = detectControlPlane(inventoryOf(), NOW, { apiRequests: { total: 400, errors: 40, seconds: 60 } });
    expect(found.map((f) => [f.reason, f.summary])).toEqual([
      ["APIServerErrorRate", "the API server answered 10 % of requests with a 5xx in the last 60 s (40 of 400)"],
    ]);
    expect(detectControlPlane(inventoryOf(), NOW, { apiRequests: { total: 60, errors: 30, seconds: 60 } })).toEqual([]);
    expect(detectControlPlane(inventoryOf(), NOW, { apiRequests: { total: 1000, errors: 40, seconds: 60 } })).toEqual(
      [],
    );
  });

  test("SERVFAIL share and lost upstreams of cluster DNS are findings on the DNS Deployment", () => {
    const found = detectControlPlane(inventoryOf(dns), NOW, {
      dnsResponses: { responses: 200, servfail: 50, upstreamBroken: 1, seconds: 60 },
    });
    expect(found.map((f) => [f.reason, f.object.name])).toEqual([
      ["ClusterDNSUpstreamDown", "coredns"],
      ["ClusterDNSErrors", "coredns"],
    ]);
    expect(found[1]!.summary).toBe("cluster DNS answered 25 % of queries with SERVFAIL in the last 60 s (50 of 200)");
    expect(
      detectControlPlane(inventoryOf(dns), NOW, {
        dnsResponses: { responses: 200, servfail: 2, upstreamBroken: 0, seconds: 60 },
      }),
    ).toEqual([]);
  });
});

describe("recovery is quiet: a Service whose pods are still starting", () => {
  const starting = (name: string, createdAgoMs: number, state: KubeObject, nodeName?: string) => ({
    ...pod("shop", name, {
      owner: api.replicaSet,
      ...(nodeName ? { nodeName } : {}),
      conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(NOW - createdAgoMs) }],
      status: { restartCount: 0, state },
    }),
    metadata: {
      namespace: "shop",
      name,
      uid: `u-${name}`,
      labels: { app: "api" },
      creationTimestamp: iso(NOW - createdAgoMs),
    },
  });
  const opensAt = (...objects: KubeObject[]) =>
    detectNetwork(inventoryOf(service("api"), slice("api", [false]), ...objects), NOW).find(
      (f) => f.reason === "ServiceNoReadyEndpoints",
    )?.opensAt;

  /** A pod running for an hour, Ready since `agoMs`. */
  const readySince = (agoMs: number) => {
    const p: KubeObject = starting("api-1", 60 * MIN, { running: { startedAt: iso(NOW - 60 * MIN) } });
    return {
      ...p,
      status: { ...p.status, conditions: [{ type: "Ready", status: "True", lastTransitionTime: iso(NOW - agoMs) }] },
    };
  };

  test("new pods (a scale-up, a rollout) have two minutes to start (a large pull, a first probe) before their Service counts as without endpoints", () => {
    expect(opensAt(starting("api-1", 5_000, { waiting: { reason: "ContainerCreating" } }))).toBe(NOW - 5_000 + 2 * MIN);
    // A pull of a minute and a first probe are a start in progress (issue 28: the legal range of pod starts).
    expect(opensAt(starting("api-1", 75_000, { waiting: { reason: "ContainerCreating" } }))).toBe(
      NOW - 75_000 + 2 * MIN,
    );
    expect(opensAt(starting("api-1", 5 * MIN, { waiting: { reason: "ContainerCreating" } }))).toBeUndefined();
  });

  test("pods on a node that is Ready again, or that restarted a moment ago, are starting too", () => {
    const back = {
      kind: "Node",
      apiVersion: "v1",
      metadata: { name: "n1" },
      status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: iso(NOW - 3_000) }] },
    };
    const old = starting("api-1", 60 * MIN, { running: { startedAt: iso(NOW - 60 * MIN) } }, "n1");
    expect(opensAt(back, old)).toBe(NOW - 3_000 + 2 * MIN);
    const restarted = starting("api-1", 60 * MIN, { running: { startedAt: iso(NOW - 10_000) } });
    expect(opensAt(restarted)).toBe(NOW - 10_000 + 2 * MIN);
  });

  test("pods Ready while the EndpointSlice does not list them yet: the slice is catching up, held 30 s, never bypassed", () => {
    const [lagging] = detectNetwork(inventoryOf(service("api"), slice("api", [false]), readySince(1_000)), NOW);
    expect(lagging).toMatchObject({ reason: "ServiceNoReadyEndpoints", opensAt: NOW - 1_000 + 30_000, starting: true });
    // Longer than that, the EndpointSlice controller is not keeping up: said as such.
    const [stuck] = detectNetwork(inventoryOf(service("api"), slice("api", [false]), readySince(31_000)), NOW);
    expect(stuck?.opensAt).toBeUndefined();
    expect(stuck?.summary).toContain("1 matching pod, 1 ready but not in its EndpointSlices");
  });

  test("an EndpointSlice that says not ready before the pods' own change arrives: the two disagree, held from the slice's change", () => {
    const readyLong = readySince(60 * MIN);
    const changed = (agoMs: number) => {
      const s = slice("api", [false]);
      return {
        ...s,
        metadata: {
          ...s.metadata,
          annotations: { "endpoints.kubernetes.io/last-change-trigger-time": iso(NOW - agoMs) },
        },
      };
    };
    const [fresh] = detectNetwork(inventoryOf(service("api"), changed(1_000), readyLong), NOW);
    expect(fresh).toMatchObject({ opensAt: NOW - 1_000 + 30_000, starting: true });
    const [settled] = detectNetwork(inventoryOf(service("api"), changed(40_000), readyLong), NOW);
    expect(settled?.opensAt).toBeUndefined();
  });

  test("after kube-controller-manager's leader takes over (its restart after a control-plane outage), slices catch up: held 30 s from the takeover (issue 53)", () => {
    const readyLong = readySince(60 * MIN);
    const leader = (agoMs: number, renewedAgoMs = 0) => ({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { namespace: "kube-system", name: "kube-controller-manager" },
      spec: {
        holderIdentity: "cp-1_7f3c",
        acquireTime: iso(NOW - agoMs),
        renewTime: iso(NOW - renewedAgoMs),
        leaseDurationSeconds: 15,
      },
    });
    const [catchingUp] = detectNetwork(
      inventoryOf(service("api"), slice("api", [false]), readyLong, leader(4_000)),
      NOW,
    );
    expect(catchingUp).toMatchObject({
      reason: "ServiceNoReadyEndpoints",
      opensAt: NOW - 4_000 + 30_000,
      starting: true,
    });
    // A leader long in place (renewing) is no catch-up: the slices are simply behind, said at once.
    const [behind] = detectNetwork(
      inventoryOf(service("api"), slice("api", [false]), readyLong, leader(60 * MIN)),
      NOW,
    );
    expect(behind?.opensAt).toBeUndefined();
    expect(behind?.summary).toContain("1 ready but not in its EndpointSlices");
  });

  test("pods the node controller just marked not ready (their containers still say ready): the node's change is on its way", () => {
    const marked: KubeObject = starting("api-1", 60 * MIN, { running: { startedAt: iso(NOW - 60 * MIN) } });
    const markedNow = (agoMs: number) => ({
      ...marked,
      status: {
        ...marked.status,
        conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(NOW - agoMs) }],
        containerStatuses: [{ ...marked.status.containerStatuses[0], ready: true }],
      },
    });
    expect(opensAt(markedNow(1_000))).toBe(NOW - 1_000 + 30_000);
    expect(opensAt(markedNow(31_000))).toBeUndefined();
  });

  test("a failing pod is no start: its Service opens at once", () => {
    const failing = starting("api-1", 5_000, { waiting: { reason: "ImagePullBackOff" } });
    expect(opensAt(failing)).toBeUndefined();
    expect(
      detectNetwork(inventoryOf(service("api"), slice("api", [false]), failing), NOW).map((f) => f.reason),
    ).toContain("ServiceNoReadyEndpoints");
  });
});
