import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import loki from "./loki.ts";

const options = (base: string) => ({ url: base, username: "123456", password: "glc_secret_token", tenantId: "team-a" });

describe("loki", () => {
  providerSuite({
    definition: loki,
    options,
    invalid: [[{ url: "https://l", password: "p", bearerToken: "b" }, "one kind of auth"]],
    secret: "glc_secret_token",
    okAnswer: { status: 204, body: "" },
  });

  test("a low-cardinality stream; the dedup key in structured metadata, never a label; nanosecond timestamps", async () => {
    const { requests } = await sendAll(loki, options, [message("a", "announce", { at: 1_700_000_000_123 })], {
      status: 204,
      body: "",
    });
    expect([requests[0]!.path, requests[0]!.headers["x-scope-orgid"], requests[0]!.headers.authorization]).toEqual([
      "/loki/api/v1/push",
      "team-a",
      `Basic ${btoa("123456:glc_secret_token")}`,
    ]);
    const stream = requests[0]!.json().streams[0];
    expect(stream.stream).toEqual({ job: "mon", cluster: "prod", tier: "medium" });
    expect(stream.values[0]).toEqual([
      "1700000000123000000",
      "🟠 announce a",
      { dedup_key: "mon-test-a", incident_id: "a", action: "announce" },
    ]);
  });
});
