import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends, shortKey } from "./_kit/keys.ts";
import { CredentialUrl, definePager, severityOf } from "./_kit/pager.ts";

/**
 * FireHydrant Signals generic webhook (providers.md `fireHydrant`): `status` OPEN / CLOSED on the incident's
 * `idempotency_key` (≤ 255 characters, or the request fails); `summary` ≤ 255 characters.
 */
export default definePager({
  name: "fireHydrant",
  title: "FireHydrant Signals",
  guide: { credential: "Signals → Sources → Add → Generic webhook; copy the source URL." },
  options: v.object({ webhookUrl: CredentialUrl("Signals source URL") }),
  credentials: ["webhookUrl"],
  url: (o) => o.webhookUrl,
  body: (m, _o, cluster) => ({
    summary: truncate(m.title, 255, "…"),
    body: truncate(m.text, 20_000),
    status: ends(m) ? "CLOSED" : "OPEN",
    level: severityOf(m, ["CRITICAL", "ERROR", "WARN", "INFO"]),
    idempotency_key: shortKey(m.dedupKey, 255),
    tags: [`environment:${cluster}`],
    annotations: { dedup_key: m.dedupKey },
  }),
});
