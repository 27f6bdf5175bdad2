import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import newRelic from "./newRelic.ts";

const options = (base: string) => ({ licenseKey: "nr-license-secret-key", accountId: 1234567, url: base });

describe("newRelic", () => {
  providerSuite({
    definition: newRelic,
    options,
    invalid: [[{ licenseKey: "nr-license-secret-key", accountId: "abc" }, "a numeric account id"]],
    secret: "nr-license-secret-key",
  });

  test("one custom event per message, with dedupKey to facet on", async () => {
    const { requests } = await sendAll(newRelic, options, [message("a", "announce")]);
    expect([requests[0]!.path, requests[0]!.headers["api-key"]]).toEqual([
      "/v1/accounts/1234567/events",
      "nr-license-secret-key",
    ]);
    expect(requests[0]!.json()[0]).toMatchObject({
      eventType: "MonIncident",
      dedupKey: "mon-test-a",
      cluster: "prod",
      action: "announce",
    });
  });
});
