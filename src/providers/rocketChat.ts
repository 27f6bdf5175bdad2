import { permanent } from "./_kit/outcome.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { jsonApi, parseJson, sendAndClassify, truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";

/** Rocket.Chat's default `Message_MaxAllowedSize` is 5,000 characters. */
const TEXT_MAX = 5_000;

const Options = v.pipe(
  v.object({
    webhookUrl: v.optional(
      v.pipe(
        v.string(),
        v.url(),
        v.description(
          "Incoming webhook URL `https://{host}/hooks/{id}/{token}` (a credential: ${file:/path}). Cannot thread.",
        ),
      ),
    ),
    url: v.optional(v.pipe(v.string(), v.url(), v.description("Server URL, for the REST API."))),
    authToken: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "Personal access token (a credential: ${file:/path}); with `userId`, `url` and `channel`, threads updates.",
        ),
      ),
    ),
    userId: v.optional(v.pipe(v.string(), v.description("User id of that token."))),
    channel: v.optional(v.pipe(v.string(), v.description("Channel (#name) or room id, for the REST API."))),
  }),
  v.check(
    (o) => Boolean(o.webhookUrl) !== Boolean(o.authToken),
    "set either webhookUrl, or authToken with userId, url and channel",
  ),
  v.check((o) => !o.authToken || Boolean(o.userId && o.url && o.channel), "authToken needs userId, url and channel"),
);

/**
 * Rocket.Chat (providers.md `rocketChat`). Webhook mode: one post per message. REST mode:
 * `chat.postMessage`; the conversation is `<roomId>:<messageId>`; updates and the resolve are thread
 * replies (`chat.sendMessage` with `tmid`), and the resolve also edits the root (`chat.update`). REST
 * failures can be HTTP 200 with `success: false`. `check` (REST) reads `/api/v1/me`.
 */
export default defineProvider({
  name: "rocketChat",
  kind: "chat",
  title: "Rocket.Chat",
  guide: {
    credential:
      "Administration → Integrations → New → Incoming (webhookUrl); or My Account → Personal Access Tokens (authToken and userId).",
    oneOf: [["webhookUrl", "authToken"]],
    requires: { authToken: ["userId", "url", "channel"] },
  },
  threading: "thread",
  options: Options,
  credentials: ["webhookUrl", "authToken"],
  create(options, deps) {
    const call = jsonApi(deps.http, `${(options.url ?? "").replace(/\/+$/, "")}/api/v1`, {
      "x-auth-token": options.authToken ?? "",
      "x-user-id": options.userId ?? "",
    });
    const rest = async (method: "GET" | "POST", path: string, body: unknown, signal: AbortSignal, now: number) => {
      const { outcome, answer } = await call(method, path, body, signal, now);
      const json = parseJson<{ success?: boolean; error?: string; message?: { _id?: string; rid?: string } }>(
        answer?.body,
      );
      if (outcome.kind === "ok" && json?.success === false)
        return {
          outcome: permanent(`rocketchat: ${String(json.error ?? "error").slice(0, 200)}`) as Outcome,
          json,
        };
      return { outcome, json };
    };
    return {
      async send(message, context): Promise<Outcome> {
        const text = truncate(message.markdown, TEXT_MAX);
        if (options.webhookUrl)
          return (
            await sendAndClassify(
              deps.http,
              {
                url: options.webhookUrl,
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ text }),
                signal: context.signal,
              },
              context.now,
            )
          ).outcome;
        const [rid, tmid] = context.conversation?.split(":") ?? [];
        if (rid && tmid && message.action !== "announce" && message.action !== "opened_resolved") {
          const sent = await rest(
            "POST",
            "/chat.sendMessage",
            { message: { rid, msg: text, tmid } },
            context.signal,
            context.now,
          );
          if (sent.outcome.kind !== "ok") return sent.outcome;
          if (ends(message))
            await rest("POST", "/chat.update", { roomId: rid, msgId: tmid, text }, context.signal, context.now);
          return { kind: "ok", conversation: context.conversation! };
        }
        const posted = await rest(
          "POST",
          "/chat.postMessage",
          { channel: options.channel, text },
          context.signal,
          context.now,
        );
        if (posted.outcome.kind !== "ok") return posted.outcome;
        const m = posted.json?.message;
        return m?._id && m.rid ? { kind: "ok", conversation: `${m.rid}:${m._id}` } : { kind: "ok" };
      },
      ...(options.authToken
        ? { check: async (signal: AbortSignal) => (await rest("GET", "/me", undefined, signal, nowOf(deps))).outcome }
        : {}),
    };
  },
});
