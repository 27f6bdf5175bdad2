import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import serviceNow from "./serviceNow.ts";

const options = (base: string) => ({ url: base, username: "mon.integration", password: "snow-secret-pw" });
const m = (action: "announce" | "update" | "resolve") =>
  message("Deployment/shop/api", action, { dedupKey: "mon-prod-deployment-shop-api-notify" });

describe("serviceNow", () => {
  providerSuite({
    definition: serviceNow,
    options,
    invalid: [
      [{ username: "u", password: "p" }, "instance or url"],
      [{ instance: "Acme Corp", username: "u", password: "p" }, "an instance name"],
    ],
    secret: "snow-secret-pw",
    okAnswer: { status: 201, body: '{"result":{"sys_id":"abc123"}}' },
  });

  test("correlation_id is the key; work notes on update; state, close code and notes on resolve", async () => {
    const { requests } = await sendAll(
      serviceNow,
      options,
      [m("announce"), m("update"), m("resolve")],
      (r) =>
        r.method === "GET"
          ? { status: 200, body: '{"result":[]}' }
          : { status: 201, body: '{"result":{"sys_id":"abc123"}}' },
      (i) => (i === 0 ? undefined : "abc123"),
    );
    expect(requests.map((r) => `${r.method} ${new URL(r.path, "http://x").pathname}`)).toEqual([
      "GET /api/now/table/incident",
      "POST /api/now/table/incident",
      "PATCH /api/now/table/incident/abc123",
      "PATCH /api/now/table/incident/abc123",
      "PATCH /api/now/table/incident/abc123",
    ]);
    expect(new URL(requests[0]!.path, "http://x").searchParams.get("sysparm_query")).toBe(
      "correlation_id=mon-prod-deployment-shop-api-notify^active=true",
    );
    expect(requests[1]!.json()).toMatchObject({
      correlation_id: "mon-prod-deployment-shop-api-notify",
      correlation_display: "mon",
    });
    expect(requests[4]!.json()).toMatchObject({ state: "6", close_code: "Solved (Permanently)" });
  });
});
