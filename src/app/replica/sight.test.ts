import { describe, expect, test } from "bun:test";
import { HealthRegistry } from "../../health/registry.ts";
import type { Message } from "../../model/message.ts";
import { createFakeClock } from "../../runtime/clock.ts";
import { BLIND_NOTICE_MS, type BlindThread, createSightWatch } from "./sight.ts";

function setup(
  options: {
    restored?: BlindThread[];
    keep?: (open: readonly BlindThread[]) => boolean;
    shows?: (key: string) => boolean;
  } = {},
) {
  const clock = createFakeClock(Date.UTC(2026, 10, 1, 12));
  const health = new HealthRegistry(() => clock.now());
  const sent: Message[] = [];
  const sight = createSightWatch({ health, clock, cluster: "prod", send: (m) => sent.push(m), ...options });
  return { clock, health, sent, sight };
}

describe("a monitor that goes blind does not stay silent (issue 32)", () => {
  test("kubelet statistics that stop are told once a minute on, while it lasts, and their return closes the thread", async () => {
    const { clock, health, sent, sight } = setup();
    health.set("kubelet-stats", "ok");
    sight.start();
    health.set("kubelet-stats", "degraded", { reason: "kubelet_unreachable" });
    await clock.advance(BLIND_NOTICE_MS - 10_000);
    expect(sent).toEqual([]);
    await clock.advance(10_000);
    expect(sent.map((m) => [m.action, m.incidentId])).toEqual([
      ["announce", expect.stringMatching(/^blind:kubelet-stats@/)],
    ]);
    expect(sent[0]!.text).toMatch(
      /^🟠 mon cannot see the kubelets' statistics .* in prod since 12:00:00 UTC \(1 min, kubelet unreachable\)/,
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

  test("kubelet statistics that were ok over no node were never seen: losing them once nodes come is no blind spot", async () => {
    let read = false;
    const { clock, health, sent, sight } = setup({ shows: (key) => key !== "kubelet-stats" || read });
    health.set("kubelet-stats", "ok");
    sight.start();
    await clock.advance(60_000);
    health.set("kubelet-stats", "degraded", { reason: "kubelet_unreachable" });
    await clock.advance(10 * 60_000);
    expect(sent).toEqual([]);
    // Once a round has read a node, losing the statistics is told.
    read = true;
    health.set("kubelet-stats", "ok");
    await clock.advance(10_000);
    health.set("kubelet-stats", "degraded", { reason: "kubelet_unreachable" });
    await clock.advance(2 * 60_000);
    expect(sent.map((m) => m.action)).toEqual(["announce"]);
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

  test("a thread still open when mon stops is closed then, unless a state file keeps it for the next process", async () => {
    const { clock, health, sent, sight } = setup();
    health.set("kubelet-stats", "ok");
    sight.start();
    health.set("kubelet-stats", "degraded", { reason: "kubelet_unreachable" });
    await clock.advance(3 * 60_000);
    sight.stop();
    expect(sent.map((m) => [m.action, m.incidentId])).toEqual([
      ["announce", "blind:kubelet-stats@1793534400000"],
      ["resolve", "blind:kubelet-stats@1793534400000"],
    ]);
    expect(sent[1]!.text).toBe(
      "✅ mon stopped on prod while it could not see the kubelets' statistics (node and pod memory, disk) (since 12:00:00 UTC, 3 min, kubelet unreachable); a restarted mon announces itself and watches afresh, failures that began and ended meanwhile are not seen.",
    );

    // Kept: nothing is said at the stop; the next process closes the thread once it sees again.
    let kept: readonly BlindThread[] = [];
    const keepIn = (open: readonly BlindThread[]) => {
      kept = open;
      return true;
    };
    const first = setup({ keep: keepIn });
    first.health.set("kubelet-stats", "ok");
    first.sight.start();
    first.health.set("kubelet-stats", "degraded", { reason: "kubelet_unreachable" });
    await first.clock.advance(2 * 60_000);
    first.sight.stop();
    expect(first.sent.map((m) => m.action)).toEqual(["announce"]);
    expect(kept).toEqual([
      {
        key: "kubelet-stats",
        from: Date.UTC(2026, 10, 1, 12),
        reason: "kubelet_unreachable",
        what: expect.any(String),
      },
    ]);
    const next = setup({ restored: [...kept], keep: keepIn });
    await next.clock.advance(5 * 60_000);
    next.health.set("kubelet-stats", "ok");
    next.sight.start();
    expect(next.sent.map((m) => [m.action, m.incidentId])).toEqual([["resolve", first.sent[0]!.incidentId]]);
    expect(next.sent[0]!.text).toStartWith(
      "✅ mon sees the kubelets' statistics (node and pod memory, disk) in prod again after a restart: it could not from 12:00:00 to 12:05:00 UTC (5 min",
    );
    expect(kept).toEqual([]);
  });
});
