import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import twilio from "./twilio.ts";

const SID = `AC${"0".repeat(31)}1`;
const options = (base: string) => ({
  accountSid: SID,
  authToken: "twilio-auth-secret",
  from: "+15005550006",
  to: ["+4915112345678", "+14155550100"],
  url: base,
});

describe("twilio", () => {
  providerSuite({
    definition: twilio,
    options,
    invalid: [
      [{ accountSid: SID, authToken: "x", to: ["+1555"] }, "from or messagingServiceSid"],
      [
        { accountSid: "nope", authToken: "x", from: "+15005550006", to: ["+14155550100"] },
        "an account SID starts with AC",
      ],
    ],
    secret: "twilio-auth-secret",
    okAnswer: { status: 201, body: '{"sid":"SM1"}' },
    bodyFormat: "form",
  });

  test("one SMS per recipient, Basic AccountSid:AuthToken, body cut to 640 characters", async () => {
    const { requests } = await sendAll(twilio, options, [message("a", "announce", { text: "x".repeat(2_000) })], {
      status: 201,
      body: '{"sid":"SM1"}',
    });
    expect(requests.map((r) => [r.path, new URLSearchParams(r.body).get("To")])).toEqual([
      [`/2010-04-01/Accounts/${SID}/Messages.json`, "+4915112345678"],
      [`/2010-04-01/Accounts/${SID}/Messages.json`, "+14155550100"],
    ]);
    expect(requests[0]!.headers.authorization).toBe(`Basic ${btoa(`${SID}:twilio-auth-secret`)}`);
    expect(new URLSearchParams(requests[0]!.body).get("Body")!.length).toBe(640);
  });
});
