import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { idFrom, jsonApi, truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";

/** Mattermost posts hold at most 16,383 characters. */
const TEXT_MAX = 16_000;

const Options = v.pipe(
  v.object({
    webhookUrl: v.optional(
      v.pipe(
        v.string(),
        v.url(),
        v.description(
          "Incoming webhook URL `https://{host}/hooks/{key}` (a credential: ${file:/path}). Cannot thread.",
        ),
      ),
    ),
    botToken: v.optional(
      v.pipe(
        v.string(),
        v.description("Bot access token (a credential: ${file:/path}); with `url` and `channelId`, threads updates."),
      ),
    ),
    url: v.optional(v.pipe(v.string(), v.url(), v.description("Server URL, for the bot token."))),
    channelId: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[a-z0-9]{26}$/, "must be a 26-character channel id"),
        v.description("Channel id, for the bot token."),
      ),
    ),
    username: v.optional(
      v.pipe(v.string(), v.description("Name shown on webhook posts (when the hook allows overrides).")),
    ),
  }),
  v.check(
    (o) => Boolean(o.webhookUrl) !== Boolean(o.botToken),
    "set either webhookUrl, or botToken with url and channelId",
  ),
  v.check((o) => !o.botToken || (Boolean(o.url) && Boolean(o.channelId)), "botToken needs url and channelId"),
);

/**
 * Mattermost (providers.md `mattermost`). Webhook mode: one post per message (no id comes back, so no
 * thread). Bot mode: `POST /api/v4/posts`; the announcement's post id is the conversation, updates and the
 * resolve reply with `root_id`, and the resolve also patches the announcement. `check` (bot mode) reads
 * `/api/v4/users/me` and the channel.
 */
export default defineProvider({
  name: "mattermost",
  kind: "chat",
  title: "Mattermost",
  guide: {
    credential:
      "Integrations → Incoming Webhooks → Add (webhookUrl); or System Console → Bot Accounts → token (botToken) with url and channelId.",
    oneOf: [["webhookUrl", "botToken"]],
    requires: { botToken: ["url", "channelId"] },
  },
  threading: "thread",
  options: Options,
  credentials: ["webhookUrl", "botToken"],
  create(options, deps) {
    const bot = jsonApi(deps.http, `${(options.url ?? "").replace(/\/+$/, "")}/api/v4`, {
      authorization: bearer(options.botToken ?? ""),
    });
    return {
      async send(message, context): Promise<Outcome> {
        const text = truncate(message.markdown, TEXT_MAX);
        if (options.webhookUrl)
          return (
            await jsonApi(deps.http, options.webhookUrl, {})(
              "POST",
              "",
              { text, ...(options.username ? { username: options.username } : {}) },
              context.signal,
              context.now,
            )
          ).outcome;
        const root =
          message.action !== "announce" && message.action !== "opened_resolved" ? context.conversation : undefined;
        const { outcome, answer } = await bot(
          "POST",
          "/posts",
          { channel_id: options.channelId, message: text, ...(root ? { root_id: root } : {}) },
          context.signal,
          context.now,
        );
        if (outcome.kind !== "ok") return outcome;
        if (root && ends(message))
          await bot("PUT", `/posts/${root}/patch`, { message: text }, context.signal, context.now);
        const id = idFrom(answer?.body);
        return root ? { kind: "ok", conversation: root } : id ? { kind: "ok", conversation: id } : { kind: "ok" };
      },
      ...(options.botToken
        ? {
            async check(signal: AbortSignal) {
              const me = await bot("GET", "/users/me", undefined, signal, nowOf(deps));
              if (me.outcome.kind !== "ok") return me.outcome;
              return (await bot("GET", `/channels/${options.channelId}`, undefined, signal, nowOf(deps))).outcome;
            },
          }
        : {}),
    };
  },
});
