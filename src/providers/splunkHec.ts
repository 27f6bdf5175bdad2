import { permanent } from "./_kit/outcome.ts";
import * as v from "valibot";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";

const Options = v.object({
  url: v.pipe(v.string(), v.url(), v.description("HEC base URL, e.g. https://splunk.example.com:8088.")),
  hecToken: v.pipe(
    v.string(),
    v.minLength(8),
    v.description("HTTP Event Collector token (a credential: ${file:/path})."),
  ),
  index: v.optional(v.pipe(v.string(), v.description("Index (the token's default otherwise)."))),
  sourcetype: v.optional(v.pipe(v.string(), v.description("Sourcetype.")), "mon:incident"),
  source: v.optional(v.pipe(v.string(), v.description("Source.")), "mon"),
});

/**
 * Splunk HTTP Event Collector (providers.md `splunkHec`): one event per message with the incident as
 * structured fields and `fields.dedup_key` indexed. `Splunk <token>` authorization. `check` posts an empty
 * body: 400 "No data" means the token is accepted and nothing was indexed.
 */
export default defineProvider({
  name: "splunkHec",
  kind: "info",
  title: "Splunk HTTP Event Collector",
  guide: { credential: "Settings → Data inputs → HTTP Event Collector → New Token." },
  threading: "dedup_key",
  options: Options,
  credentials: ["hecToken"],
  create(options, deps) {
    const url = `${options.url.replace(/\/+$/, "")}/services/collector/event`;
    const headers = { "content-type": "application/json", authorization: `Splunk ${options.hecToken}` };
    return {
      async send(message, context) {
        const body = JSON.stringify({
          time: message.at / 1000,
          host: deps.clusterName,
          source: options.source,
          sourcetype: options.sourcetype,
          ...(options.index ? { index: options.index } : {}),
          event: {
            action: message.action,
            incidentId: message.incidentId,
            title: message.title,
            text: truncate(message.text, 60_000),
            reason: message.reason,
            tier: message.tier,
            mode: message.mode,
            root: message.root,
            news: message.news,
          },
          fields: { dedup_key: message.dedupKey, cluster: deps.clusterName },
        });
        return (await sendAndClassify(deps.http, { url, headers, body, signal: context.signal }, context.now)).outcome;
      },
      async check(signal) {
        // An empty event is HEC's health probe: "No data" (400) proves the token and the endpoint.
        const { outcome, answer } = await sendAndClassify(deps.http, { url, headers, body: "", signal }, nowOf(deps));
        if (!answer) return outcome;
        return answer.status === 400 && /No data/i.test(answer.body)
          ? { kind: "ok" }
          : answer.status >= 200 && answer.status < 300
            ? { kind: "ok" }
            : permanent(`http_${answer.status}`);
      },
    };
  },
});
