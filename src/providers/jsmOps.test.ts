import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import jsmOps from "./jsmOps.ts";

const options = (base: string) => ({ apiKey: "genie-key-secret-1", url: base });

describe("jsmOps", () => {
  providerSuite({
    definition: jsmOps,
    options,
    invalid: [
      [{}, "apiKey is required"],
      [{ apiKey: "genie-key-secret-1", region: "ap" }, "regions are us and eu"],
    ],
    secret: "genie-key-secret-1",
    okAnswer: { status: 202, body: '{"result":"Request will be processed","took":0.2,"requestId":"r1"}' },
  });

  test("create with the dedup key as alias, a note per update, close by alias; GenieKey authorization", async () => {
    const m = (action: "announce" | "update" | "resolve") =>
      message("Deployment/shop/api", action, {
        mode: action === "announce" ? "page" : "notify",
        dedupKey: "mon-prod-deployment-shop-api-page",
      });
    const { requests } = await sendAll(jsmOps, options, [m("announce"), m("update"), m("resolve")], {
      status: 202,
      body: '{"requestId":"r1"}',
    });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v2/alerts",
      "POST /v2/alerts/mon-prod-deployment-shop-api-page/notes?identifierType=alias",
      "POST /v2/alerts/mon-prod-deployment-shop-api-page/close?identifierType=alias",
    ]);
    expect(requests.every((r) => r.headers.authorization === "GenieKey genie-key-secret-1")).toBe(true);
    expect(requests[0]!.json()).toMatchObject({
      alias: "mon-prod-deployment-shop-api-page",
      priority: "P1",
      source: "mon",
      tags: ["mon"],
    });
    expect(requests[0]!.json().message.length).toBeLessThanOrEqual(130);
  });
});
