import { describe, expect, test } from "bun:test";
import { failureOf } from "./failure.ts";

describe("delivery failure reasons (a closed list, the bounded `reason` label): a refusal for good carries its own, decided by the provider", () => {
  const table: [Parameters<typeof failureOf>[0], string][] = [
    [{ kind: "rateLimited" }, "rate_limited"],
    [{ kind: "rateLimited", afterMs: 30_000 }, "rate_limited"],
    [{ kind: "retry", reason: "network" }, "network"],
    [{ kind: "retry", reason: "timeout" }, "timeout"],
    [{ kind: "retry", reason: "http_503" }, "server_error"],
    [{ kind: "retry", reason: "http_408" }, "server_error"],
    [{ kind: "retry", reason: "provider_error: boom" }, "provider_error"],
    [{ kind: "retry", reason: "slack_internal_error" }, "unavailable"],
  ];
  for (const failure of ["unauthorized", "too_large", "rejected"] as const)
    table.push([{ kind: "permanent", reason: "the vendor's words", failure }, failure]);
  for (const [outcome, failure] of table) {
    test(`${JSON.stringify(outcome)} → ${failure}; the vendor's words stay in detail`, () => {
      const classified = failureOf(outcome);
      expect(classified.failure).toBe(failure as never);
      if (outcome.kind !== "rateLimited") expect(classified.detail).toBe(outcome.reason);
    });
  }
});
