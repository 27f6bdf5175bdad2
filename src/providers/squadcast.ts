import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { CredentialUrl, definePager } from "./_kit/pager.ts";

/** Squadcast incident webhook (providers.md `squadcast`): `status` trigger / resolve with the incident's `event_id`. */
export default definePager({
  name: "squadcast",
  title: "Squadcast",
  guide: { credential: "Service → Alert Sources → Incident Webhook; copy the URL." },
  options: v.object({
    webhookUrl: CredentialUrl("Incident webhook URL `https://api.squadcast.com/v2/incidents/api/{apiKey}`"),
  }),
  credentials: ["webhookUrl"],
  url: (o) => o.webhookUrl,
  body: (m, _o, cluster) => ({
    message: truncate(m.title, 500),
    description: truncate(m.text, 20_000),
    status: ends(m) ? "resolve" : "trigger",
    event_id: m.dedupKey,
    tags: { cluster, reason: m.reason, tier: m.tier },
  }),
});
