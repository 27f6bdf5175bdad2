import { severityOf } from "./_kit/severity.ts";
import * as v from "valibot";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";
import { ends, shortKey } from "./_kit/keys.ts";

const Options = v.object({
  apiKey: v.pipe(v.string(), v.minLength(16), v.description("API key (a credential: ${file:/path}).")),
  site: v.optional(
    v.pipe(
      v.picklist([
        "datadoghq.com",
        "us3.datadoghq.com",
        "us5.datadoghq.com",
        "datadoghq.eu",
        "ap1.datadoghq.com",
        "ddog-gov.com",
      ]),
      v.description("Datadog site."),
    ),
    "datadoghq.com",
  ),
  url: v.optional(v.pipe(v.string(), v.url(), v.description("API base; overrides `site`."))),
  tags: v.optional(v.pipe(v.array(v.string()), v.description("Tags on every event.")), []),
});

/**
 * Datadog Events (providers.md `datadog`): events are immutable, so every message is one event; the
 * incident's key (≤ 100 characters, hashed beyond) is the `aggregation_key` that groups them, and the resolve
 * is a `success` event. `DD-API-KEY` header. `check` calls `/api/v1/validate`.
 */
export default defineProvider({
  name: "datadog",
  kind: "info",
  title: "Datadog Events",
  guide: { credential: "Organization settings → API keys → New key." },
  threading: "dedup_key",
  options: Options,
  credentials: ["apiKey"],
  create(options, deps) {
    const base = (options.url ?? `https://api.${options.site}`).replace(/\/+$/, "");
    const headers = { "content-type": "application/json", "dd-api-key": options.apiKey };
    return {
      async send(message, context) {
        const alertType = ends(message) ? "success" : severityOf(message, ["error", "error", "warning", "info"]);
        const body = JSON.stringify({
          title: truncate(message.title, 100, "…"),
          text: truncate(message.text, 4_000),
          alert_type: alertType,
          aggregation_key: shortKey(message.dedupKey, 100),
          tags: [
            ...options.tags,
            `cluster:${deps.clusterName}`,
            `reason:${message.reason}`,
            `mon_dedup_key:${message.dedupKey}`,
          ],
          source_type_name: "mon",
          priority: message.mode === "page" ? "normal" : "low",
          date_happened: Math.floor(message.at / 1000),
        });
        return (
          await sendAndClassify(
            deps.http,
            { url: `${base}/api/v1/events`, headers, body, signal: context.signal },
            context.now,
          )
        ).outcome;
      },
      async check(signal) {
        return (
          await sendAndClassify(
            deps.http,
            { method: "GET", url: `${base}/api/v1/validate`, headers, signal },
            nowOf(deps),
          )
        ).outcome;
      },
    };
  },
});
