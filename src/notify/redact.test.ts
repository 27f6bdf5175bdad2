import { describe, expect, test } from "bun:test";
import { redact } from "./redact.ts";

describe("redact (spec 6.8)", () => {
  const cases: [string, string][] = [
    [
      "dial postgres://checkout:s3cret@db:5432/orders failed",
      "dial postgres://checkout:[redacted]@db:5432/orders failed",
    ],
    ["Authorization: Bearer eyJhbGciOi.abc", "Authorization: Bearer [redacted]"],
    ["password=hunter2 user=bob", "password=[redacted] user=bob"],
    ['{"api_key": "abc123"}', '{"api_key": "[redacted]"}'],
    ["token xoxb-1234-5678-abcdef leaked", "token xoxb-[redacted] leaked"],
    ["key AKIAABCDEFGHIJKLMNOP used", "key [redacted-aws-key] used"],
    ["connect: connection refused to 10.0.0.5:5432", "connect: connection refused to 10.0.0.5:5432"],
  ];
  for (const [input, want] of cases) test(input, () => expect(redact(input).text).toBe(want));

  test("counts what it removed", () => expect(redact("password=a token=b").count).toBe(2));
});
