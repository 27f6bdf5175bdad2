import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { reasonsDoc } from "../../scripts/gen-reasons.ts";
import { REASONS } from "./catalogue.ts";

describe("the detection catalogue", () => {
  test("docs/reasons.md is generated from it and current (run bun scripts/gen-reasons.ts)", () => {
    expect(readFileSync(join(import.meta.dirname, "..", "..", "docs", "reasons.md"), "utf8")).toBe(reasonsDoc());
  });

  test("reasons are unique, described, and critical only through a page rule", () => {
    expect(new Set(REASONS.map((r) => r.reason)).size).toBe(REASONS.length);
    for (const r of REASONS) {
      expect(r.description.length, r.reason).toBeGreaterThan(20);
      expect(r.tier, r.reason).not.toBe("critical");
    }
  });

  test("every reason a detector emits is in the catalogue (detectors throw otherwise)", async () => {
    // Every detector file, in folders too (detect/pods/), but the catalogue itself.
    const sources = (readdirSync(import.meta.dirname, { recursive: true }) as string[])
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "catalogue.ts")
      .map((f) => readFileSync(join(import.meta.dirname, f), "utf8"))
      .join("\n");
    const emitted = new Set([...sources.matchAll(/reason: "([A-Z][A-Za-z]+)"/g)].map((m) => m[1]!));
    const known = new Set(REASONS.map((r) => r.reason));
    expect([...emitted].filter((r) => !known.has(r))).toEqual([]);
  });

  test("every reason is produced by at least one test of its detector (a fixture test per reason)", () => {
    const tests = (readdirSync(import.meta.dirname, { recursive: true }) as string[])
      .filter((f) => f.endsWith(".test.ts") && f !== "catalogue.test.ts")
      .map((f) => readFileSync(join(import.meta.dirname, f), "utf8"))
      .join("\n");
    expect(REASONS.map((r) => r.reason).filter((r) => !tests.includes(`"${r}"`))).toEqual([]);
  });
});
