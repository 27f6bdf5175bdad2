import * as v from "valibot";
import { defineProvider } from "./_kit/define.ts";
import { classifyBodyCode, sendAndClassify, truncateBytes } from "./_kit/http.ts";

/** WeCom caps `markdown.content` at 4,096 bytes; 45009 means over the 20-a-minute limit. */
const CONTENT_MAX_BYTES = 4_000;
const RATE_LIMITED = [45009];

const Options = v.object({
  webhookKey: v.pipe(
    v.string(),
    v.minLength(8),
    v.description("Group robot key, the `key` of its webhook URL (a credential: ${file:/path})."),
  ),
  url: v.optional(
    v.pipe(v.string(), v.url(), v.description("Robot send endpoint.")),
    "https://qyapi.weixin.qq.com/cgi-bin/webhook/send",
  ),
});

/** WeCom (WeChat Work) group robot (providers.md `wecom`): one Markdown message per message; errors as HTTP 200 with `errcode`. */
export default defineProvider({
  name: "wecom",
  kind: "chat",
  title: "WeCom",
  guide: { credential: "Group chat → … → Add Group Robot; copy the key of its webhook URL." },
  threading: "none",
  options: Options,
  credentials: ["webhookKey"],
  create(options, deps) {
    return {
      async send(message, context) {
        const url = new URL(options.url);
        url.searchParams.set("key", options.webhookKey);
        const body = JSON.stringify({
          msgtype: "markdown",
          markdown: { content: truncateBytes(message.markdown, CONTENT_MAX_BYTES) },
        });
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
