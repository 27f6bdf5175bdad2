import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { makeProvider, providerSuite, sendAll } from "../testing/provider-suite.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import telegram from "./telegram.ts";

const TOKEN = "123456789:AAF-secret_token_value_xyz";
const options = (base: string) => ({ botToken: TOKEN, chatId: -1001234567890, apiUrl: base });

describe("telegram", () => {
  providerSuite({
    definition: telegram,
    options,
    invalid: [
      [{ chatId: "1" }, "botToken is required"],
      [{ botToken: "nope", chatId: "1" }, "a bot token has the id:secret shape"],
      [{ botToken: TOKEN, chatId: "my channel" }, "a chat is a number or @name"],
    ],
    secret: TOKEN,
    okAnswer: { status: 200, body: '{"ok":true,"result":{"message_id":42}}' },
  });

  test("HTML with pod text escaped; updates reply to the announcement, the resolve also edits it", async () => {
    const { requests, outcomes } = await sendAll(
      telegram,
      options,
      [
        message("a", "announce", { markdown: "🟠 **a**: <script> & co" }),
        message("a", "update"),
        message("a", "resolve"),
      ],
      { status: 200, body: '{"ok":true,"result":{"message_id":42}}' },
      (i) => (i === 0 ? undefined : "42"),
    );
    expect(outcomes.map((o) => o.kind === "ok" && o.conversation)).toEqual(["42", "42", "42"]);
    expect(requests.map((r) => r.path)).toEqual([
      `/bot${TOKEN}/sendMessage`,
      `/bot${TOKEN}/sendMessage`,
      `/bot${TOKEN}/sendMessage`,
      `/bot${TOKEN}/editMessageText`,
    ]);
    expect(requests[0]!.json()).toEqual({
      chat_id: "-1001234567890",
      text: "🟠 <b>a</b>: &lt;script&gt; &amp; co",
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
    });
    expect(requests[1]!.json().reply_parameters).toEqual({ message_id: 42, allow_sending_without_reply: true });
    expect(requests[3]!.json()).toMatchObject({ chat_id: "-1001234567890", message_id: 42 });
  });

  test("errors in the body: 429 waits parameters.retry_after; a migrated group names its new chat id", async () => {
    const limited = await sendAll(telegram, options, [message("a", "announce")], {
      status: 429,
      body: '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}',
    });
    expect(limited.outcomes[0]).toEqual({ kind: "rateLimited", afterMs: 7000 });
    const moved = await sendAll(telegram, options, [message("a", "announce")], {
      status: 400,
      body: '{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","parameters":{"migrate_to_chat_id":-1009876543210}}',
    });
    expect(moved.outcomes[0]).toEqual({
      kind: "permanent",
      failure: "rejected",
      reason:
        "telegram_400: Bad Request: group chat was upgraded to a supergroup chat (the group is now chat -1009876543210: update chatId)",
    });
  });

  test("check calls getMe then getChat, posting nothing", async () => {
    const server = await startCaptureServer();
    try {
      server.setDefault({ status: 200, body: '{"ok":true,"result":{}}' });
      expect(await makeProvider(telegram, options(server.url)).check!(AbortSignal.timeout(5_000))).toEqual({
        kind: "ok",
      });
      expect(server.requests.map((r) => r.path)).toEqual([`/bot${TOKEN}/getMe`, `/bot${TOKEN}/getChat`]);
    } finally {
      await server.close();
    }
  });
});
