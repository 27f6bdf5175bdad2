import { describe, expect, test } from "bun:test";
import { message } from "../../testing/messages.ts";
import { severityOf } from "./severity.ts";

describe("one tier → vendor severity map for every provider (issue 31.6)", () => {
  const scale = ["page", "high", "medium", "low"] as const;
  test("page-tier is the top; high and critical next; medium and warning; normal and digests last", () => {
    const of = (extra: Parameters<typeof message>[2]) => severityOf(message("x", "announce", extra), scale);
    expect(of({ mode: "page", tier: "critical" })).toBe("page");
    expect(of({ mode: "page", tier: "normal" })).toBe("page");
    expect(of({ tier: "critical" })).toBe("high");
    expect(of({ tier: "high" })).toBe("high");
    expect(of({ tier: "medium" })).toBe("medium");
    expect(of({ tier: "warning" })).toBe("medium");
    expect(of({ tier: "normal" })).toBe("low");
    expect(of({ mode: "digest", tier: "high" })).toBe("low");
  });
});
