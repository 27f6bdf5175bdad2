import { severityOf } from "./_kit/severity.ts";
import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { answerDetails } from "./_kit/answers.ts";
import { defineProvider } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";

/** PagerDuty caps `payload.summary` at 1,024 characters and `dedup_key` at 255 (providers.md `pagerDuty`). */
const SUMMARY_MAX = 1_024;
/** Keep the event well under the 512 KB cap: details beyond this are cut. */
const DETAILS_MAX = 200_000;

const ENDPOINTS = {
  us: "https://events.pagerduty.com/v2/enqueue",
  eu: "https://events.eu.pagerduty.com/v2/enqueue",
} as const;

const Options = v.object({
  routingKey: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9]{32}$/, "must be the 32-character integration key"),
    v.description("Events API v2 integration (routing) key (a credential: ${file:/path})."),
  ),
  region: v.optional(
    v.pipe(v.picklist(["us", "eu"]), v.description("Service region: `eu` sends to events.eu.pagerduty.com.")),
    "us",
  ),
  url: v.optional(
    v.pipe(v.string(), v.url(), v.description("Events API URL; overrides `region` (a proxy or a test server).")),
  ),
  source: v.optional(v.pipe(v.string(), v.minLength(1), v.description("`payload.source`; default: the cluster name."))),
});

/**
 * PagerDuty Events API v2 (providers.md `pagerDuty`): every announcement and update is a `trigger` under the
 * incident's dedup key (a repeat adds to the alert's log, it never pages twice); the resolve is `resolve` with
 * the same key. Severity: `critical` for page-tier, `error` for high, `warning` for medium/warning, `info`
 * otherwise. 202 is accepted, 400 permanent, 429 retried with backoff. No validation call exists.
 */
export default defineProvider({
  name: "pagerDuty",
  kind: "paging",
  title: "PagerDuty (Events API v2)",
  guide: {
    credential: "Service → Integrations → Add Integration → Events API V2; copy the 32-character Integration Key.",
  },
  threading: "dedup_key",
  options: Options,
  credentials: ["routingKey"],
  create(options, deps) {
    const url = eventsUrl(options);
    return {
      async send(message, context) {
        const body = JSON.stringify(pagerDutyEvent(message, options.routingKey, options.source ?? deps.clusterName));
        return (
          await sendAndClassify(
            deps.http,
            { url, headers: { "content-type": "application/json" }, body, signal: context.signal },
            context.now,
          )
        ).outcome;
      },
    };
  },
});

/** Where events go: `url` when set, else the region's endpoint. */
export function eventsUrl(options: { url?: string; region: "us" | "eu" }): string {
  return options.url ?? ENDPOINTS[options.region];
}

/** The Events API v2 body for one message. */
export function pagerDutyEvent(message: Message, routingKey: string, source: string): Record<string, unknown> {
  if (ends(message)) return { routing_key: routingKey, event_action: "resolve", dedup_key: message.dedupKey };
  const severity = severityOf(message, ["critical", "error", "warning", "info"]);
  return {
    routing_key: routingKey,
    event_action: "trigger",
    dedup_key: message.dedupKey,
    payload: {
      summary: truncate(message.title, SUMMARY_MAX),
      source,
      severity,
      timestamp: new Date(message.at).toISOString(),
      component: `${message.root.kind}/${message.root.namespace ? `${message.root.namespace}/` : ""}${message.root.name}`,
      group: message.root.namespace ?? "",
      class: message.reason,
      custom_details: {
        text: truncate(message.text, DETAILS_MAX),
        news: message.news,
        findings: message.findings.length,
        ...(message.owner ? { owner: message.owner } : {}),
        ...answerDetails(message),
      },
    },
    client: "mon",
  };
}
