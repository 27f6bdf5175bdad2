import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { metricsDoc } from "../scripts/gen-metrics.ts";

describe("metrics reference", () => {
  test("docs/metrics.md is generated from src/metrics.ts and current (run bun scripts/gen-metrics.ts)", async () => {
    expect(readFileSync(join(import.meta.dirname, "..", "docs", "metrics.md"), "utf8")).toBe(await metricsDoc());
  });
});
