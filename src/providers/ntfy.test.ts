import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import ntfy from "./ntfy.ts";

describe("ntfy", () => {
  providerSuite({
    definition: ntfy,
    options: (base) => ({ url: base, topic: "mon-alerts", accessToken: "tk_secret123" }),
    invalid: [
      [{}, "topic is required"],
      [{ topic: "has space" }, "a topic is one word"],
      [{ topic: "t", username: "u" }, "username needs a password"],
    ],
    secret: "tk_secret123",
    bodyFormat: "text",
  });

  test("text body, title/priority/tags headers, one sequence id per incident; the resolve updates it in place", async () => {
    const { requests } = await sendAll(ntfy, (base) => ({ url: base, topic: "mon-alerts", accessToken: "tk_x" }), [
      message("a", "announce", { mode: "page" }),
      message("a", "resolve"),
    ]);
    expect(
      requests.map((r) => [r.method, r.path, r.headers.authorization, r.headers.priority, r.headers.tags]),
    ).toEqual([
      ["POST", "/mon-alerts", "Bearer tk_x", "5", "rotating_light"],
      ["POST", "/mon-alerts", "Bearer tk_x", "3", "white_check_mark"],
    ]);
    expect(requests[0]!.headers["x-sequence-id"]).toBe("mon-test-a");
    expect(requests[1]!.headers["x-sequence-id"]).toBe("mon-test-a");
    expect(requests[0]!.body).toBe("🟠 announce a");
  });
});

describe("ntfy check", () => {
  test("reads /<topic>/auth with the token, publishing nothing", async () => {
    const { startCaptureServer } = await import("../testing/capture-server.ts");
    const { makeProvider } = await import("../testing/provider-suite.ts");
    const server = await startCaptureServer();
    try {
      server.setDefault({ status: 200, body: '{"success":true}' });
      expect(
        await makeProvider(ntfy, { url: server.url, topic: "mon-alerts", accessToken: "tk_x" }).check!(
          AbortSignal.timeout(5_000),
        ),
      ).toEqual({ kind: "ok" });
      expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
        ["GET", "/mon-alerts/auth", "Bearer tk_x"],
      ]);
    } finally {
      await server.close();
    }
  });
});
