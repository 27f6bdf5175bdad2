import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type CrashingPod, tellPasses } from "../testing/pass-model.ts";

const LINE = "Error: dial tcp 10.96.14.7:5432: connect: connection refused";

describe("a workload's pods failing one way are told together, whichever pod's kubelet writes first", () => {
  test("the first message counts every pod of the workload crash-looping when it is sent", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            beginPass: fc.integer({ min: 0, max: 10 }),
            restartsPasses: fc.integer({ min: 0, max: 8 }),
            readPasses: fc.integer({ min: 0, max: 4 }),
          }),
          { minLength: 2, maxLength: 5 },
        ),
        (replicas) => {
          const pods: CrashingPod[] = replicas.map((r, i) => ({
            workload: "checkout",
            pod: `checkout-${i}`,
            line: LINE,
            beginPass: r.beginPass,
            duePass: r.beginPass + r.restartsPasses,
            readPasses: r.readPasses,
          }));
          const told = tellPasses(pods);
          expect(told).toHaveLength(1);
          const [first] = told;
          // Every pod crash-looping at the pass the incident is told is in it, not only the first one due.
          expect(first!.draft.findings.map((f) => f.object.name).sort()).toEqual(
            pods
              .filter((c) => c.beginPass <= first!.pass)
              .map((c) => c.pod)
              .sort(),
          );
          // And it is told no later than the first due pod's, but for the reads of the pods that joined it.
          const firstDue = Math.min(...pods.map((c) => c.duePass));
          const slowest = Math.max(...pods.map((c) => c.readPasses));
          expect(first!.pass).toBeLessThanOrEqual(
            Math.max(firstDue, ...pods.filter((c) => c.beginPass <= first!.pass).map((c) => c.beginPass)) + slowest + 1,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a pod of another workload crash-looping too waits for its own hold (its log read once, for a group wait)", () => {
    const told = tellPasses([
      { workload: "checkout", pod: "checkout-0", line: LINE, beginPass: 0, duePass: 0, readPasses: 0 },
      { workload: "cart", pod: "cart-0", line: "exit status 1", beginPass: 0, duePass: 20, readPasses: 0 },
    ]);
    expect(told.map((t) => [t.draft.root.name, t.pass])).toEqual([
      ["checkout", 2],
      ["cart", 20],
    ]);
  });
});
