import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite } from "../testing/provider-suite.ts";
import webhook, { webhookBody } from "./webhook.ts";

describe("webhook", () => {
  providerSuite({
    definition: webhook,
    options: (base) => ({ url: `${base}/hook`, headers: { authorization: "Bearer topsecret" } }),
    invalid: [
      [{}, "url is required"],
      [{ url: "not a url" }, "url must be absolute"],
      [{ url: "https://h/x", method: "DELETE" }, "only POST or PUT"],
      [{ url: "https://h/x", maxBodyBytes: 10 }, "too small a body cap"],
    ],
    secret: "topsecret",
  });

  test("the body carries the fields docs/providers/webhook.md documents", () => {
    const body = webhookBody(
      message("Deployment/shop/api", "update", { news: ["now affects 2 pods: shop/p1, shop/p2"] }),
      "prod",
    );
    expect(Object.keys(body)).toEqual([
      "version",
      "action",
      "incidentId",
      "messageId",
      "dedupKey",
      "cluster",
      "root",
      "tier",
      "mode",
      "reason",
      "title",
      "text",
      "news",
      "nextSteps",
      "findings",
      "at",
    ]);
    expect(body).toMatchObject({
      version: "1",
      action: "update",
      cluster: "prod",
      news: ["now affects 2 pods: shop/p1, shop/p2"],
      at: "1970-01-01T00:00:00.000Z",
    });
  });
});
