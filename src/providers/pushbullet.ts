import * as v from "valibot";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";

const Options = v.object({
  accessToken: v.pipe(v.string(), v.minLength(8), v.description("Access token (a credential: ${file:/path}).")),
  channelTag: v.optional(
    v.pipe(v.string(), v.description("Push to this channel's subscribers instead of your own devices.")),
  ),
  url: v.optional(v.pipe(v.string(), v.url(), v.description("API base.")), "https://api.pushbullet.com"),
});

/** Pushbullet (providers.md `pushbullet`): one `note` push per message (`Access-Token` header). `check` reads `/v2/users/me`. */
export default defineProvider({
  name: "pushbullet",
  kind: "info",
  title: "Pushbullet",
  guide: { credential: "Settings → Account → Create Access Token." },
  threading: "none",
  options: Options,
  credentials: ["accessToken"],
  plainText: true,
  create(options, deps) {
    const base = options.url.replace(/\/+$/, "");
    return {
      async send(message, context) {
        const body = JSON.stringify({
          type: "note",
          title: truncate(message.title, 250),
          body: truncate(message.text, 10_000),
          ...(options.channelTag ? { channel_tag: options.channelTag } : {}),
        });
        return (
          await sendAndClassify(
            deps.http,
            {
              url: `${base}/v2/pushes`,
              headers: { "content-type": "application/json", "access-token": options.accessToken },
              body,
              signal: context.signal,
            },
            context.now,
          )
        ).outcome;
      },
      async check(signal) {
        return (
          await sendAndClassify(
            deps.http,
            { method: "GET", url: `${base}/v2/users/me`, headers: { "access-token": options.accessToken }, signal },
            nowOf(deps),
          )
        ).outcome;
      },
    };
  },
});
