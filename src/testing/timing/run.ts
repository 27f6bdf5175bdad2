import fc from "fast-check";
import { QUICK_TIMING, REAL_KUBELET_TIMING, RECORDED_TIMING, type TimingProfile } from "../../sim/controllers/index.ts";
import { timingProfileArbitrary } from "../../sim/controllers/timing-profiles.ts";
import { type Story, storyNamed as catalogueStory } from "../../sim/stories/index.ts";
import { CONTROL_PLANE_STORIES } from "../../sim/stories/control-plane.ts";
import { TRUST_STORIES } from "../../sim/stories/trust.ts";
import { quickStory } from "../../sim/stories/story.ts";
import { type ReplayRun, startStory, startTimedStory, type Told } from "../replay.ts";
import type { TimedExpectation } from "./expectations.ts";
import { judgeTimed, type TimedJudgement } from "./invariants.ts";

/**
 * One timing of a story run: the controllers' profile, how long before the story its nodes joined when it
 * asks for young nodes (ms; under 10 minutes, so the young-node grace applies to what fails early), and when
 * its first step runs after mon's baseline pass (ms), which moves every change against mon's pass batches.
 */
export interface StoryTiming {
  readonly controllers: TimingProfile;
  readonly youngNodeAgeMs: number;
  readonly phaseMs: number;
}

/** The recorded timing, nodes a minute old, no phase: the timing the example tests were written for. */
export const RECORDED_STORY_TIMING: StoryTiming = { controllers: RECORDED_TIMING, youngNodeAgeMs: 60_000, phaseMs: 0 };

/** Every legal story timing (timingProfileArbitrary, node ages 0–9 minutes, phases 0–1 s). */
export function storyTimingArbitrary(): fc.Arbitrary<StoryTiming> {
  return fc.record({
    controllers: timingProfileArbitrary(),
    youngNodeAgeMs: fc.integer({ min: 0, max: 540_000 }),
    phaseMs: fc.integer({ min: 0, max: 1_000 }),
  });
}

/**
 * A failing run in words: the story, what it told against what it should have, the invariants it broke, every
 * message with its second, and the timing as an example file (src/testing/timing/examples) that `mon sim
 * --story NAME --timing FILE` replays by hand.
 */
export function describeFailure(
  expected: TimedExpectation,
  timing: StoryTiming,
  told: readonly Told[],
  judgement: TimedJudgement,
): string {
  const example = { story: expected.story, why: "(say what this timing breaks)", timing };
  return [
    `${expected.story}: ${judgement.same ? "the conversation is as expected" : "another conversation than expected"}`,
    `  told:     ${judgement.conversation.join(" | ") || "nothing"}`,
    `  expected: ${expected.threads.join(" | ") || "nothing"}`,
    ...judgement.violations.map((v) => `  broken: ${v}`),
    "  messages:",
    ...told.map((m) => `    ${m.t.toFixed(1)} s ${m.action} ${m.incidentId} ${m.reason}: ${m.text.split("\n")[0]}`),
    `  as an example (src/testing/timing/examples/${expected.story}-N.json; mon sim --story ${expected.story} --timing FILE):`,
    `  ${JSON.stringify(example)}`,
  ].join("\n");
}

/** What a timed run told and how it is judged. */
export interface TimedRun {
  readonly told: readonly Told[];
  readonly judgement: TimedJudgement;
}

/**
 * Tells the expectation's story under `timing` through the real daemon (src/testing/replay.ts) to its end, and
 * judges what the webhook received. Recorded stories run on their recorded nodes; catalogue stories start on
 * an empty cluster.
 */
export async function runTimed(expected: TimedExpectation, timing: StoryTiming): Promise<TimedRun> {
  let run: ReplayRun;
  let fixedAt = expected.fixedAt;
  let length = expected.lengthSeconds;
  if (expected.source === "recorded") {
    // A StatefulSet of three, each pod a minute to start and ready in turn, is up after four minutes.
    run = await startStory(expected.story, {
      timing: timing.controllers,
      settleSeconds: 240,
      ...(expected.moved ? { moved: expected.moved } : {}),
    });
  } else {
    const story = storyNamed(expected.story);
    if (!story) throw new Error(`no story named ${expected.story}`);
    run = await startTimedStory(story, timing);
    fixedAt = story.fixedAt;
    length = story.lengthSeconds;
  }
  try {
    await run.runTo(length ?? run.lengthSeconds + 10, 1_000);
    const told = run.told();
    return { told, judgement: judgeTimed(expected, fixedAt, told) };
  } finally {
    await run.stop();
  }
}

/** The quick schedule's timing (QUICK_TIMING, nodes a minute old, no phase): what the real control plane runs. */
export const QUICK_STORY_TIMING: StoryTiming = { controllers: QUICK_TIMING, youngNodeAgeMs: 60_000, phaseMs: 0 };

/**
 * The timing of a real node's kubelet at its defaults, as measured on it (REAL_KUBELET_TIMING: the first restart at
 * once, then 10 s doubling to 5 minutes at the pod's next sync, an ended container shown for ~14 s): the quick
 * schedule of a story told on the real node (issue 50) must hold under it too.
 */
export const REAL_NODE_STORY_TIMING: StoryTiming = {
  controllers: REAL_KUBELET_TIMING,
  youngNodeAgeMs: 60_000,
  phaseMs: 0,
};

/**
 * What a story tells at its quick schedule (issue 40; src/sim/stories/story.ts QuickSchedule): the same threads
 * unless the quick run ends before the whole conversation (then the quick schedule's own), fixed at its seconds.
 */
export function quickExpectation(expected: TimedExpectation, story: Story): TimedExpectation {
  const { quick } = story;
  return {
    ...expected,
    ...(quick.threads ? { threads: quick.threads, why: quick.why ?? expected.why } : {}),
    ...(quick.fixes ? { fixes: quick.fixes } : {}),
    ...(quick.threads && !quick.threads.some((t) => t.includes("resolve")) ? { resolvesWithin: undefined } : {}),
  };
}

/**
 * Tells a catalogue story at its quick schedule on the simulator's controllers running QUICK_TIMING, through the
 * real daemon, and judges it against its quick expectation: the schedule the real control plane is told is
 * first known to tell the expected conversation (issue 40).
 */
export async function runQuick(
  expected: TimedExpectation,
  timing: StoryTiming = QUICK_STORY_TIMING,
): Promise<TimedRun & { expected: TimedExpectation }> {
  const full = storyNamed(expected.story);
  if (!full) throw new Error(`no story named ${expected.story}`);
  const story = quickStory(full);
  const want = quickExpectation(expected, full);
  const run = await startTimedStory(story, timing);
  try {
    await run.runTo(story.lengthSeconds, 1_000);
    const told = run.told();
    return { told, judgement: judgeTimed(want, story.fixedAt, told), expected: want };
  } finally {
    await run.stop();
  }
}

/** A story of the catalogue, of the trust stories or of the control plane's, by name. */
function storyNamed(name: string): Story | undefined {
  return catalogueStory(name) ?? [...TRUST_STORIES, ...CONTROL_PLANE_STORIES].find((s) => s.name === name);
}
