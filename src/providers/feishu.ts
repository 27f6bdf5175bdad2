import * as v from "valibot";
import { defineProvider } from "./_kit/define.ts";
import { classifyBodyCode, sendAndClassify, truncateBytes } from "./_kit/http.ts";
import { hmacSha256Base64 } from "./_kit/keys.ts";

/** Feishu caps a request body at 20 KB. */
const TEXT_MAX_BYTES = 18_000;
/** Feishu's "request frequency limited" code. */
const RATE_LIMITED = [11232, 9499];

const Options = v.object({
  webhookUrl: v.pipe(
    v.string(),
    v.url(),
    v.description(
      "Custom bot webhook `https://open.feishu.cn/open-apis/bot/v2/hook/{token}` (Lark: open.larksuite.com) (a credential: ${file:/path}).",
    ),
  ),
  signingSecret: v.optional(
    v.pipe(
      v.string(),
      v.description("Signing secret, when the bot verifies signatures (a credential: ${file:/path})."),
    ),
  ),
  keyword: v.optional(v.pipe(v.string(), v.description("Keyword the bot filters on; added to every message."))),
});

/**
 * Feishu / Lark custom bot (providers.md `feishu`): one `text` message per message, signed when a secret is
 * set (`sign` = Base64(HMAC-SHA256(key = "<seconds>\n<secret>", data = ""))). Errors come as HTTP 200 with a
 * non-zero `code` (11232: too frequent, retried).
 */
export default defineProvider({
  name: "feishu",
  kind: "chat",
  title: "Feishu / Lark",
  guide: {
    credential:
      "Group settings → Bots → Add Bot → Custom Bot; copy the webhook URL (and the signing secret if signature verification is on).",
  },
  threading: "none",
  options: Options,
  credentials: ["webhookUrl", "signingSecret"],
  create(options, deps) {
    return {
      async send(message, context) {
        const text = truncateBytes(
          options.keyword && !message.text.includes(options.keyword)
            ? `${message.text}\n${options.keyword}`
            : message.text,
          TEXT_MAX_BYTES,
        );
        const timestamp = String(Math.floor(context.now / 1000));
        const body = JSON.stringify({
          ...(options.signingSecret ? { timestamp, sign: await feishuSign(options.signingSecret, timestamp) } : {}),
          msg_type: "text",
          content: { text },
        });
        const { outcome, answer } = await sendAndClassify(
          deps.http,
          { url: options.webhookUrl, headers: { "content-type": "application/json" }, body, signal: context.signal },
          context.now,
        );
        return classifyBodyCode(
          outcome,
          answer?.body,
          (j) => ({ code: j.code ?? j.StatusCode, message: j.msg ?? j.StatusMessage }),
          RATE_LIMITED,
        );
      },
    };
  },
});

/** Feishu's signature for `timestamp` (seconds): the HMAC key is "<timestamp>\n<secret>", the data empty. */
export function feishuSign(secret: string, timestamp: string): Promise<string> {
  return hmacSha256Base64(`${timestamp}\n${secret}`, "");
}
