import { permanent } from "./_kit/outcome.ts";
import { webhookBody } from "./_kit/event-body.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { AWS_OPTIONS, awsCaller } from "./_kit/aws.ts";
import { defineProvider } from "./_kit/define.ts";
import { parseJson } from "./_kit/http.ts";

const Options = v.object({
  ...AWS_OPTIONS,
  eventBusName: v.optional(v.pipe(v.string(), v.description("Bus name or ARN.")), "default"),
  source: v.optional(v.pipe(v.string(), v.description("Event `Source`.")), "mon"),
});

/**
 * Amazon EventBridge `PutEvents` (providers.md `eventBridge`), SigV4-signed (`aws.ts`): one event per message,
 * `DetailType` "mon incident <action>", the incident as `Detail` JSON (≤ 256 KB). A 200 answer with
 * `FailedEntryCount > 0` names the entry's error: throttling is retried, others are permanent.
 */
export default defineProvider({
  name: "eventBridge",
  kind: "info",
  title: "Amazon EventBridge",
  guide: {
    credential:
      "IRSA: an IAM role with events:PutEvents on the bus, annotated on mon's ServiceAccount (no secret); or an access key.",
    requires: { accessKeyId: ["secretAccessKey"] },
  },
  threading: "dedup_key",
  options: Options,
  credentials: ["secretAccessKey"],
  create(options, deps) {
    const call = awsCaller(options, "events", deps.http);
    return {
      async send(message, context): Promise<Outcome> {
        const detail = webhookBody(message, deps.clusterName);
        const body = JSON.stringify({
          Entries: [
            {
              Source: options.source,
              DetailType: `mon incident ${message.action}`,
              Detail: JSON.stringify(detail),
              EventBusName: options.eventBusName,
              Time: Math.floor(message.at / 1000),
            },
          ],
        });
        const { outcome, body: answer } = await call(
          { "content-type": "application/x-amz-json-1.1", "x-amz-target": "AWSEvents.PutEvents" },
          body,
          context.signal,
          context.now,
        );
        if (outcome.kind !== "ok") return outcome;
        const result = parseJson<{
          FailedEntryCount?: number;
          Entries?: { ErrorCode?: string; ErrorMessage?: string }[];
        }>(answer);
        if (!result?.FailedEntryCount) return outcome;
        const entry = result.Entries?.find((e) => e.ErrorCode);
        const reason = `eventbridge_${entry?.ErrorCode ?? "failed"}: ${String(entry?.ErrorMessage ?? "").slice(0, 200)}`;
        return /Throttl|InternalFailure/i.test(entry?.ErrorCode ?? "") ? { kind: "retry", reason } : permanent(reason);
      },
    };
  },
});
