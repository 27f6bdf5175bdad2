import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { metricsDoc } from "../scripts/gen-metrics.ts";
import { createMetrics } from "./metrics.ts";
import { COVERAGE_REASONS } from "./model/coverage.ts";

describe("metrics reference", () => {
  test("docs/metrics.md is generated from src/metrics.ts and current (run bun scripts/gen-metrics.ts)", async () => {
    expect(readFileSync(join(import.meta.dirname, "..", "docs", "metrics.md"), "utf8")).toBe(await metricsDoc());
  });
});

describe("series a dashboard reads", () => {
  test("with every kind covered, each coverage reason is exported at 0 (a panel shows 0, not no data)", async () => {
    const metrics = createMetrics();
    metrics.sources.uncovered = () => ({});
    const text = await metrics.registry.getSingleMetricAsString("mon_coverage_uncovered_kinds");
    for (const reason of COVERAGE_REASONS) expect(text).toContain(`mon_coverage_uncovered_kinds{reason="${reason}"} 0`);
    metrics.sources.uncovered = () => ({ permission_denied: 2 });
    expect(await metrics.registry.getSingleMetricAsString("mon_coverage_uncovered_kinds")).toContain(
      'mon_coverage_uncovered_kinds{reason="permission_denied"} 2',
    );
  });

  test("no gauge is named like a counter (promtool check metrics rejects `_total` on a gauge)", async () => {
    const text = await createMetrics().registry.metrics();
    const gauges = [...text.matchAll(/^# TYPE (\S+) (gauge|untyped)$/gm)].map((m) => m[1]!);
    expect(gauges.filter((n) => n.endsWith("_total"))).toEqual([]);
  });
});
