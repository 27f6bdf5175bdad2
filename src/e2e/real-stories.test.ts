import { expect } from "bun:test";
import { QUICK_TIMING } from "../sim/controllers/index.ts";
import { STORIES } from "../sim/stories/index.ts";
import { quickStory } from "../sim/stories/story.ts";
import { realKube, realKubeTest } from "../testing/real-kube.ts";
import { prepareStoryNodes, type RealStoryResult, tellStoriesOnRealKube } from "../testing/real-stories.ts";
import { TIMED_EXPECTATIONS } from "../testing/timing/expectations.ts";
import { quickExpectation } from "../testing/timing/run.ts";

/**
 * The story catalogue on a real Kubernetes v1.32 control plane (issue 40): every story of src/sim/stories, at
 * its quick schedule (checked on the simulator in timing-invariance.test.ts), side by side in namespaces and on
 * nodes of its own, with the real controllers, scheduler, EndpointSlices, garbage collector and node lifecycle
 * controller, pods run by the kubelet stand-in on QUICK_TIMING, and one real daemon watching it all. Each must
 * tell what it tells on the simulator, with the same invariants; mon must say nothing about its own sight
 * (no blind notice, no stalled watch) all along.
 */
const realTest = realKubeTest("the story catalogue on a real control plane");

/** One line per story: what it told on the real control plane, and whether that is what it should tell. */
function line(r: RealStoryResult): string {
  const ok = r.judgement.same && r.judgement.violations.length === 0 && r.failures.length === 0;
  return [
    `${ok ? "as expected" : "DIFFERS"} ${r.story} (${Math.round(r.seconds)} s): ${r.judgement.conversation.join(" | ") || "nothing"}`,
    ...(ok ? [] : [`  expected: ${r.expected.threads.join(" | ") || "nothing"}`]),
    ...r.judgement.violations.map((v) => `  broken: ${v}`),
    ...r.failures.map((f) => `  write refused: ${f}`),
    ...(ok
      ? []
      : r.told.map((m) => `    ${m.t.toFixed(1)} s ${m.action} ${m.incidentId} ${m.reason}: ${m.text.split("\n")[0]}`)),
  ].join("\n");
}

realTest(
  "every story of the catalogue tells on the real control plane what it tells on the simulator, and mon never doubts its own sight",
  async () => {
    const nodes = await prepareStoryNodes(realKube(), STORIES, QUICK_TIMING);
    const specs = STORIES.map((story) => {
      const expected = TIMED_EXPECTATIONS.find((e) => e.story === story.name);
      if (!expected) throw new Error(`no expectation for story ${story.name}`);
      return { story: quickStory(story), expected: quickExpectation(expected, story) };
    });
    const run = await tellStoriesOnRealKube(nodes, specs);
    const report = run.results.map(line).join("\n");
    console.log(`real control plane, ${run.results.length} stories:\n${report}`);
    expect(run.results.filter((r) => !r.judgement.same || r.judgement.violations.length > 0).map(line)).toEqual([]);
    expect(run.results.flatMap((r) => r.failures)).toEqual([]);
    expect(run.standInFailures).toEqual([]);
    // Nothing about mon's own sight: no "could not watch", no blind notice, no stalled watch.
    expect(run.unplaced.map((m) => `${m.t.toFixed(1)} s ${m.incidentId}: ${m.text.split("\n")[0]}`)).toEqual([]);
    expect(run.stalls).toBe(0);
  },
  45 * 60_000,
);
