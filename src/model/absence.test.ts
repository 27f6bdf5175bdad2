import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type Absence, latestAbsence } from "./absence.ts";

const absenceArb: fc.Arbitrary<Absence | undefined> = fc.option(
  fc
    .tuple(fc.integer({ min: 0, max: 1_000 }), fc.option(fc.integer({ min: 0, max: 1_000 }), { nil: undefined }))
    .map(([from, length]) => (length === undefined ? { from } : { from, to: from + length })),
  { nil: undefined },
);

describe("the control plane's last absence (issue 53)", () => {
  test("property: the one that ended last (an ongoing one first), from the start of the chain overlapping it", () => {
    fc.assert(
      fc.property(fc.array(absenceArb, { maxLength: 4 }), (periods) => {
        const got = latestAbsence(...periods);
        const known = periods.filter((p) => p !== undefined);
        if (known.length === 0) return expect(got).toBeUndefined();
        const end = (p: Absence) => p.to ?? Number.POSITIVE_INFINITY;
        const last = Math.max(...known.map(end));
        expect(got!.to ?? Number.POSITIVE_INFINITY).toBe(last);
        // Every period overlapping the result lies within it; the start is one of theirs.
        for (const p of known) if (end(p) >= got!.from) expect(p.from).toBeGreaterThanOrEqual(got!.from);
        expect(known.some((p) => p.from === got!.from)).toBe(true);
      }),
    );
  });

  test("an unanswered election and a blind period that overlap are one absence", () => {
    expect(latestAbsence({ from: 100, to: 170 }, { from: 120, to: 160 })).toEqual({ from: 100, to: 170 });
    expect(latestAbsence({ from: 10, to: 20 }, { from: 100 })).toEqual({ from: 100 });
    expect(latestAbsence(undefined, undefined)).toBeUndefined();
  });
});
