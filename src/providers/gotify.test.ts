import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import gotify from "./gotify.ts";

describe("gotify", () => {
  providerSuite({
    definition: gotify,
    options: (base) => ({ url: base, appToken: "AppTok3nSecret" }),
    invalid: [[{ url: "https://g" }, "appToken is required"]],
    secret: "AppTok3nSecret",
  });

  test("POST /message with X-Gotify-Key, Markdown display and a priority by tier", async () => {
    const { requests } = await sendAll(gotify, (base) => ({ url: base, appToken: "AppTok3nSecret" }), [
      message("a", "announce", { mode: "page" }),
    ]);
    expect(requests[0]!.path).toBe("/message");
    expect(requests[0]!.headers["x-gotify-key"]).toBe("AppTok3nSecret");
    expect(requests[0]!.json()).toEqual({
      title: "announce a",
      message: "🟠 **announce a**",
      priority: 8,
      extras: { "client::display": { contentType: "text/markdown" } },
    });
  });
});
