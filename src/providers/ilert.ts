import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { definePager } from "./_kit/pager.ts";

/** ilert Events API (providers.md `ilert`): `eventType` ALERT / RESOLVE on the incident's `alertKey`; the key is in the body. */
export default definePager({
  name: "ilert",
  title: "ilert",
  guide: { credential: "Alert sources → Create → API (or Prometheus/Custom); copy the integration key." },
  options: v.object({
    integrationKey: v.pipe(
      v.string(),
      v.minLength(8),
      v.description("Alert source integration key (a credential: ${file:/path})."),
    ),
    url: v.optional(v.pipe(v.string(), v.url(), v.description("Events API URL.")), "https://api.ilert.com/api/events"),
  }),
  credentials: ["integrationKey"],
  url: (o) => o.url,
  body: (m, o) => ({
    integrationKey: o.integrationKey,
    eventType: ends(m) ? "RESOLVE" : "ALERT",
    alertKey: m.dedupKey,
    summary: truncate(m.title, 250),
    details: truncate(m.text, 20_000),
    priority: m.mode === "page" ? "HIGH" : "LOW",
  }),
});
