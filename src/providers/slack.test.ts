import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createSilentLogger } from "../runtime/logger.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { message } from "../testing/messages.ts";
import { providerSuite } from "../testing/provider-suite.ts";
import { createOutboundClient } from "../outbound/client.ts";
import slack, { slackPayload } from "./slack.ts";

describe("slack (incoming webhook)", () => {
  providerSuite({
    definition: slack,
    options: (base) => ({ webhook: `${base}/services/T000/B000/secretpart` }),
    invalid: [
      [{}, "neither webhook nor token"],
      [{ webhook: "https://h/x", token: "xoxb-1", channel: "C1" }, "both webhook and token"],
      [{ token: "xoxb-1" }, "token without channel"],
    ],
    secret: "secretpart",
  });

  test("the payload has a fallback text and at most three blocks, each section within Slack's 3,000 characters", () => {
    const p = slackPayload(message("a", "announce", { markdown: `🟠 **Title**\n${"detail ".repeat(1_000)}` }));
    expect(p.text.startsWith("🟠 *Title*")).toBe(true);
    expect(p.blocks).toHaveLength(3);
    for (const b of p.blocks as { text?: { text: string } }[])
      if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(3_000);
    expect(JSON.stringify(p)).toContain("… (truncated)");
  });

  test("markup characters from the cluster are escaped", () => {
    expect(slackPayload(message("a", "announce", { markdown: "a <b> & c" })).text).toBe("a &lt;b&gt; &amp; c");
  });
});

describe("slack (bot token)", () => {
  const create = (apiUrl: string) =>
    slack.create(v.parse(slack.options, { token: "xoxb-secret", channel: "C123", apiUrl }), {
      http: createOutboundClient(),
      logger: createSilentLogger(),
      clusterName: "t",
      stdout: () => {},
    });
  const ctx = (conversation?: string) => ({
    signal: AbortSignal.timeout(5_000),
    now: 0,
    ...(conversation ? { conversation } : {}),
  });

  test("announce posts to the channel and returns the message ts as the conversation", async () => {
    const server = await startCaptureServer();
    try {
      server.queue({ status: 200, body: JSON.stringify({ ok: true, channel: "C123", ts: "1700000000.000100" }) });
      const outcome = await create(server.url).send(message("a", "announce"), ctx());
      expect(outcome).toEqual({ kind: "ok", conversation: "1700000000.000100" });
      const req = server.requests[0]!;
      expect(req.path).toBe("/chat.postMessage");
      expect(req.headers.authorization).toBe("Bearer xoxb-secret");
      expect(req.json()).toMatchObject({ channel: "C123" });
    } finally {
      await server.close();
    }
  });

  test("a resolve replies in the thread and edits the root message", async () => {
    const server = await startCaptureServer();
    try {
      server.setDefault({ status: 200, body: JSON.stringify({ ok: true, ts: "2" }) });
      expect(await create(server.url).send(message("a", "resolve"), ctx("1.1"))).toEqual({
        kind: "ok",
        conversation: "1.1",
      });
      expect(server.requests.map((r) => [r.path, r.json().thread_ts ?? r.json().ts])).toEqual([
        ["/chat.postMessage", "1.1"],
        ["/chat.update", "1.1"],
      ]);
    } finally {
      await server.close();
    }
  });

  const errors: [string, string][] = [
    ["invalid_auth", "permanent"],
    ["channel_not_found", "permanent"],
    ["not_in_channel", "permanent"],
    ["internal_error", "retry"],
    ["ratelimited", "rateLimited"],
  ];
  for (const [error, kind] of errors) {
    test(`HTTP 200 with ok:false error ${error} → ${kind}`, async () => {
      const server = await startCaptureServer();
      try {
        server.queue({ status: 200, body: JSON.stringify({ ok: false, error }) });
        const outcome = await create(server.url).send(message("a", "announce"), ctx());
        expect(outcome.kind).toBe(kind as never);
        if (outcome.kind === "permanent") expect(outcome.reason).toBe(`slack_${error}`);
      } finally {
        await server.close();
      }
    });
  }

  test("check calls auth.test without posting anything", async () => {
    const server = await startCaptureServer();
    try {
      server.queue({ status: 200, body: JSON.stringify({ ok: true, team: "T", user: "mon" }) });
      expect(await create(server.url).check!(AbortSignal.timeout(5_000))).toEqual({ kind: "ok" });
      expect(server.requests.map((r) => r.path)).toEqual(["/auth.test"]);
    } finally {
      await server.close();
    }
  });
});
