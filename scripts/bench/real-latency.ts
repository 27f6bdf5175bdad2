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

/** What mon told on the real node, as the recording's README lists it. */
function toldOnRealNode(story: string): Message[] {
  const readme = readFileSync(join(DIR, story, "README.md"), "utf8");
  // A roll-up or summary told several incidents at once: each of them was told then.
  return [...readme.matchAll(/^- t=([\d.]+): (announce|update|resolve) `([^`]+)` \w+(?:, covering (.+))?$/gm)].flatMap(
    (m) => {
      // (A roll-up's closing message only follows its incidents' own resolves.)
      if (m[4] && m[2] !== "announce") return [];
      const covers = m[4] ? [...m[4].matchAll(/`([^`]+)`/g)].map((c) => c[1]!) : [m[3]!];
      return covers.map((incidentId) => ({ t: Number(m[1]), action: m[2]!, incidentId }));
    },
  );
}

const rows: { story: string; messages: number; latenciesMs: number[] }[] = [];
for (const name of stories) {
  const story = storyNamed(name);
  if (!story) continue;
  const run = await startReplay(name, { dir: DIR });
  try {
    await run.runTo(Math.max(run.lengthSeconds, quickStory(story).lengthSeconds) + 30);
    const replayed = run.told();
    const real = toldOnRealNode(name);
    const latenciesMs: number[] = [];
    // The n-th message of a thread and action on the real node is the n-th of the replay.
    const seen = new Map<string, number>();
    for (const m of real) {
      const key = `${m.incidentId} ${m.action}`;
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      const same = replayed.filter((r) => r.incidentId === m.incidentId && r.action === m.action)[n];
      if (same) latenciesMs.push(Math.round((m.t - same.t) * 1000));
    }
    rows.push({ story: name, messages: real.length, latenciesMs });
  } finally {
    await run.stop();
  }
}

const all = rows.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
const at = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;
const result = {
  stories: rows.length,
  messages: all.length,
  medianMs: at(all, 0.5),
  p99Ms: at(all, 0.99),
  maxMs: all.at(-1) ?? 0,
  perStory: rows,
};
publish(
  "real-latency",
  result,
  [
    `${result.messages} messages of ${result.stories} stories recorded on the real node: median ${result.medianMs} ms, p99 ${result.p99Ms} ms, max ${result.maxMs} ms from the change that made each due to the webhook.`,
    "",
    "| story | messages | median (ms) | max (ms) |",
    "|---|---:|---:|---:|",
    ...rows.map((r) => {
      const xs = [...r.latenciesMs].sort((a, b) => a - b);
      return `| ${r.story} | ${r.messages} | ${at(xs, 0.5)} | ${xs.at(-1) ?? 0} |`;
    }),
  ].join("\n"),
);
process.exit(0);
