import { afterEach, describe, expect, test } from "bun:test";
import { createSimPki } from "../sim/pki.ts";
import { renderKubeconfig } from "../sim/kubeconfig.ts";
import type { Simulator } from "../sim/simulator.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { startSimulatedDaemon, type SimulatedDaemon, testClock } from "../testing/cluster.ts";
import { startDaemon } from "../app/daemon.ts";
import { FATAL_AFTER_MS } from "../app/replica/health.ts";
import { connectKube } from "../kube/connection.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { startSimulator } from "../sim/simulator.ts";
import { parseConfig } from "../testing/config.ts";
import { stringify } from "yaml";
import { request } from "node:http";

let running: SimulatedDaemon | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(
  kubeconfig: (s: Simulator) => string = (s) => s.kubeconfig(),
  before?: (s: Simulator) => void,
): Promise<string> {
  running = await startSimulatedDaemon({
    kubeconfig,
    ...(before ? { before } : {}),
    config: { app: { disableStartupMessage: true }, alert: { stdout: {} } },
    healthPort: 0,
  });
  return running.daemon.healthUrl()!;
}

/** The `/health` body now. */
const healthAt = async (url: string) => (await fetch(`${url}/health`)).json() as Promise<any>;

/** A daemon on `kubeconfigText` with a fake clock, whose fatal exits (spec 3.3) are counted, not taken. */
async function daemonCountingFatal(kubeconfigText: string) {
  const clock = testClock();
  const fatal: string[] = [];
  const daemon = await startDaemon({
    config: parseConfig(stringify({ app: { disableStartupMessage: true }, alert: { stdout: {} } }), "t.yaml", {}),
    connection: await connectKube({ kubeconfigText }),
    clock,
    logger: createSilentLogger(),
    stdout: () => {},
    healthPort: 0,
    onFatal: (component, reason) => fatal.push(`${component}: ${reason}`),
  });
  return { daemon, clock, fatal };
}

describe("health server (spec 4.1, 4.2)", () => {
  test("a synced daemon is live and ready; /health names every component; /metrics has mon_* and process metrics", async () => {
    const url = await start((s) => s.kubeconfig());
    await waitUntil(async () => (await fetch(`${url}/readyz`)).status === 200, "readiness");
    // Ready needs only the required caches; optional API groups may still be syncing for a moment.
    await waitUntil(
      async () => !(await (await fetch(`${url}/health`)).json()).reasons.includes("cache_sync_pending"),
      "every informer to sync",
    );
    expect(await (await fetch(`${url}/healthz`)).text()).toBe("ok\n");
    expect((await fetch(`${url}/availabilityz`)).status).toBe(200);
    const health = await (await fetch(`${url}/health`)).json();
    expect(health).toMatchObject({
      status: "degraded",
      ready: true,
      stateLock: "not_used",
      reasons: ["optional_api_unavailable"],
      providers: { kept: ["stdout"], inactive: [] },
    });
    expect(health.coverage).toEqual({ kinds: [], reasons: {}, truncated: 0 });
    expect(health.components.caches).toEqual({ state: "ok", required: true });
    expect(health.components["informers-core"]).toEqual({ state: "ok", required: false });
    expect(health.components["informers-apps"]).toEqual({ state: "ok", required: false });
    expect(health.components.discovery).toEqual({ state: "ok", required: false });
    // The simulator serves no Gateway API: an optional API, so only degraded.
    expect(health.components["optional-apis"]).toEqual({
      state: "degraded",
      reason: "optional_api_unavailable",
      required: false,
    });
    expect(health.components["provider-stdout"]).toEqual({ state: "ok", required: false });
    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    const text = await metrics.text();
    for (const name of [
      "mon_incidents_open 0",
      "# TYPE mon_incidents_total counter",
      // Every configured provider has its delivery series from the start, at zero.
      'mon_delivery_notifications_total{provider="stdout"} 0',
      'mon_delivery_retries_total{provider="stdout",reason="network"} 0',
      'mon_delivery_dropped_total{provider="stdout",reason="retry_window"} 0',
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      // Read when scraped: this replica is ready, nothing is uncovered, no message waits.
      "mon_ready 1",
      'mon_delivery_queue_oldest_age_seconds{provider="stdout"} 0',
    ]) {
      expect(text).toContain(name);
    }
  });

  test("an unknown path, method or Host is answered 404 'not found' that echoes nothing of the request (issue 30)", async () => {
    const url = new URL(await start((s) => s.kubeconfig()));
    const ask = (method: string, path: string, host: string) =>
      new Promise<{ status: number; body: string; type: string }>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, method, path, headers: { host } }, (res) => {
          let body = "";
          res.on("data", (c) => (body += c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body, type: String(res.headers["content-type"]) }),
          );
        });
        req.on("error", reject);
        req.end();
      });
    for (const [method, path] of [
      ["GET", "/%3Cscript%3Ealert(1)%3C/script%3E"],
      ["GET", "/status/../../etc/passwd?x=<b>"],
      ["POST", "/healthz"],
      ["DELETE", "/metrics"],
    ] as const) {
      const answer = await ask(method, path, "evil.example.com:1234");
      expect(answer).toEqual({ status: 404, body: "not found\n", type: "text/plain; charset=utf-8" });
    }
  });

  test("a wrong API token: discovery and caches failed with source_configuration_failed, not discovery_failed", async () => {
    const url = await start((s) =>
      renderKubeconfig({ server: s.server.url, caCert: s.pki.caCert, token: "not-the-token" }),
    );
    await waitUntil(async () => (await (await fetch(`${url}/health`)).json()).status === "failed", "the failure");
    const health = await (await fetch(`${url}/health`)).json();
    expect(health.components.discovery).toMatchObject({ state: "failed", reason: "source_configuration_failed" });
    expect(health.components.caches).toMatchObject({ state: "failed", reason: "source_configuration_failed" });
  });

  test("a required kind whose list keeps failing (500) before its cache ever filled: caches failed with cache_sync_failed", async () => {
    const url = await start(undefined, (sim) => sim.failResource("pods", 500));
    await waitUntil(async () => (await healthAt(url)).components.caches?.reason === "cache_sync_failed", "the reason");
    expect((await healthAt(url)).components["informers-core"]).toMatchObject({
      state: "degraded",
      reason: "watcher_failed",
    });
  });

  test("an API server throttling a required kind (429): caches failed with rate_limited", async () => {
    const url = await start(undefined, (sim) => sim.failResource("pods", 429));
    await waitUntil(async () => (await healthAt(url)).components.caches?.reason === "rate_limited", "rate_limited");
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
  });

  test("an API server whose list of a required kind runs out of its deadline (504 Timeout): caches failed with timeout", async () => {
    const url = await start(undefined, (sim) => sim.failResource("pods", 504));
    await waitUntil(async () => (await healthAt(url)).components.caches?.reason === "timeout", "timeout");
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
  });

  test("an API server that cancels the list of a required kind (500 context canceled): caches failed with canceled", async () => {
    const url = await start(undefined, (sim) => sim.failResource("pods", 500, "context canceled"));
    await waitUntil(async () => (await healthAt(url)).components.caches?.reason === "canceled", "canceled");
    expect((await healthAt(url)).components["informers-core"]).toMatchObject({ state: "degraded", reason: "canceled" });
  });

  test("an API server mon cannot trust: not ready, /health failed with source_configuration_failed (fix the kubeconfig's CA), still live", async () => {
    const url = await start((s) =>
      renderKubeconfig({ server: s.server.url, caCert: createSimPki("other").caCert, token: s.token }),
    );
    await waitUntil(
      async () => (await (await fetch(`${url}/health`)).json()).status === "failed",
      "the failure to show",
    );
    const health = await (await fetch(`${url}/health`)).json();
    expect(health.components.discovery).toEqual({
      state: "failed",
      reason: "source_configuration_failed",
      required: false,
    });
    expect(health.components.caches).toEqual({
      state: "failed",
      reason: "source_configuration_failed",
      required: true,
    });
    expect(health.reasons).toEqual(["source_configuration_failed"]);
    expect((await fetch(`${url}/health`)).status).toBe(503);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain("mon_source_unavailable_total 1");
    expect(metrics).toContain("mon_ready 0");
  });

  test("a required failure that does not heal for 5 minutes stops the process (spec 3.3)", async () => {
    const sim = await startSimulator();
    const { daemon, clock, fatal } = await daemonCountingFatal(
      renderKubeconfig({ server: sim.server.url, caCert: createSimPki("other").caCert, token: sim.token }),
    );
    try {
      await waitUntil(() => daemon.health.get("caches")?.state === "failed", "the caches to fail");
      await clock.advance(FATAL_AFTER_MS - 1_000);
      expect(fatal).toEqual([]);
      await clock.advance(1_000);
      expect(fatal).toEqual(["caches: source_configuration_failed"]);
    } finally {
      await daemon.stop(0);
      await sim.stop();
    }
  });

  test("an API server that cannot be reached is waited for, however long: not a reason to stop (issue 53)", async () => {
    const sim = await startSimulator();
    const kubeconfigText = sim.kubeconfig();
    const port = new URL(sim.server.url).port;
    await sim.stop();
    const { daemon, clock, fatal } = await daemonCountingFatal(kubeconfigText);
    try {
      await waitUntil(async () => {
        await clock.advance(1_000);
        return daemon.health.get("caches")?.reason === "api_unavailable";
      }, `the caches to fail with api_unavailable (port ${port} refuses)`);
      await clock.advance(3 * FATAL_AFTER_MS);
      expect(daemon.health.get("caches")?.state).toBe("failed");
      expect(fatal).toEqual([]);
    } finally {
      await daemon.stop(0);
    }
  }, 60_000);
});
