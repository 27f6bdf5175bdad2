import { basic } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { formApi, sendAndClassify, truncate } from "./_kit/http.ts";

/** Twilio caps `Body` at 1,600 characters; an alert SMS is kept to the headline and a few lines. */
const BODY_MAX = 640;

const Options = v.pipe(
  v.object({
    accountSid: v.pipe(
      v.string(),
      v.regex(/^AC[0-9a-f]{32}$/, "must be an account SID AC…"),
      v.description("Account SID."),
    ),
    authToken: v.optional(v.pipe(v.string(), v.description("Auth token (a credential: ${file:/path})."))),
    apiKeySid: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^SK[0-9a-f]{32}$/, "must be an API key SID SK…"),
        v.description("API key SID, with `apiKeySecret`."),
      ),
    ),
    apiKeySecret: v.optional(v.pipe(v.string(), v.description("API key secret (a credential: ${file:/path})."))),
    from: v.optional(
      v.pipe(v.string(), v.regex(/^\+[1-9]\d{6,14}$/, "must be an E.164 number"), v.description("Sender number.")),
    ),
    messagingServiceSid: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^MG[0-9a-f]{32}$/, "must be a Messaging Service SID MG…"),
        v.description("Messaging Service instead of `from`."),
      ),
    ),
    to: v.pipe(
      v.array(v.pipe(v.string(), v.regex(/^\+[1-9]\d{6,14}$/, "must be an E.164 number"))),
      v.minLength(1),
      v.description("Recipients."),
    ),
    url: v.optional(v.pipe(v.string(), v.url(), v.description("API base.")), "https://api.twilio.com"),
  }),
  v.check(
    (o) => Boolean(o.authToken) !== Boolean(o.apiKeySid && o.apiKeySecret),
    "set authToken, or apiKeySid with apiKeySecret",
  ),
  v.check((o) => Boolean(o.from) !== Boolean(o.messagingServiceSid), "set from or messagingServiceSid"),
);

/**
 * Twilio SMS (providers.md `twilio`): one SMS per recipient per message, the headline first, cut to 640
 * characters (four segments). The first recipient that fails decides the outcome; a retry sends to every
 * recipient again (Twilio offers no idempotency key), so one may get the SMS twice. `check` reads the account.
 */
export default defineProvider({
  name: "twilio",
  kind: "info",
  title: "Twilio SMS",
  guide: {
    credential: "Console → Account → API keys & tokens: the Auth Token, or an API key (SID and secret).",
    oneOf: [
      ["authToken", "apiKeySid"],
      ["from", "messagingServiceSid"],
    ],
    requires: { apiKeySid: ["apiKeySecret"] },
  },
  threading: "none",
  options: Options,
  credentials: ["authToken", "apiKeySecret"],
  plainText: true,
  create(options, deps) {
    const base = options.url.replace(/\/+$/, "");
    const user = options.apiKeySid ?? options.accountSid;
    const auth = { authorization: basic(user, options.apiKeySecret ?? options.authToken ?? "") };
    const form = formApi(deps.http, base, auth);
    return {
      async send(message, context): Promise<Outcome> {
        for (const to of options.to) {
          const fields = {
            To: to,
            Body: truncate(message.text, BODY_MAX),
            ...(options.from ? { From: options.from } : { MessagingServiceSid: options.messagingServiceSid ?? "" }),
          };
          const path = `/2010-04-01/Accounts/${options.accountSid}/Messages.json`;
          const { outcome } = await form("POST", path, fields, context.signal, context.now);
          if (outcome.kind !== "ok") return outcome;
        }
        return { kind: "ok" };
      },
      async check(signal) {
        return (
          await sendAndClassify(
            deps.http,
            { method: "GET", url: `${base}/2010-04-01/Accounts/${options.accountSid}.json`, headers: auth, signal },
            nowOf(deps),
          )
        ).outcome;
      },
    };
  },
});
