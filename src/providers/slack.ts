import { permanent } from "./_kit/outcome.ts";
import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import type { Message } from "../model/message.ts";
import { defineProvider, type SendContext, nowOf } from "./_kit/define.ts";
import type { HttpClient } from "../outbound/client.ts";
import { classifyStatus, exchangeJson, parseJson, retryAfterMs, sendAndClassify, truncate } from "./_kit/http.ts";

const TEXT_MAX = 40_000;
const SECTION_MAX = 3_000;

const Options = v.pipe(
  v.object({
    webhook: v.optional(
      v.pipe(v.string(), v.description("Incoming webhook URL (a credential: ${file:/path}). Cannot thread.")),
    ),
    token: v.optional(
      v.pipe(
        v.string(),
        v.description("Bot token xoxb-… (a credential: ${file:/path}); with `channel`, threads updates."),
      ),
    ),
    channel: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Channel ID for the bot token."))),
    apiUrl: v.optional(v.pipe(v.string(), v.url(), v.description("Web API base URL.")), "https://slack.com/api"),
  }),
  v.check((o) => Boolean(o.webhook) !== Boolean(o.token), "set either webhook, or token with channel"),
  v.check((o) => !o.token || Boolean(o.channel), "token needs channel"),
);

/**
 * Slack (spec 1.11; providers.md `slack`, `slackBot`). With `webhook`: one incoming-webhook post per message
 * (no thread, since the webhook answers only `ok`). With `token` + `channel`: `chat.postMessage`; updates and the
 * resolve are replies with `thread_ts` = the announcement's `ts`, and the resolve also edits the root message
 * (`chat.update`). Web API failures arrive as HTTP 200 `{ok:false,error}` and are classified from the body.
 */
export default defineProvider({
  name: "slack",
  kind: "chat",
  title: "Slack",
  guide: {
    credential:
      "Slack app → Incoming Webhooks → Add New Webhook to Workspace (webhook); or OAuth & Permissions → Bot User OAuth Token xoxb-… with chat:write (token).",
    oneOf: [["webhook", "token"]],
    requires: { token: ["channel"] },
  },
  threading: "thread",
  options: Options,
  credentials: ["webhook", "token"],
  create(options, deps) {
    const send = (message: Message, context: SendContext): Promise<Outcome> =>
      options.webhook
        ? postWebhook(deps.http, options.webhook, message, context)
        : postBot(deps.http, options.apiUrl, options.token ?? "", options.channel ?? "", message, context);
    return {
      send,
      check: options.token
        ? async (signal) => {
            const result = await callWebApi(
              deps.http,
              `${options.apiUrl}/auth.test`,
              options.token ?? "",
              {},
              signal,
              nowOf(deps),
            );
            return result.outcome;
          }
        : undefined,
    };
  },
});

/** Slack's mrkdwn for a message: bold is `*x*`, code is backticks; `&`, `<`, `>` escaped. */
export function toMrkdwn(message: Message): string {
  return message.markdown
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\*\*(.+?)\*\*/g, "*$1*");
}

/** The `{text, blocks}` payload; the fallback `text` carries the whole message, blocks the readable layout. */
export function slackPayload(message: Message): { text: string; blocks: unknown[] } {
  const body = toMrkdwn(message);
  const [headline = "", ...rest] = body.split("\n");
  const blocks: unknown[] = [{ type: "section", text: { type: "mrkdwn", text: truncate(headline, SECTION_MAX) } }];
  const details = rest.join("\n").trim();
  if (details) blocks.push({ type: "section", text: { type: "mrkdwn", text: truncate(details, SECTION_MAX) } });
  blocks.push({
    type: "context",
    elements: [
      { type: "mrkdwn", text: truncate(`${message.reason} · ${message.tier} · ${message.dedupKey}`, SECTION_MAX) },
    ],
  });
  return { text: truncate(body, TEXT_MAX), blocks };
}

// --- internal ---

async function postWebhook(http: HttpClient, url: string, message: Message, context: SendContext): Promise<Outcome> {
  const request = {
    url,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(slackPayload(message)),
    signal: context.signal,
  };
  return (await sendAndClassify(http, request, context.now)).outcome;
}

/**
 * One message through the Web API (shared with `slackBot`): `chat.postMessage`, threaded under the
 * announcement's `ts` for updates and the resolve, which also edits the root (`chat.update`).
 */
export async function postBot(
  http: HttpClient,
  apiUrl: string,
  token: string,
  channel: string,
  message: Message,
  context: SendContext,
): Promise<Outcome> {
  const payload = slackPayload(message);
  const threaded = context.conversation && message.action !== "announce" && message.action !== "opened_resolved";
  const body = { channel, ...payload, ...(threaded ? { thread_ts: context.conversation } : {}) };
  const posted = await callWebApi(http, `${apiUrl}/chat.postMessage`, token, body, context.signal, context.now);
  if (posted.outcome.kind !== "ok") return posted.outcome;
  if (threaded && message.action === "resolve") {
    // Keep the root message current so a scrolling reader sees the incident is over; a failed edit is not worth a resend.
    await callWebApi(
      http,
      `${apiUrl}/chat.update`,
      token,
      { channel, ts: context.conversation, ...payload },
      context.signal,
      context.now,
    );
  }
  const ts = typeof posted.json?.ts === "string" ? posted.json.ts : undefined;
  return threaded
    ? { kind: "ok", conversation: context.conversation }
    : ts
      ? { kind: "ok", conversation: ts }
      : { kind: "ok" };
}

const RETRYABLE_ERRORS = new Set([
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "ratelimited",
]);

/** One Web API call: HTTP status, then the `{ok:false, error}` body Slack answers with HTTP 200. */
export async function callWebApi(
  http: HttpClient,
  url: string,
  token: string,
  body: unknown,
  signal: AbortSignal,
  now: number,
): Promise<{ outcome: Outcome; json?: Record<string, unknown> }> {
  const headers = { "content-type": "application/json; charset=utf-8", authorization: bearer(token) };
  return exchangeJson(http, { url, headers, body, signal }, (answer) => {
    if (answer.status !== 200) return { outcome: classifyStatus(answer, now) };
    const json = parseJson<Record<string, unknown>>(answer.body);
    if (json?.ok === true) return { outcome: { kind: "ok" as const }, json };
    const error = typeof json?.error === "string" ? json.error : "unparseable_response";
    if (error === "ratelimited") {
      const afterMs = retryAfterMs(answer.headers.get("retry-after"), now);
      return {
        outcome: afterMs === undefined ? { kind: "rateLimited" as const } : { kind: "rateLimited" as const, afterMs },
      };
    }
    if (RETRYABLE_ERRORS.has(error)) return { outcome: { kind: "retry" as const, reason: `slack_${error}` } };
    return { outcome: permanent(`slack_${error}`) };
  });
}
