import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { TraceEntry } from "../../model/trace.ts";
import { MAX_TRACE_ENTRIES, Traces } from "./traces.ts";

const KEY = "Deployment/shop/web";
const entry = (step: TraceEntry["step"], text: string, at = 0, incident?: string): TraceEntry => ({
  at,
  step,
  text,
  ...(incident ? { incident } : {}),
});

describe("the explain trace records a change, not a repetition (issue 52 item 8)", () => {
  test("two findings seen together in every pass are recorded once each; the announce and its delivery stay", () => {
    const traces = new Traces();
    const pair = [
      entry("detected", "ProgressDeadlineExceeded (high): deployment shop/web made no progress"),
      entry("detected", "WorkloadUnavailable (high): deployment shop/web 0/2 available"),
    ];
    traces.pass(new Map([[KEY, [...pair, entry("decided", "announce", 0, KEY)]]]), 0);
    traces.delivery(KEY, "delivered", "webhook: 200", 1_000);
    for (let i = 1; i <= 500; i++) traces.pass(new Map([[KEY, pair]]), i * 5_000);
    expect(traces.of(KEY).map((e) => e.step)).toEqual(["detected", "detected", "decided", "delivered"]);
  });

  test("any sequence of passes: every entry a pass says is in the trace, and an entry is added only when it was not in the pass before", () => {
    const pool = [
      entry("detected", "A"),
      entry("detected", "B"),
      entry("held", "its hold"),
      entry("suppressed", "silenced by config.yaml:3"),
      entry("incident", "part of X", 0, "X"),
    ];
    fc.assert(
      fc.property(fc.array(fc.subarray(pool), { maxLength: 60 }), (passes) => {
        const traces = new Traces();
        let changes = 0;
        let previous: readonly TraceEntry[] = [];
        passes.forEach((said, i) => {
          changes += said.filter((e) => !previous.includes(e)).length;
          traces.pass(new Map([[KEY, said]]), i * 1_000);
          previous = said;
          const trace = traces.of(KEY);
          // What this pass says is in the trace (unless the cap dropped older entries).
          if (trace.length < MAX_TRACE_ENTRIES)
            for (const e of said) expect(trace.some((t) => t.step === e.step && t.text === e.text)).toBe(true);
        });
        const recorded = traces.of(KEY).filter((e) => e.step !== "gone").length;
        expect(recorded).toBeLessThanOrEqual(changes);
      }),
    );
  });
});
