import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { storyNamed } from "../sim/stories/index.ts";
import { quickStory } from "../sim/stories/story.ts";
import { placedExpectation, realNodePlace, toldInRecording } from "../testing/real-stories.ts";
import { startReplay } from "../testing/replay.ts";
import { conversationLines, threadsOf } from "../testing/timing/conversation.ts";
import { TIMED_EXPECTATIONS } from "../testing/timing/expectations.ts";
import { judgeTimed } from "../testing/timing/invariants.ts";
import { quickExpectation } from "../testing/timing/run.ts";

/**
 * Real-kubelet timelines (issue 50): stories written for real pods, recorded on a real node — a real kubelet
 * v1.32.13 with containerd and runc, the real control plane — by `bun scripts/record-real-node.ts`, replayed
 * through the real daemon on the fake clock at their recorded timing. Each tells what the story should tell
 * (its expectation, judged with every invariant), and the same conversation mon told on the real node when it
 * was recorded (the recording's README.md).
 */
const DIR = join(import.meta.dirname, "..", "sim", "testdata", "real-node-v1.32", "timelines");
const recorded = existsSync(DIR) ? readdirSync(DIR).filter((d) => existsSync(join(DIR, d, "events.jsonl"))) : [];

/** The conversation mon told on the real node, as the recording's README lists it. */
function toldOnRealNode(story: string): string[] {
  return conversationLines(threadsOf(toldInRecording(readFileSync(join(DIR, story, "README.md"), "utf8"))));
}

describe("real-kubelet timelines, replayed through the real daemon (issue 50)", () => {
  test("the fixtures hold a recording of each kind of failure the real node showed", () => {
    expect(recorded.length).toBeGreaterThanOrEqual(6);
  });

  for (const name of recorded) {
    test(`${name}: told as on the real node, every invariant held`, async () => {
      const full = storyNamed(name);
      const expected = TIMED_EXPECTATIONS.find((e) => e.story === name);
      if (!full || !expected) throw new Error(`recording ${name} names no story of the catalogue`);
      const story = quickStory(full);
      const want = placedExpectation(quickExpectation(expected, full), realNodePlace(full, "localhost"));
      const run = await startReplay(name, { dir: DIR });
      try {
        await run.runTo(Math.max(run.lengthSeconds, story.lengthSeconds) + 30);
        const told = run.told();
        const judged = judgeTimed(want, story.fixedAt, told);
        expect({ conversation: judged.conversation, violations: judged.violations }).toEqual({
          conversation: [...want.threads].sort(),
          violations: [],
        });
        expect(judged.conversation).toEqual(toldOnRealNode(name));
      } finally {
        await run.stop();
      }
    });
  }
});
