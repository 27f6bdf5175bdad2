import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import pushover from "./pushover.ts";

const TOKEN = "azGDORePK8gMaC0QOYAMyEEuzJnyUi";
const USER = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG";

describe("pushover", () => {
  providerSuite({
    definition: pushover,
    options: (base) => ({ appToken: TOKEN, userKey: USER, url: base }),
    invalid: [
      [{ userKey: USER }, "appToken is required"],
      [{ appToken: "short", userKey: USER }, "tokens have 30 characters"],
    ],
    secret: TOKEN,
    okAnswer: { status: 200, body: '{"status":1,"request":"r"}' },
    bodyFormat: "form",
  });

  test("a form post to /1/messages.json: title, message ≤ 1,024 characters, priority 1 for page-tier", async () => {
    const { requests } = await sendAll(
      pushover,
      (base) => ({ appToken: TOKEN, userKey: USER, url: base }),
      [message("a", "announce", { mode: "page", text: "x".repeat(5_000) })],
      { status: 200, body: '{"status":1}' },
    );
    expect(requests[0]!.path).toBe("/1/messages.json");
    expect(requests[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(requests[0]!.body);
    expect([form.get("token"), form.get("user"), form.get("title"), form.get("priority")]).toEqual([
      TOKEN,
      USER,
      "announce a",
      "1",
    ]);
    expect(form.get("message")!.length).toBe(1_024);
  });
});
