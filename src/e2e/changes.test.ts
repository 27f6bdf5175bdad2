import { describe, expect, test } from "bun:test";
import { deployment, fate, NS, service } from "../sim/stories/story.ts";
import { startCluster } from "../testing/replay.ts";

/**
 * What changed (issue 32), through the real daemon on the simulator's controllers: the Deployment, ReplicaSet,
 * scheduler and kubelet controllers make the rollout; writes carry their manager as kubectl's would.
 */
describe("who is hurt, told in the announcement", () => {
  test("a node loss names the Ingress hosts that lose their backends, the replicas left and who depends on it", async () => {
    const run = await startCluster({ nodes: 2 });
    try {
      const on = (node: string) => ({ spec: { nodeSelector: { "kubernetes.io/hostname": node } } });
      run.sim.apply(deployment("web", "registry.example/web:1.0", 1, on("worker-1")), "helm");
      run.sim.apply(deployment("api", "registry.example/api:1.0", 2, on("worker-2")), "helm");
      run.sim.apply(
        deployment("checkout", "registry.example/checkout:1.0", 1, {
          spec: {
            ...on("worker-2").spec,
            containers: [
              {
                name: "checkout",
                image: "registry.example/checkout:1.0",
                env: [{ name: "WEB_URL", value: "http://web.shop.svc.cluster.local:80/cart" }],
              },
            ],
          },
        }),
        "helm",
      );
      run.sim.apply(service("web"), "helm");
      run.sim.apply(service("api"), "helm");
      run.sim.apply(
        {
          apiVersion: "networking.k8s.io/v1",
          kind: "Ingress",
          metadata: { namespace: NS, name: "storefront" },
          spec: {
            rules: [
              {
                host: "shop.example.com",
                http: {
                  paths: [
                    { path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } },
                  ],
                },
              },
            ],
          },
        },
        "helm",
      );
      await run.runTo(300);
      run.controllers.stopKubelet("worker-1");
      await run.runTo(900);
      const announce = run.told().find((m) => m.action === "announce" && m.incidentId.startsWith("Node/"));
      expect(announce?.text).toContain(
        "Impact: service shop/web through ingress storefront (shop.example.com/): users lose it;",
      );
      expect(announce?.text).toContain("deployment shop/checkout depends on it.");
      // The api, on the other node, is not hurt.
      expect(announce?.text).not.toContain("shop/api");
    } finally {
      await run.stop();
    }
  });
});

describe("what changed before an incident, told in its announcement", () => {
  test("a bad image rollout names the image change, the revision and the manager that made it", async () => {
    const run = await startCluster({ nodes: 2 });
    try {
      run.sim.apply(deployment("cart", "ghcr.io/shop/cart:1.4.0", 2), "kubectl-client-side-apply");
      await run.runTo(120);
      run.sim.apply(
        deployment("cart", "ghcr.io/shop/cart:1.4.O", 2, { annotations: fate("image-missing") }),
        "kubectl-set",
      );
      await run.runTo(600);
      const announce = run.told().find((m) => m.action === "announce" && m.incidentId.includes("cart"));
      expect(announce?.text).toMatch(
        /Changed: right before it began, kubectl-set rolled out deployment shop\/cart: revision 1 → 2; image cart: ghcr\.io\/shop\/cart:1\.4\.0 → ghcr\.io\/shop\/cart:1\.4\.O\./,
      );
      // The webhook body carries it as data too.
      const body = run.hook.requests
        .map((r) => JSON.parse(r.body) as { action: string; incidentId: string; changes?: unknown[] })
        .find((b) => b.action === "announce" && b.incidentId.includes("cart"));
      expect(body?.changes).toEqual([
        {
          kind: "rollout",
          object: { kind: "Deployment", namespace: NS, name: "cart" },
          manager: "kubectl-set",
          at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          what: ["revision 1 → 2", "image cart: ghcr.io/shop/cart:1.4.0 → ghcr.io/shop/cart:1.4.O"],
        },
      ]);
    } finally {
      await run.stop();
    }
  });

  test("a StatefulSet rollout names its ControllerRevisions' difference and the manager", async () => {
    const run = await startCluster({ nodes: 2 });
    try {
      const ledger = (image: string, annotations?: Record<string, string>) => ({
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { namespace: NS, name: "ledger" },
        spec: {
          replicas: 1,
          serviceName: "ledger",
          selector: { matchLabels: { app: "ledger" } },
          template: {
            metadata: { labels: { app: "ledger" }, ...(annotations ? { annotations } : {}) },
            spec: { containers: [{ name: "ledger", image }] },
          },
        },
      });
      run.sim.apply(ledger("registry.example/ledger:4.1"), "helm");
      await run.runTo(120);
      run.sim.apply(ledger("registry.example/ledger:4.2", fate("crash")), "helm");
      await run.runTo(900);
      const announce = run.told().find((m) => m.action === "announce" && m.incidentId.includes("ledger"));
      expect(announce?.text).toMatch(
        /Changed: [^\n]* (before|after) it began, helm rolled out statefulset shop\/ledger: revision 1 → 2; image ledger: registry\.example\/ledger:4\.1 → registry\.example\/ledger:4\.2/,
      );
    } finally {
      await run.stop();
    }
  });

  test("a deleted Secret is named: the pods restarted after it fail, and the announcement says when it went", async () => {
    const run = await startCluster({ nodes: 2 });
    try {
      run.sim.apply(
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { namespace: NS, name: "db-credentials" },
          type: "Opaque",
          data: { password: "czNjcjN0" },
        },
        "kubectl-create",
      );
      const api = (restartedAt?: string) =>
        deployment("api", "registry.example/api:1.0", 2, {
          spec: {
            containers: [
              {
                name: "api",
                image: "registry.example/api:1.0",
                env: [
                  { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "db-credentials", key: "password" } } },
                ],
              },
            ],
          },
          ...(restartedAt ? { annotations: { "kubectl.kubernetes.io/restartedAt": restartedAt } } : {}),
        });
      run.sim.apply(api(), "kubectl-client-side-apply");
      await run.runTo(120);
      run.sim.remove("v1", "Secret", NS, "db-credentials");
      await run.runTo(300);
      run.sim.apply(api(new Date(run.clock.now()).toISOString()), "kubectl-rollout");
      await run.runTo(900);
      const announce = run.told().find((m) => m.action === "announce");
      expect(announce?.text).toMatch(/secret shop\/db-credentials was deleted [0-9][^.]* before it began\./);
      // The Secret's value is never part of a message.
      expect(
        run
          .told()
          .map((m) => m.text)
          .join("\n"),
      ).not.toContain("czNjcjN0");
    } finally {
      await run.stop();
    }
  });
});
