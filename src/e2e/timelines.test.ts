import { describe, expect, test } from "bun:test";
import { AFTER_SECONDS, EXPECTATIONS, judge, messageLine } from "../testing/expectations.ts";
import { startReplay } from "../testing/replay.ts";

/**
 * The real daemon against watch-event timelines recorded from a real control plane, replayed at their recorded
 * timing on the fake clock: what a webhook receives is what a platform engineer should get
 * (src/testing/expectations.ts; docs/alert-quality.md has the table for every scenario).
 */
describe("recorded real-cluster timelines, replayed through the real daemon", () => {
  for (const expected of EXPECTATIONS) {
    test(`${expected.scenario}: ${expected.announces} announcement(s), ${expected.resolves} resolve(s)${expected.root ? `, rooted at ${expected.root}` : ""}`, async () => {
      const run = await startReplay(expected.scenario);
      try {
        await run.runTo(run.lengthSeconds + AFTER_SECONDS);
        const told = run.told();
        const judged = judge(expected, told);
        expect({
          ...judged,
          expected: undefined,
          told: told.map((m) => `${m.action} ${m.incidentId} ${m.reason}`),
        }).toMatchObject({
          ok: true,
        });
        expect(told.map(messageLine)).toEqual([...expected.messages]);
      } finally {
        await run.stop();
      }
    });
  }

  test("node_lost_daemonset: the node is told once with the pods on it, resolved when it is Ready again", async () => {
    const run = await startReplay("node_lost_daemonset");
    try {
      await run.runTo(59);
      expect(run.told()).toEqual([]);
      await run.runTo(62);
      const [told] = run.told();
      expect(told).toMatchObject({ action: "announce", incidentId: "Node//tl-node-b", reason: "NodeLost" });
      expect(told!.text).toContain("node tl-node-b: unreachable, 2 pods on it down");
      await run.runTo(run.lengthSeconds + AFTER_SECONDS);
      expect(run.told().map((m) => m.action)).toEqual(["announce", "resolve"]);
      expect(run.told()[1]!.t).toBeGreaterThanOrEqual(150);
      // The resolve says what changed, not only what it was blamed on.
      expect(run.told()[1]!.text).toContain("Now: node Ready again");
    } finally {
      await run.stop();
    }
  });
});
