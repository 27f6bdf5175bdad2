import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { makeProvider, providerSuite, sendAll } from "../testing/provider-suite.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import splunkHec from "./splunkHec.ts";

const options = (base: string) => ({ url: base, hecToken: "hec-secret-token-1", index: "k8s" });

describe("splunkHec", () => {
  providerSuite({
    definition: splunkHec,
    options,
    invalid: [[{ url: "https://s" }, "hecToken is required"]],
    secret: "hec-secret-token-1",
    okAnswer: { status: 200, body: '{"text":"Success","code":0}' },
  });

  test("one event with the dedup key as an indexed field; Splunk authorization", async () => {
    const { requests } = await sendAll(splunkHec, options, [message("a", "announce")], {
      status: 200,
      body: '{"text":"Success","code":0}',
    });
    expect([requests[0]!.path, requests[0]!.headers.authorization]).toEqual([
      "/services/collector/event",
      "Splunk hec-secret-token-1",
    ]);
    expect(requests[0]!.json()).toMatchObject({
      host: "prod",
      index: "k8s",
      sourcetype: "mon:incident",
      fields: { dedup_key: "mon-test-a", cluster: "prod" },
      event: { action: "announce", incidentId: "a" },
    });
  });

  test("check posts an empty body: 400 No data means the token is good; 403 Invalid token is not", async () => {
    for (const [answer, kind] of [
      [{ status: 400, body: '{"text":"No data","code":5}' }, "ok"],
      [{ status: 403, body: '{"text":"Invalid token","code":4}' }, "permanent"],
    ] as const) {
      const server = await startCaptureServer();
      try {
        server.setDefault(answer);
        expect((await makeProvider(splunkHec, options(server.url)).check!(AbortSignal.timeout(5_000))).kind).toBe(kind);
        expect(server.requests[0]!.body).toBe("");
      } finally {
        await server.close();
      }
    }
  });
});
