import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { pagerContract, sendAll } from "../testing/provider-suite.ts";
import alerta from "./alerta.ts";

const options = (b: string) => ({ url: `${b}/api`, apiKey: "alerta-key-secret" });

describe("alerta", () => {
  pagerContract({
    definition: alerta,
    options,
    invalid: [[{ url: "https://a" }, "apiKey is required"]],
    secret: "alerta-key-secret",
    okAnswer: { status: 201, body: '{"status":"ok","id":"a1"}' },
    path: "/api/alert",
    headers: { authorization: "Key alerta-key-secret" },
    dedup: (b) => b.attributes.dedupKey,
    status: (b) => b.severity,
    expected: ["critical", "major", "normal"],
  });

  test("the de-duplication triple stays the same for an incident: environment, resource, event", async () => {
    const { requests } = await sendAll(alerta, options, [message("a", "announce"), message("a", "resolve")], {
      status: 201,
      body: "{}",
    });
    const triples = requests.map((r) => {
      const b = r.json();
      return [b.environment, b.resource, b.event];
    });
    expect(triples).toEqual([
      ["prod", "Deployment/shop/a", "CrashLoopBackOff"],
      ["prod", "Deployment/shop/a", "CrashLoopBackOff"],
    ]);
  });
});

describe("alerta check", () => {
  test("lists one alert with the key, posting nothing", async () => {
    const { startCaptureServer } = await import("../testing/capture-server.ts");
    const { makeProvider } = await import("../testing/provider-suite.ts");
    const server = await startCaptureServer();
    try {
      server.setDefault({ status: 200, body: '{"status":"ok","alerts":[]}' });
      expect(await makeProvider(alerta, options(server.url)).check!(AbortSignal.timeout(5_000))).toEqual({
        kind: "ok",
      });
      expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
        ["GET", "/api/alerts?page-size=1", "Key alerta-key-secret"],
      ]);
    } finally {
      await server.close();
    }
  });
});
