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
    const { requests } = await sendAll(alerta, options, [message("a", "announce"), message("a", "resolve")], { status: 201, body: "{}" });
    const triples = requests.map((r) => { const b = r.json(); return [b.environment, b.resource, b.event]; });
    expect(triples).toEqual([["prod", "Deployment/shop/a", "CrashLoopBackOff"], ["prod", "Deployment/shop/a", "CrashLoopBackOff"]]);
  });
});
