import { describe, expect, test } from "bun:test";
import { permanent, permanentFailureOf } from "./outcome.ts";

describe("a refusal for good names its closed failure where the vendor's answer is read (issue 31.6)", () => {
  const table: [string, "unauthorized" | "too_large" | "rejected"][] = [
    ["http_401: bad token", "unauthorized"],
    ["http_403", "unauthorized"],
    ["slack_invalid_auth", "unauthorized"],
    ["smtp_auth: 535 bad credentials", "unauthorized"],
    ["http_400: invalid_payload", "rejected"],
    ["error 19024: bad keyword", "rejected"],
    ["http_413: Request Entity Too Large", "too_large"],
    ["slack_msg_too_long", "too_large"],
    ["http_400: content: Must be 2000 or fewer in length.", "too_large"],
    ["http_400: Bad Request: message is too long", "too_large"],
    ["http_400: request body exceeds the maximum size", "too_large"],
    ["http_400: the title is too short", "rejected"],
  ];
  for (const [reason, failure] of table)
    test(`${JSON.stringify(reason)} → ${failure}`, () => {
      expect(permanentFailureOf(reason)).toBe(failure);
      expect(permanent(reason)).toEqual({ kind: "permanent", reason, failure });
    });

  test("a provider that knows better says so", () => {
    expect(permanent("no AWS credentials", "unauthorized").failure).toBe("unauthorized");
  });
});
