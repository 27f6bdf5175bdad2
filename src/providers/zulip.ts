import { basic } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { formApi, idFrom, sendAndClassify, truncate } from "./_kit/http.ts";
import { ends, shortKey } from "./_kit/keys.ts";

/** Zulip caps topics at 60 characters and content at 10,000 bytes. */
const TOPIC_MAX = 60;
const CONTENT_MAX = 9_000;

const Options = v.object({
  url: v.pipe(v.string(), v.url(), v.description("Organization URL, e.g. https://example.zulipchat.com.")),
  botEmail: v.pipe(v.string(), v.email(), v.description("The bot's email address.")),
  apiKey: v.pipe(v.string(), v.minLength(8), v.description("The bot's API key (a credential: ${file:/path}).")),
  channel: v.pipe(v.string(), v.minLength(1), v.description("Channel (stream) to post to.")),
});

/**
 * Zulip (providers.md `zulip`): one topic per incident, so every message of it lands together; the resolve
 * posts in the topic and renames it with Zulip's resolved-topic prefix "✔ " (`PATCH /messages/{id}` with
 * `propagate_mode=change_all`). Form-encoded, Basic `botEmail:apiKey`. `check` reads `/users/me`.
 */
export default defineProvider({
  name: "zulip",
  kind: "chat",
  title: "Zulip",
  guide: { credential: "Settings → Personal → Bots → Add a new bot (generic); download its API key." },
  threading: "thread",
  options: Options,
  credentials: ["apiKey"],
  create(options, deps) {
    const base = `${options.url.replace(/\/+$/, "")}/api/v1`;
    const headers = { authorization: basic(options.botEmail, options.apiKey) };
    const form = formApi(deps.http, base, headers);
    return {
      async send(message, context) {
        const topic = zulipTopic(message);
        const fields = { type: "stream", to: options.channel, topic, content: truncate(message.markdown, CONTENT_MAX) };
        const { outcome, answer } = await form("POST", "/messages", fields, context.signal, context.now);
        if (outcome.kind !== "ok") return outcome;
        const id = idFrom(answer?.body);
        if (ends(message) && message.root.kind !== "Cluster" && id) {
          const rename = { topic: `✔ ${topic}`.slice(0, TOPIC_MAX), propagate_mode: "change_all" };
          await form("PATCH", `/messages/${id}`, rename, context.signal, context.now);
        }
        return { kind: "ok" };
      },
      async check(signal) {
        return (
          await sendAndClassify(deps.http, { method: "GET", url: `${base}/users/me`, headers, signal }, nowOf(deps))
        ).outcome;
      },
    };
  },
});

/** The incident's topic: its root, then a short stable hash of its key, within 60 characters (leaving room for "✔ "). */
export function zulipTopic(message: Message): string {
  if (message.root.kind === "Cluster") return "mon";
  const tag = shortKey(message.dedupKey, 0).slice(4, 12);
  const root = `${message.root.kind.toLowerCase()} ${message.root.namespace ? `${message.root.namespace}/` : ""}${message.root.name}`;
  return `${root.slice(0, TOPIC_MAX - 2 - tag.length - 3)} · ${tag}`;
}
