import * as v from "valibot";
import { AWS_OPTIONS, awsCaller } from "./_kit/aws.ts";
import { defineProvider } from "./_kit/define.ts";
import { truncate } from "./_kit/http.ts";
import { shortKey } from "./_kit/keys.ts";

const Options = v.object({
  topicArn: v.pipe(
    v.string(),
    v.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]+$/, "must be an SNS topic ARN"),
    v.description("Topic ARN (a `.fifo` topic gets the incident key as message group)."),
  ),
  ...AWS_OPTIONS,
});

/**
 * Amazon SNS `Publish` (providers.md `sns`), SigV4-signed (`aws.ts`; IRSA when no keys are set): the
 * message text with a subject (≤ 100 characters) and `dedupKey` / `action` message attributes. On a FIFO
 * topic the incident's key is the message group and the message id the deduplication id.
 */
export default defineProvider({
  name: "sns",
  kind: "info",
  title: "Amazon SNS",
  guide: {
    credential:
      "IRSA: an IAM role with sns:Publish on the topic, annotated on mon's ServiceAccount (no secret); or an access key.",
    requires: { accessKeyId: ["secretAccessKey"] },
  },
  threading: "dedup_key",
  options: Options,
  credentials: ["secretAccessKey"],
  plainText: true,
  create(options, deps) {
    const call = awsCaller(options, "sns", deps.http);
    return {
      async send(message, context) {
        const form = new URLSearchParams({
          Action: "Publish",
          Version: "2010-03-31",
          TopicArn: options.topicArn,
          Subject: truncate(message.title.replace(/[\r\n]/g, " "), 100, "…"),
          Message: truncate(message.text, 200_000),
          "MessageAttributes.entry.1.Name": "dedupKey",
          "MessageAttributes.entry.1.Value.DataType": "String",
          "MessageAttributes.entry.1.Value.StringValue": message.dedupKey,
          "MessageAttributes.entry.2.Name": "action",
          "MessageAttributes.entry.2.Value.DataType": "String",
          "MessageAttributes.entry.2.Value.StringValue": message.action,
          ...(options.topicArn.endsWith(".fifo")
            ? { MessageGroupId: shortKey(message.dedupKey, 128), MessageDeduplicationId: shortKey(message.id, 128) }
            : {}),
        });
        return (
          await call(
            { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
            form.toString(),
            context.signal,
            context.now,
          )
        ).outcome;
      },
    };
  },
});
