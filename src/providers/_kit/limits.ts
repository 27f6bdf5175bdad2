import type { HttpClient } from "../../outbound/client.ts";

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The largest request body, in bytes, each provider sends (issue 30; shared/design/providers.md "max size"):
 * the vendor's documented request limit where it publishes one, else a ceiling that keeps every documented
 * field limit (a 4,096-character text in UTF-8 plus the JSON around it), else 64 KiB for a vendor that publishes
 * nothing. `option` reads the provider's own setting (the webhook's `maxBodyBytes`); `none` is a provider that
 * sends no HTTP body (SMTP, standard output). Larger bodies are never sent: delivery shortens the message
 * (notify/shrink.ts) and tries again.
 */
export const BODY_LIMITS: Readonly<Record<string, number | "option" | "none">> = {
  slack: 64 * KiB, // text ≤ 40,000 characters, ≤ 50 blocks
  slackBot: 64 * KiB,
  teams: 27_000, // a Teams message ≈ 28 KB
  discord: 16 * KiB, // content ≤ 2,000 and embeds ≤ 6,000 characters
  telegram: 20 * KiB, // text ≤ 4,096 characters
  mattermost: 64 * KiB, // a post ≤ 16,383 characters
  rocketChat: 24 * KiB, // Message_MaxAllowedSize 5,000 characters by default
  googleChat: 32_000, // the whole message ≈ 32,000 bytes
  webex: 8 * KiB, // 7,439 bytes of markdown
  zulip: 12 * KiB, // content ≤ 10,000 bytes
  matrix: 64 * KiB, // an event ≤ 65,536 bytes
  feishu: 20_000, // the request body ≤ 20 KB
  dingtalk: 16 * KiB, // not published: a few KB of markdown
  wecom: 4_600, // markdown.content ≤ 4,096 bytes
  pagerDuty: 512 * KiB, // an event ≤ 512 KB
  opsgenie: 32 * KiB, // description ≤ 15,000, details ≤ 8,000
  jsmOps: 32 * KiB,
  incidentIo: 512 * KiB,
  victorOps: 64 * KiB,
  zenduty: 64 * KiB,
  squadcast: 64 * KiB,
  grafanaOnCall: 64 * KiB,
  ilert: 64 * KiB,
  betterStack: 64 * KiB,
  rootly: 64 * KiB,
  fireHydrant: 64 * KiB,
  spike: 64 * KiB,
  pagerTree: 64 * KiB,
  alerta: 64 * KiB,
  signl4: 64 * KiB,
  alertmanager: 64 * KiB,
  jira: 64 * KiB, // text fields ≤ 32,767 characters
  githubIssues: 64 * KiB, // a body ≤ 65,536 characters
  gitlabIssues: 1 * MiB,
  linear: 64 * KiB,
  serviceNow: 16 * KiB, // description 4,000 by default
  azureDevOps: 64 * KiB,
  webhook: "option",
  email: "none",
  twilio: 4 * KiB, // Body ≤ 1,600 characters
  sns: 256 * KiB,
  eventBridge: 256 * KiB,
  pubsub: 1 * MiB,
  kafka: 1 * MiB,
  elasticsearch: 1 * MiB,
  splunkHec: 1 * MiB,
  loki: 256 * KiB,
  datadog: 16 * KiB, // text ≤ 4,000 characters
  newRelic: 1 * MiB,
  sentry: 1 * MiB,
  pushover: 4 * KiB, // message ≤ 1,024 characters
  ntfy: 4_096, // a message ≤ 4,096 bytes
  gotify: 64 * KiB,
  pushbullet: 64 * KiB,
  grafanaAnnotations: 64 * KiB,
  stdout: "none",
};

/** The body limit of a provider with its options (bytes), or undefined when it sends no HTTP body. */
export function bodyLimitOf(name: string, options: Readonly<Record<string, unknown>>): number | undefined {
  const limit = BODY_LIMITS[name];
  if (limit === undefined) throw new Error(`provider ${name} has no body limit in providers/_kit/limits.ts`);
  if (limit === "none") return undefined;
  if (limit === "option") return Number(options.maxBodyBytes);
  return limit;
}

/**
 * `http` that never sends a body larger than `limit` bytes: it answers such a request itself, as the vendor
 * would, with 413 and why, so the provider classifies it as any refusal for size and delivery shortens the
 * message (deliver/attempt.ts). Nothing over the limit leaves mon.
 */
export function limitedHttp(http: HttpClient, name: string, limit: number): HttpClient {
  return {
    async request(request) {
      const bytes = request.body === undefined ? 0 : Buffer.byteLength(request.body, "utf8");
      if (bytes <= limit) return http.request(request);
      return {
        status: 413,
        headers: new Headers(),
        body: `payload too large: ${bytes} bytes over ${name}'s limit of ${limit} (not sent)`,
      };
    },
  };
}
