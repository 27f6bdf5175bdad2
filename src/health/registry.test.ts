import { describe, expect, test } from "bun:test";
import { COVERAGE_LIST_LIMIT, HEALTH_REASONS, HealthRegistry } from "./registry.ts";

/** `/health`'s bounds (spec 4.1, 7.3): at most 20 degradation reasons, coverage cut at 50 kinds and counted. */
describe("the /health body's bounds", () => {
  test("reasons: each once, sorted, at most 20 however many components degrade", () => {
    const health = new HealthRegistry(() => 0);
    expect(HEALTH_REASONS.length).toBeGreaterThan(20);
    HEALTH_REASONS.forEach((reason, i) => {
      health.set(`c${i}`, "degraded", { reason });
      health.set(`d${i}`, "degraded", { reason });
    });
    const { reasons } = health.report();
    expect(reasons).toHaveLength(20);
    expect(reasons).toEqual([...new Set(HEALTH_REASONS)].sort().slice(0, 20));
  });

  test("a reason outside the vocabulary is reported as component_failed", () => {
    const health = new HealthRegistry(() => 0);
    health.set("x", "degraded", { reason: "ECONNRESET at socket 7" });
    expect(health.report().components.x).toMatchObject({ reason: "component_failed" });
  });

  test("coverage lists 50 kinds, counts the rest as truncated, and counts every kind by reason", () => {
    const health = new HealthRegistry(() => 0);
    const kinds = Array.from({ length: 73 }, (_, i) => ({
      kind: `widgets${i}.example.com`,
      reason: i % 2 ? ("permission_denied" as const) : ("api_unavailable" as const),
    }));
    health.setCoverage(kinds);
    const { coverage } = health.report();
    expect(coverage.kinds).toHaveLength(COVERAGE_LIST_LIMIT);
    expect(coverage.truncated).toBe(23);
    expect(coverage.reasons).toEqual({ permission_denied: 36, api_unavailable: 37 });
  });
});
