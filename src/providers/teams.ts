import { permanent } from "./_kit/outcome.ts";
import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { defineProvider } from "./_kit/define.ts";
import { sendAndClassify, truncateBytes } from "./_kit/http.ts";

/** A Teams message is capped near 28 KB; the card's text is kept well under it (bytes: UTF-8 counts). */
const TEXT_MAX = 20_000;
/** A headline is one line; one without a line break in it is cut too. */
const HEADLINE_MAX = 2_000;

/** Workflows (Power Automate) trigger hosts; `*.webhook.office.com` connectors are being retired by Microsoft. */
const WORKFLOW_HOSTS = /(^|\.)(logic\.azure\.com|powerplatform\.com|powerautomate\.com)$/i;

const Options = v.object({
  webhookUrl: v.pipe(
    v.string(),
    v.url("must be the Workflows trigger URL"),
    v.check(
      (u) => !/\.webhook\.office\.com$/i.test(safeHost(u)),
      "Office 365 connector URLs (*.webhook.office.com) are retired: create a Teams Workflows webhook instead",
    ),
    v.description(
      "Teams Workflows (Power Automate) webhook URL; its `sig` parameter is the secret (a credential: ${file:/path}).",
    ),
  ),
  title: v.optional(
    v.pipe(v.string(), v.description("Heading shown above every card; default: the message's own headline.")),
  ),
});

/**
 * Microsoft Teams through a Workflows webhook (providers.md `teams`): one Adaptive Card per message in the
 * envelope the "Post to a channel when a webhook request is received" flow expects. The flow runs
 * asynchronously: 202 means queued, and a failure inside the flow is not reported back. No threads or edits
 * (those need a Graph or Bot Framework app); the resolve is a new card. `check` verifies statically that the
 * URL is a Workflows trigger (no call exists that would not post).
 */
export default defineProvider({
  name: "teams",
  kind: "chat",
  title: "Microsoft Teams (Workflows)",
  guide: {
    credential:
      'In the Teams channel: … → Workflows → "Post to a channel when a webhook request is received"; copy the HTTP POST URL.',
  },
  threading: "none",
  options: Options,
  credentials: ["webhookUrl"],
  create(options, deps) {
    return {
      async send(message, context) {
        const body = JSON.stringify(teamsCard(message, options.title));
        return (
          await sendAndClassify(
            deps.http,
            { url: options.webhookUrl, headers: { "content-type": "application/json" }, body, signal: context.signal },
            context.now,
          )
        ).outcome;
      },
      async check() {
        const host = safeHost(options.webhookUrl);
        const sig = new URL(options.webhookUrl).searchParams.has("sig");
        return WORKFLOW_HOSTS.test(host) && sig
          ? { kind: "ok" }
          : permanent(`not a Teams Workflows trigger URL (host ${host}${sig ? "" : ", no sig parameter"})`);
      },
    };
  },
});

/** The `{type: "message", attachments: [Adaptive Card]}` envelope for one message. */
export function teamsCard(message: Message, title?: string): Record<string, unknown> {
  const [headline = "", ...rest] = message.text.split("\n");
  const body: unknown[] = [
    {
      type: "TextBlock",
      text: truncateBytes(title ?? headline, HEADLINE_MAX),
      weight: "Bolder",
      size: "Medium",
      wrap: true,
    },
  ];
  if (title) body.push({ type: "TextBlock", text: truncateBytes(headline, HEADLINE_MAX), wrap: true });
  const details = rest.join("\n\n").trim();
  if (details) body.push({ type: "TextBlock", text: truncateBytes(details, TEXT_MAX), wrap: true });
  body.push({
    type: "FactSet",
    facts: [
      { title: "Reason", value: message.reason },
      { title: "Tier", value: message.tier },
      { title: "Key", value: message.dedupKey },
    ],
  });
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body,
        },
      },
    ],
  };
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
