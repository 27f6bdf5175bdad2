import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createOutboundClient } from "../outbound/client.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { message } from "../testing/messages.ts";
import { renderTestAlert } from "../notify/notice.ts";
import { providerSuite } from "../testing/provider-suite.ts";
import alertmanager from "./alertmanager.ts";

describe("alertmanager", () => {
  providerSuite({
    definition: alertmanager,
    options: (base) => ({ urls: [base], bearerToken: "am-proxy-secret" }),
    invalid: [
      [{ urls: [] }, "at least one replica"],
      [{ urls: ["https://a"], repostSeconds: 1 }, "re-post at most every 10 s"],
    ],
    secret: "am-proxy-secret",
  });

  test("posted to every replica; open alerts are re-posted before they expire; the resolve ends them and the re-posting", async () => {
    const a = await startCaptureServer();
    const b = await startCaptureServer();
    try {
      const clock = createFakeClock(Date.parse("2026-01-01T00:00:00Z"));
      const provider = alertmanager.create(v.parse(alertmanager.options, { urls: [a.url, b.url], repostSeconds: 60 }), {
        http: createOutboundClient(),
        logger: createSilentLogger(),
        clusterName: "prod",
        stdout: () => {},
        clock,
      });
      const m = (action: "announce" | "update" | "resolve", mode: "page" | "notify" = "notify") =>
        message("Deployment/shop/api", action, {
          mode,
          dedupKey: "mon-prod-deployment-shop-api",
          root: { kind: "Deployment", namespace: "shop", name: "api" },
          at: clock.now(),
        });
      expect(await provider.send(m("announce"), { signal: AbortSignal.timeout(5_000), now: clock.now() })).toEqual({
        kind: "ok",
      });
      expect([a.requests.length, b.requests.length]).toEqual([1, 1]);
      const first = a.requests[0]!.json()[0];
      expect(a.requests[0]!.path).toBe("/api/v2/alerts");
      expect(first.labels).toEqual({
        alertname: "MonIncident",
        mon_dedup_key: "mon-prod-deployment-shop-api",
        cluster: "prod",
        namespace: "shop",
        severity: "warning",
      });
      expect(Date.parse(first.endsAt) - clock.now()).toBe(180_000);
      // Escalation keeps the alert's identity: the severity label stays as announced.
      await provider.send(m("update", "page"), { signal: AbortSignal.timeout(5_000), now: clock.now() });
      expect(a.requests[1]!.json()[0].labels.severity).toBe("warning");
      await clock.advance(60_000);
      await a.waitFor(3);
      expect(Date.parse(a.requests[2]!.json()[0].endsAt)).toBe(clock.now() + 180_000);
      await provider.send(m("resolve"), { signal: AbortSignal.timeout(5_000), now: clock.now() });
      expect(Date.parse(a.requests[3]!.json()[0].endsAt)).toBe(clock.now());
      await clock.advance(300_000);
      await new Promise((r) => setTimeout(r, 20));
      expect(a.requests).toHaveLength(4);
      provider.close?.();
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("a test alert is posted once, valid for three periods, and never re-posted", async () => {
    const a = await startCaptureServer();
    try {
      const clock = createFakeClock(Date.parse("2026-01-01T00:00:00Z"));
      const provider = alertmanager.create(v.parse(alertmanager.options, { urls: [a.url], repostSeconds: 60 }), {
        http: createOutboundClient(),
        logger: createSilentLogger(),
        clusterName: "prod",
        stdout: () => {},
        clock,
      });
      const test = renderTestAlert("1.0.0", "prod", clock.now());
      expect(await provider.send(test, { signal: AbortSignal.timeout(5_000), now: clock.now() })).toEqual({
        kind: "ok",
      });
      const posted = a.requests[0]!.json()[0];
      expect(posted.labels.mon_dedup_key).toBe(test.dedupKey);
      expect(Date.parse(posted.endsAt) - clock.now()).toBe(180_000);
      await clock.advance(300_000);
      await new Promise((r) => setTimeout(r, 20));
      expect(a.requests).toHaveLength(1);
      provider.close?.();
    } finally {
      await a.close();
    }
  });
});
