/**
 * Benchmark `real-latency` (issue 50): failure → provider on real pods. For each real-kubelet recording
 * (src/sim/testdata/real-node-v1.32/timelines, made by scripts/record-real-node.ts), replays it through the real
 * daemon on the fake clock — each message decided at the instant its recorded events make it due, with no delay of
 * its own — and subtracts that instant from when the same message reached the webhook on the real node (the
 * recording's README). Median, p99 and max over every message of every story go to
 * scripts/bench/results/real-latency.json and docs/performance.md. Run: bun scripts/bench/real-latency.ts (part
 * of npm run bench).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { storyNamed } from "../../src/sim/stories/index.ts";
import { quickStory } from "../../src/sim/stories/story.ts";
import { toldInRecording } from "../../src/testing/real-stories.ts";
import { startReplay } from "../../src/testing/replay.ts";
import { publish } from "./report.ts";

const DIR = join(import.meta.dirname, "..", "..", "src", "sim", "testdata", "real-node-v1.32", "timelines");
const stories = existsSync(DIR) ? readdirSync(DIR).filter((d) => existsSync(join(DIR, d, "events.jsonl"))) : [];
if (stories.length === 0) {
  console.log(`skipped: real-latency: no real-kubelet recordings in ${DIR} (bun scripts/record-real-node.ts)`);
  process.exit(0);
}

interface Message {
  readonly t: number;
  readonly action: string;
  readonly incidentId: string;
}

/** What mon told on the real node, as the recording's README lists it; a roll-up told each incident it covered. */
function toldOnRealNode(story: string): Message[] {
  return toldInRecording(readFileSync(join(DIR, story, "README.md"), "utf8")).flatMap((m) =>
    // (A roll-up's closing message only follows its incidents' own resolves.)
    m.covers
      ? m.action === "announce"
        ? m.covers.map((incidentId) => ({ t: m.t, action: m.action, incidentId }))
        : []
      : [{ t: m.t, action: m.action, incidentId: m.incidentId }],
  );
}

/** The story's steps (their `t`) and when it was fixed, as the recording's README lists them. */
function stepsOf(story: string): { steps: number[]; fixedAt?: number } {
  const readme = readFileSync(join(DIR, story, "README.md"), "utf8");
  const steps = [...readme.matchAll(/^- t=([\d.]+): (?!announce|update|resolve)/gm)].map((m) => Number(m[1]));
  const fixed = /^Fixed at t=([\d.]+)\./m.exec(readme);
  return { steps, ...(fixed ? { fixedAt: Number(fixed[1]) } : {}) };
}

interface Row {
  readonly story: string;
  readonly messages: number;
  /** Real arrival less the replay's decision, per message (ms; the recordings' resolution is 100 ms). */
  readonly overheadMs: number[];
  /** First announcement less the step before it (s): the failure's own time on the kubelet plus mon's holds. */
  readonly announceAfterStepS?: number;
  /** The last resolve less the fix (s). */
  readonly resolveAfterFixS?: number;
}

const rows: Row[] = [];
for (const name of stories) {
  const story = storyNamed(name);
  if (!story) continue;
  const run = await startReplay(name, { dir: DIR });
  try {
    await run.runTo(Math.max(run.lengthSeconds, quickStory(story).lengthSeconds) + 30);
    const replayed = run.told();
    const real = toldOnRealNode(name);
    const overheadMs: number[] = [];
    // The n-th message of a thread and action on the real node is the n-th of the replay.
    const seen = new Map<string, number>();
    for (const m of real) {
      const key = `${m.incidentId} ${m.action}`;
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      const same = replayed.filter((r) => r.incidentId === m.incidentId && r.action === m.action)[n];
      if (same) overheadMs.push(Math.round((m.t - same.t) * 1000));
    }
    const { steps, fixedAt } = stepsOf(name);
    const announce = real.find((m) => m.action === "announce");
    const cause = announce && steps.filter((t) => t <= announce.t).at(-1);
    const resolves = real.filter((m) => m.action === "resolve");
    rows.push({
      story: name,
      messages: real.length,
      overheadMs,
      ...(announce && cause !== undefined ? { announceAfterStepS: round1(announce.t - cause) } : {}),
      ...(fixedAt !== undefined && resolves.length ? { resolveAfterFixS: round1(resolves.at(-1)!.t - fixedAt) } : {}),
    });
  } finally {
    await run.stop();
  }
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

const at = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;
const overhead = rows.flatMap((r) => r.overheadMs).map(Math.abs);
const announced = rows.flatMap((r) => (r.announceAfterStepS === undefined ? [] : [r.announceAfterStepS]));
const resolved = rows.flatMap((r) => (r.resolveAfterFixS === undefined ? [] : [r.resolveAfterFixS]));
const result = {
  stories: rows.length,
  messages: overhead.length,
  overhead: { medianAbsMs: at(overhead, 0.5), p99AbsMs: at(overhead, 0.99), maxAbsMs: at(overhead, 1) },
  announceAfterStepS: { median: at(announced, 0.5), p99: at(announced, 0.99), max: at(announced, 1) },
  resolveAfterFixS: { median: at(resolved, 0.5), p99: at(resolved, 0.99), max: at(resolved, 1) },
  perStory: rows,
};
const cell = (x: number | undefined) => (x === undefined ? "—" : String(x));
publish(
  "real-latency",
  result,
  [
    `${result.stories} stories recorded on the real node, ${result.messages} messages. What mon adds on a real cluster to the instant its recorded events make a message due (watch delivery, the pass batch, the evidence read through the API server and the kubelet, delivery to the webhook): median ${result.overhead.medianAbsMs} ms, p99 ${result.overhead.p99AbsMs} ms, max ${result.overhead.maxAbsMs} ms (in either direction; the recordings' resolution is 100 ms).`,
    `From a story's step to its first announcement — the kubelet's own time (pulls, starts, its crash back-off) plus mon's holds: median ${result.announceAfterStepS.median} s, p99 ${result.announceAfterStepS.p99} s. From the fix to the last resolve — the kubelet's next start after its back-off (up to 5 minutes) plus mon's recovery checks: median ${result.resolveAfterFixS.median} s, p99 ${result.resolveAfterFixS.p99} s.`,
    "",
    "| story | messages | added by mon, median / max (ms) | step → announcement (s) | fix → resolve (s) |",
    "|---|---:|---:|---:|---:|",
    ...rows.map((r) => {
      const xs = r.overheadMs.map(Math.abs);
      return `| ${r.story} | ${r.messages} | ${at(xs, 0.5)} / ${at(xs, 1)} | ${cell(r.announceAfterStepS)} | ${cell(r.resolveAfterFixS)} |`;
    }),
  ].join("\n"),
);
process.exit(0);
