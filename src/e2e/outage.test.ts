import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanup } from "../testing/cleanup.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop, startTestCluster, type TestCluster, testClock } from "../testing/cluster.ts";
import { startSimulator } from "../sim/simulator.ts";

/**
 * API outages and hung connections (issue 19): a canary crash loop starts while mon cannot watch, and must
 * be announced once it can again — by the daemon's own pass loop (250 ms after a change, as `mon run`), not
 * by a pass the test asks for.
 */
const track = useCleanup();

async function cluster(hook: CaptureServer, config: Record<string, unknown> = {}): Promise<TestCluster> {
  // The API server's bookmarks (every 60 s) follow the fake clock, as they follow real time in a cluster: an
  // open watch is never idle for long unless the test makes it so.
  const clock = testClock();
  const sim = await startSimulator({ timers: clock });
  const c = track(
    await startTestCluster(
      { webhook: { url: `${hook.url}/mon` } },
      {
        sim,
        clock,
        passDelayMs: 250,
        startupMessage: true,
        config,
        cluster: "prod",
        // A hung request is given up after 300 ms of real time here (60 s and 30 s in a release).
        requestDeadlinesMs: { list: 300, watchHeaders: 300 },
      },
    ),
  );
  seedShop(c.sim, c.clock.now());
  await c.settle();
  await hook.waitFor(1); // the startup message
  return c;
}

/** The blind-spot notices the webhook received (issue 32, 41), in order. */
const notices = (hook: CaptureServer) =>
  hook.requests.map((r) => r.json()).filter((b) => String(b.incidentId).startsWith("blind:"));

const announcedCanary = (hook: CaptureServer) =>
  hook.requests.some((r) => r.json().action === "announce" && r.json().incidentId === "Deployment/shop/api");

/** Moves the fake clock `seconds` one second at a time, letting the daemon answer each step. */
async function run(c: TestCluster, seconds: number): Promise<void> {
  for (let s = 0; s < seconds; s++) {
    await c.clock.advance(1_000);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Heals the API server and waits for mon to watch again; then one pass must tell the canary. */
async function healAndExpectCanary(c: TestCluster, hook: CaptureServer, resource = "*"): Promise<void> {
  c.sim.failResource(resource, undefined);
  // Every informer retries within its backoff: at most 30 s, +20 % jitter.
  await within(c, 40, () => c.daemon.health.report().components.caches?.state === "ok", "the caches to sync again");
  // The first pass after the heal finds the crash; it waits for the crashed container's log (read over
  // loopback), then the next pass tells it: within a few seconds of the fake clock, never minutes.
  await within(c, 10, () => announcedCanary(hook), "the canary's announcement");
}

/** Moves the fake clock in 250 ms steps until `done`, at most `seconds`, waiting for the daemon after each. */
async function within(c: TestCluster, seconds: number, done: () => boolean, what: string): Promise<void> {
  for (let ms = 0; ms < seconds * 1000; ms += 250) {
    await c.clock.advance(250);
    if (
      await waitUntil(done, what, 300).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  throw new Error(`${what}: not within ${seconds} s of the fake clock`);
}

describe("API outages: what fails meanwhile is told after the heal (issue 19)", () => {
  for (const [name, status] of [
    ["every request answering 503", 503],
    ["every request answering 429 without Retry-After", 429],
    ["every request answering 500", 500],
  ] as const) {
    test(`${name} for 75 s: told while it lasts, dated from the outage; the crash loop that began meanwhile is announced in the first pass after the heal, which closes the blind thread`, async () => {
      const hook = track(await startCaptureServer());
      const c = await cluster(hook);
      const outageAt = c.clock.now();
      c.sim.failResource("*", status);
      c.sim.server.dropWatches();
      crashPod(c.sim, "shop", "api-abc12-p0", 4, c.clock.now());
      await run(c, 50);
      await waitUntil(() => c.daemon.health.report().unwatched !== undefined, "/health to say mon is blind");
      const blind = c.daemon.health.report().unwatched!;
      expect(blind.to).toBeUndefined();
      // Blind from when data was due: the outage's first failed request, not the last data before it.
      expect(Date.parse(blind.from)).toBeGreaterThanOrEqual(outageAt);
      expect(Date.parse(blind.from)).toBeLessThanOrEqual(outageAt + 5_000);
      expect(notices(hook)).toEqual([]);
      await run(c, 25);
      // A blind minute is told while it lasts (issue 41), though the harness runs with disableStartupMessage off.
      await waitUntil(() => notices(hook).length === 1, "the blind notice while the outage lasts");
      const told = notices(hook)[0]!;
      expect(told).toMatchObject({ action: "announce", delivery: "notice" });
      const since = new Date(Date.parse(blind.from)).toISOString().slice(11, 19);
      expect(told.text).toStartWith(
        `🟠 mon cannot see the cluster's objects (its required watches) in prod since ${since} UTC (1 min, `,
      );
      expect(announcedCanary(hook)).toBe(false);
      await healAndExpectCanary(c, hook);
      const period = c.daemon.health.report().unwatched!;
      expect(period.from).toBe(blind.from);
      expect(period.seconds).toBeGreaterThanOrEqual(75);
      await waitUntil(() => notices(hook).length === 2, "the end of the blind spot");
      expect(notices(hook)[1]).toMatchObject({ action: "resolve", incidentId: told.incidentId });
      expect(notices(hook)[1]!.text).toStartWith(
        `✅ mon sees the cluster's objects (its required watches) in prod again: it could not from ${since} to `,
      );
    }, 60_000);
  }
});

test("a blind spot shorter than a minute is only logged and shown in /health: providers hear nothing of it", async () => {
  const hook = track(await startCaptureServer());
  const c = await cluster(hook);
  c.sim.failResource("*", 503);
  c.sim.server.dropWatches();
  await run(c, 20);
  c.sim.failResource("*", undefined);
  // Every informer retries within its backoff: at most 30 s, +20 % jitter — the blind spot stays under a minute.
  await within(c, 40, () => c.daemon.health.report().components.caches?.state === "ok", "the caches to sync again");
  const period = c.daemon.health.report().unwatched!;
  expect(period.seconds).toBeLessThan(60);
  await run(c, 30);
  expect(notices(hook)).toEqual([]);
  expect(hook.requests.some((r) => String(r.json().incidentId).startsWith("unwatched@"))).toBe(false);
}, 60_000);

test("every request answering 429 with Retry-After: 1 for 60 s: mon comes back within seconds of the heal, not after its backoff", async () => {
  const hook = track(await startCaptureServer());
  const c = await cluster(hook);
  c.sim.failResource("*", 429, "Too many requests, please try again later.", { retryAfterSeconds: 1 });
  c.sim.server.dropWatches();
  crashPod(c.sim, "shop", "api-abc12-p0", 4, c.clock.now());
  await run(c, 60);
  c.sim.failResource("*", undefined);
  // Informers retry every 1 s (±20 %) as told: a few seconds of the fake clock bring them all back (their
  // backoff would be 30 s by now).
  await within(c, 5, () => c.daemon.health.report().components.caches?.state === "ok", "the caches to sync again");
  await within(c, 10, () => announcedCanary(hook), "the canary's announcement");
}, 60_000);

describe("hung connections: a request that never answers is given up, said in /health, and retried (issue 19)", () => {
  test("a watch that gets no response headers: informers-core degraded with timeout, mon blind, the crash loop told after the heal", async () => {
    const hook = track(await startCaptureServer());
    const c = await cluster(hook);
    c.sim.failResource("pods", 0);
    c.sim.server.dropWatches();
    crashPod(c.sim, "shop", "api-abc12-p0", 4, c.clock.now());
    await waitUntil(
      () => c.daemon.health.report().components["informers-core"]?.reason === "timeout",
      "the hung watch to be given up",
    );
    expect(c.daemon.health.report().components.caches).toMatchObject({ state: "failed", reason: "timeout" });
    expect(c.daemon.health.report().unwatched).toMatchObject({ reason: "timeout" });
    await healAndExpectCanary(c, hook, "pods");
  }, 60_000);

  test("a list that never answers (a relist at resync): given up as timeout, the crash loop told after the heal", async () => {
    const hook = track(await startCaptureServer());
    const c = await cluster(hook, { resyncSeconds: 30 });
    c.sim.failResource("pods", 0);
    crashPod(c.sim, "shop", "api-abc12-p0", 4, c.clock.now());
    // The pods watch is still open and tells the crash at once; the hang is the relist at resync.
    await c.clock.advance(30_000);
    await waitUntil(
      () => c.daemon.health.report().components["informers-core"]?.reason === "timeout",
      "the hung list to be given up",
    );
    await healAndExpectCanary(c, hook, "pods");
  }, 60_000);
});

test("every open watch goes silent (half-open connections): the check of the first silent minute finds what they missed, mon relists, the crash loop that began 5 s later is told within 90 s, and /health and one notice name the blind period (issues 30, 40)", async () => {
  const hook = track(await startCaptureServer());
  const c = await cluster(hook);
  await run(c, 61);
  c.sim.server.stallWatches("*");
  const silentAt = c.clock.now();
  await run(c, 5);
  const crashedAt = c.clock.now();
  crashPod(c.sim, "shop", "api-abc12-p0", 4, crashedAt);
  const stalls = async () =>
    Number(
      /mon_component_stalls_total (\d+)/.exec(
        await c.daemon.metrics.registry.getSingleMetricAsString("mon_component_stalls_total"),
      )?.[1] ?? 0,
    );
  // No check is due before a minute of silence; then one fake second at a time, each given the real time a check
  // takes (a second watch that answers at once, a confirmation of 2 s), so the fake clock does not run ahead of it.
  await run(c, 45);
  expect(await stalls()).toBe(0);
  for (let s = 0; s < 60 && (await stalls()) === 0; s++) {
    await c.clock.advance(1_000);
    await waitUntil(async () => (await stalls()) > 0, "the stall", 3_000).catch(() => {});
  }
  const noticedAfter = (c.clock.now() - crashedAt) / 1000;
  // Checked a minute after the watch was last known current (at most when the silence began).
  expect(noticedAfter).toBeLessThanOrEqual(60);
  // … then the relist and the passes, each step waiting for the daemon.
  await within(c, 30, () => announcedCanary(hook), "the canary's announcement");
  const toldAfter = (c.clock.now() - crashedAt) / 1000;
  expect(toldAfter).toBeLessThanOrEqual(90);
  // Blind from when the watches were last known current, not from when the silence was noticed.
  const period = c.daemon.health.report().unwatched!;
  expect(period).toMatchObject({ reason: "component_stalled" });
  expect(Date.parse(period.from)).toBeLessThanOrEqual(silentAt);
  expect(Date.parse(period.to!)).toBeGreaterThan(crashedAt);
  await waitUntil(() => hook.requests.some((r) => r.json().incidentId?.startsWith("unwatched@")), "the notice");
  const notice = hook.requests.find((r) => r.json().incidentId?.startsWith("unwatched@"))!.json();
  expect(notice.text).toContain("its watches stopped delivering changes");
  await waitUntil(() => c.daemon.health.report().components.caches?.state === "ok", "the caches to be current again");
}, 120_000);

test("a quiet cluster is not a silent one: 10 minutes without a change, most kinds without a single bookmark (as on kube-apiserver v1.32), stall nothing", async () => {
  const hook = track(await startCaptureServer());
  const c = await cluster(hook);
  await run(c, 600);
  expect(await c.daemon.metrics.registry.getSingleMetricAsString("mon_component_stalls_total")).toContain(
    "mon_component_stalls_total 0",
  );
  expect(c.daemon.health.report().unwatched).toBeUndefined();
}, 60_000);

describe("no blind thread is left open by a restart (issue 41)", () => {
  for (const edition of ["community", "pro"] as const)
    test(`${edition}: a blind minute told, then mon stops while still blind; ${edition === "pro" ? "the next process closes the thread once it sees" : "the stopping process closes it, saying so"}`, async () => {
      const hook = track(await startCaptureServer());
      const dataDir = mkdtempSync(join(tmpdir(), "mon-blind-"));
      const clock = testClock();
      const sim = await startSimulator({ timers: clock });
      const options = {
        sim,
        clock,
        passDelayMs: 250,
        cluster: "prod",
        edition,
        dataDir,
        requestDeadlinesMs: { list: 300, watchHeaders: 300 },
      };
      const first = await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, options);
      seedShop(sim, clock.now());
      await first.settle();
      sim.failResource("*", 503);
      sim.server.dropWatches();
      await run(first, 75);
      await waitUntil(() => notices(hook).length === 1, "the blind notice while the outage lasts");
      const thread = notices(hook)[0]!.incidentId;
      // Stopped while blind (as after 5 minutes without its required watches): what it sends drains first.
      await first.daemon.stop(10_000);
      if (edition === "community") {
        expect(notices(hook).map((n) => [n.action, n.incidentId])).toEqual([
          ["announce", thread],
          ["resolve", thread],
        ]);
        expect(notices(hook)[1]!.text).toStartWith(
          "✅ mon stopped on prod while it could not see the cluster's objects (its required watches) (since ",
        );
      } else expect(notices(hook)).toHaveLength(1);
      sim.failResource("*", undefined);
      await clock.advance(5 * 60_000);
      const second = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, options));
      await within(second, 30, () => notices(hook).length === 2, "the thread to be closed");
      expect(notices(hook)[1]).toMatchObject({ action: "resolve", incidentId: thread });
      if (edition === "pro")
        expect(notices(hook)[1]!.text).toMatch(
          /^✅ mon sees the cluster's objects \(its required watches\) in prod again after a restart: it could not from \d\d:\d\d:\d\d to \d\d:\d\d:\d\d UTC \(6 min, /,
        );
      await run(second, 30);
      expect(notices(hook)).toHaveLength(2);
    }, 120_000);
});
