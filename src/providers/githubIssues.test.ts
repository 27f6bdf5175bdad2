import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import githubIssues from "./githubIssues.ts";

const options = (base: string) => ({ token: "github_pat_secret", owner: "acme", repo: "ops", apiUrl: base });
const m = (action: "announce" | "update" | "resolve") =>
  message("Deployment/shop/api", action, { dedupKey: "mon-prod-deployment-shop-api-notify" });

describe("githubIssues", () => {
  providerSuite({
    definition: githubIssues,
    options,
    invalid: [
      [
        { token: "github_pat_secret", owner: "acme", repo: "ops", labels: ["x".repeat(51)] },
        "labels are ≤ 50 characters",
      ],
    ],
    secret: "github_pat_secret",
    okAnswer: { status: 201, body: '{"number":12}' },
  });

  test("create with the hidden key marker, comment on update, comment and close on resolve", async () => {
    const { requests, outcomes } = await sendAll(
      githubIssues,
      options,
      [m("announce"), m("update"), m("resolve")],
      (r) => ({ status: r.method === "GET" ? 200 : 201, body: r.method === "GET" ? "[]" : '{"number":12}' }),
      (i) => (i === 0 ? undefined : "12"),
    );
    expect(outcomes.map((o) => o.kind === "ok" && o.conversation)).toEqual(["12", "12", "12"]);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /repos/acme/ops/issues?labels=mon&state=open&per_page=100",
      "POST /repos/acme/ops/issues",
      "POST /repos/acme/ops/issues/12/comments",
      "POST /repos/acme/ops/issues/12/comments",
      "PATCH /repos/acme/ops/issues/12",
    ]);
    expect(requests[1]!.json().body).toContain("<!-- mon-dedup: mon-prod-deployment-shop-api-notify -->");
    expect(requests[1]!.json().labels).toEqual(["mon"]);
    expect(requests[4]!.json()).toEqual({ state: "closed", state_reason: "completed" });
    expect(requests[0]!.headers.authorization).toBe("Bearer github_pat_secret");
  });

  test("after a restart that forgot the issue, it is found by its marker and commented, not opened twice", async () => {
    const open = JSON.stringify([
      { number: 7, body: "old\n\n<!-- mon-dedup: mon-prod-deployment-shop-api-notify -->" },
    ]);
    const { requests, outcomes } = await sendAll(githubIssues, options, [m("announce")], (r) => ({
      status: r.method === "GET" ? 200 : 201,
      body: r.method === "GET" ? open : "{}",
    }));
    expect(outcomes[0]).toEqual({ kind: "ok", conversation: "7" });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /repos/acme/ops/issues?labels=mon&state=open&per_page=100",
      "POST /repos/acme/ops/issues/7/comments",
    ]);
  });

  test("a create whose answer names no issue is delivered but untracked", async () => {
    const { outcomes } = await sendAll(githubIssues, options, [m("announce")], (r) => ({
      status: r.method === "GET" ? 200 : 201,
      body: r.method === "GET" ? "[]" : "{}",
    }));
    expect(outcomes[0]).toEqual({ kind: "ok", untracked: true });
  });
});
