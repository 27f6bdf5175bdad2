import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type CrashingPod, tellPasses } from "../testing/pass-model.ts";

const SHARED = 'FATAL: password authentication failed for user "sync"';
const OTHER = "Error: getaddrinfo ENOTFOUND payments.internal.example";

/** One crash-looping workload of the model (one pod): from which pass it is due (its third restart), how long its log takes. */
interface Crashing {
  readonly name: string;
  readonly line: string;
  readonly duePass: number;
  readonly readPasses: number;
}

/** What the passes tell while the workloads' one pod each crash-loops from the first pass. */
const tell = (workloads: readonly Crashing[]) =>
  tellPasses(
    workloads.map(
      (w): CrashingPod => ({
        workload: w.name,
        pod: `${w.name}-1`,
        line: w.line,
        beginPass: 0,
        duePass: w.duePass,
        readPasses: w.readPasses,
      }),
    ),
  );

describe("a group wait: workloads failing with one error are told once, whichever opens or is read first", () => {
  test("any number of workloads sharing a line, beside others that do not, due and read in any order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ duePass: fc.integer({ min: 0, max: 12 }), readPasses: fc.integer({ min: 0, max: 4 }) }), {
          minLength: 2,
          maxLength: 5,
        }),
        fc.array(fc.record({ duePass: fc.integer({ min: 0, max: 12 }), readPasses: fc.integer({ min: 0, max: 4 }) }), {
          maxLength: 3,
        }),
        (shared, alone) => {
          const workloads: Crashing[] = [
            ...shared.map((t, i) => ({ ...t, name: `sync-${"abcde"[i]}`, line: SHARED })),
            ...alone.map((t, i) => {
              const name = `report-${["alpha", "bravo", "charlie"][i]}`;
              return { ...t, name, line: OTHER.replace("payments", name) };
            }),
          ];
          const told = tell(workloads);
          // One incident for the shared line, naming every workload that fails with it when first told.
          const errors = told.filter((t) => t.draft.root.kind === "Error");
          expect(errors).toHaveLength(1);
          expect(errors[0]!.draft.findings.map((f) => f.object.name).sort()).toEqual(
            workloads
              .filter((w) => w.line === SHARED)
              .map((w) => `${w.name}-1`)
              .sort(),
          );
          // Told without waiting past the reads: the first due one's pass, plus the slowest log, plus a pass.
          const first = Math.min(...shared.map((t) => t.duePass));
          expect(errors[0]!.pass).toBeLessThanOrEqual(first + 2 * Math.max(...workloads.map((w) => w.readPasses)) + 2);
          // Each other workload is told as itself.
          expect(
            told
              .filter((t) => t.draft.root.kind === "Deployment")
              .map((t) => t.draft.root.name)
              .sort(),
          ).toEqual(workloads.filter((w) => w.line !== SHARED).map((w) => w.name));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a workload whose log says nothing shared waits for no one", () => {
    const told = tell([
      { name: "quiet", line: "exit status 1", duePass: 0, readPasses: 0 },
      { name: "slow", line: SHARED, duePass: 30, readPasses: 0 },
    ]);
    expect(told.map((t) => [t.draft.root.name, t.pass])).toEqual([
      ["quiet", 1],
      ["slow", 31],
    ]);
  });
});
