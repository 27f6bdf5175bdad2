import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type AddressInfo, type Server } from "node:net";
import { HealthRegistry } from "../health/registry.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { inventoryOf } from "../testing/inventory.ts";
import { createProbeRunner } from "./runner.ts";

let server: Server | undefined;
let port = 0;
const listen = async () => {
  server = createServer((s) => s.end());
  await new Promise<void>((r) => server!.listen(port, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
};
const close = () => new Promise<void>((r) => (server ? server.close(() => r()) : r()));
beforeAll(listen);
afterAll(close);

describe("probe rounds (spec 2.3)", () => {
  test("reported after failureThreshold failed rounds in a row, resolved on the first success", async () => {
    const runner = createProbeRunner({
      settings: {
        autoServices: false,
        autoDependencies: false,
        excludeNamespaces: [],
        http: [],
        dns: [],
        tcp: [{ name: "db", address: `127.0.0.1:${port}` }],
      },
      intervalMs: 30_000,
      timeoutMs: 2_000,
      failureThreshold: 3,
      inventory: inventoryOf(),
      clock: createFakeClock(0),
      logger: createSilentLogger(),
      health: new HealthRegistry(() => 0),
    });
    await runner.round();
    expect(runner.latest()).toEqual([]);
    await close();
    await runner.round();
    await runner.round();
    expect(runner.latest()).toEqual([]);
    await runner.round();
    expect(runner.latest().map((p) => [p.target.name, p.failures, p.last.error])).toEqual([
      ["db", 3, "connection refused"],
    ]);
    await listen();
    await runner.round();
    expect(runner.latest()).toEqual([]);
  });
});

describe("automatic targets that leave the cluster", () => {
  test("a failing Service probe is forgotten when the Service is deleted, so its incident resolves", async () => {
    const { Inventory } = await import("../kube/inventory.ts");
    const inventory = new Inventory();
    inventory.markWatched("Service");
    const svc = {
      kind: "Service",
      apiVersion: "v1",
      metadata: { namespace: "shop", name: "db", uid: "u-db", resourceVersion: "1" },
      spec: { clusterIP: "127.0.0.1", ports: [{ port: 1 }] },
    };
    inventory.apply("Service", "ADDED", svc);
    const runner = createProbeRunner({
      settings: { autoServices: true, autoDependencies: false, excludeNamespaces: [], http: [], tcp: [], dns: [] },
      intervalMs: 30_000,
      timeoutMs: 2_000,
      failureThreshold: 1,
      inventory,
      clock: createFakeClock(0),
      logger: createSilentLogger(),
      health: new HealthRegistry(() => 0),
    });
    await runner.round();
    expect(runner.latest().map((p) => p.target.name)).toEqual(["service/shop/db"]);
    inventory.apply("Service", "DELETED", svc);
    await runner.round();
    expect(runner.latest()).toEqual([]);
  });
});
