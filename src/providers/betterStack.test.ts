import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import betterStack from "./betterStack.ts";

const options = (base: string) => ({ apiToken: "bs-api-secret", requesterEmail: "oncall@acme.example", url: base });

describe("betterStack", () => {
  providerSuite({
    definition: betterStack,
    options,
    invalid: [[{ apiToken: "bs-api-secret", requesterEmail: "nope" }, "an email"]],
    secret: "bs-api-secret",
    okAnswer: { status: 201, body: '{"data":{"id":"99"}}' },
  });

  test("create keeps the incident id; the resolve resolves it, and 409 (already resolved) is success", async () => {
    const { requests, outcomes } = await sendAll(
      betterStack,
      options,
      [message("a", "announce", { mode: "page" }), message("a", "update"), message("a", "resolve")],
      (r) =>
        r.path.endsWith("/resolve") ? { status: 409, body: "{}" } : { status: 201, body: '{"data":{"id":"99"}}' },
      (i) => (i === 0 ? undefined : "99"),
    );
    expect(outcomes).toEqual([{ kind: "ok", conversation: "99" }, { kind: "ok", conversation: "99" }, { kind: "ok" }]);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /incidents", "POST /incidents/99/resolve"]);
    expect(requests[0]!.json()).toMatchObject({ requester_email: "oncall@acme.example", email: true });
    expect(requests[0]!.json().description).toContain("mon dedup key: mon-test-a");
  });
});
