import { describe, expect, test } from "bun:test";
import { failureOf } from "./failure.ts";

describe("delivery failure reasons (a closed list, the bounded `reason` label)", () => {
  const table: [Parameters<typeof failureOf>[0], string][] = [
    [{ kind: "rateLimited" }, "rate_limited"],
    [{ kind: "rateLimited", afterMs: 30_000 }, "rate_limited"],
    [{ kind: "retry", reason: "network" }, "network"],
    [{ kind: "retry", reason: "timeout" }, "timeout"],
    [{ kind: "retry", reason: "http_503" }, "server_error"],
    [{ kind: "retry", reason: "http_408" }, "server_error"],
    [{ kind: "retry", reason: "provider_error: boom" }, "provider_error"],
    [{ kind: "retry", reason: "slack_internal_error" }, "unavailable"],
    [{ kind: "permanent", reason: "http_401: bad token" }, "unauthorized"],
    [{ kind: "permanent", reason: "http_403" }, "unauthorized"],
    [{ kind: "permanent", reason: "slack_invalid_auth" }, "unauthorized"],
    [{ kind: "permanent", reason: "smtp_auth: 535 bad credentials" }, "unauthorized"],
    [{ kind: "permanent", reason: "http_400: invalid_payload" }, "rejected"],
    [{ kind: "permanent", reason: "error 19024: bad keyword" }, "rejected"],
    [{ kind: "permanent", reason: "http_413: Request Entity Too Large" }, "too_large"],
    [{ kind: "permanent", reason: "slack_msg_too_long" }, "too_large"],
    [{ kind: "permanent", reason: "http_400: content: Must be 2000 or fewer in length." }, "too_large"],
    [{ kind: "permanent", reason: "http_400: Bad Request: message is too long" }, "too_large"],
    [{ kind: "permanent", reason: "http_400: request body exceeds the maximum size" }, "too_large"],
    [{ kind: "permanent", reason: "http_400: the title is too short" }, "rejected"],
  ];
  for (const [outcome, failure] of table) {
    test(`${JSON.stringify(outcome)} → ${failure}; the vendor's words stay in detail`, () => {
      const classified = failureOf(outcome);
      expect(classified.failure).toBe(failure as never);
      if (outcome.kind !== "rateLimited") expect(classified.detail).toBe(outcome.reason);
    });
  }
});
