import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import jira from "./jira.ts";

const cloud = (base: string) => ({
  baseUrl: base,
  email: "ops@acme.example",
  apiToken: "jira-api-secret",
  project: "OPS",
});
const m = (action: "announce" | "update" | "resolve") =>
  message("Deployment/shop/api", action, { dedupKey: "mon-prod-deployment-shop-api-notify" });
const answer = (r: { method: string; path: string }) =>
  r.path.endsWith("/transitions") && r.method === "GET"
    ? { status: 200, body: '{"transitions":[{"id":"11","name":"In Progress"},{"id":"31","name":"Done"}]}' }
    : r.path.includes("/search")
      ? { status: 200, body: '{"issues":[]}' }
      : { status: 201, body: '{"key":"OPS-7"}' };

describe("jira", () => {
  providerSuite({
    definition: jira,
    options: cloud,
    invalid: [[{ baseUrl: "https://j", apiToken: "jira-api-secret", project: "ops" }, "a project key is upper case"]],
    secret: "jira-api-secret",
    okAnswer: { status: 201, body: '{"key":"OPS-7"}' },
  });

  test("Cloud: JQL search by the key label, create, comment, then the Done transition looked up by name", async () => {
    const { requests, outcomes } = await sendAll(
      jira,
      cloud,
      [m("announce"), m("update"), m("resolve")],
      answer,
      (i) => (i === 0 ? undefined : "OPS-7"),
    );
    expect(outcomes.map((o) => o.kind === "ok" && o.conversation)).toEqual(["OPS-7", "OPS-7", "OPS-7"]);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /rest/api/3/search/jql",
      "POST /rest/api/2/issue",
      "POST /rest/api/2/issue/OPS-7/comment",
      "POST /rest/api/2/issue/OPS-7/comment",
      "GET /rest/api/2/issue/OPS-7/transitions",
      "POST /rest/api/2/issue/OPS-7/transitions",
    ]);
    expect(requests[0]!.json().jql).toBe(
      'project = "OPS" AND labels = "mon-prod-deployment-shop-api-notify" AND statusCategory != Done ORDER BY created DESC',
    );
    expect(requests[1]!.json().fields).toMatchObject({
      project: { key: "OPS" },
      issuetype: { name: "Task" },
      labels: ["mon", "mon-prod-deployment-shop-api-notify"],
    });
    expect(requests[5]!.json()).toEqual({ transition: { id: "31" } });
    expect(requests[0]!.headers.authorization).toBe(`Basic ${btoa("ops@acme.example:jira-api-secret")}`);
  });

  test("Data Center: Bearer token and /rest/api/2/search; a workflow without the transition says which it has", async () => {
    const dc = (base: string) => ({
      baseUrl: base,
      apiToken: "pat-secret-1",
      project: "OPS",
      resolveTransition: "Resolved",
    });
    const { requests, outcomes } = await sendAll(jira, dc, [m("resolve")], (r) =>
      r.path.includes("/search") ? { status: 200, body: '{"issues":[{"key":"OPS-9"}]}' } : answer(r),
    );
    expect(requests[0]!.path).toBe("/rest/api/2/search");
    expect(requests[0]!.headers.authorization).toBe("Bearer pat-secret-1");
    expect(outcomes[0]).toEqual({
      kind: "permanent",
      failure: "rejected",
      reason: 'issue OPS-9 has no transition named "Resolved" (it has: In Progress, Done); set resolveTransition',
    });
  });
});
