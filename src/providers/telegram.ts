import { permanent } from "./_kit/outcome.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import type { Message } from "../model/message.ts";
import type { HttpAnswer, HttpClient } from "../outbound/client.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { classifyStatus, exchangeJson, parseJson, truncate } from "./_kit/http.ts";
import { ends, escapeHtml } from "./_kit/keys.ts";

/** Telegram accepts 1–4,096 characters of text after entity parsing (providers.md `telegram`). */
const TEXT_MAX = 4_000;

const Options = v.object({
  botToken: v.pipe(
    v.string(),
    v.regex(/^\d+:[A-Za-z0-9_-]{20,}$/, "must be a bot token such as 123456:ABC…"),
    v.description("Bot token from @BotFather (a credential: ${file:/path})."),
  ),
  chatId: v.pipe(
    v.union([v.string(), v.number()]),
    v.transform(String),
    v.regex(/^(-?\d+|@[A-Za-z0-9_]{5,})$/, "must be a numeric chat id or @channelname"),
    v.description("Chat to post to: a numeric id, or `@channel`."),
  ),
  messageThreadId: v.optional(v.pipe(v.number(), v.integer(), v.description("Forum topic to post into."))),
  disableNotification: v.optional(v.pipe(v.boolean(), v.description("Send silently.")), false),
  apiUrl: v.optional(
    v.pipe(v.string(), v.url(), v.description("Bot API server (a self-hosted one).")),
    "https://api.telegram.org",
  ),
});

/**
 * Telegram Bot API (providers.md `telegram`): `sendMessage` in HTML mode (pod text escaped). The
 * announcement's `message_id` is the conversation; updates and the resolve reply to it
 * (`reply_parameters`), and the resolve also edits the announcement (`editMessageText`). Failures come as
 * `{ok:false, error_code, description, parameters.retry_after}`; a group upgraded to a supergroup names its new
 * id (`migrate_to_chat_id`) in the dead letter. `check` calls `getMe` and `getChat`, which post nothing.
 */
export default defineProvider({
  name: "telegram",
  kind: "chat",
  title: "Telegram",
  guide: {
    credential: "Talk to @BotFather: /newbot gives the token; add the bot to the chat and read its id with getUpdates.",
  },
  threading: "thread",
  options: Options,
  credentials: ["botToken"],
  create(options, deps) {
    const api = (method: string) => `${options.apiUrl.replace(/\/+$/, "")}/bot${options.botToken}/${method}`;
    return {
      async send(message, context) {
        const reply =
          message.action !== "announce" && message.action !== "opened_resolved" && context.conversation
            ? Number(context.conversation)
            : undefined;
        const body = {
          chat_id: options.chatId,
          text: telegramHtml(message),
          parse_mode: "HTML",
          link_preview_options: { is_disabled: true },
          ...(options.messageThreadId !== undefined ? { message_thread_id: options.messageThreadId } : {}),
          ...(options.disableNotification ? { disable_notification: true } : {}),
          ...(reply !== undefined
            ? { reply_parameters: { message_id: reply, allow_sending_without_reply: true } }
            : {}),
        };
        const sent = await call(deps.http, api("sendMessage"), body, context.signal, context.now);
        if (sent.outcome.kind !== "ok") return sent.outcome;
        if (reply !== undefined && ends(message))
          await call(
            deps.http,
            api("editMessageText"),
            {
              chat_id: options.chatId,
              message_id: reply,
              text: telegramHtml(message),
              parse_mode: "HTML",
              link_preview_options: { is_disabled: true },
            },
            context.signal,
            context.now,
          );
        const id = (sent.result as { message_id?: unknown } | undefined)?.message_id;
        return reply !== undefined
          ? { kind: "ok", conversation: String(reply) }
          : typeof id === "number"
            ? { kind: "ok", conversation: String(id) }
            : { kind: "ok" };
      },
      async check(signal) {
        const me = await call(deps.http, api("getMe"), {}, signal, nowOf(deps));
        if (me.outcome.kind !== "ok") return me.outcome;
        return (await call(deps.http, api("getChat"), { chat_id: options.chatId }, signal, nowOf(deps))).outcome;
      },
    };
  },
});

/** The message as Telegram HTML: everything escaped, `**bold**` as `<b>`, capped at 4,000 characters. */
export function telegramHtml(message: Message): string {
  const text = truncate(message.markdown, TEXT_MAX);
  return escapeHtml(text).replace(/\*\*(.+?)\*\*/g, "<b>$1</b>");
}

// --- internal ---

/** One Bot API call: HTTP status first, then the `ok:false` body Telegram uses for every error. */
async function call(
  http: HttpClient,
  url: string,
  body: unknown,
  signal: AbortSignal,
  now: number,
): Promise<{ outcome: Outcome; result?: unknown }> {
  return exchangeJson(http, { url, body, signal }, (answer) => read(answer, now));
}

/** Telegram's answer: `ok:false` with `error_code` and `parameters` for every error. */
function read(answer: HttpAnswer, now: number): { outcome: Outcome; result?: unknown } {
  // Not JSON: the status decides.
  const parsed =
    parseJson<{
      ok?: boolean;
      result?: unknown;
      error_code?: number;
      description?: string;
      parameters?: { retry_after?: number; migrate_to_chat_id?: number };
    }>(answer.body) ?? {};
  if (answer.status === 429 || parsed.error_code === 429) {
    const after = parsed.parameters?.retry_after;
    return {
      outcome:
        typeof after === "number"
          ? { kind: "rateLimited", afterMs: after * 1000 }
          : classifyStatus({ ...answer, status: 429 }, now),
    };
  }
  if (answer.status >= 200 && answer.status < 300 && parsed.ok !== false)
    return { outcome: { kind: "ok" }, result: parsed.result };
  if (answer.status >= 500) return { outcome: classifyStatus(answer, now) };
  const migrated = parsed.parameters?.migrate_to_chat_id;
  const reason = `telegram_${parsed.error_code ?? answer.status}: ${parsed.description ?? "error"}${migrated ? ` (the group is now chat ${migrated}: update chatId)` : ""}`;
  return { outcome: permanent(reason) };
}
