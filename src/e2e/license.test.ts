import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeClock, type FakeClock } from "../runtime/clock.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import {
  crashPod,
  seedShop,
  startTestCluster,
  type TestCluster,
  deliverySettled,
  testClock,
} from "../testing/cluster.ts";
import { type LicenseServer, startLicenseServer } from "../testing/license-server.ts";

/**
 * Pro through the real license path (docs/license.md): the daemon reads `license.key`, activates against the
 * test license server on loopback (MON_LICENSE_URL), keeps its binding in the instance Secret, and switches
 * the edition while running. Days pass on the fake clock.
 */
const DAY = 86_400_000;
/** Days of cluster time take a while to live through, more so on a busy machine. */
const DAYS = 240_000;
const HOUR = 3_600_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, 60_000);

const secrets = mkdtempSync(join(tmpdir(), "mon-license-"));
let hookSerial = 0;
/** A Slack incoming-webhook URL through a `${file:}` credential, as Slack must be configured. */
const slackHook = (url: string) => {
  const path = join(secrets, `hook-${++hookSerial}`);
  writeFileSync(path, `${url}\n`);
  return `\${file:${path}}`;
};

interface World {
  readonly clock: FakeClock;
  readonly sim: Simulator;
  readonly licenses: LicenseServer;
  readonly slack: CaptureServer;
  readonly webhook: CaptureServer;
}

async function world(clock = testClock()): Promise<World> {
  // Bookmarks on the fake clock: while days pass, the watches stay alive as they would on a real cluster.
  const sim = await startSimulator({ timers: clock, bookmarkIntervalMs: 170_000 });
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
  const licenses = await startLicenseServer(() => clock.now());
  const slack = await startCaptureServer();
  const webhook = await startCaptureServer();
  cleanups.push(async () => {
    await sim.stop();
    await licenses.close();
    await slack.close();
    await webhook.close();
  });
  return { clock, sim, licenses, slack, webhook };
}

async function run(
  w: World,
  key: string | undefined,
  clock: FakeClock = w.clock,
  more: {
    config?: Record<string, unknown>;
    env?: Record<string, string>;
    build?: "release";
    alert?: Record<string, unknown>;
    stdout?: (text: string) => void;
  } = {},
): Promise<TestCluster> {
  const cluster = await startTestCluster(
    {
      slack: { webhook: slackHook(`${w.slack.url}/services/T1/B1/x`) },
      webhook: { url: `${w.webhook.url}/mon` },
      ...more.alert,
    },
    {
      cluster: "prod",
      // Days pass in these tests: no periodic relist (it would only cost time here).
      config: { resyncSeconds: 0, ...(key ? { license: { key } } : {}), ...more.config },
      env: { MON_LICENSE_URL: w.licenses.url, ...more.env },
      sim: w.sim,
      clock,
      ...(more.build ? { build: more.build } : {}),
      ...(more.stdout ? { stdout: more.stdout } : {}),
    },
  );
  cleanups.push(() => cluster.stopDaemon());
  return cluster;
}

const stateOf = async (cluster: TestCluster) => {
  const text = await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_license_state");
  return /mon_license_state\{state="(\w+)"\} 1/.exec(text)?.[1];
};
const texts = (s: CaptureServer) => s.requests.map((r) => r.json().text as string);
const notices = (s: CaptureServer) => texts(s).filter((t) => /Pro|license/.test(t));

/** Moves the clock `ms` forward in hour steps, as the daemon's timers would live it. */
async function pass(cluster: TestCluster, ms: number): Promise<void> {
  const until = cluster.clock.now() + ms;
  while (cluster.clock.now() < until) {
    await cluster.clock.advance(Math.min(HOUR, until - cluster.clock.now()));
    await deliverySettled(cluster.daemon);
  }
}

describe("Evaluating Pro from source (docs/license.md)", () => {
  test("scripts/license-server.ts prints a license URL and key that turn Pro on for mon run from source", async () => {
    const script = join(import.meta.dirname, "..", "..", "scripts", "license-server.ts");
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const closed = new Promise((done) => child.once("close", done));
        child.kill("SIGTERM");
        await closed;
      }
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    await waitUntil(() => out.includes("MON_LICENSE_KEY="), "the script's key", 30_000);
    const url = /export MON_LICENSE_URL=(\S+)/.exec(out)?.[1];
    const key = /export MON_LICENSE_KEY=(\S+)/.exec(out)?.[1];
    expect(url).toStartWith("http://127.0.0.1:");
    const w = await world();
    const cluster = await startTestCluster(
      { webhook: { url: `${w.webhook.url}/mon` } },
      { config: { license: { key } }, env: { MON_LICENSE_URL: url! }, sim: w.sim, clock: w.clock },
    );
    cleanups.push(() => cluster.stopDaemon());
    expect(cluster.daemon.edition()).toBe("pro");
    expect(await stateOf(cluster)).toBe("active");
  }, 60_000);
});

describe("Pro through a real license", () => {
  test(
    "a key activates Pro: both providers hear the incident, and 'Pro enabled' once",
    async () => {
      const w = await world();
      const key = w.licenses.addLicense();
      const cluster = await run(w, key);
      expect(cluster.daemon.edition()).toBe("pro");
      expect(await stateOf(cluster)).toBe("active");
      seedShop(w.sim, w.clock.now());
      await cluster.settle();
      crashPod(w.sim, "shop", "web-abc12-p0", 3, w.clock.now());
      await cluster.settle();
      await w.slack.waitFor(2);
      await w.webhook.waitFor(2);
      expect(w.webhook.requests.map((r) => r.json().action)).toEqual(["announce", "announce"]);
      expect(notices(w.webhook)).toEqual([expect.stringContaining("mon Pro is enabled: license LIC-")]);
      expect(w.webhook.requests[1]!.json()).toMatchObject({ incidentId: "Deployment/shop/web" });
      expect(w.licenses.calls("/v1/activate")).toBe(1);
      // The binding is kept in the instance Secret; the key itself is not.
      const secret = w.sim.store.get(w.sim.typeOf("", "v1", "secrets"), "mon", "mon-license-instance");
      expect(Object.keys(secret.data).sort()).toEqual([
        "clock-high-water",
        "instance-key",
        "key-sha256",
        "lease",
        "license-id",
        "state",
      ]);
      expect(JSON.stringify(secret.data)).not.toContain(Buffer.from(key).toString("base64"));
    },
    DAYS,
  );

  test.each(["pro", "community"] as const)(
    "runbooks (%s): Pro adds the reason's runbook after the built-in next steps; Community shows the steps alone",
    async (edition) => {
      const w = await world();
      const runbook = "https://runbooks.example.test/crash-loop";
      const cluster = await run(w, edition === "pro" ? w.licenses.addLicense() : undefined, w.clock, {
        config: { runbooks: { crashloopbackoff: runbook }, app: { hideProHints: true, communityProvider: "webhook" } },
      });
      expect(cluster.daemon.edition()).toBe(edition);
      seedShop(w.sim, w.clock.now());
      await cluster.settle();
      crashPod(w.sim, "shop", "web-abc12-p0", 3, w.clock.now());
      await cluster.settle();
      await waitUntil(
        () => w.webhook.requests.some((r) => r.json().incidentId === "Deployment/shop/web"),
        "the announcement",
      );
      const body = w.webhook.requests.find((r) => r.json().incidentId === "Deployment/shop/web")!.json();
      const steps = [
        "kubectl -n shop logs web-abc12-p0 -c web --previous",
        "Fix what the exit code and the last lines say (configuration, a dependency, the image), then roll out again.",
      ];
      expect(body.nextSteps).toEqual(edition === "pro" ? [...steps, `Runbook: ${runbook}`] : steps);
      expect(body.text).toContain(`Next steps:\n  ${steps[0]}`);
      if (edition === "pro") expect(body.text.split("\n").at(-1)).toBe(`  Runbook: ${runbook}`);
      else expect(body.text).not.toContain("Runbook");
    },
    DAYS,
  );

  test(
    "templates (Pro): a plain-text provider gets the reason's template, its own over the global one; a rich provider ignores them",
    async () => {
      const w = await world();
      const printed: string[] = [];
      const cluster = await run(w, w.licenses.addLicense(), w.clock, {
        config: { templates: { CrashLoopBackOff: "global: {{.Message}}" } },
        alert: { stdout: { templates: { crashloopbackoff: "{{.Message}} — page #oncall-shop" } } },
        stdout: (text) => printed.push(text),
      });
      seedShop(w.sim, w.clock.now());
      await cluster.settle();
      crashPod(w.sim, "shop", "web-abc12-p0", 3, w.clock.now());
      await cluster.settle();
      await waitUntil(() => printed.some((t) => t.includes("page #oncall-shop")), "the templated stdout message");
      expect(printed.find((t) => t.includes("page #oncall-shop"))).toBe(
        "🟠 deployment shop/web: CrashLoopBackOff in 1 pod [prod] — page #oncall-shop\n",
      );
      // The webhook (a JSON body) is rich: its text is the whole message.
      await waitUntil(
        () => w.webhook.requests.some((r) => r.json().incidentId === "Deployment/shop/web"),
        "the webhook",
      );
      const body = w.webhook.requests.find((r) => r.json().incidentId === "Deployment/shop/web")!.json();
      expect(body.text).toContain("Next steps:");
      expect(body.text).not.toContain("oncall");
    },
    DAYS,
  );

  test(
    "without the server: grace when the lease ends, Community after 7 days, with the notices in order",
    async () => {
      const w = await world();
      const cluster = await run(w, w.licenses.addLicense());
      seedShop(w.sim, w.clock.now());
      await cluster.settle();
      w.licenses.setOffline(true);
      await pass(cluster, 3 * DAY + HOUR);
      expect(await stateOf(cluster)).toBe("grace");
      expect(cluster.daemon.edition()).toBe("pro");
      await pass(cluster, 4 * DAY);
      expect(await stateOf(cluster)).toBe("expired");
      await waitUntil(() => cluster.daemon.edition() === "community", "Community after grace");
      expect(notices(w.webhook)).toEqual([
        expect.stringContaining("mon Pro is enabled"),
        expect.stringContaining("Pro continues in grace until"),
        expect.stringContaining("mon Pro is disabled: the license server was not reached in 7 days"),
      ]);
      // Community from now on: one provider (the first by name: slack) hears the next incident.
      const before = { slack: w.slack.requests.length, webhook: w.webhook.requests.length };
      crashPod(w.sim, "shop", "web-abc12-p0", 3, w.clock.now());
      await cluster.settle();
      await w.slack.waitFor(before.slack + 1);
      await deliverySettled(cluster.daemon);
      expect(w.webhook.requests.length).toBe(before.webhook);
      // The server back: Pro again at the next retry (hourly by now).
      w.licenses.setOffline(false);
      const calls = w.licenses.calls();
      for (let waited = 0; w.licenses.calls() === calls && waited < 3 * HOUR; waited += 10 * 60_000)
        await pass(cluster, 10 * 60_000);
      await waitUntil(() => cluster.daemon.edition() === "pro", "Pro again after the server answered");
    },
    DAYS,
  );

  test(
    "revoked: the next daily renewal ends Pro with the reason",
    async () => {
      const w = await world();
      const key = w.licenses.addLicense();
      const cluster = await run(w, key);
      await cluster.settle();
      w.licenses.revoke(key);
      await pass(cluster, DAY + HOUR);
      expect(await stateOf(cluster)).toBe("revoked");
      expect(notices(w.webhook).at(-1)).toBe(
        "🟠 mon Pro is disabled: the license was revoked. mon continues as Community. [prod]",
      );
    },
    DAYS,
  );

  test(
    "one license, one cluster: a second cluster with the same key is in conflict and stays Community",
    async () => {
      const w = await world();
      const key = w.licenses.addLicense();
      await run(w, key);
      const other = await world(w.clock);
      const second = await run({ ...other, licenses: w.licenses }, key);
      expect(await stateOf(second)).toBe("conflict");
      expect(second.daemon.edition()).toBe("community");
    },
    DAYS,
  );

  test(
    "an unknown key is invalid; an unreachable server at first activation is pending; a forged server grants nothing",
    async () => {
      const w = await world();
      const invalid = await run(w, "MONPRO-not-a-real-key");
      expect(await stateOf(invalid)).toBe("invalid");
      await invalid.stopDaemon();
      w.licenses.setOffline(true);
      const pending = await run(w, w.licenses.addLicense());
      expect(await stateOf(pending)).toBe("pending");
      expect(pending.daemon.edition()).toBe("community");
      await pending.stopDaemon();
      w.licenses.setOffline(false);
      w.licenses.setForged(true);
      const forged = await run(w, w.licenses.addLicense());
      expect(await stateOf(forged)).toBe("pending");
      expect(forged.daemon.edition()).toBe("community");
    },
    DAYS,
  );

  test(
    "the installer's 'remove key': deactivated-at on the instance Secret releases the binding and ends Pro",
    async () => {
      const w = await world();
      const cluster = await run(w, w.licenses.addLicense());
      await cluster.settle();
      const secrets = w.sim.typeOf("", "v1", "secrets");
      w.sim.store.patch(secrets, "mon", "mon-license-instance", "application/merge-patch+json", {
        data: { "deactivated-at": Buffer.from(new Date(w.clock.now()).toISOString()).toString("base64") },
      });
      await pass(cluster, 2 * 60_000);
      // The poll at the first minute reads the Secret over the API: its answer arrives in real time.
      await waitUntil(async () => (await stateOf(cluster)) === "community", "Pro to end");
      await waitUntil(() => w.licenses.calls("/v1/release") === 1, "the binding to be released");
      await waitUntil(() => notices(w.webhook).length === 2, "the 'Pro disabled' notice");
      expect(notices(w.webhook)[1]).toContain("mon Pro is disabled: the license key was removed");
    },
    DAYS,
  );

  test(
    "setting the clock back a day across a restart extends nothing: grace comes after the same real time",
    async () => {
      const w = await world();
      const key = w.licenses.addLicense();
      const first = await run(w, key);
      w.licenses.setOffline(true);
      await pass(first, 2 * DAY + 12 * HOUR);
      await first.stopDaemon();
      // The node's clock is set back a day; mon restarts with it.
      const behind = createFakeClock(w.clock.now() - DAY);
      const second = await run(w, key, behind);
      expect(await stateOf(second)).toBe("active");
      await pass(second, 13 * HOUR);
      // 3 days and an hour of real time since the last answer: the lease is over, whatever the clock says.
      expect(await stateOf(second)).toBe("grace");
    },
    DAYS,
  );

  test(
    "heartbeatMonitor runs with Pro: a ping at start and every interval; a failing one degrades heartbeat",
    async () => {
      const w = await world();
      const ping = await startCaptureServer();
      cleanups.push(() => ping.close());
      const url = join(secrets, "heartbeat-url");
      writeFileSync(url, `${ping.url}/ping/abc\n`);
      const cluster = await run(w, w.licenses.addLicense(), w.clock, {
        config: { heartbeatMonitor: { enabled: true, interval: 60, url: `\${file:${url}}` } },
      });
      await cluster.settle();
      await ping.waitFor(1);
      // The next ping is scheduled once the answer to the last one was read: time moves a minute at a time
      // until it went out (on a busy machine the answer may still be on its way when the clock first moves).
      const minuteUntil = (condition: () => boolean, what: string) =>
        waitUntil(async () => {
          if (condition()) return true;
          await cluster.clock.advance(60_000);
          return false;
        }, what);
      await minuteUntil(() => ping.requests.length >= 2, "the second ping");
      expect(ping.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /ping/abc", "GET /ping/abc"]);
      ping.setDefault({ status: 500, body: "no" });
      await minuteUntil(
        () => cluster.daemon.health.report().components.heartbeat?.reason === "heartbeat_failed",
        "the heartbeat to be degraded",
      );
      expect(await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_heartbeat_failures_total")).toContain(
        "mon_heartbeat_failures_total 1",
      );
    },
    DAYS,
  );

  test(
    "heartbeatMonitor enabled without a url: heartbeat degraded with source_not_configured, never silently skipped",
    async () => {
      const w = await world();
      const cluster = await run(w, w.licenses.addLicense(), w.clock, {
        config: { heartbeatMonitor: { enabled: true, interval: 60 } },
      });
      await cluster.settle();
      await waitUntil(
        () => cluster.daemon.health.report().components.heartbeat?.reason === "source_not_configured",
        "the heartbeat component",
      );
    },
    DAYS,
  );

  test(
    "a release build with Pro's state file sends telemetry a minute after start and names a newer version once",
    async () => {
      const w = await world();
      const home = await startCaptureServer();
      cleanups.push(() => home.close());
      home.setDefault((r) =>
        r.path === "/v1/latest"
          ? { status: 200, body: JSON.stringify({ version: "9.9.9" }) }
          : { status: 202, body: "" },
      );
      const cluster = await run(w, w.licenses.addLicense(), w.clock, {
        env: { MON_TELEMETRY_URL: home.url, MON_UPDATE_URL: home.url, CI: "" },
        build: "release",
      });
      await cluster.settle();
      await waitUntil(() => texts(w.webhook).some((t) => t.includes("mon 9.9.9 is available")), "the upgrade notice");
      await cluster.clock.advance(60_000);
      const beat = (await home.waitFor(2)).find((r) => r.path === "/telemetry/heartbeat");
      expect(beat!.headers["user-agent"]).toBe("mon-telemetry/1");
      expect(Object.keys(beat!.json()).sort()).toEqual(["cluster_uuid", "mon_version"]);
      expect(beat!.json().cluster_uuid).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    },
    DAYS,
  );

  test(
    "Pro settings take effect through the license: routes, severity overrides, probes, acknowledgement, maintenance, the audit log",
    async () => {
      const w = await world();
      const closed = await new Promise<number>((resolve) => {
        const probe = createServer();
        probe.listen(0, "127.0.0.1", () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => resolve(port));
        });
      });
      const audit = join(secrets, "audit.jsonl");
      const cluster = await startTestCluster(
        {
          slack: { webhook: slackHook(`${w.slack.url}/services/T1/B1/x`), routes: [{ namespaces: ["other"] }] },
          webhook: { url: `${w.webhook.url}/mon` },
        },
        {
          cluster: "prod",
          config: {
            license: { key: w.licenses.addLicense() },
            severityByReason: { crashloopbackoff: "Critical" },
            auditLog: { output: audit },
            activeProbeMonitor: {
              enabled: true,
              intervalSeconds: 30,
              failureThreshold: 3,
              tcp: [{ name: "orders-db", address: `127.0.0.1:${closed}` }],
            },
          },
          env: { MON_LICENSE_URL: w.licenses.url },
          sim: w.sim,
          clock: w.clock,
        },
      );
      cleanups.push(() => cluster.stopDaemon());
      seedShop(w.sim, w.clock.now());
      await cluster.settle();
      crashPod(w.sim, "shop", "api-abc12-p0", 4, w.clock.now());
      await cluster.settle();
      // severityByReason: the crash loop pages, in red.
      await waitUntil(() => w.webhook.requests.some((r) => r.json().incidentId === "Deployment/shop/api"), "the page");
      expect(w.webhook.requests.find((r) => r.json().incidentId === "Deployment/shop/api")!.json()).toMatchObject({
        tier: "critical",
        mode: "page",
      });
      // Routes: slack hears only of namespace `other` (and plain notices, which routes do not filter).
      await deliverySettled(cluster.daemon);
      expect(texts(w.slack).every((t) => /Pro is enabled/.test(t))).toBe(true);
      // Active probes: three refused rounds make an incident of their own.
      for (let round = 0; round < 3; round++) await w.clock.advance(30_000);
      await waitUntil(() => (cluster.daemon.probes?.latest().length ?? 0) === 1, "the probe to be reported");
      await cluster.settle();
      await waitUntil(
        () => w.webhook.requests.some((r) => r.json().incidentId === "Probe//orders-db"),
        "the probe incident",
      );
      // Acknowledgement: mon.io/ack on the crashing pod posts one update naming it.
      const pods = w.sim.typeOf("", "v1", "pods");
      const pod = w.sim.store.get(pods, "shop", "api-abc12-p0");
      w.sim.apply({ ...pod, metadata: { ...pod.metadata, annotations: { "mon.io/ack": "on it" } } });
      await cluster.settle();
      await waitUntil(
        () =>
          w.webhook.requests.some((r) => (r.json().news ?? []).includes('Acknowledged on Pod/api-abc12-p0: "on it"')),
        "the acknowledgement",
      );
      // Maintenance: a namespace under maintenance holds its new incidents back.
      w.sim.apply({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "shop", annotations: { "mon.io/maintenance": "true" } },
      });
      await cluster.settle();
      crashPod(w.sim, "shop", "web-abc12-p0", 4, w.clock.now());
      await cluster.settle();
      await deliverySettled(cluster.daemon);
      expect(w.webhook.requests.some((r) => r.json().incidentId === "Deployment/shop/web")).toBe(false);
      // The audit log: one JSON entry per decision.
      await cluster.stopDaemon();
      const entries = readFileSync(audit, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(entries.some((e) => e.incidentId === "Deployment/shop/api")).toBe(true);
    },
    DAYS,
  );
});
