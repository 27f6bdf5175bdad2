import { bearer } from "./_kit/auth.ts";
import { createHash } from "node:crypto";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import type { Message } from "../model/message.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { idFrom, sendAndClassify, truncate, withBodyRetryAfter } from "./_kit/http.ts";
import { ends, escapeHtml } from "./_kit/keys.ts";

const Options = v.object({
  homeserverUrl: v.pipe(v.string(), v.url(), v.description("Homeserver URL.")),
  accessToken: v.pipe(
    v.string(),
    v.minLength(8),
    v.description("Access token of the bot user (a credential: ${file:/path})."),
  ),
  roomId: v.pipe(
    v.string(),
    v.regex(/^!.+:.+$/, "must be a room id such as !abc:example.org"),
    v.description("Room id the bot has joined."),
  ),
});

/**
 * Matrix (providers.md `matrix`): `m.notice` events, plain and HTML bodies. The announcement's event id is
 * the conversation; updates and the resolve are thread replies (`m.thread`), and the resolve also edits the
 * announcement (`m.replace`). Each event's transaction id derives from the message id, so a retried send is
 * not posted twice. 429 `M_LIMIT_EXCEEDED` carries `retry_after_ms`. `check` calls `whoami`.
 */
export default defineProvider({
  name: "matrix",
  kind: "chat",
  title: "Matrix",
  guide: {
    credential:
      "Log in as the bot user (e.g. with Element → Settings → Help & About → Access Token) and join it to the room.",
  },
  threading: "thread",
  options: Options,
  credentials: ["accessToken"],
  create(options, deps) {
    const base = `${options.homeserverUrl.replace(/\/+$/, "")}/_matrix/client/v3`;
    const auth = { authorization: bearer(options.accessToken) };
    const put = async (txn: string, content: unknown, signal: AbortSignal, now: number) => {
      const url = `${base}/rooms/${encodeURIComponent(options.roomId)}/send/m.room.message/${txn}`;
      const { outcome, answer } = await sendAndClassify(
        deps.http,
        {
          method: "PUT",
          url,
          headers: { "content-type": "application/json", ...auth },
          body: JSON.stringify(content),
          signal,
        },
        now,
      );
      return { outcome: withBodyRetryAfter(outcome, answer?.body, "retry_after_ms", 1), body: answer?.body };
    };
    return {
      async send(message, context): Promise<Outcome> {
        const root =
          message.action !== "announce" && message.action !== "opened_resolved" ? context.conversation : undefined;
        const content = {
          ...matrixContent(message),
          ...(root
            ? {
                "m.relates_to": {
                  rel_type: "m.thread",
                  event_id: root,
                  is_falling_back: true,
                  "m.in_reply_to": { event_id: root },
                },
              }
            : {}),
        };
        const sent = await put(txnId(message.id), content, context.signal, context.now);
        if (sent.outcome.kind !== "ok") return sent.outcome;
        if (root && ends(message)) {
          const fresh = matrixContent(message);
          await put(
            txnId(`${message.id}#edit`),
            {
              ...fresh,
              body: `* ${fresh.body}`,
              "m.new_content": fresh,
              "m.relates_to": { rel_type: "m.replace", event_id: root },
            },
            context.signal,
            context.now,
          );
        }
        const id = idFrom(sent.body, "event_id");
        return root ? { kind: "ok", conversation: root } : id ? { kind: "ok", conversation: id } : { kind: "ok" };
      },
      async check(signal) {
        return (
          await sendAndClassify(
            deps.http,
            { method: "GET", url: `${base}/account/whoami`, headers: auth, signal },
            nowOf(deps),
          )
        ).outcome;
      },
    };
  },
});

/** The `m.notice` content of a message: plain body and HTML (`**bold**` as `<b>`), each capped well under 64 KB. */
export function matrixContent(message: Message): {
  msgtype: string;
  body: string;
  format: string;
  formatted_body: string;
} {
  const text = truncate(message.markdown, 20_000);
  return {
    msgtype: "m.notice",
    body: text,
    format: "org.matrix.custom.html",
    formatted_body: escapeHtml(text)
      .replace(/\*\*(.+?)\*\*/g, "<b>$1</b>")
      .replace(/\n/g, "<br>"),
  };
}

function txnId(id: string): string {
  return `mon-${createHash("sha256").update(id).digest("hex").slice(0, 24)}`;
}
