import { describe, expect, test } from "bun:test";
import { AFTER_SECONDS, EXPECTATIONS, judge, messageLine } from "../testing/expectations.ts";
import { startStory } from "../testing/replay.ts";

/**
 * The same seven stories as src/e2e/timelines.test.ts, told this time to the simulator's own controllers
 * (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, scheduler, kubelets, node lifecycle, EndpointSlices):
 * the real daemon must deliver exactly what it delivers on the recordings (src/testing/expectations.ts), so the
 * rules hold on timing the tests produce themselves, not only on seven recorded runs.
 */
describe("recorded stories told to the simulator's controllers, through the real daemon", () => {
  for (const expected of EXPECTATIONS) {
    test(`${expected.scenario}: ${expected.announces} announcement(s), ${expected.resolves} resolve(s)${expected.root ? `, rooted at ${expected.root}` : ""}`, async () => {
      const run = await startStory(expected.scenario);
      try {
        await run.runTo(run.lengthSeconds + AFTER_SECONDS);
        const told = run.told();
        expect({
          ...judge(expected, told),
          expected: undefined,
          told: told.map((m) => `${m.t.toFixed(1)} ${m.action} ${m.incidentId} ${m.reason}`),
        }).toMatchObject({ ok: true });
        expect(told.map(messageLine)).toEqual([...(expected.onControllers?.messages ?? expected.messages)]);
      } finally {
        await run.stop();
      }
      // A fake clock's replay takes under a second alone; a busy machine may take many times that.
    }, 120_000);
  }
});
