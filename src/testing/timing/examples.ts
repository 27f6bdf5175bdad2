import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RECORDED_TIMING, type TimingProfile } from "../../sim/controllers/index.ts";
import type { StoryTiming } from "./run.ts";

/** Where timings that once broke a story are kept, one JSON file each. */
export const EXAMPLES_DIR = join(import.meta.dirname, "examples");

/** A kept timing: the story it broke, why it mattered, and the timing (a partial profile over the recorded one). */
export interface TimingExample {
  readonly file: string;
  readonly story: string;
  readonly why: string;
  readonly timing: StoryTiming;
}

/**
 * The examples of EXAMPLES_DIR (`{ "story", "why", "timing": { "controllers": {…}, "youngNodeAgeMs",
 * "phaseMs" } }`, as a failing property run prints them); `controllers` may name only the durations that
 * matter, the rest are the recorded timing. Throws an Error naming the file when one is not such a document.
 */
export function loadTimingExamples(dir = EXAMPLES_DIR): TimingExample[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((file) => {
      const json = JSON.parse(readFileSync(join(dir, file), "utf8"));
      if (typeof json?.story !== "string" || typeof json?.why !== "string" || typeof json?.timing !== "object")
        throw new Error(`${file}: not a timing example ({ "story", "why", "timing" })`);
      const controllers: TimingProfile = { ...RECORDED_TIMING, ...json.timing.controllers };
      return {
        file,
        story: json.story,
        why: json.why,
        timing: {
          controllers,
          youngNodeAgeMs: json.timing.youngNodeAgeMs ?? 60_000,
          phaseMs: json.timing.phaseMs ?? 0,
        },
      };
    });
}
