import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import pushbullet from "./pushbullet.ts";

describe("pushbullet", () => {
  providerSuite({
    definition: pushbullet,
    options: (base) => ({ accessToken: "o.secretTokenValue", url: base }),
    invalid: [[{}, "accessToken is required"]],
    secret: "o.secretTokenValue",
  });

  test("one note push with the Access-Token header", async () => {
    const { requests } = await sendAll(
      pushbullet,
      (base) => ({ accessToken: "o.secretTokenValue", url: base, channelTag: "ops" }),
      [message("a", "announce")],
    );
    expect([requests[0]!.path, requests[0]!.headers["access-token"]]).toEqual(["/v2/pushes", "o.secretTokenValue"]);
    expect(requests[0]!.json()).toEqual({
      type: "note",
      title: "announce a",
      body: "🟠 announce a",
      channel_tag: "ops",
    });
  });
});
