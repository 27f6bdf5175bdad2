import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import sentry from "./sentry.ts";

const dsn = (base: string) => `${base.replace("://", "://publicKey123secret@")}/42`;

describe("sentry", () => {
  providerSuite({
    definition: sentry,
    options: (base) => ({ dsn: dsn(base) }),
    invalid: [[{ dsn: "https://sentry.io/42" }, "a DSN names its key"]],
    secret: "publicKey123secret",
    bodyFormat: "text",
  });

  test("an envelope to /api/<project>/envelope/ with the key in X-Sentry-Auth; one fingerprint per incident", async () => {
    const { requests } = await sendAll(sentry, (base) => ({ dsn: dsn(base) }), [
      message("a", "announce"),
      message("a", "resolve"),
    ]);
    expect(requests[0]!.path).toBe("/api/42/envelope/");
    expect(requests[0]!.headers["x-sentry-auth"]).toStartWith(
      "Sentry sentry_version=7, sentry_key=publicKey123secret, sentry_client=mon/",
    );
    const [header, item, event] = requests[0]!.body.split("\n").map((l) => JSON.parse(l));
    expect(item).toMatchObject({ type: "event" });
    expect(header.event_id).toBe(event.event_id);
    expect(event).toMatchObject({ level: "warning", environment: "prod", fingerprint: ["mon", "mon-test-a"] });
    expect(JSON.parse(requests[1]!.body.split("\n")[2]!)).toMatchObject({
      level: "info",
      fingerprint: ["mon", "mon-test-a"],
    });
  });
});
