import * as v from "valibot";
import { defineProvider } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";

const Options = v.object({
  licenseKey: v.pipe(v.string(), v.minLength(16), v.description("Ingest license key (a credential: ${file:/path}).")),
  accountId: v.pipe(
    v.union([v.string(), v.number()]),
    v.transform(String),
    v.regex(/^\d+$/, "must be the numeric account id"),
    v.description("Account id."),
  ),
  region: v.optional(v.pipe(v.picklist(["us", "eu"]), v.description("Data center.")), "us"),
  url: v.optional(v.pipe(v.string(), v.url(), v.description("Collector base; overrides `region`."))),
  eventType: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z][A-Za-z0-9_]*$/, "must be an event type name"),
      v.description("Custom event type."),
    ),
    "MonIncident",
  ),
});

/**
 * New Relic Event API (providers.md `newRelic`): one custom event per message with `dedupKey` as an
 * attribute to facet on (string values ≤ 4,096 characters). `Api-Key` header. No check call exists for ingest
 * keys.
 */
export default defineProvider({
  name: "newRelic",
  kind: "info",
  title: "New Relic",
  guide: { credential: "API keys → Create a key of type Ingest - License." },
  threading: "none",
  options: Options,
  credentials: ["licenseKey"],
  create(options, deps) {
    const base = (
      options.url ??
      (options.region === "eu"
        ? "https://insights-collector.eu01.nr-data.net"
        : "https://insights-collector.newrelic.com")
    ).replace(/\/+$/, "");
    return {
      async send(message, context) {
        const body = JSON.stringify([
          {
            eventType: options.eventType,
            timestamp: Math.floor(message.at / 1000),
            dedupKey: message.dedupKey,
            incidentId: message.incidentId,
            action: message.action,
            cluster: deps.clusterName,
            reason: message.reason,
            tier: message.tier,
            mode: message.mode,
            title: truncate(message.title, 4_096),
            text: truncate(message.text, 4_096),
          },
        ]);
        return (
          await sendAndClassify(
            deps.http,
            {
              url: `${base}/v1/accounts/${options.accountId}/events`,
              headers: { "content-type": "application/json", "api-key": options.licenseKey },
              body,
              signal: context.signal,
            },
            context.now,
          )
        ).outcome;
      },
    };
  },
});
