import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Simulator } from "../sim/simulator.ts";
import { startCaptureServer, waitUntil, type CaptureServer } from "../testing/capture-server.ts";
import {
  crashPod,
  deliverySettled,
  seedShop,
  seedWorkload,
  startTestCluster,
  type TestCluster,
  healPod,
} from "../testing/cluster.ts";

let cluster: TestCluster | undefined;
const servers: CaptureServer[] = [];
afterEach(async () => {
  await cluster?.stop();
  for (const s of servers.splice(0)) await s.close();
  cluster = undefined;
});
const capture = async () => {
  const s = await startCaptureServer();
  servers.push(s);
  return s;
};
const secrets = mkdtempSync(join(tmpdir(), "mon-delivery-"));
const slackHook = (url: string) => {
  const path = join(secrets, `hook-${servers.length}`);
  writeFileSync(path, `${url}\n`);
  return `\${file:${path}}`;
};

/** The shop seeded and watched by a daemon whose one provider is the webhook at `hook`, with `options` added to its own. */
async function shopCluster(hook: CaptureServer, options: Record<string, unknown> = {}): Promise<TestCluster> {
  const c = await startTestCluster({ webhook: { url: `${hook.url}/mon`, ...options } }, { cluster: "prod" });
  seedShop(c.sim, c.clock.now());
  await c.settle();
  return c;
}

/**
 * Moves the fake clock `ms`, then sends a request of our own to `hook`: it arrives after any attempt the step
 * sent, so an attempt is seen at its step whatever the machine's speed.
 */
async function step(hook: CaptureServer, ms: number): Promise<void> {
  await cluster!.clock.advance(ms);
  await fetch(`${hook.url}/barrier`, { method: "POST", body: "{}" });
  await attemptsArrived(hook);
}

/**
 * Waits until every attempt mon started (counted in mon_delivery_notifications_total as it starts) has reached
 * `hook`: on a busy machine a request can still be on its way when the test moves on, and be answered or timed
 * as if it came later.
 */
async function attemptsArrived(hook: CaptureServer): Promise<void> {
  const started = async () =>
    Number(
      /^mon_delivery_notifications_total\{provider="webhook"\} (\d+)/m.exec(
        await cluster!.daemon.metrics.registry.metrics(),
      )?.[1] ?? 0,
    );
  await waitUntil(async () => attemptsAt(hook).length >= (await started()), "every attempt mon started to arrive");
}

/** Requests of mon's, not the test's barriers. */
const attemptsAt = (hook: CaptureServer) => hook.requests.filter((r) => r.path !== "/barrier");

/** A Deployment `name` in shop with `pods` running pods (`<name>-abc12-p<i>`) on n1. */
function addApp(sim: Simulator, name: string, now: number, pods = 1): void {
  seedWorkload(
    sim,
    "shop",
    name,
    Array.from({ length: pods }, () => "n1"),
    now,
  );
}

describe("delivery end to end (spec 6 items 1-6)", () => {
  test("hourly budget of 3 with 10 announcements: 3 are sent, then one overflow digest counts the 7 others", async () => {
    const hook = await capture();
    cluster = await startTestCluster({ webhook: { url: `${hook.url}/mon`, hourlyBudget: 3 } }, { cluster: "prod" });
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    const names = Array.from({ length: 10 }, (_, i) => `app${i}`);
    for (const n of names) addApp(sim, n, clock.now());
    await cluster.settle();
    // One crash per pass, so each is an announcement of its own rather than one roll-up.
    for (const n of names) {
      crashPod(sim, "shop", `${n}-abc12-p0`, 3, clock.now(), `panic: ${n} failed`);
      await cluster.settle();
    }
    await hook.waitFor(3);
    expect(hook.requests.map((r) => r.json().incidentId)).toEqual([
      "Deployment/shop/app0",
      "Deployment/shop/app1",
      "Deployment/shop/app2",
    ]);
    // The clock moves once delivery has folded all 7 (on a busy machine the last may still be queued).
    const folded = () => cluster!.daemon.metrics.registry.getSingleMetricAsString("mon_delivery_budget_folded_total");
    await waitUntil(async () => (await folded()).includes('{provider="webhook"} 7'), "7 folded messages");
    await clock.advance(10 * 60_000);
    await cluster.settle();
    const [, , , digest] = await hook.waitFor(4);
    expect(digest!.json().text.split("\n")[0]).toBe(
      "🟠 Overflow digest: 7 notifications held back by the hourly budget [prod]",
    );
    expect(digest!.json().text).toContain("• CrashLoopBackOff: 7");
    expect(await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_delivery_budget_folded_total")).toContain(
      'mon_delivery_budget_folded_total{provider="webhook"} 7',
    );
  });

  test("Pro: a provider that rejects for good hands the message to its fallback; the resolve follows it there", async () => {
    const slack = await capture();
    const hook = await capture();
    slack.setDefault({ status: 401, body: "invalid_auth" });
    cluster = await startTestCluster(
      {
        slack: { webhook: slackHook(`${slack.url}/services/T1/B1/x`), fallback: "webhook" },
        webhook: { url: `${hook.url}/mon`, routes: [{ namespaces: ["other"] }] },
      },
      { cluster: "prod", edition: "pro" },
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    // The webhook's routes do not cover shop: it hears of this only as slack's fallback.
    const [announce] = await hook.waitFor(1);
    expect(announce!.json()).toMatchObject({ action: "announce", incidentId: "Deployment/shop/web" });
    expect(cluster.daemon.health.report().components["provider-slack"]).toMatchObject({
      state: "degraded",
      reason: "provider_rejected",
    });
    healPod(sim, "shop", "web-abc12-p0", 4, clock.now());
    await cluster.settle();
    const [, resolve] = await hook.waitFor(2);
    expect(resolve!.json()).toMatchObject({ action: "resolve", incidentId: "Deployment/shop/web" });
    // Slack rejects the resolve too; the webhook already has it and does not get it twice.
    await waitUntil(() => cluster!.daemon.delivery.deadLetters().length === 2, "slack's second dead letter");
    await deliverySettled(cluster.daemon);
    expect(hook.requests).toHaveLength(2);
    const metric = (name: string) => cluster!.daemon.metrics.registry.getSingleMetricAsString(name);
    expect(await metric("mon_delivery_dead_letters_total")).toContain(
      'mon_delivery_dead_letters_total{provider="slack",reason="unauthorized"} 2',
    );
    expect(await metric("mon_delivery_dropped_total")).toContain(
      'mon_delivery_dropped_total{provider="slack",reason="retry_window"} 0',
    );
    expect(await metric("mon_delivery_terminal_errors_total")).toContain(
      'mon_delivery_terminal_errors_total{provider="slack",reason="unauthorized"} 0',
    );
  });

  test("429 without Retry-After waits 5 s, then 10 s (± 20 %); with Retry-After it waits what the server says", async () => {
    const hook = await capture();
    cluster = await shopCluster(hook);
    const { sim, clock } = cluster;
    let sent = 0;
    hook.setDefault((request) => {
      if (request.path === "/barrier") return { status: 200, body: "ok" };
      sent += 1;
      if (sent <= 2) return { status: 429, body: "slow down" };
      if (sent === 3) return { status: 429, body: "slow down", headers: { "retry-after": "30" } };
      return { status: 200, body: "ok" };
    });
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await waitUntil(() => sent === 1, "the first attempt");
    // Step the fake clock a quarter second at a time and note when each attempt arrives.
    const arrivals = [clock.now()];
    const attempts = () => attemptsAt(hook).length;
    while (arrivals.length < 4) {
      await step(hook, 250);
      if (attempts() > arrivals.length) arrivals.push(clock.now());
      if (clock.now() - arrivals[0]! > 120_000) throw new Error(`only ${hook.requests.length} attempts in 2 minutes`);
    }
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(4_000);
    expect(gaps[0]).toBeLessThanOrEqual(6_250);
    expect(gaps[1]).toBeGreaterThanOrEqual(8_000);
    expect(gaps[1]).toBeLessThanOrEqual(12_250);
    expect(gaps[2]).toBeGreaterThanOrEqual(30_000);
    expect(gaps[2]).toBeLessThanOrEqual(30_500);
    expect(attemptsAt(hook).map((r) => r.json().action)).toEqual(["announce", "announce", "announce", "announce"]);
  });

  test("a provider down for an hour: every message arrives once it is back, in order per conversation", async () => {
    const hook = await capture();
    cluster = await shopCluster(hook);
    const { sim, clock } = cluster;
    hook.setDefault({ status: 503, body: "down" });
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await clock.advance(6 * 60_000);
    crashPod(sim, "shop", "api-abc12-p0", 3, clock.now());
    await cluster.settle();
    for (let i = 0; i < 12; i++) await clock.advance(5 * 60_000);
    healPod(sim, "shop", "web-abc12-p0", 4, clock.now());
    await cluster.settle();
    // Every attempt mon started has arrived, and was refused, before the provider comes back.
    await attemptsArrived(hook);
    // Every attempt so far was refused; the provider comes back while mon waits out a backoff.
    const refused = hook.requests.length;
    hook.setDefault({ status: 200, body: "ok" });
    await clock.advance(5 * 60_000);
    await hook.waitFor(refused + 2);
    await waitUntil(() => cluster!.daemon.delivery.depth("webhook") === 0, "the queue to drain");
    const delivered = hook.requests.slice(refused).map((r) => `${r.json().action} ${r.json().incidentId}`);
    // The web announcement never reached anyone: it and its resolve became one combined message. Each
    // message arrives exactly once; nothing was given up.
    expect(delivered.sort()).toEqual(["announce Deployment/shop/api", "opened_resolved Deployment/shop/web"]);
    expect(await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_delivery_dropped_total")).toContain(
      'mon_delivery_dropped_total{provider="webhook",reason="retry_window"} 0',
    );
  });

  test("retry.delay replaces the backoff and retry.maxAttempts gives up: 3 attempts 30 s apart, then dropped and counted", async () => {
    const hook = await capture();
    cluster = await startTestCluster(
      { webhook: { url: `${hook.url}/mon`, retry: { maxAttempts: 3, delay: "30s" } } },
      { cluster: "prod" },
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    hook.setDefault({ status: 503, body: "down" });
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await hook.waitFor(1);
    const metric = (name: string) => cluster!.daemon.metrics.registry.getSingleMetricAsString(name);
    // The clock moves only once the retry is scheduled (the 503 was read and the wait set on the fake clock).
    const scheduled = (n: number) =>
      waitUntil(
        async () =>
          (await metric("mon_delivery_retries_total")).includes(
            `mon_delivery_retries_total{provider="webhook",reason="server_error"} ${n}`,
          ),
        `retry ${n} to be scheduled`,
      );
    await scheduled(1);
    // The message waits in the outbox between attempts.
    expect(await metric("mon_delivery_outbox_depth")).toContain("mon_delivery_outbox_depth 1");
    // The built-in backoff would try again within seconds; the configured delay waits exactly 30 s.
    await clock.advance(29_000);
    expect(hook.requests).toHaveLength(1);
    await clock.advance(1_000);
    await hook.waitFor(2);
    await scheduled(2);
    await clock.advance(30_000);
    await hook.waitFor(3);
    // The third attempt was the last: nothing more, however long the provider stays down.
    await waitUntil(
      async () =>
        (await cluster!.daemon.metrics.registry.getSingleMetricAsString("mon_delivery_dropped_total")).includes(
          'mon_delivery_dropped_total{provider="webhook",reason="retries_exhausted"} 1',
        ),
      "the message to be given up and counted",
    );
    for (let i = 0; i < 10; i++) await clock.advance(60_000);
    expect(hook.requests).toHaveLength(3);
    expect(await metric("mon_delivery_outbox_depth")).toContain("mon_delivery_outbox_depth 0");
    expect(hook.requests.every((r) => r.json().incidentId === "Deployment/shop/web")).toBe(true);
  });

  test("an incident with more findings than a message lists counts the ones left out (mon_rendered_details_omitted_total)", async () => {
    const hook = await capture();
    cluster = await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" });
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    addApp(sim, "batch", clock.now(), 12);
    await cluster.settle();
    for (let i = 0; i < 12; i++) crashPod(sim, "shop", `batch-abc12-p${i}`, 3, clock.now());
    await cluster.settle();
    const [told] = await hook.waitFor(1);
    expect(told!.json().text).toContain("… and 2 more");
    expect(
      await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_rendered_details_omitted_total"),
    ).toContain("mon_rendered_details_omitted_total 2");
  });

  test("a shutdown whose drain runs out of time with messages queued: counted deferred, provider_shutdown_timeout", async () => {
    const hook = await capture();
    cluster = await shopCluster(hook);
    const { sim, clock } = cluster;
    hook.setDefault({ status: 503, body: "down" });
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await hook.waitFor(1);
    const daemon = cluster.daemon;
    // The drain waits on the fake clock: move it, a step at a time, until the shutdown is over.
    let done = false;
    const stopped = cluster.stopDaemon().then(() => {
      done = true;
    });
    await waitUntil(async () => {
      if (!done) await clock.advance(1_000);
      return done;
    }, "the shutdown");
    await stopped;
    expect(await daemon.metrics.registry.getSingleMetricAsString("mon_delivery_deferred_total")).toContain(
      'mon_delivery_deferred_total{provider="webhook"} 1',
    );
    expect(daemon.health.report().components["provider-webhook"]).toMatchObject({
      state: "degraded",
      reason: "provider_shutdown_timeout",
    });
  });
});

describe("delivery faults that must neither hammer nor stall (issue 19)", () => {
  for (const retryAfter of ["0", "-1", "Sat, 01 Jan 2000 00:00:00 GMT"]) {
    test(`a 503 with Retry-After: ${retryAfter} counts as no hint: at most one attempt a second (6 in 30 s, the backoff)`, async () => {
      const hook = await capture();
      cluster = await shopCluster(hook);
      const { sim, clock } = cluster;
      hook.setDefault((request) =>
        request.path === "/barrier"
          ? { status: 200, body: "ok" }
          : { status: 503, body: "down", headers: { "retry-after": retryAfter } },
      );
      crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
      await cluster.settle();
      const attempts = () => attemptsAt(hook).length;
      await waitUntil(() => attempts() === 1, "the first attempt");
      for (let ms = 0; ms < 30_000; ms += 1_000) await step(hook, 1_000);
      // 1, 2, 4, 8, 16 s (± 20 %) after the first: 5 or 6 attempts in 30 s; with no backoff it would be hundreds.
      expect(attempts()).toBeGreaterThanOrEqual(5);
      expect(attempts()).toBeLessThanOrEqual(6);
      // The receiver comes back: the message goes out at its next attempt, and nothing is left to stop.
      hook.setDefault({ status: 200, body: "ok" });
      await clock.advance(36_000);
      await waitUntil(() => cluster!.daemon.delivery.depth("webhook") === 0, "the queue to drain");
    });
  }

  test("a receiver that never answers is given up on after the provider's timeoutSeconds (timeout), not waited for forever", async () => {
    const hook = await capture();
    cluster = await shopCluster(hook, { timeoutSeconds: 1 });
    const { sim, clock } = cluster;
    hook.setDefault({ status: 200, body: "ok", hang: true });
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await hook.waitFor(1);
    // The request is still open at the receiver; mon gives up on it after 1 s and schedules a retry.
    await waitUntil(
      async () =>
        (await cluster!.daemon.metrics.registry.getSingleMetricAsString("mon_delivery_retries_total")).includes(
          'mon_delivery_retries_total{provider="webhook",reason="timeout"} 1',
        ),
      "the attempt to time out",
      10_000,
    );
    hook.setDefault({ status: 200, body: "ok" });
    await clock.advance(2_000);
    await waitUntil(() => cluster!.daemon.delivery.depth("webhook") === 0, "the retry to be delivered");
  });

  test("a provider back after 10 minutes down: its queued messages are all delivered within 36 s", async () => {
    const hook = await capture();
    cluster = await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" });
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    addApp(sim, "cart", clock.now());
    await cluster.settle();
    hook.setDefault({ status: 503, body: "down" });
    for (const pod of ["web-abc12-p0", "api-abc12-p0", "cart-abc12-p0"]) {
      crashPod(sim, "shop", pod, 3, clock.now());
      await cluster.settle();
      await clock.advance(60_000);
    }
    for (let i = 0; i < 20; i++) await step(hook, 30_000);
    // Every refused attempt is waiting out its backoff (a busy machine may still be handling the last answer):
    // the wait is timed from here.
    const retries = async () =>
      [
        ...(await cluster!.daemon.metrics.registry.metrics()).matchAll(
          /^mon_delivery_retries_total\{provider="webhook",[^}]*\} (\d+)/gm,
        ),
      ].reduce((n, m) => n + Number(m[1]), 0);
    await waitUntil(async () => (await retries()) >= attemptsAt(hook).length, "every refused attempt to be handled");
    const back = clock.now();
    const arrivals: number[] = [];
    hook.setDefault((request) => {
      if (request.path !== "/barrier") arrivals.push(clock.now());
      return { status: 200, body: "ok" };
    });
    // A second of the fake clock at a time, each arrival noted at its step.
    for (let s = 0; s < 60 && arrivals.length < 3; s++) await step(hook, 1_000);
    // The head message waited at most 30 s (+20 %); the two behind it followed, each delivered at its first
    // attempt (a step or two of the clock for their loopback requests; none waited out a backoff).
    expect(arrivals).toHaveLength(3);
    expect(arrivals[0]! - back).toBeLessThanOrEqual(36_000);
    expect(arrivals[2]! - arrivals[0]!).toBeLessThanOrEqual(3_000);
    await waitUntil(() => cluster!.daemon.delivery.depth("webhook") === 0, "the queue to drain");
  });
});
