#!/usr/bin/env bun
/**
 * Records the stories written for real pods (src/sim/stories, `realNode`) as told on the real node into
 * watch-event timelines (issue 50): `bun scripts/record-real-node.ts [--only story,…] [--out DIR]`, as root on a
 * machine with the real control plane and node of ../shared/kube (see README.md). Each story goes to
 * `DIR/<story>/` (initial.json, events.jsonl, README.md; default src/sim/testdata/real-node-v1.32/timelines),
 * which src/e2e/real-node-timelines.test.ts replays through mon on every run. About 12 minutes for the node to
 * age past mon's young-node grace, then the stories' own length.
 */
import { join } from "node:path";
import { connectKube } from "../src/kube/connection.ts";
import { createSystemClock } from "../src/runtime/clock.ts";
import { createSilentLogger } from "../src/runtime/logger.ts";
import { startKubeletStandIn } from "../src/sim/standin/standin.ts";
import { STORIES } from "../src/sim/stories/index.ts";
import { quickStory } from "../src/sim/stories/story.ts";
import { realNode, realNodeMissing } from "../src/testing/real-node.ts";
import { tellStoriesOnRealNode } from "../src/testing/real-stories.ts";
import { TIMED_EXPECTATIONS } from "../src/testing/timing/expectations.ts";
import { quickExpectation } from "../src/testing/timing/run.ts";

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = (flag("--only") ?? "").split(",").filter(Boolean);
const out = flag("--out") ?? join(import.meta.dirname, "..", "src", "sim", "testdata", "real-node-v1.32", "timelines");
const missing = realNodeMissing();
if (missing) {
  console.error(`record-real-node: the real node cannot run: ${missing}`);
  process.exit(2);
}
const unknown = only.filter((name) => !STORIES.some((s) => s.realNode && s.name === name));
if (unknown.length) {
  console.error(`record-real-node: no story told on the real node named ${unknown.join(", ")}`);
  process.exit(2);
}
const node = await realNode();
// Two quiet stand-in nodes beside the real one: with every node of its zone lost, the node lifecycle controller
// would take the loss for a zone outage and evict nothing (as in a real cluster of several nodes, it evicts).
const standIn = await startKubeletStandIn({
  connection: await connectKube({ kubeconfigText: node.kube.kubeconfigText }),
  clock: createSystemClock(),
  logger: createSilentLogger(),
  nodes: ["bystander-1", "bystander-2"].map((name) => ({ name, labels: {}, address: "127.0.0.1" })),
});
process.once("exit", () => standIn.stop());
const specs = STORIES.filter((s) => s.realNode && (only.length === 0 || only.includes(s.name))).map((story) => {
  const expected = TIMED_EXPECTATIONS.find((e) => e.story === story.name);
  if (!expected) throw new Error(`no expectation for story ${story.name}`);
  return { story: quickStory(story), expected: quickExpectation(expected, story) };
});
console.log(`record-real-node: ${specs.length} stories into ${out} (the node ages 10 minutes first)`);
const run = await tellStoriesOnRealNode(node, specs, { record: out, trace: (line) => console.log(line) });
for (const r of run.results) {
  const ok = r.judgement.same && r.judgement.violations.length === 0;
  console.log(`${ok ? "as expected" : "DIFFERS"} ${r.story}: ${r.judgement.conversation.join(" | ") || "nothing"}`);
  for (const v of r.judgement.violations) console.log(`  broken: ${v}`);
}
process.exit(run.results.every((r) => r.judgement.same && r.judgement.violations.length === 0) ? 0 : 1);
