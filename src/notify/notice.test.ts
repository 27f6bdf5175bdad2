import { describe, expect, test } from "bun:test";
import { renderStartupNotice } from "./notice.ts";

const NOW = Date.parse("2026-11-22T08:10:00Z");

describe("the startup message (spec 6)", () => {
  test("an ordinary start: one low-tier sentence naming the version, no link", () => {
    const m = renderStartupNotice("1.2.3", "prod", NOW);
    expect(m.text).toBe("🔵 mon 1.2.3 started watching prod.");
    expect(m.text).not.toContain("http");
    expect(m.delivery).toBe("notice");
  });

  test("after a monitoring gap or a state reset: another emoji, and the unwatched period named", () => {
    expect(renderStartupNotice("1.2.3", "prod", NOW, { lastAlive: NOW - 7 * 60_000 }).text).toBe(
      "🟠 mon 1.2.3 restarted on prod: 08:03–08:10 UTC (7 min) was not watched.",
    );
    expect(renderStartupNotice("1.2.3", "prod", NOW, { stateReset: true }).text).toBe(
      "🟠 mon 1.2.3 restarted on prod: its state file could not be used and was recreated, so open incidents are told again.",
    );
  });
});
