import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import datadog from "./datadog.ts";

const options = (base: string) => ({ apiKey: "dd-api-key-secret-0001", url: base, tags: ["team:platform"] });

describe("datadog", () => {
  providerSuite({
    definition: datadog,
    options,
    invalid: [[{ apiKey: "dd-api-key-secret-0001", site: "datadoghq.moon" }, "a known site"]],
    secret: "dd-api-key-secret-0001",
    okAnswer: { status: 202, body: '{"status":"ok"}' },
  });

  test("events grouped by aggregation key (hashed beyond 100 characters); the resolve is a success event", async () => {
    const long = `mon-prod-${"x".repeat(200)}`;
    const { requests } = await sendAll(
      datadog,
      options,
      [message("a", "announce", { dedupKey: long }), message("a", "resolve", { dedupKey: long })],
      { status: 202, body: "{}" },
    );
    expect(requests[0]!.path).toBe("/api/v1/events");
    expect(requests[0]!.headers["dd-api-key"]).toBe("dd-api-key-secret-0001");
    const [a, r] = requests.map((x) => x.json());
    expect(a.aggregation_key).toMatch(/^mon-[0-9a-f]{16}$/);
    expect(r.aggregation_key).toBe(a.aggregation_key);
    expect([a.alert_type, r.alert_type]).toEqual(["warning", "success"]);
    expect(a.tags).toContain(`mon_dedup_key:${long}`);
  });
});
