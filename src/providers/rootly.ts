import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { definePager, severityOf } from "./_kit/pager.ts";

/**
 * Rootly generic webhook alert source (providers.md `rootly`): `status` triggered / resolved with the
 * incident's `dedup_key`. In Rootly, set the source to deduplicate on `$.dedup_key` and resolve when
 * `$.status == "resolved"`.
 */
export default definePager({
  name: "rootly",
  title: "Rootly",
  guide: {
    credential:
      'Alerts → Sources → Generic Webhook; copy the secret; set dedup on $.dedup_key and resolve on $.status == "resolved".',
  },
  options: v.object({
    secret: v.pipe(
      v.string(),
      v.minLength(8),
      v.description("Alert source secret, sent as a bearer token (a credential: ${file:/path})."),
    ),
    targetType: v.pipe(
      v.picklist(["Service", "Group", "EscalationPolicy", "Functionality", "User"]),
      v.description("What the alert notifies."),
    ),
    targetId: v.pipe(v.string(), v.minLength(1), v.description("Id of that target.")),
    url: v.optional(
      v.pipe(v.string(), v.url(), v.description("Webhook base.")),
      "https://webhooks.rootly.com/webhooks/incoming/generic_webhooks/notify",
    ),
  }),
  credentials: ["secret"],
  url: (o) => `${o.url.replace(/\/+$/, "")}/${o.targetType}/${encodeURIComponent(o.targetId)}`,
  headers: (o) => ({ authorization: bearer(o.secret) }),
  body: (m, _o, cluster) => ({
    title: truncate(m.title, 500),
    description: truncate(m.text, 20_000),
    dedup_key: m.dedupKey,
    status: ends(m) ? "resolved" : "triggered",
    severity: severityOf(m, ["critical", "high", "medium", "low"]),
    labels: { cluster, reason: m.reason },
  }),
});
