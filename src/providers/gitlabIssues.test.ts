import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import gitlabIssues from "./gitlabIssues.ts";

const options = (base: string) => ({ token: "glpat-secret-token", projectId: "acme/ops", url: base });
const m = (action: "announce" | "update" | "resolve") =>
  message("Deployment/shop/api", action, { dedupKey: "mon-prod-deployment-shop-api-notify" });

describe("gitlabIssues", () => {
  providerSuite({
    definition: gitlabIssues,
    options,
    invalid: [[{ projectId: "1" }, "token is required"]],
    secret: "glpat-secret-token",
    okAnswer: { status: 201, body: '{"iid":5}' },
  });

  test("create with the marker, a note per update, note and close on resolve; PRIVATE-TOKEN", async () => {
    const { requests } = await sendAll(
      gitlabIssues,
      options,
      [m("announce"), m("update"), m("resolve")],
      (r) => ({ status: r.method === "GET" ? 200 : 201, body: r.method === "GET" ? "[]" : '{"iid":5}' }),
      (i) => (i === 0 ? undefined : "5"),
    );
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /api/v4/projects/acme%2Fops/issues?state=opened&labels=mon&in=description&search=mon-prod-deployment-shop-api-notify",
      "POST /api/v4/projects/acme%2Fops/issues",
      "POST /api/v4/projects/acme%2Fops/issues/5/notes",
      "POST /api/v4/projects/acme%2Fops/issues/5/notes",
      "PUT /api/v4/projects/acme%2Fops/issues/5",
    ]);
    expect(requests[0]!.headers["private-token"]).toBe("glpat-secret-token");
    expect(requests[1]!.json()).toMatchObject({ labels: "mon", confidential: false });
    expect(requests[1]!.json().description).toContain("<!-- mon-dedup: mon-prod-deployment-shop-api-notify -->");
    expect(requests[4]!.json()).toEqual({ state_event: "close" });
  });
});
