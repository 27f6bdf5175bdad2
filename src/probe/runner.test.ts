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
      settings: { autoServices: false, autoDependencies: false, excludeNamespaces: [], http: [], dns: [], tcp: [{ name: "db", address: `127.0.0.1:${port}` }] },
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
    expect(runner.latest().map((p) => [p.target.name, p.failures, p.last.error])).toEqual([["db", 3, "connection refused"]]);
    await listen();
    await runner.round();
    expect(runner.latest()).toEqual([]);
  });
});
