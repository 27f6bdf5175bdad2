import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { emptyLifecycle, type LifecycleState } from "../../incident/lifecycle.ts";
import type { KubeObject } from "../../model/inventory.ts";
import { inventoryOf, node, pod, workload } from "../../testing/inventory.ts";
import { PASS_STAGES, type PassStage } from "./guard.ts";
import { type PassResult, runPass } from "./pipeline.ts";

/**
 * One incident a stage throws on costs the others nothing (issue 41, item 6): for any set of failing
 * workloads, any stage after detection and any of them it throws on, the others are decided exactly as
 * without the fault, the faulty ones are set aside and said plainly, and an open one keeps its state.
 */
const NOW = Date.parse("2026-01-01T01:00:00Z");
const crashing = {
  restartCount: 5,
  state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s" } },
  lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: "2026-01-01T00:59:00Z" } },
};

/** `count` namespaces n0…, each with Deployment `app<i>` (uids are by name) whose one pod crash-loops. */
function world(count: number): KubeObject[] {
  return [
    node("n1", "True"),
    ...Array.from({ length: count }, (_, i) => {
      const w = workload(`n${i}`, `app${i}`);
      return [
        w.deployment,
        w.replicaSet,
        pod(`n${i}`, `app${i}-p0`, { nodeName: "n1", owner: w.replicaSet, status: crashing }),
      ];
    }).flat(),
  ];
}

/** Everything about incident `i` carries its namespace: its root `Deployment/n<i>/app<i>`, its findings' keys. */
const ofIncident = (id: string, i: number) => id.includes(`/n${i}/`);

function pass(
  objects: KubeObject[],
  state: LifecycleState,
  at: number,
  fault?: (stage: PassStage, id: string) => void,
): PassResult {
  return runPass(inventoryOf(...objects), state, at, "prod", {}, undefined, undefined, fault ? { fault } : {});
}

const decided = (r: PassResult, keep: (id: string) => boolean) =>
  r.decisions.filter((d) => keep(d.incident.id)).map((d) => `${d.action} ${d.incident.id} ${d.incident.rootReason}`);

const arbitrary = fc.integer({ min: 1, max: 6 }).chain((count) =>
  fc.record({
    count: fc.constant(count),
    stage: fc.constantFrom(...PASS_STAGES),
    faulty: fc.uniqueArray(fc.integer({ min: 0, max: count - 1 }), { minLength: 1, maxLength: count }),
  }),
);

describe("a stage that throws on an incident sets it aside; the others go on (issue 41, item 6)", () => {
  test("a new incident: the others are decided as without the fault; it is set aside and told plainly", () => {
    fc.assert(
      fc.property(arbitrary, ({ count, stage, faulty }) => {
        const objects = world(count);
        const isFaulty = (id: string) => faulty.some((i) => ofIncident(id, i));
        const clean = pass(objects, emptyLifecycle(), NOW);
        const faulted = pass(objects, emptyLifecycle(), NOW, (s, id) => {
          if (s === stage && isFaulty(id)) throw new TypeError("undefined is not an object (evaluating 'e.kind')");
        });
        expect(faulted.panicked).toBeUndefined();
        expect(decided(faulted, (id) => !isFaulty(id))).toEqual(decided(clean, (id) => !isFaulty(id)));
        for (const i of faulty) {
          expect(faulted.setAside?.some((a) => a.stage === stage && ofIncident(a.id, i))).toBe(true);
          const told = faulted.messages.map((m) => m.message).filter((m) => ofIncident(`${m.incidentId}/`, i));
          if (stage === "annotate") {
            // Told in full but for what annotate adds.
            expect(decided(faulted, (id) => ofIncident(id, i))).toEqual(decided(clean, (id) => ofIncident(id, i)));
          } else if (stage === "compose") {
            expect(told.map((m) => m.text)).toEqual([
              expect.stringContaining(
                "mon could not render this message in full (stage compose: undefined is not an object",
              ),
            ]);
            expect(told[0]!.incidentId).toBe(`Deployment/n${i}/app${i}`);
          } else {
            expect(told.map((m) => m.text)).toEqual([expect.stringContaining(`mon could not process`)]);
            expect(told[0]!.text).toContain(`(stage ${stage}: undefined is not an object`);
          }
        }
      }),
      { numRuns: 120 },
    );
  });

  test("an open incident a stage throws on keeps its state: nothing is decided for it, nothing resolves", () => {
    fc.assert(
      fc.property(arbitrary, fc.boolean(), ({ count, stage, faulty }, healed) => {
        const objects = world(count);
        const isFaulty = (id: string) => faulty.some((i) => ofIncident(id, i));
        const first = pass(objects, emptyLifecycle(), NOW);
        expect(first.state.incidents.size).toBe(count);
        // Ten minutes on: the same cluster, or every pod healed (the healthy ones resolve).
        const later = healed
          ? objects.map((o) =>
              o.kind === "Pod"
                ? { ...o, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }
                : o,
            )
          : objects;
        const clean = pass(later, first.state, NOW + 600_000);
        const faulted = pass(later, first.state, NOW + 600_000, (s, id) => {
          if (s === stage && isFaulty(id)) throw new Error("odd object");
        });
        expect(faulted.panicked).toBeUndefined();
        expect(decided(faulted, (id) => !isFaulty(id))).toEqual(decided(clean, (id) => !isFaulty(id)));
        if (stage === "annotate" || stage === "compose" || healed) {
          // Decided like the others (only its message is plainer); healed, no stage has anything of it to throw on.
          expect(decided(faulted, isFaulty)).toEqual(decided(clean, isFaulty));
        } else {
          expect(decided(faulted, isFaulty)).toEqual([]);
          for (const i of faulty) expect(faulted.state.incidents.has(`Deployment/n${i}/app${i}`)).toBe(true);
        }
      }),
      { numRuns: 120 },
    );
  });
});
