import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import webex from "./webex.ts";

const options = (base: string) => ({
  botToken: "webex-bot-secret-token",
  roomId: "Y2lzY29zcGFyazovL3Jvb20",
  apiUrl: base,
});

describe("webex", () => {
  providerSuite({
    definition: webex,
    options,
    invalid: [[{ roomId: "Y2lzY29zcGFyazovL3Jvb20" }, "botToken is required"]],
    secret: "webex-bot-secret-token",
    okAnswer: { status: 200, body: '{"id":"m1"}' },
  });

  test("threaded replies with parentId; the resolve edits the announcement", async () => {
    const { requests, outcomes } = await sendAll(
      webex,
      options,
      [message("a", "announce"), message("a", "resolve")],
      { status: 200, body: '{"id":"m1"}' },
      (i) => (i === 0 ? undefined : "m1"),
    );
    expect(outcomes[0]).toEqual({ kind: "ok", conversation: "m1" });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/messages",
      "POST /v1/messages",
      "PUT /v1/messages/m1",
    ]);
    expect(requests[1]!.json()).toMatchObject({ roomId: "Y2lzY29zcGFyazovL3Jvb20", parentId: "m1" });
    expect(requests[0]!.headers.authorization).toBe("Bearer webex-bot-secret-token");
  });
});
