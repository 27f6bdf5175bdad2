import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import mattermost from "./mattermost.ts";

const CHANNEL = "4xp9fdt77pncbef59f4k1qe83o";

describe("mattermost", () => {
  providerSuite({
    definition: mattermost,
    options: (base) => ({ webhookUrl: `${base}/hooks/mm-secret-key` }),
    invalid: [
      [{}, "one of webhookUrl or botToken"],
      [{ botToken: "t" }, "botToken needs url and channelId"],
    ],
    secret: "mm-secret-key",
  });
  providerSuite({
    definition: mattermost,
    options: (base) => ({ botToken: "bot-secret-token", url: base, channelId: CHANNEL }),
    invalid: [[{ botToken: "t", url: "https://m", channelId: "short" }, "a channel id has 26 characters"]],
    secret: "bot-secret-token",
    okAnswer: { status: 201, body: '{"id":"p1"}' },
  });

  test("bot mode: the announcement's post id threads the updates; the resolve replies and patches the root", async () => {
    const { requests, outcomes } = await sendAll(
      mattermost,
      (base) => ({ botToken: "bot-secret-token", url: base, channelId: CHANNEL }),
      [message("a", "announce"), message("a", "update"), message("a", "resolve")],
      { status: 201, body: '{"id":"p1"}' },
      (i) => (i === 0 ? undefined : "p1"),
    );
    expect(outcomes[0]).toEqual({ kind: "ok", conversation: "p1" });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v4/posts",
      "POST /api/v4/posts",
      "POST /api/v4/posts",
      "PUT /api/v4/posts/p1/patch",
    ]);
    expect(requests[0]!.headers.authorization).toBe("Bearer bot-secret-token");
    expect(requests[0]!.json()).toEqual({ channel_id: CHANNEL, message: "🟠 **announce a**" });
    expect(requests[1]!.json().root_id).toBe("p1");
  });
});
