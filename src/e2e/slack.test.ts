import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeReady } from "../sim/scenarios/builders.ts";
import { startCaptureServer, waitUntil, type CaptureServer } from "../testing/capture-server.ts";
import { crashPod, seedShop, startTestCluster, type TestCluster, healPod } from "../testing/cluster.ts";

const secrets = mkdtempSync(join(tmpdir(), "mon-slack-"));
writeFileSync(join(secrets, "token"), "xoxb-test-token\n");

let cluster: TestCluster | undefined;
let slack: CaptureServer | undefined;
afterEach(async () => {
  await cluster?.stop();
  await slack?.close();
  cluster = slack = undefined;
});

/** A Slack Web API stand-in: chat.postMessage answers a fresh ts; chat.update answers ok. */
async function startSlack(): Promise<CaptureServer> {
  const server = await startCaptureServer();
  let ts = 1000;
  server.setDefault((req) => ({
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(
      req.path.endsWith("/chat.postMessage") ? { ok: true, channel: "C1", ts: `${++ts}.000100` } : { ok: true },
    ),
  }));
  return server;
}

/** A counter's total over all its series (every provider and reason). */
async function counter(c: TestCluster, name: string): Promise<number> {
  const metric = await c.daemon.metrics.registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

const posts = (server: CaptureServer) =>
  server.requests.filter((r) => r.path.endsWith("/chat.postMessage")).map((r) => r.json());

describe("slack bot: the daemon against the simulator", () => {
  test("a lost node with its pods is one announcement, news is one threaded update, recovery resolves in the thread", async () => {
    slack = await startSlack();
    cluster = await startTestCluster({
      slack: { token: `\${file:${join(secrets, "token")}}`, channel: "C1", apiUrl: slack.url },
    });
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    expect(slack.requests).toHaveLength(0);

    // One api pod crash-loops: its own incident, rooted at the Deployment.
    crashPod(sim, "shop", "api-abc12-p0", 3, clock.now());
    await cluster.settle();
    await slack.waitFor(1);
    const [crash] = posts(slack);
    expect(crash.channel).toBe("C1");
    expect(crash.text).toStartWith("🟠 *deployment shop/api: CrashLoopBackOff in 1 pod*");
    expect(crash.thread_ts).toBeUndefined();
    expect(crash.headers?.authorization).toBeUndefined();
    expect(slack.requests[0]!.headers.authorization).toBe("Bearer xoxb-test-token");

    // More restarts are not news: nothing is sent.
    crashPod(sim, "shop", "api-abc12-p0", 7, clock.now());
    await cluster.settle();
    await new Promise((r) => setTimeout(r, 50)); // no message is expected: give a wrong one time to arrive
    expect(posts(slack)).toHaveLength(1);

    // Past the update cooldown, n3 is lost: its node and its pod (shop/web) are one incident rooted at the node.
    await clock.advance(300_000);
    sim.patchStatus("v1", "Node", undefined, "n3", { conditions: [nodeReady("Unknown", clock.now())] });
    await cluster.settle();
    await slack.waitFor(2);
    const announce = posts(slack)[1];
    expect(announce.thread_ts).toBeUndefined();
    expect(announce.text).toStartWith("🟠 *node n3: unreachable, 1 pod on it down* [test]");
    expect(announce.text).toContain("went down with node n3");

    // The second api pod failing is news: one update, threaded under the api announcement.
    crashPod(sim, "shop", "api-abc12-p1", 3, clock.now());
    await cluster.settle();
    await slack.waitFor(3);
    const update = posts(slack)[2];
    expect(update.thread_ts).toBe("1001.000100");
    expect(update.text).toStartWith("🟠 *Update: deployment shop/api");
    expect(update.text).toContain("now affects 2 pods: shop/api-abc12-p0, shop/api-abc12-p1");

    // Recovery: each incident resolves in its own thread, naming what it was blamed on.
    sim.patchStatus("v1", "Node", undefined, "n3", { conditions: [nodeReady("True", clock.now())] });
    for (const pod of ["api-abc12-p0", "api-abc12-p1"]) healPod(sim, "shop", pod, 8, clock.now());
    await cluster.settle();
    await waitUntil(() => posts(slack!).length === 5, "two resolves");
    const resolves = posts(slack).slice(3);
    expect(resolves.map((r) => r.thread_ts).sort()).toEqual(["1001.000100", "1002.000100"]);
    expect(resolves.every((r) => r.text.startsWith("✅ *Resolved:"))).toBe(true);
    expect(resolves.map((r) => r.text).join("\n")).toContain("Was blamed on node n3 (NodeLost)");
    // The resolve also edits the root message so the channel shows it is over.
    await waitUntil(
      () => slack!.requests.filter((r) => r.path.endsWith("/chat.update")).length === 2,
      "root messages edited",
    );

    const metrics = await cluster.daemon.metrics.registry.metrics();
    expect(metrics).toContain('mon_incidents_total{action="announce"} 2');
    expect(metrics).toContain('mon_incidents_total{action="update"} 1');
    expect(metrics).toContain('mon_incidents_total{action="resolve"} 2');
    expect(metrics).toContain("mon_incidents_open 0");
  });
});

describe("slack webhook: retries and permanent failures", () => {
  test("a 503 is retried with backoff until it is delivered", async () => {
    slack = await startCaptureServer();
    writeFileSync(join(secrets, "hook"), `${slack.url}/services/T1/B1/x\n`);
    cluster = await startTestCluster({ slack: { webhook: `\${file:${join(secrets, "hook")}}` } });
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    slack.queue({ status: 503, body: "service unavailable" }, { status: 503, body: "service unavailable" });
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await slack.waitFor(1);
    await waitUntil(
      async () => (await counter(cluster!, "mon_delivery_retries_total")) === 1,
      "a retry to be scheduled",
    );
    await clock.advance(1_200); // first backoff: 1 s ± 20 %
    await slack.waitFor(2);
    await waitUntil(
      async () => (await counter(cluster!, "mon_delivery_retries_total")) === 2,
      "a second retry to be scheduled",
    );
    await clock.advance(2_400); // then 2 s ± 20 %
    await slack.waitFor(3);
    expect(slack.requests.map((r) => r.path)).toEqual(Array(3).fill("/services/T1/B1/x"));
    expect(slack.requests[2]!.json().text).toStartWith("🟠 *deployment shop/web: CrashLoopBackOff");
    await waitUntil(
      () => cluster!.daemon.health.report().components["provider-slack"]?.state === "ok",
      "the provider to be healthy again",
    );
    const metrics = await cluster.daemon.metrics.registry.metrics();
    expect(metrics).toContain('mon_delivery_retries_total{provider="slack",reason="server_error"} 2');
    expect(metrics).toContain('mon_delivery_notifications_total{provider="slack"} 3');
    expect(metrics).toContain('mon_delivery_dropped_total{provider="slack",reason="retry_window"} 0');
  });

  test("a 400 is not retried: the message is dead-lettered and counted", async () => {
    slack = await startCaptureServer();
    writeFileSync(join(secrets, "hook2"), `${slack.url}/services/T1/B1/y\n`);
    cluster = await startTestCluster({ slack: { webhook: `\${file:${join(secrets, "hook2")}}` } });
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    slack.setDefault({ status: 400, body: "invalid_payload" });
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await slack.waitFor(1);
    await waitUntil(() => cluster!.daemon.delivery.deadLetters().length === 1, "a dead letter");
    await clock.advance(3_600_000);
    expect(slack.requests).toHaveLength(1);
    expect(cluster.daemon.delivery.deadLetters()[0]).toMatchObject({
      provider: "slack",
      action: "announce",
      reason: "http_400: invalid_payload",
    });
    const metrics = await cluster.daemon.metrics.registry.metrics();
    expect(metrics).toContain('mon_delivery_dead_letters_total{provider="slack",reason="rejected"} 1');
    expect(metrics).toContain('mon_delivery_retries_total{provider="slack",reason="server_error"} 0');
    expect(cluster.daemon.health.report().components["provider-slack"]).toEqual({
      state: "degraded",
      reason: "provider_rejected",
      required: false,
    });
  });
});
