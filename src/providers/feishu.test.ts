import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import feishu, { feishuSign } from "./feishu.ts";

describe("feishu", () => {
  providerSuite({
    definition: feishu,
    options: (base) => ({ webhookUrl: `${base}/open-apis/bot/v2/hook/fs-secret-token` }),
    invalid: [[{}, "webhookUrl is required"]],
    secret: "fs-secret-token",
    okAnswer: { status: 200, body: '{"code":0,"msg":"success","data":{}}' },
  });

  test("signed text message: sign = Base64(HMAC-SHA256(key = timestamp\\nsecret, empty data))", async () => {
    const { requests } = await sendAll(
      feishu,
      (base) => ({ webhookUrl: `${base}/hook/t`, signingSecret: "s3cr3t", keyword: "mon" }),
      [message("a", "announce")],
      { status: 200, body: '{"code":0}' },
    );
    const body = requests[0]!.json();
    expect(body.timestamp).toBe(String(Math.floor(Date.parse("2026-01-01T00:00:00Z") / 1000)));
    expect(body.sign).toBe(createHmac("sha256", `${body.timestamp}\ns3cr3t`).update("").digest("base64"));
    expect(body).toMatchObject({ msg_type: "text", content: { text: "🟠 announce a\nmon" } });
    expect(await feishuSign("s3cr3t", "1")).toBe(createHmac("sha256", "1\ns3cr3t").digest("base64"));
  });

  test("an error code in a 200 body: 11232 is retried later, a signature failure is permanent", async () => {
    expect(
      (
        await sendAll(feishu, (b) => ({ webhookUrl: `${b}/h` }), [message("a", "announce")], {
          status: 200,
          body: '{"code":11232,"msg":"frequency limited"}',
        })
      ).outcomes[0],
    ).toEqual({ kind: "rateLimited" });
    expect(
      (
        await sendAll(feishu, (b) => ({ webhookUrl: `${b}/h` }), [message("a", "announce")], {
          status: 200,
          body: '{"code":19021,"msg":"sign match fail or timestamp is not within one hour from current time"}',
        })
      ).outcomes[0],
    ).toEqual({
      kind: "permanent",
      failure: "rejected",
      reason: "error 19021: sign match fail or timestamp is not within one hour from current time",
    });
  });
});
