import * as v from "valibot";
import { webhookBody } from "./_kit/event-body.ts";

export { WEBHOOK_BODY_VERSION, type WebhookBody, webhookBody } from "./_kit/event-body.ts";
import { defineProvider } from "./_kit/define.ts";
import { hmacSha256Base64 } from "./_kit/keys.ts";
import { sendAndClassify } from "./_kit/http.ts";

const Options = v.object({
  url: v.pipe(
    v.string(),
    v.url("must be an absolute URL"),
    v.description("Receiver URL; a ${file:/path} reference when it embeds a token."),
  ),
  method: v.optional(v.pipe(v.picklist(["POST", "PUT"]), v.description("HTTP method.")), "POST"),
  headers: v.optional(
    v.pipe(v.record(v.string(), v.string()), v.description("Extra headers; values are credentials (${file:/path}).")),
    {},
  ),
  signingSecret: v.optional(
    v.pipe(v.string(), v.description("Standard Webhooks signing secret (whsec_…; a credential).")),
  ),
  timeoutSeconds: v.optional(
    v.pipe(
      v.number(),
      v.minValue(1),
      v.maxValue(60),
      v.description("Seconds to wait for the receiver's answer (1-60)."),
    ),
    10,
  ),
  maxBodyBytes: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(4096),
      v.description(
        "Largest body in bytes (at least 4096): mon never sends more; above it the findings' evidence is left out, then the message is shortened and in the end split (docs/delivery.md).",
      ),
    ),
    262_144,
  ),
});

/**
 * Generic webhook (providers.md `webhook`): one JSON POST per message, body documented in
 * docs/providers/webhook.md; signed with Standard Webhooks headers when `signingSecret` is set.
 */
export default defineProvider({
  name: "webhook",
  kind: "info",
  title: "Generic webhook",
  guide: { credential: "Any receiver URL; a Standard Webhooks signing secret (whsec_…) to verify bodies." },
  threading: "dedup_key",
  options: Options,
  credentials: ["url", "signingSecret", "headers"],
  credentialsMayBeInline: ["url"],
  create(options, deps) {
    return {
      async send(message, context) {
        // A body over maxBodyBytes is refused unsent by the limit layer (_kit/limits.ts), and delivery shortens
        // the message, then splits it (deliver/attempt.ts): one mechanism for every provider.
        const body = JSON.stringify(webhookBody(message, deps.clusterName));
        const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
        const id = `msg_${message.id}`;
        headers["webhook-id"] = id;
        if (options.signingSecret) Object.assign(headers, await sign(options.signingSecret, id, context.now, body));
        const request = {
          method: options.method,
          url: options.url,
          headers,
          body,
          signal: context.signal,
          timeoutMs: options.timeoutSeconds * 1000,
        };
        return (await sendAndClassify(deps.http, request, context.now)).outcome;
      },
    };
  },
});

// --- internal ---

async function sign(secret: string, id: string, now: number, body: string): Promise<Record<string, string>> {
  const keyBytes = secret.startsWith("whsec_")
    ? Uint8Array.from(atob(secret.slice(6)), (c) => c.charCodeAt(0))
    : secret;
  const timestamp = String(Math.floor(now / 1000));
  const signature = await hmacSha256Base64(keyBytes, `${id}.${timestamp}.${body}`);
  return { "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}
