import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { CredentialUrl, definePager } from "./_kit/pager.ts";

/** Grafana OnCall formatted webhook (providers.md `grafanaOnCall`): `alert_uid` groups one incident; `state: ok` resolves. */
export default definePager({
  name: "grafanaOnCall",
  title: "Grafana OnCall",
  guide: { credential: "OnCall → Integrations → New → Formatted webhook; copy the URL." },
  options: v.object({ webhookUrl: CredentialUrl("Formatted webhook integration URL") }),
  credentials: ["webhookUrl"],
  url: (o) => o.webhookUrl,
  body: (m) => ({
    alert_uid: m.dedupKey,
    title: truncate(m.title, 500),
    message: truncate(m.text, 20_000),
    state: ends(m) ? "ok" : "alerting",
  }),
});
