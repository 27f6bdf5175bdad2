import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { definePager, severityOf } from "./_kit/pager.ts";

/**
 * Splunk On-Call (VictorOps) REST endpoint (providers.md `victorOps`): `message_type` CRITICAL / WARNING /
 * INFO on the incident's `entity_id` (repeats update its timeline), `RECOVERY` to resolve. The API key and
 * routing key are path segments of the URL.
 */
export default definePager({
  name: "victorOps",
  title: "Splunk On-Call (VictorOps)",
  guide: {
    credential:
      "Integrations → 3rd Party Integrations → REST – Generic; copy the key from the URL and pick a routing key.",
  },
  options: v.object({
    apiKey: v.pipe(v.string(), v.minLength(8), v.description("REST integration key (a credential: ${file:/path}).")),
    routingKey: v.pipe(v.string(), v.minLength(1), v.description("Routing key that picks the escalation policy.")),
    url: v.optional(
      v.pipe(v.string(), v.url(), v.description("REST endpoint base.")),
      "https://alert.victorops.com/integrations/generic/20131114/alert",
    ),
  }),
  credentials: ["apiKey"],
  url: (o) => `${o.url.replace(/\/+$/, "")}/${encodeURIComponent(o.apiKey)}/${encodeURIComponent(o.routingKey)}`,
  body: (m, _o, cluster) => ({
    message_type: ends(m) ? "RECOVERY" : severityOf(m, ["CRITICAL", "CRITICAL", "WARNING", "INFO"]),
    entity_id: m.dedupKey,
    entity_display_name: truncate(m.title, 250),
    state_message: truncate(m.text, 20_000),
    state_start_time: Math.floor(m.at / 1000),
    monitoring_tool: "mon",
    hostname: cluster,
  }),
});
