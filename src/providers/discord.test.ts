import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { makeProvider, providerSuite, sendAll } from "../testing/provider-suite.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import discord from "./discord.ts";

const hook = (base: string) => ({ webhookUrl: `${base}/api/webhooks/123/t0k3n-secret` });

describe("discord", () => {
  providerSuite({
    definition: discord,
    options: hook,
    invalid: [
      [{}, "webhookUrl is required"],
      [{ webhookUrl: "https://discord.com/api/webhooks/1/x", threadId: "abc" }, "a thread id is numeric"],
    ],
    secret: "t0k3n-secret",
    okAnswer: { status: 200, body: '{"id":"111"}' },
  });

  test("announce with wait=true keeps the message id; the resolve is posted and edits the announcement", async () => {
    const { requests, outcomes } = await sendAll(
      discord,
      hook,
      [message("a", "announce", { markdown: "🟠 **a** @everyone" }), message("a", "update"), message("a", "resolve")],
      (r) => ({ status: 200, body: r.method === "POST" ? '{"id":"111"}' : '{"id":"111"}' }),
      (i) => (i === 0 ? undefined : "111"),
    );
    expect(outcomes[0]).toEqual({ kind: "ok", conversation: "111" });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/webhooks/123/t0k3n-secret?wait=true",
      "POST /api/webhooks/123/t0k3n-secret?wait=true",
      "POST /api/webhooks/123/t0k3n-secret?wait=true",
      "PATCH /api/webhooks/123/t0k3n-secret/messages/111",
    ]);
    expect(requests[0]!.json()).toEqual({ content: "🟠 **a** @everyone", allowed_mentions: { parse: [] } });
    expect(requests[3]!.json().content).toBe("✅ resolve a");
  });

  test("a 429 without Retry-After still waits what the body says; check reads the webhook without posting", async () => {
    const { outcomes } = await sendAll(discord, hook, [message("a", "announce")], {
      status: 429,
      body: '{"message":"You are being rate limited.","retry_after":1.5,"global":false}',
    });
    expect(outcomes[0]).toEqual({ kind: "rateLimited", afterMs: 1500 });
    const server = await startCaptureServer();
    try {
      server.setDefault({ status: 200, body: '{"id":"123","type":1}' });
      expect(await makeProvider(discord, hook(server.url)).check!(AbortSignal.timeout(5_000))).toEqual({ kind: "ok" });
      expect(server.requests.map((r) => r.method)).toEqual(["GET"]);
    } finally {
      await server.close();
    }
  });
});
