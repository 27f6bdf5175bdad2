import { basic } from "./_kit/auth.ts";
import { severityOf } from "./_kit/severity.ts";
import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";

const Options = v.pipe(
  v.object({
    url: v.pipe(v.string(), v.url(), v.description("Elasticsearch or OpenSearch URL.")),
    index: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[a-z0-9][a-z0-9._{}-]*$/, "must be a lower-case index name; {date} becomes YYYY.MM.DD"),
        v.description("Index or data stream; `{date}` becomes the UTC date."),
      ),
      "mon-incidents-{date}",
    ),
    apiKey: v.optional(
      v.pipe(v.string(), v.description("Elastic API key, base64 of id:key (a credential: ${file:/path}).")),
    ),
    username: v.optional(v.pipe(v.string(), v.description("Basic auth user."))),
    password: v.optional(v.pipe(v.string(), v.description("Basic auth password (a credential: ${file:/path})."))),
    dataStream: v.optional(
      v.pipe(v.boolean(), v.description("The index is a data stream (documents are created with op_type=create).")),
      false,
    ),
  }),
  v.check((o) => !(o.apiKey && o.password), "set apiKey or username/password, not both"),
);

/**
 * Elasticsearch / OpenSearch (providers.md `elasticsearch`): one ECS-style document per message
 * (`@timestamp`, `event.action`, `message`, `kubernetes.*`, `dedupKey`). 429 (rejected execution) is retried.
 * `check` calls `/_security/_authenticate` (Elastic); OpenSearch answers it too when security is on.
 */
export default defineProvider({
  name: "elasticsearch",
  kind: "info",
  title: "Elasticsearch / OpenSearch",
  guide: {
    credential: "Kibana → Stack Management → API keys (create_doc on the index); or a user and password.",
    requires: { username: ["password"] },
  },
  threading: "dedup_key",
  options: Options,
  credentials: ["apiKey", "password"],
  create(options, deps) {
    const base = options.url.replace(/\/+$/, "");
    const auth: Record<string, string> = options.apiKey
      ? { authorization: `ApiKey ${options.apiKey}` }
      : options.password
        ? { authorization: basic(options.username ?? "", options.password) }
        : {};
    return {
      async send(message, context) {
        const index = options.index.replace(
          "{date}",
          new Date(message.at).toISOString().slice(0, 10).replace(/-/g, "."),
        );
        const url = `${base}/${encodeURIComponent(index)}/_doc${options.dataStream ? "?op_type=create" : ""}`;
        return (
          await sendAndClassify(
            deps.http,
            {
              url,
              headers: { "content-type": "application/json", ...auth },
              body: JSON.stringify(ecsDocument(message, deps.clusterName)),
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
            { method: "GET", url: `${base}/_security/_authenticate`, headers: auth, signal },
            nowOf(deps),
          )
        ).outcome;
      },
    };
  },
});

/** The document for one message, in Elastic Common Schema field names. */
export function ecsDocument(message: Message, cluster: string): Record<string, unknown> {
  return {
    "@timestamp": new Date(message.at).toISOString(),
    event: {
      kind: "alert",
      action: message.action,
      dataset: "mon.incident",
      severity: severityOf(message, [1, 2, 3, 3]),
    },
    message: truncate(message.text, 100_000),
    dedupKey: message.dedupKey,
    incidentId: message.incidentId,
    cluster,
    reason: message.reason,
    tier: message.tier,
    kubernetes: {
      ...(message.root.namespace ? { namespace: message.root.namespace } : {}),
      kind: message.root.kind,
      name: message.root.name,
    },
    news: message.news,
  };
}
