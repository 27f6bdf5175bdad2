import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import rocketChat from "./rocketChat.ts";

const rest = (base: string) => ({ url: base, authToken: "rc-secret-token", userId: "u1", channel: "#alerts" });

describe("rocketChat", () => {
  providerSuite({
    definition: rocketChat,
    options: (base) => ({ webhookUrl: `${base}/hooks/abc/rc-hook-secret` }),
    invalid: [
      [{}, "webhookUrl or authToken"],
      [{ authToken: "t" }, "authToken needs userId, url and channel"],
    ],
    secret: "rc-hook-secret",
  });
  providerSuite({
    definition: rocketChat,
    options: rest,
    invalid: [],
    secret: "rc-secret-token",
    okAnswer: { status: 200, body: '{"success":true,"message":{"_id":"m1","rid":"r1"}}' },
  });

  test("REST: thread replies with tmid, the resolve edits the root; success:false is permanent", async () => {
    const { requests, outcomes } = await sendAll(
      rocketChat,
      rest,
      [message("a", "announce"), message("a", "resolve")],
      { status: 200, body: '{"success":true,"message":{"_id":"m1","rid":"r1"}}' },
      (i) => (i === 0 ? undefined : "r1:m1"),
    );
    expect(outcomes[0]).toEqual({ kind: "ok", conversation: "r1:m1" });
    expect(requests.map((r) => r.path)).toEqual([
      "/api/v1/chat.postMessage",
      "/api/v1/chat.sendMessage",
      "/api/v1/chat.update",
    ]);
    expect(requests[1]!.json()).toEqual({ message: { rid: "r1", msg: "🟠 **resolve a**", tmid: "m1" } });
    expect([requests[0]!.headers["x-auth-token"], requests[0]!.headers["x-user-id"]]).toEqual([
      "rc-secret-token",
      "u1",
    ]);
    expect(
      (
        await sendAll(rocketChat, rest, [message("a", "announce")], {
          status: 200,
          body: '{"success":false,"error":"error-invalid-room"}',
        })
      ).outcomes[0],
    ).toEqual({ kind: "permanent", reason: "rocketchat: error-invalid-room", failure: "rejected" });
  });
});
