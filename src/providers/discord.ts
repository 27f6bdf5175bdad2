import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { jsonApi, idFrom, truncate, withBodyRetryAfter } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";

/** Discord caps `content` at 2,000 characters (providers.md `discord`). */
const CONTENT_MAX = 2_000;

const Options = v.object({
  webhookUrl: v.pipe(
    v.string(),
    v.url(),
    v.description("Channel webhook URL `https://discord.com/api/webhooks/{id}/{token}` (a credential: ${file:/path})."),
  ),
  username: v.optional(v.pipe(v.string(), v.maxLength(80), v.description("Name shown on the messages."))),
  threadId: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, "must be a thread (channel) id"),
      v.description("Post into this existing thread."),
    ),
  ),
});

/**
 * Discord webhook (providers.md `discord`): the announcement is posted with `?wait=true`, which answers the
 * message object; its id is the conversation. Updates are new messages; the resolve is a new message and an
 * edit of the announcement (`PATCH …/messages/{id}`), so the channel shows it is over. Mentions in pod text
 * never ping (`allowed_mentions.parse = []`). 429 carries `retry_after` (seconds) in the body as well as the
 * header. `check` reads the webhook (`GET`), which posts nothing.
 */
export default defineProvider({
  name: "discord",
  kind: "chat",
  title: "Discord",
  guide: { credential: "Channel settings → Integrations → Webhooks → New Webhook → Copy Webhook URL." },
  threading: "edit",
  options: Options,
  credentials: ["webhookUrl"],
  create(options, deps) {
    const base = options.webhookUrl.replace(/\/+$/, "");
    const query = (extra: Record<string, string>) => {
      const params = new URLSearchParams({ ...extra, ...(options.threadId ? { thread_id: options.threadId } : {}) });
      return params.size ? `?${params}` : "";
    };
    const api = jsonApi(deps.http, "", {});
    const call = async (
      method: "POST" | "PATCH" | "GET",
      url: string,
      body: unknown,
      signal: AbortSignal,
      now: number,
    ) => {
      const { outcome, answer } = await api(method, url, body, signal, now);
      return { outcome: withBodyRetryAfter(outcome, answer?.body, "retry_after", 1000), answer };
    };
    return {
      async send(message, context) {
        const payload = discordPayload(message, options.username);
        const posted = await call("POST", `${base}${query({ wait: "true" })}`, payload, context.signal, context.now);
        if (posted.outcome.kind !== "ok") return posted.outcome;
        if (message.action === "announce" || message.action === "opened_resolved") {
          const id = idFrom(posted.answer?.body);
          return id ? { kind: "ok", conversation: id } : { kind: "ok" };
        }
        // The resolve also marks the announcement itself; a failed edit does not undo the delivered resolve.
        if (ends(message) && context.conversation)
          await call(
            "PATCH",
            `${base}/messages/${context.conversation}${query({})}`,
            { content: truncate(`${message.emoji} ${message.title}`, CONTENT_MAX), allowed_mentions: { parse: [] } },
            context.signal,
            context.now,
          );
        return { kind: "ok", ...(context.conversation ? { conversation: context.conversation } : {}) };
      },
      async check(signal) {
        return (await call("GET", base, undefined, signal, nowOf(deps))).outcome;
      },
    };
  },
});

/** The execute-webhook body: the message as Discord markdown, capped at 2,000 characters, no mentions. */
export function discordPayload(message: Message, username?: string): Record<string, unknown> {
  return {
    content: truncate(message.markdown, CONTENT_MAX),
    allowed_mentions: { parse: [] },
    ...(username ? { username } : {}),
  };
}
