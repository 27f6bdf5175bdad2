import { webhookBody } from "./_kit/event-body.ts";
import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import kafka from "./kafka.ts";

const v3 = (base: string) => ({
  url: base,
  clusterId: "lkc-1",
  topic: "mon.incidents",
  username: "KEY",
  password: "kafka-api-secret",
});

describe("kafka", () => {
  providerSuite({
    definition: kafka,
    options: v3,
    invalid: [
      [{ url: "https://k", topic: "t" }, "v3 needs clusterId"],
      [{ url: "https://k", apiVersion: "v2", topic: "bad topic" }, "a topic name has no spaces"],
    ],
    secret: "kafka-api-secret",
  });

  test("v3: one record keyed by the dedup key; v2: the records envelope and its content type", async () => {
    const { requests } = await sendAll(kafka, v3, [message("a", "announce")]);
    expect(requests[0]!.path).toBe("/v3/clusters/lkc-1/topics/mon.incidents/records");
    expect(requests[0]!.json()).toEqual({
      key: { type: "STRING", data: "mon-test-a" },
      // The one event body (issue 31.6): the webhook's, version 1.
      value: { type: "JSON", data: webhookBody(message("a", "announce"), "prod") },
    });
    const old = await sendAll(kafka, (b) => ({ url: b, apiVersion: "v2", topic: "mon" }), [message("a", "announce")]);
    expect([old.requests[0]!.path, old.requests[0]!.headers["content-type"]]).toEqual([
      "/topics/mon",
      "application/vnd.kafka.json.v2+json",
    ]);
    expect(old.requests[0]!.json().records[0].key).toBe("mon-test-a");
  });
});
