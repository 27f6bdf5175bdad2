import { webhookBody } from "./_kit/event-body.ts";
import { basic } from "./_kit/auth.ts";
import * as v from "valibot";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { sendAndClassify } from "./_kit/http.ts";

const Options = v.pipe(
  v.object({
    url: v.pipe(v.string(), v.url(), v.description("Kafka REST Proxy URL (Confluent REST Proxy or Confluent Cloud).")),
    apiVersion: v.optional(v.pipe(v.picklist(["v2", "v3"]), v.description("REST Proxy API version.")), "v3"),
    clusterId: v.optional(v.pipe(v.string(), v.description("Cluster id (v3)."))),
    topic: v.pipe(
      v.string(),
      v.regex(/^[A-Za-z0-9._-]{1,249}$/, "must be a Kafka topic name"),
      v.description("Topic."),
    ),
    username: v.optional(v.pipe(v.string(), v.description("Basic auth user or Confluent Cloud API key."))),
    password: v.optional(
      v.pipe(v.string(), v.description("Basic auth password or API secret (a credential: ${file:/path}).")),
    ),
  }),
  v.check((o) => o.apiVersion === "v2" || Boolean(o.clusterId), "v3 needs clusterId"),
);

/**
 * Kafka through the REST Proxy (providers.md `kafka`): one record per message whose key is the incident's
 * dedup key (one partition per incident, compaction-friendly) and whose value is the webhook-style JSON
 * event. v3 posts to `/v3/clusters/{id}/topics/{topic}/records`, v2 to `/topics/{topic}`. `check` reads the
 * topic.
 */
export default defineProvider({
  name: "kafka",
  kind: "info",
  title: "Kafka (REST Proxy)",
  guide: {
    credential: "REST Proxy credentials; Confluent Cloud: an API key and secret for the cluster.",
    requires: { username: ["password"] },
  },
  threading: "dedup_key",
  options: Options,
  credentials: ["password"],
  create(options, deps) {
    const base = options.url.replace(/\/+$/, "");
    const auth: Record<string, string> = options.password
      ? { authorization: basic(options.username ?? "", options.password) }
      : {};
    const topicPath =
      options.apiVersion === "v3"
        ? `/v3/clusters/${encodeURIComponent(options.clusterId ?? "")}/topics/${options.topic}`
        : `/topics/${options.topic}`;
    return {
      async send(message, context) {
        const value = webhookBody(message, deps.clusterName);
        const v3 = options.apiVersion === "v3";
        const body = v3
          ? { key: { type: "STRING", data: message.dedupKey }, value: { type: "JSON", data: value } }
          : { records: [{ key: message.dedupKey, value }] };
        const headers = { "content-type": v3 ? "application/json" : "application/vnd.kafka.json.v2+json", ...auth };
        return (
          await sendAndClassify(
            deps.http,
            {
              url: `${base}${topicPath}${v3 ? "/records" : ""}`,
              headers,
              body: JSON.stringify(body),
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
            { method: "GET", url: `${base}${topicPath}`, headers: auth, signal },
            nowOf(deps),
          )
        ).outcome;
      },
    };
  },
});
