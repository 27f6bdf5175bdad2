import { describe, expect, test } from "bun:test";
import type { Decision } from "../model/decision.ts";
import type { Incident } from "../model/incident.ts";
import {
  MAX_SUMMARY_INCIDENTS,
  renderDigest,
  renderOverflowDigest,
  renderRollUpClosed,
  renderSummary,
} from "./summary.ts";

function decision(name: string, mode: Incident["mode"], summary = `${name} crash-looping`): Decision {
  const incident: Incident = {
    id: `Deployment/shop/${name}`,
    root: { kind: "Deployment", namespace: "shop", name },
    rootReason: "CrashLoopBackOff",
    tier: mode === "page" ? "critical" : "medium",
    mode,
    findings: [
      {
        key: name,
        reason: "CrashLoopBackOff",
        object: { kind: "Pod", namespace: "shop", name: `${name}-1` },
        tier: "medium",
        summary,
        evidence: [],
        since: 0,
      },
    ],
    openedAt: 0,
    phase: "open",
    told: [],
    dedupKey: `mon-prod-deployment-shop-${name}-${mode}`,
    revision: 1,
  };
  return { action: "announce", incident, news: [], at: 5_000, delivery: "startup summary" };
}

describe("renderSummary and renderRollUpClosed (spec 1.7, 6)", () => {
  test("one message lists every problem open at startup, paging ones first, and names the incidents it covers", () => {
    const { message } = renderSummary("startup summary", [decision("web", "notify"), decision("api", "page")], "prod");
    expect(message.text.split("\n")).toEqual([
      "🔴 Startup summary: 2 problems already open [prod]",
      "These were failing when mon started; each is updated and resolved from here, new problems are announced on their own.",
      "• deployment shop/api: CrashLoopBackOff in 1 pod (critical, pages)",
      "• deployment shop/web: CrashLoopBackOff in 1 pod (medium)",
    ]);
    expect(message).toMatchObject({
      delivery: "startup summary",
      covers: ["Deployment/shop/api", "Deployment/shop/web"],
      tier: "critical",
      action: "announce",
      root: { kind: "Cluster", name: "prod" },
    });
  });

  test("red only when something pages; credentials in evidence are redacted and counted", () => {
    const { message, redacted } = renderSummary(
      "startup summary",
      [decision("web", "notify", "refused postgres://app:hunter2@db:5432/x")],
      "prod",
    );
    expect(message.text).toStartWith("🟠 Startup summary: 1 problem already open [prod]");
    expect(message.findings[0]!.summary).not.toContain("hunter2");
    expect(redacted).toBe(1);
  });

  test("a long list is cut and the rest counted", () => {
    const many = Array.from({ length: MAX_SUMMARY_INCIDENTS + 3 }, (_, i) =>
      decision(`app${String(i).padStart(2, "0")}`, "notify"),
    );
    const { message } = renderSummary("startup summary", many, "prod");
    expect(message.text.split("\n").at(-1)).toBe("… and 3 more");
    expect(message.covers).toHaveLength(MAX_SUMMARY_INCIDENTS + 3);
  });

  test("a roll-up names the announcements of one pass; its closing message follows it when the last resolves", () => {
    const { message } = renderSummary("roll-up", [decision("web", "notify"), decision("api", "notify")], "prod");
    expect(message.text.split("\n")).toEqual([
      "🟠 2 new problems [prod]",
      "They started together; each gets its own message when it changes or resolves.",
      "• deployment shop/api: CrashLoopBackOff in 1 pod (medium)",
      "• deployment shop/web: CrashLoopBackOff in 1 pod (medium)",
    ]);
    expect(message).toMatchObject({ incidentId: "roll-up@5000", delivery: "roll-up", action: "announce" });
    const closed = renderRollUpClosed(
      { id: "roll-up@5000", openedAt: Date.UTC(2026, 10, 22, 8, 1), covers: ["a", "b"] },
      Date.UTC(2026, 10, 22, 8, 13),
      "prod",
    );
    expect(closed.text).toBe(
      "✅ Resolved: all 2 problems of the roll-up [prod]\nRolled up at 08:01 UTC; the last resolved 12 min later.",
    );
    expect(closed).toMatchObject({ incidentId: "roll-up@5000", action: "resolve", delivery: "roll-up" });
  });

  test("the low-priority digest marks each problem still open or resolved, in 🔵", () => {
    const open = { ...decision("web", "digest").incident, tier: "normal" as const, openedAt: 60_000 };
    const gone = {
      ...decision("api", "digest").incident,
      tier: "normal" as const,
      openedAt: 0,
      resolvedAt: 720_000,
      phase: "resolved" as const,
    };
    const { message } = renderDigest(
      { opened: [open, { ...gone, resolvedAt: undefined, phase: "open" }], resolved: [gone] },
      1_800_000,
      "prod",
    );
    expect(message.text.split("\n")).toEqual([
      "🔵 Low-priority digest: 2 problems [prod]",
      "• deployment shop/api: CrashLoopBackOff in 1 pod — resolved after 12 min",
      "• deployment shop/web: CrashLoopBackOff in 1 pod — still open",
    ]);
    expect(message).toMatchObject({
      delivery: "digest",
      mark: "low",
      mode: "digest",
      covers: ["Deployment/shop/api", "Deployment/shop/web"],
    });
  });

  test("a recurring problem is one digest line with its count", () => {
    const occurrence = (openedAt: number, resolvedAt?: number) => ({
      ...decision("api", "notify").incident,
      openedAt,
      ...(resolvedAt !== undefined ? { resolvedAt, phase: "resolved" as const } : {}),
    });
    const { message } = renderDigest(
      {
        opened: [occurrence(0), occurrence(600_000), occurrence(1_200_000)],
        resolved: [occurrence(0, 300_000), occurrence(600_000, 900_000), occurrence(1_200_000, 1_500_000)],
      },
      1_800_000,
      "prod",
    );
    expect(message.text.split("\n")).toEqual([
      "🔵 Low-priority digest: 1 problem [prod]",
      "• deployment shop/api: CrashLoopBackOff in 1 pod — 3 times, the last resolved after 5 min",
    ]);
  });
});

describe("overflow digest (spec 6 item 3)", () => {
  test("counts per reason, most common first, the rest as '+N other kinds'", () => {
    const counts = new Map<string, number>([
      ["OOMKilled", 3],
      ["CrashLoopBackOff", 5],
      ...Array.from({ length: 11 }, (_, i) => [`Reason${String(i).padStart(2, "0")}`, 1] as [string, number]),
    ]);
    const m = renderOverflowDigest(
      { provider: "slack", since: Date.parse("2026-01-01T00:00:00Z"), counts, incidents: ["a", "b"] },
      Date.parse("2026-01-01T00:10:00Z"),
      "prod",
    );
    const lines = m.text.split("\n");
    expect(lines[0]).toBe("🟠 Overflow digest: 19 notifications held back by the hourly budget [prod]");
    expect(lines.slice(2)).toEqual([
      "• CrashLoopBackOff: 5",
      "• OOMKilled: 3",
      ...Array.from({ length: 8 }, (_, i) => `• Reason0${i}: 1`),
      "+3 other kinds",
    ]);
    expect(m).toMatchObject({ action: "announce", covers: ["a", "b"], root: { kind: "Cluster", name: "prod" } });
  });
});
