import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import grafanaAnnotations from "./grafanaAnnotations.ts";

const options = (base: string) => ({ url: base, serviceAccountToken: "glsa_secret_token", dashboardUid: "k8s" });

describe("grafanaAnnotations", () => {
  providerSuite({
    definition: grafanaAnnotations,
    options,
    invalid: [[{ url: "https://g" }, "serviceAccountToken is required"]],
    secret: "glsa_secret_token",
    okAnswer: { status: 200, body: '{"id":7,"message":"Annotation added"}' },
  });

  test("create tagged with the key; updates patch the text; the resolve sets timeEnd (a region)", async () => {
    const { requests, outcomes } = await sendAll(
      grafanaAnnotations,
      options,
      [
        message("a", "announce", { at: 1000 }),
        message("a", "update", { at: 2000 }),
        message("a", "resolve", { at: 3000 }),
      ],
      { status: 200, body: '{"id":7}' },
      (i) => (i === 0 ? undefined : "7"),
    );
    expect(outcomes[0]).toEqual({ kind: "ok", conversation: "7" });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/annotations",
      "PATCH /api/annotations/7",
      "PATCH /api/annotations/7",
    ]);
    expect(requests[0]!.json()).toMatchObject({ dashboardUID: "k8s", time: 1000, tags: ["mon", "mon-test-a"] });
    expect(requests[1]!.json().timeEnd).toBeUndefined();
    expect(requests[2]!.json().timeEnd).toBe(3000);
  });
});
