import { severityOf } from "./_kit/severity.ts";
import * as v from "valibot";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";

const Options = v.object({
  url: v.pipe(v.string(), v.url(), v.description("Gotify server URL.")),
  appToken: v.pipe(v.string(), v.minLength(4), v.description("Application token (a credential: ${file:/path}).")),
});

/**
 * Gotify (providers.md `gotify`): `POST {url}/message` with `X-Gotify-Key`, title, Markdown message and a
 * priority (8 page-tier, 5 notify, 2 low). No threads. `check` reads `/health`; only a send proves the
 * application token, and `check` never sends.
 */
export default defineProvider({
  name: "gotify",
  kind: "info",
  title: "Gotify",
  guide: { credential: "Gotify UI → Apps → Create Application; copy its token." },
  threading: "none",
  options: Options,
  credentials: ["appToken"],
  create(options, deps) {
    const base = options.url.replace(/\/+$/, "");
    return {
      async send(message, context) {
        const priority = severityOf(message, [8, 5, 5, 2]);
        const body = JSON.stringify({
          title: truncate(message.title, 250),
          message: truncate(message.markdown, 60_000),
          priority,
          extras: { "client::display": { contentType: "text/markdown" } },
        });
        return (
          await sendAndClassify(
            deps.http,
            {
              url: `${base}/message`,
              headers: { "content-type": "application/json", "x-gotify-key": options.appToken },
              body,
              signal: context.signal,
            },
            context.now,
          )
        ).outcome;
      },
      async check(signal) {
        return (await sendAndClassify(deps.http, { method: "GET", url: `${base}/health`, signal }, nowOf(deps)))
          .outcome;
      },
    };
  },
});
