import { webhookBody } from "./_kit/event-body.ts";
import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import eventBridge from "./eventBridge.ts";

const options = (base: string) => ({
  region: "us-east-1",
  accessKeyId: "AKIAEXAMPLE",
  secretAccessKey: "aws-secret-access-key",
  endpoint: base,
  eventBusName: "ops",
});

describe("eventBridge", () => {
  providerSuite({
    definition: eventBridge,
    options,
    invalid: [[{ region: "moon" }, "a region name"]],
    secret: "aws-secret-access-key",
    okAnswer: { status: 200, body: '{"FailedEntryCount":0,"Entries":[{"EventId":"e1"}]}' },
  });

  test("PutEvents with the target header; a failed entry in a 200 answer is classified", async () => {
    const { requests } = await sendAll(eventBridge, options, [message("a", "announce")], {
      status: 200,
      body: '{"FailedEntryCount":0,"Entries":[{"EventId":"e1"}]}',
    });
    expect(requests[0]!.headers["x-amz-target"]).toBe("AWSEvents.PutEvents");
    expect(requests[0]!.headers.authorization).toContain("/us-east-1/events/aws4_request");
    const entry = requests[0]!.json().Entries[0];
    // The one event body (issue 31.6): the webhook's, version 1.
    expect(JSON.parse(entry.Detail)).toEqual(webhookBody(message("a", "announce"), "prod"));
    expect([entry.Source, entry.DetailType, entry.EventBusName, JSON.parse(entry.Detail).dedupKey]).toEqual([
      "mon",
      "mon incident announce",
      "ops",
      "mon-test-a",
    ]);
    const throttled = await sendAll(eventBridge, options, [message("a", "announce")], {
      status: 200,
      body: '{"FailedEntryCount":1,"Entries":[{"ErrorCode":"ThrottlingException","ErrorMessage":"Rate exceeded"}]}',
    });
    expect(throttled.outcomes[0]).toEqual({ kind: "retry", reason: "eventbridge_ThrottlingException: Rate exceeded" });
    const denied = await sendAll(eventBridge, options, [message("a", "announce")], {
      status: 200,
      body: '{"FailedEntryCount":1,"Entries":[{"ErrorCode":"AccessDeniedException","ErrorMessage":"no"}]}',
    });
    expect(denied.outcomes[0]!.kind).toBe("permanent");
  });
});
