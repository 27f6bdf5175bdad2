import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import matrix from "./matrix.ts";

const options = (base: string) => ({
  homeserverUrl: base,
  accessToken: "syt_matrix_secret",
  roomId: "!room:example.org",
});

describe("matrix", () => {
  providerSuite({
    definition: matrix,
    options,
    invalid: [
      [{ homeserverUrl: "https://m", accessToken: "syt_matrix_secret", roomId: "general" }, "a room id starts with !"],
    ],
    secret: "syt_matrix_secret",
    okAnswer: { status: 200, body: '{"event_id":"$e1"}' },
  });

  test("PUT with an idempotent transaction id; thread replies; the resolve edits the root with m.replace", async () => {
    const { requests, outcomes } = await sendAll(
      matrix,
      options,
      [message("a", "announce"), message("a", "resolve")],
      { status: 200, body: '{"event_id":"$e1"}' },
      (i) => (i === 0 ? undefined : "$e1"),
    );
    expect(outcomes[0]).toEqual({ kind: "ok", conversation: "$e1" });
    expect(
      requests.every(
        (r) =>
          r.method === "PUT" &&
          r.path.startsWith("/_matrix/client/v3/rooms/!room%3Aexample.org/send/m.room.message/mon-"),
      ),
    ).toBe(true);
    expect(requests[1]!.json()["m.relates_to"]).toMatchObject({ rel_type: "m.thread", event_id: "$e1" });
    expect(requests[2]!.json()["m.relates_to"]).toEqual({ rel_type: "m.replace", event_id: "$e1" });
    // The same message retried uses the same transaction id: the homeserver posts it once.
    const again = await sendAll(matrix, options, [message("a", "announce")], {
      status: 200,
      body: '{"event_id":"$e1"}',
    });
    expect(again.requests[0]!.path).toBe(requests[0]!.path);
  });

  test("429 M_LIMIT_EXCEEDED waits retry_after_ms", async () => {
    const { outcomes } = await sendAll(matrix, options, [message("a", "announce")], {
      status: 429,
      body: '{"errcode":"M_LIMIT_EXCEEDED","error":"Too many requests","retry_after_ms":2000}',
    });
    expect(outcomes[0]).toEqual({ kind: "rateLimited", afterMs: 2000 });
  });
});
