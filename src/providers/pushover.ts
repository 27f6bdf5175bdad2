import { severityOf } from "./_kit/severity.ts";
import * as v from "valibot";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { formApi, truncate } from "./_kit/http.ts";
import { shortKey } from "./_kit/keys.ts";

const Options = v.object({
  appToken: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9]{30}$/, "must be a 30-character application token"),
    v.description("Application API token (a credential: ${file:/path})."),
  ),
  userKey: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9]{30}$/, "must be a 30-character user or group key"),
    v.description("User or group key (a credential: ${file:/path})."),
  ),
  device: v.optional(v.pipe(v.string(), v.description("Only this device."))),
  url: v.optional(v.pipe(v.string(), v.url(), v.description("API base.")), "https://api.pushover.net"),
});

/**
 * Pushover (providers.md `pushover`): `POST /1/messages.json` with title (≤ 250), message (≤ 1,024) and
 * priority 1 for page-tier (high priority, not emergency: emergency repeats until acknowledged), 0 for
 * notify, −1 for low. Pushover answers `{status:1}`; a 4xx names the problem in `errors`. `check` validates
 * the user key (`/1/users/validate.json`), which sends nothing.
 */
export default defineProvider({
  name: "pushover",
  kind: "info",
  title: "Pushover",
  guide: { credential: "pushover.net → Create an Application (token); your user or group key." },
  threading: "none",
  options: Options,
  credentials: ["appToken", "userKey"],
  plainText: true,
  create(options, deps) {
    const base = options.url.replace(/\/+$/, "");
    const api = formApi(deps.http, base);
    const post = async (path: string, fields: Record<string, string>, signal: AbortSignal, now: number) =>
      (await api("POST", path, fields, signal, now)).outcome;
    return {
      send: (message, context) =>
        post(
          "/1/messages.json",
          {
            token: options.appToken,
            user: options.userKey,
            title: truncate(message.title, 250),
            message: truncate(message.text, 1_024),
            priority: severityOf(message, ["1", "0", "0", "-1"]),
            tags: shortKey(message.dedupKey, 64),
            ...(options.device ? { device: options.device } : {}),
          },
          context.signal,
          context.now,
        ),
      check: (signal) =>
        post("/1/users/validate.json", { token: options.appToken, user: options.userKey }, signal, nowOf(deps)),
    };
  },
});
