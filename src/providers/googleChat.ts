import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { defineProvider } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";

/** Google Chat messages stay readable and valid under 4,000 characters of text. */
const TEXT_MAX = 4_000;

const Options = v.object({
  webhookUrl: v.pipe(
    v.string(),
    v.url(),
    v.description("Space webhook URL with its `key` and `token` parameters (a credential: ${file:/path})."),
  ),
  threadPerIncident: v.optional(
    v.pipe(v.boolean(), v.description("Keep every message of an incident in one thread (threadKey = its dedup key).")),
    true,
  ),
});

/**
 * Google Chat incoming webhook (providers.md `googleChat`): one `text` message per message. With
 * `threadPerIncident` every message of an incident goes to the thread named by its dedup key
 * (`threadKey`, `messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`), so the resolve lands under the
 * announcement; editing needs a Chat app and is not done. 429 is retried with backoff (no Retry-After is
 * promised).
 */
export default defineProvider({
  name: "googleChat",
  kind: "chat",
  title: "Google Chat",
  guide: {
    credential:
      "In the space: Apps & integrations → Webhooks → Add webhook; copy the URL (its key and token are the secret).",
  },
  threading: "thread",
  options: Options,
  credentials: ["webhookUrl"],
  create(options, deps) {
    return {
      async send(message, context) {
        const url = threadUrl(options.webhookUrl, options.threadPerIncident ? message : undefined);
        const body = JSON.stringify({ text: googleChatText(message) });
        return (
          await sendAndClassify(
            deps.http,
            { url, headers: { "content-type": "application/json; charset=UTF-8" }, body, signal: context.signal },
            context.now,
          )
        ).outcome;
      },
    };
  },
});

/** Google Chat's text format: `*bold*`, backticks kept. */
export function googleChatText(message: Message): string {
  return truncate(message.markdown.replace(/\*\*(.+?)\*\*/g, "*$1*"), TEXT_MAX);
}

function threadUrl(base: string, message: Message | undefined): string {
  if (!message) return base;
  const url = new URL(base);
  url.searchParams.set("threadKey", message.root.kind === "Cluster" ? message.incidentId : message.dedupKey);
  url.searchParams.set("messageReplyOption", "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
  return url.toString();
}
