import { severityOf } from "./_kit/severity.ts";
import * as v from "valibot";
import { truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";
import { definePager } from "./_kit/pager.ts";

/**
 * Alerta (providers.md `alerta`, Alerta-type: routed like a pager). Alerta de-duplicates on environment +
 * resource + event, so mon sends `environment` = the cluster, `resource` = the incident's root and `event` =
 * its mode, with the dedup key in `attributes`; the resolve repeats the triple with severity `normal`.
 * `Authorization: Key <apiKey>`. `check` lists one alert (needs read:alerts).
 */
export default definePager({
  name: "alerta",
  title: "Alerta",
  guide: { credential: "Alerta → API Keys → Create with write:alerts (and read:alerts for check)." },
  options: v.object({
    url: v.pipe(v.string(), v.url(), v.description("API URL (often https://{host}/api).")),
    apiKey: v.pipe(
      v.string(),
      v.minLength(8),
      v.description("API key with write:alerts (a credential: ${file:/path})."),
    ),
    service: v.optional(v.pipe(v.array(v.string()), v.description("`service` on every alert.")), ["kubernetes"]),
    environment: v.optional(
      v.pipe(v.string(), v.description("`environment`; default: the cluster name (it must be one Alerta allows).")),
    ),
  }),
  credentials: ["apiKey"],
  url: (o) => `${o.url.replace(/\/+$/, "")}/alert`,
  headers: (o) => ({ authorization: `Key ${o.apiKey}` }),
  check: (o) => `${o.url.replace(/\/+$/, "")}/alerts?page-size=1`,
  body: (m, o, cluster) => ({
    resource: `${m.root.kind}/${m.root.namespace ? `${m.root.namespace}/` : ""}${m.root.name}`,
    event: m.reason,
    environment: o.environment ?? cluster,
    severity: ends(m) ? "normal" : severityOf(m, ["critical", "major", "minor", "informational"]),
    service: o.service,
    group: "mon",
    value: m.tier,
    text: truncate(m.text, 10_000),
    origin: "mon",
    type: "kubernetesAlert",
    attributes: { dedupKey: m.dedupKey, incidentId: m.incidentId },
  }),
});
