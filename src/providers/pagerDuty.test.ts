import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createOutboundClient } from "../outbound/client.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { message } from "../testing/messages.ts";
import { providerSuite } from "../testing/provider-suite.ts";
import pagerDuty, { eventsUrl } from "./pagerDuty.ts";

const KEY = "R0ut1ngK3yR0ut1ngK3yR0ut1ngK3y12";

/** A PagerDuty provider against a capture server that accepts every event (close the server after). */
async function accepting() {
  const server = await startCaptureServer();
  server.setDefault({ status: 202, body: '{"status":"success"}' });
  const provider = pagerDuty.create(v.parse(pagerDuty.options, { routingKey: KEY, url: `${server.url}/v2/enqueue` }), {
    http: createOutboundClient(),
    logger: createSilentLogger(),
    clusterName: "prod",
    stdout: () => {},
  });
  return { server, provider };
}

describe("pagerDuty", () => {
  providerSuite({
    definition: pagerDuty,
    options: (base) => ({ routingKey: KEY, url: `${base}/v2/enqueue` }),
    invalid: [
      [{}, "routingKey is required"],
      [{ routingKey: "short" }, "a routing key has 32 characters"],
      [{ routingKey: KEY, region: "ap" }, "regions are us and eu"],
    ],
    secret: KEY,
    okAnswer: { status: 202, body: '{"status":"success","message":"Event processed","dedup_key":"k"}' },
  });

  test("trigger on announce and update under the dedup key, resolve on resolve; page-tier is critical", async () => {
    const { server, provider } = await accepting();
    try {
      for (const m of [
        message("a", "announce", { mode: "page", tier: "critical" }),
        message("a", "update", { tier: "high" }),
        message("a", "resolve"),
      ])
        await provider.send(m, { signal: AbortSignal.timeout(5_000), now: 0 });
      const bodies = server.requests.map((r) => r.json());
      expect(
        server.requests.every(
          (r) => r.method === "POST" && r.path === "/v2/enqueue" && r.headers["content-type"] === "application/json",
        ),
      ).toBe(true);
      expect(bodies.map((b) => [b.event_action, b.dedup_key, b.payload?.severity])).toEqual([
        ["trigger", "mon-test-a", "critical"],
        ["trigger", "mon-test-a", "error"],
        ["resolve", "mon-test-a", undefined],
      ]);
      expect(bodies[0]).toMatchObject({
        routing_key: KEY,
        payload: { summary: "announce a", source: "prod", component: "Deployment/shop/a", class: "CrashLoopBackOff" },
      });
    } finally {
      await server.close();
    }
  });

  test("custom details carry what changed and who is hurt (issue 32)", async () => {
    const { server, provider } = await accepting();
    try {
      const text = [
        "🔴 deployment shop/web: no replica available [prod]",
        "critical · WorkloadUnavailable · 1 finding",
        "Changed: 12 min before it began, helm rolled out deployment shop/web: revision 4 → 5.",
        "Impact: service shop/web through ingress storefront (shop.example.com/): users lose it.",
      ].join("\n");
      await provider.send(message("a", "announce", { mode: "page", tier: "critical", text }), {
        signal: AbortSignal.timeout(5_000),
        now: 0,
      });
      expect(server.requests[0]!.json().payload.custom_details).toMatchObject({
        changed: "12 min before it began, helm rolled out deployment shop/web: revision 4 → 5.",
        impact: "service shop/web through ingress storefront (shop.example.com/): users lose it.",
      });
    } finally {
      await server.close();
    }
  });

  test("the EU region sends to events.eu.pagerduty.com; the default is the US endpoint", () => {
    expect(eventsUrl(v.parse(pagerDuty.options, { routingKey: KEY, region: "eu" }))).toBe(
      "https://events.eu.pagerduty.com/v2/enqueue",
    );
    expect(eventsUrl(v.parse(pagerDuty.options, { routingKey: KEY }))).toBe("https://events.pagerduty.com/v2/enqueue");
  });
});
