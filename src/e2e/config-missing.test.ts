import { describe, expect, test } from "bun:test";
import { TIMED_EXPECTATIONS } from "../testing/timing/expectations.ts";
import { runQuick } from "../testing/timing/run.ts";

/**
 * A missing Secret's message (issue 52 item 12), told by the real daemon on the simulator's controllers: what
 * changed is the Deployment created a second before, the Impact line names it, the count reads as English, and
 * the pods it stops are in the first message — no update that only says pods are affected.
 */
describe("a missing Secret's message says what changed, who is hurt and how many pods, from the first message", () => {
  test("secret-env-missing: announce with the Deployment's creation, its Impact and the pods; no update; resolve", async () => {
    const expected = TIMED_EXPECTATIONS.find((e) => e.story === "secret-env-missing")!;
    const { told } = await runQuick(expected);
    expect(told.map((m) => m.action)).toEqual(["announce", "resolve"]);
    const announce = told[0]!.text;
    expect(announce).toMatch(/^Changed: deployment shop\/api was created right before it began/m);
    expect(announce).toMatch(/^Impact: .*deployment shop\/api 0\/\d available/m);
    expect(announce).toMatch(/SecretMissing, \d pods? affected/);
    expect(announce).toMatch(/does not exist; (1 pod references|\d+ pods reference) it/);
    expect(announce).not.toContain("nothing in the 24 h before it began");
  }, 120_000);
});
