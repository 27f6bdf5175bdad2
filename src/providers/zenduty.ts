import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { CredentialUrl, definePager, severityOf } from "./_kit/pager.ts";

/**
 * Zenduty Generic Integration (providers.md `zenduty`; the older "API Integration" stopped working in 2025):
 * `alert_type` critical / error / warning / info on the incident's `entity_id`, `resolved` to resolve.
 */
export default definePager({
  name: "zenduty",
  title: "Zenduty (Generic Integration)",
  guide: { credential: "Service → Integrations → Add → Generic Integration; copy its webhook URL." },
  options: v.object({ webhookUrl: CredentialUrl("Generic Integration webhook URL of the service") }),
  credentials: ["webhookUrl"],
  url: (o) => o.webhookUrl,
  body: (m) => ({
    alert_type: ends(m) ? "resolved" : severityOf(m, ["critical", "error", "warning", "info"]),
    entity_id: m.dedupKey,
    message: truncate(m.title, 500),
    summary: truncate(m.text, 10_000),
    payload: { reason: m.reason, tier: m.tier, ...(m.owner ? { owner: m.owner } : {}) },
  }),
});
