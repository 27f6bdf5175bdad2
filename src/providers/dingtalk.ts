import * as v from "valibot";
import { defineProvider } from "./_kit/define.ts";
import { classifyBodyCode, sendAndClassify, truncate } from "./_kit/http.ts";
import { hmacSha256Base64 } from "./_kit/keys.ts";

/** DingTalk's "sending too fast" code (20 messages a minute per robot). */
const RATE_LIMITED = [130101];

const Options = v.object({
  accessToken: v.pipe(v.string(), v.minLength(8), v.description("Robot access token (a credential: ${file:/path}).")),
  signingSecret: v.optional(
    v.pipe(
      v.string(),
      v.startsWith("SEC", "a DingTalk signing secret starts with SEC"),
      v.description('Signing secret `SEC…`, when the robot\'s security is "sign" (a credential: ${file:/path}).'),
    ),
  ),
  url: v.optional(
    v.pipe(v.string(), v.url(), v.description("Robot send endpoint.")),
    "https://oapi.dingtalk.com/robot/send",
  ),
  keyword: v.optional(v.pipe(v.string(), v.description("Keyword the robot filters on; added to every message."))),
});

/**
 * DingTalk custom robot (providers.md `dingtalk`): one Markdown message per message; with a secret the URL
 * carries `timestamp` (ms) and `sign` = Base64(HMAC-SHA256(key = secret, data = "<timestamp>\n<secret>")).
 * Errors come as HTTP 200 with `errcode` (130101: too fast, retried).
 */
export default defineProvider({
  name: "dingtalk",
  kind: "chat",
  title: "DingTalk",
  guide: {
    credential:
      'Group settings → Smart Group Assistant → Add Robot → Custom; copy the access_token of the webhook URL (and the SEC… secret for "sign" security).',
  },
  threading: "none",
  options: Options,
  credentials: ["accessToken", "signingSecret"],
  create(options, deps) {
    return {
      async send(message, context) {
        const url = new URL(options.url);
        url.searchParams.set("access_token", options.accessToken);
        if (options.signingSecret) {
          url.searchParams.set("timestamp", String(context.now));
          url.searchParams.set("sign", await dingtalkSign(options.signingSecret, String(context.now)));
        }
        const text = truncate(
          options.keyword && !message.markdown.includes(options.keyword)
            ? `${message.markdown}\n\n${options.keyword}`
            : message.markdown,
          5_000,
        );
        const body = JSON.stringify({ msgtype: "markdown", markdown: { title: truncate(message.title, 100), text } });
        const { outcome, answer } = await sendAndClassify(
          deps.http,
          { url: url.toString(), headers: { "content-type": "application/json" }, body, signal: context.signal },
          context.now,
        );
        return classifyBodyCode(outcome, answer?.body, (j) => ({ code: j.errcode, message: j.errmsg }), RATE_LIMITED);
      },
    };
  },
});

/** DingTalk's signature for `timestamp` (ms): HMAC-SHA256 with the secret as key over "<timestamp>\n<secret>". */
export function dingtalkSign(secret: string, timestamp: string): Promise<string> {
  return hmacSha256Base64(secret, `${timestamp}\n${secret}`);
}
