import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import dingtalk from "./dingtalk.ts";

describe("dingtalk", () => {
  providerSuite({
    definition: dingtalk,
    options: (base) => ({ accessToken: "dt-access-secret", url: `${base}/robot/send` }),
    invalid: [
      [{}, "accessToken is required"],
      [{ accessToken: "dt-access-secret", signingSecret: "nope" }, "secrets start with SEC"],
    ],
    secret: "dt-access-secret",
    okAnswer: { status: 200, body: '{"errcode":0,"errmsg":"ok"}' },
  });

  test("markdown with the token, timestamp and signature in the query; errcode 130101 waits", async () => {
    const { requests } = await sendAll(
      dingtalk,
      (base) => ({ accessToken: "tok-12345678", signingSecret: "SECabc", url: `${base}/robot/send` }),
      [message("a", "announce")],
      { status: 200, body: '{"errcode":0}' },
    );
    const url = new URL(requests[0]!.path, "http://x");
    const ts = url.searchParams.get("timestamp")!;
    expect(url.searchParams.get("access_token")).toBe("tok-12345678");
    expect(url.searchParams.get("sign")).toBe(createHmac("sha256", "SECabc").update(`${ts}\nSECabc`).digest("base64"));
    expect(requests[0]!.json()).toEqual({
      msgtype: "markdown",
      markdown: { title: "announce a", text: "🟠 **announce a**" },
    });
    expect(
      (
        await sendAll(
          dingtalk,
          (b) => ({ accessToken: "tok-12345678", url: `${b}/robot/send` }),
          [message("a", "announce")],
          { status: 200, body: '{"errcode":130101,"errmsg":"send too fast"}' },
        )
      ).outcomes[0],
    ).toEqual({ kind: "rateLimited" });
  });
});
