import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOutboundClient } from "../outbound/client.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { openStateStore } from "../state/store.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { TELEMETRY_FILE, telemetryStore } from "./telemetry-store.ts";
import { createTelemetry, TELEMETRY, type TelemetryFailure, telemetryDecision } from "./telemetry.ts";
import { checkForUpdate, newer } from "./update-check.ts";

const servers: CaptureServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
const serve = async () => {
  const s = await startCaptureServer();
  servers.push(s);
  return s;
};
const http = createOutboundClient();
/** A loopback port where nothing listens: offline. */
const OFFLINE = "http://127.0.0.1:9";

describe("telemetry (spec 4.3, 8)", () => {
  test("sent only by release builds, outside CI, with a state store, unless turned off", () => {
    const base = { enabled: true, disabledByEnv: false, build: "release" as const, ci: false, stateStore: true };
    expect(telemetryDecision(base)).toEqual({ send: true });
    expect(telemetryDecision({ ...base, enabled: false })).toEqual({ send: false, reason: "disabled" });
    expect(telemetryDecision({ ...base, disabledByEnv: true })).toEqual({ send: false, reason: "disabled_env" });
    expect(telemetryDecision({ ...base, build: "development" })).toEqual({ send: false, reason: "dev_build" });
    expect(telemetryDecision({ ...base, ci: true })).toEqual({ send: false, reason: "ci_environment" });
    expect(telemetryDecision({ ...base, stateStore: false })).toEqual({ send: false, reason: "no_state_store" });
  });

  test("exactly two fields and the User-Agent, a minute after start, then not again for 7 days", async () => {
    const server = await serve();
    const clock = createFakeClock(Date.UTC(2026, 5, 1));
    const store = await openStateStore({});
    const counts: Record<string, number> = {};
    const telemetry = createTelemetry({
      url: server.url,
      http,
      store,
      clock,
      logger: createSilentLogger(),
      version: "1.2.3",
      clusterUuid: async () => "0f8c6e2a-1b3d-4c5e-8f70-123456789abc",
      metrics: {
        attempts: () => void (counts.attempts = (counts.attempts ?? 0) + 1),
        successes: () => void (counts.successes = (counts.successes ?? 0) + 1),
        retries: () => void (counts.retries = (counts.retries ?? 0) + 1),
        failures: (r: TelemetryFailure) => void (counts[r] = (counts[r] ?? 0) + 1),
      },
    });
    telemetry.start();
    await clock.advance(TELEMETRY.firstDelayMs - 1_000);
    expect(server.requests).toHaveLength(0);
    await clock.advance(1_000);
    const [sent] = await server.waitFor(1);
    expect(sent!.path).toBe("/telemetry/heartbeat");
    expect(sent!.headers["user-agent"]).toBe("mon-telemetry/1");
    expect(sent!.json()).toEqual({ cluster_uuid: "0f8c6e2a-1b3d-4c5e-8f70-123456789abc", mon_version: "1.2.3" });
    await waitUntil(async () => (await store.get("telemetry")) !== undefined, "the sent mark to be stored");
    await waitUntil(() => clock.pending() === 1, "the next heartbeat to be scheduled");
    await clock.advance(6 * 86_400_000);
    expect(server.requests).toHaveLength(1);
    await clock.advance(86_400_000);
    await server.waitFor(2);
    await waitUntil(() => counts.successes === 2, "the second heartbeat to be accepted");
    expect(counts).toMatchObject({ attempts: 2, successes: 2 });
    telemetry.stop();
  });

  test("offline: retried after 1, 5, 15, 30 and 60 minutes, quietly, each attempt failing fast", async () => {
    const clock = createFakeClock(Date.UTC(2026, 5, 1));
    const failures: string[] = [];
    let retries = 0;
    const telemetry = createTelemetry({
      url: OFFLINE,
      http,
      store: await openStateStore({}),
      clock,
      logger: createSilentLogger(),
      version: "1.2.3",
      clusterUuid: async () => "0f8c6e2a-1b3d-4c5e-8f70-123456789abc",
      metrics: {
        attempts: () => {},
        successes: () => {},
        retries: () => void retries++,
        failures: (r) => void failures.push(r),
      },
    });
    telemetry.start();
    await clock.advance(TELEMETRY.firstDelayMs);
    for (const [i, minutes] of [1, 5, 15, 30, 60].entries()) {
      await waitUntil(() => retries === i + 1, `retry ${i + 1} to be scheduled`);
      await clock.advance(minutes * 60_000);
    }
    await waitUntil(() => retries === 6, "the sixth retry");
    expect(new Set(failures)).toEqual(new Set(["network"]));
    telemetry.stop();
  });
});

describe("update check (spec 9.4)", () => {
  test("a newer version is named; the same or an older one is not; offline says nothing", async () => {
    const server = await serve();
    const logger = createSilentLogger();
    server.setDefault({ status: 200, body: JSON.stringify({ version: "0.3.0" }) });
    expect(await checkForUpdate({ url: server.url, http, version: "0.2.1", logger })).toBe("0.3.0");
    expect(server.requests[0]!.path).toBe("/v1/latest");
    expect(await checkForUpdate({ url: server.url, http, version: "0.3.0", logger })).toBeUndefined();
    expect(await checkForUpdate({ url: OFFLINE, http, version: "0.2.1", logger })).toBeUndefined();
    server.setDefault({ status: 200, body: "<html>captive portal</html>" });
    expect(await checkForUpdate({ url: server.url, http, version: "0.2.1", logger })).toBeUndefined();
  });

  test("a server that accepts and never answers: the check gives up on its own limit and says nothing", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
    const { port } = silent.address() as { port: number };
    try {
      const lines: string[] = [];
      const logger = createSilentLogger();
      logger.debug = ((line: string) => void lines.push(line)) as typeof logger.debug;
      expect(await checkForUpdate({ url: `http://127.0.0.1:${port}`, http, version: "0.2.1", logger })).toBeUndefined();
      // It returned on its own 3 s limit (a hang would end in this test's timeout instead), with one debug line.
      expect(lines).toHaveLength(1);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  }, 30_000);

  test("versions compare as semantic versions, a pre-release before its release", () => {
    expect(newer("0.10.0", "0.9.9")).toBe(true);
    expect(newer("1.0.0", "1.0.0-rc.1")).toBe(true);
    expect(newer("1.0.0-rc.1", "1.0.0")).toBe(false);
    expect(newer("1.0.0", "1.0.0")).toBe(false);
  });
});

describe("where telemetry keeps its mark (spec 8: installs without a state store send none)", () => {
  test("Pro's state file; else a writable data directory's telemetry.json; else none", async () => {
    const pro = { ...(await openStateStore({})), persistent: true };
    expect(telemetryStore(pro, "/nonexistent")).toBe(pro);
    const memory = await openStateStore({});
    const dir = join(mkdtempSync(join(tmpdir(), "mon-telemetry-")), "data");
    const community = telemetryStore(memory, dir)!;
    expect(await community.get("telemetry")).toBeUndefined();
    expect(await community.set("telemetry", { lastSentAt: 1 })).toBe(true);
    // Another process (a restart) reads the same mark.
    expect(await telemetryStore(memory, dir)!.get("telemetry")).toEqual({ lastSentAt: 1 });
    expect(JSON.parse(readFileSync(join(dir, TELEMETRY_FILE), "utf8"))).toEqual({ telemetry: { lastSentAt: 1 } });
    // A data directory that cannot be made (a read-only root filesystem without a volume): no store.
    const file = join(dir, TELEMETRY_FILE);
    expect(telemetryStore(memory, join(file, "data"))).toBeUndefined();
  });
});
