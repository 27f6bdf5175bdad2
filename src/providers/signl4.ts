import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { definePager } from "./_kit/pager.ts";

/** SIGNL4 inbound webhook (providers.md `signl4`): `X-S4-ExternalID` is the incident's key, `X-S4-Status: resolved` closes it (JSON fields, not headers). */
export default definePager({
  name: "signl4",
  title: "SIGNL4",
  guide: {
    credential: "Team settings → Team secret (the last segment of https://connect.signl4.com/webhook/{ secret}).",
  },
  options: v.object({
    teamSecret: v.pipe(
      v.string(),
      v.minLength(4),
      v.description("Team secret, the last path segment of the webhook URL (a credential: ${file:/path})."),
    ),
    url: v.optional(v.pipe(v.string(), v.url(), v.description("Webhook base.")), "https://connect.signl4.com/webhook"),
    service: v.optional(v.pipe(v.string(), v.description("`X-S4-Service`: the SIGNL4 category."))),
  }),
  credentials: ["teamSecret"],
  url: (o) => `${o.url.replace(/\/+$/, "")}/${encodeURIComponent(o.teamSecret)}`,
  body: (m, o) => ({
    title: truncate(m.title, 250),
    message: truncate(m.text, 10_000),
    "X-S4-ExternalID": m.dedupKey,
    "X-S4-Status": ends(m) ? "resolved" : "new",
    "X-S4-SourceSystem": "mon",
    ...(o.service ? { "X-S4-Service": o.service } : {}),
  }),
});
