import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf, pod } from "../testing/inventory.ts";
import { AUTO_PROBES_PER_ROUND, dependencyOf, probeTargets, type ProbeSettings } from "./targets.ts";

const none: ProbeSettings = {
  autoServices: false,
  autoDependencies: false,
  excludeNamespaces: [],
  http: [],
  tcp: [],
  dns: [],
};
const service = (
  namespace: string,
  name: string,
  spec: KubeObject = {},
  annotations?: Record<string, string>,
): KubeObject => ({
  kind: "Service",
  apiVersion: "v1",
  metadata: { namespace, name, uid: `uid-s-${name}`, ...(annotations ? { annotations } : {}) },
  spec: { clusterIP: "10.96.0.10", ports: [{ port: 5432 }, { port: 9187 }], ...spec },
});
const withEnv = (p: KubeObject, env: Record<string, string>): KubeObject => ({
  ...p,
  spec: {
    ...p.spec,
    containers: [{ name: "app", image: "x:1", env: Object.entries(env).map(([name, value]) => ({ name, value })) }],
  },
});

describe("probe targets (spec 2.3)", () => {
  test("configured targets are always probed, whatever excludeNamespaces says", () => {
    const targets = probeTargets(
      {
        ...none,
        excludeNamespaces: ["shop"],
        http: [{ name: "shop", url: "https://shop.example.test/healthz", expectedStatus: 200, latencyWarningMs: 500 }],
        tcp: [{ name: "db", address: "db.example.test:5432" }],
        dns: [{ name: "resolver", host: "example.test" }],
      },
      inventoryOf(),
    );
    expect(targets.map((t) => [t.kind, t.name, t.address])).toEqual([
      ["http", "shop", "https://shop.example.test/healthz"],
      ["tcp", "db", "db.example.test:5432"],
      ["dns", "resolver", "example.test"],
    ]);
    expect(targets[0]).toMatchObject({ expectedStatus: 200, latencyWarningMs: 500 });
  });

  test("autoServices: each ClusterIP Service at its first port; headless, ExternalName, skipped and excluded ones are not", () => {
    const inv = inventoryOf(
      service("shop", "db"),
      service("shop", "headless", { clusterIP: "None" }),
      service("shop", "external", { type: "ExternalName", clusterIP: undefined, externalName: "db.example.test" }),
      service("shop", "quiet", {}, { "mon.io/skip-probe": "true" }),
      service("kube-system", "dns"),
    );
    const targets = probeTargets({ ...none, autoServices: true, excludeNamespaces: ["kube-system"] }, inv);
    expect(targets.map((t) => [t.name, t.address, t.service?.name])).toEqual([
      ["service/shop/db", "10.96.0.10:5432", "db"],
    ]);
  });

  test("at most 200 automatic targets a round; the window moves so each gets its turn", () => {
    const inv = inventoryOf(
      ...Array.from({ length: 250 }, (_, i) => service("shop", `s${String(i).padStart(3, "0")}`)),
    );
    const first = probeTargets({ ...none, autoServices: true }, inv, 0);
    const second = probeTargets({ ...none, autoServices: true }, inv, 1);
    expect(first).toHaveLength(AUTO_PROBES_PER_ROUND);
    expect(new Set([...first, ...second].map((t) => t.name)).size).toBe(250);
  });

  test.each([
    ["postgres://app:secret@db.example.test/orders", "db.example.test:5432"],
    ["https://api.payments.example.test/v1", "api.payments.example.test:443"],
    ["redis://cache.example.test:6380/0", "cache.example.test:6380"],
    ["db.example.test:3306", "db.example.test:3306"],
    ["10.20.30.40:9092", "10.20.30.40:9092"],
    ["info", undefined],
    ["true", undefined],
    ["12:30", undefined],
    ["file:///etc/config", undefined],
  ])("an environment value %s names %s", (value, dep) => {
    expect(dependencyOf(value)).toBe(dep);
  });

  test("autoDependencies: external host:port from pod environment values, with the pods that call it; in-cluster Services are not dependencies", () => {
    const inv = inventoryOf(
      service("shop", "cache"),
      withEnv(pod("shop", "api-1"), {
        DATABASE_URL: "postgres://app:secret@db.example.test/orders",
        CACHE: "cache.shop.svc.cluster.local:6379",
        LOG_LEVEL: "info",
      }),
      withEnv(pod("shop", "worker-1"), { DB: "db.example.test:5432", CACHE_HOST: "cache:6379" }),
      withEnv(pod("ops", "cron-1"), { DB: "db.example.test:5432" }),
    );
    const targets = probeTargets({ ...none, autoDependencies: true, excludeNamespaces: ["ops"] }, inv);
    expect(targets.map((t) => [t.name, t.address, t.callers?.map((c) => c.name)])).toEqual([
      ["dependency/db.example.test:5432", "db.example.test:5432", ["api-1", "worker-1"]],
    ]);
  });
});
