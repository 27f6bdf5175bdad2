import { afterEach, describe, expect, test } from "bun:test";
import type { Daemon } from "../app/daemon.ts";
import { connectKube } from "../kube/connection.ts";
import type { SimRule } from "../sim/authz.ts";
import type { Simulator, SimulatorOptions } from "../sim/simulator.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { startSimulatedDaemon, type SimulatedDaemon } from "../testing/cluster.ts";

let running: SimulatedDaemon | undefined;
let sim: Simulator | undefined;
afterEach(async () => {
  await running?.stop();
  running = sim = undefined;
});

async function start(
  options: {
    sim?: SimulatorOptions;
    config?: Record<string, unknown>;
    env?: Record<string, string>;
    rules?: readonly SimRule[];
    before?: (s: Simulator) => void;
    watchLimits?: { objectCap: number; metadataBudget: number };
  } = {},
): Promise<Daemon> {
  const rules = options.rules;
  running = await startSimulatedDaemon({
    ...(options.sim ? { simOptions: options.sim } : {}),
    ...(options.before ? { before: options.before } : {}),
    ...(rules
      ? { kubeconfig: (s: Simulator) => s.kubeconfigFor(s.addUser("system:serviceaccount:mon:mon", rules)) }
      : {}),
    config: { healthCheck: { enabled: false }, ...options.config },
    ...(options.env ? { env: options.env } : {}),
    ...(options.watchLimits ? { watchLimits: options.watchLimits } : {}),
  });
  sim = running.sim;
  const daemon = running.daemon;
  await waitUntil(
    () =>
      daemon.health.report().components.discovery?.state !== "pending" &&
      !Object.values(daemon.health.report().components).some((c) => c.state === "pending"),
    "the watcher to settle",
    10_000,
  );
  return daemon;
}

const READ = ["get", "list", "watch"];
/** The least-privilege rule set: the explicit list of known kinds, nothing else (spec 5.5). */
const LEAST_PRIVILEGE: SimRule[] = [
  {
    groups: [""],
    resources: [
      "pods",
      "nodes",
      "namespaces",
      "services",
      "endpoints",
      "events",
      "persistentvolumeclaims",
      "persistentvolumes",
      "configmaps",
      "serviceaccounts",
    ],
    verbs: READ,
  },
  { groups: ["apps"], resources: ["deployments", "replicasets", "statefulsets", "daemonsets"], verbs: READ },
  { groups: ["batch"], resources: ["jobs", "cronjobs"], verbs: READ },
  { groups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
  { groups: ["coordination.k8s.io"], resources: ["leases"], verbs: READ, namespaces: ["kube-system"] },
];

/** Serves the custom resource example.com/v1 Widget (as an installed CRD would). */
const widgetsOf = (s: Simulator) =>
  s.addCustomResource({ group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true });

describe("seeing the whole cluster (spec 1.1, 1.5, 5.5)", () => {
  test("full mode: discovery finds a custom resource and it is watched, metadata only", async () => {
    const d = await start({
      before: (s) => {
        const widgets = widgetsOf(s);
        s.store.create(widgets, "default", {
          apiVersion: "example.com/v1",
          kind: "Widget",
          metadata: { name: "w1", labels: { a: "b" } },
          spec: { size: 3, secretSauce: "x" },
        });
      },
    });
    await waitUntil(() => d.inventory.list("example.com/widgets").length === 1, "the custom resource in the Inventory");
    expect(d.inventory.list("example.com/widgets")[0]).toEqual({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: expect.objectContaining({ name: "w1", namespace: "default", labels: { a: "b" } }),
    });
    expect(d.health.ready()).toBe(true);
    expect(d.health.report().components["informers-example.com"]).toEqual({ state: "ok", required: false });
  });

  test.each([
    ["object_cap_reached", { objectCap: 20, metadataBudget: 1_000 }],
    ["budget_exceeded", { objectCap: 1_000, metadataBudget: 20 }],
  ] as const)(
    "a custom resource kind too large to keep is no longer watched, its objects forgotten, %s in coverage; mon stays ready",
    async (reason, watchLimits) => {
      const d = await start({
        watchLimits,
        before: (s) => {
          const widgets = widgetsOf(s);
          for (let i = 0; i < 30; i++)
            s.store.create(widgets, "default", {
              apiVersion: "example.com/v1",
              kind: "Widget",
              metadata: { name: `w${i}` },
            });
        },
      });
      await waitUntil(
        () => d.health.report().coverage.kinds.some((k) => k.kind === "example.com/widgets"),
        "the kind in coverage",
      );
      expect(d.health.report().coverage.kinds).toContainEqual({ kind: "example.com/widgets", reason });
      expect(d.inventory.list("example.com/widgets")).toHaveLength(0);
      expect(d.inventory.watches("example.com/widgets")).toBe(false);
      await waitUntil(() => d.health.ready(), "readiness");
      expect(await d.metrics.registry.getSingleMetricAsString("mon_coverage_uncovered_kinds")).toContain(
        `mon_coverage_uncovered_kinds{reason="${reason}"} 1`,
      );
    },
  );

  test("least privilege: forbidden kinds are permission_denied in coverage, and mon stays ready", async () => {
    const d = await start({ rules: LEAST_PRIVILEGE });
    const report = d.health.report();
    expect(report.ready).toBe(true);
    expect(report.components.caches).toEqual({ state: "ok", required: true });
    const denied = report.coverage.kinds.filter((k) => k.reason === "permission_denied").map((k) => k.kind);
    expect(denied).toEqual(
      expect.arrayContaining([
        "secrets",
        "networking.k8s.io/ingresses",
        "storage.k8s.io/storageclasses",
        "policy/poddisruptionbudgets",
        "autoscaling/horizontalpodautoscalers",
      ]),
    );
    expect(report.coverage.reasons.permission_denied).toBe(denied.length);
    expect(d.inventory.list("Pod")).toEqual([]);
    expect(d.inventory.list("Namespace").length).toBe(4);
  });

  test("a required kind that is forbidden fails readiness with permission_denied", async () => {
    const d = await start({ rules: LEAST_PRIVILEGE.filter((r) => !r.groups.includes("apps")) });
    expect(d.health.ready()).toBe(false);
    expect(d.health.report().components.caches).toEqual({
      state: "failed",
      reason: "permission_denied",
      required: true,
    });
  });

  test("watch.secrets=false (or MON_WATCH_SECRETS=false): no Secret watch, disabled_by_config, health not degraded by it", async () => {
    const d = await start({ config: { watch: { secrets: true } }, env: { MON_WATCH_SECRETS: "false" } });
    const report = d.health.report();
    expect(report.coverage.kinds).toEqual([{ kind: "secrets", reason: "disabled_by_config" }]);
    expect(report.components["informers-core"]).toEqual({ state: "ok", required: false });
    expect(report.ready).toBe(true);
    expect(d.inventory.list("Secret")).toEqual([]);
  });

  test("watched Secrets keep hashes of their values, never the values", async () => {
    const d = await start({
      before: (s) =>
        s.apply({
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "db", namespace: "default" },
          data: { password: btoa("hunter2") },
        }),
    });
    await waitUntil(() => d.inventory.list("Secret").length === 1, "the Secret");
    const secret = d.inventory.get("Secret", "default", "db")!;
    expect(secret.data?.password).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(secret)).not.toContain(btoa("hunter2"));
  });

  test("optional APIs missing (VolumeAttachment, the Gateway API routes, cert-manager): optional_api_unavailable, readiness unaffected", async () => {
    const d = await start({ sim: { without: ["storage.k8s.io/v1/volumeattachments"] } });
    expect(d.health.ready()).toBe(true);
    expect(d.health.report().components["optional-apis"]).toEqual({
      state: "degraded",
      reason: "optional_api_unavailable",
      required: false,
    });
    expect(await d.metrics.registry.getSingleMetricAsString("mon_optional_api_unavailable_total")).toContain(
      "mon_optional_api_unavailable_total 7",
    );
  });

  test("a known kind the server does not serve is api_unavailable in coverage", async () => {
    const d = await start({ sim: { without: ["policy/v1/poddisruptionbudgets"] } });
    expect(d.health.report().coverage.kinds).toEqual([
      { kind: "policy/poddisruptionbudgets", reason: "api_unavailable" },
    ]);
    expect(d.health.ready()).toBe(true);
  });
});

describe("kubelet statistics and the metrics API (spec 1.2, 4.3)", () => {
  test("every kubelet refusing mon's token (no nodes/stats grant): optional_permission_denied, readiness unaffected", async () => {
    const all = ["pods", "nodes", "namespaces", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs"];
    const d = await start({
      rules: [
        { verbs: ["list", "watch", "get"], resources: all, groups: ["", "apps", "batch"] },
        { verbs: ["create"], resources: ["selfsubjectaccessreviews"], groups: ["authorization.k8s.io"] },
      ],
      before: (s) =>
        s.apply({
          apiVersion: "v1",
          kind: "Node",
          metadata: { name: "n1" },
          status: { conditions: [{ type: "Ready", status: "True" }] },
        }),
    });
    await sim!.startKubelet("n1");
    // The port the kubelet wrote: a Node always has daemonEndpoints (a struct, written `{Port: 0}` before a kubelet).
    await waitUntil(
      () => d.inventory.list("Node").every((n) => n.status?.daemonEndpoints?.kubeletEndpoint?.Port),
      "the kubelet endpoint",
    );
    await d.usage.round();
    expect(d.health.report().components["kubelet-stats"]).toEqual({
      state: "degraded",
      reason: "optional_permission_denied",
      required: false,
    });
    expect(d.health.ready()).toBe(true);
  });

  test("one kubelet of three unreachable: kubelet_partially_unreachable, one failure counted per round, stats kept for the others", async () => {
    const d = await start({
      sim: { metricsApi: true },
      before: (s) => {
        for (const n of ["n1", "n2", "n3"])
          s.apply({
            apiVersion: "v1",
            kind: "Node",
            metadata: { name: n },
            status: { conditions: [{ type: "Ready", status: "True" }] },
          });
      },
    });
    await Promise.all([sim!.startKubelet("n1"), sim!.startKubelet("n2")]);
    sim!.breakKubelet("n3");
    await waitUntil(
      () => d.inventory.list("Node").every((n) => n.status?.daemonEndpoints?.kubeletEndpoint?.Port),
      "the nodes' kubelet endpoints",
    );
    await d.usage.round();
    const round = d.usage.latest().kubelet!;
    expect([...round.summaries.keys()].sort()).toEqual(["n1", "n2"]);
    expect([...round.failures.keys()]).toEqual(["n3"]);
    expect(d.health.report().components["kubelet-stats"]).toEqual({
      state: "degraded",
      reason: "kubelet_partially_unreachable",
      required: false,
    });
    expect(d.health.ready()).toBe(true);
    expect(await d.metrics.registry.getSingleMetricAsString("mon_kubelet_stats_failures_total")).toMatch(
      /mon_kubelet_stats_failures_total [1-9]/,
    );
    expect(d.health.report().components["metrics-api"]).toEqual({ state: "ok", required: false });
    expect(d.usage.latest().metrics).toEqual({ nodes: [], pods: [] });
  });

  test("every kubelet unreachable: kubelet_unreachable; without the metrics API: optional_api_unavailable", async () => {
    const d = await start({
      before: (s) =>
        s.apply({
          apiVersion: "v1",
          kind: "Node",
          metadata: { name: "n1" },
          status: { conditions: [{ type: "Ready", status: "True" }] },
        }),
    });
    sim!.breakKubelet("n1");
    await waitUntil(
      () => Boolean(d.inventory.get("Node", undefined, "n1")?.status?.daemonEndpoints?.kubeletEndpoint?.Port === 1),
      "the broken endpoint",
    );
    await d.usage.round();
    expect(d.health.report().components["kubelet-stats"]).toEqual({
      state: "degraded",
      reason: "kubelet_unreachable",
      required: false,
    });
    expect(d.health.report().components["metrics-api"]).toEqual({
      state: "degraded",
      reason: "optional_api_unavailable",
      required: false,
    });
  });

  test("a kubelet whose certificate the cluster CA does not sign is refused unless kubelet.insecureSkipVerify", async () => {
    const { createSimPki } = await import("../sim/pki.ts");
    const { startFakeKubelet, summaryFor } = await import("../sim/kubelet.ts");
    const { SimAuthorizer } = await import("../sim/authz.ts");
    const d = await start({
      before: (s) =>
        s.apply({
          apiVersion: "v1",
          kind: "Node",
          metadata: { name: "n1" },
          status: { conditions: [{ type: "Ready", status: "True" }] },
        }),
    });
    const authorizer = new SimAuthorizer();
    authorizer.addUser(sim!.token, { name: "admin", rules: "all" });
    const foreign = await startFakeKubelet({
      pki: createSimPki("self-signed-kubelet"),
      authorizer,
      summary: () => summaryFor("n1", Date.now()),
    });
    try {
      sim!.patchStatus("v1", "Node", undefined, "n1", {
        addresses: [{ type: "InternalIP", address: "127.0.0.1" }],
        daemonEndpoints: { kubeletEndpoint: { Port: foreign.port } },
      });
      await waitUntil(
        () => d.inventory.get("Node", undefined, "n1")?.status?.daemonEndpoints?.kubeletEndpoint?.Port === foreign.port,
        "the endpoint",
      );
      await d.usage.round();
      expect(d.usage.latest().kubelet!.failures.get("n1")).toMatch(/VERIFY|CERT|SELF_SIGNED/);
      const { readKubeletStats } = await import("../kube/kubelet-stats.ts");
      const skipping = await readKubeletStats({
        connection: await connectKube({ kubeconfigText: sim!.kubeconfig() }),
        nodes: d.inventory.list("Node"),
        insecureSkipVerify: true,
      });
      expect([...skipping.summaries.keys()]).toEqual(["n1"]);
    } finally {
      await foreign.close();
    }
  });

  test("a kubelet that listens on loopback only is read at its node's Hostname when nothing answers at its InternalIP, then there first (issue 50)", async () => {
    const { createSimPki } = await import("../sim/pki.ts");
    const { startFakeKubelet, summaryFor } = await import("../sim/kubelet.ts");
    const { SimAuthorizer } = await import("../sim/authz.ts");
    const d = await start({
      config: { kubelet: { insecureSkipVerify: true } },
      before: (s) =>
        s.apply({
          apiVersion: "v1",
          kind: "Node",
          metadata: { name: "n1" },
          status: { conditions: [{ type: "Ready", status: "True" }] },
        }),
    });
    const authorizer = new SimAuthorizer();
    authorizer.addUser(sim!.token, { name: "admin", rules: "all" });
    const loopback = await startFakeKubelet({
      pki: createSimPki("loopback-kubelet"),
      authorizer,
      summary: () => summaryFor("n1", Date.now()),
    });
    try {
      // The node's InternalIP is another loopback address, where nothing listens (a refused connection).
      sim!.patchStatus("v1", "Node", undefined, "n1", {
        addresses: [
          { type: "InternalIP", address: "127.0.0.2" },
          { type: "Hostname", address: "localhost" },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: loopback.port } },
      });
      await waitUntil(
        () =>
          d.inventory.get("Node", undefined, "n1")?.status?.daemonEndpoints?.kubeletEndpoint?.Port === loopback.port,
        "the endpoint",
      );
      await d.usage.round();
      expect([...d.usage.latest().kubelet!.summaries.keys()]).toEqual(["n1"]);
      expect(d.health.report().components["kubelet-stats"]?.state).toBe("ok");
      // Without a Hostname address the refused InternalIP is what is said.
      const { readKubeletStats } = await import("../kube/kubelet-stats.ts");
      const node = d.inventory.get("Node", undefined, "n1")!;
      const internalOnly = {
        ...node,
        status: { ...node.status, addresses: [{ type: "InternalIP", address: "127.0.0.2" }] },
      };
      const refused = await readKubeletStats({
        connection: await connectKube({ kubeconfigText: sim!.kubeconfig() }),
        nodes: [internalOnly],
        insecureSkipVerify: true,
      });
      expect(refused.failures.get("n1")).toMatch(/ECONNREFUSED|ConnectionRefused/);
    } finally {
      await loopback.close();
    }
  });
});

describe("the API server's own readiness (spec 1.2 control plane)", () => {
  test("failing /readyz checks are read each round and become a finding; healed, they are gone", async () => {
    const d = await start();
    sim!.setReadyzFailing(["etcd"]);
    await d.usage.round();
    expect(d.usage.latest().apiServer).toMatchObject({ failing: ["etcd"] });
    sim!.setReadyzFailing([]);
    await d.usage.round();
    expect(d.usage.latest().apiServer).toBeUndefined();
  });
});
