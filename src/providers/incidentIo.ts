import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { definePager } from "./_kit/pager.ts";

/**
 * incident.io HTTP alert source (providers.md `incidentIo`): `status` firing / resolved with the incident's
 * `deduplication_key`; the bearer token authenticates the alert source.
 */
export default definePager({
  name: "incidentIo",
  title: "incident.io",
  guide: { credential: "Alerts → Sources → New → HTTP; copy the bearer token and the alert source config id." },
  options: v.object({
    token: v.pipe(
      v.string(),
      v.minLength(8),
      v.description("Alert source bearer token (a credential: ${file:/path})."),
    ),
    alertSourceConfigId: v.pipe(
      v.string(),
      v.regex(/^[A-Za-z0-9]+$/, "must be the alert source config id"),
      v.description("The HTTP alert source's config id."),
    ),
    url: v.optional(v.pipe(v.string(), v.url(), v.description("API base.")), "https://api.incident.io"),
  }),
  credentials: ["token"],
  url: (o) => `${o.url.replace(/\/+$/, "")}/v2/alert_events/http/${o.alertSourceConfigId}`,
  headers: (o) => ({ authorization: bearer(o.token) }),
  body: (m, _o, cluster) => ({
    title: truncate(m.title, 500),
    description: truncate(m.text, 100_000),
    status: ends(m) ? "resolved" : "firing",
    deduplication_key: m.dedupKey,
    metadata: {
      cluster,
      reason: m.reason,
      tier: m.tier,
      mode: m.mode,
      ...(m.root.namespace ? { namespace: m.root.namespace } : {}),
      ...(m.owner ? { owner: m.owner } : {}),
    },
  }),
});
