import { describe, expect, test } from "bun:test";
import { HealthRegistry } from "../../health/registry.ts";
import type { Message } from "../../model/message.ts";
import { createFakeClock } from "../../runtime/clock.ts";
import { BLIND_NOTICE_MS, createSightWatch } from "./sight.ts";

function setup(silent = false) {
  const clock = createFakeClock(Date.UTC(2026, 10, 1, 12));
  const health = new HealthRegistry(() => clock.now());
  const sent: Message[] = [];
  const sight = createSightWatch({ health, clock, cluster: "prod", send: (m) => sent.push(m), silent });
  return { clock, health, sent, sight };
}

describe("a monitor that goes blind does not stay silent (issue 32)", () => {
  test("kubelet statistics that stop are told once after 5 minutes, and their return closes the thread", async () => {
    const { clock, health, sent, sight } = setup();
    health.set("kubelet-stats", "ok");
    sight.start();
    health.set("kubelet-stats", "degraded", { reason: "kubelet_unreachable" });
    await clock.advance(BLIND_NOTICE_MS - 30_000);
    expect(sent).toEqual([]);
    await clock.advance(60_000);
    expect(sent.map((m) => [m.action, m.incidentId])).toEqual([
      ["announce", expect.stringMatching(/^blind:kubelet-stats@/)],
    ]);
    expect(sent[0]!.text).toMatch(
      /^🟠 mon cannot see the kubelets' statistics .* in prod since 12:00:00 UTC \(5 min, kubelet unreachable\)/,
    );
    await clock.advance(10 * 60_000);
    expect(sent).toHaveLength(1);
    health.set("kubelet-stats", "ok");
    await clock.advance(30_000);
    expect(sent.map((m) => [m.action, m.incidentId])).toEqual([
      ["announce", sent[0]!.incidentId],
      ["resolve", sent[0]!.incidentId],
    ]);
  });

  test("what was never seen is not told (health names it from the start), nor a blink shorter than the bound", async () => {
    const { clock, health, sent, sight } = setup();
    health.set("metrics-api", "degraded", { reason: "api_unavailable" });
    health.set("discovery", "ok");
    sight.start();
    await clock.advance(20 * 60_000);
    health.set("discovery", "failed", { reason: "discovery_failed" });
    await clock.advance(BLIND_NOTICE_MS - 60_000);
    health.set("discovery", "ok");
    await clock.advance(20 * 60_000);
    expect(sent).toEqual([]);
  });

  test("several API groups failing at once are one notice naming them", async () => {
    const { clock, health, sent, sight } = setup();
    for (const g of ["apps", "batch", "policy"]) health.set(`informers-${g}`, "ok");
    sight.start();
    health.set("informers-batch", "degraded", { reason: "permission_denied" });
    health.set("informers-policy", "degraded", { reason: "permission_denied" });
    await clock.advance(BLIND_NOTICE_MS + 30_000);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toContain("mon cannot see the objects of the batch, policy API groups in prod");
  });

  test("app.disableStartupMessage silences it", async () => {
    const { clock, health, sent, sight } = setup(true);
    health.set("kubelet-stats", "ok");
    sight.start();
    health.set("kubelet-stats", "degraded", { reason: "kubelet_unreachable" });
    await clock.advance(2 * BLIND_NOTICE_MS);
    expect(sent).toEqual([]);
  });
});
