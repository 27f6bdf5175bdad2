import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import zulip, { zulipTopic } from "./zulip.ts";

const options = (base: string) => ({
  url: base,
  botEmail: "mon-bot@example.zulipchat.com",
  apiKey: "zulip-api-secret",
  channel: "alerts",
});

describe("zulip", () => {
  providerSuite({
    definition: zulip,
    options,
    invalid: [
      [
        { url: "https://z", botEmail: "not-an-email", apiKey: "zulip-api-secret", channel: "a" },
        "botEmail is an email",
      ],
    ],
    secret: "zulip-api-secret",
    okAnswer: { status: 200, body: '{"result":"success","id":42}' },
    bodyFormat: "form",
  });

  test("one topic per incident; the resolve renames it with the ✔ prefix", async () => {
    const m = (a: "announce" | "resolve") =>
      message("Deployment/shop/api", a, {
        root: { kind: "Deployment", namespace: "shop", name: "api" },
        dedupKey: "mon-prod-deployment-shop-api-notify",
      });
    const { requests } = await sendAll(zulip, options, [m("announce"), m("resolve")], {
      status: 200,
      body: '{"result":"success","id":42}',
    });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/messages",
      "POST /api/v1/messages",
      "PATCH /api/v1/messages/42",
    ]);
    const topic = zulipTopic(m("announce"));
    expect(topic.length).toBeLessThanOrEqual(58);
    expect(new URLSearchParams(requests[0]!.body).get("topic")).toBe(topic);
    expect(new URLSearchParams(requests[1]!.body).get("topic")).toBe(topic);
    expect(Object.fromEntries(new URLSearchParams(requests[2]!.body))).toEqual({
      topic: `✔ ${topic}`,
      propagate_mode: "change_all",
    });
    expect(requests[0]!.headers.authorization).toBe(`Basic ${btoa("mon-bot@example.zulipchat.com:zulip-api-secret")}`);
  });
});
