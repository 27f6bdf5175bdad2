import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import linear from "./linear.ts";

const options = (base: string) => ({ apiKey: "lin_api_secret", teamId: "team-1", url: `${base}/graphql` });
const m = (action: "announce" | "update" | "resolve") =>
  message("Deployment/shop/api", action, { dedupKey: "mon-prod-deployment-shop-api-notify" });
const answer = (r: { body: string }) => {
  const q = JSON.parse(r.body).query as string;
  if (q.includes("issues(")) return { status: 200, body: '{"data":{"issues":{"nodes":[]}}}' };
  if (q.includes("issueCreate"))
    return { status: 200, body: '{"data":{"issueCreate":{"success":true,"issue":{"id":"iss-1"}}}}' };
  if (q.includes("team("))
    return {
      status: 200,
      body: '{"data":{"team":{"states":{"nodes":[{"id":"s-todo","type":"unstarted","position":0},{"id":"s-done","type":"completed","position":3}]}}}}',
    };
  return { status: 200, body: '{"data":{"x":{"success":true}}}' };
};

describe("linear", () => {
  providerSuite({
    definition: linear,
    options,
    invalid: [[{ teamId: "t" }, "apiKey is required"]],
    secret: "lin_api_secret",
    okAnswer: { status: 200, body: '{"data":{}}' },
  });

  test("search by the marker, issueCreate, commentCreate, then the team's completed state", async () => {
    const { requests, outcomes } = await sendAll(
      linear,
      options,
      [m("announce"), m("update"), m("resolve")],
      answer,
      (i) => (i === 0 ? undefined : "iss-1"),
    );
    expect(outcomes.map((o) => o.kind === "ok" && o.conversation)).toEqual(["iss-1", "iss-1", "iss-1"]);
    const ops = requests.map(
      (r) => /(issues|issueCreate|commentCreate|team|issueUpdate)\(/.exec(JSON.parse(r.body).query)?.[1],
    );
    expect(ops).toEqual(["issues", "issueCreate", "commentCreate", "commentCreate", "team", "issueUpdate"]);
    expect(requests[0]!.headers.authorization).toBe("lin_api_secret");
    expect(requests[1]!.json().variables.input.description).toContain(
      "<!-- mon-dedup: mon-prod-deployment-shop-api-notify -->",
    );
    expect(requests[5]!.json().variables).toEqual({ id: "iss-1", input: { stateId: "s-done" } });
  });

  test("GraphQL errors in a 200 body: RATELIMITED waits, others are permanent", async () => {
    expect(
      (
        await sendAll(linear, options, [m("announce")], {
          status: 200,
          body: '{"errors":[{"message":"Rate limit exceeded","extensions":{"code":"RATELIMITED"}}]}',
        })
      ).outcomes[0],
    ).toEqual({ kind: "rateLimited" });
    expect(
      (
        await sendAll(linear, options, [m("announce")], {
          status: 200,
          body: '{"errors":[{"message":"Entity not found: Team"}]}',
        })
      ).outcomes[0],
    ).toEqual({ kind: "permanent", reason: "graphql: Entity not found: Team", failure: "rejected" });
  });
});
