import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import wecom from "./wecom.ts";

describe("wecom", () => {
  providerSuite({
    definition: wecom,
    options: (base) => ({ webhookKey: "wc-secret-key-1", url: `${base}/cgi-bin/webhook/send` }),
    invalid: [[{}, "webhookKey is required"]],
    secret: "wc-secret-key-1",
    okAnswer: { status: 200, body: '{"errcode":0,"errmsg":"ok"}' },
  });

  test("markdown capped at 4,096 bytes; errcode 45009 (over 20 a minute) waits", async () => {
    const { requests } = await sendAll(
      wecom,
      (base) => ({ webhookKey: "key-12345678", url: `${base}/send` }),
      [message("a", "announce", { markdown: "中".repeat(3_000) })],
      { status: 200, body: '{"errcode":0}' },
    );
    expect(new URL(requests[0]!.path, "http://x").searchParams.get("key")).toBe("key-12345678");
    const content = requests[0]!.json().markdown.content as string;
    expect(new TextEncoder().encode(content).length).toBeLessThanOrEqual(4_096);
    expect(
      (
        await sendAll(wecom, (b) => ({ webhookKey: "key-12345678", url: `${b}/send` }), [message("a", "announce")], {
          status: 200,
          body: '{"errcode":45009,"errmsg":"api freq out of limit"}',
        })
      ).outcomes[0],
    ).toEqual({ kind: "rateLimited" });
  });
});
