import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import googleChat from "./googleChat.ts";

describe("googleChat", () => {
  providerSuite({
    definition: googleChat,
    options: (base) => ({ webhookUrl: `${base}/v1/spaces/AAA/messages?key=k3y&token=t0ken-secret` }),
    invalid: [
      [{}, "webhookUrl is required"],
      [{ webhookUrl: "nope" }, "an absolute URL"],
    ],
    secret: "t0ken-secret",
  });

  test("every message of an incident goes to one thread keyed by its dedup key; bold becomes *x*", async () => {
    const { requests } = await sendAll(
      googleChat,
      (base) => ({ webhookUrl: `${base}/v1/spaces/AAA/messages?key=k&token=t` }),
      [message("a", "announce", { markdown: "🟠 **deployment shop/a**: crash" }), message("a", "resolve")],
    );
    for (const r of requests) {
      const url = new URL(r.path, "http://x");
      expect(url.pathname).toBe("/v1/spaces/AAA/messages");
      expect(url.searchParams.get("key")).toBe("k");
      expect(url.searchParams.get("threadKey")).toBe("mon-test-a");
      expect(url.searchParams.get("messageReplyOption")).toBe("REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
    }
    expect(requests[0]!.json()).toEqual({ text: "🟠 *deployment shop/a*: crash" });
  });
});
