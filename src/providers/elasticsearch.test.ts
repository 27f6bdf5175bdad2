import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import elasticsearch from "./elasticsearch.ts";

const options = (base: string) => ({ url: base, apiKey: "aWQ6c2VjcmV0LWtleQ==" });

describe("elasticsearch", () => {
  providerSuite({
    definition: elasticsearch,
    options,
    invalid: [
      [{ url: "https://e", index: "Upper" }, "index names are lower case"],
      [{ url: "https://e", apiKey: "a", password: "p" }, "one kind of auth"],
    ],
    secret: "aWQ6c2VjcmV0LWtleQ==",
    okAnswer: { status: 201, body: '{"result":"created"}' },
  });

  test("one ECS document into the dated index, ApiKey authorization; data streams use op_type=create", async () => {
    const { requests } = await sendAll(
      elasticsearch,
      options,
      [message("a", "announce", { at: Date.parse("2026-11-22T08:00:00Z") })],
      { status: 201, body: "{}" },
    );
    expect([requests[0]!.path, requests[0]!.headers.authorization]).toEqual([
      "/mon-incidents-2026.11.22/_doc",
      "ApiKey aWQ6c2VjcmV0LWtleQ==",
    ]);
    expect(requests[0]!.json()).toMatchObject({
      "@timestamp": "2026-11-22T08:00:00.000Z",
      event: { action: "announce", kind: "alert" },
      dedupKey: "mon-test-a",
      kubernetes: { namespace: "shop", kind: "Deployment", name: "a" },
    });
    const stream = await sendAll(
      elasticsearch,
      (b) => ({ url: b, index: "logs-mon-default", dataStream: true }),
      [message("a", "announce")],
      { status: 201, body: "{}" },
    );
    expect(stream.requests[0]!.path).toBe("/logs-mon-default/_doc?op_type=create");
  });
});
