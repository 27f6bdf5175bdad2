import { severityOf } from "./_kit/severity.ts";
import { createHash } from "node:crypto";
import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { VERSION } from "../version.ts";
import { defineProvider } from "./_kit/define.ts";
import { sendAndClassify, truncate } from "./_kit/http.ts";

const DSN = /^(https?):\/\/([^:@/]+)(?::[^@/]*)?@([^/]+)(\/.*)?\/(\d+)$/;

const Options = v.object({
  dsn: v.pipe(
    v.string(),
    v.regex(DSN, "must be a Sentry DSN such as https://<key>@o1.ingest.sentry.io/42"),
    v.description("Project DSN (keep it in a Secret: a credential, ${file:/path})."),
  ),
});

/**
 * Sentry envelope ingestion (providers.md `sentry`): one event per message; every event of an incident
 * carries `fingerprint: ["mon", <key>]`, so Sentry keeps them in one issue. Resolving needs an auth token and
 * the issues API, so the resolve is a final `info` event. No check call (the DSN is only parsed).
 */
export default defineProvider({
  name: "sentry",
  kind: "info",
  title: "Sentry",
  guide: { credential: "Project settings → Client Keys (DSN)." },
  threading: "dedup_key",
  options: Options,
  credentials: ["dsn"],
  create(options, deps) {
    const [, scheme, publicKey, host, path = "", projectId] = DSN.exec(options.dsn)!;
    const url = `${scheme}://${host}${path}/api/${projectId}/envelope/`;
    return {
      async send(message, context) {
        const headers = {
          "content-type": "application/x-sentry-envelope",
          "x-sentry-auth": `Sentry sentry_version=7, sentry_key=${publicKey}, sentry_client=mon/${VERSION}`,
        };
        return (
          await sendAndClassify(
            deps.http,
            {
              url,
              headers,
              body: sentryEnvelope(message, deps.clusterName, options.dsn, context.now),
              signal: context.signal,
            },
            context.now,
          )
        ).outcome;
      },
    };
  },
});

/** The envelope for one message: envelope header, item header, event, one JSON document per line. */
export function sentryEnvelope(message: Message, cluster: string, dsn: string, now: number): string {
  const eventId = createHash("sha256").update(message.id).digest("hex").slice(0, 32);
  const level =
    message.action === "resolve" || message.action === "opened_resolved"
      ? "info"
      : severityOf(message, ["fatal", "error", "warning", "info"]);
  const event = JSON.stringify({
    event_id: eventId,
    timestamp: message.at / 1000,
    platform: "other",
    logger: "mon",
    level,
    environment: cluster,
    message: { formatted: truncate(message.text, 8_000) },
    fingerprint: ["mon", message.dedupKey],
    tags: {
      reason: message.reason,
      tier: message.tier,
      action: message.action,
      incident: message.incidentId.slice(0, 200),
    },
  });
  return [
    JSON.stringify({ event_id: eventId, sent_at: new Date(now).toISOString(), dsn }),
    JSON.stringify({ type: "event", length: new TextEncoder().encode(event).length }),
    event,
  ].join("\n");
}
