import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { CredentialUrl, definePager, severityOf } from "./_kit/pager.ts";

/** PagerTree webhook integration (providers.md `pagerTree`): `event_type` create / resolve on the incident's `Id`. */
export default definePager({
  name: "pagerTree",
  title: "PagerTree",
  guide: { credential: "Integrations → Create → Webhook; copy the integration URL." },
  options: v.object({
    integrationUrl: CredentialUrl("Integration URL `https://api.pagertree.com/integration/{int_…}`"),
  }),
  credentials: ["integrationUrl"],
  url: (o) => o.integrationUrl,
  body: (m) => ({
    event_type: ends(m) ? "resolve" : "create",
    Id: m.dedupKey,
    Title: truncate(m.title, 250),
    Description: truncate(m.text, 10_000),
    Urgency: severityOf(m, ["critical", "high", "medium", "low"]),
    Tags: [m.reason],
  }),
});
