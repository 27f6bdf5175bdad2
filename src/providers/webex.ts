import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { idFrom, jsonApi, truncateBytes } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";

/** Webex caps a message at 7,439 bytes (the figure Alertmanager truncates to). */
const MAX_BYTES = 7_400;

const Options = v.object({
  botToken: v.pipe(v.string(), v.minLength(16), v.description("Bot access token (a credential: ${file:/path}).")),
  roomId: v.pipe(v.string(), v.minLength(8), v.description("Room (space) id the bot is a member of.")),
  apiUrl: v.optional(v.pipe(v.string(), v.url(), v.description("API base.")), "https://webexapis.com"),
});

/**
 * Webex bot (providers.md `webex`): `POST /v1/messages` in Markdown; the announcement's id is the
 * conversation, updates and the resolve are threaded replies (`parentId`), and the resolve also edits the
 * announcement (`PUT /v1/messages/{id}`). `check` reads `/v1/people/me` and the room.
 */
export default defineProvider({
  name: "webex",
  kind: "chat",
  title: "Webex",
  guide: {
    credential:
      "developer.webex.com → My Webex Apps → Create a Bot; copy its access token and add the bot to the space.",
  },
  threading: "thread",
  options: Options,
  credentials: ["botToken"],
  create(options, deps) {
    const base = `${options.apiUrl.replace(/\/+$/, "")}/v1`;
    const call = jsonApi(deps.http, base, { authorization: bearer(options.botToken) });
    return {
      async send(message, context): Promise<Outcome> {
        const markdown = truncateBytes(message.markdown, MAX_BYTES);
        const parent =
          message.action !== "announce" && message.action !== "opened_resolved" ? context.conversation : undefined;
        const { outcome, answer } = await call(
          "POST",
          "/messages",
          { roomId: options.roomId, markdown, ...(parent ? { parentId: parent } : {}) },
          context.signal,
          context.now,
        );
        if (outcome.kind !== "ok") return outcome;
        if (parent && ends(message))
          await call("PUT", `/messages/${parent}`, { roomId: options.roomId, markdown }, context.signal, context.now);
        const id = idFrom(answer?.body);
        return parent ? { kind: "ok", conversation: parent } : id ? { kind: "ok", conversation: id } : { kind: "ok" };
      },
      async check(signal) {
        const me = await call("GET", "/people/me", undefined, signal, nowOf(deps));
        return me.outcome.kind !== "ok"
          ? me.outcome
          : (await call("GET", `/rooms/${encodeURIComponent(options.roomId)}`, undefined, signal, nowOf(deps))).outcome;
      },
    };
  },
});
