import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import azureDevOps from "./azureDevOps.ts";

const options = (base: string) => ({ organization: "acme", project: "Ops", pat: "ado-pat-secret", url: base });
const m = (action: "announce" | "update" | "resolve") =>
  message("Deployment/shop/api", action, { dedupKey: "mon-prod-deployment-shop-api-notify" });

describe("azureDevOps", () => {
  providerSuite({
    definition: azureDevOps,
    options,
    invalid: [[{ organization: "acme", project: "Ops" }, "pat is required"]],
    secret: "ado-pat-secret",
    okAnswer: { status: 200, body: '{"id":42,"workItems":[]}' },
  });

  test("WIQL by tag, a JSON Patch create tagged with the key, comments, then the resolved state", async () => {
    const { requests } = await sendAll(
      azureDevOps,
      options,
      [m("announce"), m("update"), m("resolve")],
      (r) => ({ status: 200, body: r.path.includes("/wiql") ? '{"workItems":[]}' : '{"id":42}' }),
      (i) => (i === 0 ? undefined : "42"),
    );
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /acme/Ops/_apis/wit/wiql?api-version=7.1",
      "POST /acme/Ops/_apis/wit/workitems/$Issue?api-version=7.1",
      "POST /acme/Ops/_apis/wit/workItems/42/comments?api-version=7.1-preview.4",
      "POST /acme/Ops/_apis/wit/workItems/42/comments?api-version=7.1-preview.4",
      "PATCH /acme/Ops/_apis/wit/workitems/42?api-version=7.1",
    ]);
    expect(requests[0]!.json().query).toContain(
      "[System.Tags] CONTAINS 'mon-prod-deployment-shop-api-notify' AND [System.State] <> 'Done'",
    );
    expect(requests[1]!.headers["content-type"]).toBe("application/json-patch+json");
    expect(requests[1]!.json()[2]).toEqual({
      op: "add",
      path: "/fields/System.Tags",
      value: "mon; mon-prod-deployment-shop-api-notify",
    });
    expect(requests[4]!.json()).toEqual([{ op: "add", path: "/fields/System.State", value: "Done" }]);
    expect(requests[0]!.headers.authorization).toBe(`Basic ${btoa(":ado-pat-secret")}`);
  });
});
