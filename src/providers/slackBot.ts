import * as v from "valibot";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { callWebApi, postBot } from "./slack.ts";

const Options = v.object({
  botToken: v.pipe(
    v.string(),
    v.startsWith("xoxb-", "must be a bot token xoxb-…"),
    v.description("Bot token (a credential: ${file:/path})."),
  ),
  channel: v.pipe(v.string(), v.minLength(1), v.description("Channel ID (preferred) or name the bot is in.")),
  apiUrl: v.optional(v.pipe(v.string(), v.url(), v.description("Web API base URL.")), "https://slack.com/api"),
});

/**
 * Slack bot (providers.md `slackBot`, the Web API): the announcement is a top-level post whose `ts` is the
 * conversation; updates and the resolve are replies in its thread, and the resolve also edits the root
 * (`chat.update`), as Alertmanager's Slack notifier does. Errors arrive as HTTP 200 `{ok:false}`. `check`
 * calls `auth.test`. (`slack` with `token` + `channel` does the same, for configurations written that way.)
 */
export default defineProvider({
  name: "slackBot",
  kind: "chat",
  title: "Slack (bot)",
  guide: {
    credential:
      "Slack app → OAuth & Permissions → Bot User OAuth Token (xoxb-…) with the chat:write scope; invite the bot to the channel.",
  },
  threading: "thread",
  options: Options,
  credentials: ["botToken"],
  create(options, deps) {
    return {
      send: (message, context) =>
        postBot(deps.http, options.apiUrl, options.botToken, options.channel, message, context),
      check: async (signal) =>
        (await callWebApi(deps.http, `${options.apiUrl}/auth.test`, options.botToken, {}, signal, nowOf(deps))).outcome,
    };
  },
});
