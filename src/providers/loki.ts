import { bearer, basic } from "./_kit/auth.ts";
import * as v from "valibot";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";

const Options = v.pipe(
  v.object({
    url: v.pipe(v.string(), v.url(), v.description("Loki base URL.")),
    tenantId: v.optional(v.pipe(v.string(), v.description("`X-Scope-OrgID` for a multi-tenant Loki."))),
    username: v.optional(v.pipe(v.string(), v.description("Basic auth user (Grafana Cloud: the instance id)."))),
    password: v.optional(
      v.pipe(v.string(), v.description("Basic auth password or access-policy token (a credential: ${file:/path}).")),
    ),
    bearerToken: v.optional(v.pipe(v.string(), v.description("Bearer token (a credential: ${file:/path})."))),
    labels: v.optional(
      v.pipe(
        v.record(v.string(), v.string()),
        v.description("Static, low-cardinality stream labels added to job, cluster and tier."),
      ),
      {},
    ),
  }),
  v.check((o) => !(o.password && o.bearerToken), "set username/password or bearerToken, not both"),
);

/**
 * Grafana Loki (providers.md `loki`): one log line per message in a stream labelled `job="mon"`, the cluster
 * and the tier (low cardinality); the dedup key and incident id go in structured metadata, never in labels.
 * 400 (out of order, too old) is permanent; 429 is retried. `check` reads `/ready`.
 */
export default defineProvider({
  name: "loki",
  kind: "info",
  title: "Grafana Loki",
  guide: {
    credential:
      "Grafana Cloud: Access policies → token with logs:write (password, with the instance id as username); self-hosted: whatever fronts Loki.",
    requires: { username: ["password"] },
  },
  threading: "none",
  options: Options,
  credentials: ["password", "bearerToken"],
  create(options, deps) {
    const base = options.url.replace(/\/+$/, "");
    const auth: Record<string, string> = options.bearerToken
      ? { authorization: bearer(options.bearerToken) }
      : options.password
        ? { authorization: basic(options.username ?? "", options.password) }
        : {};
    const tenant: Record<string, string> = options.tenantId ? { "x-scope-orgid": options.tenantId } : {};
    return {
      async send(message, context) {
        const stream = { job: "mon", cluster: deps.clusterName, tier: message.tier, ...options.labels };
        const line = truncate(message.text, 200_000);
        const body = JSON.stringify({
          streams: [
            {
              stream,
              values: [
                [
                  `${BigInt(message.at) * 1_000_000n}`,
                  line,
                  { dedup_key: message.dedupKey, incident_id: message.incidentId, action: message.action },
                ],
              ],
            },
          ],
        });
        return (
          await sendAndClassify(
            deps.http,
            {
              url: `${base}/loki/api/v1/push`,
              headers: { "content-type": "application/json", ...auth, ...tenant },
              body,
              signal: context.signal,
            },
            context.now,
          )
        ).outcome;
      },
      async check(signal) {
        return (
          await sendAndClassify(
            deps.http,
            { method: "GET", url: `${base}/ready`, headers: { ...auth, ...tenant }, signal },
            nowOf(deps),
          )
        ).outcome;
      },
    };
  },
});
