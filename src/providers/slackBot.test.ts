import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import slackBot from "./slackBot.ts";

const options = (base: string) => ({ botToken: "xoxb-1-secret-token", channel: "C0123", apiUrl: base });

describe("slackBot", () => {
  providerSuite({
    definition: slackBot,
    options,
    invalid: [[{ botToken: "xoxp-user", channel: "C1" }, "a bot token starts with xoxb-"]],
    secret: "xoxb-1-secret-token",
    okAnswer: { status: 200, body: '{"ok":true,"ts":"1.1"}' },
  });

  test("replies in the announcement's thread; the resolve edits the root; ok:false is classified from the body", async () => {
    const { requests, outcomes } = await sendAll(
      slackBot,
      options,
      [message("a", "announce"), message("a", "resolve")],
      { status: 200, body: '{"ok":true,"ts":"1.1"}' },
      (i) => (i === 0 ? undefined : "1.1"),
    );
    expect(outcomes[0]).toEqual({ kind: "ok", conversation: "1.1" });
    expect(requests.map((r) => r.path)).toEqual(["/chat.postMessage", "/chat.postMessage", "/chat.update"]);
    expect(requests[1]!.json().thread_ts).toBe("1.1");
    expect(
      (
        await sendAll(slackBot, options, [message("a", "announce")], {
          status: 200,
          body: '{"ok":false,"error":"channel_not_found"}',
        })
      ).outcomes[0],
    ).toEqual({ kind: "permanent", reason: "slack_channel_not_found", failure: "rejected" });
  });
});
