import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { loadTimingExamples } from "../testing/timing/examples.ts";
import { storyNamed } from "../sim/stories/index.ts";
import {
  CONTROL_PLANE_EXPECTATIONS,
  TIMED_EXPECTATIONS,
  type TimedExpectation,
  TRUST_EXPECTATIONS,
} from "../testing/timing/expectations.ts";
import {
  describeFailure,
  QUICK_STORY_TIMING,
  REAL_NODE_STORY_TIMING,
  runQuick,
  runTimed,
  type StoryTiming,
  storyTimingArbitrary,
} from "../testing/timing/run.ts";

/**
 * Timing invariance (issue 28; docs/alert-quality.md "Timing invariance"): every story of the catalogue and
 * the seven recorded stories, and the trust stories (mon starting late, a silence: src/sim/stories/trust.ts), told to the simulator's controllers under generated legal timing profiles
 * (src/sim/controllers/timing-profiles.ts) through the real daemon, gives the same conversation up to times and
 * holds the invariants of docs/incidents.md "Whatever the timing". The suite draws a few profiles per story
 * from a fixed seed (MON_TIMING_PROFILES, MON_TIMING_SEED change them); `npm run quality -- --profiles N` is the
 * deep run. A failure prints its seed, its path and the smallest timing fast-check found that breaks it: saved
 * under src/testing/timing/examples/, that timing is run below as an example on every run.
 */

const PROFILES = Number(process.env.MON_TIMING_PROFILES ?? 2);
const SEED = Number(process.env.MON_TIMING_SEED ?? 28);
/**
 * How long a failing story may be shrunk toward its smallest breaking timing, ms (each step is a whole run):
 * then fast-check reports the smallest it found, so a failure never holds CI up for long.
 */
const SHRINK_MS = Number(process.env.MON_TIMING_SHRINK_MS ?? 240_000);
/** A story under a fast crash back-off replays up to an hour of cluster time. */
const LONG = SHRINK_MS + 300_000;

async function holds(expected: TimedExpectation, timing: StoryTiming): Promise<void> {
  const started = performance.now();
  const { told, judgement } = await runTimed(expected, timing);
  // MON_TIMING_VERBOSE=1 says how each run went as it ends (a failing one is shrunk, run after run).
  if (process.env.MON_TIMING_VERBOSE)
    console.log(
      `${expected.story}: ${judgement.same && judgement.violations.length === 0 ? "holds" : "BREAKS"} in ${Math.round(performance.now() - started)} ms`,
    );
  if (!judgement.same || judgement.violations.length > 0)
    throw new Error(describeFailure(expected, timing, told, judgement));
}

/** The trust and control-plane stories come last, so every other story keeps its seed. */
const ALL = [...TIMED_EXPECTATIONS, ...TRUST_EXPECTATIONS, ...CONTROL_PLANE_EXPECTATIONS];

describe("the same true messages whatever the timing (generated legal timing profiles)", () => {
  ALL.forEach((expected, i) => {
    test(
      `${expected.story}: ${expected.threads.length ? expected.threads.join("; ") : "nothing told"}`,
      async () => {
        await fc.assert(
          fc.asyncProperty(storyTimingArbitrary(), (timing) => holds(expected, timing)),
          // One seed per story, so each draws its own profiles; the same on every run.
          { seed: SEED + i, numRuns: PROFILES, interruptAfterTimeLimit: SHRINK_MS, markInterruptAsFailure: false },
        );
      },
      LONG,
    );
  });
});

describe("timings that once broke a story (src/testing/timing/examples)", () => {
  const examples = loadTimingExamples();
  test("every example names a story of the catalogue", () => {
    const stories = new Set(TIMED_EXPECTATIONS.map((e) => e.story));
    expect(examples.filter((e) => !stories.has(e.story)).map((e) => e.file)).toEqual([]);
  });
  for (const example of examples) {
    const expected = TIMED_EXPECTATIONS.find((e) => e.story === example.story);
    if (!expected) continue;
    test(`${example.file}: ${example.why}`, () => holds(expected, example.timing), LONG);
  }
});

describe("the quick schedules the real control plane is told (issue 40), on the simulator under QUICK_TIMING", () => {
  for (const expected of [...TIMED_EXPECTATIONS, ...TRUST_EXPECTATIONS].filter((e) => e.source === "controllers")) {
    test(
      `${expected.story} at its quick schedule`,
      async () => {
        const { told, judgement, expected: want } = await runQuick(expected);
        if (!judgement.same || judgement.violations.length > 0)
          throw new Error(describeFailure(want, QUICK_STORY_TIMING, told, judgement));
      },
      LONG,
    );
  }
});

describe("the stories told on the real node (issue 50), at their quick schedule on the simulator under the real kubelet's timing", () => {
  for (const expected of TIMED_EXPECTATIONS.filter((e) => storyNamed(e.story)?.realNode)) {
    test(
      `${expected.story} at its quick schedule, on the real kubelet's timing as measured`,
      async () => {
        const { told, judgement, expected: want } = await runQuick(expected, REAL_NODE_STORY_TIMING);
        if (!judgement.same || judgement.violations.length > 0)
          throw new Error(describeFailure(want, REAL_NODE_STORY_TIMING, told, judgement));
      },
      LONG,
    );
  }
});
